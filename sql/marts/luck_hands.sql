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
    select
        *,
        [bit_count((m >> (4 * r)) & 15) for r in range(13)] as per_rank,
        -- bit r set: rank r (0 = 3 … 11 = A) held
        list_sum([((m >> (4 * r)) & 15 <> 0)::bigint << r for r in range(12)]) as held,
        -- 300239975158033 = bit 4r set for every rank r (the ♦ cards); shifted by s: suit s
        [bit_count(m & (300239975158033::bigint << s)) for s in range(4)] as per_suit
    from dealt
),

features as (
    select
        game_id, seat, player_id, ruleset, players, cards_left, is_winner,
        bit_count(m) as n_cards,
        per_rank[13] as n_twos,
        per_rank[12] as n_aces,
        (m >> 51) & 1 as has_spade_two,
        length(list_filter(per_rank, lambda c: c > 0)) as n_ranks,
        -- longest run of held ranks among 3..A: the largest k for which some k consecutive
        -- bits of the held-ranks mask are all set (held & held>>1 & … & held>>(k-1) <> 0)
        length(list_filter(range(1, 13), lambda k: list_reduce(
            [held >> j for j in range(k)], lambda x, y: x & y) <> 0)) as longest_run,
        list_max(per_suit) as max_suit
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
