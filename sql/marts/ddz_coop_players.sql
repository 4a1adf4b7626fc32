-- Farmer cooperation audit per player, ranked. Grain: one row per (player_id, ruleset), from
-- ddz_coop_actions (its grain and signals). Each rate is actions ÷ opportunities:
--   feed_rate         passes ÷ turns following the landlord on 1-2 cards holding a beating play
--   baseline_rate     passes ÷ turns following the landlord on 3+ cards holding a beating play
--   feed_z            the two-proportion z statistic of feed_rate against the player's own
--                     baseline_rate (pooled; NULL when either has no turn or the pooled rate is
--                     0 or 1): a player who lets the landlord out more than it passes otherwise
--   partner_beat_rate plays over the partner ÷ turns following the partner holding a beating play
--   feed_rank         1 = most suspect: by feed_z, then n_feeds (NULL z last)
--   partner_beat_rank 1 = beats its partner most: by partner_beat_rate, then n_partner_beats
--   evidence          the first 5 feeds: game, step (action_index + 1), the landlord's cards
--                     left, the landlord's play let through, the farmer's hand
with per_player as (
    select
        player_id,
        ruleset,
        count(*) filter (where signal = 'feed') as n_feed_opportunities,
        count(*) filter (where signal = 'feed' and is_event) as n_feeds,
        count(*) filter (where signal = 'baseline') as n_baseline_turns,
        count(*) filter (where signal = 'baseline' and is_event) as n_baseline_passes,
        count(*) filter (where signal = 'partner') as n_partner_follows,
        count(*) filter (where signal = 'partner' and is_event) as n_partner_beats,
        list(
            struct_pack(
                game_id := game_id,
                step := step,
                landlord_cards_left := landlord_cards_left,
                table_play := table_play,
                hand := hand
            )
            order by started_ts, game_id, step
        ) filter (where signal = 'feed' and is_event) as feeds
    from ddz_coop_actions
    group by player_id, ruleset
),

rates as (
    select
        * exclude (feeds),
        n_feeds / nullif(n_feed_opportunities, 0) as feed_rate,
        n_baseline_passes / nullif(n_baseline_turns, 0) as baseline_rate,
        (n_feeds + n_baseline_passes) / nullif(n_feed_opportunities + n_baseline_turns, 0)
            as pooled_rate,
        n_partner_beats / nullif(n_partner_follows, 0) as partner_beat_rate,
        coalesce(feeds[1:5], []) as evidence
    from per_player
),

scored as (
    select
        *,
        (feed_rate - baseline_rate) / nullif(
            sqrt(pooled_rate * (1 - pooled_rate)
                 * (1 / nullif(n_feed_opportunities, 0) + 1 / nullif(n_baseline_turns, 0))),
            0
        ) as feed_z
    from rates
)

select
    * exclude (pooled_rate, evidence),
    rank() over (order by feed_z desc nulls last, n_feeds desc) as feed_rank,
    rank() over (order by partner_beat_rate desc nulls last, n_partner_beats desc)
        as partner_beat_rank,
    evidence
from scored
