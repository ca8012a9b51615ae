//! The aclgraph pass's options (reference/aclgraph_superkernel.md §2.1): typed snake_case keys
//! in two dicts, `optimize_options` and `debug_options`, checked the way torch_npu and the pass
//! check them — unknown keys and wrong value types are rejected by Python, an out-of-range
//! value is logged and its default kept — and written back as the call a user pastes.

use serde_json::Value;

/// What kind of value an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An integer in `min..=max`.
    Int {
        /// Least value.
        min: i64,
        /// Greatest value.
        max: i64,
    },
    /// A list of kernel-name patterns (`[A-Za-z0-9_.-*]`, `.` any character, `x*` repeats).
    Patterns,
    /// `k=v1,v2:k2=v` text of at most 1024 characters.
    Extend,
    /// The `aggressive_opt_strategies` dict.
    Strategies,
}

/// One option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AotOption {
    /// The torch key.
    pub key: &'static str,
    /// `aclskOptionType` id.
    pub id: u8,
    /// Its value kind.
    pub kind: Kind,
    /// Its default, as the Python literal.
    pub default: &'static str,
    /// True for `debug_options` keys.
    pub debug: bool,
    /// What it does in the pass.
    pub effect: &'static str,
}

const fn int(min: i64, max: i64) -> Kind {
    Kind::Int { min, max }
}

/// Every option torch_npu exposes, in id order.
pub const OPTIONS: &[AotOption] = &[
    AotOption {
        key: "preload_code",
        id: 0,
        kind: int(0, 2),
        default: "1",
        debug: false,
        effect: "prefetch of sub-kernel code: 0 = max (16/8 × 2 KB), 1 = function size, 2 = none",
    },
    AotOption {
        key: "split_mode",
        id: 1,
        kind: int(1, 4),
        default: "4",
        debug: false,
        effect: "sub-kernel binary copies used per op; a mismatch is warned",
    },
    AotOption {
        key: "stream_fusion",
        id: 2,
        kind: int(0, 1),
        default: "1",
        debug: false,
        effect: "warning only: with 0 and more than one stream the pass still fuses",
    },
    AotOption {
        key: "dcci_disable_on_kernel",
        id: 3,
        kind: Kind::Patterns,
        default: "[]",
        debug: false,
        effect: "kernels matching a pattern skip the cache flushes",
    },
    AotOption {
        key: "debug_sync_all",
        id: 4,
        kind: int(0, 1),
        default: "0",
        debug: true,
        effect: "the _debug entry: a full sync after every task",
    },
    AotOption {
        key: "constant_codegen",
        id: 6,
        kind: int(0, 1),
        default: "0",
        debug: false,
        effect: "JIT-specialised entry sk_constant_entry_<n> instead of sk_entry_*",
    },
    AotOption {
        key: "auto_op_parallel",
        id: 7,
        kind: int(0, 1),
        default: "0",
        debug: false,
        effect: "0 = nodeId order; 1 = alternate kernel types and streams, defer waits",
    },
    AotOption {
        key: "dcci_before_kernel_start",
        id: 8,
        kind: Kind::Patterns,
        default: "[]",
        debug: false,
        effect: "kernels matching a pattern flush the data cache before they start",
    },
    AotOption {
        key: "debug_op_exec_trace",
        id: 9,
        kind: int(0, 1),
        default: "0",
        debug: true,
        effect: "the _op_trace entry: trace each op's execution",
    },
    AotOption {
        key: "debug_cross_core_sync_check",
        id: 10,
        kind: int(0, 1),
        default: "0",
        debug: true,
        effect: "check cross-core syncs (forces the _op_trace entry)",
    },
    AotOption {
        key: "opt_extend",
        id: 11,
        kind: Kind::Extend,
        default: "\"\"",
        debug: false,
        effect: "k=v:k=v switches of the newer runtime: mix_kernel_split, simt_op_support \
                 (inferred); the snapshot's runtime reads none",
    },
    AotOption {
        key: "debug_extend",
        id: 12,
        kind: Kind::Extend,
        default: "\"\"",
        debug: true,
        effect: "validated, but nothing reads it yet",
    },
    AotOption {
        key: "dcci_after_kernel_end",
        id: 13,
        kind: Kind::Patterns,
        default: "[]",
        debug: false,
        effect: "kernels matching a pattern flush the data cache after they end",
    },
    AotOption {
        key: "aggressive_opt_strategies",
        id: 14,
        kind: Kind::Strategies,
        default: "{}",
        debug: false,
        effect: "which sync and default tasks count as fusible",
    },
    AotOption {
        key: "ubuf_lock_ignore_kernel",
        id: 15,
        kind: Kind::Patterns,
        default: "[]",
        debug: false,
        effect: "matching MIX kernels skip the mix split",
    },
    AotOption {
        key: "early_start",
        id: 16,
        kind: int(0, 1),
        default: "0",
        debug: false,
        effect: "the early-start pass and the _early_start entry (off by default, unlike GE mode)",
    },
    AotOption {
        key: "debug_per_op_max_core_num",
        id: 17,
        kind: int(0, 1),
        default: "0",
        debug: true,
        effect: "one SuperKernel per kernel on all cores (a debug aid; no break info)",
    },
];

/// The `aggressive_opt_strategies` sub-keys, with the values each takes and what it does.
pub const STRATEGIES: &[(&str, i64, &str)] = &[
    (
        "event_breaker_bypass",
        1,
        "reserved: the pass never reads it",
    ),
    (
        "value_breaker_bypass",
        3,
        "bit 0b01: paired value waits fusible; 0b10: writer-less value waits fusible and \
         exempt from the deadlock check",
    ),
    (
        "task_breaker_bypass",
        1,
        "default tasks start fusible, and default tasks are processed per stream",
    ),
];

/// The `opt_extend` keys the newer runtime reads (`SkInnerCapability`, reference §9.2,
/// inferred newer than the snapshot), with what each does; other keys are shown as unknown.
pub const EXTEND_KEYS: &[(&str, &str)] = &[
    (
        "mix_kernel_split",
        "1 splits MIX kernels into their cube and vector parts (MIX_KERNEL_SPLIT)",
    ),
    (
        "simt_op_support",
        "1 fuses SIMT kernels: the SuperKernel then runs the sk_entry_*_simt entry \
         (SIMT_OP_SUPPORT)",
    ),
];

/// What the runtime forces on `target` beyond the options given: on DAV_3510 the inner options
/// `enable_mix_kernel_split`, `enable_simt_op_check` and `enable_set_dyn_ubuf_size`, which no
/// user sets (aclgraph_superkernel.md §2.1, `sk_options_manager` L523-556).
pub fn forced_on(target: crate::target::Target) -> Option<String> {
    (target == crate::target::Target::Dav3510).then(|| {
        format!(
            "on {target} ({}) the runtime forces enable_mix_kernel_split, enable_simt_op_check \
             and enable_set_dyn_ubuf_size on (inner options no one sets): MIX kernels are split \
             into their cube and vector parts, a SIMT kernel is not fused (SIMT_OP_UNSUPPORT), \
             and each kernel's dynamic UB size is set",
            target.hardware()
        )
    })
}

/// The graph file's name for `opt_extend`, whose value is a dict of key → list of values.
pub const GRAPH_EXTEND: &str = "opt_extend_option";

/// The `k=v1,v2:k2=v` pairs of an extend text, in order (malformed parts left out).
pub fn extend_pairs(text: &str) -> Vec<(&str, &str)> {
    text.split(':')
        .filter_map(|part| part.split_once('='))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .collect()
}

/// What each `opt_extend` key of `text` does, or that skope does not know it (a newer runtime
/// may read it: shown, not rejected).
pub fn extend_words(text: &str) -> Vec<String> {
    extend_pairs(text)
        .into_iter()
        .map(
            |(k, v)| match EXTEND_KEYS.iter().find(|(key, _)| *key == k) {
                Some((_, effect)) if matches!(v, "0" | "1") => format!("{k}={v}: {effect}"),
                Some(_) => {
                    format!("{k}={v}: takes 0 or 1; the runtime's handling of {v} is not known")
                }
                None => format!(
                    "{k}={v}: unknown to skope (a newer runtime may read it; kept as given)"
                ),
            },
        )
        .collect()
}

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// torch_npu rejects the call.
    Error,
    /// The pass logs it and goes on (a default kept, a no-op).
    Warning,
}

/// A finding about one option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// How bad.
    pub level: Level,
    /// The key.
    pub key: String,
    /// What happens, in words.
    pub message: String,
}

/// Options checked and sorted into the two dicts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Checked {
    /// `optimize_options`, in the order given.
    pub optimize: Vec<(String, Value)>,
    /// `debug_options`, in the order given.
    pub debug: Vec<(String, Value)>,
    /// What is wrong or worth knowing.
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    /// True when torch_npu would take the call.
    pub fn ok(&self) -> bool {
        self.diagnostics.iter().all(|d| d.level != Level::Error)
    }

    /// The call a user pastes after capture.
    pub fn python(&self, graph: &str) -> String {
        let dict = |items: &[(String, Value)]| {
            let parts: Vec<String> = items
                .iter()
                .map(|(k, v)| format!("\"{k}\": {}", python_value(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        };
        format!(
            "{graph}.super_kernel_optimize(\n    optimize_options={},\n    debug_options={},\n)\n",
            dict(&self.optimize),
            dict(&self.debug)
        )
    }
}

/// `v` as a Python literal.
fn python_value(v: &Value) -> String {
    match v {
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Null => "None".into(),
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(python_value)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("\"{k}\": {}", python_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// The option with torch key `key`.
pub fn option(key: &str) -> Option<&'static AotOption> {
    OPTIONS.iter().find(|o| o.key == key)
}

/// Checks `options` (a JSON object of torch keys, both dicts' keys together or as
/// `{"optimize_options": {…}, "debug_options": {…}}`).
pub fn check(options: &serde_json::Map<String, Value>) -> Checked {
    let mut out = Checked::default();
    let nested = ["optimize_options", "debug_options"];
    let flat: Vec<(&String, &Value, Option<bool>)> =
        if options.keys().all(|k| nested.contains(&k.as_str())) && !options.is_empty() {
            options
                .iter()
                .filter_map(|(k, v)| v.as_object().map(|m| (k == "debug_options", m)))
                .flat_map(|(debug, m)| m.iter().map(move |(k, v)| (k, v, Some(debug))))
                .collect()
        } else {
            options.iter().map(|(k, v)| (k, v, None)).collect()
        };
    for (key, value, in_debug) in flat {
        let Some(opt) = option(key) else {
            out.diagnostics.push(error(key, unknown_key(key)));
            continue;
        };
        if let Some(debug) = in_debug
            && debug != opt.debug
        {
            out.diagnostics.push(error(
                key,
                format!(
                    "{key} belongs in {}: torch_npu rejects it in {}",
                    dict_name(opt.debug),
                    dict_name(debug)
                ),
            ));
            continue;
        }
        match check_value(opt, value) {
            Ok(ignored) => {
                for message in ignored {
                    out.diagnostics.push(Diagnostic {
                        level: Level::Warning,
                        key: key.clone(),
                        message,
                    });
                }
                let slot = if opt.debug {
                    &mut out.debug
                } else {
                    &mut out.optimize
                };
                slot.push((key.clone(), value.clone()));
            }
            Err(message) => out.diagnostics.push(error(key, message)),
        }
    }
    out
}

fn dict_name(debug: bool) -> &'static str {
    if debug {
        "debug_options"
    } else {
        "optimize_options"
    }
}

fn error(key: &str, message: String) -> Diagnostic {
    Diagnostic {
        level: Level::Error,
        key: key.to_string(),
        message,
    }
}

fn unknown_key(key: &str) -> String {
    if key == "kernel_map" {
        return "kernel_map has no setter in the pass and torch_npu does not expose it".into();
    }
    let nearest = OPTIONS
        .iter()
        .map(|o| (crate::text::edit_distance(key, o.key), o.key))
        .min()
        .filter(|(d, _)| *d <= 3.max(key.len() / 4));
    match nearest {
        Some((_, near)) => {
            format!("unknown option {key}: torch_npu rejects it; did you mean {near}?")
        }
        None => format!("unknown option {key}: torch_npu rejects it"),
    }
}

/// What the pass does with a value it takes but ignores (warning diagnostics), or why
/// torch_npu rejects it.
fn check_value(opt: &AotOption, value: &Value) -> Result<Vec<String>, String> {
    let key = opt.key;
    let mut ignored = Vec::new();
    match opt.kind {
        Kind::Int { min, max } => {
            let Some(n) = value.as_i64() else {
                return Err(format!(
                    "{key} must be an int, not {value}: torch_npu raises RuntimeError"
                ));
            };
            if !(min..=max).contains(&n) {
                ignored.push(format!(
                    "{key}={n} is outside {min}..{max}: the pass logs a warning and keeps the \
                     default {}",
                    opt.default
                ));
            }
            if key == "stream_fusion" && n == 0 {
                ignored.push(
                    "stream_fusion=0 changes nothing: with more than one stream the pass \
                     warns and still fuses"
                        .into(),
                );
            }
        }
        Kind::Patterns => {
            let Some(items) = value.as_array() else {
                return Err(format!(
                    "{key} must be a list (of kernel-name patterns), not {value}: torch_npu \
                     raises RuntimeError"
                ));
            };
            for item in items {
                let Some(p) = item.as_str() else {
                    return Err(format!("{key}: {item} is not a string"));
                };
                if let Some(problem) = pattern_problem(p) {
                    ignored.push(format!("{key}: pattern {p:?} {problem}"));
                }
            }
        }
        Kind::Extend => {
            let Some(text) = value.as_str() else {
                return Err(format!("{key} takes a str, not {value}"));
            };
            if text.chars().count() > 1024 {
                ignored.push(format!(
                    "{key} is longer than 1024 characters: the pass ignores it"
                ));
            } else if !text.is_empty()
                && text.split(':').any(|part| {
                    part.split_once('=')
                        .is_none_or(|(k, v)| k.is_empty() || v.is_empty())
                })
            {
                ignored.push(format!(
                    "{key} is not k=v1,v2:k2=v text: the pass ignores it"
                ));
            }
            if key == "opt_extend" {
                ignored.extend(
                    extend_words(text)
                        .into_iter()
                        .map(|w| format!("{key}: {w}")),
                );
            } else {
                ignored.push(format!(
                    "{key} is validated, but nothing in the pass reads it yet"
                ));
            }
        }
        Kind::Strategies => {
            let Some(map) = value.as_object() else {
                return Err(format!("{key} takes a dict, not {value}"));
            };
            for (sub, v) in map {
                let Some(&(_, max, effect)) = STRATEGIES.iter().find(|(k, ..)| k == sub) else {
                    ignored.push(format!(
                        "{key}: {sub} is not one of {}: the pass ignores it",
                        STRATEGIES
                            .iter()
                            .map(|s| s.0)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                    continue;
                };
                let Some(n) = v.as_i64() else {
                    return Err(format!("{key}.{sub} takes an int, not {v}"));
                };
                if !(0..=max).contains(&n) {
                    ignored.push(format!("{key}.{sub}={n} is outside 0..{max}"));
                }
                if sub == "event_breaker_bypass" {
                    ignored.push(format!("{key}.{sub}: {effect}"));
                }
            }
        }
    }
    Ok(ignored)
}

/// What is wrong with kernel-name pattern `p`, by the pass's matcher's rules.
fn pattern_problem(p: &str) -> Option<&'static str> {
    if p.starts_with('*') {
        return Some("starts with *: the pass rejects it");
    }
    if !p
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '*'))
    {
        return Some("has characters outside A-Z a-z 0-9 _ . - *: the pass rejects it");
    }
    None
}

/// The options a model ran with (from its graph file) as a JSON object, for checking and
/// export.
pub fn from_model(options: &[(String, String)]) -> serde_json::Map<String, Value> {
    options
        .iter()
        .filter_map(|(k, v)| {
            let value: Value = serde_json::from_str(v).ok()?;
            if k == GRAPH_EXTEND {
                return Some((
                    "opt_extend".to_string(),
                    Value::String(extend_text(&value)?),
                ));
            }
            option(k)?;
            Some((k.clone(), value))
        })
        .collect()
}

/// The graph file's `opt_extend_option` value (`{"mix_kernel_split": ["1"]}`) as the text the
/// option takes (`mix_kernel_split=1`).
pub fn extend_text(value: &Value) -> Option<String> {
    let map = value.as_object()?;
    let parts: Vec<String> = map
        .iter()
        .map(|(k, v)| {
            let values: Vec<String> = match v {
                Value::Array(items) => items
                    .iter()
                    .map(|i| i.as_str().map_or(i.to_string(), str::to_string))
                    .collect(),
                Value::String(s) => vec![s.clone()],
                other => vec![other.to_string()],
            };
            format!("{k}={}", values.join(","))
        })
        .collect();
    Some(parts.join(":"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn checked(v: Value) -> Checked {
        check(v.as_object().expect("an object"))
    }

    #[test]
    fn a_wrong_type_is_torch_npus_error_and_a_value_out_of_range_the_passs_warning() {
        // The four whose types torch_npu checks (superkernel_ops_2026.md §1.3).
        for (key, value, must) in [
            ("early_start", json!("1"), "must be an int"),
            ("ubuf_lock_ignore_kernel", json!("Add"), "must be a list"),
            ("debug_per_op_max_core_num", json!(true), "must be an int"),
            ("dcci_before_kernel_start", json!(".*"), "must be a list"),
        ] {
            let mut options = serde_json::Map::new();
            options.insert(key.to_string(), value);
            let c = check(&options);
            assert!(!c.ok(), "{key}");
            let d = &c.diagnostics[0];
            assert_eq!(d.level, Level::Error, "{key}");
            assert!(
                d.message.starts_with(&format!("{key} {must}"))
                    && d.message.ends_with("torch_npu raises RuntimeError"),
                "{}",
                d.message
            );
        }
        // In range is the pass's business: it warns and keeps the default.
        let c = checked(json!({"early_start": 5}));
        assert!(c.ok());
        assert_eq!(c.diagnostics[0].level, Level::Warning);
        assert!(c.diagnostics[0].message.contains("keeps the default 0"));
    }

    #[test]
    fn keys_split_into_the_two_dicts_and_print_as_python() {
        let c = checked(json!({"early_start": 1, "debug_sync_all": 1,
            "dcci_after_kernel_end": [".*"], "aggressive_opt_strategies": {"task_breaker_bypass": 1}}));
        assert!(c.ok(), "{:?}", c.diagnostics);
        assert_eq!(
            c.python("graph"),
            "graph.super_kernel_optimize(\n    optimize_options={\"aggressive_opt_strategies\": \
             {\"task_breaker_bypass\": 1}, \"dcci_after_kernel_end\": [\".*\"], \"early_start\": 1},\n    \
             debug_options={\"debug_sync_all\": 1},\n)\n"
        );
    }

    #[test]
    fn what_torch_npu_rejects_is_an_error_and_what_the_pass_ignores_a_warning() {
        let c = checked(
            json!({"early_strat": 1, "split_mode": "4", "preload_code": 7,
            "stream_fusion": 0, "dcci_before_kernel_start": ["*Add", "Mat Mul"]}),
        );
        assert!(!c.ok());
        let text: Vec<String> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
        assert!(
            text.iter().any(|m| m.contains("did you mean early_start?")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|m| m == "split_mode must be an int, not \"4\": torch_npu raises RuntimeError"),
            "{text:?}"
        );
        assert!(
            text.iter().any(|m| m.contains("keeps the default 1")),
            "{text:?}"
        );
        assert!(text.iter().any(|m| m.contains("still fuses")), "{text:?}");
        assert!(text.iter().any(|m| m.contains("starts with *")), "{text:?}");
        assert!(text.iter().any(|m| m.contains("outside A-Z")), "{text:?}");
        // opt_extend: the newer runtime's keys said, an unknown one shown, nothing rejected.
        let c = checked(json!({"opt_extend": "simt_op_support=1:future_knob=2"}));
        assert!(c.ok());
        let text: Vec<&str> = c.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert!(
            text.iter().any(|m| m.contains("sk_entry_*_simt")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|m| m.contains("future_knob=2: unknown to skope")),
            "{text:?}"
        );
        let graph = from_model(&[(
            GRAPH_EXTEND.to_string(),
            r#"{"mix_kernel_split":["1"],"simt_op_support":["0"]}"#.to_string(),
        )]);
        assert_eq!(
            graph.get("opt_extend"),
            Some(&json!("mix_kernel_split=1:simt_op_support=0"))
        );
        // A debug key in optimize_options.
        let c = checked(json!({"optimize_options": {"debug_sync_all": 1}, "debug_options": {}}));
        assert!(
            c.diagnostics[0]
                .message
                .contains("belongs in debug_options")
        );
    }
}
