-- Grain: one row per action per game (key game_id, action_index), from the warehouse table
-- `actions`. Every source column under its own name.
-- Big Two games only: the rows of games whose game_kind is another game's are left out
-- (stg_ddz_* read those).
with source as (
    -- actions; think_seconds (added for speed) and last_call (the last-card call) read as
    -- NULL from batches written before them
    select * from actions
    union all by name
    select null::double as think_seconds, null::varchar as last_call
    where false
)

select
    game_id,
    action_index,
    seat::tinyint as seat,
    action_type,
    cards_mask,
    cards_text,
    kind,
    rank_key,
    trick,
    is_lead,
    top_before_mask,
    top_before_text,
    cards_left,
    hand_before_mask,
    hand_before_text,
    beating_play_existed,
    highest_single,
    highest_single_text,
    next_seat::tinyint as next_seat,
    next_on_one,
    obligation,
    block,
    block_reason,
    ends_trick,
    wins_game,
    drawn,
    drawn_text,
    claim,
    unchecked,
    ts,
    think_seconds,
    last_call
from source
anti join (select game_id from games where game_kind <> 'big2') as other_games using (game_id)
