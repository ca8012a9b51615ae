//! The `skope` command line.

use anyhow::Result;
use clap::{Parser, Subcommand};
use skope::info::Info;
use skope::load::{self, Dump, LoadOptions};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Name under which the bundled example is shown.
const EXAMPLE_NAME: &str = "assets/examples/moe_decode.ge_proto.txt";
/// The bundled example graph, so `skope` works from any directory.
const EXAMPLE: &[u8] = include_bytes!("../assets/examples/moe_decode.ge_proto.txt");

#[derive(Parser)]
#[command(
    name = "skope",
    version,
    about = "Predict and explain Ascend SuperKernel fusion on graph dumps"
)]
struct Cli {
    /// Graph dump to open (GE ge_proto_*.txt / ge_onnx_*.pbtxt, TorchAir .txt / .pbtxt, atc
    /// JSON); the bundled example when omitted.
    file: Option<PathBuf>,
    /// Refuse dumps larger than this many bytes.
    #[arg(long, global = true, default_value_t = LoadOptions::default().max_bytes)]
    max_size: u64,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Print what a dump holds: format, graphs, ops, op types, streams, scopes, warnings.
    Info {
        /// The dump file.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", skope::text::sanitize(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let options = LoadOptions {
        max_bytes: cli.max_size,
    };
    match cli.command {
        Some(Command::Info { file, json }) => {
            let dump = load::load_file(&file, options)?;
            let info = Info::of(&dump, &file.to_string_lossy());
            if json {
                println!("{}", serde_json::to_string_pretty(&info)?);
            } else {
                print!("{}", info.to_text());
            }
        }
        None => {
            let (dump, name) = open(cli.file.as_deref(), options)?;
            print!("{}", Info::of(&dump, &name).to_text());
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads `file`, or the bundled example when none is given.
fn open(file: Option<&Path>, options: LoadOptions) -> Result<(Dump, String)> {
    Ok(match file {
        Some(path) => (
            load::load_file(path, options)?,
            path.to_string_lossy().into_owned(),
        ),
        None => (
            load::load_bytes(Path::new(EXAMPLE_NAME), EXAMPLE)?,
            EXAMPLE_NAME.to_string(),
        ),
    })
}
