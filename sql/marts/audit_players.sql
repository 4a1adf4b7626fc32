-- 頂大 audit per player: one row per (player_id, ruleset).
--
-- violation_rate = n_violations ÷ n_known   (obligations whose outcome the log shows:
--                                            met + violated; unknown ones are counted apart)
-- n_bao          = violations that let the next player out on their very next turn under a
--                  ruleset with must_block = liability (games.bao_seat)
-- n_bao_possible = unknown obligations followed by the next player going out (partial logs)
-- bao_paid       = what 包牌 made the player pay for the other losers (mart_game_scores.bao_paid,
--                  in the game's unit: money, or penalty points under penalty_points); games
--                  known only by their result (info_level = result: a score sheet's 包牌) are
--                  left out, as they have no obligations to audit
with bao as (
    select s.player_id, g.ruleset, sum(s.bao_paid) as bao_paid
    from mart_game_scores as s
    join stg_games as g using (game_id)
    where s.is_bao_payer and g.info_level <> 'result'
    group by all
),

per_player as (
    select
        player_id,
        ruleset,
        count(*) as n_obligations,
        count(*) filter (where block = 'met') as n_met,
        count(*) filter (where is_violated) as n_violations,
        count(*) filter (where is_unknown) as n_unknown,
        count(*) filter (where is_lead) as n_lead_obligations,
        count(*) filter (where is_lead and is_violated) as n_lead_violations,
        count(*) filter (where is_violated and is_next_out) as n_violations_next_out,
        count(*) filter (where is_bao) as n_bao,
        count(*) filter (where is_bao_possible) as n_bao_possible
    from audit_obligations
    group by player_id, ruleset
)

select
    p.*,
    p.n_met + p.n_violations as n_known,
    p.n_violations / nullif(p.n_met + p.n_violations, 0) as violation_rate,
    coalesce(b.bao_paid, 0) as bao_paid
from per_player as p
left join bao as b using (player_id, ruleset)
