//! Where one core's time goes: `cargo run --release --example timing -- LINES.jsonl RULESET.json [ROUNDS]`
//! (a ruleset as `Ruleset.to_dict()` JSON). Per round, in games per CPU-second of this thread
//! (`CLOCK_THREAD_CPUTIME_ID`: time the machine gave to other programs is not counted): the
//! lines parsed; the parsed records replayed; and both, line by line (what `validate_lines`
//! runs); and what `Core.rows_add` runs per line in `big2 ingest` (parse, replay, the content
//! hash and the rows into the column buffers, taken every 1,000 lines). The last line is the
//! median of the rounds. With `replay` after ROUNDS: only the replays, ROUNDS times over the
//! records (for a profiler); with `rows`: only the rows_add work.

use big2_native::combos::ComboRules;
use big2_native::parse::{parse_line, read_line, Record};
use big2_native::replay::replay;
use big2_native::rows::{content_hash, tree_hash, ChunkRows, LineInfo};
use big2_native::rules::Ruleset;

mod common;
use common::cpu_seconds;

fn timed(mut f: impl FnMut() -> usize) -> (f64, usize) {
    let start = cpu_seconds();
    let n = f();
    (cpu_seconds() - start, n)
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `Core.rows_add`'s work for each line; the number of games whose rows were built.
fn rows_add(lines: &[&str], rs: &Ruleset, cr: &ComboRules) -> usize {
    let mut rows = ChunkRows::default();
    let mut built = 0;
    for (k, line) in lines.iter().enumerate() {
        let Some((record, tree)) = read_line(line) else {
            continue;
        };
        let Ok(done) = replay(&record, rs, cr) else {
            continue;
        };
        let hash = tree
            .and_then(|mut t| tree_hash(&mut t))
            .or_else(|| content_hash(line))
            .expect("a hash");
        let info = LineInfo {
            file: "lines.jsonl",
            line: k as i64 + 1,
            ruleset: &rs.name,
            overrides: "{}",
            players: rs.players,
        };
        built += usize::from(rows.add(&record, &done, &hash, &info));
        if k % 1000 == 999 {
            std::hint::black_box(rows.take());
        }
    }
    std::hint::black_box(rows.take());
    built
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("lines");
    let dict: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&args[2]).expect("ruleset")).expect("json");
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    // `replay` as a fourth argument: only the replay of parsed records, for a profiler
    if args.get(4).is_some_and(|a| a == "replay") {
        let rs = Ruleset::from_dict(&dict).expect("ruleset");
        let cr = ComboRules::new(&rs);
        let records: Vec<Record> = text.lines().filter_map(parse_line).collect();
        let start = cpu_seconds();
        let mut ok = 0;
        for _ in 0..rounds {
            for record in &records {
                ok += usize::from(replay(record, &rs, &cr).is_ok());
            }
        }
        let secs = cpu_seconds() - start;
        println!(
            "replay {:.0} games per CPU-second ({ok} ok)",
            ok as f64 / secs
        );
        return;
    }
    if args.get(4).is_some_and(|a| a == "rows") {
        let rs = Ruleset::from_dict(&dict).expect("ruleset");
        let cr = ComboRules::new(&rs);
        let lines: Vec<&str> = text.lines().collect();
        let start = cpu_seconds();
        let mut built = 0;
        for _ in 0..rounds {
            built += rows_add(&lines, &rs, &cr);
        }
        let secs = cpu_seconds() - start;
        println!("rows {:.0} games per CPU-second", built as f64 / secs);
        return;
    }
    let rs = Ruleset::from_dict(&dict).expect("ruleset");
    let cr = ComboRules::new(&rs);
    let lines: Vec<&str> = text.lines().collect();
    let records: Vec<Record> = lines
        .iter()
        .map(|l| parse_line(l).expect("a common line"))
        .collect();
    let reps = 10;
    let games = (reps * lines.len()) as f64;
    let (mut p, mut r, mut b, mut w) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (parse, actions) = timed(|| {
            let mut n = 0;
            for _ in 0..reps {
                for line in &lines {
                    n += parse_line(line).map_or(0, |r| r.actions.len());
                }
            }
            n
        });
        let (only, ok_replay) = timed(|| {
            let mut ok = 0;
            for _ in 0..reps {
                for record in &records {
                    ok += usize::from(replay(record, &rs, &cr).is_ok());
                }
            }
            ok
        });
        let (both, ok) = timed(|| {
            let mut ok = 0;
            for _ in 0..reps {
                for line in &lines {
                    let record = parse_line(line).expect("a common line");
                    ok += usize::from(replay(&record, &rs, &cr).is_ok());
                }
            }
            ok
        });
        let (with_rows, built) = timed(|| (0..reps).map(|_| rows_add(&lines, &rs, &cr)).sum());
        assert_eq!(ok, ok_replay);
        assert_eq!(built, ok);
        println!(
            "parse {:.0} | replay {:.0} | parse + replay {:.0} | rows_add {:.0} games per CPU-second ({ok} ok, {actions} actions)",
            games / parse,
            games / only,
            games / both,
            games / with_rows,
        );
        p.push(games / parse);
        r.push(games / only);
        b.push(games / both);
        w.push(games / with_rows);
    }
    println!(
        "median of {rounds}: parse {:.0} | replay {:.0} | parse + replay {:.0} | rows_add {:.0} games per CPU-second",
        median(p),
        median(r),
        median(b),
        median(w)
    );
}
