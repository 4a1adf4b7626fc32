-- Grain: one row per trick per game (key game_id, trick), from the warehouse table `tricks`.
select
    game_id,
    trick,
    leader::tinyint as leader,
    winner::tinyint as winner,
    n_actions,
    n_plays,
    lead_kind,
    ends_game
from tricks
