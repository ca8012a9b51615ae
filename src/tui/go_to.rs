//! From a row of a view over the panes (the profile view, the static kernels view) to the
//! graph: an op type filters the op list to its ops, an op name selects the op. The view is
//! closed so the panes show.

use super::action::Action;
use super::app::{App, Screen};
use super::explorer::{Explorer, Pane};
use super::query::Query;
use super::reply::Target;
use crate::graph::OpId;
use crate::text::sanitize;

impl App {
    /// Shows `target` in the panes, closing the views over them.
    pub(super) fn go_to(&mut self, target: Target) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match target {
            Target::Type(op_type) => {
                let query = Query::parse(&format!("type:{op_type}"));
                ex.set_filter(query, false, None);
                ex.focus = Pane::Ops;
                let shown = ex.rows().len();
                self.close_view();
                self.info(format!(
                    "{shown} op(s) of type {} in the graph; {} clears the filter",
                    sanitize(&op_type),
                    self.config.keymap.hint(Action::ClearFilter)
                ));
            }
            Target::Op(name) => match ex.ws.graph().find(&name) {
                Some(id) => {
                    show_op(ex, id);
                    self.close_view();
                }
                None => self.problem(format!("no op named {} in the graph", sanitize(&name))),
            },
        }
    }
}

/// Selects `id` in the op list, clearing the filter when it hides the op.
fn show_op(ex: &mut Explorer, id: OpId) {
    if ex.row_of(id).is_none() {
        ex.set_filter(None, false, Some(id));
    }
    if let Some(row) = ex.row_of(id) {
        ex.select_row(row);
        ex.focus = Pane::Ops;
    }
}
