-- Grain: one row per seat per Dou Dizhu game (key game_id, seat): the match's running totals
-- and standings after this game (spec 2.5: "as in 1.8"). running_score is the player's money
-- in the match so far (ddz_game_scores.score), n_games the games played (void deals
-- included: they score 0); standing ranks the match's players after the game
-- (1 = leading; ties share a rank).
with running as (
    select
        game_id,
        seat,
        player_id,
        match_key,
        game_number,
        role,
        score,
        sum(score) over w as running_score,
        count(*) over w as n_games
    from ddz_game_scores
    window w as (
        partition by match_key, player_id order by game_number, game_id
        rows between unbounded preceding and current row
    )
)

select
    *,
    rank() over (partition by match_key, game_id order by running_score desc) as standing
from running
