-- Collusion evidence: one row per (player_id, partner_id, signal), where player A acted with
-- partner B as their next seat (下家). Each signal is a 2x2 table tested one-sided with
-- Fisher's exact test (hypergeometric upper tail; lgamma, summed over the tail):
--
--   signal          cell (A with B next)                    baseline
--   non_block       A's 頂大 violations ÷ A's known          A's violations ÷ known obligations
--                   obligations toward B                     toward other next players (when A has
--                                                            >= 30 of them), else every other
--                                                            player's (the field): see baseline
--   soft_pass       A passes ÷ A's non-obligation follows    same, when B has > 2 cards but
--                   holding a beating play, when B has        another opponent has <= 2
--                   <= 2 cards
--   soft_feed       A's leads of a low single (3..10) ÷      same, when B has > 3 cards but
--                   A's non-obligation leads, when B          another opponent has <= 3
--                   has <= 3 cards
--
-- p_value = P(X >= n_cell_actions) for X hypergeometric with the table's margins: small when
-- A does the action more often toward B than the baseline says.
with obligations as (
    select player_id, next_player_id, is_violated, block = 'met' as is_met
    from audit_obligations
    where block <> 'unknown'
),

non_block_pairs as (
    select player_id, next_player_id as partner_id,
           count(*) filter (where is_violated) as n_cell_actions,
           count(*) as n_cell_opportunities
    from obligations
    group by all
),

non_block_by_player as (
    select player_id, count(*) filter (where is_violated) as n_actions, count(*) as n_opportunities
    from obligations
    group by all
),

non_block_all as (
    select count(*) filter (where is_violated) as n_actions, count(*) as n_opportunities
    from obligations
),

non_block as (
    select
        p.player_id,
        p.partner_id,
        'non_block' as signal,
        p.n_cell_actions,
        p.n_cell_opportunities,
        case when pp.n_opportunities - p.n_cell_opportunities >= 30
            then 'same_player_other_next' else 'other_players' end as baseline,
        case when pp.n_opportunities - p.n_cell_opportunities >= 30
            then pp.n_actions - p.n_cell_actions
            else a.n_actions - pp.n_actions end as n_base_actions,
        case when pp.n_opportunities - p.n_cell_opportunities >= 30
            then pp.n_opportunities - p.n_cell_opportunities
            else a.n_opportunities - pp.n_opportunities end as n_base_opportunities
    from non_block_pairs as p
    join non_block_by_player as pp using (player_id)
    cross join non_block_all as a
),

per_pair as (
    -- soft play (collusion_seat_games: the actor's non-obligation decisions while an
    -- opponent is close to going out, counted per game), summed per pair
    select
        player_id,
        partner_id,
        sum(sp_cell_actions) as sp_cell_actions,
        sum(sp_cell_opportunities) as sp_cell_opportunities,
        sum(sp_base_actions) as sp_base_actions,
        sum(sp_base_opportunities) as sp_base_opportunities,
        sum(sf_cell_actions) as sf_cell_actions,
        sum(sf_cell_opportunities) as sf_cell_opportunities,
        sum(sf_base_actions) as sf_base_actions,
        sum(sf_base_opportunities) as sf_base_opportunities
    from collusion_seat_games
    group by all
),

soft_pass as (
    select
        player_id, partner_id, 'soft_pass' as signal,
        sp_cell_actions as n_cell_actions,
        sp_cell_opportunities as n_cell_opportunities,
        'same_player_other_opponent_close' as baseline,
        sp_base_actions as n_base_actions,
        sp_base_opportunities as n_base_opportunities
    from per_pair
    where sp_cell_opportunities + sp_base_opportunities > 0
),

soft_feed as (
    select
        player_id, partner_id, 'soft_feed' as signal,
        sf_cell_actions as n_cell_actions,
        sf_cell_opportunities as n_cell_opportunities,
        'same_player_other_opponent_close' as baseline,
        sf_base_actions as n_base_actions,
        sf_base_opportunities as n_base_opportunities
    from per_pair
    where sf_cell_opportunities + sf_base_opportunities > 0
),

tables as (
    select
        player_id, partner_id, signal, baseline,
        n_cell_actions::bigint as n_cell_actions,
        n_cell_opportunities::bigint as n_cell_opportunities,
        n_base_actions::bigint as n_base_actions,
        n_base_opportunities::bigint as n_base_opportunities
    from (
        select * from non_block
        union all by name select * from soft_pass
        union all by name select * from soft_feed
    )
),

-- hypergeometric margins: N all, n1 the cell row, k all actions; x = the cell's actions
margins as (
    select
        *,
        n_cell_opportunities + n_base_opportunities as n_all,
        n_cell_actions + n_base_actions as k_all
    from tables
),

support as (
    select
        *,
        greatest(0, n_cell_opportunities + k_all - n_all) as x_lo,
        least(n_cell_opportunities, k_all) as x_hi,
        n_cell_opportunities * k_all / nullif(n_all, 0) as x_mean,
        -- the tail is summed over at most 12 standard deviations (+30) from its start
        cast(ceil(12 * sqrt(n_cell_opportunities * k_all / nullif(n_all, 0)
                       * (1 - k_all / nullif(n_all, 0)))) as bigint) + 30 as tail_width,
        lgamma(k_all + 1) + lgamma(n_all - k_all + 1) - lgamma(n_all + 1)
            + lgamma(n_cell_opportunities + 1) + lgamma(n_all - n_cell_opportunities + 1) as log_const
    from margins
),

tested as (
    select
        *,
        case
            when n_cell_opportunities = 0 or n_base_opportunities = 0 then null
            when n_cell_actions > x_mean then least(1.0, list_sum([
                exp(log_const - lgamma(x + 1) - lgamma(k_all - x + 1)
                    - lgamma(n_cell_opportunities - x + 1)
                    - lgamma(n_all - k_all - n_cell_opportunities + x + 1))
                for x in range(n_cell_actions, least(x_hi, n_cell_actions + tail_width) + 1)]))
            else greatest(0.0, 1.0 - coalesce(list_sum([
                exp(log_const - lgamma(x + 1) - lgamma(k_all - x + 1)
                    - lgamma(n_cell_opportunities - x + 1)
                    - lgamma(n_all - k_all - n_cell_opportunities + x + 1))
                for x in range(greatest(x_lo, n_cell_actions - tail_width), n_cell_actions)]), 0.0))
        end as p_value
    from support
)

select
    player_id,
    partner_id,
    signal,
    baseline,
    n_cell_actions,
    n_cell_opportunities,
    n_cell_actions / nullif(n_cell_opportunities, 0) as cell_rate,
    n_base_actions,
    n_base_opportunities,
    n_base_actions / nullif(n_base_opportunities, 0) as base_rate,
    p_value
from tested
