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
        -- (least() skips NULLs; a lambda per action costs several times more), each count
        -- read off the list once (c1..c4 below)
        case
            when len(cards_left) <= 4 then least(
                case when seat <> 0 and c1 > 0 then c1 end,
                case when seat <> 1 and c2 > 0 then c2 end,
                case when seat <> 2 and c3 > 0 then c3 end,
                case when seat <> 3 and c4 > 0 then c4 end
            )
            else list_min(list_filter(cards_left, lambda c, i: i <> seat + 1 and c > 0))
        end as min_opponent_cards
    from (
        select
            *,
            cards_left[1] as c1, cards_left[2] as c2, cards_left[3] as c3, cards_left[4] as c4
        from stg_actions
    )
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
        select *, not is_lead as p, is_lead as f
        from decisions
        -- p (a follow holding a beating play, an opponent on <= 2 cards) or f (a lead, an
        -- opponent on <= 3 cards): decisions holds only leads and such follows, so is_lead
        -- tells which, and the opponents' fewest cards are compared once (with p and f
        -- each comparing them, the expression ran twice a decision; with both changes the
        -- mart takes 0.85× the time at 1M games, the same rows: docs/benchmarks.md)
        where min_opponent_cards <= case when is_lead then 3 when not is_lead then 2 end
    )
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
