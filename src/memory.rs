//! How much memory the machine has free, so a big input is refused before it makes the
//! machine swap.

/// Memory available to a new program (`MemAvailable` of /proc/meminfo), when the system says.
pub fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}
