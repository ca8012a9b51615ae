//! The inside of a SuperKernel from `sk_prof_device_*.json`: the per-core records of one
//! SuperKernel folded into three lanes — the SuperKernel end to end, Cube (AIC cores), Vector
//! (AIV cores) — each sub-op one span from its first core's start to its last core's end, and
//! the records split into occurrences wherever nothing of the SuperKernel runs for a gap
//! (100 µs by default), as the SuperKernel team's tool folds them (reference
//! `aclgraph_superkernel.md` §9.5). Times are the device's own clock, relative to each
//! occurrence's start: never set against a profile's host times (§9.4).

pub use super::device::{Record, SubOp};
use std::path::Path;

/// The gap that splits occurrences by default, ns.
pub const OCCURRENCE_GAP_NS: i64 = 100_000;

/// What `super_kernel.log` says when the device buffer filled and records stopped.
pub const BUFFER_FULL: &str = "buffer is full, stop dump the time of nodes";

/// One sub-op's span in an occurrence.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Which sub-op (`None` for the whole SuperKernel).
    pub sub_op: Option<SubOp>,
    /// Its name.
    pub name: String,
    /// From its first core's start, ns after the occurrence's start.
    pub start: i64,
    /// To its last core's end.
    pub end: i64,
    /// Cores that ran it.
    pub cores: usize,
}

/// One run of the SuperKernel, folded.
#[derive(Debug, Clone, PartialEq)]
pub struct Occurrence {
    /// Where it starts on the device clock, ns.
    pub origin: i64,
    /// The SuperKernel end to end (its whole-SuperKernel records).
    pub whole: Option<Span>,
    /// Its sub-ops on Cube cores, by start.
    pub cube: Vec<Span>,
    /// Its sub-ops on Vector cores, by start.
    pub vector: Vec<Span>,
}

impl Occurrence {
    /// Where its last record ends, ns after its start.
    pub fn end(&self) -> i64 {
        self.whole
            .iter()
            .chain(&self.cube)
            .chain(&self.vector)
            .map(|s| s.end)
            .max()
            .unwrap_or(0)
    }
}

/// The occurrences of SuperKernel `sk_id` in `records`, split where nothing of it runs for
/// `gap` ns or more.
pub fn occurrences(records: &[Record], sk_id: u64, gap: i64) -> Vec<Occurrence> {
    let mut mine: Vec<&Record> = records.iter().filter(|r| r.sk_id == sk_id).collect();
    mine.sort_by_key(|r| r.start);
    let mut out = Vec::new();
    let mut group: Vec<&Record> = Vec::new();
    let mut reach = i64::MIN;
    for r in mine {
        if !group.is_empty() && r.start - reach >= gap.max(1) {
            out.push(fold(&group));
            group.clear();
        }
        reach = if group.is_empty() {
            r.end
        } else {
            reach.max(r.end)
        };
        group.push(r);
    }
    if !group.is_empty() {
        out.push(fold(&group));
    }
    out
}

/// One occurrence's records as lanes.
fn fold(records: &[&Record]) -> Occurrence {
    let origin = records.iter().map(|r| r.start).min().unwrap_or(0);
    let mut spans: Vec<(bool, Span)> = Vec::new();
    for r in records {
        let cube = r.cube && r.sub_op.is_some();
        match spans
            .iter_mut()
            .find(|(c, s)| *c == cube && s.sub_op == r.sub_op && s.name == r.name)
        {
            Some((_, s)) => {
                s.start = s.start.min(r.start - origin);
                s.end = s.end.max(r.end - origin);
                s.cores += 1;
            }
            None => spans.push((
                cube,
                Span {
                    sub_op: r.sub_op,
                    name: r.name.clone(),
                    start: r.start - origin,
                    end: r.end - origin,
                    cores: 1,
                },
            )),
        }
    }
    let mut whole = None;
    let (mut cube, mut vector) = (Vec::new(), Vec::new());
    for (is_cube, span) in spans {
        match (span.sub_op, is_cube) {
            (None, _) => {
                let w = whole.get_or_insert(span.clone());
                w.start = w.start.min(span.start);
                w.end = w.end.max(span.end);
            }
            (Some(_), true) => cube.push(span),
            (Some(_), false) => vector.push(span),
        }
    }
    cube.sort_by_key(|s| s.start);
    vector.sort_by_key(|s| s.start);
    Occurrence {
        origin,
        whole,
        cube,
        vector,
    }
}

/// True when `super_kernel.log` in `model_dir` or its parent says the device buffer filled:
/// the records, and so the lanes, are incomplete.
pub fn buffer_full(model_dir: &Path) -> bool {
    [Some(model_dir), model_dir.parent()]
        .into_iter()
        .flatten()
        .filter_map(|d| std::fs::read(d.join("super_kernel.log")).ok())
        .any(|text| memchr::memmem::find(&text, BUFFER_FULL.as_bytes()).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(sk: u64, position: Option<u64>, name: &str, cube: bool, start: i64, end: i64) -> Record {
        let sub_op = position.map(SubOp::Position);
        Record {
            sk_id: sk,
            sub_op,
            name: name.to_string(),
            cube,
            start,
            end,
        }
    }

    #[test]
    fn records_fold_into_lanes_and_split_into_occurrences() {
        let records = vec![
            // Occurrence 1: the whole SuperKernel on two cores, a vector op on two cores, a
            // cube op on one.
            rec(7, None, "sk_7_x", false, 1_000, 14_000),
            rec(7, None, "sk_7_x", false, 1_100, 13_700),
            rec(7, Some(0), "RmsNorm", false, 1_000, 5_000),
            rec(7, Some(0), "RmsNorm", false, 1_200, 5_600),
            rec(7, Some(1), "MatMul", true, 6_000, 9_000),
            // Another SuperKernel, between.
            rec(9, Some(0), "Add", false, 50_000, 60_000),
            // Occurrence 2, 200 µs later.
            rec(7, None, "sk_7_x", false, 214_000, 227_000),
            rec(7, Some(0), "RmsNorm", false, 214_000, 218_000),
        ];
        let occ = occurrences(&records, 7, OCCURRENCE_GAP_NS);
        assert_eq!(occ.len(), 2);
        let o = &occ[0];
        assert_eq!(o.origin, 1_000);
        let whole = o.whole.as_ref().expect("the whole SuperKernel");
        assert_eq!((whole.start, whole.end, whole.cores), (0, 13_000, 2));
        assert_eq!(o.vector.len(), 1);
        assert_eq!(
            (o.vector[0].start, o.vector[0].end, o.vector[0].cores),
            (0, 4_600, 2)
        );
        assert_eq!(
            (o.cube[0].name.as_str(), o.cube[0].start),
            ("MatMul", 5_000)
        );
        assert_eq!(o.end(), 13_000);
        assert_eq!(occ[1].origin, 214_000);
        // A smaller gap splits more finely; a larger one joins them.
        assert_eq!(occurrences(&records, 7, 300_000).len(), 1);
    }

    #[test]
    fn the_device_file_reads_with_its_quirks() {
        let bytes = br#"[{"ph":"X","name":"[0/40]RmsNorm_5c","pid":"AIV","tid":3,"ts":1700.5,"dur":4.25,"args":{"modelId":"3_1","skId":14,"nodeId":0}},
{"ph":"X","name":"[0/40] sk_14_attn_start_RmsNorm_5c","pid":"AIC","tid":0,"ts":1700.0,"dur":13.7,"args":{"modelId":"3_1","skId":14,"nodeId":4294967295}},
{"ph":"X","name":"[1/40]Bad","pid":"AIV","tid":1,"ts":1.0,"dur":0,"args":{"skId":14,"nodeId":1}},
{}]"#;
        let r = super::super::device::records(bytes).expect("reads");
        assert_eq!(r.len(), 2);
        assert_eq!(
            (r[0].name.as_str(), r[0].start, r[0].end),
            ("RmsNorm_5c", 1_700_500, 1_704_750)
        );
        assert_eq!((r[1].sub_op, r[1].cube), (None, true));
        assert_eq!(r[1].name, "sk_14_attn_start_RmsNorm_5c");
    }
}
