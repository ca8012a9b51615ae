//! `op_statistic.csv` / `op_statistic_*.csv`: time per op type and core type.
//!
//! Every variant reads the same: with or without `Device_id`, with or without `Model Name`,
//! headers with or without units, a UTF-8 BOM, extra columns. Rows with the same op type and
//! core type (one per model, or per slice file) are added up. Facts:
//! reference/profiling_and_dumps.md §1.2.

use super::columns::{Col, Table};
use super::error::ProfileError;
use serde::Serialize;
use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Time of one op type on one core type, as the profile gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TypeStat {
    /// `OP Type`.
    pub op_type: String,
    /// `Core Type` (`AI_CORE`, `AI_VECTOR_CORE`, `MIX_AIC`…).
    pub core_type: String,
    /// Number of kernels run.
    pub count: u64,
    /// Their total time in µs.
    pub total_us: f64,
    /// The shortest, in µs, when the file gives it.
    pub min_us: Option<f64>,
    /// The longest, in µs, when the file gives it.
    pub max_us: Option<f64>,
}

impl TypeStat {
    /// Average time in µs (0 for no kernels).
    pub fn avg_us(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.total_us / self.count as f64
        }
    }

    fn add(&mut self, other: &TypeStat) {
        self.count += other.count;
        self.total_us += other.total_us;
        self.min_us = min_opt(self.min_us, other.min_us);
        self.max_us = max_opt(self.max_us, other.max_us);
    }
}

pub(crate) fn min_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

pub(crate) fn max_opt(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// The rows of one profile's op statistic, keyed by (op type, core type).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct OpStatistic {
    /// One row per (op type, core type), by total time, longest first.
    pub rows: Vec<TypeStat>,
    /// The `Device_id` values seen (empty when the files have no such column), in order of
    /// first appearance.
    pub devices: Vec<String>,
}

impl OpStatistic {
    /// Total time of every row, in µs.
    pub fn total_us(&self) -> f64 {
        super::total(self.rows.iter().map(|r| r.total_us))
    }

    /// The table per step of a profile of `steps` steps: each row's time divided by them, its
    /// count too (rounded, and at least 1 for a type that ran); the shortest and longest
    /// kernels stay as they are.
    pub fn per_step(&self, steps: usize) -> OpStatistic {
        if steps <= 1 {
            return self.clone();
        }
        let n = steps as f64;
        OpStatistic {
            rows: self
                .rows
                .iter()
                .map(|r| TypeStat {
                    count: ((r.count as f64 / n).round() as u64).max(u64::from(r.count > 0)),
                    total_us: r.total_us / n,
                    ..r.clone()
                })
                .collect(),
            devices: self.devices.clone(),
        }
    }

    /// The row of `op_type` on `core_type`.
    pub fn get(&self, op_type: &str, core_type: &str) -> Option<&TypeStat> {
        self.rows
            .iter()
            .find(|r| r.op_type == op_type && r.core_type == core_type)
    }

    /// Builds the table from rows, adding up rows with the same key.
    pub fn from_rows(rows: impl IntoIterator<Item = TypeStat>) -> OpStatistic {
        let mut out = OpStatistic::default();
        let mut at: HashMap<(String, String), usize> = HashMap::new();
        for row in rows {
            out.push(&mut at, row);
        }
        out.sort();
        out
    }

    fn push(&mut self, at: &mut HashMap<(String, String), usize>, row: TypeStat) {
        match at.get(&(row.op_type.clone(), row.core_type.clone())) {
            Some(&i) => self.rows[i].add(&row),
            None => {
                at.insert(
                    (row.op_type.clone(), row.core_type.clone()),
                    self.rows.len(),
                );
                self.rows.push(row);
            }
        }
    }

    fn sort(&mut self) {
        self.rows.sort_by(|a, b| {
            b.total_us
                .total_cmp(&a.total_us)
                .then_with(|| a.op_type.cmp(&b.op_type))
                .then_with(|| a.core_type.cmp(&b.core_type))
        });
    }
}

/// Reads one op statistic file.
pub fn read(path: &Path) -> Result<OpStatistic, ProfileError> {
    read_files(&[path.to_path_buf()], None)
}

/// Reads and adds up several op statistic files (slices of one export). With `device`, only
/// the rows of that `Device_id`; [`OpStatistic::devices`] still lists every device seen.
pub fn read_files(paths: &[PathBuf], device: Option<&str>) -> Result<OpStatistic, ProfileError> {
    let mut out = OpStatistic::default();
    let mut at = HashMap::new();
    for path in paths {
        let table = Table::open(path)?;
        read_table(table, device, &mut out, &mut at)?;
    }
    out.sort();
    Ok(out)
}

/// Reads op statistic CSV text from `reader`; `path` names it in errors.
pub fn parse(reader: impl Read, path: &Path) -> Result<OpStatistic, ProfileError> {
    let mut out = OpStatistic::default();
    let mut at = HashMap::new();
    read_table(Table::from_reader(reader, path)?, None, &mut out, &mut at)?;
    out.sort();
    Ok(out)
}

fn read_table<R: Read>(
    mut t: Table<R>,
    device: Option<&str>,
    out: &mut OpStatistic,
    at: &mut HashMap<(String, String), usize>,
) -> Result<(), ProfileError> {
    // The columns and their units, taken from the header (not a copy of it: a broken file's
    // header can be thousands of columns).
    let (h, path) = (t.header(), t.path());
    let op_type = h.require(Col::OpType, path)?;
    let core_type = h.require(Col::CoreType, path)?;
    let count = h.require(Col::Count, path)?;
    let total = h.require(Col::TotalTime, path)?;
    let (min, max, dev) = (
        h.get(Col::MinTime),
        h.get(Col::MaxTime),
        h.get(Col::DeviceId),
    );
    let scale = |col| h.scale(col);
    let (total_scale, min_scale, max_scale) = (
        scale(Col::TotalTime),
        scale(Col::MinTime),
        scale(Col::MaxTime),
    );
    while t.next_row()? {
        if let Some(i) = dev {
            let d = t.text(i)?;
            if !d.is_empty() && !out.devices.iter().any(|x| x == d) {
                out.devices.push(d.to_string());
            }
            if device.is_some_and(|want| want != d) {
                continue;
            }
        }
        let ty = t.text(op_type)?;
        if ty.is_empty() {
            return Err(t.bad(op_type, ty, "an op type"));
        }
        let row = TypeStat {
            op_type: super::row::kept_name(ty),
            core_type: super::row::kept_name(t.text(core_type)?),
            count: t.count(count)?,
            total_us: t.required_number(total, total_scale)?,
            min_us: match min {
                Some(i) => t.number(i, min_scale)?,
                None => None,
            },
            max_us: match max {
                Some(i) => t.number(i, max_scale)?,
                None => None,
            },
        };
        out.push(at, row);
    }
    Ok(())
}
