-- Grain: one row for the Dou Dizhu games of the selection (none when it holds none): what the
-- Dou Dizhu part of a session report heads with (money: ddz_game_scores), the bombs, rockets,
-- springs (春天) and anti-springs (反春) played.
-- Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_ddz_games.sql).
with games as (
    select * from report_ddz_games($match_key, $day, $tz, $player_id)
)

select
    'money' as unit,
    count(*) as n_games,
    count(*) filter (where g.is_scored) as n_scored,
    count(distinct g.match_key) as n_matches,
    (
        select count(distinct s.player_id)
        from ddz_game_scores as s
        where s.game_id in (select game_id from games)
    ) as n_players,
    min(g.started_local) as first_started,
    max(g.started_local) as last_started,
    string_agg(distinct ruleset_label(g.ruleset_id), ', '
        order by ruleset_label(g.ruleset_id)) as rulesets,
    coalesce(sum(g.bombs), 0)::bigint as n_bombs,
    coalesce(sum(g.rockets), 0)::bigint as n_rockets,
    count(*) filter (where g.spring = 'spring') as n_springs,
    count(*) filter (where g.spring = 'anti_spring') as n_anti_springs
from games as g
having count(*) > 0
