//! `skope export --format model-explorer -o DIR`: the plan as a Model Explorer graph
//! (`DIR/graph.json`) with node-data files beside it (`DIR/nodedata_<value>.json`), checked
//! against the documented schema before they are written.

use crate::model_explorer::{OpTimes, check, check_node_data, graph, node_data};
use crate::open::Request;
use crate::own_files::{Durability, Links};
use crate::profile;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// Writes the export of `file` into `dir`; with `profiles`, each op's times too. Returns the
/// files written.
pub fn run(
    request: &Request,
    file: &Path,
    profiles: &[PathBuf],
    dir: &Path,
    say: &mut dyn FnMut(&str),
) -> Result<Vec<PathBuf>> {
    let ws = super::open(request, file, say)?;
    let times = match profiles {
        [] => None,
        [base] => Some(op_times(&ws, base, None)?),
        [base, new] => Some(op_times(&ws, base, Some(new))?),
        _ => anyhow::bail!("--profiles takes one directory holding both, or BASE then NEW"),
    };
    let graph_text = checked(&graph(&ws), check).context("the graph")?;
    let mut files = vec![("graph.json".to_string(), graph_text)];
    for (stem, data) in node_data(&ws, times.as_ref()) {
        let text = checked(&data, check_node_data).with_context(|| format!("node data {stem}"))?;
        files.push((format!("nodedata_{stem}.json"), text));
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        crate::own_files::replace(&path, text.as_bytes(), Durability::Unsynced, Links::Refuse)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    say(&format!(
        "wrote {} file(s) to {}: model-explorer {}/graph.json --node_data_paths={}",
        written.len(),
        dir.display(),
        dir.display(),
        written[1..]
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(",")
    ));
    Ok(written)
}

/// `value` as JSON, held against the documented schema by `check` as Model Explorer would
/// read it back.
fn checked(
    value: &impl serde::Serialize,
    check: fn(&serde_json::Value) -> Vec<String>,
) -> Result<String> {
    let text = crate::text::json_safe(serde_json::to_string(value)?);
    let problems = check(&serde_json::from_str(&text)?);
    anyhow::ensure!(
        problems.is_empty(),
        "the export breaks Model Explorer's schema: {problems:?}"
    );
    Ok(text)
}

/// Each op's kernel time a step without and with SuperKernel: a fused op has no time of its
/// own with SuperKernel (its SuperKernel's is its segment's).
fn op_times(ws: &crate::workspace::Workspace, base: &Path, new: Option<&Path>) -> Result<OpTimes> {
    let pair = profile::load_pair(base, new, None)
        .map_err(|e| anyhow::Error::new(e).context("cannot read the profiles"))?;
    let per_step = |p: &profile::Profile, name: &str| {
        let k = p.kernels.as_ref()?.get(name)?;
        Some(k.total_us / p.step_count() as f64)
    };
    Ok(ws
        .graph()
        .ops()
        .iter()
        .map(|op| {
            let times = (
                per_step(&pair.base, &op.name),
                per_step(&pair.new, &op.name),
            );
            (op.name.clone(), times)
        })
        .filter(|(_, (b, n))| b.is_some() || n.is_some())
        .collect())
}
