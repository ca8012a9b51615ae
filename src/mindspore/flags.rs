//! MindSpore's graph kernel flags (`graph_kernel_flags.h`/`.cc`): what each does, its default,
//! a check of a flags string as MindSpore parses it (`--key=value`, a bare `--key` for true,
//! lists comma-separated), and what each flag would change in a given graph, where the graph
//! can tell.

use super::reasons::level_1_only;
use crate::fusion::plan::Plan;
use crate::fusion::verdict::{Reason, Verdict, Verdicts};
use crate::graph::Graph;
use crate::planner::OptionsModel;
use crate::workspace::Workspace;
use std::collections::BTreeMap;

/// What a flag's value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `--flag` or `--flag=true|false`.
    Bool,
    /// An integer in `min..=max`.
    Int(i64, i64),
    /// Names, comma-separated.
    List,
    /// Any text.
    Text,
}

/// One flag.
#[derive(Debug)]
pub struct Flag {
    /// Its name, without `--`.
    pub name: &'static str,
    /// Its value's kind.
    pub kind: Kind,
    /// Its default, in words.
    pub default: &'static str,
    /// What it does.
    pub meaning: &'static str,
}

/// The flags users set to steer fusion (MindSpore has more: target and tuning ones).
pub const FLAGS: &[Flag] = &[
    Flag {
        name: "opt_level",
        kind: Kind::Int(0, 3),
        default: "2 with graph kernel fusion on, else 0",
        meaning: "0 turns graph kernel fusion off; 2 adds recompute fusion, 3 stitch and \
                  parallel fusion",
    },
    Flag {
        name: "enable_cluster_ops",
        kind: Kind::List,
        default: "none",
        meaning: "op types added to the cluster list (the generator must support them)",
    },
    Flag {
        name: "enable_cluster_ops_only",
        kind: Kind::List,
        default: "none",
        meaning: "the cluster list itself; enable_cluster_ops and disable_cluster_ops are \
                  then ignored",
    },
    Flag {
        name: "disable_cluster_ops",
        kind: Kind::List,
        default: "none",
        meaning: "op types taken off the cluster list: they stay basic ops",
    },
    Flag {
        name: "enable_expand_ops",
        kind: Kind::List,
        default: "none",
        meaning: "op types added to the expand list (expanded into basic ops, which may then \
                  be clustered)",
    },
    Flag {
        name: "enable_expand_ops_only",
        kind: Kind::List,
        default: "none",
        meaning: "the expand list itself; enable_expand_ops and disable_expand_ops are then \
                  ignored",
    },
    Flag {
        name: "disable_expand_ops",
        kind: Kind::List,
        default: "none",
        meaning: "op types taken off the expand list",
    },
    Flag {
        name: "fusion_ops_level",
        kind: Kind::Int(0, 2),
        default: "0 on Ascend, else 1",
        meaning: "the level up to which the default cluster lists count (MatMul, \
                  BatchMatMul, Reshape… are level 1; ReduceSum and Transpose are level 0 for \
                  the DVM generator)",
    },
    Flag {
        name: "enable_dynamic_shape_fusion",
        kind: Kind::Bool,
        default: "false (on with the DVM generator in newer releases)",
        meaning: "cluster ops with dynamic shapes too",
    },
    Flag {
        name: "composite_op_limit_size",
        kind: Kind::Int(1, i64::MAX),
        default: "200",
        meaning: "the most basic ops the split model keeps in one fused area",
    },
    Flag {
        name: "kernel_generator",
        kind: Kind::Text,
        default: "AKG (DVM on Ascend in newer releases)",
        meaning: "what builds the composites: AKG, AKG_V2, DVM or BISHENG",
    },
    Flag {
        name: "enable_stitch_fusion",
        kind: Kind::Bool,
        default: "on at opt_level 3 (not on 910B/910C)",
        meaning: "fuse across memory-bound boundaries by stitching",
    },
    Flag {
        name: "enable_recompute_fusion",
        kind: Kind::Bool,
        default: "on from opt_level 2",
        meaning: "recompute cheap ops inside composites instead of keeping their results",
    },
    Flag {
        name: "enable_parallel_fusion",
        kind: Kind::Bool,
        default: "on at opt_level 3",
        meaning: "fuse independent composites side by side into one kernel",
    },
    Flag {
        name: "dump_as_text",
        kind: Kind::Bool,
        default: "false",
        meaning: "write graph_kernel_dump/ with each pass's decisions (why ops were not \
                  clustered)",
    },
];

/// How the flags are given to MindSpore.
pub const HOW_TO_SET: &str = "MS_DEV_GRAPH_KERNEL_FLAGS=\"--flag=value ...\" in the \
                              environment, or context.set_context(graph_kernel_flags=\"...\") \
                              (a JitConfig's graph_kernel_flags overrides it)";

/// A flag as given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    /// Its name.
    pub name: String,
    /// Its value (`true` for a bare flag).
    pub value: String,
}

/// The flags of `text` as MindSpore reads them, and the problems: an unknown flag (MindSpore
/// warns and goes on), a value of the wrong kind.
pub fn parse(text: &str) -> (Vec<Given>, Vec<String>) {
    let (mut given, mut problems) = (Vec::new(), Vec::new());
    for token in text.split_whitespace() {
        let Some(body) = token.strip_prefix("--") else {
            problems.push(format!("{token}: a flag starts with --"));
            continue;
        };
        // Only a boolean flag may stand alone (it means true).
        let (name, written) = match body.split_once('=') {
            Some((name, value)) => (name, Some(value)),
            None => (body, None),
        };
        let Some(flag) = FLAGS.iter().find(|f| f.name == name) else {
            problems.push(format!(
                "--{name}: not a flag skope knows (MindSpore warns \"Unknown flag\" for one it \
                 does not know, and goes on)"
            ));
            continue;
        };
        let value = written.unwrap_or(if flag.kind == Kind::Bool { "true" } else { "" });
        let bad = match flag.kind {
            Kind::Bool => !matches!(value, "true" | "false"),
            Kind::Int(min, max) => !value.parse::<i64>().is_ok_and(|v| (min..=max).contains(&v)),
            Kind::List => value.is_empty(),
            Kind::Text => written.is_none(),
        };
        if bad {
            let expected = match flag.kind {
                Kind::Bool => "true or false".to_string(),
                Kind::Int(min, i64::MAX) => format!("an integer from {min}"),
                Kind::Int(min, max) => format!("an integer from {min} to {max}"),
                Kind::List => "op type names, comma-separated".to_string(),
                Kind::Text => "a value".to_string(),
            };
            let shown = written.map_or(format!("--{name}"), |v| format!("--{name}={v}"));
            problems.push(format!("{shown}: expected {expected}"));
            continue;
        }
        given.push(Given {
            name: name.to_string(),
            value: value.to_string(),
        });
    }
    (given, problems)
}

/// Op types with their counts, most first, as `MatMul ×8, Softmax ×4`.
fn counted(types: BTreeMap<&str, usize>) -> String {
    let mut list: Vec<(&str, usize)> = types.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let words: Vec<String> = list.iter().map(|(t, n)| format!("{t} ×{n}")).collect();
    words.join(", ")
}

/// Keeps the types of `counts` that a list flag given in `given` names (all when not given).
fn named<'a>(
    given: &[Given],
    flag: &str,
    counts: BTreeMap<&'a str, usize>,
) -> BTreeMap<&'a str, usize> {
    match given.iter().find(|g| g.name == flag) {
        Some(g) => {
            let names: Vec<&str> = g.value.split(',').map(str::trim).collect();
            counts
                .into_iter()
                .filter(|(t, _)| names.contains(t))
                .collect()
        }
        None => counts,
    }
}

/// What each flag would change in the graph planned as `plan`, in words (for a list flag in
/// `given`, for the types it names); flags the graph says nothing about are left out.
pub fn effects(
    graph: &Graph,
    verdicts: &Verdicts,
    plan: &Plan,
    given: &[Given],
) -> Vec<(&'static str, String)> {
    let mut left_out: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for scope in &plan.scopes {
        for b in &scope.breaks {
            if let Verdict::Unsupported(Reason::Foreign { text, .. }) = verdicts.get(b.op).verdict {
                *left_out
                    .entry(text.key)
                    .or_default()
                    .entry(graph.op(b.op).op_type.as_str())
                    .or_default() += 1;
            }
        }
    }
    let mut fused: BTreeMap<&str, usize> = BTreeMap::new();
    let mut composites = 0usize;
    let mut largest = 0usize;
    for scope in &plan.scopes {
        for s in &scope.segments {
            composites += 1;
            largest = largest.max(s.ops.len());
            for &id in &s.ops {
                *fused.entry(graph.op(id).op_type.as_str()).or_default() += 1;
            }
        }
    }
    let of = |key: &str| left_out.get(key).cloned().unwrap_or_default();
    let mut out = Vec::new();
    if composites > 0 {
        out.push((
            "opt_level",
            format!("0 would leave all {composites} composites as basic ops"),
        ));
    }
    let mut outside = of("gk_not_clusterable");
    for (t, n) in of("gk_level_1") {
        *outside.entry(t).or_default() += n;
    }
    let outside = named(given, "enable_cluster_ops", outside);
    if !outside.is_empty() {
        out.push((
            "enable_cluster_ops",
            format!(
                "would let these types left out join composites: {} (only if the kernel \
                 generator can build them)",
                counted(outside)
            ),
        ));
    }
    let kept_out = named(given, "disable_cluster_ops", fused);
    if !kept_out.is_empty() {
        out.push((
            "disable_cluster_ops",
            format!(
                "would keep out of composites these types now in them: {}",
                counted(kept_out)
            ),
        ));
    }
    let level_1 = of("gk_level_1");
    if !level_1.is_empty() {
        out.push((
            "fusion_ops_level",
            format!(
                "1 would let these level-1 types join composites: {} (only level 1 clusters: \
                 {})",
                counted(level_1),
                level_1_only().join(", ")
            ),
        ));
    }
    let dynamic = of("gk_dynamic_shape");
    if !dynamic.is_empty() {
        out.push((
            "enable_dynamic_shape_fusion",
            format!(
                "would let these ops with dynamic shapes be clustered: {}",
                counted(dynamic)
            ),
        ));
    }
    if composites > 0 {
        out.push((
            "composite_op_limit_size",
            format!(
                "the largest composite here has {largest} basic op(s) (default limit 200){}",
                if largest >= 200 {
                    ": at the limit, the split model may have cut bigger ones"
                } else {
                    ": below the limit, raising it changes nothing here"
                }
            ),
        ));
    }
    let unexplained = of("gk_left_out");
    if !unexplained.is_empty() {
        out.push((
            "dump_as_text",
            format!(
                "would say why these clusterable ops were left out, which the dump does not: \
                 {}",
                counted(unexplained)
            ),
        ));
    }
    out
}

/// `skope options --graph-kernel`: the flags (only those `text` gives, when given, checked
/// first), and with `ws`, a MindSpore graph, what each would change in it. The bool is false
/// when a given flag has a problem; an error when `ws` is not a MindSpore graph.
pub fn text(text: Option<&str>, ws: Option<&Workspace>) -> Result<(String, bool), String> {
    let mut out = String::new();
    let (given, problems) = text.map(parse).unwrap_or_default();
    if text.is_some() {
        for p in &problems {
            out.push_str(&format!("error: {p}\n"));
        }
        for g in &given {
            out.push_str(&format!("ok: --{}={}\n", g.name, g.value));
        }
        out.push('\n');
    }
    let changes = match ws {
        Some(ws) if ws.options_model() != OptionsModel::GraphFlags => {
            return Err(format!(
                "{}: not a MindSpore dump (.ir text or composite JSON): graph kernel flags do \
                 not apply to it",
                ws.source().file
            ));
        }
        Some(ws) => effects(ws.graph(), ws.context().verdicts(), ws.plan(), &given),
        None => Vec::new(),
    };
    out.push_str("MindSpore graph kernel flags (graph_kernel_flags):\n");
    let shown = FLAGS
        .iter()
        .filter(|f| given.is_empty() || given.iter().any(|g| g.name == f.name));
    for f in shown {
        out.push_str(&format!(
            "  --{}  default {}\n      {}\n",
            f.name, f.default, f.meaning
        ));
        for (_, change) in changes.iter().filter(|(name, _)| *name == f.name) {
            out.push_str(&format!("      in this graph: {change}\n"));
        }
    }
    out.push_str(&format!("set them with {HOW_TO_SET}\n"));
    Ok((out, problems.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_boolean_flag_stands_alone() {
        let (given, problems) = parse("--dump_as_text --enable_cluster_ops --kernel_generator");
        assert_eq!(given.len(), 1);
        assert_eq!(
            (given[0].name.as_str(), given[0].value.as_str()),
            ("dump_as_text", "true")
        );
        assert_eq!(
            problems,
            [
                "--enable_cluster_ops: expected op type names, comma-separated",
                "--kernel_generator: expected a value"
            ]
        );
        let (given, problems) = parse("--enable_cluster_ops=Exp,Add --opt_level=3");
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(given.len(), 2);
    }
}
