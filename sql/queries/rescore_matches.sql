-- Grain: one row per player per match: match standings under the games' own rules beside a
-- what-if ruleset (`big2 rescore --by match`; sql/macros/rescore_matches.sql).
-- Parameters: $whatif (the what-if ruleset as JSON, pipeline.sqlbuild.ruleset_json). Every
-- row: the CLI's table shows the first --limit.
select *
from rescore_matches($whatif)
order by match_key, whatif_standing, own_standing, player_id
