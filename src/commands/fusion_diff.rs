//! `skope diff A B` on two graphs: their fusion compared (`crate::fusion_diff`). A and B are
//! two dumps, a dump and a plan file for it, or two plan files of one dump given with
//! `--graph`.

use super::Printer;
use crate::fusion_diff::{Side, diff, to_text};
use crate::open::Request;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// True when `path` is a plan file skope wrote.
fn is_plan(path: &Path) -> bool {
    crate::planfile::PlanFile::looks_like(path) && crate::planfile::PlanFile::read(path).is_ok()
}

/// True when `path` is a graph dump (its content says so), not a profile.
fn is_dump(path: &Path) -> bool {
    use std::io::Read;
    if !path.is_file() || is_plan(path) {
        return false;
    }
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(1 << 16).read_to_end(&mut head));
    read.is_ok() && crate::load::sniff::sniff(&head).is_ok()
}

/// True when the inputs are two graphs (or plans of one) rather than profiles.
pub fn applies(a: &Path, b: Option<&Path>, graph: Option<&Path>) -> bool {
    let Some(b) = b else {
        return false;
    };
    match graph {
        Some(_) => is_plan(a) && is_plan(b),
        None => is_dump(a) && (is_dump(b) || is_plan(b)),
    }
}

/// Compares the fusion of the inputs; true (a diff never fails a gate).
pub fn run(
    request: &Request,
    (a, b, graph): (&Path, Option<&Path>, Option<&Path>),
    form: super::OutputForm,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<bool> {
    let Some(b) = b else {
        anyhow::bail!("a fusion diff needs two graphs");
    };
    let open_with = |dump: &Path, plan: Option<&Path>, say: &mut dyn FnMut(&str)| {
        let request = Request {
            plan: plan.map(Path::to_path_buf),
            ..request.clone()
        };
        super::open(&request, dump, say)
    };
    let (wa, wb) = match graph {
        Some(dump) => (
            open_with(dump, Some(a), say)?,
            open_with(dump, Some(b), say)?,
        ),
        None if is_plan(b) => (open_with(a, None, say)?, open_with(a, Some(b), say)?),
        None => (open_with(a, None, say)?, open_with(b, None, say)?),
    };
    let (sa, sb) = (Side::of(&wa), Side::of(&wb));
    let d = diff(sa, &a.display().to_string(), sb, &b.display().to_string());
    match form {
        super::OutputForm::Json => out.json(&d)?,
        super::OutputForm::Markdown => out.text(&crate::markdown::fusion_diff(&d))?,
        _ => out.text(&to_text(&d))?,
    }
    Ok(true)
}
