-- Grain: one row per player: standings under the games' own rules beside a what-if ruleset
-- (`big2 rescore --by player`; sql/macros/rescore_players.sql), best what-if rank first.
-- Parameters: $whatif (the what-if ruleset as JSON, pipeline.sqlbuild.ruleset_json). Every
-- row: the CLI's table shows the first --limit.
select *
from rescore_players($whatif)
order by whatif_rank, own_rank, player_id
