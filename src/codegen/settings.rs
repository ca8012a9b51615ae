//! The generator's switches, read from a segment's options string (reference §3.2, §5.6).

use crate::fusion::options::{OptionValue, SkOptions};
use crate::target::Target;

/// How sub-kernel code is preloaded into the instruction cache (`preload-code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preload {
    /// `preload(func, N)` of the current and the next sub-kernel (the default).
    PerFunc,
    /// `AscendC::PreLoad(8)` once at the entry.
    Max,
    /// No preload.
    None,
}

/// Every option that changes the generated code or its compile flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `early-start`: 0 off, 1 on (V2, the default), 2 on without the sub-kernels' own.
    pub early_start: u8,
    /// `preload-code`.
    pub preload: Preload,
    /// `split-mode`: copies of each sub-kernel binary (default 4).
    pub split: u64,
    /// `func-align`: the entry's alignment (default 512; 0 leaves it out).
    pub func_align: u64,
    /// `feed-sync-all=1`.
    pub feed_sync_all: bool,
    /// `debug-dcci-all=1`.
    pub debug_dcci_all: bool,
    /// `debug-sync-all=1`.
    pub debug_sync_all: bool,
    /// `profiling=1`.
    pub profiling: bool,
    /// `stream-fusion=1`.
    pub stream_fusion: bool,
    /// `dcci-before-kernel-start`: op types flushed before their call.
    pub dcci_before: Vec<String>,
    /// `dcci-after-kernel-end`: op types flushed after their call.
    pub dcci_after: Vec<String>,
    /// `compile-options`: extra compiler flags.
    pub compile_options: Vec<String>,
    /// The hardware the code is for: its arch guards, and whether the FFTS base address is set
    /// (not on dav-3510, the compiler's c310).
    pub target: Target,
}

impl Settings {
    /// These settings for `target`.
    pub fn for_target(self, target: Target) -> Settings {
        Settings { target, ..self }
    }

    /// The switches of `options` (for A2/A3); options that failed to parse keep their defaults.
    pub fn of(options: &SkOptions) -> Settings {
        let choice = |key: &str| match options.get(key) {
            Some(OptionValue::Choice(v)) => Some(*v),
            _ => None,
        };
        let number = |key: &str, default: u64| match options.get(key) {
            Some(OptionValue::Number(n)) => *n,
            _ => default,
        };
        let list = |key: &str| match options.get(key) {
            Some(OptionValue::List(items)) => items.clone(),
            _ => Vec::new(),
        };
        let on = |key: &str| choice(key) == Some("1");
        Settings {
            early_start: match choice("early-start") {
                Some("0") => 0,
                Some("2") => 2,
                _ => 1,
            },
            preload: match choice("preload-code") {
                Some("max") => Preload::Max,
                Some("none") => Preload::None,
                _ => Preload::PerFunc,
            },
            split: number("split-mode", 4).max(1),
            func_align: number("func-align", 512),
            feed_sync_all: on("feed-sync-all"),
            debug_dcci_all: on("debug-dcci-all"),
            debug_sync_all: on("debug-sync-all"),
            profiling: on("profiling"),
            stream_fusion: on("stream-fusion"),
            dcci_before: list("dcci-before-kernel-start"),
            dcci_after: list("dcci-after-kernel-end"),
            compile_options: list("compile-options"),
            target: Target::default(),
        }
    }

    /// The compile flags of the SuperKernel object (reference §5.5). `early_start` is false in
    /// the two-stream form, which forces it off.
    pub fn compile_flags(&self, early_start: bool) -> Vec<String> {
        let mut flags = Vec::new();
        if early_start {
            flags.extend(
                [
                    "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START",
                    "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END",
                    "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2",
                ]
                .map(String::from),
            );
        }
        if self.feed_sync_all {
            flags.push("-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__".to_string());
        }
        flags.push("-DASCENDC_DUMP=0".to_string());
        flags.extend(self.compile_options.iter().cloned());
        flags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_given_values() {
        let default = Settings::of(&SkOptions::parse(""));
        assert_eq!(default.early_start, 1);
        assert_eq!(default.preload, Preload::PerFunc);
        assert_eq!((default.split, default.func_align), (4, 512));
        assert!(!default.feed_sync_all && !default.profiling && !default.stream_fusion);
        let given = Settings::of(&SkOptions::parse(
            "early-start=0:preload-code=max:split-mode=1:func-align=256:compile-options=-g,-O2",
        ));
        assert_eq!(given.early_start, 0);
        assert_eq!(given.preload, Preload::Max);
        assert_eq!((given.split, given.func_align), (1, 256));
        assert_eq!(given.compile_options, ["-g", "-O2"]);
    }

    #[test]
    fn compile_flags_follow_early_start_and_feed_sync_all() {
        let default = Settings::of(&SkOptions::parse(""));
        let flags = default.compile_flags(true);
        assert!(flags.contains(&"-D__ASCENDC_ENABLE_SET_NEXT_TASK_START".to_string()));
        assert!(flags.contains(&"-D__ASCENDC_SUPERKERNEL_EARLY_START_V2".to_string()));
        assert_eq!(default.compile_flags(false), ["-DASCENDC_DUMP=0"]);
        let feed = Settings::of(&SkOptions::parse("feed-sync-all=1:compile-options=-g"));
        assert_eq!(
            feed.compile_flags(false),
            [
                "-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__",
                "-DASCENDC_DUMP=0",
                "-g"
            ]
        );
    }
}
