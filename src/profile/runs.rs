//! Every kernel run of one profile, kept compactly with its exact times, for what sums by name
//! cannot tell: which step a run belongs to, the how-many-th run of its kernel in the step it
//! is, and the interval a set of runs spans. A run costs [`super::kernels::BYTES_PER_RUN`]; names and labels
//! (steps, devices, streams, shapes) are kept once.

use super::error::ProfileError;
use super::kernels::{KernelRow, KernelTable};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// The label of runs whose file gives none (no `Step Id` column: the whole profile is one step).
pub const NO_LABEL: u32 = u32::MAX;

/// One kernel run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// The kernel's name (an index into [`Runs::name`]).
    pub name: u32,
    /// Its step's label, or [`NO_LABEL`].
    pub step: u32,
    /// Its device's label, or [`NO_LABEL`].
    pub device: u32,
    /// Its stream's label, or [`NO_LABEL`].
    pub stream: u32,
    /// Its input shapes' label, or [`NO_LABEL`].
    pub shapes: u32,
    /// Its start, ns (0 when the file gives no start times).
    pub start_ns: i64,
    /// Its duration, ns.
    pub dur_ns: i64,
    /// The wait before it on its stream, ns (at most `u32::MAX`): the file's `Wait Time`, or
    /// from the start times when the file has none (0 without either).
    pub wait_ns: u32,
}

impl Run {
    /// Where it ends, ns.
    pub fn end_ns(&self) -> i64 {
        self.start_ns.saturating_add(self.dur_ns)
    }
}

/// What is known of a kernel name: its op type and core type, as its first run gave them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameInfo {
    /// The name.
    pub name: Arc<str>,
    /// Its op type.
    pub op_type: Arc<str>,
    /// Its core type.
    pub core_type: Arc<str>,
}

/// Strings kept once, each with its index.
#[derive(Debug, Clone, Default)]
struct Labels {
    /// Hashed with foldhash: looked up for every row's name, step, stream, device and shapes.
    ids: foldhash::HashMap<Arc<str>, u32>,
    texts: Vec<Arc<str>>,
    /// Each kind of label's last id, plus one (0: none yet): a row's step, device and stream
    /// are mostly the row before's, found without hashing.
    last: [u32; 5],
}

impl Labels {
    /// The id of `text`, a label of kind `kind` (an index into `last`).
    fn id_of(&mut self, kind: usize, text: &str) -> u32 {
        let last = self.last[kind];
        if let Some(kept) = last
            .checked_sub(1)
            .and_then(|id| self.texts.get(id as usize))
            && **kept == *text
        {
            return last - 1;
        }
        let id = self.id(text);
        self.last[kind] = id.saturating_add(1);
        id
    }

    fn id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = self.texts.len() as u32;
        let kept: Arc<str> = Arc::from(text);
        self.ids.insert(Arc::clone(&kept), id);
        self.texts.push(kept);
        id
    }

    fn get(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }
}

/// The runs of one profile.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    runs: Vec<Run>,
    names: super::names::Names,
    infos: Vec<NameInfo>,
    labels: Labels,
    /// Run indices by (device, step), each step's in file order, built by [`Runs::index`].
    order: Vec<u32>,
    /// Run indices by (device, step), then name, then start, built by [`Runs::index`].
    by_name: Vec<u32>,
    /// The steps and devices in order, found by [`Runs::index`].
    step_list: Vec<u32>,
    device_list: Vec<u32>,
    /// Each (device, step, name) group of `by_name`, in order: its name and where it starts;
    /// each step's groups by name.
    groups: Vec<(u32, u32)>,
    /// Each (device, step) in order, with where its groups start in `groups`.
    unit_groups: Vec<(u32, u32, u32)>,
    /// True when the file gave start times (intervals and gaps can be measured).
    pub has_starts: bool,
    /// True when the file gave `Step Id` (or `Iteration Id`).
    pub has_steps: bool,
    /// True when the file gave wait times.
    pub has_waits: bool,
    /// The `Model ID`s seen, as labels.
    pub models: Vec<u32>,
}

/// The model a `Model ID` names: the integer before its first underscore (`48` of `48_1`, as
/// the origin graph writes it, and of `48`, as the profiler does; superkernel_ops_2026.md §1.4);
/// `None` for an id that is not such a number (it then stands for itself: fail closed).
pub fn model_number(id: &str) -> Option<&str> {
    let head = id.split('_').next()?;
    (!head.is_empty() && head.bytes().all(|b| b.is_ascii_digit())).then_some(head)
}

impl Runs {
    /// Reads `files` as [`KernelTable::read`] does, keeping every run too, within
    /// `free_memory` bytes (`None`: no limit).
    pub fn read(
        files: &[PathBuf],
        free_memory: Option<u64>,
    ) -> Result<(KernelTable, Runs), ProfileError> {
        let mut runs = Runs::default();
        // Room for a database's kernels at once (a CSV's count is not known before reading).
        let expected: usize = files
            .iter()
            .filter_map(|f| super::database::kernel_rows(f))
            .sum();
        let fits = free_memory.is_none_or(|m| expected as u64 * super::kernels::BYTES_PER_RUN <= m);
        if fits {
            runs.runs.reserve_exact(expected);
        }
        // The table and the runs give names the same ids, in the order first seen: the table's
        // lookup serves both.
        let mut table = KernelTable::read_keeping(files, free_memory, |row, name| {
            runs.add_named(row, name);
            runs.len()
        })?;
        if let Some(note) = runs.infer_steps() {
            table.notes.push(note);
        }
        runs.index();
        Ok((table, runs))
    }

    /// Adds one row as [`Runs::read`] does, the name looked up here.
    #[cfg(test)]
    fn add(&mut self, row: &KernelRow<'_>) {
        if row.duration_ns.is_none() {
            return;
        }
        let cut = crate::text::bounded(row.name, super::kernels::MAX_NAME);
        let name = self
            .names
            .find(cut.as_deref().unwrap_or(row.name))
            .unwrap_or(self.infos.len() as u32);
        self.add_named(row, name);
    }

    /// Adds one row whose name has id `name`, an id seen before or the next one (rows without a
    /// duration are left out, as the totals leave them).
    fn add_named(&mut self, row: &KernelRow<'_>, name: u32) {
        let Some(dur_ns) = row.duration_ns else {
            return;
        };
        if name as usize == self.infos.len() {
            // A name longer than any real kernel's is kept cut, as the kernel table keeps it.
            let cut = crate::text::bounded(row.name, super::kernels::MAX_NAME);
            let id = self.names.id(cut.as_deref().unwrap_or(row.name));
            let op_type = if super::columns::is_missing(row.op_type) {
                super::kernels::type_from_name(row.name)
            } else {
                row.op_type
            };
            self.infos.push(NameInfo {
                name: Arc::clone(self.names.text(id)),
                op_type: Arc::from(op_type),
                core_type: Arc::from(row.core_type),
            });
        }
        let mut label =
            |kind, text: Option<&str>| text.map_or(NO_LABEL, |t| self.labels.id_of(kind, t));
        // Without `Step Id`, the iteration is the step.
        let step = label(0, row.step.or(row.iteration));
        if let Some(model) = row.model {
            // `48_1` (the graph's model with its instance) and `48` (the profiler's) are one
            // model: counted by the number before the first underscore.
            let model = label(1, Some(model_number(model).unwrap_or(model)));
            if !self.models.contains(&model) {
                self.models.push(model);
            }
        }
        let device = label(2, row.device);
        let stream = label(3, row.stream);
        let shapes = label(4, row.input_shapes);
        self.has_steps |= row.step.is_some() || row.iteration.is_some();
        self.has_starts |= row.start_ns.is_some();
        self.has_waits |= row.wait_us.is_some();
        let wait_ns = row.wait_us.map_or(0, |w| {
            (w * 1000.0).round().clamp(0.0, u32::MAX as f64) as u32
        });
        self.runs.push(Run {
            name,
            step,
            device,
            stream,
            shapes,
            start_ns: row.start_ns.unwrap_or(0),
            dur_ns,
            wait_ns,
        });
        self.order.clear();
    }

    /// Without step ids, each repetition of the kernel sequence on a device taken as a step
    /// ([`super::repeats`]), when the sequence repeats; says so. Call before [`Runs::index`].
    fn infer_steps(&mut self) -> Option<String> {
        if self.has_steps || self.runs.is_empty() {
            return None;
        }
        // Names as ids, communication kernels' without their per-call indices (other names'
        // digits tell ops apart: layer0_qkv_proj, op_12).
        let mut plain: HashMap<String, u32> = HashMap::new();
        let plain_of: Vec<u32> = self
            .infos
            .iter()
            .map(|info| {
                let next = plain.len() as u32;
                let name = if super::row::is_communication(&info.op_type, &info.core_type) {
                    super::repeats::without_indices(&info.name)
                } else {
                    info.name.to_string()
                };
                *plain.entry(name).or_insert(next)
            })
            .collect();
        let mut devices: Vec<u32> = self.runs.iter().map(|r| r.device).collect();
        devices.sort_unstable();
        devices.dedup();
        let mut found = Vec::new();
        for device in devices {
            let mut order: Vec<usize> = (0..self.runs.len())
                .filter(|&i| self.runs[i].device == device)
                .collect();
            order.sort_by_key(|&i| (self.runs[i].start_ns, i));
            let sequence: Vec<u32> = order
                .iter()
                .map(|&i| plain_of[self.runs[i].name as usize])
                .collect();
            let Some(starts) = super::repeats::iteration_starts(&sequence) else {
                continue;
            };
            for (k, window) in starts.iter().enumerate() {
                let end = starts.get(k + 1).copied().unwrap_or(order.len());
                let label = self.labels.id(&(k + 1).to_string());
                for &i in &order[*window..end] {
                    self.runs[i].step = label;
                }
            }
            found.push(starts.len());
        }
        let (&most, &least) = (found.iter().max()?, found.iter().min()?);
        self.has_steps = true;
        Some(if most == least {
            format!("no Step Id: steps inferred from a repeating kernel sequence ({most})")
        } else {
            format!(
                "no Step Id: steps inferred from a repeating kernel sequence ({least} to {most} \
                 by device)"
            )
        })
    }

    /// Number of runs kept.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// True when no run had a duration.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Every run, in file order.
    pub fn all(&self) -> &[Run] {
        &self.runs
    }

    /// Number of distinct kernel names (ids run from 0 to this).
    pub fn names(&self) -> usize {
        self.infos.len()
    }

    /// What is known of name `id`.
    pub fn name(&self, id: u32) -> &NameInfo {
        &self.infos[id as usize]
    }

    /// The id of kernel `name`, when it ran.
    pub fn name_id(&self, name: &str) -> Option<u32> {
        match crate::text::bounded(name, super::kernels::MAX_NAME) {
            Some(cut) => self.names.get(&cut),
            None => self.names.get(name),
        }
    }

    /// The text of label `id` (`""` for [`NO_LABEL`]).
    pub fn label(&self, id: u32) -> &str {
        self.labels.texts.get(id as usize).map_or("", |t| t)
    }

    /// The id of label `text`, when a run carries it.
    pub fn label_id(&self, text: &str) -> Option<u32> {
        self.labels.get(text)
    }

    /// The steps, in order: by number when every label is one, else as they first appear
    /// ([`Runs::index`] first).
    pub fn steps(&self) -> &[u32] {
        &self.step_list
    }

    /// The devices, in the same order as steps ([`Runs::index`] first).
    pub fn devices(&self) -> &[u32] {
        &self.device_list
    }

    /// The labels of `ids` (in file order), each once, in order (see [`Runs::steps`]).
    fn distinct(&self, ids: impl Iterator<Item = u32>) -> Vec<u32> {
        let mut seen = Vec::new();
        // Labels are ids below the labels' count, or NO_LABEL: marked in a vector, not hashed.
        let mut known = vec![false; self.labels.texts.len() + 1];
        let mut before = None;
        for id in ids {
            if before == Some(id) {
                continue;
            }
            before = Some(id);
            let slot = (id as usize).min(self.labels.texts.len());
            if !known[slot] {
                known[slot] = true;
                seen.push(id);
            }
        }
        let number = |id: &u32| self.label(*id).parse::<f64>().ok();
        if seen.iter().all(|id| number(id).is_some()) {
            seen.sort_by(|a, b| {
                number(a)
                    .unwrap_or(0.0)
                    .total_cmp(&number(b).unwrap_or(0.0))
            });
        }
        seen
    }

    /// Each device step's runs (indices into [`Runs::all`]), by device, then step: once
    /// [`Runs::index`] has ordered them.
    pub fn units(&self) -> impl Iterator<Item = &[u32]> + '_ {
        let runs = &self.runs;
        self.order.chunk_by(move |&a, &b| {
            let (x, y) = (&runs[a as usize], &runs[b as usize]);
            (x.device, x.step) == (y.device, y.step)
        })
    }

    /// Orders the runs for [`Runs::units`] and [`Runs::of`]; called once after the last run is
    /// added.
    pub fn index(&mut self) {
        if self.order.len() == self.runs.len() {
            return;
        }
        let runs = &self.runs;
        // The (device, step) of each stretch of runs that share it, in file order: a few
        // hundred in a profiler's file, where the runs are millions.
        let mut stretches: Vec<(u32, u32)> = Vec::new();
        for r in runs {
            if stretches.last() != Some(&(r.device, r.step)) {
                stretches.push((r.device, r.step));
            }
        }
        let order = by_unit(runs, &stretches);
        let grouped = by_unit_and_name(runs, &order, self.infos.len());
        self.order = order;
        self.by_name = grouped.by_name;
        self.groups = grouped.groups;
        self.unit_groups = grouped.units;
        if self.has_starts && !self.has_waits {
            self.measure_waits();
        }
        self.step_list = self.distinct(stretches.iter().map(|s| s.1));
        self.device_list = self.distinct(stretches.iter().map(|s| s.0));
    }

    /// Each run's wait, from the start times, as the profiler measures `Wait Time`: from the
    /// end of the kernel before it on its stream (on its device) to its start; 0 for a stream's
    /// first, and for a kernel that starts before the one before it ends.
    fn measure_waits(&mut self) {
        let runs = &mut self.runs;
        let mut by_stream: Vec<u32> = (0..runs.len() as u32).collect();
        by_stream.sort_unstable_by_key(|&i| {
            let r = &runs[i as usize];
            (r.device, r.stream, r.start_ns, i)
        });
        let mut before: Option<(u32, u32, i64)> = None;
        for i in by_stream {
            let r = &mut runs[i as usize];
            r.wait_ns = match before {
                Some((device, stream, end)) if (device, stream) == (r.device, r.stream) => {
                    (r.start_ns.saturating_sub(end)).clamp(0, u32::MAX as i64) as u32
                }
                _ => 0,
            };
            let end = match before {
                Some((device, stream, end)) if (device, stream) == (r.device, r.stream) => {
                    end.max(r.end_ns())
                }
                _ => r.end_ns(),
            };
            before = Some((r.device, r.stream, end));
        }
    }

    /// The runs of kernel `name` on `device` in `step`, by start ([`Runs::index`] first; none
    /// before it).
    pub fn of(&self, device: u32, step: u32, name: u32) -> impl Iterator<Item = &Run> + '_ {
        let (from, to) = self.place(device, step, name).unwrap_or((0, 0));
        self.by_name[from..to]
            .iter()
            .map(|&i| &self.runs[i as usize])
    }

    /// Where in `by_name` the runs of `name` on `device` in `step` are.
    fn place(&self, device: u32, step: u32, name: u32) -> Option<(usize, usize)> {
        let unit = self
            .unit_groups
            .binary_search_by_key(&(device, step), |&(d, s, _)| (d, s))
            .ok()?;
        let first = self.unit_groups[unit].2 as usize;
        let last = self
            .unit_groups
            .get(unit + 1)
            .map_or(self.groups.len(), |u| u.2 as usize);
        let group = first
            + self.groups[first..last]
                .binary_search_by_key(&name, |&(n, _)| n)
                .ok()?;
        // A group ends where the next one (maybe the next step's) starts.
        let end = self
            .groups
            .get(group + 1)
            .map_or(self.by_name.len(), |g| g.1 as usize);
        Some((self.groups[group].1 as usize, end))
    }
}

/// Run indices by (device, step) in id order, each unit's in file order: a counting sort, as a
/// file holds a few hundred device steps and millions of runs (a profiler writes a step's runs
/// in the order they started, so the account's sweep finds them nearly sorted). `stretches`:
/// the (device, step) of each stretch of runs that share it, in file order.
fn by_unit(runs: &[Run], stretches: &[(u32, u32)]) -> Vec<u32> {
    // As profilers write them: each unit's runs together, the units in the order of their
    // ids (given as first seen), so the file's order is the order.
    if stretches.is_sorted_by(|a, b| a < b) {
        return (0..runs.len() as u32).collect();
    }
    let mut units = stretches.to_vec();
    units.sort_unstable();
    units.dedup();
    // Each run's unit, found again only where the unit changes from the run before.
    let mut rank: Vec<u32> = Vec::with_capacity(runs.len());
    let mut before: Option<((u32, u32), u32)> = None;
    for r in runs {
        let unit = (r.device, r.step);
        let k = match before {
            Some((at, k)) if at == unit => k,
            _ => units.binary_search(&unit).unwrap_or(0) as u32,
        };
        before = Some((unit, k));
        rank.push(k);
    }
    let mut next = vec![0u32; units.len() + 1];
    for &k in &rank {
        next[k as usize + 1] += 1;
    }
    for k in 1..next.len() {
        next[k] += next[k - 1];
    }
    let mut order = vec![0u32; runs.len()];
    for (i, &k) in rank.iter().enumerate() {
        order[next[k as usize] as usize] = i as u32;
        next[k as usize] += 1;
    }
    order
}

/// The runs grouped by (device, step), then name, as [`by_unit_and_name`] finds them.
struct Grouped {
    /// Run indices by (device, step), then name, then start.
    by_name: Vec<u32>,
    /// Each (device, step, name) group in `by_name`, in order: its name and where it starts.
    groups: Vec<(u32, u32)>,
    /// Each (device, step) in order, with where its groups start in `groups`.
    units: Vec<(u32, u32, u32)>,
}

/// `order` (from [`by_unit`]) with each unit's runs grouped by name, each name's runs by
/// (start, index): a counting sort within each unit, the counts kept for the names it touched
/// only. The groups are listed as they are made, so finding one reads no run: the names of a
/// step, found in the order they ran, are in the order of their ids already (ids are given in
/// the order names first run), so putting them in order costs one pass.
fn by_unit_and_name(runs: &[Run], order: &[u32], names: usize) -> Grouped {
    let mut out = vec![0u32; order.len()];
    let mut groups = Vec::new();
    let mut units = Vec::new();
    let mut count = vec![0u32; names];
    let mut present: Vec<u32> = Vec::new();
    let mut from = 0;
    let unit_of = |i: u32| {
        let r = &runs[i as usize];
        (r.device, r.step)
    };
    let name_of = |i: u32| runs[i as usize].name;
    for unit in order.chunk_by(|&a, &b| unit_of(a) == unit_of(b)) {
        let (device, step) = unit_of(unit[0]);
        // Each name run once in the step, in the order of their ids (as the step that first
        // ran them ran them): the step's order is the order by name.
        if unit.windows(2).all(|w| name_of(w[0]) < name_of(w[1])) {
            units.push((device, step, groups.len() as u32));
            for &i in unit {
                groups.push((name_of(i), from as u32));
                out[from] = i;
                from += 1;
            }
            continue;
        }
        for &i in unit {
            let n = runs[i as usize].name as usize;
            if count[n] == 0 {
                present.push(n as u32);
            }
            count[n] += 1;
        }
        present.sort_unstable();
        units.push((device, step, groups.len() as u32));
        // Counts become each name's next place.
        let mut at = from as u32;
        for &n in &present {
            let c = count[n as usize];
            groups.push((n, at));
            count[n as usize] = at;
            at += c;
        }
        for &i in unit {
            let n = runs[i as usize].name as usize;
            out[count[n] as usize] = i;
            count[n] += 1;
        }
        let mut rest = &mut out[from..from + unit.len()];
        for &n in &present {
            let (group, after) = rest.split_at_mut(count[n as usize] as usize - from);
            let key = |&i: &u32| (runs[i as usize].start_ns, i);
            if !group.is_sorted_by_key(key) {
                group.sort_unstable_by_key(key);
            }
            from += group.len();
            rest = after;
        }
        for &n in &present {
            count[n as usize] = 0;
        }
        present.clear();
    }
    Grouped {
        by_name: out,
        groups,
        units,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row<'a>(step: &'a str, name: &'a str, start_ns: i64, dur_ns: i64) -> KernelRow<'a> {
        KernelRow {
            step: Some(step),
            name,
            op_type: "Add",
            core_type: "AI_VECTOR_CORE",
            start_us: None,
            duration_us: None,
            start_ns: Some(start_ns),
            duration_ns: Some(dur_ns),
            device: None,
            model: None,
            iteration: None,
            wait_us: None,
            block_num: None,
            input_shapes: None,
            stream: None,
            core_us: None,
        }
    }

    #[test]
    fn runs_are_found_by_step_and_name_in_start_order() {
        let mut runs = Runs::default();
        for (step, name, start) in [
            ("10", "b", 50),
            ("2", "a", 30),
            ("2", "a", 10),
            ("10", "a", 40),
        ] {
            runs.add(&row(step, name, start, 5));
        }
        runs.index();
        let steps: Vec<&str> = runs.steps().iter().map(|s| runs.label(*s)).collect();
        assert_eq!(runs.devices(), [NO_LABEL]);
        assert_eq!(steps, ["2", "10"], "numeric order");
        let (two, a) = (
            runs.label_id("2").unwrap_or(NO_LABEL),
            runs.name_id("a").unwrap_or(0),
        );
        let starts: Vec<i64> = runs.of(NO_LABEL, two, a).map(|r| r.start_ns).collect();
        assert_eq!(starts, [10, 30]);
        assert_eq!(runs.of(NO_LABEL, two, 99).count(), 0);
        assert!(runs.has_steps && runs.has_starts);
    }

    #[test]
    fn each_step_gives_its_runs_in_file_order_and_each_name_its_runs_by_start() {
        // Two steps interleaved, then each step's runs together as profilers write them; a
        // name run twice in a step and out of start order.
        let interleaved = [
            ("1", "a", 10),
            ("2", "b", 100),
            ("1", "b", 20),
            ("1", "a", 5),
            ("2", "a", 90),
            ("1", "c", 30),
        ];
        let together = [
            ("1", "a", 10),
            ("1", "b", 20),
            ("1", "a", 5),
            ("1", "c", 30),
            ("2", "b", 100),
            ("2", "a", 90),
        ];
        for rows in [interleaved, together] {
            let mut runs = Runs::default();
            for (step, name, start) in rows {
                runs.add(&row(step, name, start, 1));
            }
            runs.index();
            let units: Vec<Vec<i64>> = runs
                .units()
                .map(|unit| {
                    unit.iter()
                        .map(|&i| runs.all()[i as usize].start_ns)
                        .collect()
                })
                .collect();
            assert_eq!(units, [vec![10, 20, 5, 30], vec![100, 90]]);
            let one = runs.label_id("1").unwrap_or(NO_LABEL);
            let a = runs.name_id("a").unwrap_or(0);
            let starts: Vec<i64> = runs.of(NO_LABEL, one, a).map(|r| r.start_ns).collect();
            assert_eq!(starts, [5, 10]);
            let b = runs.name_id("b").unwrap_or(0);
            let two = runs.label_id("2").unwrap_or(NO_LABEL);
            assert_eq!(
                runs.of(NO_LABEL, two, b)
                    .map(|r| r.start_ns)
                    .collect::<Vec<_>>(),
                [100]
            );
        }
    }

    #[test]
    fn steps_that_run_each_kernel_once_in_the_same_order_are_found_as_any_other() {
        // Each step runs a, b, c once (the usual graph), the last one c, b, a.
        let mut runs = Runs::default();
        for (step, names) in [
            ("1", ["a", "b", "c"]),
            ("2", ["a", "b", "c"]),
            ("3", ["c", "b", "a"]),
        ] {
            for (k, name) in names.into_iter().enumerate() {
                let start = 100 * step.parse::<i64>().unwrap_or(0) + k as i64;
                runs.add(&row(step, name, start, 1));
            }
        }
        runs.index();
        for (step, starts) in [
            ("1", [100, 101, 102]),
            ("2", [200, 201, 202]),
            ("3", [302, 301, 300]),
        ] {
            let step = runs.label_id(step).unwrap_or(NO_LABEL);
            let found: Vec<i64> = ["a", "b", "c"]
                .iter()
                .flat_map(|n| runs.of(NO_LABEL, step, runs.name_id(n).unwrap_or(9)))
                .map(|r| r.start_ns)
                .collect();
            assert_eq!(found, starts);
        }
        let units: Vec<usize> = runs.units().map(<[u32]>::len).collect();
        assert_eq!(units, [3, 3, 3]);
    }

    #[test]
    fn without_a_step_id_the_iteration_is_the_step_and_models_are_counted() {
        let mut runs = Runs::default();
        for (iteration, model) in [("7", "48_1"), ("8", "48"), ("8", "49"), ("9", "graph_a")] {
            let mut r = row("", "a", 0, 5);
            r.step = None;
            r.iteration = Some(iteration);
            r.model = Some(model);
            runs.add(&r);
        }
        runs.index();
        let steps: Vec<&str> = runs.steps().iter().map(|s| runs.label(*s)).collect();
        assert_eq!(steps, ["7", "8", "9"]);
        assert!(runs.has_steps);
        // 48_1 and 48 are one model; 49 another; an id that is no number stands for itself.
        let models: Vec<&str> = runs.models.iter().map(|&m| runs.label(m)).collect();
        assert_eq!(models, ["48", "49", "graph_a"]);
        assert_eq!(
            (
                model_number("48_1"),
                model_number("_1"),
                model_number("x_1")
            ),
            (Some("48"), None, None)
        );
    }
}
