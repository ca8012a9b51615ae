//! A long fuzzing campaign against every reader of user input:
//!
//! ```text
//! cargo run --release --example fuzz -- [RUNS] [TARGET…]
//! ```
//!
//! RUNS inputs per reader (default 1,000,000); TARGETs narrow it to some readers (names as
//! listed). For each it prints executions, panics, time and the process's peak memory so far;
//! the first panicking input of a reader is written to `target/fuzz/<reader>.panic` with its
//! message beside it. Exits 1 when anything panicked.

#[path = "../tests/mutate/mod.rs"]
mod mutate;

use std::time::Instant;

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let runs: u64 = args
        .next()
        .and_then(|a| a.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);
    let only: Vec<String> = args.collect();
    let out = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz");
    let scratch = out.join("scratch");
    if let Err(e) = std::fs::create_dir_all(&scratch) {
        eprintln!("cannot create {}: {e}", scratch.display());
        return std::process::ExitCode::from(2);
    }
    // Panics are counted, not printed one by one.
    std::panic::set_hook(Box::new(|_| {}));
    let mut any = false;
    println!(
        "{:<18} {:>12} {:>8} {:>10} {:>12} {:>12}",
        "reader", "executions", "panics", "seconds", "peak memory", "slowest"
    );
    for (i, target) in mutate::targets().iter().enumerate() {
        if !only.is_empty() && !only.iter().any(|o| o == target.name) {
            continue;
        }
        let start = Instant::now();
        let found = mutate::campaign(target, runs, 0xF0CC_A5E5 + i as u64, &scratch);
        let peak = peak_memory().map_or("?".to_string(), |b| format!("{:.1} MB", b as f64 / 1e6));
        let slowest = found.slowest.as_ref().map_or(0.0, |(t, _)| t.as_secs_f64());
        println!(
            "{:<18} {:>12} {:>8} {:>10.1} {:>12} {:>10.3} s",
            target.name,
            found.executions,
            found.panics,
            start.elapsed().as_secs_f64(),
            peak,
            slowest
        );
        // An input over 2 s is a hang by the harness's rule: kept to reproduce it.
        if let Some((took, input)) = found.slowest.as_ref().filter(|(t, _)| t.as_secs() >= 2) {
            any = true;
            let file = out.join(format!("{}.slow", target.name));
            let _ = std::fs::write(&file, input);
            println!(
                "  slowest input took {took:?} (input in {})",
                file.display()
            );
        }
        if let Some((message, input)) = found.first {
            any = true;
            let file = out.join(format!("{}.panic", target.name));
            let _ = std::fs::write(&file, &input);
            let _ = std::fs::write(file.with_extension("panic.txt"), &message);
            println!("  first panic: {message} (input in {})", file.display());
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    if any {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}

/// The peak resident memory of this process so far (`VmHWM`), in bytes.
fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
