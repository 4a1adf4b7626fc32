-- Grain: one row per seat of the Dou Dizhu game $game_id (ddz_game_scores): role, winner, the
-- game's bid, bombs, rockets, spring, the multiplier paid, the amount per farmer and the score
-- (money, zero-sum). Parameters: $game_id.
select seat, player_id, role, is_winner, bid, bombs, rockets, spring, multiplier_raw,
    multiplier, amount, stake, score
from ddz_game_scores where game_id = $game_id order by seat
