//! `skope info`: what a dump holds, or, for what a pass wrote, the pass's own account.

use super::Printer;
use super::report::ReportRequest;
use crate::info::Info;
use crate::open::Request;
use anyhow::Result;
use std::io::Write;
use std::path::Path;

/// Describes `file` (read as `request` says) as text or, with `json`, one JSON object.
pub fn run(
    request: &Request,
    file: &Path,
    json: bool,
    say: &mut dyn FnMut(&str),
    out: &mut Printer<impl Write>,
) -> Result<()> {
    // What a pass wrote is summed up by the pass's own account, as `report` prints it; its
    // JSON is the same as a dump's, with that account under `pass`.
    if crate::open::is_pass_output(file) && !json {
        let asked = ReportRequest::default();
        return super::report::run(request, file, &asked, say, out).map(drop);
    }
    if crate::open::is_pass_output(file) {
        let opened = request.open(file)?;
        let ws = &opened.ws;
        let name = file.to_string_lossy();
        let graph = ws.graph();
        let mut info = Info::of_graphs(
            graph,
            std::slice::from_ref(graph),
            ws.source().format,
            &name,
        );
        info.target = ws.target().clone();
        let mut value = serde_json::to_value(&info)?;
        if let (Some(map), Some(own)) = (value.as_object_mut(), ws.own_report()) {
            map.insert("pass".to_string(), serde_json::from_str(own.json.get())?);
        }
        out.json(&value)?;
        return Ok(());
    }
    let dump = crate::load::load_file(file, request.load)?;
    let mut info = Info::of(&dump, &file.to_string_lossy());
    info.target = request.chosen_target();
    out.text_or_json(json, &info, || info.to_text())?;
    // The process ends here: freeing a graph of a million allocations one by one would only
    // make the user wait (a tenth of the run on a 100 MB dump).
    std::mem::forget(dump);
    Ok(())
}
