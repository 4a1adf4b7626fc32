-- Opening-hand strength: one row per seat per game whose deal is in the log (full information).
-- Card ids are rank·4 + suit (rank 0 = 3 … 11 = A, 12 = 2; suit 3 = ♠).
--   n_twos, n_aces       control cards held
--   has_spade_two        the highest single of every shipped ruleset (♠2)
--   n_ranks              distinct ranks held: each rank group (single, pair, triple, quad) is one
--                        play, so fewer ranks = fewer plays to get rid of the hand
--   n_paired_cards       cards - n_ranks: cards that go out inside a pair, triple or quad
--   longest_run          longest run of consecutive ranks 3..A (5+ = a straight available)
--   max_suit             most cards of one suit (5+ = a flush available)
--   strength             2·n_twos + n_aces + has_spade_two + 0.5·n_paired_cards
--                        + 2·[longest_run >= 5] + 1·[max_suit >= 5] - 0.25·n_ranks
-- The weights are a documented judgement (docs/stats.md); luck_outcomes fits expected cards
-- left on this index per ruleset and table size, so only its ordering matters.
with dealt as (
    select
        s.game_id,
        s.seat,
        s.player_id,
        g.ruleset,
        g.players,
        s.deal_mask as m,
        s.cards_left,
        s.is_winner
    from stg_seats as s
    join stg_games as g using (game_id)
    where s.deal_mask is not null and g.outcome <> 'redeal'
),

counts as (
    -- bit arithmetic on the 52-bit mask, no per-hand lists: 300239975158033 = bit 4r set for
    -- every rank r (the ♦ cards; shifted by s: suit s); nibble r of m holds rank r's suits
    select
        *,
        -- bit 4r set: rank r held (each rank's four suit bits folded onto its ♦ bit)
        (m | (m >> 1) | (m >> 2) | (m >> 3)) & 300239975158033 as ranks_held,
        -- the same for ranks 3..A only (bits 0..47): the ranks a run can use
        (m | (m >> 1) | (m >> 2) | (m >> 3)) & 300239975158033 & 281474976710655 as run_ranks
    from dealt
),

features as (
    select
        game_id, seat, player_id, ruleset, players, cards_left, is_winner,
        bit_count(m) as n_cards,
        bit_count((m >> 48) & 15) as n_twos,
        bit_count((m >> 44) & 15) as n_aces,
        (m >> 51) & 1 as has_spade_two,
        bit_count(ranks_held)::bigint as n_ranks,
        -- longest run of held ranks among 3..A: the number of k in 1..12 for which some k
        -- consecutive ranks are all held (run_ranks & run_ranks>>4 & … & run_ranks>>4(k-1) <> 0)
        (
            (run_ranks <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) & (run_ranks >> 24) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) & (run_ranks >> 24)
               & (run_ranks >> 28) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) & (run_ranks >> 24)
               & (run_ranks >> 28) & (run_ranks >> 32) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) & (run_ranks >> 24)
               & (run_ranks >> 28) & (run_ranks >> 32) & (run_ranks >> 36) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) & (run_ranks >> 24)
               & (run_ranks >> 28) & (run_ranks >> 32) & (run_ranks >> 36)
               & (run_ranks >> 40) <> 0)::bigint
            + (run_ranks & (run_ranks >> 4) & (run_ranks >> 8) & (run_ranks >> 12)
               & (run_ranks >> 16) & (run_ranks >> 20) & (run_ranks >> 24)
               & (run_ranks >> 28) & (run_ranks >> 32) & (run_ranks >> 36)
               & (run_ranks >> 40) & (run_ranks >> 44) <> 0)::bigint
        ) as longest_run,
        greatest(
            bit_count(m & 300239975158033),
            bit_count(m & (300239975158033 << 1)),
            bit_count(m & (300239975158033 << 2)),
            bit_count(m & (300239975158033 << 3))
        ) as max_suit
    from counts
)

select
    *,
    n_cards - n_ranks as n_paired_cards,
    cast(2 * n_twos + n_aces + has_spade_two + 0.5 * (n_cards - n_ranks)
        + case when longest_run >= 5 then 2 else 0 end
        + case when max_suit >= 5 then 1 else 0 end
        - 0.25 * n_ranks as double) as strength
from features
