-- ddz_hand(mask) → struct: what a Dou Dizhu hand (a card mask, pipeline/doudizhu/cards.py:
-- card c is bit c, rank c // 4 for c < 52, 52 = BJ, 53 = RJ) holds for bidding (spec 2.7).
--   n_bombs     ranks held four times (3 … 2)
--   has_rocket  both jokers
--   n_twos      2s held (0-4)
--   n_jokers    jokers held (0-2)
--   strength    n_bombs + has_rocket + n_twos + n_jokers: the hand strength at bidding
--               (Decision, docs/stats.md: the big cards and the bombs, each counted once, so a
--               rocket counts 3 = the rocket and its two jokers; 0 … 12)
-- NULL mask (the deal not in the log) → every field NULL.
create or replace macro ddz_n_bombs(mask) as case when mask is not null then
    len(list_filter(range(13), lambda r: (mask >> (4 * r)::integer) & 15 = 15)) end;

create or replace macro ddz_hand(mask) as struct_pack(
    n_bombs := ddz_n_bombs(mask),
    has_rocket := (mask >> 52) & 3 = 3,
    n_twos := bit_count((mask >> 48) & 15)::integer,
    n_jokers := bit_count((mask >> 52) & 3)::integer,
    strength := ddz_n_bombs(mask) + ((mask >> 52) & 3 = 3)::integer
        + bit_count((mask >> 48) & 15)::integer + bit_count((mask >> 52) & 3)::integer
)
