-- Dou Dizhu springs. Grain: one row per (ruleset, bid) of the games played out.
--   spring_rate       springs (春天: the landlord won, no farmer played a card) ÷ games
--   anti_spring_rate  anti-springs (反春: a farmer won, the landlord played only the opening
--                     lead) ÷ games
--   landlord_win_rate landlord wins ÷ games
select
    ruleset,
    bid,
    count(*) as n_games,
    count(*) filter (where spring = 'spring') as n_springs,
    count(*) filter (where spring = 'anti_spring') as n_anti_springs,
    count(*) filter (where landlord_won) as n_landlord_wins,
    count(*) filter (where spring = 'spring') / count(*) as spring_rate,
    count(*) filter (where spring = 'anti_spring') / count(*) as anti_spring_rate,
    count(*) filter (where landlord_won) / count(*) as landlord_win_rate
from stg_ddz_games
where is_scored
group by all
