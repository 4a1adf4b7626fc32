//! `cargo run --release --example ddzsimbench -- BOT GAMES [ROUNDS]`: simulated Dou Dizhu
//! games per CPU-second of the core alone (`ddz` preset, three seats of BOT: random, greedy
//! or heuristic; `CLOCK_THREAD_CPUTIME_ID`). One line per round, then the median.

use big2_native::ddz::bots::DdzBotKind;
use big2_native::ddz::rules::DdzRules;
use big2_native::ddz::sim::{match_lines, DdzRunSpec};

mod common;
use common::games_per_cpu_second;

/// `load_ruleset("ddz").to_dict()` plus `name_repr`.
const DDZ: &str = r#"{"name": "ddz", "name_repr": "'ddz'", "players": 3, "bidding": "points",
    "bid_reentry": true, "hand_size": 17, "four_with_two": true, "spring_doubles": false,
    "multiplier_cap": "none", "stake": 1}"#;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bot = DdzBotKind::parse(args.get(1).map_or("random", String::as_str)).expect("a bot");
    let games: u64 = args.get(2).and_then(|g| g.parse().ok()).unwrap_or(20_000);
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let rs = DdzRules::from_dict(&serde_json::from_str(DDZ).expect("json")).expect("a ruleset");
    let spec = DdzRunSpec {
        seed: "11".into(),
        games,
        match_games: 8,
        feeder: None,
        feed_rate: 0.0,
        prefix: "sim-11".into(),
        ruleset_json: "{\"preset\": \"ddz\"}".into(),
        generator_json: "\"pipeline.sim.ddz\"".into(),
        seed_json: "11".into(),
        feeder_json: "null".into(),
        feed_rate_json: "0.0".into(),
    };
    games_per_cpu_second(games, rounds, || {
        let mut bytes = 0;
        for m in 0..games.div_ceil(8) {
            let lines = match_lines(&rs, &spec, m, &[bot; 3], "[]", "[]").expect("played");
            bytes += lines.iter().map(String::len).sum::<usize>();
        }
        bytes
    });
}
