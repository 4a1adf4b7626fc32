-- Dou Dizhu cooperation audit: every evidence row is a farmer's turn holding a beating play on
-- the play of its partner (signal partner) or of the landlord (feed: on 1-2 cards; baseline: 3+),
-- and ddz_coop_players counts the same feeds and partner beats as ddz_stats_players
select 'bad row' as problem, a.game_id, a.action_index::varchar as what
from ddz_coop_actions as a
where a.seat = a.landlord
   or a.top_seat = a.seat
   or (a.signal = 'partner') <> (a.top_seat <> a.landlord)
   or (a.signal = 'feed') <> (a.top_seat = a.landlord and a.landlord_cards_left <= 2)
union all
select 'counts differ', c.player_id, c.ruleset
from ddz_coop_players as c
join ddz_stats_players as s using (player_id, ruleset)
where c.n_feeds <> s.n_feeds
   or c.n_feed_opportunities <> s.n_feed_opportunities
   or c.n_partner_beats <> s.n_partner_beats
   or c.n_partner_follows <> s.n_partner_follows
