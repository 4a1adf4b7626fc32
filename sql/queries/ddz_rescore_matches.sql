-- Grain: one row per player per Dou Dizhu match: match standings under the games' own rules
-- beside a what-if Dou Dizhu ruleset (`big2 rescore --as ddz … --by match`;
-- sql/macros/ddz_rescore_matches.sql). Parameters: $whatif
-- (pipeline.sqlbuild.ddz_ruleset_json). Every row: the CLI's table shows the first --limit.
select *
from ddz_rescore_matches($whatif)
order by match_key, whatif_standing, own_standing, player_id
