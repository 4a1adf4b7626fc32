-- dash_title(s): the rank-ladder title (rank_ladder, spec 1.8) of the score s: the title of the
-- highest threshold at most s (a negative score is the first title); NULL for a NULL score. The
-- one title rule of the dashboards' standings queries (sql/queries/dash_standings*.sql).
create or replace macro dash_title(s) as (
    case when s is null then null else (
        select max_by(r.title, r.min_score) from rank_ladder as r
        where r.min_score <= greatest(s, 0)
    ) end
)
