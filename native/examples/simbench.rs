//! `cargo run --release --example simbench -- BOT GAMES [ROUNDS]`: simulated games per
//! CPU-second of the core alone (hk preset, four seats of BOT: random, greedy or heuristic;
//! `CLOCK_THREAD_CPUTIME_ID`, so time the machine gave to other programs is not counted).
//! One line per round, then the median.

use big2_native::combos::ComboRules;
use big2_native::rules::hk;
use big2_native::sim::{match_lines, BotKind, Notation, Planted, RunSpec};

mod common;
use common::games_per_cpu_second;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bot = BotKind::parse(args.get(1).map_or("random", String::as_str)).expect("a bot name");
    let games: u64 = args.get(2).and_then(|g| g.parse().ok()).unwrap_or(20_000);
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let rs = hk();
    let cr = ComboRules::new(&rs);
    let spec = RunSpec {
        seed: "11".into(),
        games,
        match_games: 8,
        planted: Planted {
            discipline: 1.0,
            colluders: None,
        },
        notation: Notation::Compact,
        prefix: "sim-11".into(),
        ruleset_json: "{\"preset\": \"hk\", \"overrides\": {}}".into(),
        seed_json: "11".into(),
        discipline_json: "1.0".into(),
        colluders_json: "[]".into(),
    };
    games_per_cpu_second(games, rounds, || {
        let mut bytes = 0;
        for m in 0..games.div_ceil(8) {
            for line in match_lines(&rs, &cr, &spec, m, &[bot; 4], "[]", "[]") {
                bytes += line.len();
            }
        }
        bytes
    });
}
