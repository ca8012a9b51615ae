//! Profiles from the profiler's database and from trace_view.json: databases written from the
//! documented schema (both column eras, missing optional tables, steps, communication ops),
//! held against the CSV of the same kernels; the real public databases of
//! `../shared/realdata/profiler_db` held against the reference's own join; bad databases and
//! traces giving errors that name the file and what is missing.

use crate::common::profile_pair::{Seg, Sk, Workload, write as write_pair};
use crate::common::profiler_db::{Kernel, Shape, from_kernel_details, trace_view, workload, write};
use skope::profile::database::DbKernels;
use skope::profile::trace_view::TraceKernels;
use skope::profile::{Found, KernelForm, KernelReader, Profile, ProfileError, diff, discover};
use std::path::{Path, PathBuf};

/// Rows as the reader gives them: (step, name, type, core, start, duration, stream, block,
/// core µs).
type Row = (
    Option<String>,
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
    Option<String>,
    Option<u32>,
    Option<f64>,
);

fn rows(path: &Path) -> (Vec<Row>, Vec<String>) {
    let mut reader = KernelReader::open(&[path.to_path_buf()]);
    let mut out = Vec::new();
    while let Some(r) = reader.next_row().unwrap_or_else(|e| panic!("{e}")) {
        out.push((
            r.step.map(str::to_string),
            r.name.to_string(),
            r.op_type.to_string(),
            r.core_type.to_string(),
            r.start_ns,
            r.duration_ns,
            r.stream.map(str::to_string),
            r.block_num,
            r.core_us,
        ));
    }
    (out, reader.notes().to_vec())
}

fn db_path(dir: &Path) -> PathBuf {
    dir.join("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db")
}

#[test]
fn a_database_gives_the_kernel_rows_of_kernel_details_in_both_column_eras() {
    let kernels = workload(3);
    for (tag, shape) in [
        ("db-old-era", Shape::FULL),
        (
            "db-new-era",
            Shape {
                block_num: true,
                ..Shape::FULL
            },
        ),
    ] {
        let path = db_path(&crate::common::scratch(tag));
        write(&path, &kernels, shape);
        let (got, notes) = rows(&path);
        // Compute kernels first (in task order), then the communication ops.
        let compute: Vec<&Kernel> = kernels.iter().filter(|k| k.core != "HCCL").collect();
        let comm: Vec<&Kernel> = kernels.iter().filter(|k| k.core == "HCCL").collect();
        assert_eq!(got.len(), compute.len() + comm.len(), "{tag}");
        // What reading keeps room for at once: every row it gives.
        let counted = skope::profile::database::kernel_rows(&path);
        assert_eq!(counted, Some(got.len()), "{tag}");
        for (row, k) in got.iter().zip(compute.iter().chain(comm.iter())) {
            assert_eq!(
                row.0.as_deref(),
                Some(k.step.unwrap_or(0).to_string().as_str())
            );
            assert_eq!(
                (&row.1, &row.2, &row.3),
                (&k.name, &k.op_type, &k.core),
                "{tag}"
            );
            assert_eq!((row.4, row.5), (Some(k.start_ns), Some(k.dur_ns)), "{tag}");
            if k.core == "HCCL" {
                assert_eq!((row.6.as_deref(), row.7, row.8), (None, None, None));
            } else {
                assert_eq!(row.6, Some(k.stream.to_string()));
                // blockNum in the new era, blockDim in the old: the same block count.
                assert_eq!(row.7, Some(k.block as u32), "{tag}");
                let core_us = row.8.unwrap_or_else(|| panic!("{tag}: core time"));
                assert!((core_us - k.core_ns.unwrap_or(0.0) / 1000.0).abs() < 1e-9);
            }
        }
        assert!(
            notes
                .iter()
                .any(|n| n.contains("3 step(s) from STEP_TIME") && n.contains("device range")),
            "{notes:?}"
        );
    }
}

#[test]
fn a_level0_database_without_optional_tables_reads_as_one_step() {
    let kernels = workload(2);
    let path = db_path(&crate::common::scratch("db-bare"));
    write(
        &path,
        &kernels,
        Shape {
            steps: false,
            cann_api: false,
            pmu: false,
            communication: false,
            ..Shape::FULL
        },
    );
    let (got, notes) = rows(&path);
    assert_eq!(
        got.len(),
        kernels.iter().filter(|k| k.core != "HCCL").count()
    );
    assert!(got.iter().all(|r| r.0.is_none() && r.8.is_none()));
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn without_cann_api_kernels_are_placed_by_the_host_window_and_it_is_said() {
    let kernels = workload(2);
    let path = db_path(&crate::common::scratch("db-host-window"));
    write(
        &path,
        &kernels,
        Shape {
            cann_api: false,
            ..Shape::LEVEL0
        },
    );
    let (got, notes) = rows(&path);
    assert!(
        notes.iter().any(|n| n.contains("host step window")),
        "{notes:?}"
    );
    // The generator's host windows end 1 µs after the last launch, 20 µs before the last
    // kernel starts: a step's last kernels fall outside it, as they would for msprof-analyze.
    let placed = got.iter().filter(|r| r.0.is_some()).count();
    assert!(
        placed > 0 && placed < got.len(),
        "{placed} of {}",
        got.len()
    );
}

#[test]
fn a_database_pair_compares_exactly_as_the_csv_pair_of_the_same_kernels() {
    let w = Workload {
        steps: 4,
        segments: vec![
            Seg::new("attn", "attn", 5, 4.0, 1.5, Sk::SavesGaps),
            Seg::new("mlp", "mlp", 4, 6.0, 0.5, Sk::Times(1.3)),
            Seg::new("flat", "flat", 5, 5.0, 0.2, Sk::Times(1.0)),
        ],
        jitter_pct: 1.0,
        slow_step: None,
        side_kernels: false,
    };
    let csv_dir = crate::common::scratch("db-vs-csv-csv");
    let (root, plan) = write_pair(&w, &csv_dir);
    let db_dir = crate::common::scratch("db-vs-csv-db");
    for side in ["no_sk_model", "sk_model"] {
        let csv = root
            .join(side)
            .join("ASCEND_PROFILER_OUTPUT/kernel_details.csv");
        // A database stores no wait times: the CSV of the same kernels has none either.
        let text = without_column(
            &std::fs::read_to_string(&csv).unwrap_or_else(|e| panic!("{e}")),
            "Wait Time(us)",
        );
        std::fs::write(&csv, &text).unwrap_or_else(|e| panic!("{e}"));
        write(
            &db_dir
                .join(side)
                .join("ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db"),
            &from_kernel_details(&text),
            Shape::LEVEL0,
        );
    }
    let judged = |dir: &Path| {
        let pair = skope::profile::load_pair(dir, None, None).unwrap_or_else(|e| panic!("{e}"));
        let mut v = serde_json::to_value(diff(&pair, Some(&plan))).expect("JSON");
        for key in ["base_source", "new_source", "notes"] {
            v.as_object_mut().map(|o| o.remove(key));
        }
        v
    };
    let (from_csv, from_db) = (judged(&root), judged(&db_dir));
    assert!(
        from_csv["payoffs"]["list"]
            .as_array()
            .is_some_and(|l| l.len() == 3)
    );
    // Equal figures (sums by type run over hash maps, so the last bit may differ).
    if let Some(at) = differs(&from_db, &from_csv, "") {
        panic!("the database pair differs from the CSV pair at {at}");
    }
    // Suggestions time kernels from a database as from the CSV: gaps, heads, steps, streams.
    let timing = |path: PathBuf| {
        skope::suggest::timing::read(&[path], None).unwrap_or_else(|e| panic!("{e}"))
    };
    let from_csv = timing(root.join("no_sk_model/ASCEND_PROFILER_OUTPUT/kernel_details.csv"));
    let from_db =
        timing(db_dir.join("no_sk_model/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler.db"));
    assert!(!from_csv.kernels.is_empty());
    assert_eq!(
        (from_db.steps, from_db.by_stream_id, from_db.has_core_time),
        (
            from_csv.steps,
            from_csv.by_stream_id,
            from_csv.has_core_time
        )
    );
    for (name, k) in &from_csv.kernels {
        let d = &from_db.kernels[name];
        assert_eq!(d.runs, k.runs, "{name}");
        assert!(
            (d.gap_us - k.gap_us).abs() < 1e-6,
            "{name}: {d:?} against {k:?}"
        );
    }
    // And the database side says how its steps were found.
    let pair = skope::profile::load_pair(&db_dir, None, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        pair.base.notes.iter().any(|n| n.contains("4 step(s)")),
        "{:?}",
        pair.base.notes
    );
}

/// Where `a` and `b` differ, numbers compared to 1e-9 relative.
fn differs(a: &serde_json::Value, b: &serde_json::Value, at: &str) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64()?, y.as_f64()?);
            ((x - y).abs() > 1e-9 * x.abs().max(y.abs()).max(1.0))
                .then(|| format!("{at}: {x} against {y}"))
        }
        (Value::Object(x), Value::Object(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: keys {:?} against {:?}", x.keys(), y.keys()));
            }
            x.iter().find_map(|(k, v)| match y.get(k) {
                Some(w) => differs(v, w, &format!("{at}.{k}")),
                None => Some(format!("{at}.{k}: missing")),
            })
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{at}: {} items against {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (v, w))| differs(v, w, &format!("{at}[{i}]")))
        }
        _ => (a != b).then(|| format!("{at}: {a} against {b}")),
    }
}

/// `text` (a CSV) without its column `name`.
fn without_column(text: &str, name: &str) -> String {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("a header").clone();
    let skip = header.iter().position(|h| h == name).expect("the column");
    let mut writer = csv::Writer::from_writer(Vec::new());
    let keep = |r: &csv::StringRecord| -> Vec<String> {
        r.iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, f)| f.to_string())
            .collect()
    };
    writer.write_record(keep(&header)).expect("write");
    for record in reader.records() {
        writer
            .write_record(keep(&record.expect("a row")))
            .expect("write");
    }
    String::from_utf8(writer.into_inner().expect("flush")).expect("UTF-8")
}

#[test]
fn discovery_reads_csvs_before_a_database_and_a_database_before_a_trace() {
    let dir = crate::common::scratch("db-discovery");
    // torch_npu Db mode: ASCEND_PROFILER_OUTPUT holds the database and analysis.db only.
    let run = dir.join("only_db/rank0_ascend_pt");
    write(&db_path(&dir.join("only_db")), &workload(1), Shape::FULL);
    std::fs::write(run.join("ASCEND_PROFILER_OUTPUT/analysis.db"), b"").expect("analysis.db");
    let files = match discover(&run).unwrap_or_else(|e| panic!("{e}")) {
        Found::One(f) => f,
        other => panic!("{other:?}"),
    };
    assert_eq!(files.kernel_form, Some(KernelForm::Database));
    assert!(files.kernels[0].ends_with("ascend_pytorch_profiler_0.db"));
    // A newer msprof text export: msprof_<time>.db beside mindstudio_profiler_output's CSVs.
    let prof = dir.join("msprof/PROF_000001_20260101");
    write(
        &prof.join("msprof_20260101120000.db"),
        &workload(1),
        Shape::FULL,
    );
    write(
        &prof.join("msprof_20260101110000.db"),
        &workload(1),
        Shape::FULL,
    );
    let export = prof.join("mindstudio_profiler_output");
    std::fs::create_dir_all(&export).expect("export dir");
    std::fs::write(
        export.join("op_summary_20260101.csv"),
        "Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us)\nadd,Add,AI_CORE,\"1.000\t\",2.0\n",
    )
    .expect("op_summary");
    let p = Profile::open(&prof, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.files.kernel_form, Some(KernelForm::OpSummary));
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("read the CSVs") && n.contains("msprof_20260101120000.db")),
        "{:?}",
        p.notes
    );
    // Without the CSVs, the newest msprof database.
    std::fs::remove_dir_all(&export).expect("remove export");
    let p = Profile::open(&prof, None).unwrap_or_else(|e| panic!("{e}"));
    assert!(p.files.kernels[0].ends_with("msprof_20260101120000.db"));
    // A trace alone is read, and says what it cannot give.
    let trace_dir = dir.join("trace_only/ASCEND_PROFILER_OUTPUT");
    std::fs::create_dir_all(&trace_dir).expect("trace dir");
    std::fs::write(trace_dir.join("trace_view.json"), trace_view(&workload(2))).expect("trace");
    let p = Profile::open(&trace_dir, None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.files.kernel_form, Some(KernelForm::TraceView));
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("no op types and no accelerator cores"))
    );
    // MindSpore's database in a *_ascend_ms run.
    let ms = dir.join("ms/worker_ascend_ms/ASCEND_PROFILER_OUTPUT/ascend_mindspore_profiler_3.db");
    write(&ms, &workload(1), Shape::FULL);
    let p = Profile::open(&dir.join("ms"), None).unwrap_or_else(|e| panic!("{e}"));
    assert!(p.files.kernels[0].ends_with("ascend_mindspore_profiler_3.db"));
    // Two ranks of databases.
    let ranks = dir.join("ranks");
    for r in 0..2 {
        let path = ranks.join(format!(
            "node_{r}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{r}.db"
        ));
        write(&path, &workload(1), Shape::FULL);
        std::fs::write(
            path.parent()
                .and_then(Path::parent)
                .map(|d| d.join(format!("profiler_info_{r}.json")))
                .expect("run dir"),
            "{}",
        )
        .expect("profiler_info");
    }
    match discover(&ranks).unwrap_or_else(|e| panic!("{e}")) {
        Found::Ranks(r) => assert_eq!(r.iter().map(|r| r.rank).collect::<Vec<_>>(), [0, 1]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_trace_gives_kernels_by_stream_with_exact_times_and_steps_through_its_flows() {
    let kernels = workload(2);
    let dir = crate::common::scratch("trace-view");
    let path = dir.join("trace_view.json");
    std::fs::write(&path, trace_view(&kernels)).expect("trace");
    let (got, notes) = rows(&path);
    let mut want: Vec<&Kernel> = kernels.iter().collect();
    want.sort_by_key(|k| k.start_ns);
    assert_eq!(got.len(), want.len());
    for (row, k) in got.iter().zip(&want) {
        assert_eq!(
            row.0.as_deref(),
            Some(k.step.unwrap_or(0).to_string().as_str())
        );
        assert_eq!(row.1, k.name);
        // No op type, no accelerator core: said, not guessed (communication is the HCCL
        // process's).
        assert_eq!(row.2, "N/A");
        assert_eq!(row.3, if k.core == "HCCL" { "HCCL" } else { "" });
        assert_eq!((row.4, row.5), (Some(k.start_ns), Some(k.dur_ns)));
    }
    assert!(
        notes
            .iter()
            .any(|n| n.contains("non") || n.contains("not computation"))
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("2 step(s)") && n.contains("HostToDevice")),
        "{notes:?}"
    );
    // The wrapped form reads the same.
    let wrapped = format!(
        "{{\"traceEvents\": {}, \"displayTimeUnit\": \"ns\"}}",
        trace_view(&kernels)
    );
    let t = TraceKernels::parse(wrapped.as_bytes(), &path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.notes, notes);
}

#[test]
fn bad_traces_say_where_and_what() {
    let path = Path::new("run/trace_view.json");
    let cut = &trace_view(&workload(1))[..300];
    let e = TraceKernels::parse(cut.as_bytes(), path)
        .err()
        .expect("an error");
    let text = e.to_string();
    assert!(text.starts_with("run/trace_view.json: line "), "{text}");
    assert!(text.contains("export the profile again"), "{text}");
    let e = TraceKernels::parse(br#"[{"ph":"X","name":"a","pid":1,"ts":1}]"#, path)
        .err()
        .expect("an error");
    assert!(
        e.to_string().contains("no \"Ascend Hardware\" process"),
        "{e}"
    );
}

fn open_error(path: &Path) -> ProfileError {
    match DbKernels::open(path) {
        Ok(_) => panic!("{} opened", path.display()),
        Err(e) => e,
    }
}

#[test]
fn bad_databases_name_the_file_and_what_is_missing() {
    let dir = crate::common::scratch("db-bad");
    // Another SQLite file (analysis.db has no kernel tables).
    let other = dir.join("analysis.db");
    rusqlite::Connection::open(&other)
        .and_then(|c| c.execute_batch("CREATE TABLE StepTraceTime (step INTEGER);"))
        .expect("write analysis.db");
    let text = open_error(&other).to_string();
    assert!(
        text.contains("analysis.db: not a profiler database: it has no table TASK, COMPUTE_TASK_INFO, STRING_IDS"),
        "{text}"
    );
    assert!(text.contains("not analysis.db"), "{text}");
    // A schema skope does not know: no name column.
    let odd = dir.join("odd.db");
    rusqlite::Connection::open(&odd)
        .and_then(|c| {
            c.execute_batch(
                "CREATE TABLE TASK (startNs INTEGER, endNs INTEGER, globalTaskId INTEGER);
                 CREATE TABLE COMPUTE_TASK_INFO (globalTaskId INTEGER, opType INTEGER);
                 CREATE TABLE STRING_IDS (id INTEGER, value TEXT);",
            )
        })
        .expect("write odd.db");
    let text = open_error(&odd).to_string();
    assert!(
        text.contains(
            "table COMPUTE_TASK_INFO has no column name (its columns: globalTaskId, opType)"
        ),
        "{text}"
    );
    // Damaged: a real database's first page kept, the rest overwritten.
    let good = db_path(&dir);
    write(&good, &workload(2), Shape::FULL);
    let mut bytes = std::fs::read(&good).expect("read");
    let len = bytes.len();
    for b in &mut bytes[100..len] {
        *b = 0x5a;
    }
    let damaged = dir.join("damaged.db");
    std::fs::write(&damaged, &bytes).expect("write");
    let text = open_error(&damaged).to_string();
    assert!(
        text.starts_with(&format!("{}: ", damaged.display())),
        "{text}"
    );
    assert!(text.contains("damaged"), "{text}");
    // Locked: another process is writing it.
    let conn = rusqlite::Connection::open(&good).expect("open");
    conn.execute_batch("BEGIN EXCLUSIVE; INSERT INTO STEP_TIME VALUES (9, 1, 2);")
        .expect("lock");
    let text = open_error(&good).to_string();
    assert!(
        text.contains("another process holds the database"),
        "{text}"
    );
    conn.execute_batch("ROLLBACK").expect("unlock");
    assert!(DbKernels::open(&good).is_ok());
}

#[test]
fn a_damaged_database_whose_rows_come_out_of_order_is_an_error_not_a_hang() {
    // Found by the fuzz campaign: a generated database with one b-tree page's cells out of
    // order, on which reading by pages from the last rowid went round for ever.
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/profile/out_of_order_rowids.db");
    let dir = crate::common::scratch("db-out-of-order");
    let copy = dir.join("ascend_pytorch_profiler_0.db");
    std::fs::copy(&path, &copy).expect("copy the fixture");
    let started = std::time::Instant::now();
    let mut reader = KernelReader::open(&[copy]);
    let error = loop {
        match reader.next_row() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("read to the end"),
            Err(e) => break e.to_string(),
        }
    };
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(error.contains("TASK's rows are out of order"), "{error}");
    assert!(error.contains("damaged"), "{error}");
}

#[test]
fn a_database_in_wal_mode_reads_and_as_immutable_where_its_index_cannot_be_made() {
    let path = db_path(&crate::common::scratch("db-wal"));
    write(
        &path,
        &workload(1),
        Shape {
            wal: true,
            ..Shape::FULL
        },
    );
    let (got, notes) = rows(&path);
    assert_eq!(got.len(), workload(1).len());
    assert!(notes.iter().all(|n| !n.contains("immutable")), "{notes:?}");
    // Where SQLite cannot use the WAL beside the file (a directory skope cannot write; here
    // the WAL's name is taken by a directory), the file is opened as immutable, and said so.
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let _ = std::fs::remove_file(&side);
    }
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    std::fs::create_dir(&wal).expect("block the WAL");
    let (got, notes) = rows(&path);
    assert_eq!(got.len(), workload(1).len());
    assert!(
        notes.iter().any(|n| n.contains(
            "ascend_pytorch_profiler_0.db: a WAL database that \
             cannot be opened read-only here"
        ) && n.ends_with("opened as immutable")),
        "{notes:?}"
    );
}

/// The real databases, when `../shared` is here.
fn real_databases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realdata/profiler_db");
    let mut out = Vec::new();
    for level in ["level0", "level1", "level2"] {
        for rank in 0..2 {
            let p = root.join(format!(
                "{level}/rank{rank}_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_{rank}.db"
            ));
            if p.is_file() {
                out.push(p);
            }
        }
    }
    out
}

#[test]
fn the_real_databases_give_the_kernels_of_the_reference_join() {
    let dbs = real_databases();
    if dbs.is_empty() {
        eprintln!("skipped: ../shared/realdata/profiler_db is not here");
        return;
    }
    for path in dbs {
        let conn = rusqlite::Connection::open_with_flags(
            format!("file:{}?immutable=1", path.display()),
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_URI,
        )
        .expect("open");
        // The reference's join (msprof-analyze's), grouped as op_statistic groups.
        let mut stmt = conn
            .prepare(
                "SELECT OPTYPE_IDS.value, TASKTYPE_IDS.value, count(*), sum(TASK.endNs - TASK.startNs)
                 FROM COMPUTE_TASK_INFO
                 INNER JOIN TASK ON TASK.globalTaskId == COMPUTE_TASK_INFO.globalTaskId
                 LEFT JOIN STRING_IDS AS OPTYPE_IDS ON OPTYPE_IDS.id == COMPUTE_TASK_INFO.opType
                 LEFT JOIN STRING_IDS AS TASKTYPE_IDS ON TASKTYPE_IDS.id == COMPUTE_TASK_INFO.taskType
                 GROUP BY 1, 2",
            )
            .expect("prepare");
        let mut want: Vec<(String, String, u64, i64)> = stmt
            .query_map([], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get::<_, i64>(2)? as u64, r.get(3)?))
            })
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        want.sort();
        let comm = conn
            .query_row("SELECT count(*) FROM COMMUNICATION_OP", [], |r| {
                r.get::<_, i64>(0)
            })
            .expect("count") as u64;
        // The rows as read, grouped by their own type and core (Level0 databases hold N/A
        // there, as Level0 kernel_details.csv does).
        let mut reader = KernelReader::open(std::slice::from_ref(&path));
        let mut got: Vec<(String, String, u64, i64)> = Vec::new();
        let mut hccl = 0;
        while let Some(r) = reader.next_row().unwrap_or_else(|e| panic!("{e}")) {
            if r.core_type == "HCCL" {
                hccl += 1;
                continue;
            }
            let dur = r.duration_ns.expect("a duration");
            match got
                .iter_mut()
                .find(|g| g.0 == r.op_type && g.1 == r.core_type)
            {
                Some(g) => {
                    g.2 += 1;
                    g.3 += dur;
                }
                None => got.push((r.op_type.to_string(), r.core_type.to_string(), 1, dur)),
            }
        }
        got.sort();
        assert_eq!(got, want, "{}", path.display());
        assert_eq!(
            want.iter().map(|w| w.2).sum::<u64>(),
            187,
            "{}",
            path.display()
        );
        assert_eq!(hccl, comm, "{}", path.display());
        // And the profile found from its run directory is that database, whole.
        let run = path.parent().and_then(Path::parent).expect("run dir");
        let p = Profile::open(run, None).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(p.files.kernel_form, Some(KernelForm::Database));
        let runs = p.runs.as_ref().expect("runs");
        assert_eq!(runs.len() as u64, 187 + comm);
        let total: i64 = runs.all().iter().map(|r| r.dur_ns).sum();
        let want_total: i64 = want.iter().map(|w| w.3).sum::<i64>()
            + conn
                .query_row(
                    "SELECT sum(endNs - startNs) FROM COMMUNICATION_OP",
                    [],
                    |r| r.get::<_, i64>(0),
                )
                .expect("sum");
        assert_eq!(total, want_total, "{}", path.display());
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("1 step(s) from STEP_TIME")),
            "{:?}",
            p.notes
        );
    }
}
