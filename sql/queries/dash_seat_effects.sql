-- Grain: one row per table size and position after the first leader: $player's games and wins
-- over the filtered games (stats_player_games) beside everyone's (stats_seat_positions, per
-- ruleset filter; a variant's from its games' seats).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to, $seat, $opponent, $n_players, $outcome,
-- $chao_tier (the sidebar filters, bound to sql/macros/dash_filtered_games.sql; null =
-- all; a period's days are UTC days) ($player_id null), $player.
with mine as (
    select m.players, m.position, sum(m.n_games) as games, sum(m.n_wins) as wins
    from stats_player_games m
    where
        ($ruleset is null or m.ruleset = ruleset_preset($ruleset))
        and ($match_id is null or m.match_id = $match_id)
        and ($date_from is null or timezone('UTC', try_cast(m.started_ts as timestamptz)) >= $date_from::date)
        and ($date_to is null or timezone('UTC', try_cast(m.started_ts as timestamptz)) < $date_to::date + 1)
        and (($player_id is null and $seat is null and $opponent is null and $n_players is null and $outcome is null and $chao_tier is null
            and ruleset_overrides($ruleset) is null)
            or m.game_id in (select game_id from dash_filtered_games($ruleset, $match_id, $player_id, $date_from,
        $date_to, $seat, $opponent, $n_players, $outcome, $chao_tier)))
        and m.player_id = $player
    group by 1, 2
),
everyone as (
    -- every game, or a preset's: the mart; a variant (a preset with overrides): its games'
    -- seats, the mart being keyed by the preset
    select players, position, sum(n_games) as all_games, sum(n_wins) as all_wins
    from stats_seat_positions
    where ruleset_overrides($ruleset) is null and ($ruleset is null or ruleset = $ruleset)
    group by 1, 2
    union all
    select m.players, m.position, sum(m.n_games), sum(m.n_wins)
    from stats_player_games m
    where ruleset_overrides($ruleset) is not null and m.ruleset = ruleset_preset($ruleset)
        and m.game_id in (select game_id from dash_filtered_games($ruleset, null, null, null,
            null, null, null, null, null, null))
    group by 1, 2
)
select mine.players, mine.position, mine.games, mine.wins,
    round(100.0 * mine.wins / nullif(mine.games, 0), 1) as win_pct,
    round(100.0 * e.all_wins / nullif(e.all_games, 0), 1) as everyone_win_pct,
    e.all_games as everyone_games
from mine left join everyone e using (players, position)
order by players, position
