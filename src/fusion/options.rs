//! The SuperKernel options string (`k1=v1:k2=v2`): a typed schema of every option and a parser
//! that reports what the SuperKernel compiler reports, and more.
//!
//! The schema ([`SCHEMA`]) is the single source for validation, defaults and help text. Facts:
//! reference/ascend_superkernel.md §3.1–§3.3 (the compiler's `super_kernel_option_parse.py`
//! and GE's own `strict-scope-check` check).

use super::Severity;
use std::fmt::Write as _;
use std::ops::Range;

/// Prefix of every option error the SuperKernel compiler raises (error code EB0500).
const GE_PREFIX: &str = "[Super Kernel] Invalid compile option: ";

/// One allowed value of a choice option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The value as written in the options string.
    pub value: &'static str,
    /// What it selects.
    pub meaning: &'static str,
}

/// What values an option takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionKind {
    /// One of a fixed set of values.
    Choice(&'static [Choice]),
    /// `0` or a power of two ≥ 2 (the compiler's `CodeTextAlignParser`).
    Alignment,
    /// An integer in `1..=64` (`NumberParser`).
    SplitCount,
    /// A positive integer (`BlockNumParser`).
    CoreCount,
    /// A non-empty comma-separated list (`NonEmptyParser`).
    List,
}

/// One SuperKernel option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OptionSpec {
    /// The key, e.g. `early-start`.
    pub key: &'static str,
    /// The values it takes.
    pub kind: OptionKind,
    /// The value in effect when the option is not given, in words.
    pub default: &'static str,
    /// What the option does.
    pub meaning: &'static str,
    /// True when the CANN/TorchAir documentation describes it; false when only the compiler
    /// code has it.
    pub documented: bool,
}

const BINARY_OFF_ON: &[Choice] = &[
    Choice {
        value: "0",
        meaning: "off",
    },
    Choice {
        value: "1",
        meaning: "on",
    },
];

/// Every option the SuperKernel compiler accepts, in canonical order.
pub const SCHEMA: &[OptionSpec] = &[
    OptionSpec {
        key: "stream-fusion",
        kind: OptionKind::Choice(&[
            Choice {
                value: "0",
                meaning: "single stream",
            },
            Choice {
                value: "1",
                meaning: "ops on several streams, separate AIC/AIV task queues (forces early-start off)",
            },
        ]),
        default: "0",
        meaning: "Let the SuperKernel's ops run on several streams (two-stream code generation).",
        documented: true,
    },
    OptionSpec {
        key: "strict-scope-check",
        kind: OptionKind::Choice(&[
            Choice {
                value: "bypass",
                meaning: "warn and give this scope no SuperKernel at all",
            },
            Choice {
                value: "abort",
                meaning: "fail the build at the first op that breaks the scope",
            },
        ]),
        default: "unset (split automatically)",
        meaning: "What GE does when an op breaks the scope.",
        documented: true,
    },
    OptionSpec {
        key: "feed-sync-all",
        kind: OptionKind::Choice(BINARY_OFF_ON),
        default: "0",
        meaning: "Insert SyncAll on idle cores when a sub-op uses SyncAll with fewer cores than \
                  the SuperKernel, so it does not hang (adds a workspace).",
        documented: true,
    },
    OptionSpec {
        key: "dcci-before-kernel-start",
        kind: OptionKind::List,
        default: "none",
        meaning: "Op types whose GlobalTensor accesses get no automatic dcci; the whole data \
                  cache is flushed before the call instead.",
        documented: true,
    },
    OptionSpec {
        key: "dcci-after-kernel-end",
        kind: OptionKind::List,
        default: "none",
        meaning: "Op types whose GlobalTensor accesses get no automatic dcci; the whole data \
                  cache is flushed after the call instead.",
        documented: true,
    },
    OptionSpec {
        key: "dcci-disable-on-kernel",
        kind: OptionKind::List,
        default: "none",
        meaning: "Op types that get neither automatic dcci nor flushes around the call.",
        documented: true,
    },
    OptionSpec {
        key: "debug-aic-num",
        kind: OptionKind::CoreCount,
        default: "unset (from the sub-ops)",
        meaning: "Force the SuperKernel's AIC core count.",
        documented: true,
    },
    OptionSpec {
        key: "debug-aiv-num",
        kind: OptionKind::CoreCount,
        default: "unset (from the sub-ops)",
        meaning: "Force the SuperKernel's AIV core count; with debug-aic-num the ratio must be \
                  1:0, 0:1, 1:1 or 1:2.",
        documented: true,
    },
    OptionSpec {
        key: "early-start",
        kind: OptionKind::Choice(&[
            Choice {
                value: "0",
                meaning: "off: full sync between sub-ops",
            },
            Choice {
                value: "1",
                meaning: "on (V2): SetNextTaskStart / WaitPreTaskEnd between sub-ops",
            },
            Choice {
                value: "2",
                meaning: "V2 with sub-kernel early start disabled",
            },
        ]),
        default: "1 (on, V2)",
        meaning: "Barrier between consecutive sub-ops.",
        documented: false,
    },
    OptionSpec {
        key: "preload-code",
        kind: OptionKind::Choice(&[
            Choice {
                value: "max",
                meaning: "preload the whole SuperKernel once at entry",
            },
            Choice {
                value: "none",
                meaning: "no instruction preload",
            },
            Choice {
                value: "per-func",
                meaning: "preload the current and next sub-kernel",
            },
        ]),
        default: "per-func",
        meaning: "Instruction-cache preload.",
        documented: false,
    },
    OptionSpec {
        key: "split-mode",
        kind: OptionKind::SplitCount,
        default: "4",
        meaning: "Copies of each sub-kernel binary; a core runs copy `coreid % N`.",
        documented: false,
    },
    OptionSpec {
        key: "func-align",
        kind: OptionKind::Alignment,
        default: "512",
        meaning: "Alignment in bytes of the SuperKernel entry function.",
        documented: false,
    },
    OptionSpec {
        key: "debug-dcci-all",
        kind: OptionKind::Choice(BINARY_OFF_ON),
        default: "0",
        meaning: "After every sub-op: pipe barrier and flush of the whole data cache.",
        documented: false,
    },
    OptionSpec {
        key: "debug-sync-all",
        kind: OptionKind::Choice(BINARY_OFF_ON),
        default: "0",
        meaning: "After every sub-op: a full-core sync.",
        documented: false,
    },
    OptionSpec {
        key: "profiling",
        kind: OptionKind::Choice(BINARY_OFF_ON),
        default: "0",
        meaning: "Emit profiling records around every sub-op.",
        documented: false,
    },
    OptionSpec {
        key: "compile-options",
        kind: OptionKind::List,
        default: "none",
        meaning: "Extra compiler flags for the SuperKernel compile, comma-separated.",
        documented: false,
    },
];

/// Keys the compiler reads internally but has no parser for, so giving them is an error.
const UNSETTABLE: &[&str] = &["link-mode", "preload-data"];

/// `text` with option `key` set to `value`, or removed when `value` is `None`. The other parts
/// stay as written (in order, even ones with problems); a new option goes at the end.
pub fn set_option(text: &str, key: &str, value: Option<&str>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut found = false;
    for part in text.split(':') {
        let trimmed = part.trim();
        if trimmed.is_empty() {
            continue;
        }
        let part_key = trimmed.split_once('=').map_or(trimmed, |(k, _)| k).trim();
        if unquote(part_key) == key {
            if let (Some(v), false) = (value, found) {
                parts.push(format!("{key}={v}"));
            }
            found = true;
        } else {
            parts.push(trimmed.to_string());
        }
    }
    if let (Some(v), false) = (value, found) {
        parts.push(format!("{key}={v}"));
    }
    parts.join(":")
}

/// The schema entry for `key`.
pub fn spec(key: &str) -> Option<&'static OptionSpec> {
    SCHEMA.iter().find(|s| s.key == key)
}

/// A value that passed validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    /// A choice, as its canonical text.
    Choice(&'static str),
    /// A number.
    Number(u64),
    /// A comma list, items trimmed, empty items dropped.
    List(Vec<String>),
}

impl std::fmt::Display for OptionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionValue::Choice(v) => f.write_str(v),
            OptionValue::Number(n) => write!(f, "{n}"),
            OptionValue::List(items) => f.write_str(&items.join(",")),
        }
    }
}

/// A problem found in an options string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionDiagnostic {
    /// `Error`: the SuperKernel compile fails; `Warning`: the part is skipped.
    pub severity: Severity,
    /// The key of the offending part as written (empty when the part has none).
    pub key: String,
    /// Byte range of the offending `k=v` part in the options string.
    pub span: Range<usize>,
    /// What is wrong and what to write instead.
    pub message: String,
    /// The message GE or the SuperKernel compiler prints for it, word for word.
    pub ge_message: String,
}

/// How GE handles a break in a scope (`strict-scope-check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrictScopeCheck {
    /// Warn and give the scope no SuperKernel.
    Bypass,
    /// Fail the build.
    Abort,
}

/// The key GE's SuperKernel pass reads from the options itself.
pub const STRICT_SCOPE_CHECK: &str = "strict-scope-check";

/// A `strict-scope-check` value GE rejects: its pass fails the whole graph build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidCheck {
    /// The value exactly as GE read it (untrimmed; possibly empty).
    pub value: String,
}

impl InvalidCheck {
    /// GE's message for it, word for word (`SuperKernelPass::ParseSuperKernelOptions`).
    pub fn ge_message(&self) -> String {
        format!(
            "options {STRICT_SCOPE_CHECK}, value {} is invalid, only support bypass or abort",
            self.value
        )
    }

    /// What the SuperKernel compiler would say of it, when it would say something: it rejects
    /// only the empty value (any other value passes its non-empty check).
    pub fn compiler_message(&self) -> Option<String> {
        self.value.trim().is_empty().then(|| {
            format!(
                "{GE_PREFIX}The key-value pair is missing for the option {STRICT_SCOPE_CHECK}=."
            )
        })
    }
}

/// `strict-scope-check` as GE's SuperKernel pass reads it from an op's options string, which
/// it does before the compiler sees the string and differently: parts split on `:`, each part
/// split on every `=` and used only when that gives exactly two pieces, nothing trimmed, no
/// quotes removed; a later part overrides an earlier one; a value other than `bypass` or
/// `abort` (the empty value too) fails the build at once. So ` strict-scope-check=abort`
/// (a leading space) is ignored by GE, and `strict-scope-check="abort"` fails the build.
pub fn ge_strict_scope_check(text: &str) -> Result<Option<StrictScopeCheck>, InvalidCheck> {
    let mut check = None;
    for part in text.split(':') {
        let mut pieces = part.split('=');
        let (Some(key), Some(value), None) = (pieces.next(), pieces.next(), pieces.next()) else {
            continue;
        };
        if key != STRICT_SCOPE_CHECK {
            continue;
        }
        check = Some(match value {
            "bypass" => StrictScopeCheck::Bypass,
            "abort" => StrictScopeCheck::Abort,
            _ => {
                return Err(InvalidCheck {
                    value: value.to_string(),
                });
            }
        });
    }
    Ok(check)
}

/// A parsed options string: the valid options in the order given, and every problem found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkOptions {
    values: Vec<(&'static OptionSpec, OptionValue)>,
    diagnostics: Vec<OptionDiagnostic>,
    /// Problems found past [`MAX_DIAGNOSTICS`], counted.
    omitted: usize,
    /// True once a problem has listed the known options (later ones point to it).
    listed_known: bool,
}

/// Problems an options string keeps in words; the rest are counted (a string of thousands of
/// broken parts would otherwise hold a message for each, hundreds of times its size). The
/// first error is kept whatever its place: the compile fails on it.
pub const MAX_DIAGNOSTICS: usize = 32;

impl SkOptions {
    /// Parses `text` the way the SuperKernel compiler does: parts split on `:`, then on the
    /// first `=`, whitespace and surrounding quotes trimmed. Unlike the compiler, which stops
    /// at the first error, every problem is collected.
    pub fn parse(text: &str) -> SkOptions {
        let mut out = SkOptions::default();
        let mut start = 0;
        for part in text.split(':') {
            let span = start..start + part.len();
            start = span.end + 1;
            let pair = part.trim();
            if !pair.is_empty() {
                out.parse_part(pair, span);
            }
        }
        out
    }

    fn parse_part(&mut self, pair: &str, span: Range<usize>) {
        let Some((key, value)) = pair.split_once('=') else {
            self.diagnose(
                Severity::Warning,
                ("", span),
                format!("'{pair}' has no '=' and is ignored; write key=value"),
                format!("Invalid compile option: {pair} do not match option={{value}}."),
            );
            return;
        };
        let key = unquote(key.trim());
        let value = unquote(value.trim());
        let at = (key, span);
        if key.is_empty() || value.is_empty() {
            let missing = if key.is_empty() { "key" } else { "value" };
            let compiler =
                format!("{GE_PREFIX}The key-value pair is missing for the option {pair}.");
            let (message, ge_message) = if key == STRICT_SCOPE_CHECK {
                // GE reads the empty value first and fails the whole build; the compiler,
                // which never runs then, would reject it too.
                (
                    format!(
                        "{key} has no value: GE fails the whole graph build; write \
                         {key}=bypass or {key}=abort, or leave it out"
                    ),
                    format!(
                        "GE: {}; SuperKernel compiler: {compiler}",
                        InvalidCheck {
                            value: String::new()
                        }
                        .ge_message()
                    ),
                )
            } else {
                (
                    format!("'{pair}' has no {missing}; write key=value"),
                    compiler,
                )
            };
            self.diagnose(Severity::Error, at, message, ge_message);
            return;
        }
        if self.values.iter().any(|(s, _)| s.key == key) {
            self.diagnose(
                Severity::Error,
                at,
                format!("{key} is given twice; keep one"),
                format!("{GE_PREFIX}{key} option has been set."),
            );
            return;
        }
        let Some(spec) = spec(key) else {
            let listed = std::mem::replace(&mut self.listed_known, true);
            self.diagnose(
                Severity::Error,
                at,
                unknown_key_message(key, listed),
                format!("{GE_PREFIX}{key} option is not supported."),
            );
            return;
        };
        match check_value(spec, value) {
            Ok(v) => self.values.push((spec, v)),
            Err((message, ge_message)) => self.diagnose(Severity::Error, at, message, ge_message),
        }
    }

    fn diagnose(
        &mut self,
        severity: Severity,
        (key, span): (&str, Range<usize>),
        message: String,
        ge: String,
    ) {
        let first_error = severity == Severity::Error
            && self
                .diagnostics
                .iter()
                .all(|d| d.severity != Severity::Error);
        if self.diagnostics.len() >= MAX_DIAGNOSTICS && !first_error {
            self.omitted += 1;
            return;
        }
        self.diagnostics.push(OptionDiagnostic {
            severity,
            key: key.to_string(),
            span,
            message,
            ge_message: ge,
        });
    }

    /// The problems found, in string order: at most [`MAX_DIAGNOSTICS`] (and the first
    /// error).
    pub fn diagnostics(&self) -> &[OptionDiagnostic] {
        &self.diagnostics
    }

    /// Problems found beyond those [`SkOptions::diagnostics`] keeps.
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// The first error: the one the SuperKernel compile would fail on.
    pub fn first_error(&self) -> Option<&OptionDiagnostic> {
        self.diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
    }

    /// The valid options, in the order given.
    pub fn values(&self) -> impl Iterator<Item = (&'static OptionSpec, &OptionValue)> {
        self.values.iter().map(|(s, v)| (*s, v))
    }

    /// The value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&OptionValue> {
        self.values
            .iter()
            .find(|(s, _)| s.key == key)
            .map(|(_, v)| v)
    }

    fn number(&self, key: &str) -> u64 {
        match self.get(key) {
            Some(OptionValue::Number(n)) => *n,
            _ => 0,
        }
    }

    /// `debug-aic-num`, 0 when not given.
    pub fn debug_aic_num(&self) -> u64 {
        self.number("debug-aic-num")
    }

    /// `debug-aiv-num`, 0 when not given.
    pub fn debug_aiv_num(&self) -> u64 {
        self.number("debug-aiv-num")
    }

    /// The canonical string: valid options in schema order, `key=value` joined by `:`.
    /// Parsing it again gives the same options and no diagnostics.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        for spec in SCHEMA {
            if let Some(v) = self.get(spec.key) {
                if !out.is_empty() {
                    out.push(':');
                }
                let _ = write!(out, "{}={v}", spec.key);
            }
        }
        out
    }
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .map(str::trim)
        .unwrap_or(s)
}

/// What to say of the unknown option `key`: the nearest known one, or every known one (unless
/// `listed`: an earlier problem of the string listed them).
fn unknown_key_message(key: &str, listed: bool) -> String {
    if UNSETTABLE.contains(&key) {
        return format!(
            "{key} is read by the SuperKernel compiler but cannot be set (it has no option parser)"
        );
    }
    let nearest = SCHEMA
        .iter()
        .map(|s| (crate::text::edit_distance(key, s.key), s.key))
        .min()
        .filter(|(d, _)| *d <= 3.max(key.len() / 4));
    match nearest {
        Some((_, near)) => format!("unknown option {key}; did you mean {near}?"),
        None if listed => format!("unknown option {key} (the known options are listed above)"),
        None => format!(
            "unknown option {key}; known options: {}",
            SCHEMA.iter().map(|s| s.key).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Checks `value` against `spec`, returning the typed value or (our message, GE's message).
/// Checks `value` for option `spec` as the compiler does: the value, or our message and the
/// compiler's own wording.
pub fn check_value(
    spec: &'static OptionSpec,
    value: &str,
) -> Result<OptionValue, (String, String)> {
    let key = spec.key;
    // Returns the number (saturated: more digits than u64 holds is still "a digit" to the
    // compiler, just too large) and its text as the compiler prints it (no leading zeros).
    let digits = |value: &str| -> Result<(u64, String), (String, String)> {
        if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
            return Err((
                format!("{key} takes a whole number, not '{value}'"),
                format!("{GE_PREFIX}{key} option should be a digit, {value} is invalid."),
            ));
        }
        let shown = value.trim_start_matches('0');
        let shown = if shown.is_empty() { "0" } else { shown };
        Ok((value.parse::<u64>().unwrap_or(u64::MAX), shown.to_string()))
    };
    match spec.kind {
        OptionKind::Choice(choices) => match choices.iter().find(|c| c.value == value) {
            Some(c) => Ok(OptionValue::Choice(c.value)),
            None => {
                let allowed: Vec<String> = choices
                    .iter()
                    .map(|c| format!("{} ({})", c.value, c.meaning))
                    .collect();
                let ge = if key == STRICT_SCOPE_CHECK {
                    InvalidCheck {
                        value: value.to_string(),
                    }
                    .ge_message()
                } else {
                    let keys: Vec<String> =
                        choices.iter().map(|c| format!("'{}'", c.value)).collect();
                    format!(
                        "{GE_PREFIX}{key} option should be one of dict_keys([{}]), {value} is invalid.",
                        keys.join(", ")
                    )
                };
                Err((
                    format!(
                        "{key}={value} is not allowed; use one of: {}",
                        allowed.join("; ")
                    ),
                    ge,
                ))
            }
        },
        OptionKind::Alignment => {
            let (n, shown) = digits(value)?;
            if n == 1 || !(n == 0 || n.is_power_of_two()) {
                return Err((
                    format!("{key} must be 0 or a power of two ≥ 2 (2, 4, 8, …), not {shown}"),
                    format!(
                        "{GE_PREFIX}{key} option should be [0, 2, 4, 8, ...], {shown} is invalid."
                    ),
                ));
            }
            Ok(OptionValue::Number(n))
        }
        OptionKind::SplitCount => {
            let (n, shown) = digits(value)?;
            if n == 0 || n > 64 {
                return Err((
                    format!("{key} must be between 1 and 64, not {shown}"),
                    format!("{GE_PREFIX}{key} option should between (0, 64], {shown} is invalid."),
                ));
            }
            Ok(OptionValue::Number(n))
        }
        OptionKind::CoreCount => {
            let (n, shown) = digits(value)?;
            if n == 0 {
                return Err((
                    format!(
                        "{key} must be a positive core count, not 0 (leave it out to keep the sub-ops' count)"
                    ),
                    format!(
                        "{GE_PREFIX}{key} option should be positive integer, {shown} is invalid."
                    ),
                ));
            }
            Ok(OptionValue::Number(n))
        }
        OptionKind::List => Ok(OptionValue::List(
            value
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        )),
    }
}

#[cfg(test)]
mod set_tests {
    use super::*;

    #[test]
    fn setting_an_option_keeps_the_rest_as_written() {
        assert_eq!(set_option("", "early-start", Some("0")), "early-start=0");
        assert_eq!(
            set_option(
                "stream-fusion=1: bogus :early-start=1",
                "early-start",
                Some("0")
            ),
            "stream-fusion=1:bogus:early-start=0"
        );
        assert_eq!(
            set_option("early-start=1:stream-fusion=1", "early-start", None),
            "stream-fusion=1"
        );
        assert_eq!(
            set_option("stream-fusion=1", "split-mode", Some("4")),
            "stream-fusion=1:split-mode=4"
        );
        // A duplicate is collapsed into the one value set.
        assert_eq!(
            set_option("early-start=1:early-start=2", "early-start", Some("0")),
            "early-start=0"
        );
        assert_eq!(
            set_option("\"early-start\"=1", "early-start", Some("2")),
            "early-start=2"
        );
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn thousands_of_broken_parts_keep_a_bounded_list_and_the_first_error() {
        // Warnings first (parts without '='), then one error far along.
        let text = format!("{}early-start=", "x:".repeat(5000));
        let o = SkOptions::parse(&text);
        assert_eq!(o.diagnostics().len(), MAX_DIAGNOSTICS + 1);
        assert_eq!(o.omitted(), 5000 - MAX_DIAGNOSTICS);
        let error = o.first_error().expect("the error is kept");
        assert!(error.message.contains("early-start"), "{error:?}");
    }
    use super::*;

    fn messages(text: &str) -> Vec<(Severity, String)> {
        SkOptions::parse(text)
            .diagnostics()
            .iter()
            .map(|d| (d.severity, d.message.clone()))
            .collect()
    }

    #[test]
    fn parses_valid_options_and_formats_them_canonically() {
        let o = SkOptions::parse(" early-start=0 : stream-fusion=1:split-mode=08:func-align=256 ");
        assert!(o.diagnostics().is_empty(), "{:?}", o.diagnostics());
        assert_eq!(o.get("split-mode"), Some(&OptionValue::Number(8)));
        assert_eq!(
            o.canonical(),
            "stream-fusion=1:early-start=0:split-mode=8:func-align=256"
        );
        assert_eq!(SkOptions::parse(&o.canonical()), {
            let mut again =
                SkOptions::parse("stream-fusion=1:early-start=0:split-mode=8:func-align=256");
            again.diagnostics.clear();
            again
        });
    }

    #[test]
    fn empty_and_blank_strings_give_no_options() {
        for text in ["", "   ", "::", " : "] {
            let o = SkOptions::parse(text);
            assert!(
                o.values().next().is_none() && o.diagnostics().is_empty(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn unknown_key_suggests_the_nearest() {
        let o = SkOptions::parse("stream-funsion=1");
        let d = &o.diagnostics()[0];
        assert_eq!(d.severity, Severity::Error);
        assert_eq!(
            d.message,
            "unknown option stream-funsion; did you mean stream-fusion?"
        );
        assert_eq!(
            d.ge_message,
            "[Super Kernel] Invalid compile option: stream-funsion option is not supported."
        );
        assert!(
            messages("zzzzzzzzzzzzzzzzzzzzzzzz=1")[0]
                .1
                .contains("known options: stream-fusion")
        );
        assert!(messages("link-mode=1")[0].1.contains("cannot be set"));
    }

    #[test]
    fn duplicate_key_is_an_error_and_the_first_value_stays() {
        let o = SkOptions::parse("early-start=0:early-start=1");
        assert_eq!(o.get("early-start"), Some(&OptionValue::Choice("0")));
        let d = o.first_error().map(|d| d.ge_message.as_str());
        assert_eq!(
            d,
            Some("[Super Kernel] Invalid compile option: early-start option has been set.")
        );
        assert_eq!(o.diagnostics()[0].span, 14..27);
    }

    #[test]
    fn part_without_equals_is_a_warning_and_skipped() {
        let o = SkOptions::parse("stream-fusion=1:oops");
        assert_eq!(o.get("stream-fusion"), Some(&OptionValue::Choice("1")));
        let d = &o.diagnostics()[0];
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(d.span, 16..20);
        assert_eq!(
            d.ge_message,
            "Invalid compile option: oops do not match option={value}."
        );
        assert!(o.first_error().is_none());
    }

    #[test]
    fn missing_key_or_value_is_an_error() {
        assert_eq!(messages("=1")[0].1, "'=1' has no key; write key=value");
        assert_eq!(
            SkOptions::parse("early-start=").diagnostics()[0].ge_message,
            "[Super Kernel] Invalid compile option: The key-value pair is missing for the option early-start=."
        );
    }

    #[test]
    fn bad_values_name_the_allowed_set_and_give_ge_wording() {
        let o = SkOptions::parse("early-start=3");
        let d = &o.diagnostics()[0];
        assert!(
            d.message
                .starts_with("early-start=3 is not allowed; use one of: 0 (off"),
            "{}",
            d.message
        );
        assert_eq!(
            d.ge_message,
            "[Super Kernel] Invalid compile option: early-start option should be one of dict_keys(['0', '1', '2']), 3 is invalid."
        );
        assert_eq!(
            SkOptions::parse("strict-scope-check=warn").diagnostics()[0].ge_message,
            "options strict-scope-check, value warn is invalid, only support bypass or abort"
        );
        let cases = [
            ("func-align=1", "should be [0, 2, 4, 8, ...], 1 is invalid."),
            (
                "func-align=96",
                "should be [0, 2, 4, 8, ...], 96 is invalid.",
            ),
            ("func-align=x", "should be a digit, x is invalid."),
            ("split-mode=0", "should between (0, 64], 0 is invalid."),
            ("split-mode=65", "should between (0, 64], 65 is invalid."),
            ("split-mode=-1", "should be a digit, -1 is invalid."),
            (
                "debug-aic-num=0",
                "should be positive integer, 0 is invalid.",
            ),
            (
                "split-mode=99999999999999999999999",
                "should between (0, 64], 99999999999999999999999 is invalid.",
            ),
        ];
        for (text, ge) in cases {
            let o = SkOptions::parse(text);
            let got = &o.diagnostics()[0].ge_message;
            assert!(got.ends_with(ge), "{text}: {got}");
        }
    }

    #[test]
    fn typed_accessors() {
        let o = SkOptions::parse("strict-scope-check=abort:debug-aic-num=24:debug-aiv-num=48");
        assert_eq!((o.debug_aic_num(), o.debug_aiv_num()), (24, 48));
        let none = SkOptions::parse("");
        assert_eq!((none.debug_aic_num(), none.debug_aiv_num()), (0, 0));
    }

    #[test]
    fn ge_reads_strict_scope_check_its_own_way() {
        use StrictScopeCheck::{Abort, Bypass};
        let invalid = |v: &str| {
            Err(InvalidCheck {
                value: v.to_string(),
            })
        };
        let cases = [
            ("", Ok(None)),
            ("stream-fusion=1", Ok(None)),
            ("strict-scope-check=abort", Ok(Some(Abort))),
            ("early-start=0:strict-scope-check=bypass", Ok(Some(Bypass))),
            // A later part overrides an earlier one.
            (
                "strict-scope-check=abort:strict-scope-check=bypass",
                Ok(Some(Bypass)),
            ),
            // Nothing is trimmed: a spaced key is not GE's key, a spaced value is invalid.
            (" strict-scope-check=abort", Ok(None)),
            ("strict-scope-check =abort", Ok(None)),
            ("strict-scope-check=abort ", invalid("abort ")),
            ("strict-scope-check=\"abort\"", invalid("\"abort\"")),
            // The empty value is a value; two '=' make three pieces, which GE skips.
            ("strict-scope-check=", invalid("")),
            ("strict-scope-check=:stream-fusion=1", invalid("")),
            ("strict-scope-check==abort", Ok(None)),
            (
                "strict-scope-check=warn:strict-scope-check=abort",
                invalid("warn"),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(ge_strict_scope_check(text), want, "{text:?}");
        }
        let empty = InvalidCheck {
            value: String::new(),
        };
        assert_eq!(
            empty.ge_message(),
            "options strict-scope-check, value  is invalid, only support bypass or abort"
        );
        assert_eq!(
            empty.compiler_message().as_deref(),
            Some(
                "[Super Kernel] Invalid compile option: The key-value pair is missing for the \
                 option strict-scope-check=."
            )
        );
        let warn = InvalidCheck {
            value: "warn".into(),
        };
        assert_eq!(warn.compiler_message(), None);
    }

    #[test]
    fn an_empty_strict_scope_check_names_ge_and_the_compiler() {
        let o = SkOptions::parse("strict-scope-check=");
        let d = &o.diagnostics()[0];
        assert_eq!(d.key, "strict-scope-check");
        assert!(
            d.message.contains("GE fails the whole graph build"),
            "{}",
            d.message
        );
        assert_eq!(
            d.ge_message,
            "GE: options strict-scope-check, value  is invalid, only support bypass or abort; \
             SuperKernel compiler: [Super Kernel] Invalid compile option: The key-value pair is \
             missing for the option strict-scope-check=."
        );
    }

    #[test]
    fn lists_are_trimmed_and_quotes_stripped() {
        let o = SkOptions::parse("compile-options=\"-g, -O2,\":dcci-before-kernel-start=MatMulV2");
        assert_eq!(
            o.get("compile-options"),
            Some(&OptionValue::List(vec!["-g".into(), "-O2".into()]))
        );
        assert_eq!(
            o.canonical(),
            "dcci-before-kernel-start=MatMulV2:compile-options=-g,-O2"
        );
    }

    #[test]
    fn schema_keys_are_unique_and_defaults_parse() {
        for (i, s) in SCHEMA.iter().enumerate() {
            assert!(SCHEMA[i + 1..].iter().all(|t| t.key != s.key), "{}", s.key);
            if let OptionKind::Choice(choices) = s.kind {
                let default = s.default.split(' ').next().unwrap_or_default();
                if !default.starts_with("unset") {
                    assert!(choices.iter().any(|c| c.value == default), "{}", s.key);
                }
            }
        }
    }
}
