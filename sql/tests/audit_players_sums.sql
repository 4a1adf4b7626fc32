-- audit_players adds up to audit_obligations; a violation rate lies in [0, 1]
select 'obligations' as what
where (select sum(n_obligations) from audit_players) <> (select count(*) from audit_obligations)
union all
select 'met + violated + unknown'
from audit_players
where n_met + n_violations + n_unknown <> n_obligations
union all
select 'rate'
from audit_players
where violation_rate < 0 or violation_rate > 1
