//! The aclgraph SuperKernel path (`aclskOptimize`, reached through
//! `torch.npu.super_kernel_scope_begin/end` + `NPUGraph.super_kernel_optimize`, TorchAir's
//! `npugraph_ex` and vLLM-Ascend's aclgraph mode): reading what the pass wrote under
//! `sk_meta/<pid>/<model>/` and explaining it. Facts: reference/aclgraph_superkernel.md.

pub mod device;
pub mod export;
pub mod from_logs;
pub mod graph_json;
pub mod heal;
pub mod inside;
pub mod layout;
pub mod logs;
pub mod model;
pub mod observed;
pub mod options;
pub mod options_text;
pub mod predict;
pub mod reasons;
pub mod report;
pub mod scopes;

pub use model::AclModel;

use crate::file_error::FileError;
use std::path::{Path, PathBuf};

/// What to do when nothing of the pass is found.
const FIND_HINT: &str = "pass a model directory (sk_meta/<pid>/model_*), one of its files, or a \
                         result root holding sk_meta/; the pass writes them with \
                         ASCEND_OP_COMPILE_SAVE_KERNEL_META=1";

/// Reads the model `path` stands for: its own for a model directory or one of its files, else
/// the first model directory below it. Returns the other model directories found too.
pub fn open(path: &Path) -> Result<(AclModel, Vec<PathBuf>), FileError> {
    let mut dirs = layout::model_dirs(path);
    if dirs.is_empty() {
        return Err(FileError::at(
            path,
            "",
            None,
            "no output of the aclgraph SuperKernel pass here".to_string(),
            FIND_HINT,
        ));
    }
    let first = dirs.remove(0);
    Ok((model::read(&first)?, dirs))
}
