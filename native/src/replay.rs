//! Replay one parsed game through the engine, as `pipeline.replay.replay`: the same reject
//! codes and messages (`actions[i]: …`, `E_UNFINISHED`, `E_RESULT_MISMATCH` …).

use crate::combos::ComboRules;
use crate::parse::Record;
use crate::rules::Ruleset;
use crate::state::{ActionRecord, Deal, Game, GameResult};

/// A replayed game: the engine's rows and result.
#[derive(Debug)]
pub struct Replayed {
    pub actions: Vec<ActionRecord>,
    pub result: GameResult,
}

/// A log the rules do not accept: code, message, the action at fault.
#[derive(Debug, PartialEq, Eq)]
pub struct Rejected {
    pub code: String,
    pub message: String,
    pub action_index: Option<usize>,
}

fn reject(code: &str, message: String, action_index: Option<usize>) -> Rejected {
    Rejected {
        code: code.to_owned(),
        message,
        action_index,
    }
}

fn seats_text(values: &[u32]) -> String {
    let parts: Vec<String> = values.iter().map(u32::to_string).collect();
    format!("[{}]", parts.join(", "))
}

fn opt_seats_text(values: Option<&[u32]>) -> String {
    values.map_or_else(|| "none".to_string(), seats_text)
}

fn check_result(record: &Record, result: &GameResult) -> Option<Rejected> {
    if !record.has_declared {
        return None;
    }
    let mut problems = Vec::new();
    if let Some(declared) = record.declared_winner {
        if Some(declared) != result.winner {
            let replayed = result
                .winner
                .map_or_else(|| "no winner".to_string(), |w| format!("seat {w}"));
            problems.push(format!(
                "declared winner seat {declared}, replay: {replayed}"
            ));
        }
    }
    if let Some(left) = &record.declared_left {
        if *left != result.cards_left {
            problems.push(format!(
                "declared cards_left {}, replay: {}",
                opt_seats_text(Some(left)),
                opt_seats_text(Some(&result.cards_left))
            ));
        }
    }
    if problems.is_empty() {
        return None;
    }
    Some(reject("E_RESULT_MISMATCH", problems.join("; "), None))
}

/// Replay a record under its (already resolved) ruleset.
pub fn replay(record: &Record, rs: &Ruleset, cr: &ComboRules) -> Result<Replayed, Rejected> {
    if record.n_seats != rs.players {
        return Err(reject(
            "E_SEAT_COUNT",
            format!(
                "{} seats listed; ruleset '{}' plays {} players",
                record.n_seats, rs.name, rs.players
            ),
            None,
        ));
    }
    let deal = Deal {
        hands: record.hands.as_deref(),
        stock: &record.stock,
        start_counts: record.start_counts.as_deref(),
        game_number: record.game_number,
        previous_winner: record.previous_winner,
        first_leader: record.first_leader,
    };
    let mut game = Game::new(rs, cr, &deal).map_err(|e| reject(e.code, e.message, None))?;
    if let (Some(logged), Some(turn)) = (record.first_leader, game.turn) {
        if logged != turn {
            return Err(reject(
                "E_FIRST_LEADER_MISMATCH",
                format!("the log says seat {logged} leads first; under the rules seat {turn} does"),
                None,
            ));
        }
    }
    let n = record.actions.len();
    game.history.reserve(n); // one record per action
    for (i, action) in record.actions.iter().enumerate() {
        if game.finished() {
            return Err(reject(
                "E_ACTIONS_AFTER_END",
                format!(
                    "{} action(s) follow the end of the game (first: seat {} {})",
                    n - i,
                    action.seat,
                    action.kind.as_str()
                ),
                Some(i),
            ));
        }
        if let Err(e) = game.apply(action) {
            return Err(reject(
                e.code,
                format!("actions[{i}]: {}", e.message),
                Some(i),
            ));
        }
    }
    let Some(result) = game.result.take() else {
        return Err(reject(
            "E_UNFINISHED",
            format!(
                "the log ends after {n} action(s) with no winner (cards left {})",
                seats_text(&game.counts)
            ),
            None,
        ));
    };
    if let Some(mismatch) = check_result(record, &result) {
        return Err(mismatch);
    }
    Ok(Replayed {
        actions: std::mem::take(&mut game.history),
        result,
    })
}

/// Replay parsed records `rounds` times over; how many replays passed (all rounds). The
/// replay-and-validate work apart from the parse (`bench.native`'s figure, the timing example).
pub fn replay_rounds(records: &[Record], rs: &Ruleset, cr: &ComboRules, rounds: usize) -> usize {
    let mut ok = 0;
    for _ in 0..rounds {
        for record in records {
            ok += usize::from(replay(record, rs, cr).is_ok());
        }
    }
    ok
}

/// `replay_parsed(ruleset_json, lines, rounds)`: parse the lines (those the core reads), then
/// replay the records `rounds` times under the ruleset (`Ruleset.to_dict()` as JSON); the
/// number of records and of passed replays. Timed with `rounds = 0` and `rounds = R`, the
/// difference is the replay and validation alone (`bench.native`).
#[cfg(feature = "python")]
#[pyo3::pyfunction]
pub fn replay_parsed(
    ruleset_json: &str,
    lines: Vec<String>,
    rounds: usize,
) -> pyo3::PyResult<(usize, usize)> {
    let bad = |e: String| pyo3::exceptions::PyValueError::new_err(e);
    let dict: serde_json::Value =
        serde_json::from_str(ruleset_json).map_err(|e| bad(e.to_string()))?;
    let rs = Ruleset::from_dict(&dict).map_err(bad)?;
    let cr = ComboRules::new(&rs);
    let records: Vec<Record> = lines
        .iter()
        .filter_map(|l| crate::parse::parse_line(l))
        .collect();
    let ok = replay_rounds(&records, &rs, &cr, rounds);
    Ok((records.len(), ok))
}
