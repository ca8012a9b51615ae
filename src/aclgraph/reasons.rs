//! The aclgraph pass's reasons in words: why a task was not fused (`FusionFailReason`, with
//! the bind-map and deadlock sub-reasons) and why a scope was cut (`ScopeBreakReason`).
//! Facts: reference/aclgraph_superkernel.md §3.2–3.3 (graph-autofusion `aot/sk_node.h`,
//! `sk_node.cpp`, `sk_lock_detector.h`, `sk_scope_info.h`).

pub use crate::reason_text::ReasonText;

/// The pass's `FusionFailReason` keys (ids 0–17), in id order.
pub const FAIL_REASONS: &[ReasonText] = &[
    ReasonText {
        key: "CAN_FUSE",
        meaning: "nothing recorded against it",
        action: "",
    },
    ReasonText {
        key: "OP_UNSUPPORT",
        meaning: "its binary has no usable SuperKernel sub-kernel table",
        action: "inspect the task in sk_node_detail.log and its kernel: a custom kernel must \
                 be built with SuperKernel support (static kernel compile passes \
                 --enable_super_kernel); else leave it out of the scope",
    },
    ReasonText {
        key: "DYNAMIC_TASK_UNSUPPORT",
        meaning: "the task is refreshed at run time (it belongs to a task group)",
        action: "exclude the op that changes its task at run time from the scope, or adapt \
                 it so its task is fixed at capture",
    },
    ReasonText {
        key: "NOT_IN_SCOPE",
        meaning: "outside every named scope (named scopes exist, so only their tasks fuse)",
        action: "put it between super_kernel_scope_begin/end of a named scope to fuse it",
    },
    ReasonText {
        key: "IN_UNFUSIBLE_SCOPE",
        meaning: "inside an unnamed scope, which excludes its tasks from fusion",
        action: "end the unnamed (None) scope before it to let it fuse",
    },
    ReasonText {
        key: "EXCEED_CORE_MAX",
        meaning: "needs more cores than the device has (the pass never sets this)",
        action: "",
    },
    ReasonText {
        key: "RESET_TYPE_NODE",
        meaning: "an event reset: resets are never fused",
        action: "nothing to do: it stays a plain task",
    },
    ReasonText {
        key: "ISOLATED_EVENT",
        meaning: "within its scope this stream holds only sync tasks, which would be alone",
        action: "nothing to do unless kernels of that stream belong in the scope",
    },
    ReasonText {
        key: "EXIST_DEADLOCK",
        meaning: "fusing it could hang (the deadlock check rejected it)",
        action: "see the deadlock sub-reason; moving the notifying task into the scope or \
                 ending the scope before the wait avoids it",
    },
    ReasonText {
        key: "SCOPE_FUSE_PART",
        meaning: "its whole scope was dropped after splitting (see the status)",
        action: "see the status: a scope with no kernel or without free task slots is not \
                 launched",
    },
    ReasonText {
        key: "EXTERNAL_DEPEND",
        meaning: "the event is shared outside the graph (non-default flag or external event)",
        action: "use a graph-internal event, or keep the task out of the scope",
    },
    ReasonText {
        key: "UNSUPPORT_EVENT_TYPE",
        meaning: "an event task of a kind the pass does not know",
        action: "the whole optimize likely failed: check super_kernel.log",
    },
    ReasonText {
        key: "MEMORY_WAIT_NODE_ONLY",
        meaning: "a value wait without a writer (the pass never sets this)",
        action: "",
    },
    ReasonText {
        key: "MEMORY_WRITE_NODE_ONLY",
        meaning: "a value write without a waiter (the pass never sets this)",
        action: "",
    },
    ReasonText {
        key: "DEFAULT_NODE",
        meaning: "a non-kernel task (AI CPU or other resource) on a stream with kernels in \
                  the scope",
        action: "move it out of the scope, or let task_breaker_bypass drop it",
    },
    ReasonText {
        key: "SIMT_OP_UNSUPPORT",
        meaning: "a SIMT kernel: SIMT ops are not fused",
        action: "keep it out of the scope",
    },
    ReasonText {
        key: "KERNEL_ATTR_GET_FAILED",
        meaning: "a run-time query of the kernel's attributes failed",
        action: "check super_kernel.log for the failed query",
    },
    ReasonText {
        key: "EXCEED_SCOPE_MAX",
        meaning: "more than 1024 scope names: later scopes are not fused",
        action: "reduce scope-name pressure: reuse scope names (a name used again keeps its \
                 bit)",
    },
];

/// A reason key the pass wrote that skope does not know.
pub const UNKNOWN_REASON: ReasonText = ReasonText {
    key: "UNKNOWN",
    meaning: "a reason skope does not know (the pass's detail says more)",
    action: "",
};

/// The bind-map sub-reasons of `OP_UNSUPPORT`.
pub const BINDMAP_REASONS: &[(&str, &str)] = &[
    (
        "BINDMAP_INIT_EMPTY",
        "the kernel was not built for SuperKernel (no SK info in the binary) (inferred)",
    ),
    ("BINHDL_NULL", "the binary handle is null"),
    ("FUNCHDL_NULL", "the function handle is null"),
    (
        "FUNC_NOT_FOUND",
        "neither its AIC nor its AIV entry is in the bind map",
    ),
    (
        "BIN_DEV_ADDR_GET_FAILED",
        "the binary's device address could not be read",
    ),
    (
        "FUNC_ADDR_GET_FAILED",
        "the function's address could not be read",
    ),
    (
        "BINDMAP_ENTRY_CONFLICT",
        "a global function appears twice with different values",
    ),
    (
        "BINDMAP_CAP_INCONSISTENT",
        "its AIC and AIV capability words differ",
    ),
    (
        "BIN_HOST_ADDR_GET_FAILED",
        "the binary's host buffer could not be read",
    ),
];

/// The deadlock sub-reasons of `EXIST_DEADLOCK`.
pub const DEADLOCK_REASONS: &[(&str, &str)] = &[
    (
        "FIRST_WAIT",
        "the scope starts with a wait, which is peeled off",
    ),
    (
        "NOTIFY_NOT_IN_GRAPH",
        "the matching notify is not in the model",
    ),
    (
        "NOTIFY_AFTER_SK_RANGE",
        "the notify comes later on a stream inside the SuperKernel",
    ),
    (
        "NOTIFY_INSUFFICIENT_CORES",
        "the notify needs more cores than are free",
    ),
    (
        "NOTIFY_INVALID",
        "the notify lookup failed, or a notify inside the SuperKernel claims cores",
    ),
    ("NO_SUPPORT_NODE", "a task of an unexpected type"),
    (
        "KERNEL_INSUFFICIENT_CORES",
        "a kernel outside the SuperKernel it depends on lacks cores",
    ),
];

/// The statuses of a dropped scope (`SCOPE_FUSE_PART [status]`), which the logs also give as
/// a task's or a scope's reason.
pub const SCOPE_STATUSES: &[ReasonText] = &[
    ReasonText {
        key: "NO_TARGET_NODE",
        meaning: "no kernel was left in the scope",
        action: "nothing to fuse: put kernels in the scope or drop it",
    },
    ReasonText {
        key: "RESOURCE_INSUFFICIENT",
        meaning: "too few task slots for the syncs of its extra streams",
        action: "test one resource boundary at a time: fewer streams in the scope, or a \
                 smaller scope",
    },
    ReasonText {
        key: "UNRECOVERABLE_FAIL",
        meaning: "post-processing failed; the optimize aborts",
        action: "check super_kernel.log for the failure",
    },
    ReasonText {
        key: "SUCCESS",
        meaning: "the scope was fused",
        action: "",
    },
];

/// `ScopeBreakReason` values: why a scope was cut where it was, and what to do about it.
pub const BREAK_REASONS: &[ReasonText] = &[
    ReasonText {
        key: "NONE",
        meaning: "the scope's bit set changed, or its streams ended",
        action: "see the pass's detail",
    },
    ReasonText {
        key: "UNFUSIBLE_NODE",
        meaning: "an unfusible task cut the scope",
        action: "the task's own fail reason says what to do: fix or exclude that task",
    },
    ReasonText {
        key: "DEADLOCK_DETECTED",
        meaning: "the deadlock check split the scope at a wait",
        action: "keep the wait/notify order; isolate the waiting part in a scope of its \
                 own, or move the notifying task into the scope",
    },
    ReasonText {
        key: "SYNCALL_OP_DROP",
        meaning: "a ScheMode (all-core sync) kernel's core count dropped or rose",
        action: "a ScheMode kernel needs all the cores it starts with: put it in its own \
                 scope, or next to kernels of the same core count",
    },
    ReasonText {
        key: "DEBUG_PER_OP_MAX_CORE",
        meaning: "one SuperKernel per kernel: the per-op debug mode",
        action: "turn off debug_per_op_max_core_num to measure fused SuperKernels",
    },
];

/// Whose reasons these are, in words that read before "advice".
pub const WHOSE: &str = "the runtime pass's";

/// A reason the logs give by number only.
pub const NUMBERED_REASON: ReasonText = ReasonText {
    key: "NUMBERED",
    meaning: NUMBERED,
    action: "",
};

/// The words of reason `key`: the pass's, else those of a number or an unknown key.
pub fn words(key: &str) -> &'static ReasonText {
    match fail_reason(key) {
        Some(text) => text,
        None if matches!(name(key), Named::Number(_)) => &NUMBERED_REASON,
        None => &UNKNOWN_REASON,
    }
}

/// The pass's fail reason `key` as a verdict's reason (an unknown key as such).
pub fn fail_verdict(key: &str) -> crate::fusion::verdict::Reason {
    crate::fusion::verdict::Reason::Foreign {
        text: words(key),
        whose: WHOSE,
    }
}

/// The pass's scope break reason `key` as a break's reason.
pub fn break_verdict(key: &str) -> crate::fusion::plan::BreakReason {
    crate::fusion::plan::BreakReason::Foreign {
        text: words(key),
        whose: WHOSE,
    }
}

/// What reason `key` means, when it is one of the pass's: a fail reason, else a break reason
/// or a scope status (the logs give those as a task's reason too).
pub fn fail_reason(key: &str) -> Option<&'static ReasonText> {
    FAIL_REASONS
        .iter()
        .chain(BREAK_REASONS)
        .chain(SCOPE_STATUSES)
        .find(|r| r.key == key)
}

/// The free-text forms of reasons the logs write, and their keys (reference §9.3).
const FREE_TEXT: &[(&str, &str)] = &[
    ("there exists unfusible node in scope", "UNFUSIBLE_NODE"),
    ("there exists deadlock in scope", "DEADLOCK_DETECTED"),
    ("core count of syncall", "SYNCALL_OP_DROP"),
    ("per-op debug mode", "DEBUG_PER_OP_MAX_CORE"),
    (
        "does not support the operation of fusing superkernel",
        "OP_UNSUPPORT",
    ),
    (
        "refresh task information at runtime",
        "DYNAMIC_TASK_UNSUPPORT",
    ),
    (
        "actively marked that this operator is not fused",
        "IN_UNFUSIBLE_SCOPE",
    ),
    ("not within user-marked", "NOT_IN_SCOPE"),
    ("insufficient resources", "RESOURCE_INSUFFICIENT"),
    ("exceeded maximum scope", "EXCEED_SCOPE_MAX"),
];

/// A reason as a log gives it, named: its key, a key read from its free text, or a number
/// without a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Named {
    /// A key (known or not) as written.
    Key(String),
    /// A key read from the log's words, which are kept.
    FromText {
        /// The key.
        key: &'static str,
        /// The log's words.
        text: String,
    },
    /// A number: runtimes number the reasons differently (one has no `SIMT_OP_UNSUPPORT` and
    /// renumbers what follows), so a number is never read as a reason.
    Number(String),
}

impl Named {
    /// The key to show: the key, or the number as written.
    pub fn key(&self) -> String {
        match self {
            Named::Key(k) | Named::Number(k) => k.clone(),
            Named::FromText { key, .. } => key.to_string(),
        }
    }
}

/// Names the reason `text` of a log line (reference §9.2–9.3): by key, else by its free text,
/// and a bare number stays a number.
pub fn name(text: &str) -> Named {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Named::Number(text.to_string());
    }
    let is_key = text
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if is_key {
        return Named::Key(text.to_string());
    }
    let lower = text.to_ascii_lowercase();
    match FREE_TEXT.iter().find(|(words, _)| lower.contains(words)) {
        Some(&(_, key)) => Named::FromText {
            key,
            text: text.to_string(),
        },
        None => Named::Key(text.to_string()),
    }
}

/// What a reason number means: nothing skope can say.
pub const NUMBERED: &str = "a reason given by number only: runtimes number reasons \
                            differently (one has no SIMT_OP_UNSUPPORT and renumbers what \
                            follows), so skope does not map numbers to reasons; the pass's \
                            detail says more";

/// The meaning of sub-reason `sub` of fail reason `key` (bind-map, deadlock or scope status).
pub fn sub_reason(key: &str, sub: &str) -> Option<&'static str> {
    let table = match key {
        "OP_UNSUPPORT" => BINDMAP_REASONS,
        "EXIST_DEADLOCK" => DEADLOCK_REASONS,
        "SCOPE_FUSE_PART" => {
            return SCOPE_STATUSES
                .iter()
                .find(|r| r.key == sub)
                .map(|r| r.meaning);
        }
        _ => return None,
    };
    table.iter().find(|(k, _)| *k == sub).map(|(_, m)| *m)
}

pub use crate::graph::ATTR_BREAK;

/// `reason` (`KEY` or `KEY [SUB]`) in words: the meaning, the sub-reason's meaning, and an
/// unknown key said as such.
pub fn describe(key: &str, sub: Option<&str>) -> String {
    let mut text = match fail_reason(key) {
        Some(r) => r.meaning.to_string(),
        None if matches!(name(key), Named::Number(_)) => format!("reason {key}: {NUMBERED}"),
        None => format!("{key} (a reason skope does not know)"),
    };
    if let Some(sub) = sub {
        match sub_reason(key, sub) {
            Some(meaning) => text.push_str(&format!(": {meaning}")),
            None => text.push_str(&format!(": {sub}")),
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_has_its_key_in_order() {
        assert_eq!(FAIL_REASONS.len(), 18);
        assert_eq!(FAIL_REASONS[1].key, "OP_UNSUPPORT");
        assert_eq!(FAIL_REASONS[17].key, "EXCEED_SCOPE_MAX");
        // The logs' detail texts for 3 and 4 are swapped; skope goes by the key.
        assert!(describe("NOT_IN_SCOPE", None).starts_with("outside every named scope"));
        assert!(describe("OP_UNSUPPORT", Some("BINDMAP_INIT_EMPTY")).contains("not built for"));
        assert!(describe("NEW_REASON", Some("X")).contains("does not know"));
        assert!(describe("15", None).contains("does not map numbers"));
    }

    #[test]
    fn reasons_are_named_by_key_or_words_never_by_number() {
        assert_eq!(name("OP_UNSUPPORT"), Named::Key("OP_UNSUPPORT".into()));
        assert_eq!(name(" 15 "), Named::Number("15".into()));
        assert_eq!(
            name("There exists unfusible node in scope").key(),
            "UNFUSIBLE_NODE"
        );
        assert_eq!(
            name("Exceeded maximum scope num 1024").key(),
            "EXCEED_SCOPE_MAX"
        );
        assert_eq!(name("something new").key(), "something new");
        // Every key of the team's vocabulary (reference §9.3) has words.
        for key in [
            "NOT_IN_SCOPE",
            "IN_UNFUSIBLE_SCOPE",
            "EXCEED_CORE_MAX",
            "EXCEED_SCOPE_MAX",
            "OP_UNSUPPORT",
            "DYNAMIC_TASK_UNSUPPORT",
            "SIMT_OP_UNSUPPORT",
            "UNFUSIBLE_NODE",
            "DEADLOCK_DETECTED",
            "SYNCALL_OP_DROP",
            "DEBUG_PER_OP_MAX_CORE",
            "RESOURCE_INSUFFICIENT",
            "EXTERNAL_DEPEND",
            "EXIST_DEADLOCK",
            "ISOLATED_EVENT",
            "KERNEL_ATTR_GET_FAILED",
            "NO_TARGET_NODE",
            "UNRECOVERABLE_FAIL",
            "SUCCESS",
        ] {
            assert!(fail_reason(key).is_some(), "{key}");
        }
    }
}
