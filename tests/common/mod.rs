//! Helpers every test binary shares: the bundled example, the `skope` binary, scratch
//! directories, and waiting for a process to be gone.

#![allow(dead_code)] // each binary uses its own subset

pub mod acl_dirs;
pub mod fusion_pair;
pub mod ledger_runs;
pub mod profile_pair;
pub mod profiler_db;
pub mod ranks_diff;

use skope::fusion::rules::RuleSet;
use skope::load::{Dump, LoadOptions, load_file};
use skope::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// `rel` inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The bundled example file `name` (in `assets/examples/`).
pub fn example_path(name: &str) -> PathBuf {
    repo("assets/examples").join(name)
}

/// The bundled example file `name`, as a string argument.
pub fn example_arg(name: &str) -> String {
    example_path(name).to_string_lossy().into_owned()
}

/// The bundled example file `name`, loaded.
pub fn example_dump(name: &str) -> Dump {
    let path = example_path(name);
    load_file(&path, LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// The dump at `file`, planned with the bundled rules and named `file`.
pub fn workspace(file: &str) -> Workspace {
    let dump = load_file(Path::new(file), LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let format = dump.format;
    Workspace::new(dump.into_main(), format, file, &RuleSet::bundled())
}

/// The `skope` binary run with `args`, without the machine's CANN and without colour.
pub fn skope(args: &[&str]) -> Output {
    skope_in(Path::new("."), args, &[])
}

/// The standard output of `skope args`, which must succeed.
pub fn skope_stdout(args: &[&str]) -> String {
    let out = skope(args);
    assert!(
        out.status.success(),
        "skope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The `skope` binary run with `args` in `dir`, with `env` added (the machine's CANN removed).
pub fn skope_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skope"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env_remove("ASCEND_OPP_PATH")
        .env_remove("ASCEND_HOME_PATH")
        .envs(env.iter().copied())
        .output()
        .expect("run skope")
}

/// A fresh, empty directory for `tag`, of this call alone: tests running at once never share
/// one, and nothing an earlier run left (its process id may come again) is found in it. It is
/// under cargo's temporary directory for tests, which `cargo clean` removes.
pub fn scratch(tag: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("skope-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// Waits until process `pid` is gone — not even a zombie; fails after `within`.
pub fn assert_gone(pid: i32, within: Duration) {
    let start = Instant::now();
    while std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z ")) {
        assert!(start.elapsed() < within, "process {pid} lives on");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A graph of `ops` (name, core type, scope) on stream 0, each the input of the next: an op
/// with a core type (`AIC`, `AIV`) is an AscendC kernel SuperKernel can fuse, one without is a
/// `Cast` that is none; a non-empty scope marks it.
pub fn kernel_chain<N: AsRef<str>, S: AsRef<str>>(ops: &[(N, &str, S)]) -> Workspace {
    let chained: Vec<Kernel> = ops
        .iter()
        .enumerate()
        .map(|(topo, (name, core, scope))| Kernel {
            name: name.as_ref().to_string(),
            core: core.to_string(),
            scope: scope.as_ref().to_string(),
            stream: 0,
            inputs: topo
                .checked_sub(1)
                .map(|before| vec![before])
                .unwrap_or_default(),
        })
        .collect();
    kernel_graph(&chained)
}

/// One op of [`kernel_graph`].
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// Its core type (`AIC`, `AIV`); empty for a `Cast` that is no AscendC kernel.
    pub core: String,
    /// The scope marking it, or empty.
    pub scope: String,
    /// Its stream.
    pub stream: i64,
    /// The ops (by index, each before it) whose outputs it takes.
    pub inputs: Vec<usize>,
}

/// A graph of `ops` in topological order, as [`kernel_chain`] makes one but on any streams
/// and with any inputs.
pub fn kernel_graph(ops: &[Kernel]) -> Workspace {
    use skope::graph::{AttrValue, GraphBuilder, OpBuilder};
    let mut b = GraphBuilder::new("g");
    for (topo, k) in ops.iter().enumerate() {
        let mut op = OpBuilder {
            name: k.name.clone(),
            op_type: if k.core.is_empty() { "Cast" } else { "Add" }.to_string(),
            topo_id: Some(topo as i64),
            stream: Some(k.stream),
            inputs: k
                .inputs
                .iter()
                .map(|&i| format!("{}:0", ops[i].name))
                .collect(),
            ..OpBuilder::default()
        };
        if !k.core.is_empty() {
            op.attrs.insert("supportSuperKernel", AttrValue::Int(1));
            op.attrs
                .insert("_cube_vector_core_type", AttrValue::Str(k.core.clone()));
            op.attrs.insert("tvm_blockdim", AttrValue::Int(8));
        }
        if !k.scope.is_empty() {
            op.attrs
                .insert("_super_kernel_scope", AttrValue::Str(k.scope.clone()));
        }
        b.push(op);
    }
    Workspace::new(
        b.build(),
        skope::load::Format::GeProtoText,
        "test",
        &RuleSet::bundled(),
    )
}
