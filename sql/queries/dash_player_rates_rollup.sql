-- Grain: one row per player ($player: only that player's row; the first $limit by games) over
-- the games of a ruleset and a period (rollup_player_gaps), as dash_player_rates: games and
-- score, score per game; hours at the table and score per hour (sql/macros/dash_rates.sql), each
-- game's time to the player's next game among the same games read from the rollup.
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $player, $gap_minutes, $limit.
with played as (
    select r.player_id, r.result, r.t,
        case when $ruleset is null then r.next_t else r.next_t_ruleset end as next_t
    from rollup_player_gaps r
    where ($ruleset is null or r.ruleset = $ruleset)
      and ($date_from is null or r.day >= $date_from::date)
      and ($date_to is null or r.day <= $date_to::date)
),
gaps as (
    -- a next game after the period's last day is not among the filtered games
    select player_id, result, t,
        case when $date_to is null or timezone('UTC', next_t)::date <= $date_to::date
            then (epoch_us(next_t) - epoch_us(t)) / 60e6 end as gap
    from played
)
select * from dash_rates(gaps, $gap_minutes)
where $player is null or player = $player
order by games desc, player
limit $limit
