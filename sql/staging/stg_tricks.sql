-- Grain: one row per trick per game (key game_id, trick), from the warehouse table `tricks`.
-- Big Two games only: the rows of games whose game_kind is another game's are left out
-- (stg_ddz_* read those).
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
anti join (select game_id from games where game_kind <> 'big2') as other_games using (game_id)
