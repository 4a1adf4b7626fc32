-- Grain: one row per unit of the selection (money, or penalty points): what a session report
-- heads with. Parameters: $match_key, $day, $tz, $player_id (see sql/macros/report_games.sql).
with games as (
    select * from report_games($match_key, $day, $tz, $player_id)
),

seats as (
    select
        s.*,
        case when s.settlement = 'penalty_points' then 'penalty points' else 'money' end as unit,
        g.started_local
    from mart_game_scores as s
    join games as g on g.game_id = s.game_id
)

select
    s.unit,
    count(distinct s.game_id) as n_games,
    count(distinct s.game_id) filter (where s.is_scored) as n_scored,
    count(distinct s.match_key) as n_matches,
    count(distinct s.player_id) as n_players,
    min(s.started_local) as first_started,
    max(s.started_local) as last_started,
    string_agg(distinct ruleset_label(s.own_ruleset_id), ', '
        order by ruleset_label(s.own_ruleset_id)) as rulesets,
    bool_or(s.is_bankroll) as has_bankroll,
    count(distinct s.game_id) filter (where s.bao_seat is not null) as n_bao,
    count(*) filter (where s.multiplier > 1) as n_chao
from seats as s
group by s.unit
order by s.unit
