//! Finding an op by typing: the search and the filter of the op list and the search of the
//! code view, each a prompt that follows the typing and puts back on esc what was there
//! before; and the picker of the selected op's neighbours.

use super::app::{App, Prompt, Screen};
use super::dialog::{Dialog, Pick, Picker, Width};
use super::explorer::{Explorer, Pane};
use super::query::Query;
use crate::graph::OpId;

const SEARCH_HINT: &str = "enter keep · esc cancel · search name, type, scope, reason; name: type: scope: reason: limit a term";
const FILTER_HINT: &str = "enter keep · esc cancel · filter by name, type, scope, reason; name: type: scope: reason: limit a term";

/// Runs `then` on the explorer, when a graph is loaded.
fn on_explorer(app: &mut App, then: impl FnOnce(&mut Explorer)) {
    if let Screen::Explorer(ex) = &mut app.screen {
        then(ex);
    }
}

impl App {
    /// Asks for a search of the op list: it starts empty (esc brings the last one back), and
    /// each key searches again from the op selected when it opened.
    pub(super) fn ask_search(&mut self) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let before_op = ex.selected_op();
        let before = ex.search().map(|q| q.text().to_string());
        let prompt = Prompt::new("/", SEARCH_HINT, String::new(), |_, _| {})
            .live(move |app: &mut App, text| {
                on_explorer(app, |ex| {
                    let query = Query::parse(text);
                    let before_row = ex.row_near(before_op);
                    // No match (or no search left): back where the prompt started.
                    if query.is_none() || !ex.set_search(query.clone(), before_row) {
                        ex.set_search(query, before_row);
                        ex.select_row(before_row);
                    }
                });
            })
            .on_cancel(move |app| {
                on_explorer(app, |ex| {
                    ex.set_search(before.as_deref().and_then(Query::parse), 0);
                    ex.select_row(ex.row_near(before_op));
                });
            })
            .counted(|app: &App| {
                app.explorer()
                    .and_then(|ex| {
                        ex.search()
                            .map(|_| format!("  {} match(es)", ex.search_matches()))
                    })
                    .unwrap_or_default()
            });
        self.prompt = Some(prompt);
    }

    /// Asks for a filter of the op list, starting from the current one (to be edited); each
    /// key filters again around the op selected when it opened.
    pub(super) fn ask_filter(&mut self) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let before_op = ex.selected_op();
        let before = ex.filter().map(|q| q.text().to_string());
        let prompt = Prompt::new("filter: ", FILTER_HINT, String::new(), |_, _| {})
            .editing(before.clone().unwrap_or_default())
            .live(move |app: &mut App, text| {
                on_explorer(app, |ex| {
                    let breaks_only = ex.breaks_only();
                    ex.set_filter(Query::parse(text), breaks_only, before_op);
                });
            })
            .on_cancel(move |app| {
                on_explorer(app, |ex| {
                    let breaks_only = ex.breaks_only();
                    let query = before.as_deref().and_then(Query::parse);
                    ex.set_filter(query, breaks_only, before_op);
                    ex.select_row(ex.row_near(before_op));
                });
            })
            .counted(|app: &App| {
                app.explorer()
                    .map(|ex| format!("  {} of {} ops", ex.rows().len(), ex.ws.graph().len()))
                    .unwrap_or_default()
            });
        self.prompt = Some(prompt);
    }

    /// Asks for a search of the code view's lines from the line the cursor is on: each key
    /// searches again from there, esc goes back to it.
    pub(super) fn ask_code_search(&mut self) {
        let Some(before) = self
            .explorer()
            .and_then(|ex| ex.code.as_ref())
            .map(|c| c.cursor)
        else {
            return;
        };
        let prompt = Prompt::new("", "", String::new(), |_, _| {})
            .live(move |app: &mut App, text| {
                on_explorer(app, |ex| {
                    ex.code_cursor_to(before);
                    if !text.is_empty() && !ex.find_in_code(text, true) {
                        ex.code_cursor_to(before);
                    }
                });
            })
            .on_cancel(move |app| on_explorer(app, |ex| ex.code_cursor_to(before)));
        self.prompt = Some(prompt);
    }

    /// Offers the ops the selected one takes from or gives to; the one picked is selected, as
    /// a jump.
    pub(super) fn pick_neighbour(&mut self) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let neighbours = ex.neighbours();
        if neighbours.is_empty() {
            return self
                .problem("nothing to go to: select an op with inputs or outputs".to_string());
        }
        let rows = neighbours
            .into_iter()
            .map(|(id, label)| (Pick::new(label), id))
            .collect();
        let picker = Picker::new(
            " Go to an op it takes from or gives to ",
            "no op matches",
            rows,
            |app: &mut App, id: OpId| app.go_to_neighbour(id),
        );
        self.dialog = Some(Dialog::Pick(picker.width(Width::Medium)));
    }

    /// Selects op `id`, as a jump.
    fn go_to_neighbour(&mut self, id: OpId) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        if ex.jump_to_op(id) {
            ex.focus = Pane::Details;
        } else {
            let hidden = self.hidden_message();
            self.problem(hidden);
        }
    }
}
