//! Loading graph dumps: format detection and one reader per dialect, all producing
//! [`crate::graph::Graph`].

mod error;
mod ge_ir;
mod ge_json;
mod ge_onnx;
mod ge_text;
mod halves;
mod json_locate;
pub mod ms_composite;
pub mod ms_ir;
pub mod sniff;
mod stamp;
pub mod textproto;
mod torchair_pbtxt;

pub use error::{LoadError, LoadErrorKind};
pub use stamp::{FileChange, FileStamp};

use crate::graph::Graph;
use std::io::Read;
use std::path::Path;
use textproto::{LineCol, SyntaxError};

/// The dump formats skope reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// GE `ge_proto_*.txt`: protobuf text of `ModelDef`.
    GeProtoText,
    /// TorchAir `txt`: protobuf text of a bare `GraphDef`.
    GraphDefText,
    /// TorchAir `pbtxt`: NodeDef-like text with embedded GE attribute texts.
    TorchairPbtxt,
    /// GE `ge_onnx_*.pbtxt`: ONNX `ModelProto` text.
    GeOnnxText,
    /// atc JSON (`--mode=1` / `--mode=5`).
    GeJson,
    /// What the aclgraph SuperKernel pass wrote (`sk_meta/<pid>/<model>/`): not a dump of a
    /// graph before the pass but its result.
    AclgraphPass,
    /// MindSpore IR text (`*.ir`, written with `save_graphs` / `MS_DEV_SAVE_GRAPHS`).
    MsIr,
    /// MindSpore graph-kernel composite JSON (`akg_kernel_meta/*.info`): one fused kernel.
    MsComposite,
}

impl Format {
    /// Stable identifier used in JSON output.
    pub fn id(self) -> &'static str {
        match self {
            Format::GeProtoText => "ge_proto_text",
            Format::GraphDefText => "graphdef_text",
            Format::TorchairPbtxt => "torchair_pbtxt",
            Format::GeOnnxText => "ge_onnx_text",
            Format::GeJson => "ge_json",
            Format::AclgraphPass => "aclgraph",
            Format::MsIr => "mindspore_ir",
            Format::MsComposite => "mindspore_composite",
        }
    }

    /// Human description.
    pub fn describe(self) -> &'static str {
        match self {
            Format::GeProtoText => "GE ModelDef text (ge_proto_*.txt)",
            Format::GraphDefText => "GE GraphDef text (TorchAir txt dump)",
            Format::TorchairPbtxt => "TorchAir pbtxt dump",
            Format::GeOnnxText => "GE ONNX text (ge_onnx_*.pbtxt)",
            Format::GeJson => "atc JSON (ModelDef)",
            Format::AclgraphPass => "aclgraph SuperKernel pass output (sk_meta/<pid>/<model>)",
            Format::MsIr => "MindSpore IR text (*.ir)",
            Format::MsComposite => "MindSpore graph-kernel composite JSON (akg_kernel_meta/*.info)",
        }
    }
}

/// A loaded dump: its format and graphs (the first is the main graph).
#[derive(Debug, Clone)]
pub struct Dump {
    /// Detected format.
    pub format: Format,
    /// All graphs; never empty.
    pub graphs: Vec<Graph>,
    /// The file as it was read (`None` for a dump given as bytes).
    pub stamp: Option<FileStamp>,
}

impl Dump {
    /// The main graph (the first in the file).
    pub fn main(&self) -> &Graph {
        &self.graphs[0]
    }

    /// The main graph, taking it out of the dump.
    pub fn into_main(self) -> Graph {
        self.graphs
            .into_iter()
            .next()
            .unwrap_or_else(|| crate::graph::GraphBuilder::new("graph").build())
    }
}

/// Options for loading.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// Files larger than this are refused with a clear error.
    pub max_bytes: u64,
    /// Memory free for loading, in bytes: a file whose load needs more (about
    /// [`memory_per_byte`] times its size) is refused rather than make the machine swap.
    /// `None`: no check.
    pub free_memory: Option<u64>,
}

/// The largest dump loaded unless the user says otherwise (4 GiB).
pub const DEFAULT_MAX_BYTES: u64 = 4 << 30;

/// Peak memory of a load per byte of a file in `format`, at most: the text and the graph read
/// from it so far. Measured (docs/PERFORMANCE.md): GE text 1.7× on 2.6 KB ops and up to 2.9×
/// for dumps of small ops, atc JSON 1.6×, MindSpore IR 4× (~600 bytes per op).
pub fn memory_per_byte(format: Option<Format>) -> u64 {
    match format {
        Some(Format::MsIr) => 4,
        _ => 3,
    }
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            max_bytes: DEFAULT_MAX_BYTES,
            free_memory: None,
        }
    }
}

impl LoadOptions {
    /// The options a front end uses: the user's `--max-size` when given (then skope trusts
    /// the user about memory), else the default limit and a check against the memory free now.
    pub fn with_limit(max_bytes: Option<u64>) -> LoadOptions {
        match max_bytes {
            Some(max_bytes) => LoadOptions {
                max_bytes,
                free_memory: None,
            },
            None => LoadOptions {
                max_bytes: DEFAULT_MAX_BYTES,
                free_memory: crate::memory::available(),
            },
        }
    }
}

/// Reads and parses the dump at `path`.
pub fn load_file(path: &Path, options: LoadOptions) -> Result<Dump, LoadError> {
    load_file_reporting(path, options, &mut |_, _| {})
}

/// Size of the pieces a file is read in, so that reading can report progress.
const READ_CHUNK: u64 = 4 << 20;

/// [`load_file`], calling `on_read(bytes read, file size)` as the file is read (before it is
/// parsed).
pub fn load_file_reporting(
    path: &Path,
    options: LoadOptions,
    on_read: &mut dyn FnMut(u64, u64),
) -> Result<Dump, LoadError> {
    let error = |kind| LoadError {
        path: path.to_path_buf(),
        kind,
    };
    if path.is_dir() {
        return load_composite_dir(path, options);
    }
    let mut file = std::fs::File::open(path).map_err(|e| error(LoadErrorKind::Io(e)))?;
    let size = file
        .metadata()
        .map_err(|e| error(LoadErrorKind::Io(e)))?
        .len();
    if size > options.max_bytes {
        return Err(error(LoadErrorKind::TooLarge {
            size,
            limit: options.max_bytes,
        }));
    }
    // Look at the head first, so a huge binary file or one that will not fit in memory is
    // refused without reading it all — and before the buffer for the whole file is reserved,
    // which an address-space limit counts whole.
    let mut head = Vec::with_capacity(sniff::HEAD_BYTES);
    (&mut file)
        .take(sniff::HEAD_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(|e| error(LoadErrorKind::Io(e)))?;
    if let Err(sniff::SniffError::Binary(offset)) = sniff::check_text(&head) {
        return Err(error(binary_at(&head, offset)));
    }
    let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head);
    let needed = size.saturating_mul(memory_per_byte(sniff::sniff(text).ok()));
    if let Some(available) = options.free_memory.filter(|a| needed > *a) {
        return Err(error(LoadErrorKind::NotEnoughMemory {
            size,
            needed,
            available,
            by: crate::memory::limited_by(),
        }));
    }
    // The buffer takes memory only as it is filled.
    let mut bytes = text_buffer(usize::try_from(size).unwrap_or(0).saturating_add(1));
    bytes.extend_from_slice(&head);
    drop(head);
    loop {
        on_read(bytes.len() as u64, size);
        let got = (&mut file)
            .take(READ_CHUNK)
            .read_to_end(&mut bytes)
            .map_err(|e| error(LoadErrorKind::Io(e)))?;
        if got == 0 {
            break;
        }
    }
    let (format, graphs) = parse(path, &bytes)?;
    let stamp = file.metadata().ok().map(|m| FileStamp::of(&m, &bytes));
    // The text is no longer needed: the graphs are built without it beside them.
    drop(bytes);
    Ok(Dump {
        stamp,
        ..build(format, graphs)
    })
}

/// Room for a file's text of `len` bytes, backed by huge pages where the system gives them
/// on request: a 100 MB dump is then read into fifty pages instead of 25,000, which takes a
/// third of the reading time away (each first touch of a page is a fault that clears it).
fn text_buffer(len: usize) -> Vec<u8> {
    let bytes = Vec::<u8>::with_capacity(len);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = bytes.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + len) / HUGE * HUGE;
        if end > first {
            // SAFETY: the range lies within the vector's own allocation; MADV_HUGEPAGE only
            // tells the kernel how to back it and changes no contents.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    bytes
}

/// Reads every composite kernel JSON (`*.info`, `*.json`) of MindSpore's `akg_kernel_meta/`
/// at `dir` (or in its `akg_kernel_meta/`) into one graph of their basic ops, each file's ops
/// named after its kernel. Other JSON (the compiled kernels' own) is passed over; a broken
/// composite (any `.info`) is an error naming its file and place.
fn load_composite_dir(dir: &Path, options: LoadOptions) -> Result<Dump, LoadError> {
    let meta = dir.join("akg_kernel_meta");
    let dir = if meta.is_dir() {
        meta
    } else {
        dir.to_path_buf()
    };
    let error = |path: &Path, kind| LoadError {
        path: path.to_path_buf(),
        kind,
    };
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| error(&dir, LoadErrorKind::Io(e)))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "info" || x == "json"))
        .collect();
    files.sort();
    let name = dir
        .parent()
        .and_then(|p| p.file_name())
        .or(dir.file_name())
        .map_or("akg_kernel_meta".to_string(), |n| {
            n.to_string_lossy().into_owned()
        });
    let mut b = crate::graph::GraphBuilder::new(name);
    let (mut read, mut kernels) = (0u64, 0usize);
    for path in files {
        let bytes = std::fs::read(&path).map_err(|e| error(&path, LoadErrorKind::Io(e)))?;
        read += bytes.len() as u64;
        if read > options.max_bytes {
            return Err(error(
                &dir,
                LoadErrorKind::TooLarge {
                    size: read,
                    limit: options.max_bytes,
                },
            ));
        }
        let src = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        // `.info` files are composites by name; the `.json` beside them are the compiled
        // kernels' own unless they look like one.
        let info = path.extension().is_some_and(|x| x == "info");
        if !info && !ms_composite::looks_like(src) {
            continue;
        }
        match ms_composite::add_qualified(src, &mut b) {
            Ok(Ok(_)) => kernels += 1,
            Ok(Err(e)) => {
                let at = json_locate::locate(src, &e.path).map(|offset| {
                    let at = LineCol::of(src, offset);
                    (at.line, at.col)
                });
                return Err(error(
                    &path,
                    LoadErrorKind::Structure {
                        path: e.path,
                        at,
                        message: e.message,
                    },
                ));
            }
            Err(e) => {
                return Err(error(
                    &path,
                    LoadErrorKind::Syntax {
                        line: e.line(),
                        col: e.column(),
                        message: crate::text::json_error_words(&e),
                    },
                ));
            }
        }
    }
    if kernels == 0 {
        return Err(error(&dir, LoadErrorKind::UnknownDirectory));
    }
    Ok(build(Format::MsComposite, vec![b]))
}

/// Parses a dump held in memory; `path` names it in errors and supplies the default graph
/// name for formats that have none.
pub fn load_bytes(path: &Path, src: &[u8]) -> Result<Dump, LoadError> {
    let (format, graphs) = parse(path, src)?;
    Ok(build(format, graphs))
}

fn build(format: Format, graphs: Vec<crate::graph::GraphBuilder>) -> Dump {
    Dump {
        format,
        stamp: None,
        graphs: graphs
            .into_iter()
            .map(crate::graph::GraphBuilder::build)
            .collect(),
    }
}

/// Reads the ops of every graph of the dump `src`, named `path` (not yet built: the caller
/// can free the text first).
fn parse(path: &Path, src: &[u8]) -> Result<(Format, Vec<crate::graph::GraphBuilder>), LoadError> {
    let error = |kind| LoadError {
        path: path.to_path_buf(),
        kind,
    };
    let src = src.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(src);
    let format = sniff::sniff(src).map_err(|e| {
        error(match e {
            sniff::SniffError::Empty => LoadErrorKind::Empty,
            sniff::SniffError::Binary(offset) => binary_at(src, offset),
            sniff::SniffError::Unknown(offset, detail) => {
                let at = LineCol::of(src, offset);
                LoadErrorKind::UnknownFormat {
                    line: at.line,
                    col: at.col,
                    detail,
                }
            }
        })
    })?;
    let name = default_graph_name(path);
    let syntax = |e: SyntaxError| {
        let at = LineCol::of(src, e.offset);
        error(LoadErrorKind::Syntax {
            line: at.line,
            col: at.col,
            message: e.message,
        })
    };
    let graphs = match format {
        Format::GeProtoText => ge_text::load_model_def(src).map_err(syntax)?,
        Format::GraphDefText => vec![ge_text::load_graph_def(src, &name).map_err(syntax)?],
        Format::TorchairPbtxt => vec![torchair_pbtxt::load(src, &name).map_err(syntax)?],
        Format::GeOnnxText => vec![ge_onnx::load(src, &name).map_err(syntax)?],
        // The pass's output is a directory of files, opened through `crate::aclgraph`.
        Format::AclgraphPass => {
            return Err(error(LoadErrorKind::UnknownFormat {
                line: 1,
                col: 1,
                detail: "the aclgraph pass's output: open its model directory instead".into(),
            }));
        }
        Format::MsComposite => match ms_composite::load(src) {
            Ok(Ok(graph)) => vec![graph],
            Ok(Err(e)) => {
                return Err(error(LoadErrorKind::Structure {
                    at: json_locate::locate(src, &e.path).map(|offset| {
                        let at = LineCol::of(src, offset);
                        (at.line, at.col)
                    }),
                    path: e.path,
                    message: e.message,
                }));
            }
            Err(e) => {
                return Err(error(LoadErrorKind::Syntax {
                    line: e.line(),
                    col: e.column(),
                    message: crate::text::json_error_words(&e),
                }));
            }
        },
        Format::MsIr => ms_ir::load(src, &name).map_err(syntax)?,
        Format::GeJson => ge_json::load_streaming(src, &name).map_err(|e| match e {
            ge_json::Failure::Syntax(e) => error(LoadErrorKind::Syntax {
                line: e.line(),
                col: e.column(),
                message: crate::text::json_error_words(&e),
            }),
            ge_json::Failure::Structure(e) => {
                let at = json_locate::locate(src, &e.path).map(|offset| {
                    let at = LineCol::of(src, offset);
                    (at.line, at.col)
                });
                error(LoadErrorKind::Structure {
                    path: e.path,
                    at,
                    message: e.message,
                })
            }
        })?,
    };
    if graphs.is_empty() {
        return Err(error(LoadErrorKind::Structure {
            path: "graph".into(),
            at: None,
            message: "the model holds no graph".into(),
        }));
    }
    Ok((format, graphs))
}

fn binary_at(src: &[u8], offset: usize) -> LoadErrorKind {
    let at = LineCol::of(src, offset);
    LoadErrorKind::Binary {
        line: at.line,
        col: at.col,
    }
}

/// The file stem, used as graph name by formats that carry none.
fn default_graph_name(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "graph".to_string())
}
