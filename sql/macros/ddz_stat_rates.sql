-- ddz_stat_rates(sums): the rows of `sums`, the name of a CTE of the caller with the Dou Dizhu
-- strategy stats' counts (n_games, n_wins, n_landlord … n_feeds), then each rate the actions ÷
-- the opportunities (docs/stats.md, "Dou Dizhu"), NULL without any. The one place of these
-- formulas: the ddz_stats_players mart and the Dou Dizhu player page's two queries read them.
create or replace macro ddz_stat_rates(sums) as table
    select
        *,
        n_wins / nullif(n_games, 0) as win_rate,
        n_landlord / nullif(n_games, 0) as landlord_share,
        n_landlord_wins / nullif(n_landlord, 0) as landlord_win_rate,
        n_farmer_wins / nullif(n_farmer, 0) as farmer_win_rate,
        n_bids / nullif(n_asked, 0) as bid_rate,
        n_strong_passed / nullif(n_strong_asked, 0) as strong_pass_rate,
        n_weak_bids / nullif(n_weak_asked, 0) as weak_bid_rate,
        n_bombs_played / nullif(n_bombs_held, 0) as bomb_use_rate,
        n_voluntary_passes / nullif(n_could_beat, 0) as voluntary_pass_rate,
        n_partner_beats / nullif(n_partner_follows, 0) as partner_beat_rate,
        n_feeds / nullif(n_feed_opportunities, 0) as feed_rate
    from query_table(sums)
