//! A long fuzzing campaign against every reader of user input:
//!
//! ```text
//! cargo run --release --example fuzz -- [RUNS] [TARGET…]
//! ```
//!
//! RUNS inputs per reader (default 1,000,000); TARGETs narrow it to some readers (names as
//! listed). For each it prints executions, panics, time, the process's peak memory so far,
//! the slowest input, and — measured per input with a counting allocator — what the reader
//! takes for its seeds (its own costs), the most an input took beyond that, and how many inputs
//! took more than 64× their size beyond it. The first panicking input of a reader is written to
//! `target/fuzz/<reader>.panic` with its message beside it, an input over 2 s to
//! `<reader>.slow`, the first over the memory bound to `<reader>.memory`. Exits 1 when any of
//! these was found.
//!
//! `cargo run --release --example fuzz -- replay TARGET FILE` feeds one such input again and
//! prints its time, its memory beyond the seeds' and its panic, if any.

#[path = "../tests/mutate/mod.rs"]
mod mutate;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The system allocator, counting the bytes allocated now and the most at once.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static START: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = NOW.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call goes to the system allocator with the caller's layout; the counters are
// only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller promised for `layout`.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as the caller promised for `layout`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated with `layout` by this allocator, i.e. by the system's.
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as the caller promised for `ptr`, `layout` and `new_size`.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            NOW.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The counting allocator as the harness's meter.
struct Allocated;

impl mutate::Meter for Allocated {
    fn start(&self) {
        let now = NOW.load(Ordering::Relaxed);
        START.store(now, Ordering::Relaxed);
        PEAK.store(now, Ordering::Relaxed);
    }

    fn peak(&self) -> usize {
        PEAK.load(Ordering::Relaxed)
            .saturating_sub(START.load(Ordering::Relaxed))
    }
}

/// Feeds `file` to the reader `name` once, measured.
fn replay(name: &str, file: &str) -> std::process::ExitCode {
    let targets = mutate::targets();
    let Some(target) = targets.iter().find(|t| t.name == name) else {
        eprintln!("no reader {name}");
        return std::process::ExitCode::from(2);
    };
    let input = match std::fs::read(file) {
        Ok(bytes) => bytes,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let scratch = std::env::temp_dir().join(format!("skope-replay-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let base = mutate::campaign(target, 0, 0, &scratch, Some(&Allocated)).base_bytes;
    use mutate::Meter;
    Allocated.start();
    let start = Instant::now();
    let result = skope::worker::guarded(|| (target.run)(&input, &scratch));
    let (took, bytes) = (start.elapsed(), Allocated.peak());
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "{name}: {} bytes in, {took:?}, {bytes} bytes at most ({} beyond the seeds' {base}), {}",
        input.len(),
        bytes.saturating_sub(base),
        match &result {
            Ok(()) => "no panic".to_string(),
            Err(message) => format!("panic: {message}"),
        }
    );
    std::process::ExitCode::from(u8::from(result.is_err()))
}

fn main() -> std::process::ExitCode {
    let all: Vec<String> = std::env::args().skip(1).collect();
    if let [mode, name, file] = all.as_slice()
        && mode == "replay"
    {
        return replay(name, file);
    }
    let mut args = all.into_iter();
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
        "{:<22} {:>10} {:>6} {:>8} {:>10} {:>9} {:>10} {:>10} {:>6}",
        "reader",
        "executions",
        "panics",
        "seconds",
        "peak RSS",
        "slowest",
        "seeds",
        "beyond",
        ">64×"
    );
    let mb = |b: usize| format!("{:.1} MB", b as f64 / 1e6);
    for (i, target) in mutate::targets().iter().enumerate() {
        if !only.is_empty() && !only.iter().any(|o| o == target.name) {
            continue;
        }
        let start = Instant::now();
        let found = mutate::campaign(
            target,
            runs,
            0xF0CC_A5E5 + i as u64,
            &scratch,
            Some(&Allocated),
        );
        let peak = peak_memory().map_or("?".to_string(), |b| mb(b as usize));
        let slowest = found.slowest.as_ref().map_or(0.0, |(t, _)| t.as_secs_f64());
        println!(
            "{:<22} {:>10} {:>6} {:>8.1} {:>10} {:>7.3} s {:>10} {:>10} {:>6}",
            target.name,
            found.executions,
            found.panics,
            start.elapsed().as_secs_f64(),
            peak,
            slowest,
            mb(found.base_bytes),
            mb(found.peak_bytes),
            found.over_memory
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
        if let Some((bytes, input)) = &found.first_over {
            any = true;
            let file = out.join(format!("{}.memory", target.name));
            let _ = std::fs::write(&file, input);
            println!(
                "  an input of {} bytes took {} (input in {})",
                input.len(),
                mb(*bytes),
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
