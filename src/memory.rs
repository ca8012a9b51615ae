//! How much memory skope may still take, so a big input is refused before it makes the machine
//! swap — or, under a limit, before an allocation fails and ends the process.
//!
//! The least of: what the machine has free (`MemAvailable`), what the process's memory cgroup
//! still allows (v2 `memory.max − memory.current`, v1 `memory.limit_in_bytes −
//! memory.usage_in_bytes`, on the process's cgroup and every parent), and what its address
//! space limit (`ulimit -v`, `RLIMIT_AS`) leaves above the address space it already has.

use std::path::{Path, PathBuf};

/// Memory skope may still take, when anything says.
pub fn available() -> Option<u64> {
    let limits = [
        meminfo_available(),
        cgroup_room(Path::new("/proc/self/cgroup"), Path::new("/sys/fs/cgroup")),
        address_space_room(),
    ];
    limits.into_iter().flatten().min()
}

/// True under an address-space limit (`ulimit -v`): a second thread's allocator then takes
/// address space of its own (glibc reserves 64 MB an arena), so work is better done on one.
pub fn address_space_limited() -> bool {
    address_space_room().is_some()
}

/// What limits it, in words that follow "… is free": the one of the three that is the least.
pub fn limited_by() -> &'static str {
    let machine = meminfo_available();
    let cgroup = cgroup_room(Path::new("/proc/self/cgroup"), Path::new("/sys/fs/cgroup"));
    let space = address_space_room();
    let least = [machine, cgroup, space].into_iter().flatten().min();
    match least {
        Some(l) if space == Some(l) => "under the address-space limit (ulimit -v)",
        Some(l) if cgroup == Some(l) => {
            "under the memory limit of skope's cgroup (container or job)"
        }
        _ => "on this machine",
    }
}

/// Memory available to a new program (`MemAvailable` of /proc/meminfo).
fn meminfo_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemAvailable:")
}

/// A `Name: N kB` field of a /proc file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// What the process's memory cgroups still allow: the least room over its cgroup and every
/// parent, in cgroup v2 or v1 (`cgroup_file`: /proc/self/cgroup; `root`: where the cgroup
/// file systems are mounted). `None` when no limit is set or none can be read.
fn cgroup_room(cgroup_file: &Path, root: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(cgroup_file).ok()?;
    let mut rooms = Vec::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let relative = path.trim_start_matches('/');
        let (mount, limit, usage) = if controllers.is_empty() {
            (root.to_path_buf(), "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                root.join("memory"),
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else {
            continue;
        };
        for dir in ancestors(&mount, relative) {
            let limit = read_number(&dir.join(limit));
            let usage = read_number(&dir.join(usage));
            if let (Some(limit), Some(usage)) = (limit, usage) {
                rooms.push(limit.saturating_sub(usage));
            }
        }
    }
    rooms.into_iter().min()
}

/// `mount/relative` and each folder above it up to `mount`, deepest first; a cgroup path a
/// container does not show under `mount` is looked for at `mount` alone.
fn ancestors(mount: &Path, relative: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dir = mount.join(relative);
    while dir.starts_with(mount) {
        if dir.is_dir() {
            out.push(dir.clone());
        }
        if !dir.pop() {
            break;
        }
    }
    out
}

/// A cgroup number (`max` and v1's "no limit" near 2⁶³ read as no limit).
fn read_number(path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let n: u64 = text.trim().parse().ok()?;
    (n < 1 << 62).then_some(n)
}

/// What the address-space limit (`RLIMIT_AS`) leaves above what the process has mapped.
fn address_space_room() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped = kib_field(&status, "VmSize:").unwrap_or(0);
    Some(limit.rlim_cur.saturating_sub(mapped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cgroup_limit_is_the_least_room_over_the_cgroup_and_its_parents() {
        let dir = crate::scratch::scratch("memory-cgroup");
        let write = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        // v1: the job's cgroup has no limit; its parent allows 4 GiB and uses 3 GiB.
        write("proc_cgroup", "4:memory:/batch/job1\n1:cpu:/\n");
        write(
            "root/memory/batch/job1/memory.limit_in_bytes",
            "9223372036854771712\n",
        );
        write(
            "root/memory/batch/job1/memory.usage_in_bytes",
            "1073741824\n",
        );
        write("root/memory/batch/memory.limit_in_bytes", "4294967296\n");
        write("root/memory/batch/memory.usage_in_bytes", "3221225472\n");
        let room = cgroup_room(&dir.join("proc_cgroup"), &dir.join("root"));
        assert_eq!(room, Some(1 << 30));
        // v2: memory.max of `max` is no limit; a number is.
        write("proc_cgroup2", "0::/user.slice/skope\n");
        write("root2/user.slice/skope/memory.max", "max\n");
        write("root2/user.slice/skope/memory.current", "100\n");
        assert_eq!(
            cgroup_room(&dir.join("proc_cgroup2"), &dir.join("root2")),
            None
        );
        write("root2/user.slice/skope/memory.max", "1100\n");
        assert_eq!(
            cgroup_room(&dir.join("proc_cgroup2"), &dir.join("root2")),
            Some(1000)
        );
    }

    #[test]
    fn the_machines_free_memory_is_read() {
        assert!(meminfo_available().is_some_and(|m| m > 0));
        assert_eq!(
            kib_field("MemAvailable:   2 kB\n", "MemAvailable:"),
            Some(2048)
        );
    }
}
