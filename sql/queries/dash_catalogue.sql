-- Grain: one row per column of every table and view of the warehouse (the SQL explorer's
-- catalogue).
-- Parameters: none.
select table_name, column_name, data_type
from information_schema.columns
where table_schema = 'main' and not starts_with(table_name, '_')
order by table_name, ordinal_position
