//! Profiler databases written from the documented schema (reference/profiler_db.md §2): the
//! tables a torch_npu `export_type=db` run leaves — `STRING_IDS` with torch_npu's sparse ids,
//! `TASK` with non-kernel tasks among the kernels, `COMPUTE_TASK_INFO` in either column era
//! (`blockDim` / `blockNum`), and, as asked, `COMMUNICATION_OP`, `STEP_TIME` with `CANN_API`
//! links, `TASK_PMU_INFO` and `ENUM_API_TYPE`. Kernels come from a list, or from a
//! kernel_details.csv, so a test can hold a database against the CSV of the same kernels.

use rusqlite::{Connection, params};
use std::collections::HashMap;
use std::path::Path;

/// One kernel (or communication op) to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub op_type: String,
    /// Accelerator core (`COMPUTE_TASK_INFO.taskType`); `HCCL` writes a communication op.
    pub core: String,
    pub start_ns: i64,
    pub dur_ns: i64,
    pub stream: i64,
    pub device: i64,
    /// The step it runs in (`ProfilerStep#N`), when steps are written.
    pub step: Option<i64>,
    pub block: i64,
    pub shapes: String,
    /// `aic_total_time`, ns, when PMU metrics are written.
    pub core_ns: Option<f64>,
}

/// What the database holds besides the kernels.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// `blockNum`/`mixBlockNum` (2026 on) rather than `blockDim`/`mixBlockDim`.
    pub block_num: bool,
    /// `STEP_TIME` from the kernels' steps.
    pub steps: bool,
    /// `CANN_API` node rows linking each task to its launch (torch_npu's device step range).
    pub cann_api: bool,
    /// `TASK_PMU_INFO` (Level1 and up).
    pub pmu: bool,
    /// `COMMUNICATION_OP` (the HCCL kernels go there).
    pub communication: bool,
    /// Put the database in WAL mode, as MindStudio Insight leaves one it opened.
    pub wal: bool,
    /// 512-byte pages (the smallest SQLite has): a small file, for fuzzing seeds.
    pub small_pages: bool,
}

impl Shape {
    /// A torch_npu Level1 database of 2025: every table, `blockDim`.
    pub const FULL: Shape = Shape {
        block_num: false,
        steps: true,
        cann_api: true,
        pmu: true,
        communication: true,
        wal: false,
        small_pages: false,
    };

    /// A Level0 database: no PMU metrics.
    pub const LEVEL0: Shape = Shape {
        pmu: false,
        ..Shape::FULL
    };
}

/// torch_npu's first framework string id (`1 << 28`): ids are sparse.
const STRING_BASE: i64 = 1 << 28;

struct Strings {
    ids: HashMap<String, i64>,
}

impl Strings {
    fn id(&mut self, conn: &Connection, s: &str) -> i64 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = STRING_BASE + self.ids.len() as i64 * 3;
        conn.prepare_cached("INSERT INTO STRING_IDS VALUES (?1, ?2)")
            .and_then(|mut st| st.execute(params![id, s]))
            .expect("insert a string");
        self.ids.insert(s.to_string(), id);
        id
    }
}

/// Runs `sql` with `params` through the statement cache (a generated database has millions of
/// rows).
fn run(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}

/// Writes `kernels` as a profiler database at `path`.
pub fn write(path: &Path, kernels: &[Kernel], shape: Shape) {
    write_all(path, kernels.iter().cloned(), shape);
}

/// Writes the kernels `kernels` yields as a profiler database at `path`, holding none of them.
pub fn write_all(path: &Path, kernels: impl Iterator<Item = Kernel>, shape: Shape) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("create the database's directory");
    }
    let _ = std::fs::remove_file(path);
    let mut conn = Connection::open(path).expect("create the database");
    if shape.small_pages {
        conn.pragma_update(None, "page_size", 512)
            .expect("page size");
    }
    let (block, mix) = if shape.block_num {
        ("blockNum", "mixBlockNum")
    } else {
        ("blockDim", "mixBlockDim")
    };
    let mut ddl = format!(
        "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY, value TEXT);
         CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId INTEGER,\
           globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,\
           streamId INTEGER,taskId INTEGER,modelId INTEGER);
         CREATE INDEX TaskIndex ON TASK (startNs,globalTaskId);
         CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,\
           {block} INTEGER,{mix} INTEGER,taskType INTEGER,opType INTEGER,inputFormats INTEGER,\
           inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,\
           outputDataTypes INTEGER,outputShapes INTEGER,attrInfo INTEGER{extra});
         CREATE TABLE META_DATA (name TEXT, value TEXT);
         INSERT INTO META_DATA VALUES ('SCHEMA_VERSION', '{version}');
         CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY, name TEXT);
         INSERT INTO ENUM_API_TYPE VALUES (5000,'runtime'),(10000,'node'),(20000,'acl');",
        extra = if shape.block_num {
            ",opState INTEGER,hf32Eligible INTEGER"
        } else {
            ""
        },
        version = if shape.block_num { "1.2.0" } else { "1.0.0" },
    );
    if shape.communication {
        ddl.push_str(
            "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,\
             connectionId INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,\
             retry INTEGER,dataType INTEGER,algType INTEGER,count NUMERIC,opType INTEGER);",
        );
    }
    if shape.steps {
        ddl.push_str("CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);");
    }
    if shape.cann_api {
        ddl.push_str(
            "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,\
             globalTid INTEGER,connectionId INTEGER PRIMARY KEY,name INTEGER);",
        );
    }
    if shape.pmu {
        ddl.push_str(
            "CREATE TABLE TASK_PMU_INFO (globalTaskId INTEGER,name INTEGER,value NUMERIC);",
        );
    }
    conn.execute_batch(&ddl).expect("create the tables");
    let tx = conn.transaction().expect("begin");
    let mut strings = Strings {
        ids: HashMap::new(),
    };
    let mut steps: HashMap<i64, (i64, i64)> = HashMap::new();
    let (aic, aiv) = (
        strings.id(&tx, "aic_total_time"),
        strings.id(&tx, "aiv_total_time"),
    );
    let hw = strings.id(&tx, "KERNEL_AIVEC");
    let na = strings.id(&tx, "N/A");
    let mut task_id = 0i64;
    for (i, k) in kernels.enumerate() {
        let global = i as i64 * 2 + 1;
        let connection = i as i64 + 100;
        let launch = k.start_ns - 20_000;
        if let Some(step) = k.step {
            let w = steps.entry(step).or_insert((launch, launch));
            w.0 = w.0.min(launch - 1_000);
            w.1 = w.1.max(launch + 1_000);
        }
        if shape.cann_api {
            run(
                &tx,
                "INSERT INTO CANN_API VALUES (?1, ?2, 10000, 77, ?3, ?4)",
                params![launch, launch + 500, connection, na],
            )
            .expect("insert an API");
        }
        if k.core == "HCCL" {
            if shape.communication {
                let (name, ty) = (strings.id(&tx, &k.name), strings.id(&tx, &k.op_type));
                run(
                    &tx,
                    "INSERT INTO COMMUNICATION_OP VALUES (?1,?2,?3,?4,0,?5,0,0,0,0,1,?6)",
                    params![
                        name,
                        k.start_ns,
                        k.start_ns + k.dur_ns,
                        connection,
                        global,
                        ty
                    ],
                )
                .expect("insert a communication op");
            }
            continue;
        }
        task_id += 1;
        run(
            &tx,
            "INSERT INTO TASK VALUES (?1,?2,?3,?4,?5,1,?6,4294967295,?7,?8,4294967295)",
            params![
                k.start_ns,
                k.start_ns + k.dur_ns,
                k.device,
                connection,
                global,
                hw,
                k.stream,
                task_id
            ],
        )
        .expect("insert a task");
        let (name, ty, core, shapes) = (
            strings.id(&tx, &k.name),
            strings.id(&tx, &k.op_type),
            strings.id(&tx, &k.core),
            strings.id(&tx, &k.shapes),
        );
        let sql = if shape.block_num {
            "INSERT INTO COMPUTE_TASK_INFO VALUES (?1,?2,?3,0,?4,?5,?6,?6,?7,?6,?6,?6,?6,?6,?6)"
        } else {
            "INSERT INTO COMPUTE_TASK_INFO VALUES (?1,?2,?3,0,?4,?5,?6,?6,?7,?6,?6,?6,?6)"
        };
        run(
            &tx,
            sql,
            params![name, global, k.block, core, ty, na, shapes],
        )
        .expect("insert compute info");
        if shape.pmu
            && let Some(ns) = k.core_ns
        {
            run(
                &tx,
                "INSERT INTO TASK_PMU_INFO VALUES (?1, ?2, ?3), (?1, ?4, 0)",
                params![global, aic, ns, aiv],
            )
            .expect("insert PMU metrics");
        }
        // A non-kernel task between kernels, as real databases have (events, SDMA).
        run(
            &tx,
            "INSERT INTO TASK VALUES (?1,?2,?3,NULL,?4,1,?5,4294967295,?6,?7,4294967295)",
            params![
                k.start_ns + k.dur_ns,
                k.start_ns + k.dur_ns + 100,
                k.device,
                global + 1,
                na,
                k.stream,
                task_id + 100_000
            ],
        )
        .expect("insert an event task");
    }
    if shape.steps {
        let mut list: Vec<(i64, (i64, i64))> = steps.into_iter().collect();
        list.sort();
        for (id, (start, end)) in list {
            run(
                &tx,
                "INSERT INTO STEP_TIME VALUES (?1, ?2, ?3)",
                params![id, start, end],
            )
            .expect("insert a step");
        }
    }
    tx.commit().expect("commit");
    if shape.wal {
        conn.pragma_update(None, "journal_mode", "WAL")
            .expect("WAL mode");
    }
}

/// The kernels of a kernel_details.csv text (`Step Id`, `Device_id`, `Name`, `Type`,
/// `Accelerator Core`, `Start Time(us)`, `Duration(us)`, `Stream ID`, as written by
/// `profile_pair`).
pub fn from_kernel_details(text: &str) -> Vec<Kernel> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_string)
        .collect();
    let col = |name: &str| header.iter().position(|h| h == name);
    let ns = |s: &str| {
        skope::profile::columns::decimal_nanos(s.trim(), 1000).unwrap_or_else(|| panic!("{s:?}"))
    };
    let mut out = Vec::new();
    for record in reader.records() {
        let r = record.expect("a row");
        let get = |name: &str| col(name).and_then(|i| r.get(i)).unwrap_or("");
        out.push(Kernel {
            name: get("Name").to_string(),
            op_type: get("Type").to_string(),
            core: get("Accelerator Core").to_string(),
            start_ns: ns(get("Start Time(us)")),
            dur_ns: ns(get("Duration(us)")),
            stream: get("Stream ID").parse().unwrap_or(0),
            device: get("Device_id").parse().unwrap_or(0),
            step: get("Step Id").parse().ok(),
            block: get("Block Dim").parse().unwrap_or(8),
            shapes: "\"1,128\"".to_string(),
            core_ns: None,
        });
    }
    out
}

/// A small workload: `steps` steps of a few kernels on two streams, with a communication op
/// in each, and known core times.
pub fn workload(steps: i64) -> Vec<Kernel> {
    let mut out = Vec::new();
    let mut t = 1_736_410_576_404_465_403i64;
    for step in 1..=steps {
        for (i, (name, ty, core, dur)) in [
            ("layer0_matmul", "MatMulV2", "AI_CORE", 120_125),
            ("layer0_add", "Add", "AI_VECTOR_CORE", 3_333),
            ("layer0_rms", "RmsNorm", "MIX_AIV", 10_001),
            ("hcom_allReduce__210_0_1", "hcom_allReduce_", "HCCL", 88_750),
            ("layer1_cast", "Cast", "AI_VECTOR_CORE", 1_400),
        ]
        .into_iter()
        .enumerate()
        {
            out.push(Kernel {
                name: name.to_string(),
                op_type: ty.to_string(),
                core: core.to_string(),
                start_ns: t,
                dur_ns: dur + step,
                stream: if i % 2 == 0 { 2 } else { 3 },
                device: 0,
                step: Some(step),
                block: 24 + i as i64,
                shapes: "\"4096,7168\"".to_string(),
                core_ns: Some((dur as f64) * 0.9),
            });
            t += dur + 2_000;
        }
        t += 1_000_000;
    }
    out
}

/// The profile pair under `pair` (`no_sk_model` and `sk_model`, each with a kernel_details.csv
/// somewhere below) written again as torch_npu Db-mode runs under `out`; returns `out`.
pub fn pair_as_databases(pair: &Path, out: &Path) -> std::path::PathBuf {
    for side in ["no_sk_model", "sk_model"] {
        let csv = find(&pair.join(side), "kernel_details.csv")
            .unwrap_or_else(|| panic!("no kernel_details.csv under {}", pair.display()));
        let text = std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{e}"));
        write(
            &out.join(side)
                .join("run_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db"),
            &from_kernel_details(&text),
            Shape::LEVEL0,
        );
    }
    out.to_path_buf()
}

fn find(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// A trace_view.json of `kernels`: the Ascend Hardware process (tid = stream, `ts` a decimal
/// string), its non-compute tasks, the HCCL group thread, ProfilerStep events and the
/// HostToDevice flows.
pub fn trace_view(kernels: &[Kernel]) -> String {
    let us = |ns: i64| format!("{}.{:03}", ns / 1000, ns % 1000);
    let mut events = vec![
        r#"{"ph":"M","name":"process_name","pid":3170820512,"tid":0,"args":{"name":"Ascend Hardware"}}"#.to_string(),
        r#"{"ph":"M","name":"process_name","pid":3170820576,"tid":0,"args":{"name":"HCCL"}}"#.to_string(),
        r#"{"ph":"M","name":"thread_name","pid":3170820576,"tid":7,"args":{"name":"Group 1 Communication"}}"#.to_string(),
        r#"{"ph":"M","name":"process_name","pid":1234,"tid":0,"args":{"name":"Python"}}"#.to_string(),
    ];
    let mut steps: std::collections::BTreeMap<i64, (i64, i64)> = Default::default();
    for (i, k) in kernels.iter().enumerate() {
        let launch = k.start_ns - 20_000;
        let s = steps.entry(k.step.unwrap_or(1)).or_insert((launch, launch));
        s.0 = s.0.min(launch - 1_000);
        s.1 = s.1.max(launch + 1_000);
        if k.core == "HCCL" {
            events.push(format!(
                r#"{{"ph":"X","name":"{}","pid":3170820576,"tid":7,"ts":"{}","dur":{}}}"#,
                k.name,
                us(k.start_ns),
                us(k.dur_ns)
            ));
            continue;
        }
        events.push(format!(
            r#"{{"ph":"X","name":"{}","pid":3170820512,"tid":{},"ts":"{}","dur":{},"args":{{"Model Id":4294967295,"Task Type":"AI_CORE","Physic Stream Id":{},"Task Id":{i}}}}}"#,
            k.name,
            k.stream,
            us(k.start_ns),
            us(k.dur_ns),
            k.stream
        ));
        events.push(format!(
            r#"{{"ph":"X","name":"Notify Wait","pid":3170820512,"tid":{},"ts":"{}","dur":0.5,"args":{{"Task Type":"Notify Wait"}}}}"#,
            k.stream,
            us(k.start_ns + k.dur_ns)
        ));
        events.push(format!(
            r#"{{"ph":"s","cat":"HostToDevice","name":"HostToDevice","id":"{i}","pid":1234,"tid":1,"ts":"{}"}}"#,
            us(launch)
        ));
        events.push(format!(
            r#"{{"ph":"f","bp":"e","cat":"HostToDevice","name":"HostToDevice","id":"{i}","pid":3170820512,"tid":{},"ts":"{}"}}"#,
            k.stream,
            us(k.start_ns)
        ));
    }
    for (n, (start, end)) in steps {
        events.push(format!(
            r#"{{"ph":"X","name":"ProfilerStep#{n}","pid":1234,"tid":1,"ts":"{}","dur":{}}}"#,
            us(start),
            us(end - start)
        ));
    }
    format!("[\n{}\n]\n", events.join(",\n"))
}

/// Kernels per step of the large database: a decode graph of a large model.
const LARGE_STEP: usize = 2000;

/// A torch_npu Level0 database of `kernels` kernels at `path` (2,000 distinct names a step,
/// steps linked through CANN_API; about 240 bytes a kernel, so 5 M kernels make ~1.2 GB),
/// written once: a file already there is kept.
pub fn ensure_large(path: &Path, kernels: usize) {
    if path.is_file() {
        return;
    }
    let partial = path.with_extension("partial");
    let types = [
        ("MatMulV2", "AI_CORE"),
        ("RmsNorm", "AI_VECTOR_CORE"),
        ("GroupedMatmul", "MIX_AIC"),
        ("Add", "AI_VECTOR_CORE"),
    ];
    let mut start = 1_736_410_576_404_465_403i64;
    let all = (0..kernels).map(|i| {
        let (step, op) = (i / LARGE_STEP, i % LARGE_STEP);
        let (ty, core) = types[op % types.len()];
        let dur = 1_000 + ((op * 7919 + step * 104_729) % 40_000) as i64;
        let k = Kernel {
            name: format!("layer{}_{ty}_{op}", op / 32),
            op_type: ty.to_string(),
            core: core.to_string(),
            start_ns: start,
            dur_ns: dur,
            stream: 2,
            device: 0,
            step: Some(step as i64 + 1),
            block: 24,
            shapes: "\"8,7168;7168,4096\"".to_string(),
            core_ns: None,
        };
        start += dur + 1_000 + if op + 1 == LARGE_STEP { 50_000 } else { 0 };
        k
    });
    write_all(&partial, all, Shape::LEVEL0);
    std::fs::rename(&partial, path).expect("move the large database into place");
}
