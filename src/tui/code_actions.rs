//! The code view's actions: show or hide it, copy the code to the clipboard, write it out.

use super::action::Action;
use super::app::{App, Screen};
use super::clipboard::osc52;
use super::effect::Effect;
use super::explorer::Pane;
use super::layout::{self, BodyLayout};

/// Columns the code scrolls sideways at a time.
const SIDEWAYS: isize = 8;

impl App {
    /// An action with the code view focused, where some keys mean something of their own:
    /// `h`/`l` scroll sideways, `/` `n` `N` search the code, `esc` leaves the zoom, and the
    /// panes stay put while it is zoomed. False when the action is not the code view's.
    pub(super) fn code_key(&mut self, action: Action) -> bool {
        let Screen::Explorer(ex) = &mut self.screen else {
            return false;
        };
        let zoomed = ex.body_layout() == BodyLayout::CodeZoomed;
        match action {
            Action::Collapse => ex.shift_code(-SIDEWAYS),
            Action::Expand => ex.shift_code(SIDEWAYS),
            Action::Search => self.ask_code_search(),
            Action::SearchNext | Action::SearchPrev => {
                let forward = action == Action::SearchNext;
                let text = ex.code.as_ref().and_then(|c| c.search.clone());
                match text {
                    None => self.problem("no search of the code: press / to search".to_string()),
                    Some(text) if !ex.find_in_code(&text, forward) => {
                        self.problem(format!("no line of the code holds {text:?}"))
                    }
                    Some(_) => {}
                }
            }
            Action::Back if zoomed => self.code_action(Action::Zoom),
            Action::NextPane | Action::PrevPane if zoomed => {}
            _ => return false,
        }
        true
    }

    /// Runs a code-view action.
    pub(super) fn code_action(&mut self, action: Action) {
        let size = self.size;
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match action {
            Action::CodeView => {
                ex.details_zoomed = false;
                let streams = ex.ws.context().streams().len();
                let code = if ex.code.is_none() {
                    BodyLayout::CodeBeside
                } else {
                    BodyLayout::Panes
                };
                ex.set_areas(layout::areas(size, streams, code));
                ex.toggle_code();
                if code == BodyLayout::Panes && ex.focus == Pane::Details {
                    ex.focus = Pane::Ops;
                }
            }
            Action::Zoom if ex.code.is_none() => {
                // Without the code view, the details take the body (a break's reason and fix
                // in full on a small terminal), and give it back.
                let streams = ex.ws.context().streams().len();
                ex.details_zoomed = !ex.details_zoomed;
                let body = ex.body_layout();
                ex.set_areas(layout::areas(size, streams, body));
                ex.focus = if ex.details_zoomed {
                    Pane::Details
                } else {
                    Pane::Ops
                };
            }
            Action::Zoom => {
                let streams = ex.ws.context().streams().len();
                let zoom = ex.body_layout() != BodyLayout::CodeZoomed;
                let code = if zoom {
                    BodyLayout::CodeZoomed
                } else {
                    BodyLayout::CodeBeside
                };
                ex.set_areas(layout::areas(size, streams, code));
                if let Some(view) = &mut ex.code {
                    view.zoomed = zoom;
                }
                ex.focus = Pane::Details;
                ex.show_code_cursor();
            }
            Action::CompareCode => {
                let meta_loaded = !ex.ws.kernel_meta().is_empty();
                let toggled = match &mut ex.code {
                    Some(view) => view.toggle_compare(meta_loaded),
                    None => Err("no code shown: press e on an op of a segment".to_string()),
                };
                match toggled {
                    Ok(()) => ex.show_code_cursor(),
                    Err(why) => self.problem(why),
                }
            }
            Action::CopyCode | Action::WriteCode => {
                let Some(code) = ex.code.as_ref().and_then(|c| c.code.clone()) else {
                    self.problem("no code shown: press e on an op of a segment".to_string());
                    return;
                };
                if action == Action::CopyCode {
                    self.effects.push(Effect::Copy(osc52(&code.source)));
                    let lines = code.origins().len();
                    self.info(format!(
                        "copied {} ({lines} lines) to the clipboard (OSC 52: the terminal must allow it)",
                        code.file_name()
                    ));
                    return;
                }
                let dir = crate::paths::DumpFiles::of(&ex.ws.source().file).codegen();
                let written = crate::codegen::files::write_all(
                    &dir,
                    crate::own_files::Links::Refuse,
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
