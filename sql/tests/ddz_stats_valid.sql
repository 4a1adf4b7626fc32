-- Dou Dizhu stats: every rate of ddz_stats_players, ddz_coop_players, ddz_win_rates,
-- ddz_bidding, ddz_bombs and ddz_springs is a share in [0, 1] (actions never exceed their
-- opportunities); a game has one landlord and its winners are one side
with rates as (
    select 'ddz_stats_players' as mart, player_id as who, unnest([
        win_rate, landlord_share, landlord_win_rate, farmer_win_rate, bid_rate,
        strong_pass_rate, weak_bid_rate, bomb_use_rate, voluntary_pass_rate,
        partner_beat_rate, feed_rate, spring_rate, anti_spring_rate
    ]) as rate
    from ddz_stats_players
    union all
    select 'ddz_coop_players', player_id, unnest([feed_rate, baseline_rate, partner_beat_rate])
    from ddz_coop_players
    union all
    select 'ddz_win_rates', role || ' ' || dimension || ' ' || value, win_rate from ddz_win_rates
    union all
    select 'ddz_bidding', player_id, unnest([bid_rate, top_bid_rate, landlord_win_rate])
    from ddz_bidding
    union all
    select 'ddz_bombs', role || ' ' || n_held, unnest([use_rate, win_rate]) from ddz_bombs
    union all
    select 'ddz_springs', ruleset || ' ' || bid, unnest([spring_rate, anti_spring_rate])
    from ddz_springs
)

select mart, who, rate::varchar as problem
from rates
where rate < 0 or rate > 1
union all
select 'one landlord', game_id, count(*) filter (where is_landlord)::varchar
from ddz_game_scores
where is_scored
group by game_id
having count(*) filter (where is_landlord) <> 1
union all
select 'winners are one side', game_id, string_agg(role, ',')
from ddz_game_scores
where is_scored and is_winner
group by game_id
having count(distinct role) <> 1
