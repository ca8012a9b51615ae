//! The code view's actions: show or hide it, copy the code to the clipboard, write it out.

use super::action::Action;
use super::app::{App, Screen};
use super::clipboard::osc52;
use super::layout;

impl App {
    /// Runs a code-view action.
    pub(super) fn code_action(&mut self, action: Action) {
        let size = self.size;
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match action {
            Action::CodeView => {
                let streams = ex.ws.context().streams().len();
                let on = ex.code.is_none();
                ex.set_areas(layout::areas(size, streams, on));
                ex.toggle_code();
            }
            Action::CopyCode | Action::WriteCode => {
                let Some(code) = ex.code.as_ref().and_then(|c| c.code.clone()) else {
                    self.problem("no code shown: press e on an op of a segment".to_string());
                    return;
                };
                if action == Action::CopyCode {
                    self.clipboard = Some(osc52(&code.source));
                    let lines = code.origins().len();
                    self.info(format!(
                        "copied {} ({lines} lines) to the clipboard (OSC 52: the terminal must allow it)",
                        code.file_name()
                    ));
                    return;
                }
                let dir = crate::paths::beside(&ex.ws.source().file, "codegen");
                let written = crate::codegen::files::write_all(
                    &dir,
                    std::slice::from_ref(&*code),
                    ex.ws.graph(),
                );
                match written {
                    Ok(paths) => {
                        let shown: Vec<String> =
                            paths.iter().map(|p| p.display().to_string()).collect();
                        self.info(format!(
                            "wrote {} and its .json",
                            crate::text::sanitize(&shown.join(", "))
                        ));
                    }
                    Err(e) => self.problem(format!(
                        "cannot write into {}: {e}",
                        crate::text::sanitize(&dir.display().to_string())
                    )),
                }
            }
            _ => {}
        }
    }
}
