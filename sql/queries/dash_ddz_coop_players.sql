-- Grain: one row per (player_id, ruleset) of the farmer cooperation audit (ddz_coop_players,
-- computed over every game of the warehouse: the z statistic needs the whole sample), ranked:
-- most suspect feeder first (feed_rank), then partner_beat_rank; the sidebar's ruleset and
-- player filters keep their rows (a variant, a preset with overrides: its preset's rows, the
-- mart being keyed by the preset; the page says so).
-- Parameters: $ruleset, $player_id (null = all), $limit.
select feed_rank, player_id, ruleset, n_feed_opportunities, n_feeds, feed_rate,
    n_baseline_turns, n_baseline_passes, baseline_rate, feed_z, n_partner_follows,
    n_partner_beats, partner_beat_rate, partner_beat_rank
from ddz_coop_players
where ($ruleset is null or ruleset = ruleset_preset($ruleset))
  and ($player_id is null or player_id = $player_id)
order by feed_rank, partner_beat_rank, player_id, ruleset
limit $limit
