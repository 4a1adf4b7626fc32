-- Grain: one row per stored Dou Dizhu game (key game_id), from the warehouse table `games`
-- where game_kind = 'doudizhu' (spec 2; a void deal 荒牌 is a game with outcome redeal).
-- The shared columns under their own names (Big Two-only ones left out), the Dou Dizhu facts
-- (landlord, bid, bombs, rockets, spring, landlord_won, first_bidder, kitty, set-aside and
-- face-up cards), and as stg_games: match_key, ruleset_id (joins stg_ddz_rulesets), started_ts.
with source as (
    -- games; the Dou Dizhu columns read as NULL from batches written before them
    select * from games
    union all by name
    select
        null::varchar as info_level,
        null::tinyint as landlord,
        null::tinyint as bid,
        null::tinyint as bombs,
        null::tinyint as rockets,
        null::varchar as spring,
        null::boolean as landlord_won,
        null::tinyint as first_bidder,
        null::bigint as kitty_mask,
        null::varchar as kitty_text,
        null::bigint as set_aside_mask,
        null::varchar as set_aside_text,
        null::tinyint as face_up_card,
        null::varchar as face_up_card_text
    where false
)

select
    batch_id,
    game_id,
    content_hash,
    game_kind,
    ruleset,
    overrides,
    match_id,
    coalesce(game_number, 1)::integer as game_number,
    table_id,
    tournament_id,
    started_at,
    players::tinyint as players,
    outcome,
    winner::tinyint as winner,
    n_tricks,
    n_actions,
    full_info,
    coalesce(info_level, case when full_info then 'full' else 'partial' end) as info_level,
    source_file,
    source_line,
    landlord::tinyint as landlord,
    bid::tinyint as bid,
    bombs::tinyint as bombs,
    rockets::tinyint as rockets,
    spring,
    landlord_won,
    first_bidder::tinyint as first_bidder,
    kitty_mask,
    kitty_text,
    set_aside_mask,
    set_aside_text,
    face_up_card::tinyint as face_up_card,
    face_up_card_text,
    outcome <> 'redeal' as is_scored,
    coalesce(match_id, game_id) as match_key,
    ruleset || ' ' || overrides as ruleset_id,
    try_cast(started_at as timestamptz) as started_ts
from source
where game_kind = 'doudizhu'
