//! One step of a profile pair as a timeline: a lane per stream, each kernel a block in time,
//! base and new stacked and each aligned at its step's first kernel, so a segment's kernels
//! (base) sit above the SuperKernel that replaced them (new). Blocks know what they are to the
//! plan (a segment's op, a break op, a SuperKernel); segment spans cover each occurrence of a
//! segment's ops. [`Lane::cells`] lays a lane out over a window of time in columns, once per
//! draw and only over the blocks in the window, so the terminal view and its bench share it.

use super::Pair;
use super::per_op::PerOp;
use super::runs::{NO_LABEL, Runs};
use super::steps::Steps;
use std::collections::HashMap;
use std::sync::Arc;

/// What a block is to the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A kernel outside every segment and break.
    Kernel,
    /// A kernel of segment `n` (an index into the timeline's segments).
    Segment(u32),
    /// A kernel of an op that breaks a scope.
    Break,
    /// A SuperKernel (of segment `n` when the plan names it).
    SuperKernel(Option<u32>),
}

/// One kernel run.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Its start, ns after the side's origin.
    pub start: i64,
    /// Its end, ns after the side's origin.
    pub end: i64,
    /// Its name.
    pub name: Arc<str>,
    /// What it is to the plan.
    pub mark: Mark,
}

/// The kernels of one stream, by start.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// The stream's label (`?` when the profile gives none).
    pub stream: String,
    /// Its kernels, by start.
    pub blocks: Vec<Block>,
    /// For each block, the latest end of it and every block before it (blocks of one stream
    /// may overlap in traces): what finds the first block a window shows.
    reach: Vec<i64>,
}

/// One time window laid out in `n` columns of `ns_per_col` each from `left`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// The time at the left edge, ns after the origin.
    pub left: i64,
    /// The time one column covers, ns (at least 1).
    pub ns_per_col: f64,
    /// Columns.
    pub cols: usize,
}

impl Window {
    /// Where the window ends.
    pub fn right(&self) -> i64 {
        self.left + (self.ns_per_col * self.cols as f64).ceil() as i64
    }

    /// The column time `t` falls in (may be outside `0..cols`).
    pub fn col(&self, t: i64) -> i64 {
        ((t - self.left) as f64 / self.ns_per_col).floor() as i64
    }
}

/// One column of a lane: how much of it kernels cover and which block dominates it.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Cell {
    /// The share of the column kernels cover, 0–1.
    pub covered: f64,
    /// Kernels that touch it.
    pub count: u32,
    /// The block covering most of it (an index into the lane's blocks).
    pub block: Option<usize>,
    /// True when a block starts inside it (not at its left edge).
    pub starts: bool,
    /// True when a block ends inside it (not at its right edge).
    pub ends: bool,
}

/// A gap between kernels of one lane: the time after one ends before the next starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gap {
    /// Where it starts (the previous kernels' latest end), ns after the origin.
    pub start: i64,
    /// Where it ends (the next kernel's start).
    pub end: i64,
}

impl Lane {
    /// The lane of stream `stream` holding `blocks` (in any order).
    pub fn new(stream: String, mut blocks: Vec<Block>) -> Lane {
        blocks.sort_by_key(|b| (b.start, b.end));
        let mut latest = i64::MIN;
        let reach = blocks
            .iter()
            .map(|b| {
                latest = latest.max(b.end);
                latest
            })
            .collect();
        Lane {
            stream,
            blocks,
            reach,
        }
    }

    /// The blocks a window from `left` to `right` shows, as a range of indices.
    pub fn visible(&self, left: i64, right: i64) -> std::ops::Range<usize> {
        let first = self.reach.partition_point(|&r| r <= left);
        let end = self.blocks.partition_point(|b| b.start < right);
        first..end.max(first)
    }

    /// The lane laid out over `w`: one cell per column.
    pub fn cells(&self, w: &Window) -> Vec<Cell> {
        let mut cells = vec![Cell::default(); w.cols];
        let mut best = vec![0f64; w.cols];
        let npc = w.ns_per_col.max(1.0);
        for i in self.visible(w.left, w.right()) {
            let b = &self.blocks[i];
            let (first, last) = (
                w.col(b.start).max(0),
                w.col(b.end - 1).min(w.cols as i64 - 1),
            );
            for c in first..=last {
                let c0 = w.left as f64 + c as f64 * npc;
                let c1 = c0 + npc;
                let part = (b.end as f64).min(c1) - (b.start as f64).max(c0);
                if part <= 0.0 {
                    continue;
                }
                let cell = &mut cells[c as usize];
                cell.covered = (cell.covered + part / npc).min(1.0);
                cell.count += 1;
                cell.starts |= b.start as f64 > c0;
                cell.ends |= (b.end as f64) < c1;
                if part > best[c as usize] {
                    best[c as usize] = part;
                    cell.block = Some(i);
                }
            }
        }
        cells
    }

    /// The gaps of at least `min` ns between its kernels, in the window from `left` to
    /// `right`.
    pub fn gaps(&self, min: i64, left: i64, right: i64) -> Vec<Gap> {
        let range = self.visible(left, right);
        let mut out = Vec::new();
        let start = range.start.saturating_sub(1);
        for i in start..range.end.min(self.blocks.len()) {
            let Some(next) = self.blocks.get(i + 1) else {
                break;
            };
            let before = self.reach[i];
            if next.start - before >= min.max(1) {
                out.push(Gap {
                    start: before,
                    end: next.start,
                });
            }
        }
        out
    }

    /// The time block `i` waits after every block before it has ended (`None` for the first
    /// block, negative when it overlaps an earlier one).
    pub fn gap_before(&self, i: usize) -> Option<i64> {
        let before = *self.reach.get(i.checked_sub(1)?)?;
        Some(self.blocks.get(i)?.start - before)
    }

    /// The first gap of at least `min` ns that starts after `t`.
    pub fn next_gap(&self, min: i64, t: i64) -> Option<Gap> {
        let from = self.reach.partition_point(|&r| r <= t).saturating_sub(1);
        (from..self.blocks.len().saturating_sub(1))
            .map(|i| Gap {
                start: self.reach[i],
                end: self.blocks[i + 1].start,
            })
            .find(|g| g.end - g.start >= min.max(1) && g.start > t)
    }
}

/// One profile's step, as lanes.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    /// `base` or `new`.
    pub name: &'static str,
    /// The step shown (`Step Id`; empty when the profile has none).
    pub step: String,
    /// The absolute start of its first kernel, ns (what the blocks are relative to).
    pub origin: i64,
    /// Its lanes, by stream.
    pub lanes: Vec<Lane>,
    /// The latest end of any block, ns after the origin.
    pub end: i64,
}

/// A segment's occurrence: from its first op's start to its ops' latest end, on one side.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// The segment (an index into the timeline's segments).
    pub segment: u32,
    /// The side (0 base, 1 new).
    pub side: usize,
    /// Where it starts, ns after that side's origin.
    pub start: i64,
    /// Where it ends.
    pub end: i64,
}

/// A step of both profiles, stacked.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The base profile's step, then the new profile's (when it has kernels).
    pub sides: Vec<Side>,
    /// The plan's segments by name, as `Mark::Segment` numbers them.
    pub segments: Vec<String>,
    /// Every occurrence of a segment on either side.
    pub spans: Vec<Span>,
    /// The reason each break op breaks its scope, by op name.
    pub breaks: HashMap<String, String>,
}

impl Timeline {
    /// The latest end of any side, ns.
    pub fn end(&self) -> i64 {
        self.sides.iter().map(|s| s.end).max().unwrap_or(0)
    }
}

/// The step to show of `steps`: `step` when given and there, else the one with the median
/// kernel time.
pub fn pick_step(steps: Option<&Steps>, step: Option<&str>) -> Option<String> {
    let steps = steps?;
    if let Some(s) = step
        && steps.list.iter().any(|t| t.step == s)
    {
        return Some(s.to_string());
    }
    let mut list: Vec<&super::steps::StepTime> = steps.list.iter().collect();
    list.sort_by(|a, b| a.kernels_us.total_cmp(&b.kernels_us));
    list.get(list.len() / 2).map(|t| t.step.clone())
}

/// Where a kernel ran when its profile gives no stream: the stream of its op in the graph.
pub type StreamOf<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The timeline of `step` (or each side's median step) of `pair`, with what `per_op` says of
/// its kernels and, for profiles without streams, `stream_of`; `None` when the base profile
/// has no kernel runs with start times.
pub fn timeline(
    pair: &Pair,
    steps: Option<(&Steps, &Steps)>,
    step: Option<&str>,
    per_op: Option<&PerOp>,
    stream_of: Option<StreamOf<'_>>,
) -> Option<Timeline> {
    let mut segments = Vec::new();
    let mut of_op: HashMap<&str, Mark> = HashMap::new();
    let mut of_superkernel: HashMap<&str, u32> = HashMap::new();
    let mut breaks = HashMap::new();
    if let Some(per_op) = per_op {
        for (i, s) in per_op.segments.iter().enumerate() {
            segments.push(s.segment.clone());
            for op in &s.ops {
                of_op.insert(op.name.as_str(), Mark::Segment(i as u32));
            }
            of_superkernel.insert(s.fused_node.as_str(), i as u32);
        }
        for b in &per_op.breaks {
            of_op.insert(b.op.as_str(), Mark::Break);
            breaks.insert(b.op.clone(), b.reason.clone());
        }
    }
    let mark = |name: &str, op_type: &str| -> Mark {
        if let Some(&s) = of_superkernel.get(name) {
            return Mark::SuperKernel(Some(s));
        }
        if op_type == "SuperKernel" || super::fused_name::FusedName::parse(name).is_some() {
            return Mark::SuperKernel(None);
        }
        of_op.get(name).copied().unwrap_or(Mark::Kernel)
    };
    let base_step = pick_step(steps.map(|s| s.0), step);
    let base = side(
        "base",
        pair.base.runs.as_ref()?,
        base_step.as_deref(),
        &mark,
        stream_of,
    )?;
    let mut sides = vec![base];
    if let Some(runs) = pair.new.runs.as_ref() {
        let new_step = pick_step(steps.map(|s| s.1), step.or(base_step.as_deref()));
        if let Some(new) = side("new", runs, new_step.as_deref(), &mark, stream_of) {
            sides.push(new);
        }
    }
    let spans = spans(&sides, per_op);
    Some(Timeline {
        sides,
        segments,
        spans,
        breaks,
    })
}

/// One profile's `step` (every run when `None` or the profile has no steps) as lanes.
fn side(
    name: &'static str,
    runs: &Runs,
    step: Option<&str>,
    mark: &dyn Fn(&str, &str) -> Mark,
    stream_of: Option<StreamOf<'_>>,
) -> Option<Side> {
    if !runs.has_starts {
        return None;
    }
    let label = match step {
        Some(s) if runs.has_steps => Some(runs.label_id(s)?),
        _ => None,
    };
    let mut by_stream: HashMap<String, Vec<Block>> = HashMap::new();
    // Per kernel name, once: what it is to the plan and the stream it goes on.
    let mut per_name: Vec<Option<(Mark, String)>> = vec![None; runs.names()];
    let mut origin = i64::MAX;
    for r in runs.all() {
        if label.is_some_and(|l| r.step != l) {
            continue;
        }
        origin = origin.min(r.start_ns);
        let info = runs.name(r.name);
        let (block_mark, stream) = per_name[r.name as usize]
            .get_or_insert_with(|| {
                let stream = if r.stream == NO_LABEL {
                    stream_of
                        .and_then(|f| f(&info.name))
                        .unwrap_or_else(|| "?".to_string())
                } else {
                    String::new()
                };
                (mark(&info.name, &info.op_type), stream)
            })
            .clone();
        let stream = if r.stream == NO_LABEL {
            stream
        } else {
            runs.label(r.stream).to_string()
        };
        let lane = match by_stream.get_mut(&stream) {
            Some(lane) => lane,
            None => by_stream.entry(stream).or_default(),
        };
        lane.push(Block {
            start: r.start_ns,
            end: r.end_ns(),
            name: Arc::clone(&info.name),
            mark: block_mark,
        });
    }
    if by_stream.is_empty() {
        return None;
    }
    let mut lanes: Vec<Lane> = by_stream
        .into_iter()
        .map(|(stream, mut blocks)| {
            for b in &mut blocks {
                b.start -= origin;
                b.end -= origin;
            }
            Lane::new(stream, blocks)
        })
        .collect();
    lanes.sort_by(|a, b| {
        let n = |s: &str| s.parse::<i64>().ok();
        n(&a.stream)
            .cmp(&n(&b.stream))
            .then_with(|| a.stream.cmp(&b.stream))
    });
    let end = lanes
        .iter()
        .filter_map(|l| l.reach.last().copied())
        .max()
        .unwrap_or(0);
    Some(Side {
        name,
        step: step.unwrap_or("").to_string(),
        origin,
        lanes,
        end,
    })
}

/// Each occurrence of each segment: on the base side from a run of its first op to the latest
/// end of its ops before the next run of that op; on the new side its SuperKernel's blocks.
fn spans(sides: &[Side], per_op: Option<&PerOp>) -> Vec<Span> {
    let Some(per_op) = per_op else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (side_index, side) in sides.iter().enumerate() {
        // Every block of a segment, by segment then start.
        let mut mine: Vec<(u32, &Block)> = side
            .lanes
            .iter()
            .flat_map(|l| &l.blocks)
            .filter_map(|b| match b.mark {
                Mark::Segment(s) | Mark::SuperKernel(Some(s)) => Some((s, b)),
                _ => None,
            })
            .collect();
        mine.sort_by_key(|(s, b)| (*s, b.start));
        let mut current: Option<Span> = None;
        for (segment, b) in mine {
            let first = per_op
                .segments
                .get(segment as usize)
                .and_then(|s| s.ops.first())
                .map(|o| o.name.as_str());
            let opens = matches!(b.mark, Mark::SuperKernel(_)) || Some(&*b.name) == first;
            match &mut current {
                Some(span) if span.segment == segment && !opens => span.end = span.end.max(b.end),
                _ => {
                    out.extend(current.take());
                    current = Some(Span {
                        segment,
                        side: side_index,
                        start: b.start,
                        end: b.end,
                    });
                }
            }
        }
        out.extend(current);
    }
    out.sort_by_key(|s| (s.side, s.start));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(blocks: &[(i64, i64)]) -> Lane {
        Lane::new(
            "2".into(),
            blocks
                .iter()
                .map(|&(start, end)| Block {
                    start,
                    end,
                    name: Arc::from("k"),
                    mark: Mark::Kernel,
                })
                .collect(),
        )
    }

    #[test]
    fn cells_cover_what_the_blocks_cover_and_gaps_are_found() {
        // Two kernels with a 4 ns gap, in columns of 2 ns.
        let l = lane(&[(0, 5), (9, 12)]);
        let w = Window {
            left: 0,
            ns_per_col: 2.0,
            cols: 7,
        };
        let c = l.cells(&w);
        let covered: Vec<f64> = c.iter().map(|c| c.covered).collect();
        assert_eq!(covered, [1.0, 1.0, 0.5, 0.0, 0.5, 1.0, 0.0]);
        assert!(c[2].ends && !c[2].starts && c[4].starts);
        assert_eq!(l.gaps(3, 0, 14), [Gap { start: 5, end: 9 }]);
        assert!(l.gaps(5, 0, 14).is_empty());
        assert_eq!(l.next_gap(1, 0), Some(Gap { start: 5, end: 9 }));
        assert_eq!(l.next_gap(1, 5), None);
        assert_eq!((l.gap_before(0), l.gap_before(1)), (None, Some(4)));
    }

    #[test]
    fn overlapping_blocks_on_one_stream_are_found_from_any_window() {
        // A long kernel under two short ones (a trace can nest them).
        let l = lane(&[(0, 100), (10, 20), (30, 40)]);
        assert_eq!(l.visible(50, 60), 0..3);
        assert_eq!(l.visible(100, 200), 3..3);
        let w = Window {
            left: 0,
            ns_per_col: 50.0,
            cols: 2,
        };
        let c = l.cells(&w);
        // The long kernel covers both columns and dominates them; three touch the first.
        assert_eq!((c[0].count, c[0].block, c[1].block), (3, Some(0), Some(0)));
        assert_eq!(c[0].covered, 1.0);
        // No gap inside the long kernel.
        assert!(l.gaps(1, 0, 100).is_empty());
    }

    #[test]
    fn a_window_past_the_blocks_is_empty() {
        let l = lane(&[(0, 5)]);
        let w = Window {
            left: -10,
            ns_per_col: 1.0,
            cols: 5,
        };
        assert!(l.cells(&w).iter().all(|c| c.count == 0));
    }
}
