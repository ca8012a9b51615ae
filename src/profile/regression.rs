//! Why a SuperKernel did not pay: which of the SuperKernel team's three regression classes a
//! neutral or regressed SuperKernel's occurrences show (reference `superkernel_ops_2026.md`
//! §1.4 and §1.6, from graph-autofusion's regression diagnosis):
//!
//! - **serialised** — its sub-ops overlapped on two or more streams without SuperKernel (their
//!   interval is shorter than their durations added up) and the SuperKernel takes about their
//!   sum: it runs them one after another;
//! - **sync/wait** — the SuperKernel waits on its stream longer before it starts than its first
//!   sub-op did without;
//! - **cache flush** — its scope's options flush the data cache around it (the DCCI options)
//!   and it takes longer than its sub-ops added up;
//!
//! or no class fits. Each is a hypothesis, never a root cause: it carries the team's evidence
//! level — `high` only for direct config or a child trace attributable to this SuperKernel,
//! `medium` for profiler figures and counters, `low` for a hypothesis missing what would show
//! it — what it rests on, and what is still open; only a single-variable A/B confirms one.
//! Whether the options turn on flushes is read from the plan's options, never from names or
//! durations.

use serde::Serialize;

/// One of the team's regression classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RegressionClass {
    /// Sub-ops that overlapped without SuperKernel run one after another in it.
    Serialised,
    /// It waits before it starts more than its first sub-op did.
    SyncWait,
    /// Its options flush the data cache and it takes longer than its sub-ops added up.
    CacheFlush,
    /// None of the three is what the profile shows.
    NoClassFits,
}

impl RegressionClass {
    /// The class in words, as every output writes it.
    pub fn words(self) -> &'static str {
        match self {
            RegressionClass::Serialised => "serialised",
            RegressionClass::SyncWait => "sync/wait",
            RegressionClass::CacheFlush => "cache flush",
            RegressionClass::NoClassFits => "no class fits",
        }
    }
}

/// The team's evidence levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceLevel {
    /// Direct config, or a trace reliably attributed to this SuperKernel.
    High,
    /// Profiler figures and counters.
    Medium,
    /// A hypothesis missing what would show it.
    Low,
}

impl EvidenceLevel {
    /// The level in words.
    pub fn words(self) -> &'static str {
        match self {
            EvidenceLevel::High => "high",
            EvidenceLevel::Medium => "medium",
            EvidenceLevel::Low => "low",
        }
    }
}

/// One class a SuperKernel's occurrences show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnosis {
    /// The class.
    pub class: RegressionClass,
    /// How strongly the profile shows it.
    pub level: EvidenceLevel,
    /// What it rests on, in words with the figures.
    pub rests_on: String,
    /// What would confirm it or is still unknown.
    pub open: String,
}

/// What one SuperKernel's occurrences show, as the classes need it: medians over its
/// occurrences, ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    /// Without SuperKernel: its kernels' interval.
    pub base_interval_ns: f64,
    /// Without: its kernels' durations added up.
    pub base_kernels_ns: f64,
    /// Without: the most streams its kernels ran on in one occurrence (`None`: the profile
    /// names no streams).
    pub base_streams: Option<usize>,
    /// Without: the wait before its first kernel on its stream.
    pub base_wait_ns: f64,
    /// With SuperKernel: its duration.
    pub new_ns: f64,
    /// With: the wait before it on its stream.
    pub new_wait_ns: f64,
    /// True when the profiles give start times (intervals and waits are measured).
    pub timed: bool,
    /// The payoff's noise threshold.
    pub threshold_ns: f64,
}

/// Options (normalised `key`, value) of a scope's options text that are set: the compiler's
/// `key=value:key=value` or the aclgraph pass's `key=value key=value` (values may be JSON:
/// separators inside brackets or quotes do not split), keys compared with `_` as `-`.
pub fn set_options(text: &str) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    let (mut depth, mut quoted, mut from) = (0i32, false, 0);
    let mut push = |part: &str| {
        if let Some((key, value)) = part.split_once('=') {
            let key = key
                .trim()
                .trim_matches('"')
                .to_ascii_lowercase()
                .replace('_', "-");
            let value = value.trim().trim_matches('"').to_string();
            let unset = matches!(value.as_str(), "" | "0" | "[]" | "false" | "none" | "{}");
            if !key.is_empty() && !unset {
                parts.push((key, value));
            }
        }
    };
    for (at, c) in text.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '[' | '{' if !quoted => depth += 1,
            ']' | '}' if !quoted => depth -= 1,
            ':' | ' ' | '\t' if !quoted && depth <= 0 => {
                push(&text[from..at]);
                from = at + c.len_utf8();
            }
            _ => {}
        }
    }
    push(&text[from..]);
    parts
}

/// The options that flush the data cache around a SuperKernel's sub-ops: the DCCI lists and
/// the debug flush after every sub-op (`dcci-disable-on-kernel` turns flushes off, so it is not
/// one).
const FLUSHING: &[&str] = &[
    "dcci-before-kernel-start",
    "dcci-after-kernel-end",
    "debug-dcci-all",
];

/// The options that make a run diagnostic rather than clean timing: profiling records around
/// every sub-op (sk_prof), the debug syncs and flushes, forced core counts, one sub-op per
/// SuperKernel.
const DIAGNOSTIC: &[&str] = &[
    "profiling",
    "debug-dcci-all",
    "debug-sync-all",
    "debug-aic-num",
    "debug-aiv-num",
    "debug-per-op-max-core-num",
];

/// The set options of `text` among `keys`, as `key=value`.
fn among(text: &str, keys: &[&str]) -> Vec<String> {
    set_options(text)
        .into_iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

/// The options of `text` that make timing not clean (a diagnostic run), as `key=value`.
pub fn diagnostic_options(text: &str) -> Vec<String> {
    among(text, DIAGNOSTIC)
}

/// The options of `text` that flush the data cache, as `key=value`.
pub fn flushing_options(text: &str) -> Vec<String> {
    among(text, FLUSHING)
}

fn us(ns: f64) -> String {
    super::figures::fixed(ns / 1000.0, 2)
}

/// The classes a neutral or regressed SuperKernel shows, from `s` and its scope's `options`:
/// each that fits, or one "no class fits" saying why none does.
pub fn diagnose(s: &Signals, options: &str) -> Vec<Diagnosis> {
    let mut fits = Vec::new();
    let mut not = Vec::new();
    // Serialised: an overlap without, mostly lost with.
    let overlap = s.base_kernels_ns - s.base_interval_ns;
    let streams = match s.base_streams {
        Some(n) => format!("{n} streams"),
        None => "two or more streams".to_string(),
    };
    if !s.timed {
        not.push("serialised and sync/wait need start times".to_string());
    } else if overlap > s.threshold_ns && s.base_streams.is_none_or(|n| n >= 2) {
        if s.new_ns >= s.base_interval_ns + overlap / 2.0 {
            fits.push(Diagnosis {
                class: RegressionClass::Serialised,
                level: EvidenceLevel::Medium,
                rests_on: format!(
                    "without SuperKernel its sub-ops overlapped on {streams} (interval {} µs \
                     against {} µs of durations added up); with it, {} µs, the overlap lost",
                    us(s.base_interval_ns),
                    us(s.base_kernels_ns),
                    us(s.new_ns)
                ),
                open: "the profile's intervals and durations only: a child trace (sk_prof) \
                       showing its Cube and Vector sub-ops one after another would make it \
                       high; confirm with a single-variable A/B"
                    .to_string(),
            });
        } else {
            not.push(format!(
                "its sub-ops overlapped without SuperKernel and it keeps most of the overlap \
                 ({} µs against an interval of {} µs)",
                us(s.new_ns),
                us(s.base_interval_ns)
            ));
        }
    } else {
        not.push("its sub-ops did not overlap without SuperKernel".to_string());
    }
    // Sync/wait: a longer wait before it than before its first sub-op.
    let waits_more = s.new_wait_ns - s.base_wait_ns;
    if s.timed {
        if waits_more > s.threshold_ns {
            fits.push(Diagnosis {
                class: RegressionClass::SyncWait,
                level: EvidenceLevel::Medium,
                rests_on: format!(
                    "with SuperKernel it waits {} µs on its stream before it starts, against {} \
                     µs before its first sub-op without (medians)",
                    us(s.new_wait_ns),
                    us(s.base_wait_ns)
                ),
                open: "what it waits for (an event, a barrier, the control core's schedule) \
                       is not in the profile and is not guessed; confirm with a \
                       single-variable A/B"
                    .to_string(),
            });
        } else {
            not.push("it waits no longer before it starts than its first sub-op did".to_string());
        }
    }
    // Cache flush: flushing options, and beyond the sub-ops' sum.
    let flushing = flushing_options(options);
    let beyond = s.new_ns - s.base_kernels_ns;
    match (flushing.is_empty(), beyond > s.threshold_ns) {
        (false, true) => fits.push(Diagnosis {
            class: RegressionClass::CacheFlush,
            level: EvidenceLevel::Medium,
            rests_on: format!(
                "its scope's options flush the data cache ({}) and it takes {} µs, beyond its \
                 sub-ops' {} µs added up",
                flushing.join(", "),
                us(s.new_ns),
                us(s.base_kernels_ns)
            ),
            open: "the options say the flushes are on; that they cost the time is a \
                   hypothesis: the team's first A/B is dcci_disable_on_kernel=[\".*\"]"
                .to_string(),
        }),
        (true, _) => not.push("its scope's options flush no cache".to_string()),
        (false, false) => not.push(format!(
            "its options flush the cache ({}), yet it takes no longer than its sub-ops added up",
            flushing.join(", ")
        )),
    }
    if fits.is_empty() {
        fits.push(Diagnosis {
            class: RegressionClass::NoClassFits,
            level: EvidenceLevel::Low,
            rests_on: not.join("; "),
            open: "a single-variable A/B, or the child trace (sk_prof) of this SuperKernel, \
                   may show what the profile does not"
                .to_string(),
        });
    }
    fits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals() -> Signals {
        Signals {
            base_interval_ns: 10_000.0,
            base_kernels_ns: 16_000.0,
            base_streams: Some(2),
            base_wait_ns: 500.0,
            new_ns: 16_300.0,
            new_wait_ns: 600.0,
            timed: true,
            threshold_ns: 300.0,
        }
    }

    fn classes(d: &[Diagnosis]) -> Vec<RegressionClass> {
        d.iter().map(|d| d.class).collect()
    }

    #[test]
    fn overlap_lost_is_serialised_at_medium() {
        let d = diagnose(&signals(), "");
        assert_eq!(classes(&d), [RegressionClass::Serialised]);
        assert_eq!(d[0].level, EvidenceLevel::Medium);
        assert!(
            d[0].rests_on
                .contains("2 streams (interval 10.00 µs against 16.00 µs")
        );
        // Keeping most of the overlap is not serialised.
        let kept = Signals {
            new_ns: 12_000.0,
            ..signals()
        };
        let d = diagnose(&kept, "");
        assert_eq!(classes(&d), [RegressionClass::NoClassFits]);
        assert_eq!(d[0].level, EvidenceLevel::Low);
        assert!(d[0].rests_on.contains("keeps most of the overlap"), "{d:?}");
    }

    #[test]
    fn a_longer_wait_is_sync_wait_and_flushes_need_their_options() {
        let s = Signals {
            base_kernels_ns: 10_000.0,
            new_ns: 12_000.0,
            new_wait_ns: 2_500.0,
            ..signals()
        };
        assert_eq!(classes(&diagnose(&s, "")), [RegressionClass::SyncWait]);
        let d = diagnose(&s, "dcci-after-kernel-end=Add,MatMul:early-start=1");
        assert_eq!(
            classes(&d),
            [RegressionClass::SyncWait, RegressionClass::CacheFlush]
        );
        assert!(
            d[1].rests_on.contains("dcci-after-kernel-end=Add,MatMul"),
            "{d:?}"
        );
        // The aclgraph form, and an option that turns flushes off.
        let d = diagnose(
            &s,
            r#"dcci_before_kernel_start=[".*", "Add"] early_start=1"#,
        );
        assert_eq!(d[1].class, RegressionClass::CacheFlush);
        assert!(
            d[1].rests_on
                .contains(r#"dcci-before-kernel-start=[".*", "Add"]"#)
        );
        let d = diagnose(&s, r#"dcci_disable_on_kernel=[".*"]"#);
        assert_eq!(classes(&d), [RegressionClass::SyncWait]);
    }

    #[test]
    fn diagnostic_options_are_named_and_unset_ones_are_not() {
        assert_eq!(
            diagnostic_options("profiling=1:debug-aic-num=0:early-start=1"),
            ["profiling=1"]
        );
        assert_eq!(
            diagnostic_options("debug_per_op_max_core_num=1 dcci_after_kernel_end=[\".*\"]"),
            ["debug-per-op-max-core-num=1"]
        );
        assert!(diagnostic_options("profiling=0").is_empty());
    }

    #[test]
    fn without_start_times_only_the_cache_flush_can_be_told() {
        let s = Signals {
            timed: false,
            ..signals()
        };
        let d = diagnose(&s, "");
        assert_eq!(classes(&d), [RegressionClass::NoClassFits]);
        assert!(d[0].rests_on.contains("need start times"), "{d:?}");
    }
}
