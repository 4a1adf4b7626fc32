-- Grain: one row per column of every table and view of the warehouse (the SQL explorer's
-- catalogue), with the table's kind and description and the column's, as `big2 sql --tables`
-- (pipeline.sqlbuild.catalogue): the catalog's comments, written by `big2 build` from the SQL
-- files' grain headers and sql/columns.toml; a table or view without one takes its `stg_` view's.
-- Parameters: none.
with objects as (
    select table_name as name, 'table' as kind, comment
    from duckdb_tables() where schema_name = 'main'
    union all
    select view_name, 'view', comment
    from duckdb_views() where schema_name = 'main' and not internal
),
cols as (
    select table_name, column_name, data_type, column_index, comment
    from duckdb_columns() where schema_name = 'main'
)
select o.name as table_name, o.kind,
    coalesce(nullif(o.comment, ''), nullif(stg.comment, ''), '') as table_description,
    c.column_name, c.data_type, coalesce(nullif(c.comment, ''), s.comment, '') as description
from objects as o
left join objects as stg on stg.name = 'stg_' || o.name
join cols as c on c.table_name = o.name
left join cols as s on s.table_name = 'stg_' || o.name and s.column_name = c.column_name
where not starts_with(o.name, '_')
order by o.name, c.column_index
