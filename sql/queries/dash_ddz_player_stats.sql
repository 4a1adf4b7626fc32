-- Grain: one row per side (who = 'player': $player; 'others': every other seat) of the
-- filtered Dou Dizhu games: the strategy stats of ddz_stats_players summed over the filtered
-- games (docs/stats.md, "Dou Dizhu": each rate is actions ÷ opportunities): of the played-out
-- games, and the bidding stats (bid rate, strong hands passed, weak hands bid) of every auction,
-- the void deals' (荒牌) too; the others' rates per ruleset weighted by the player's own
-- opportunities under each (ddz_yardstick: 3- and 2-player games compared like with like).
-- Parameters: $ruleset, $match_id, $player_id, $date_from, $date_to (the sidebar filters, bound to
-- sql/macros/dash_ddz_filtered_games.sql; null = all; a period's days are UTC days), $player.
with fg as (
    select * from dash_ddz_filtered_games($ruleset, $match_id, $player_id, $date_from, $date_to)
),
played as (
    select
        case when p.player_id = $player then 'player' else 'others' end as who,
        p.ruleset,
        count(*) as n_games,
        count(*) filter (where is_winner) as n_wins,
        count(*) filter (where is_landlord) as n_landlord,
        count(*) filter (where is_landlord and is_winner) as n_landlord_wins,
        count(*) filter (where not is_landlord) as n_farmer,
        count(*) filter (where not is_landlord and is_winner) as n_farmer_wins,
        count(*) filter (where is_asked) as n_asked,
        count(*) filter (where has_bid) as n_bids,
        count(*) filter (where is_strong_asked) as n_strong_asked,
        count(*) filter (where is_strong_passed) as n_strong_passed,
        count(*) filter (where is_weak_asked) as n_weak_asked,
        count(*) filter (where is_weak_bid) as n_weak_bids,
        sum(n_bombs_held + n_rockets_held) as n_bombs_held,
        sum(n_bombs_played + n_rockets_played) as n_bombs_played,
        sum(n_could_beat) as n_could_beat,
        sum(n_voluntary_passes) as n_voluntary_passes,
        sum(n_partner_follows) as n_partner_follows,
        sum(n_partner_beats) as n_partner_beats,
        sum(n_feed_opportunities) as n_feed_opportunities,
        sum(n_feeds) as n_feeds,
        sum(score) as score
    from ddz_stats_player_games p
    semi join fg using (game_id)
    group by all
),
void as (
    -- the void deals' auctions (every seat that spoke passed), as rollup_ddz_player_days: their
    -- n_asked … n_weak_bids summed with the played-out games' below, their score (0) with the
    -- games' (a player of void deals only has a score of 0, as from the rollup)
    select
        case when v.player_id = $player then 'player' else 'others' end as who,
        v.ruleset,
        v.* exclude (game_id, seat, player_id, ruleset, started_ts)
    from ddz_void_auctions('ddz_game_scores') as v
    semi join fg using (game_id)
),
sums as (
    select who, ruleset, coalesce(sum(columns('^n_')), 0)::bigint, sum(score) as score
    from (select * from played union all by name select * from void)
    group by all
)
select *, score / nullif(n_games, 0) as score_per_game from ddz_yardstick(sums)
order by who desc
