//! Per-op verdicts: can GE's SuperKernel pass fuse this op, why not, and how do we know.
//!
//! GE's rule (reference/ascend_superkernel.md §4.1 step 2): ignored types are skipped; a
//! scoped op is unsupported if `(supportSuperKernel != 1 || local_memory_size > 0 ||
//! (tiling may run on AI CPU && !_tiling_sink_op && _op_ensure_reuse_binary)) && !_hccl`.
//! Dump attributes decide when the dump has them (evidence `dump`); otherwise the rules
//! table does (`rules`); otherwise the op is assumed fusible (`assumed`).

use crate::graph::{Graph, Op};
use crate::reason_text::ReasonText;
use serde::Serialize;
use std::borrow::Cow;

/// Why an op cannot be fused. A fixed vocabulary, shared by the UI, the report and the rules
/// files (as the snake_case codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// `supportSuperKernel` ≠ 1: a TBE, TIK or AI CPU kernel.
    NotAscendC,
    /// An AscendC type on the SuperKernel blacklist (MoeInitRoutingV2/V3/Quant on v220).
    Blacklisted,
    /// A SIMT op (`local_memory_size` > 0).
    Simt,
    /// Its tiling may run on AI CPU (no `_tiling_sink_op`, `_op_ensure_reuse_binary` set).
    TilingOnAicpu,
    /// A communication op outside the AllReduce/ReduceScatter/AllGather/AlltoAll whitelist.
    CommNotSupported,
    /// An op that runs on AI CPU (no AI Core kernel at all).
    AiCpu,
    /// A reason another fusion system gave, in its own table's words (the aclgraph pass's
    /// `FusionFailReason`, why MindSpore's graph kernel fusion left a kernel out): the backend
    /// that reads that system's output names it, so the core knows no backend. Never in rules
    /// files.
    Foreign {
        /// The reason's key, meaning and next step.
        text: &'static ReasonText,
        /// Whose reason it is, in words that read before "advice" (`the runtime pass's`).
        whose: &'static str,
    },
}

impl Reason {
    /// Every code, as written in rules files and JSON.
    pub const CODES: &[&str] = &[
        "not_ascendc",
        "blacklisted",
        "simt",
        "tiling_on_aicpu",
        "comm_not_supported",
        "ai_cpu",
    ];

    /// GE's reason with this code, as rules files write it (`None` for anything else).
    pub fn from_code(code: &str) -> Option<Reason> {
        Some(match code {
            "not_ascendc" => Reason::NotAscendC,
            "blacklisted" => Reason::Blacklisted,
            "simt" => Reason::Simt,
            "tiling_on_aicpu" => Reason::TilingOnAicpu,
            "comm_not_supported" => Reason::CommNotSupported,
            "ai_cpu" => Reason::AiCpu,
            _ => return None,
        })
    }

    /// The code, as written in rules files and JSON.
    pub fn code(self) -> &'static str {
        match self {
            Reason::NotAscendC => "not_ascendc",
            Reason::Blacklisted => "blacklisted",
            Reason::Simt => "simt",
            Reason::TilingOnAicpu => "tiling_on_aicpu",
            Reason::CommNotSupported => "comm_not_supported",
            Reason::AiCpu => "ai_cpu",
            Reason::Foreign { text, .. } => text.key,
        }
    }

    /// The reason in words.
    pub fn text(self) -> &'static str {
        match self {
            Reason::NotAscendC => "not an AscendC kernel (TBE/TIK/AI CPU)",
            Reason::Blacklisted => "type not adapted to SuperKernel",
            Reason::Simt => "SIMT op (local_memory_size > 0)",
            Reason::TilingOnAicpu => "tiling may run on AI CPU",
            Reason::CommNotSupported => {
                "communication op outside the AllReduce/ReduceScatter/AllGather/AlltoAll whitelist"
            }
            Reason::AiCpu => "runs on AI CPU, not on an AI Core kernel",
            Reason::Foreign { text, .. } => text.meaning,
        }
    }

    /// What the user can do about it. For GE's reasons this is a model change (the op's code
    /// moved out of the scope's span, or another implementation): no edit of scopes heals an
    /// op that cannot be fused between a scope's ops (`fix` checks that by planning).
    pub fn suggestion(self) -> &'static str {
        match self {
            Reason::NotAscendC => "give it an AscendC implementation",
            Reason::Blacklisted => "this type cannot be fused on A2/A3",
            Reason::Simt => "SIMT ops cannot be fused",
            Reason::TilingOnAicpu => "let its tiling sink to the device (_tiling_sink_op)",
            Reason::CommNotSupported => {
                "only AllReduce, ReduceScatter, AllGather and AlltoAll fuse"
            }
            Reason::AiCpu => "no AI CPU op joins a SuperKernel",
            Reason::Foreign { text, .. } => text.action,
        }
    }
}

/// What GE's SuperKernel pass does with an op.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Can be a sub-op of a SuperKernel.
    Fusible,
    /// Skipped by the pass: never a member, never a cut (Data, Const, Send/Recv…).
    Ignored,
    /// Cannot be fused; inside a scope it cuts the scope.
    Unsupported(Reason),
}

impl Verdict {
    /// `fusible`, `ignored` or `unsupported`: the word the docs and outputs use.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Fusible => "fusible",
            Verdict::Ignored => "ignored",
            Verdict::Unsupported(_) => "unsupported",
        }
    }

    /// The reason, for an unsupported verdict.
    pub fn reason(self) -> Option<Reason> {
        match self {
            Verdict::Unsupported(r) => Some(r),
            _ => None,
        }
    }
}

/// How a verdict is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Evidence {
    /// An attribute in the dump.
    Dump,
    /// The rules table has the op type.
    Rules,
    /// Nothing is known; the detail says what was assumed.
    Assumed,
    /// The user's edit made it so (an op put into a scope, or kept out of one).
    Edit,
}

impl Evidence {
    /// `dump`, `rules`, `assumed` or `edit`.
    pub fn name(self) -> &'static str {
        match self {
            Evidence::Dump => "dump",
            Evidence::Rules => "rules",
            Evidence::Assumed => "assumed",
            Evidence::Edit => "edit",
        }
    }
}

/// One entry of a rules file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The op type it applies to (exact match).
    pub op_type: String,
    /// What the rule says about the type.
    pub verdict: Verdict,
    /// Extra words for the user (why, which versions).
    pub detail: Option<String>,
    /// Where the fact comes from (document, source file, site knowledge).
    pub source: String,
    /// The rules file that holds the entry.
    pub file: String,
}

/// The verdict on one op, with its evidence and the facts it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpVerdict {
    /// What the pass does with the op.
    pub verdict: Verdict,
    /// How we know.
    pub evidence: Evidence,
    /// The facts, in words (attribute values, rule source, or what was assumed).
    pub detail: Cow<'static, str>,
}

impl OpVerdict {
    /// A verdict whose detail is made for this op.
    pub fn owned(verdict: Verdict, evidence: Evidence, detail: String) -> OpVerdict {
        OpVerdict {
            verdict,
            evidence,
            detail: Cow::Owned(detail),
        }
    }
}

/// Verdicts for every op of a graph, indexed by `OpId`.
#[derive(Debug, Clone)]
pub struct Verdicts {
    per_op: Vec<OpVerdict>,
    compiled: bool,
}

/// Attribute written by the AscendC compile; 1 means the kernel can be a sub-kernel.
pub const ATTR_SUPPORT_SK: &str = "supportSuperKernel";
const ATTR_HCCL: &str = "_hccl";
const ATTR_LOCAL_MEMORY: &str = "local_memory_size";
const ATTR_TILING_SINK: &str = "_tiling_sink_op";
const ATTR_ENSURE_REUSE_BINARY: &str = "_op_ensure_reuse_binary";

impl Verdicts {
    /// Judges every op of `graph` with the rule `rule_of` gives for its type. A graph where any
    /// op carries `supportSuperKernel` is taken as compiled: there a missing attribute means
    /// the kernel was not built by the AscendC compiler.
    pub fn compute<'r>(graph: &Graph, rule_of: impl Fn(&str) -> Option<&'r Rule>) -> Verdicts {
        let compiled = graph
            .ops()
            .iter()
            .any(|op| op.attrs.get(ATTR_SUPPORT_SK).is_some());
        let per_op = graph
            .ops()
            .iter()
            .map(|op| judge(op, rule_of(&op.op_type), compiled))
            .collect();
        Verdicts { per_op, compiled }
    }

    /// Verdicts known otherwise (read from a pass's own files), one per op.
    pub fn of_ops(per_op: Vec<OpVerdict>) -> Verdicts {
        Verdicts {
            per_op,
            compiled: true,
        }
    }

    /// These verdicts with every op assumed fusible taken as not an AscendC kernel instead
    /// (evidence still `assumed`): the other end of what a plan resting on assumptions can
    /// be. `None` when no op is assumed fusible.
    pub fn assumed_unfusible(&self) -> Option<Verdicts> {
        let assumed =
            |v: &OpVerdict| v.verdict == Verdict::Fusible && v.evidence == Evidence::Assumed;
        if !self.per_op.iter().any(assumed) {
            return None;
        }
        let per_op = self
            .per_op
            .iter()
            .map(|v| {
                if assumed(v) {
                    OpVerdict {
                        verdict: Verdict::Unsupported(Reason::NotAscendC),
                        evidence: Evidence::Assumed,
                        detail: Cow::Borrowed(
                            "assumed not an AscendC kernel (the other end of the assumption)",
                        ),
                    }
                } else {
                    v.clone()
                }
            })
            .collect();
        Some(Verdicts {
            per_op,
            compiled: self.compiled,
        })
    }

    /// The verdict on op `id`.
    pub fn get(&self, id: crate::graph::OpId) -> &OpVerdict {
        &self.per_op[id.index()]
    }

    /// True when the dump was taken after the kernels were compiled (it has
    /// `supportSuperKernel`), so dump attributes decide.
    pub fn compiled(&self) -> bool {
        self.compiled
    }
}

fn judge(op: &Op, rule: Option<&Rule>, compiled: bool) -> OpVerdict {
    let from_rule = |rule: &Rule| OpVerdict {
        verdict: rule.verdict,
        evidence: Evidence::Rules,
        detail: Cow::Owned(match &rule.detail {
            Some(d) => format!("{}: {d} (source: {})", rule.file, rule.source),
            None => format!("{}: {}", rule.file, rule.source),
        }),
    };
    if let Some(rule) = rule.filter(|r| r.verdict == Verdict::Ignored) {
        return from_rule(rule);
    }
    let dump = |verdict, detail: Cow<'static, str>| OpVerdict {
        verdict,
        evidence: Evidence::Dump,
        detail,
    };
    if op.attrs.get_int(ATTR_HCCL) == Some(1) {
        return dump(
            Verdict::Fusible,
            Cow::Borrowed("_hccl = true: a communication op the pass accepts"),
        );
    }
    if let Some(size) = op.attrs.get_int(ATTR_LOCAL_MEMORY).filter(|s| *s > 0) {
        return dump(
            Verdict::Unsupported(Reason::Simt),
            Cow::Owned(format!("local_memory_size = {size}")),
        );
    }
    let support = op.attrs.get_int(ATTR_SUPPORT_SK);
    if support == Some(1) {
        let reuse = op.attrs.get_int(ATTR_ENSURE_REUSE_BINARY) == Some(1);
        let sink = op.attrs.get_int(ATTR_TILING_SINK) == Some(1);
        if reuse && !sink {
            return OpVerdict {
                verdict: Verdict::Unsupported(Reason::TilingOnAicpu),
                evidence: Evidence::Assumed,
                detail: Cow::Borrowed(
                    "_op_ensure_reuse_binary = true without _tiling_sink_op; GE also asks the \
                     op's registered implementation whether its tiling can run on AI CPU, which \
                     the dump does not record: assumed it can",
                ),
            };
        }
        return dump(Verdict::Fusible, Cow::Borrowed("supportSuperKernel = 1"));
    }
    if support.is_some() || compiled {
        let fact = match support {
            Some(v) => format!("supportSuperKernel = {v}"),
            None => {
                "no supportSuperKernel (the AscendC compiler did not build this kernel)".to_string()
            }
        };
        let reason = match rule.and_then(|r| r.verdict.reason()) {
            Some(r) => r,
            None if op.attrs.get_int(ATTR_HCCL) == Some(0) => Reason::CommNotSupported,
            None => Reason::NotAscendC,
        };
        let detail = match rule.filter(|r| r.verdict.reason().is_some()) {
            Some(r) => format!(
                "{fact}; {} lists {} (source: {})",
                r.file, r.op_type, r.source
            ),
            None if reason == Reason::CommNotSupported => format!("{fact}; _hccl = false"),
            None => fact,
        };
        return dump(Verdict::Unsupported(reason), Cow::Owned(detail));
    }
    match rule {
        Some(rule) => from_rule(rule),
        None => OpVerdict {
            verdict: Verdict::Fusible,
            evidence: Evidence::Assumed,
            detail: Cow::Borrowed(
                "assumed an AscendC kernel: the dump predates compilation (no \
                 supportSuperKernel) and the rules table has no entry for this type",
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fusion::rules::RuleSet;
    use crate::graph::{AttrValue, GraphBuilder, OpBuilder};

    fn graph(ops: &[(&str, &[(&str, AttrValue)])]) -> Graph {
        let mut b = GraphBuilder::new("g");
        for (i, (ty, attrs)) in ops.iter().enumerate() {
            let mut op = OpBuilder {
                name: format!("op{i}"),
                op_type: ty.to_string(),
                ..OpBuilder::default()
            };
            for (k, v) in attrs.iter() {
                op.attrs.insert(k.to_string(), v.clone());
            }
            b.push(op);
        }
        b.build()
    }

    fn verdicts(g: &Graph) -> Vec<(Verdict, Evidence)> {
        let rules = RuleSet::bundled();
        let v = Verdicts::compute(g, |t| rules.get(t));
        (0..g.len())
            .map(|i| {
                let o = v.get(crate::graph::OpId(i as u32));
                (o.verdict, o.evidence)
            })
            .collect()
    }

    #[test]
    fn compiled_dump_attributes_decide() {
        use AttrValue::{Bool, Int};
        let g = graph(&[
            ("MatMulV2", &[("supportSuperKernel", Int(1))]),
            ("Cast", &[]),
            ("MoeInitRoutingV2", &[("supportSuperKernel", Int(0))]),
            (
                "ScatterNdUpdate",
                &[
                    ("supportSuperKernel", Int(1)),
                    ("local_memory_size", Int(8192)),
                ],
            ),
            ("HcomAllReduce", &[("_hccl", Bool(true))]),
            ("HcomBroadcast", &[("_hccl", Bool(false))]),
            (
                "Foo",
                &[
                    ("supportSuperKernel", Int(1)),
                    ("_op_ensure_reuse_binary", Bool(true)),
                ],
            ),
            (
                "Foo",
                &[
                    ("supportSuperKernel", Int(1)),
                    ("_op_ensure_reuse_binary", Bool(true)),
                    ("_tiling_sink_op", Bool(true)),
                ],
            ),
            ("Const", &[]),
            ("Bar", &[("supportSuperKernel", Int(2))]),
        ]);
        use Evidence::*;
        use Verdict::*;
        assert_eq!(
            verdicts(&g),
            vec![
                (Fusible, Dump),
                (Unsupported(Reason::NotAscendC), Dump),
                (Unsupported(Reason::Blacklisted), Dump),
                (Unsupported(Reason::Simt), Dump),
                (Fusible, Dump),
                (Unsupported(Reason::CommNotSupported), Dump),
                (Unsupported(Reason::TilingOnAicpu), Assumed),
                (Fusible, Dump),
                (Ignored, Rules),
                (Unsupported(Reason::NotAscendC), Dump),
            ]
        );
        let rules = RuleSet::bundled();
        let v = Verdicts::compute(&g, |t| rules.get(t));
        assert!(v.compiled());
        assert_eq!(
            v.get(crate::graph::OpId(9)).detail,
            "supportSuperKernel = 2"
        );
        assert!(
            v.get(crate::graph::OpId(2))
                .detail
                .contains("MoeInitRoutingV2")
        );
    }

    #[test]
    fn precompile_dump_uses_rules_then_assumes() {
        use AttrValue::Int;
        let g = graph(&[
            ("MatMulV2", &[]),
            ("MoeInitRoutingV3", &[]),
            ("HcomAllGather", &[]),
            ("HcomBroadcast", &[]),
            ("ScatterNdUpdate", &[("local_memory_size", Int(64))]),
            ("Data", &[]),
        ]);
        use Evidence::*;
        use Verdict::*;
        assert_eq!(
            verdicts(&g),
            vec![
                (Fusible, Assumed),
                (Unsupported(Reason::Blacklisted), Rules),
                (Fusible, Rules),
                (Unsupported(Reason::CommNotSupported), Rules),
                (Unsupported(Reason::Simt), Dump),
                (Ignored, Rules),
            ]
        );
    }

    #[test]
    fn reason_codes_round_trip() {
        for code in Reason::CODES {
            let r = Reason::from_code(code).unwrap();
            assert_eq!(r.code(), *code);
            assert!(!r.text().is_empty() && !r.suggestion().is_empty());
        }
    }
}
