-- Grain: one row per variant the sidebar's ruleset filter offers under its preset (key ruleset_id
-- = preset || ' ' || overrides JSON, as stg_games.ruleset_id) of the games of $game_kind: every
-- preset with overrides the games use, and the preset alone ('hk {}') when some of its games have
-- overrides (else its name chooses the same games). label: ruleset_label's, the preset alone
-- as '<preset>, no overrides'. By preset, the preset alone first, then by id.
-- Parameters: $game_kind ('big2': games.game_kind 'big2', or NULL from batches written before
-- Dou Dizhu; 'doudizhu').
with used as (
    select ruleset as preset, overrides, ruleset || ' ' || overrides as ruleset_id,
        ruleset_label(ruleset || ' ' || overrides) = ruleset as plain,  -- no overrides
        count(*) as n_games
    from games
    where coalesce(game_kind, 'big2') = $game_kind
    group by all
)
select
    preset,
    ruleset_id,
    case when plain then preset || ', no overrides' else ruleset_label(ruleset_id) end as label,
    n_games
from used
where (not plain or preset in (select preset from used where not plain))
  -- the filter chooses it (always true; a warehouse built before the variants lacks the macro:
  -- E_SQL_NOT_BUILT, and the sidebar lists its presets only, whose filter it still knows)
  and ruleset_chosen(preset, overrides, ruleset_id)
order by preset, not plain, ruleset_id
