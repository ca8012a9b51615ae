//! Loading and planning a dump on a worker thread, reporting each stage to the event loop.

use super::app::{Msg, Stage};
use crate::fusion::rules::RuleSet;
use crate::load::{self, LoadOptions};
use crate::workspace::Workspace;
use std::path::PathBuf;
use std::sync::mpsc::Sender;

/// What to load.
#[derive(Debug, Clone)]
pub enum Input {
    /// A dump file.
    File(PathBuf),
    /// A dump held in the binary (the bundled example), with the name to show for it.
    Bundled {
        /// The name shown and used in messages.
        name: &'static str,
        /// The dump's bytes.
        bytes: &'static [u8],
    },
}

impl Input {
    /// The name shown for the input.
    pub fn name(&self) -> String {
        match self {
            Input::File(path) => path.to_string_lossy().into_owned(),
            Input::Bundled { name, .. } => (*name).to_string(),
        }
    }
}

/// Starts loading `input` on a new thread; progress and the result arrive on `tx`.
pub fn spawn(input: Input, options: LoadOptions, rules: RuleSet, tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let result = load(&input, options, &rules, &mut |stage| {
            let _ = tx.send(Msg::Progress(stage));
        });
        let _ = tx.send(Msg::Loaded(result.map(Box::new)));
    });
}

/// Loads and plans `input`, calling `progress` at each stage. The error is the loader's
/// message (file, line, column, hint).
pub fn load(
    input: &Input,
    options: LoadOptions,
    rules: &RuleSet,
    progress: &mut dyn FnMut(Stage),
) -> Result<Workspace, String> {
    let name = input.name();
    let dump = match input {
        Input::File(path) => load::load_file_reporting(path, options, &mut |done, total| {
            progress(if done == total {
                Stage::Parsing { bytes: total }
            } else {
                Stage::Reading { done, total }
            })
        }),
        Input::Bundled { name, bytes } => {
            progress(Stage::Parsing {
                bytes: bytes.len() as u64,
            });
            load::load_bytes(std::path::Path::new(name), bytes)
        }
    }
    .map_err(|e| e.to_string())?;
    let format = dump.format;
    let graph = dump.into_main();
    progress(Stage::Planning { ops: graph.len() });
    Ok(Workspace::new(graph, format, &name, rules))
}
