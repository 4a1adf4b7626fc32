-- one winner per played-out or instant-win game, none in a redeal; a played-out winner has 0 cards
select game_id, outcome, count(*) filter (where is_winner) as n_winners,
       bool_or(is_winner and outcome = 'played_out' and cards_left <> 0) as winner_holds_cards
from mart_game_scores
group by game_id, outcome
having n_winners <> case when outcome = 'redeal' then 0 else 1 end
    or winner_holds_cards
