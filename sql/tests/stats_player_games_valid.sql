-- stats_player_games: one row per seat per game; one winner per played game; actions never
-- exceed their opportunities (2s left: at most those dealt plus those drawn)
select game_id, 'duplicate seat' as problem
from stats_player_games
group by game_id, seat
having count(*) > 1
union all
select game_id, 'winners'
from stats_player_games
group by game_id
having sum(n_wins) <> 1
union all
select game_id, 'actions > opportunities'
from stats_player_games
where n_voluntary_passes > n_could_beat
   or n_voluntary_passes + n_forced_passes > n_passes
   or n_passes > n_follow_turns
   or n_lead_single + n_lead_pair + n_lead_triple + n_lead_five + n_lead_other <> n_leads
   or n_two_wasted > n_two_single_follows
   or n_tricks_won > n_tricks
   or n_control_regained > n_tricks_led_by_others
   -- 2s left: dealt, or drawn from the stock on a pass (3-player stock_13), or among the
   -- leftover cards that go to the lowest-card holder (3-player deal_17, 5 or more players;
   -- deal_mask is the deal as logged, before the leftover)
   or n_twos_left > n_twos_dealt + coalesce((
       select count(*)
       from stg_actions as a
       where a.game_id = stats_player_games.game_id and a.seat = stats_player_games.seat
           and a.drawn >= 48  -- card id of a 2
   ), 0) + coalesce((
       select bit_count(4222124650659840 & ~bit_or(s.deal_mask))  -- the 2s nobody was dealt
       from stg_seats as s
       where s.game_id = stats_player_games.game_id
   ), 0)
   or position not between 0 and players - 1
