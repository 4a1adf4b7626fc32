-- Grain: one row per Dou Dizhu player: standings under the games' own rules beside a what-if
-- Dou Dizhu ruleset (`big2 rescore --as ddz …`; sql/macros/ddz_rescore_players.sql), best
-- what-if rank first. Parameters: $whatif (pipeline.sqlbuild.ddz_ruleset_json).
-- Every row: the CLI's table shows the first --limit.
select *
from ddz_rescore_players($whatif)
order by whatif_rank, own_rank, player_id
