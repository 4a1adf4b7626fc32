-- Grain: one row per way into a tournament of seed 002 (spec 1.8): 晉級賽 (knockout) entry per
-- round (round 1 for $5,000 chips; rounds 2-5 directly for Fun幣), and the 積分賽 (points)
-- rooms (初級場 / 中級場 / 高級場) with their entry fee, pot and the first and second prizes
-- (70 % / 30 % of the pot; the pot is 90 % of four entry fees). The logs carry no room or fee:
-- join by hand (docs/sql.md).
select
    tournament_kind::varchar as tournament_kind,
    room::varchar as room,
    round::integer as round,
    entry_fee::bigint as entry_fee,
    entry_fun_coins::integer as entry_fun_coins,
    pot::bigint as pot,
    first_prize::bigint as first_prize,
    second_prize::bigint as second_prize
from (values
    ('knockout', null, 1, 5000, null, null, null, null),
    ('knockout', null, 2, null, 10, null, null, null),
    ('knockout', null, 3, null, 25, null, null, null),
    ('knockout', null, 4, null, 100, null, null, null),
    ('knockout', null, 5, null, 250, null, null, null),
    ('points', '初級場', null, 10000, null, 36000, 25200, 10800),
    ('points', '中級場', null, 50000, null, 180000, 126000, 54000),
    ('points', '高級場', null, 150000, null, 540000, 378000, 162000)
) as t(tournament_kind, room, round, entry_fee, entry_fun_coins, pot, first_prize, second_prize)
