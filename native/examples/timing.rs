//! Where one core's time goes: `cargo run --release --example timing -- LINES.jsonl RULESET.json`
//! (a ruleset as `Ruleset.to_dict()` JSON): lines parsed per second, and parsed + replayed.

use std::time::Instant;

use big2_native::combos::ComboRules;
use big2_native::parse::parse_line;
use big2_native::replay::replay;
use big2_native::rules::Ruleset;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("lines");
    let dict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&args[2]).expect("ruleset")).expect("json");
    let rs = Ruleset::from_dict(&dict).expect("ruleset");
    let cr = ComboRules::new(&rs);
    let lines: Vec<&str> = text.lines().collect();
    for _ in 0..2 {
        let start = Instant::now();
        let mut n = 0;
        for _ in 0..10 {
            for line in &lines {
                n += parse_line(line).map_or(0, |r| r.actions.len());
            }
        }
        let parse = start.elapsed().as_secs_f64();
        let start = Instant::now();
        let mut ok = 0;
        for _ in 0..10 {
            for line in &lines {
                let record = parse_line(line).expect("a common line");
                ok += usize::from(replay(&record, &rs, &cr).is_ok());
            }
        }
        let both = start.elapsed().as_secs_f64();
        let games = 10.0 * lines.len() as f64;
        println!(
            "parse {:.0} games/s; parse + replay {:.0} games/s ({} ok, {} actions)",
            games / parse,
            games / both,
            ok,
            n
        );
    }
}
