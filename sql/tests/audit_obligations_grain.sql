-- audit_obligations: one row per (game_id, action_index), and one per actions row with an obligation
select game_id, action_index, count(*) as n
from audit_obligations
group by all
having count(*) > 1
union all
select 'total', -1, abs((select count(*) from audit_obligations)
                       - (select count(*) from stg_actions where obligation is not null))
where (select count(*) from audit_obligations)
      <> (select count(*) from stg_actions where obligation is not null)
