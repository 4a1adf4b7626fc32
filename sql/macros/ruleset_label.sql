-- ruleset_label(ruleset_id) → text: a ruleset id (preset, a space, the overrides JSON) as people
-- read it: the preset alone when nothing overrides it ('hk {}' → 'hk'), else the id as it is
-- ('hk {"players": 3}'). For the tables and reports that show a game's own ruleset.
create or replace macro ruleset_label(ruleset_id) as
    case when ruleset_id like '% {}' then left(ruleset_id, length(ruleset_id) - 3) else ruleset_id end
