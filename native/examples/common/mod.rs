//! What the timing examples share: this thread's CPU clock.

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

/// CPU seconds of this thread (Linux `CLOCK_THREAD_CPUTIME_ID`).
pub fn cpu_seconds() -> f64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; clock 3 is CLOCK_THREAD_CPUTIME_ID on Linux.
    let rc = unsafe { clock_gettime(3, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime");
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

/// Times `rounds` runs of `play` (which simulates `games` games and answers the bytes it
/// wrote), printing each run's games per CPU-second of this thread and then their median.
#[allow(dead_code)] // the examples that do not simulate share this module too
pub fn games_per_cpu_second(games: u64, rounds: usize, mut play: impl FnMut() -> usize) {
    let mut rates = Vec::new();
    for _ in 0..rounds {
        let started = cpu_seconds();
        let bytes = play();
        let secs = cpu_seconds() - started;
        let rate = games as f64 / secs;
        println!(
            "{games} games in {secs:.2} CPU-s: {rate:.0} games per CPU-second ({bytes} bytes)"
        );
        rates.push(rate);
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "median of {rounds}: {:.0} games per CPU-second",
        rates[rates.len() / 2]
    );
}
