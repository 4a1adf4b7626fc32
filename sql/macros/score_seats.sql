-- score_seats(whatif := null, games := 'stg_games'): the scoring of spec 1.7, one row per seat
-- per game.
-- whatif: NULL scores every game by its own ruleset (stg_rulesets via stg_games.ruleset_id);
-- a ruleset as JSON (Ruleset.to_dict() plus the engine tables, see pipeline.sqlbuild.ruleset_params)
-- scores every game as if played under that ruleset instead (what-if rescoring, no re-import).
-- games: the name of the table, view or CTE whose games are scored, with stg_games' columns
-- (a game's score reads no other game: a subset scores as the whole does, game by game).
-- The dashboards' what-ifs name their filtered games; `where game_id in (…)` on the result
-- instead still scores every game first (~4 s at 1M games).
-- Units: net is money (penalty × stake × 歡樂 multiplier) under winner_takes_all and place;
-- points is the penalty-point total under penalty_points; score is higher-is-better in both
-- (net, or −points). The bankroll cap (spec 1.8) is applied later, in fct_bankroll.
create or replace macro score_seats(whatif := null, games := 'stg_games') as table
with whatif_rules as (
    -- the what-if ruleset, one row, when given
    select '(what-if)' as ruleset_id, unnest(ruleset_fields(whatif::json))
    where whatif is not null
),

rules as (
    -- the rulesets in play: the games' own, or the what-if one
    select * exclude (preset, overrides, params) from stg_rulesets where whatif is null
    union all by name
    select * from whatif_rules
),

game_facts as (
    -- each game's facts and the id of the ruleset it is scored by (narrow: joined to 4 seats)
    select
        game_id,
        match_key,
        game_number,
        tournament_id,
        tournament_kind,
        tournament_round,
        players as n_players,
        outcome,
        winner,
        first_leader,
        bao_seat as logged_bao_seat,
        ruleset_id as own_ruleset_id,
        case when whatif is null then ruleset_id else '(what-if)' end as ruleset_id
    from query_table(games)
),

huanle_games as (
    -- games whose ruleset has 歡樂炸藥 on
    select g.game_id, r.huanle_table, r.huanle_min_plays
    from game_facts as g
    join rules as r on r.ruleset_id = g.ruleset_id
    where r.bonus_multipliers = 'huanle'
),

kind_counts as (
    -- 歡樂炸藥: plays of each bonus kind, in those games
    select a.game_id, a.kind, count(*) as n_plays
    from stg_actions as a
    semi join huanle_games as hg on hg.game_id = a.game_id
    where a.action_type = 'play'
      and a.kind in ('straight', 'flush', 'full_house', 'four_of_a_kind')
    group by all
),

huanle as (
    -- the stake multiplier: the product of the multipliers of the kinds played often enough
    select
        hg.game_id,
        product(json_extract_string(hg.huanle_table, '$.' || k.kind)::integer)::integer
            as huanle_multiplier,
        list(k.kind order by k.kind) as huanle_kinds
    from huanle_games as hg
    join kind_counts as k on k.game_id = hg.game_id
    where k.n_plays >= hg.huanle_min_plays
    group by hg.game_id
),

missed_call_games as (
    -- games whose ruleset charges a missed last-card call (spec 1.6 missed_call_penalty)
    select g.game_id, g.winner
    from game_facts as g
    join rules as r on r.ruleset_id = g.ruleset_id
    where r.missed_call_penalty = 'takes_all_losses'
),

missed_calls as (
    -- those games whose winner went out without having called the last card: a play of its
    -- left it one card with no call after (last_call = 'missing'), and it never called
    select a.game_id
    from stg_actions as a
    join missed_call_games as m on m.game_id = a.game_id and m.winner = a.seat
    where a.last_call is not null
    group by a.game_id
    having count(*) filter (where a.last_call = 'made') = 0
),

game_extras as materialized (
    -- each game's facts with its 歡樂 multiplier and whether its winner missed the call, joined
    -- a game at a time, not a seat: on a filter's games (games := …) the optimizer misjudges
    -- their number and built these joins' hash tables on the seats' side (at 1M games 2 × 3 s)
    select
        g.*,
        coalesce(h.huanle_multiplier, 1) as huanle_multiplier,
        coalesce(h.huanle_kinds, []) as huanle_kinds,
        mc.game_id is not null as is_winner_call_missed
    from game_facts as g
    left join huanle as h on h.game_id = g.game_id
    left join missed_calls as mc on mc.game_id = g.game_id
),

seat_rules as (
    -- each seat with its game's facts and ruleset (the small rulesets table joined last); the
    -- seat that takes on every loss: the winner who missed its call, else the 包牌 violator
    select
        g.*,
        r.* exclude (ruleset_id),
        case
            when g.is_winner_call_missed then g.winner
            when r.must_block = 'liability' then g.logged_bao_seat
        end as bao_seat,
        s.seat,
        s.player_id,
        s.name,
        s.balance,
        s.cards_left,
        s.final_hand_mask,
        s.is_holding_spade_two,
        g.outcome <> 'redeal' as is_scored,
        g.outcome <> 'redeal' and s.seat <> g.winner as is_loser
    from stg_seats as s
    join game_extras as g on g.game_id = s.game_id
    join rules as r on r.ruleset_id = g.ruleset_id
),

multipliers as (
    -- 炒 tier (instant wins: every loser as if ×3 "三炒", spec 1.5), ♠2 and first-leader doubling
    select
        *,
        case
            when not is_loser then null
            when outcome = 'instant_win' then 3
            else mult_by_cards[cards_left + 1]
        end as multiplier,
        case
            when not is_loser or outcome <> 'played_out' or not spade_two_doubles then false
            when cards_left < 8 then false
            else is_holding_spade_two
        end as is_spade_two_doubled,
        coalesce(
            is_loser and outcome = 'played_out' and first_leader_seven_doubles
            and seat = first_leader and cards_left = 7,
            false
        ) as is_seven_doubled,
        case
            when is_loser and card_points and outcome = 'played_out' then list_sum(
                list_transform(
                    range(52),
                    lambda c: case when (final_hand_mask >> c) & 1 = 1 then c // 4 + 3 else 0 end
                )
            )::bigint  -- list_sum's HUGEINT: a DECIMAL(38, 0) in Parquet
        end as card_points_sum
    from seat_rules
),

penalties as (
    -- a loser's penalty p (spec 1.7); 0 for the winner and in a redeal
    select
        *,
        coalesce(tier_names[multiplier + 1], '') as tier_name,
        case
            when not is_loser then 0
            else (case when card_points and outcome = 'played_out'
                       then card_points_sum else cards_left * multiplier end)
                 * (case when coalesce(is_spade_two_doubled, false) then 2 else 1 end)
                 * (case when is_seven_doubled then 2 else 1 end)
        end as penalty,
        stake * huanle_multiplier as stake_effective
    from multipliers
),

per_game as (
    -- per game: the penalties' total and the number of losers (an aggregate: faster than a window)
    select game_id, sum(penalty)::bigint as game_penalty, count(*) filter (where is_loser) as n_losers
    from penalties
    group by game_id
),

game_sums as (
    select p.*, g.game_penalty, g.n_losers
    from penalties as p
    join per_game as g on g.game_id = p.game_id
),

raw_results as (
    -- settlement before 包牌: money (winner_takes_all, place) or points (penalty_points)
    select
        *,
        case
            when not is_scored then 0
            when settlement = 'penalty_points' then
                case when is_loser then penalty else -winner_bonus * n_losers end
            when settlement = 'winner_takes_all' then
                case when is_loser then -(penalty + winner_bonus) * stake_effective
                     else (game_penalty + winner_bonus * n_losers) * stake_effective end
            else
                (game_penalty - n_players * penalty) * stake_effective
                + case when is_loser then -winner_bonus * stake_effective
                       else winner_bonus * n_losers * stake_effective end
        end as result_before_bao
    from game_sums
),

losses as (
    -- what each seat other than the 包牌 violator is spared, in the game's unit (spec 1.6).
    -- bao_place = net_losses (002): each other loser's net loss. bao_place = all_cards, under
    -- place: the violator takes on every loser's cards, the game settled as if the others had
    -- none: a seat with penalty p gains n × p (its own part of the place settlement, undone),
    -- and the violator ends at −(n − 1) × the game's penalties, each other seat at +1 ×.
    -- A winner who takes on all losses (a winner who did not call the last card, spec 1.6
    -- missed_call_penalty, or a score sheet's 0t): charged the losers' penalties, the losers none, then settled as usual: under
    -- place as all_cards; under winner_takes_all it pays each loser that loser's own penalty
    -- (Decision), so a loser is spared 2 × p; under penalty_points as any violator.
    select
        *,
        case
            when bao_seat is null or seat = bao_seat then 0
            when settlement = 'place' and (bao_place = 'all_cards' or bao_seat = winner) then
                n_players * penalty * stake_effective
            when settlement = 'winner_takes_all' and bao_seat = winner and is_loser then
                2 * penalty * stake_effective
            when not is_loser then 0
            when settlement = 'penalty_points' then greatest(result_before_bao, 0)
            else greatest(-result_before_bao, 0)
        end as bao_spared
    from raw_results
),

spared_per_game as (
    -- what the 包牌 violator pays: the sum of what the others were spared
    select game_id, sum(bao_spared) as spared
    from losses
    where bao_seat is not null
    group by game_id
),

bao as (
    -- 包牌 (spec 1.6): the violator pays what the others were spared
    select
        l.*,
        case when l.seat = l.bao_seat then coalesce(s.spared, 0) else 0 end as bao_paid
    from losses as l
    left join spared_per_game as s on s.game_id = l.game_id
)

select
    game_id,
    seat,
    player_id,
    name,
    match_key,
    game_number,
    tournament_id,
    tournament_kind,
    tournament_round,
    own_ruleset_id,
    ruleset_id,
    settlement,
    outcome,
    is_scored,
    winner = seat as is_winner,
    is_loser,
    cards_left,
    multiplier,
    tier_name,
    is_spade_two_doubled,
    is_seven_doubled,
    card_points_sum,
    penalty,
    -- the penalty charged after 包牌: the violator the game's total, the others nothing
    -- (the scorer's "real loss"; spec 1.6, 000: the violator loses 8, the others 0)
    case when bao_seat is null then penalty when seat = bao_seat then game_penalty else 0 end
        as penalty_charged,
    bao_place,
    case when is_loser then winner_bonus when is_scored then -winner_bonus * n_losers else 0 end
        as winner_bonus_paid,
    stake,
    huanle_multiplier,
    huanle_kinds,
    stake_effective,
    bao_seat,
    bao_seat = seat as is_bao_payer,
    bao_paid,
    bao_spared,
    result_before_bao,
    case when settlement <> 'penalty_points' then
        result_before_bao + bao_spared - bao_paid end as net,
    case when settlement = 'penalty_points' then
        result_before_bao - bao_spared + bao_paid end as points,
    case when settlement = 'penalty_points' then -(result_before_bao - bao_spared + bao_paid)
         else result_before_bao + bao_spared - bao_paid end as score,
    bankroll and settlement <> 'penalty_points' as is_bankroll,
    coalesce(balance, bankroll_start) as start_balance,
    rank_ladder_top
from bao
