//! The bundled example: a 4-layer MoE decode graph and a profile pair taken without and with
//! SuperKernel, held in the binary. The explorer writes them out on first use to a directory of
//! the user's — `$XDG_DATA_HOME/skope/example/` (`~/.local/share/skope/example/`), or a
//! directory of the user's own under the system's temporary directory when that cannot be
//! written — so that the example works from any working directory and after `cargo install`:
//! a recipe's `{graph}` names a real file, and `p` finds the profiles in `prof_result/` beside
//! the dump. Files that differ from the bundled ones (another release) are written again; the
//! plan, journal and runs the user keeps there are never touched.

use crate::own_files::{Durability, Links};
use std::path::{Path, PathBuf};

/// The example dump's file name.
pub const DUMP_NAME: &str = "moe_decode.ge_proto.txt";

/// The example dump.
pub const DUMP: &[u8] = include_bytes!("../assets/examples/moe_decode.ge_proto.txt");

/// The profile pair's run directory name, under `prof_result/{no_sk_model,sk_model}/`.
const RUN: &str = "npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT";

/// Every bundled file, by its path under the example directory.
fn files() -> [(String, &'static [u8]); 5] {
    macro_rules! profile {
        ($side:literal, $file:literal) => {
            (
                format!("prof_result/{}/{RUN}/{}", $side, $file),
                include_bytes!(concat!(
                    "../assets/examples/prof_result/",
                    $side,
                    "/npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT/",
                    $file
                ))
                .as_slice(),
            )
        };
    }
    [
        (DUMP_NAME.to_string(), DUMP),
        profile!("no_sk_model", "kernel_details.csv"),
        profile!("no_sk_model", "op_statistic.csv"),
        profile!("sk_model", "kernel_details.csv"),
        profile!("sk_model", "op_statistic.csv"),
    ]
}

/// Where the example is written: `$XDG_DATA_HOME/skope/example`, else
/// `$HOME/.local/share/skope/example`.
fn home() -> Option<PathBuf> {
    Some(crate::paths::data_home()?.join("skope/example"))
}

/// What to open: `file`, or the example — written out so that recipes and profiles find
/// real files, read from the binary when no directory of the user's can be written.
pub fn or_file(file: Option<PathBuf>) -> crate::open::Input {
    match file.map_or_else(write_out, Ok) {
        Ok(path) => crate::open::Input::File(path),
        Err(_) => crate::open::Input::Bundled {
            name: DUMP_NAME,
            bytes: DUMP,
        },
    }
}

/// Writes the example out (see the module's words) and returns the dump's path.
pub fn write_out() -> std::io::Result<PathBuf> {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let fallback = std::env::temp_dir().join(format!("skope-{uid}/example"));
    let mut last = None;
    for dir in home().into_iter().chain([fallback]) {
        match write_into(&dir) {
            Ok(dump) => return Ok(dump),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no directory for the example")))
}

/// Writes the example into `dir`, each file only when it is missing or differs.
fn write_into(dir: &Path) -> std::io::Result<PathBuf> {
    for (name, bytes) in files() {
        let path = dir.join(&name);
        if std::fs::read(&path).is_ok_and(|old| old == bytes) {
            continue;
        }
        if let Some(parent) = path.parent() {
            crate::own_files::own_dir(parent)?;
        }
        crate::own_files::replace(&path, bytes, Durability::Unsynced, Links::Refuse)?;
    }
    Ok(dir.join(DUMP_NAME))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_is_written_once_and_mended_when_it_differs() {
        let dir = crate::scratch::scratch("example");
        let dump = write_into(&dir).unwrap();
        assert_eq!(std::fs::read(&dump).unwrap(), DUMP);
        let kernels = dir.join(format!("prof_result/sk_model/{RUN}/kernel_details.csv"));
        assert!(kernels.is_file());
        std::fs::write(&dump, "changed").unwrap();
        std::fs::write(dir.join("moe_decode.ge_proto.txt.skope.json"), "mine").unwrap();
        write_into(&dir).unwrap();
        assert_eq!(std::fs::read(&dump).unwrap(), DUMP);
        assert_eq!(
            std::fs::read_to_string(dir.join("moe_decode.ge_proto.txt.skope.json")).unwrap(),
            "mine",
            "the user's files stay"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
