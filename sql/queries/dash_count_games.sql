-- Grain: one row: how many games the warehouse holds.
-- Parameters: none.
select count(*) as n from games
