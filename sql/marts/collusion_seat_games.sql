-- Collusion evidence's soft play, per game: one row per (game_id, seat, next_seat) where the
-- seat (player_id) made a non-obligation decision while an opponent was close to going out,
-- with its next seat (partner_id, 下家): the counts of the soft_pass and soft_feed tables of
-- collusion_evidence (sp_*: follows holding a beating play, and the passes among them, with an
-- opponent on <= 2 cards; sf_*: leads, and the low singles among them, with an opponent on <= 3
-- cards; cell: the next seat is that close, base: another opponent is and the next seat is
-- not). A game's rows read that game alone, so an incremental build adds the new games' rows
-- (sqlbuild.GAME_LOCAL_MARTS); collusion_evidence sums them per pair.
with decisions as (
    select
        game_id,
        seat,
        next_seat,
        action_type,
        is_lead,
        -- a low single: one card of rank 3..10 (card ids 0..31)
        kind = 'single' and cards_mask < 4294967296 as is_low_single,
        beating_play_existed,
        cards_left[next_seat + 1] as next_cards,
        -- the fewest cards an opponent still in play holds: spelled out for up to 4 seats
        -- (least() skips NULLs; a lambda per action costs several times more)
        case
            when len(cards_left) <= 4 then least(
                case when seat <> 0 and cards_left[1] > 0 then cards_left[1] end,
                case when seat <> 1 and cards_left[2] > 0 then cards_left[2] end,
                case when seat <> 2 and cards_left[3] > 0 then cards_left[3] end,
                case when seat <> 3 and cards_left[4] > 0 then cards_left[4] end
            )
            else list_min(list_filter(cards_left, lambda c, i: i <> seat + 1 and c > 0))
        end as min_opponent_cards
    from stg_actions
    where obligation is null
      and action_type in ('play', 'pass')
      and (is_lead or beating_play_existed)
),

-- counted per seat per game first, then named (four rows per game instead of every action);
-- only the decisions that count somewhere (p or f) are grouped: a pair without any has no
-- soft_pass / soft_feed row either way
per_seat as (
    select
        game_id,
        seat,
        next_seat,
        count(*) filter (where p and next_cards <= 2 and action_type = 'pass') as sp_cell_actions,
        count(*) filter (where p and next_cards <= 2) as sp_cell_opportunities,
        count(*) filter (where p and next_cards > 2 and action_type = 'pass') as sp_base_actions,
        count(*) filter (where p and next_cards > 2) as sp_base_opportunities,
        count(*) filter (where f and next_cards <= 3 and is_low_single) as sf_cell_actions,
        count(*) filter (where f and next_cards <= 3) as sf_cell_opportunities,
        count(*) filter (where f and next_cards > 3 and is_low_single) as sf_base_actions,
        count(*) filter (where f and next_cards > 3) as sf_base_opportunities
    from (
        select
            *,
            not is_lead and beating_play_existed and min_opponent_cards <= 2 as p,
            is_lead and min_opponent_cards <= 3 as f
        from decisions
    )
    where p or f
    group by game_id, seat, next_seat
)

select
    d.game_id,
    d.seat,
    s.player_id,
    d.next_seat,
    n.player_id as partner_id,
    d.sp_cell_actions,
    d.sp_cell_opportunities,
    d.sp_base_actions,
    d.sp_base_opportunities,
    d.sf_cell_actions,
    d.sf_cell_opportunities,
    d.sf_base_actions,
    d.sf_base_opportunities
from per_seat as d
join stg_seats as s on s.game_id = d.game_id and s.seat = d.seat
join stg_seats as n on n.game_id = d.game_id and n.seat = d.next_seat
