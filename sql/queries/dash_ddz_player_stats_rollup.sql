-- Grain: one row per side (who = 'player': $player; 'others': every other seat) of the Dou
-- Dizhu games of a ruleset and a period (rollup_ddz_player_days), as dash_ddz_player_stats: the
-- strategy stats' actions and opportunities summed per side and ruleset (the void deals' rows:
-- their auctions'), then divided, the others' per ruleset weighted by the player's own
-- opportunities (ddz_yardstick).
-- Parameters: $ruleset, $date_from, $date_to (the rollups answer a ruleset and a period only),
-- $player.
with sums as (
    select
        case when r.player_id = $player then 'player' else 'others' end as who,
        r.ruleset,
        sum(n_games)::bigint as n_games,
        sum(n_wins)::bigint as n_wins,
        coalesce(sum(n_games) filter (where role = 'landlord'), 0)::bigint as n_landlord,
        coalesce(sum(n_wins) filter (where role = 'landlord'), 0)::bigint as n_landlord_wins,
        coalesce(sum(n_games) filter (where role = 'farmer'), 0)::bigint as n_farmer,
        coalesce(sum(n_wins) filter (where role = 'farmer'), 0)::bigint as n_farmer_wins,
        sum(n_asked)::bigint as n_asked,
        sum(n_bids)::bigint as n_bids,
        sum(n_strong_asked)::bigint as n_strong_asked,
        sum(n_strong_passed)::bigint as n_strong_passed,
        sum(n_weak_asked)::bigint as n_weak_asked,
        sum(n_weak_bids)::bigint as n_weak_bids,
        sum(n_bombs_held + n_rockets_held)::bigint as n_bombs_held,
        sum(n_bombs_played + n_rockets_played)::bigint as n_bombs_played,
        sum(n_could_beat)::bigint as n_could_beat,
        sum(n_voluntary_passes)::bigint as n_voluntary_passes,
        sum(n_partner_follows)::bigint as n_partner_follows,
        sum(n_partner_beats)::bigint as n_partner_beats,
        sum(n_feed_opportunities)::bigint as n_feed_opportunities,
        sum(n_feeds)::bigint as n_feeds,
        sum(score) as score
    from rollup_ddz_player_days r
    where ($ruleset is null or r.ruleset = $ruleset)  -- the void deals: their auctions
      and ($date_from is null or r.day >= $date_from::date)
      and ($date_to is null or r.day <= $date_to::date)
    group by all
),
counted as (
    -- a side of void deals only (荒牌: rows without the played-out counts) counts 0, as the
    -- detailed query
    select who, ruleset, coalesce(columns('^n_'), 0)::bigint, score from sums
)
select *, score / nullif(n_games, 0) as score_per_game from ddz_yardstick(counted)
order by who desc
