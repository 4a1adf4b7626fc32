-- Grain: one row per (tournament_kind, round, place): the prize table of seed 002 (spec 1.8).
-- 晉級賽 (knockout): prize money for finishing `place` (1 = the game's winner, then fewest
-- cards left) at the table of `round`, paid for the player's last round (docs/scoring.md,
-- Decisions). Places and rounds the seed lists as $0 are kept as 0; rounds above 5 have no row.
-- 積分賽 (points): pot_share of the pot for the final standing (70 % / 30 %), any round (NULL).
select
    tournament_kind::varchar as tournament_kind,
    round::integer as round,
    place::integer as place,
    prize::bigint as prize,
    pot_share::double as pot_share
from (values
    ('knockout', 1, 1, 10000, null),
    ('knockout', 1, 2, 5000, null),
    ('knockout', 1, 3, 0, null),
    ('knockout', 1, 4, 0, null),
    ('knockout', 2, 1, 30000, null),
    ('knockout', 2, 2, 15000, null),
    ('knockout', 2, 3, 0, null),
    ('knockout', 2, 4, 0, null),
    ('knockout', 3, 1, 100000, null),
    ('knockout', 3, 2, 50000, null),
    ('knockout', 3, 3, 25000, null),
    ('knockout', 3, 4, 0, null),
    ('knockout', 4, 1, 500000, null),
    ('knockout', 4, 2, 250000, null),
    ('knockout', 4, 3, 125000, null),
    ('knockout', 4, 4, 0, null),
    ('knockout', 5, 1, 1500000, null),
    ('knockout', 5, 2, 750000, null),
    ('knockout', 5, 3, 375000, null),
    ('knockout', 5, 4, 187500, null),
    ('points', null, 1, null, 0.7),
    ('points', null, 2, null, 0.3),
    ('points', null, 3, null, 0.0),
    ('points', null, 4, null, 0.0)
) as t(tournament_kind, round, place, prize, pot_share)
