-- ddz_rescore_matches(whatif): one row per player per Dou Dizhu match: the final total and
-- standing under the games' own rules (ddz_match_standings after the match's last game)
-- beside the total and standing under the what-if Dou Dizhu ruleset (JSON, see
-- ddz_rescore_players).
create or replace macro ddz_rescore_matches(whatif) as table
with own as (
    select match_key, player_id, sum(score) as own_score
    from ddz_match_standings
    group by all
),

whatif_totals as (
    select match_key, player_id, sum(score) as whatif_score
    from ddz_score_seats(whatif := whatif)
    group by all
),

both_sides as (
    select o.match_key, o.player_id, o.own_score, w.whatif_score
    from own as o
    join whatif_totals as w using (match_key, player_id)
)

select
    match_key,
    player_id,
    own_score,
    rank() over (partition by match_key order by own_score desc) as own_standing,
    whatif_score,
    rank() over (partition by match_key order by whatif_score desc) as whatif_standing,
    rank() over (partition by match_key order by whatif_score desc)
        - rank() over (partition by match_key order by own_score desc) as standing_change
from both_sides
