//! Kernels from a profiler database: `ascend_pytorch_profiler[_{rank}].db` (torch_npu with
//! `export_type=db`), `ascend_mindspore_profiler_{rank}.db` and msprof's `msprof_<time>.db`.
//!
//! The rows are the ones `kernel_details.csv` would hold, rebuilt as the Ascend tools rebuild
//! them: `COMPUTE_TASK_INFO ⋈ TASK` with every text through `STRING_IDS` (the compute kernels),
//! then `COMMUNICATION_OP` (the HCCL rows). Times stay integer nanoseconds. Columns are probed,
//! never inferred from a schema version: `blockNum` before `blockDim`, and every optional table
//! and column may be missing. Steps come from `STEP_TIME`, each kernel placed by torch_npu's
//! device range of the step (through `CANN_API` connection ids) or, without `CANN_API`, by
//! msprof-analyze's host window; core times from `TASK_PMU_INFO`. Rows are read a page at a
//! time, so memory does not grow with the file. Facts: reference/profiler_db.md §1–§3, §5.

use super::error::ProfileError;
use super::row::KernelRow;
use super::step_ranges::{Launches, StepRanges};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Kernel rows read from the database per query.
const PAGE: i64 = 32_768;

/// A hasher for text ids: one multiplication (ids are integers the database made, not input
/// chosen to collide).
#[derive(Default)]
struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_i64(&mut self, n: i64) {
        // The high half folded down, so ids that share their low bits still spread.
        let x = (n as u64 ^ self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = x ^ (x >> 29);
    }
}

type IdHash = std::hash::BuildHasherDefault<IdHasher>;

/// `modelId` / `contextId` when the profiler had none (`DbConstant.DB_INVALID_VALUE`).
const INVALID: i64 = 4_294_967_295;

/// `ENUM_API_TYPE` id of the `node` level, when the database has no enum table.
const NODE_API: i64 = 10_000;

/// The core type of communication rows, as kernel_details.csv writes it.
pub const COMMUNICATION_CORE: &str = "HCCL";

/// Which profiler wrote a database, by its file name as msprof-analyze and MindStudio Insight
/// tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    /// `ascend_pytorch_profiler[_{rank}].db`.
    TorchNpu,
    /// `ascend_mindspore_profiler[_{rank}].db`.
    MindSpore,
    /// `msprof_<timestamp>.db`.
    Msprof,
}

impl Flavour {
    /// The flavour a file name says, with the rank it carries.
    pub fn of(name: &str) -> Option<(Flavour, Option<u32>)> {
        let stem = name.strip_suffix(".db")?;
        for (prefix, flavour) in [
            ("ascend_pytorch_profiler", Flavour::TorchNpu),
            ("ascend_mindspore_profiler", Flavour::MindSpore),
        ] {
            if let Some(rest) = stem.strip_prefix(prefix) {
                if rest.is_empty() {
                    return Some((flavour, None));
                }
                let digits = rest.strip_prefix('_')?;
                return (is_digits(digits, 16)).then(|| (flavour, digits.parse().ok()));
            }
        }
        let digits = stem.strip_prefix("msprof_")?;
        is_digits(digits, 16).then_some((Flavour::Msprof, None))
    }

    /// How users know it.
    pub fn label(self) -> &'static str {
        match self {
            Flavour::TorchNpu => "torch_npu profiler database",
            Flavour::MindSpore => "MindSpore profiler database",
            Flavour::Msprof => "msprof database",
        }
    }
}

fn is_digits(s: &str, most: usize) -> bool {
    !s.is_empty() && s.len() <= most && s.bytes().all(|b| b.is_ascii_digit())
}

/// True when `path` starts as an SQLite database does.
pub fn is_database(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| &magic == b"SQLite format 3\0")
}

/// How many kernel rows the database at `path` gives at most (rows of `COMPUTE_TASK_INFO` and
/// of `COMMUNICATION_OP` when it has one), when it is one and can be read: what reading it
/// keeps room for at once, instead of growing by doubling and holding the old and the new room
/// while it does.
pub fn kernel_rows(path: &Path) -> Option<usize> {
    if !is_database(path) {
        return None;
    }
    let conn = open(path, &mut Vec::new()).ok()?;
    let count = |table: &str| {
        conn.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| {
            r.get::<_, i64>(0)
        })
    };
    let compute = count("COMPUTE_TASK_INFO").ok()?;
    // A database without communication ops has no such table.
    let communication = count("COMMUNICATION_OP").unwrap_or(0);
    usize::try_from(compute + communication).ok()
}

/// The name of the newest `msprof_<timestamp>.db` among `names`, as msprof-analyze picks it.
pub fn newest_msprof<'a>(names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    names
        .filter(|n| matches!(Flavour::of(n), Some((Flavour::Msprof, _))))
        .max_by_key(|n| (n.len(), *n))
}

fn error(path: &Path, what: String, hint: &'static str) -> ProfileError {
    ProfileError::Unreadable {
        path: path.to_path_buf(),
        what,
        hint,
    }
}

const DAMAGED: &str = "the database is damaged or still being written: let the profiler finish, \
                       or export the profile again";
const NOT_PROFILER: &str = "give the profiler's database (ascend_pytorch_profiler_*.db, \
                            ascend_mindspore_profiler_*.db or msprof_*.db), not analysis.db or \
                            another SQLite file";

/// An SQLite error as a profile error naming the file.
fn sql(path: &Path, doing: &str, e: rusqlite::Error) -> ProfileError {
    let text = crate::text::sanitize(&e.to_string()).into_owned();
    let hint = if text.contains("locked") || text.contains("busy") {
        "another process holds the database: wait for it (MindStudio Insight or the profiler) \
         and try again"
    } else {
        DAMAGED
    };
    error(path, format!("{doing}: {text}"), hint)
}

/// The URI SQLite opens `path` with, its query `query`.
fn uri(path: &Path, query: &str) -> String {
    let mut out = String::from("file:");
    for b in path.as_os_str().as_encoded_bytes() {
        match b {
            b'/' | b'-' | b'_' | b'.' | b'~' => out.push(*b as char),
            b if b.is_ascii_alphanumeric() => out.push(*b as char),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

/// Opens `path` read-only; when that cannot read it (a database in WAL mode in a directory
/// skope cannot write), as immutable, saying so in `notes`.
fn open(path: &Path, notes: &mut Vec<String>) -> Result<Connection, ProfileError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_URI
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let probe = |c: &Connection| {
        c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
            r.get::<_, i64>(0)
        })
    };
    let first = Connection::open_with_flags(uri(path, "mode=ro"), flags);
    let failure = match first {
        Ok(c) => match probe(&c) {
            Ok(_) => return Ok(c),
            Err(e) => e,
        },
        Err(e) => e,
    };
    if !wal_mode(path) {
        return Err(sql(path, "cannot open it", failure));
    }
    let conn = Connection::open_with_flags(uri(path, "immutable=1"), flags)
        .map_err(|e| sql(path, "cannot open it", e))?;
    probe(&conn).map_err(|e| sql(path, "cannot open it", e))?;
    notes.push(format!(
        "{}: a WAL database that cannot be opened read-only here ({}), opened as immutable",
        file_name(path),
        crate::text::sanitize(&failure.to_string())
    ));
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.is_file() && m.len() > 0) {
        notes.push(format!(
            "{}: its -wal file is not empty and may hold rows skope cannot see (open it where \
             the directory is writable, or copy the directory)",
            file_name(path)
        ));
    }
    Ok(conn)
}

/// True when the file's header says WAL (bytes 18 and 19 are 2).
fn wal_mode(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 20];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head[18] == 2 && head[19] == 2)
}

fn file_name(path: &Path) -> String {
    crate::text::sanitize(
        &path
            .file_name()
            .map_or_else(|| path.to_string_lossy(), |n| n.to_string_lossy()),
    )
    .into_owned()
}

/// The tables and their columns.
struct Schema {
    tables: HashMap<String, Vec<String>>,
}

impl Schema {
    fn read(conn: &Connection, path: &Path) -> Result<Schema, ProfileError> {
        let mut names = Vec::new();
        {
            let mut stmt = conn
                .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
                .map_err(|e| sql(path, "cannot list its tables", e))?;
            let mut rows = stmt
                .query([])
                .map_err(|e| sql(path, "cannot list its tables", e))?;
            while let Some(row) = rows
                .next()
                .map_err(|e| sql(path, "cannot list its tables", e))?
            {
                if let ValueRef::Text(t) = row.get_ref(0).map_err(|e| sql(path, "tables", e))? {
                    names.push(String::from_utf8_lossy(t).into_owned());
                }
            }
        }
        let mut tables = HashMap::new();
        for name in names {
            if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                continue;
            }
            let mut stmt = conn
                .prepare(&format!("PRAGMA table_info({name})"))
                .map_err(|e| sql(path, "cannot read a table's columns", e))?;
            let cols: Vec<String> = stmt
                .query_map([], |r| r.get::<_, String>(1))
                .map_err(|e| sql(path, "cannot read a table's columns", e))?
                .filter_map(Result::ok)
                .collect();
            tables.insert(name, cols);
        }
        Ok(Schema { tables })
    }

    fn has(&self, table: &str) -> bool {
        self.tables.contains_key(table)
    }

    fn has_column(&self, table: &str, column: &str) -> bool {
        self.tables
            .get(table)
            .is_some_and(|c| c.iter().any(|n| n == column))
    }

    /// The first of `columns` that `table` has.
    fn first_of(&self, table: &str, columns: &[&'static str]) -> Option<&'static str> {
        columns.iter().copied().find(|c| self.has_column(table, c))
    }

    /// An error naming what `table` lacks of `columns`, when it lacks any.
    fn require(&self, path: &Path, table: &str, columns: &[&str]) -> Result<(), ProfileError> {
        let Some(have) = self.tables.get(table) else {
            let known = ["TASK", "COMPUTE_TASK_INFO", "STRING_IDS"];
            let missing: Vec<&str> = known.iter().copied().filter(|t| !self.has(t)).collect();
            return Err(error(
                path,
                format!(
                    "not a profiler database: it has no table {} (a profiler's has TASK, \
                     COMPUTE_TASK_INFO and STRING_IDS)",
                    missing.join(", ")
                ),
                NOT_PROFILER,
            ));
        };
        let missing: Vec<&str> = columns
            .iter()
            .copied()
            .filter(|c| !have.iter().any(|h| h == c))
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(error(
            path,
            format!(
                "a schema skope does not know: table {table} has no column {} (its columns: {})",
                missing.join(", "),
                crate::text::cut_middle(&crate::text::sanitize(&have.join(", ")), 300)
            ),
            "tell the skope team which profiler version wrote it; the CSV export \
             (export_type=text) reads meanwhile",
        ))
    }
}

/// An integer field, or `None` for NULL; text holding an integer reads too.
fn int(path: &Path, v: ValueRef<'_>, column: &str) -> Result<Option<i64>, ProfileError> {
    match v {
        ValueRef::Null => Ok(None),
        ValueRef::Integer(i) => Ok(Some(i)),
        ValueRef::Real(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(Some(f as i64)),
        ValueRef::Text(t) => match std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            Some(i) => Ok(Some(i)),
            None => Err(bad_field(path, column, &String::from_utf8_lossy(t))),
        },
        ValueRef::Real(f) => Err(bad_field(path, column, &f.to_string())),
        ValueRef::Blob(_) => Err(bad_field(path, column, "a blob")),
    }
}

fn bad_field(path: &Path, column: &str, value: &str) -> ProfileError {
    error(
        path,
        format!(
            "column {column} holds {:?}, not an integer",
            crate::text::cut_middle(&crate::text::sanitize(value), 40)
        ),
        DAMAGED,
    )
}

/// The steps of `STEP_TIME`, placed on the device through `CANN_API` when it links the tasks.
fn read_steps(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    notes: &mut Vec<String>,
) -> Result<StepRanges, ProfileError> {
    if !(schema.has("STEP_TIME") && schema.has_column("STEP_TIME", "startNs")) {
        return Ok(StepRanges::default());
    }
    let id = if schema.has_column("STEP_TIME", "id") {
        "id"
    } else {
        "rowid"
    };
    let doing = "cannot read STEP_TIME";
    let mut windows: Vec<(i64, i64, String)> = Vec::new();
    {
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {id}, startNs, endNs FROM STEP_TIME ORDER BY startNs"
            ))
            .map_err(|e| sql(path, doing, e))?;
        let mut rows = stmt.query([]).map_err(|e| sql(path, doing, e))?;
        while let Some(row) = rows.next().map_err(|e| sql(path, doing, e))? {
            let get = |i| row.get_ref(i).map_err(|e| sql(path, doing, e));
            let label = int(path, get(0)?, "STEP_TIME.id")?;
            let (Some(start), Some(end)) = (
                int(path, get(1)?, "STEP_TIME.startNs")?,
                int(path, get(2)?, "STEP_TIME.endNs")?,
            ) else {
                continue;
            };
            let label = label.map_or_else(|| (windows.len() + 1).to_string(), |l| l.to_string());
            windows.push((start, end.max(start), label));
        }
    }
    if windows.is_empty() {
        return Ok(StepRanges::default());
    }
    let linked = schema.has("CANN_API")
        && schema.has_column("CANN_API", "connectionId")
        && schema.has_column("CANN_API", "type")
        && schema.has_column("TASK", "connectionId");
    let mut launches = Launches::new(windows);
    if linked {
        let node = node_api_type(conn, schema);
        // One pass over the tasks: each linked to a `node` API inside a host window widens
        // that step's device range.
        let doing = "cannot read CANN_API ⋈ TASK";
        let mut stmt = conn
            .prepare(
                "SELECT CANN_API.startNs, TASK.startNs, TASK.endNs FROM TASK CROSS JOIN CANN_API \
                 ON CANN_API.connectionId = TASK.connectionId WHERE CANN_API.type = ?1",
            )
            .map_err(|e| sql(path, doing, e))?;
        let mut rows = stmt.query([node]).map_err(|e| sql(path, doing, e))?;
        while let Some(row) = rows.next().map_err(|e| sql(path, doing, e))? {
            let get = |i| row.get_ref(i).map_err(|e| sql(path, doing, e));
            let (Some(api), Some(start), Some(end)) = (
                int(path, get(0)?, "CANN_API.startNs")?,
                int(path, get(1)?, "TASK.startNs")?,
                int(path, get(2)?, "TASK.endNs")?,
            ) else {
                continue;
            };
            launches.launched(api, start, end);
        }
    }
    let steps = launches.finish();
    notes.push(if steps.by_device {
        format!(
            "{}: {} step(s) from STEP_TIME, kernels placed by each step's device range (the \
             tasks its node-level CANN_API calls launched, as torch_npu does)",
            file_name(path),
            steps.len()
        )
    } else {
        format!(
            "{}: {} step(s) from STEP_TIME, kernels placed by the host step window (no CANN_API \
             links to the tasks, as msprof-analyze does): a kernel that runs after its step's \
             host end counts in the next",
            file_name(path),
            steps.len()
        )
    });
    Ok(steps)
}

fn node_api_type(conn: &Connection, schema: &Schema) -> i64 {
    if schema.has("ENUM_API_TYPE") {
        conn.query_row(
            "SELECT id FROM ENUM_API_TYPE WHERE name = 'node'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .unwrap_or(NODE_API)
    } else {
        NODE_API
    }
}

/// Per task with PMU metrics: the time its cores ran, ns (`aic_total_time`, else
/// `aiv_total_time`), sorted by task.
fn read_core_times(
    conn: &Connection,
    schema: &Schema,
    path: &Path,
    strings: &HashMap<i64, Box<str>, IdHash>,
) -> Result<Vec<(i64, f64)>, ProfileError> {
    let mut out: Vec<(i64, f64)> = Vec::new();
    if !(schema.has("TASK_PMU_INFO")
        && ["globalTaskId", "name", "value"]
            .iter()
            .all(|c| schema.has_column("TASK_PMU_INFO", c)))
    {
        return Ok(out);
    }
    let id_of = |name: &str| strings.iter().find(|(_, v)| &***v == name).map(|(k, _)| *k);
    let (Some(aic), aiv) = (id_of("aic_total_time"), id_of("aiv_total_time")) else {
        return Ok(out);
    };
    let aiv = aiv.unwrap_or(aic);
    let doing = "cannot read TASK_PMU_INFO";
    let mut stmt = conn
        .prepare("SELECT globalTaskId, name, value FROM TASK_PMU_INFO WHERE name IN (?1, ?2)")
        .map_err(|e| sql(path, doing, e))?;
    let mut rows = stmt.query([aic, aiv]).map_err(|e| sql(path, doing, e))?;
    let mut aiv_times: Vec<(i64, f64)> = Vec::new();
    while let Some(row) = rows.next().map_err(|e| sql(path, doing, e))? {
        let get = |i| row.get_ref(i).map_err(|e| sql(path, doing, e));
        let Some(task) = int(path, get(0)?, "TASK_PMU_INFO.globalTaskId")? else {
            continue;
        };
        let name = int(path, get(1)?, "TASK_PMU_INFO.name")?;
        let value = match get(2)? {
            ValueRef::Integer(i) => i as f64,
            ValueRef::Real(f) if f.is_finite() => f,
            _ => continue,
        };
        if name == Some(aic) {
            out.push((task, value));
        } else {
            aiv_times.push((task, value));
        }
    }
    aiv_times.sort_by_key(|t| t.0);
    out.sort_by_key(|t| t.0);
    // A task's cube time when its cube cores ran, else its vector time (op_summary's rule).
    for t in &mut out {
        if t.1 <= 0.0
            && let Ok(i) = aiv_times.binary_search_by_key(&t.0, |a| a.0)
        {
            t.1 = aiv_times[i].1;
        }
    }
    for a in aiv_times {
        if out.binary_search_by_key(&a.0, |t| t.0).is_err() {
            out.push(a);
        }
    }
    out.sort_by_key(|t| t.0);
    Ok(out)
}

/// One row as the database holds it: ids and numbers.
#[derive(Debug, Clone, Copy, Default)]
struct Raw {
    name: Option<i64>,
    op_type: Option<i64>,
    core: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
    device: Option<i64>,
    stream: Option<i64>,
    model: Option<i64>,
    block: Option<i64>,
    shapes: Option<i64>,
    task: Option<i64>,
    communication: bool,
}

/// The kernel rows of one database, handed out one at a time.
pub struct DbKernels {
    path: PathBuf,
    conn: Connection,
    compute_sql: String,
    communication_sql: Option<String>,
    strings: HashMap<i64, Box<str>, IdHash>,
    steps: StepRanges,
    core_times: Vec<(i64, f64)>,
    page: Vec<Raw>,
    at: usize,
    last_rowid: Option<i64>,
    compute_done: bool,
    communication_done: bool,
    devices: Vec<i64>,
    unknown_strings: u64,
    /// The last device, stream and model seen, with their text.
    numbers: [(Option<i64>, String); 3],
    /// What the reader had to say: how it opened the file, how steps were found, what it
    /// could not read.
    pub notes: Vec<String>,
}

impl DbKernels {
    /// Opens the database at `path` and checks it holds kernels.
    pub fn open(path: &Path) -> Result<DbKernels, ProfileError> {
        let mut notes = Vec::new();
        let conn = open(path, &mut notes)?;
        let schema = Schema::read(&conn, path)?;
        schema.require(path, "TASK", &["startNs", "endNs", "globalTaskId"])?;
        schema.require(
            path,
            "COMPUTE_TASK_INFO",
            &["name", "globalTaskId", "opType"],
        )?;
        schema.require(path, "STRING_IDS", &["id", "value"])?;
        let strings = read_strings(&conn, path)?;
        let steps = read_steps(&conn, &schema, path, &mut notes)?;
        let core_times = read_core_times(&conn, &schema, path, &strings)?;
        let task_col = |c: &str| {
            if schema.has_column("TASK", c) {
                format!("TASK.{c}")
            } else {
                "NULL".to_string()
            }
        };
        let info_col = |c: Option<&str>| match c {
            Some(c) => format!("COMPUTE_TASK_INFO.{c}"),
            None => "NULL".to_string(),
        };
        let block = schema.first_of("COMPUTE_TASK_INFO", &["blockNum", "blockDim"]);
        let core = schema.first_of("COMPUTE_TASK_INFO", &["taskType"]);
        let shapes = schema.first_of("COMPUTE_TASK_INFO", &["inputShapes"]);
        let compute_sql = format!(
            "SELECT TASK.rowid, COMPUTE_TASK_INFO.name, COMPUTE_TASK_INFO.opType, {core}, \
             TASK.startNs, TASK.endNs, {device}, {stream}, {model}, {block}, {shapes}, \
             TASK.globalTaskId \
             FROM TASK CROSS JOIN COMPUTE_TASK_INFO \
             ON COMPUTE_TASK_INFO.globalTaskId = TASK.globalTaskId \
             WHERE TASK.rowid > ?1 ORDER BY TASK.rowid LIMIT ?2",
            core = info_col(core),
            device = task_col("deviceId"),
            stream = task_col("streamId"),
            model = task_col("modelId"),
            block = info_col(block),
            shapes = info_col(shapes),
        );
        let communication_sql = (schema.has("COMMUNICATION_OP")
            && ["opName", "startNs", "endNs"]
                .iter()
                .all(|c| schema.has_column("COMMUNICATION_OP", c)))
        .then(|| {
            let col = |c: &str| {
                if schema.has_column("COMMUNICATION_OP", c) {
                    c.to_string()
                } else {
                    "NULL".to_string()
                }
            };
            format!(
                "SELECT opName, {op_type}, startNs, endNs, {device} FROM COMMUNICATION_OP \
                 ORDER BY startNs",
                op_type = col("opType"),
                device = col("deviceId"),
            )
        });
        if block.is_none() {
            notes.push(format!(
                "{}: COMPUTE_TASK_INFO has neither blockNum nor blockDim: no block counts",
                file_name(path)
            ));
        }
        Ok(DbKernels {
            path: path.to_path_buf(),
            conn,
            compute_sql,
            communication_sql,
            strings,
            steps,
            core_times,
            page: Vec::new(),
            at: 0,
            last_rowid: None,
            compute_done: false,
            communication_done: false,
            devices: Vec::new(),
            unknown_strings: 0,
            numbers: Default::default(),
            notes,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The next row, or `None` after the last.
    pub fn next_row(&mut self) -> Result<Option<KernelRow<'_>>, ProfileError> {
        if !self.ready()? {
            return Ok(None);
        }
        Ok(self.take())
    }

    /// True when a row is ready for [`DbKernels::take`], reading a page when needed.
    pub(super) fn ready(&mut self) -> Result<bool, ProfileError> {
        if self.at >= self.page.len() && !self.fill()? {
            if self.unknown_strings > 0 {
                self.notes.push(format!(
                    "{}: {} text id(s) missing from STRING_IDS, shown as #<id>",
                    file_name(&self.path),
                    self.unknown_strings
                ));
                self.unknown_strings = 0;
            }
            return Ok(false);
        }
        Ok(true)
    }

    /// The row made ready by [`DbKernels::ready`].
    pub(super) fn take(&mut self) -> Option<KernelRow<'_>> {
        let raw = *self.page.get(self.at)?;
        self.at += 1;
        Some(self.row(raw))
    }

    /// Reads the next page; false when every row was read.
    fn fill(&mut self) -> Result<bool, ProfileError> {
        self.page.clear();
        self.at = 0;
        if !self.compute_done {
            self.compute_page()?;
            if !self.page.is_empty() {
                return Ok(true);
            }
            self.compute_done = true;
        }
        if !self.communication_done {
            self.communication_done = true;
            self.communication_rows()?;
        }
        Ok(!self.page.is_empty())
    }

    fn compute_page(&mut self) -> Result<(), ProfileError> {
        let path = self.path.as_path();
        let doing = "cannot read COMPUTE_TASK_INFO ⋈ TASK";
        let mut stmt = self
            .conn
            .prepare_cached(&self.compute_sql)
            .map_err(|e| sql(path, doing, e))?;
        let after = self.last_rowid.unwrap_or(i64::MIN);
        let mut rows = stmt
            .query(rusqlite::params![after, PAGE])
            .map_err(|e| sql(path, doing, e))?;
        while let Some(row) = rows.next().map_err(|e| sql(path, doing, e))? {
            let mut f = [None; 12];
            for (i, (slot, column)) in f.iter_mut().zip(COMPUTE_COLUMNS).enumerate() {
                *slot = int(
                    path,
                    row.get_ref(i).map_err(|e| sql(path, doing, e))?,
                    column,
                )?;
            }
            // Rows come in rowid order from a sound file; a damaged one can give them out of
            // order, and reading on from an earlier rowid would never end.
            match (self.last_rowid, f[0]) {
                (_, None) => {
                    return Err(error(
                        path,
                        "TASK has a row without a rowid".into(),
                        DAMAGED,
                    ));
                }
                (Some(before), Some(now)) if now <= before => {
                    return Err(error(
                        path,
                        format!("TASK's rows are out of order (rowid {now} after {before})"),
                        DAMAGED,
                    ));
                }
                _ => self.last_rowid = f[0],
            }
            if let Some(d) = f[6]
                && !self.devices.contains(&d)
                && self.devices.len() < 64
            {
                self.devices.push(d);
            }
            self.page.push(Raw {
                name: f[1],
                op_type: f[2],
                core: f[3],
                start: f[4],
                end: f[5],
                device: f[6],
                stream: f[7],
                model: f[8],
                block: f[9],
                shapes: f[10],
                task: f[11],
                communication: false,
            });
        }
        Ok(())
    }

    fn communication_rows(&mut self) -> Result<(), ProfileError> {
        let Some(query) = &self.communication_sql else {
            return Ok(());
        };
        let path = self.path.as_path();
        let doing = "cannot read COMMUNICATION_OP";
        let mut stmt = self.conn.prepare(query).map_err(|e| sql(path, doing, e))?;
        let mut rows = stmt.query([]).map_err(|e| sql(path, doing, e))?;
        // Without a deviceId column, the one device every kernel ran on.
        let only_device = (self.devices.len() == 1).then(|| self.devices[0]);
        while let Some(row) = rows.next().map_err(|e| sql(path, doing, e))? {
            let mut f = [None; 5];
            for (i, (slot, column)) in f.iter_mut().zip(COMMUNICATION_COLUMNS).enumerate() {
                *slot = int(
                    path,
                    row.get_ref(i).map_err(|e| sql(path, doing, e))?,
                    column,
                )?;
            }
            self.page.push(Raw {
                name: f[0],
                op_type: f[1],
                start: f[2],
                end: f[3],
                device: f[4].or(only_device),
                communication: true,
                ..Raw::default()
            });
        }
        Ok(())
    }

    /// Gives every text id of `raw` a text: an id `STRING_IDS` lacks becomes `#<id>`.
    fn resolve(&mut self, raw: &Raw) {
        for id in [raw.name, raw.op_type, raw.core, raw.shapes]
            .into_iter()
            .flatten()
        {
            if !self.strings.contains_key(&id) {
                self.unknown_strings += 1;
                self.strings.insert(id, format!("#{id}").into_boxed_str());
            }
        }
    }

    fn row(&mut self, raw: Raw) -> KernelRow<'_> {
        self.resolve(&raw);
        // Device, stream and model change seldom between rows: formatted only when they do.
        for (slot, value) in self.numbers.iter_mut().zip([
            raw.device,
            raw.stream,
            raw.model.filter(|m| *m != INVALID),
        ]) {
            if slot.0 != value {
                use std::fmt::Write;
                slot.1.clear();
                if let Some(n) = value {
                    let _ = write!(slot.1, "{n}");
                }
                slot.0 = value;
            }
        }
        let text = |id: Option<i64>| id.and_then(|id| self.strings.get(&id)).map(|s| &**s);
        let number = |i: usize| {
            let (value, text): &(Option<i64>, String) = &self.numbers[i];
            value.map(|_| text.as_str())
        };
        let duration_ns = match (raw.start, raw.end) {
            (Some(s), Some(e)) if e >= s => Some(e - s),
            _ => None,
        };
        let core_us = raw.task.and_then(|t| {
            let i = self.core_times.binary_search_by_key(&t, |c| c.0).ok()?;
            Some(self.core_times[i].1 / 1000.0)
        });
        let micros = |ns: i64| ns as f64 / 1000.0;
        KernelRow {
            step: raw.start.and_then(|s| self.steps.of(s)),
            name: text(raw.name).unwrap_or("N/A"),
            op_type: text(raw.op_type).unwrap_or("N/A"),
            core_type: if raw.communication {
                COMMUNICATION_CORE
            } else {
                text(raw.core).unwrap_or("")
            },
            start_us: raw.start.map(micros),
            duration_us: duration_ns.map(micros),
            start_ns: raw.start,
            duration_ns,
            device: number(0),
            model: number(2),
            iteration: None,
            wait_us: None,
            block_num: raw.block.and_then(|b| u32::try_from(b).ok()),
            input_shapes: text(raw.shapes),
            stream: number(1),
            core_us,
        }
    }
}

const COMPUTE_COLUMNS: [&str; 12] = [
    "TASK.rowid",
    "COMPUTE_TASK_INFO.name",
    "COMPUTE_TASK_INFO.opType",
    "COMPUTE_TASK_INFO.taskType",
    "TASK.startNs",
    "TASK.endNs",
    "TASK.deviceId",
    "TASK.streamId",
    "TASK.modelId",
    "COMPUTE_TASK_INFO.blockNum",
    "COMPUTE_TASK_INFO.inputShapes",
    "TASK.globalTaskId",
];

const COMMUNICATION_COLUMNS: [&str; 5] = [
    "COMMUNICATION_OP.opName",
    "COMMUNICATION_OP.opType",
    "COMMUNICATION_OP.startNs",
    "COMMUNICATION_OP.endNs",
    "COMMUNICATION_OP.deviceId",
];

fn read_strings(
    conn: &Connection,
    path: &Path,
) -> Result<HashMap<i64, Box<str>, IdHash>, ProfileError> {
    let doing = "cannot read STRING_IDS";
    let mut stmt = conn
        .prepare("SELECT id, value FROM STRING_IDS")
        .map_err(|e| sql(path, doing, e))?;
    let mut rows = stmt.query([]).map_err(|e| sql(path, doing, e))?;
    let mut out = HashMap::default();
    while let Some(row) = rows.next().map_err(|e| sql(path, doing, e))? {
        let Some(id) = int(
            path,
            row.get_ref(0).map_err(|e| sql(path, doing, e))?,
            "STRING_IDS.id",
        )?
        else {
            continue;
        };
        let value = match row.get_ref(1).map_err(|e| sql(path, doing, e))? {
            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(f) => f.to_string(),
            ValueRef::Null | ValueRef::Blob(_) => continue,
        };
        out.insert(id, value.into_boxed_str());
    }
    Ok(out)
}
