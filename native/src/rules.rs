//! The parameters of a ruleset the replay reads, from `Ruleset.to_dict()` as JSON (the
//! Python side resolves presets and overrides from the TOML files and validates them).

use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SuitOrder {
    Hk,
    Taiwan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StraightOrder {
    Hk,
    Big2Natural,
    HighestCard,
    Poker,
    A2345TopPoker,
    AkqjtTopPoker,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushCompare {
    RanksThenSuit,
    HighestCard,
    SuitThenRanks,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FourOfAKind {
    WithKicker,
    Alone,
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreePlayerMode {
    Deal17,
    Stock13,
    SwapLeftover,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Counterclockwise,
    Clockwise,
    Alternate,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FirstPlay {
    Contain,
    Single,
    Show,
    None,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MustBlock {
    Liability,
    Enforced,
    Off,
}

/// One validated ruleset (only the parameters the replay reads).
#[derive(Clone, Debug)]
pub struct Ruleset {
    pub name: String,
    pub suit_order: SuitOrder,
    pub straight_order: StraightOrder,
    pub flush_compare: FlushCompare,
    pub allow_triples: bool,
    pub four_of_a_kind: FourOfAKind,
    pub allow_four_card_quads: bool,
    pub allow_two_pairs: bool,
    pub allow_two_pairs_plus_one: bool,
    pub bombs: bool,
    pub royal_only_beats_quads: bool,
    pub players: usize,
    pub three_player_mode: ThreePlayerMode,
    pub direction: Direction,
    pub first_lead_every_game: bool,
    pub first_play: FirstPlay,
    pub pass_locks_out: bool,
    pub dragon_instant_win: bool,
    pub four_twos_instant_win: bool,
    pub redeal_if: Vec<String>,
    pub must_block: MustBlock,
    pub last_card_required: bool,
}

fn text<'a>(d: &'a Value, key: &str) -> Result<&'a str, String> {
    d.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("ruleset: {key} missing or not a string"))
}

fn flag(d: &Value, key: &str) -> Result<bool, String> {
    d.get(key)
        .and_then(Value::as_bool)
        .ok_or_else(|| format!("ruleset: {key} missing or not a boolean"))
}

fn unknown(key: &str, value: &str) -> String {
    format!("ruleset: {key} = {value:?} is not known to the native core")
}

impl Ruleset {
    /// From `Ruleset.to_dict()` (enums as their strings); an error names the key.
    pub fn from_dict(d: &Value) -> Result<Ruleset, String> {
        let suit_order = match text(d, "suit_order")? {
            "hk" => SuitOrder::Hk,
            "taiwan" => SuitOrder::Taiwan,
            v => return Err(unknown("suit_order", v)),
        };
        let straight_order = match text(d, "straight_order")? {
            "hk" => StraightOrder::Hk,
            "big2_natural" => StraightOrder::Big2Natural,
            "highest_card" => StraightOrder::HighestCard,
            "poker" => StraightOrder::Poker,
            "a2345_top_poker" => StraightOrder::A2345TopPoker,
            "akqjt_top_poker" => StraightOrder::AkqjtTopPoker,
            v => return Err(unknown("straight_order", v)),
        };
        let flush_compare = match text(d, "flush_compare")? {
            "ranks_then_suit" => FlushCompare::RanksThenSuit,
            "highest_card" => FlushCompare::HighestCard,
            "suit_then_ranks" => FlushCompare::SuitThenRanks,
            v => return Err(unknown("flush_compare", v)),
        };
        let four_of_a_kind = match text(d, "four_of_a_kind")? {
            "with_kicker" => FourOfAKind::WithKicker,
            "alone" => FourOfAKind::Alone,
            "off" => FourOfAKind::Off,
            v => return Err(unknown("four_of_a_kind", v)),
        };
        let three_player_mode = match text(d, "three_player_mode")? {
            "deal_17" => ThreePlayerMode::Deal17,
            "stock_13" => ThreePlayerMode::Stock13,
            "swap_leftover" => ThreePlayerMode::SwapLeftover,
            v => return Err(unknown("three_player_mode", v)),
        };
        let direction = match text(d, "direction")? {
            "counterclockwise" => Direction::Counterclockwise,
            "clockwise" => Direction::Clockwise,
            "alternate" => Direction::Alternate,
            v => return Err(unknown("direction", v)),
        };
        let first_lead_every_game = match text(d, "first_lead")? {
            "lowest_card_then_winner" => false,
            "lowest_card_every_game" => true,
            v => return Err(unknown("first_lead", v)),
        };
        let first_play = match text(d, "first_play_must_contain_lowest")? {
            "contain" => FirstPlay::Contain,
            "single" => FirstPlay::Single,
            "show" => FirstPlay::Show,
            "none" => FirstPlay::None,
            v => return Err(unknown("first_play_must_contain_lowest", v)),
        };
        let must_block = match text(d, "must_block")? {
            "liability" => MustBlock::Liability,
            "enforced" => MustBlock::Enforced,
            "off" => MustBlock::Off,
            v => return Err(unknown("must_block", v)),
        };
        let last_card_required = match text(d, "last_card_call")? {
            "off" => false,
            "required" => true,
            v => return Err(unknown("last_card_call", v)),
        };
        let players = d
            .get("players")
            .and_then(Value::as_u64)
            .filter(|p| (2..=52).contains(p))
            .ok_or("ruleset: players missing or not 2 to 52")? as usize;
        let redeal_if = d
            .get("redeal_if")
            .and_then(Value::as_array)
            .ok_or("ruleset: redeal_if missing or not a list")?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or("ruleset: redeal_if item")
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Ruleset {
            name: text(d, "name")?.to_owned(),
            suit_order,
            straight_order,
            flush_compare,
            allow_triples: flag(d, "allow_triples")?,
            four_of_a_kind,
            allow_four_card_quads: flag(d, "allow_four_card_quads")?,
            allow_two_pairs: flag(d, "allow_two_pairs")?,
            allow_two_pairs_plus_one: flag(d, "allow_two_pairs_plus_one")?,
            bombs: flag(d, "bombs")?,
            royal_only_beats_quads: flag(d, "royal_only_beats_quads")?,
            players,
            three_player_mode,
            direction,
            first_lead_every_game,
            first_play,
            pass_locks_out: flag(d, "pass_locks_out")?,
            dragon_instant_win: flag(d, "dragon_instant_win")?,
            four_twos_instant_win: flag(d, "four_twos_instant_win")?,
            redeal_if,
            must_block,
            last_card_required,
        })
    }

    /// Cards dealt to each seat before any leftover (`Ruleset.hand_size`).
    pub fn hand_size(&self) -> usize {
        if self.players == 3 {
            return if self.three_player_mode == ThreePlayerMode::Stock13 {
                13
            } else {
                17
            };
        }
        52 / self.players
    }

    pub fn stock_size(&self) -> usize {
        52 - self.hand_size() * self.players
    }

    pub fn leftover_to_lowest(&self) -> bool {
        if self.players == 3 {
            return self.three_player_mode == ThreePlayerMode::Deal17;
        }
        self.players > 4
    }
}

/// The `hk` preset as `Ruleset.to_dict()` gives it (tests and the examples).
pub fn hk() -> Ruleset {
    let d: Value = serde_json::json!({
        "name": "hk", "suit_order": "hk", "straight_order": "hk",
        "flush_compare": "ranks_then_suit", "allow_triples": true,
        "four_of_a_kind": "with_kicker", "allow_four_card_quads": false,
        "allow_two_pairs": false, "allow_two_pairs_plus_one": false, "bombs": false,
        "royal_only_beats_quads": false, "players": 4, "three_player_mode": "deal_17",
        "direction": "counterclockwise", "first_lead": "lowest_card_then_winner",
        "first_play_must_contain_lowest": "contain", "pass_locks_out": true,
        "dragon_instant_win": false, "four_twos_instant_win": false, "redeal_if": [],
        "must_block": "liability", "last_card_call": "off"
    });
    Ruleset::from_dict(&d).unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let mut rs = hk();
        assert_eq!((rs.hand_size(), rs.stock_size()), (13, 0));
        rs.players = 5;
        assert_eq!(
            (rs.hand_size(), rs.stock_size(), rs.leftover_to_lowest()),
            (10, 2, true)
        );
        rs.players = 3;
        rs.three_player_mode = ThreePlayerMode::Stock13;
        assert_eq!((rs.hand_size(), rs.stock_size()), (13, 13));
    }
}
