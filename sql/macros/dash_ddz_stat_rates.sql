-- dash_ddz_stat_rates(sums): the Dou Dizhu strategy stats of each side of `sums`, the name of a
-- CTE of the caller with one row per side (who) and its counts (n_games, n_wins, n_landlord …
-- n_feeds, score): each rate the actions ÷ the opportunities (docs/stats.md, "Dou Dizhu"), NULL
-- without any, then the counts. The one tail of dash_ddz_player_stats and its rollup twin.
create or replace macro dash_ddz_stat_rates(sums) as table
    select
        who,
        n_games,
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
        n_feeds / nullif(n_feed_opportunities, 0) as feed_rate,
        score / nullif(n_games, 0) as score_per_game,
        * exclude (who, n_games)
    from query_table(sums)
