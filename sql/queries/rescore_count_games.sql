-- Grain: one row: how many games of the game kind $game_kind the warehouse holds, what
-- `big2 rescore --as PRESET` checks before it rescores that game's games (a Dou Dizhu preset
-- over a Big Two warehouse finds none). Parameters: $game_kind.
select count(*) as n_games
from games
where game_kind = $game_kind
