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
    // What a pass wrote is summed up by the pass's own account, as `report` prints it.
    if crate::open::is_pass_output(file) {
        let asked = ReportRequest {
            json,
            ..ReportRequest::default()
        };
        return super::report::run(request, file, &asked, say, out).map(drop);
    }
    let dump = crate::load::load_file(file, request.load)?;
    let info = Info::of(&dump, &file.to_string_lossy());
    out.text_or_json(json, &info, || info.to_text())?;
    // The process ends here: freeing a graph of a million allocations one by one would only
    // make the user wait (a tenth of the run on a 100 MB dump).
    std::mem::forget(dump);
    Ok(())
}
