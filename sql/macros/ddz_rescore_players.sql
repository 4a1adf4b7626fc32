-- ddz_rescore_players(whatif): one row per Dou Dizhu player: the cumulative score and overall
-- rank under the games' own rules (ddz_player_standings) beside the same if every game had
-- been scored under the what-if Dou Dizhu ruleset (JSON, pipeline.sqlbuild.ddz_ruleset_json:
-- its stake, spring_doubles and multiplier_cap; ddz_score_seats), with the rank-ladder title
-- each would give.
create or replace macro ddz_rescore_players(whatif) as table
with whatif_totals as (
    select player_id, sum(score) as whatif_score
    from ddz_score_seats(whatif := whatif)
    group by player_id
),

whatif_titled as (
    select w.player_id, w.whatif_score, max_by(r.title, r.min_score) as whatif_title
    from whatif_totals as w
    join rank_ladder as r on r.min_score <= greatest(w.whatif_score, 0)
    group by all
)

select
    o.player_id,
    o.n_games,
    o.total_score as own_score,
    o.overall_rank as own_rank,
    o.title as own_title,
    w.whatif_score,
    rank() over (order by w.whatif_score desc) as whatif_rank,
    w.whatif_title
from ddz_player_standings as o
join whatif_titled as w on w.player_id = o.player_id
