-- Grain: one row: whether a table or view named $table is in the warehouse's catalogue.
-- Parameters: $table.
select count(*) as n from information_schema.tables where table_name = $table
