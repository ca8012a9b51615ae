//! The views that take the body over the graph's panes — the runs, the profile comparison,
//! the suggested scopes, the static kernels, MindSpore's graph kernel flags — as one model.
//! Each is a [`ViewSpec`] its own module declares: its rows of the action table (what a key
//! means in it: the help and the key bar show these), the action that opens it from the graph,
//! and its handlers — keys, the mouse wheel, drawing. The registry (`tui::VIEWS`) lists
//! them; the app keeps which one is up, so nothing else decides it.
//!
//! The specs are generic over the app they work on, so a view's module can work on the app
//! while the app reaches the views only through the specs it was given (no import loop).
//! A view that needs state of its own keeps it in [`ViewStates`], kept per graph.

use super::action::Action;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use std::any::Any;
use std::collections::HashMap;

/// One view over the panes.
pub struct ViewSpec<A: 'static> {
    /// Its name: what tests and messages call it.
    pub name: &'static str,
    /// The heading of its keys in the help (`In the runs view`).
    pub title: &'static str,
    /// The action that opens it from the graph and closes it again, if one does.
    pub opens_with: Option<Action>,
    /// Its rows of the action table: each action that means something of its own here, with
    /// what it does. The help lists them first and the key bar shows them while it is up.
    pub keys: &'static [(Action, &'static str)],
    /// The actions it answers while the graph is up (its `handle` gets them), besides the one
    /// that opens it: what it starts from there.
    pub from_graph: &'static [Action],
    /// Opens it (or first asks for what it needs: profiles, a directory).
    pub open: fn(&mut A),
    /// Does what an action means while it is up.
    pub handle: fn(&mut A, Action),
    /// Scrolls it by a number of rows (the mouse wheel).
    pub scroll: fn(&mut A, isize),
    /// Draws it over the body's area.
    pub draw: fn(&A, &mut Frame, Rect),
    /// For a view that reads typed text (a filter, a name): takes a key before the keymap
    /// does; true when it took it. `None` for the others.
    pub text: Option<fn(&mut A, KeyEvent) -> bool>,
}

impl<A> std::fmt::Debug for ViewSpec<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ViewSpec")
            .field("name", &self.name)
            .finish()
    }
}

/// The state views keep of their own, each by its type. The explorer of a graph holds it, so
/// a new graph starts them all afresh by being a new explorer.
#[derive(Debug, Default)]
pub struct ViewStates(HashMap<std::any::TypeId, Box<dyn Any + Send>>);

impl ViewStates {
    /// The state of type `T`, if a view keeps one.
    pub fn get<T: Any>(&self) -> Option<&T> {
        self.0
            .get(&std::any::TypeId::of::<T>())
            .and_then(|s| s.downcast_ref())
    }

    /// The state of type `T`, to change.
    pub fn get_mut<T: Any>(&mut self) -> Option<&mut T> {
        self.0
            .get_mut(&std::any::TypeId::of::<T>())
            .and_then(|s| s.downcast_mut())
    }

    /// Keeps `state` (replacing one of its type).
    pub fn set<T: Any + Send>(&mut self, state: T) {
        self.0.insert(std::any::TypeId::of::<T>(), Box::new(state));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_is_found_by_its_type() {
        #[derive(Debug, PartialEq)]
        struct A(u8);
        #[derive(Debug, PartialEq)]
        struct B(u8);
        let mut states = ViewStates::default();
        states.set(A(1));
        assert_eq!(states.get::<A>(), Some(&A(1)));
        assert_eq!(states.get::<B>(), None);
        if let Some(a) = states.get_mut::<A>() {
            a.0 = 2;
        }
        states.set(B(3));
        assert_eq!(
            (states.get::<A>(), states.get::<B>()),
            (Some(&A(2)), Some(&B(3)))
        );
    }
}
