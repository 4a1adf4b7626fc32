-- penalties are never negative; losers of a scored game have a multiplier, winners none
select game_id, seat, penalty, multiplier
from mart_game_scores
where penalty < 0
   or (is_loser and multiplier is null)
   or (is_winner and penalty <> 0)
