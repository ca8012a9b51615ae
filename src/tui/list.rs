//! The one selection behind every list and table of the explorer's views: a selected row kept
//! within the rows shown, moved by the movement actions (a row, a page, the ends) and by the
//! mouse wheel, and kept within the rows when they change.

use super::action::Action;
use std::ops::Range;

/// A list's selected row and the first row shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selection {
    /// The selected row.
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
}

impl Selection {
    /// Moves by `step` rows among `len`, scrolling so that the selection stays within the
    /// `height` rows shown.
    pub fn move_by(&mut self, step: isize, len: usize, height: usize) {
        self.selected = self
            .selected
            .saturating_add_signed(step)
            .min(len.saturating_sub(1));
        self.show_selected(height);
    }

    /// Moves as `action` does (a page is `height` rows); false, unmoved, when it is not a
    /// movement.
    pub fn act(&mut self, action: Action, len: usize, height: usize) -> bool {
        let height = height.max(1);
        match action.rows(height as isize) {
            Some(step) => {
                self.move_by(step, len, height);
                true
            }
            None => false,
        }
    }

    /// Selects row `row` (kept within `len`), shown within `height` rows.
    pub fn select(&mut self, row: usize, len: usize, height: usize) {
        self.selected = row.min(len.saturating_sub(1));
        self.show_selected(height);
    }

    /// Back to the first row.
    pub fn reset(&mut self) {
        *self = Selection::default();
    }

    /// The rows shown in `height` rows of `len`.
    pub fn window(&self, len: usize, height: usize) -> Range<usize> {
        let start = self.offset.min(len);
        start..(start + height).min(len)
    }

    fn show_selected(&mut self, height: usize) {
        let height = height.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_stays_among_the_rows_and_on_screen() {
        let mut s = Selection::default();
        assert!(s.act(Action::PageDown, 100, 10));
        assert_eq!(
            s,
            Selection {
                selected: 10,
                offset: 1
            }
        );
        assert!(s.act(Action::Bottom, 100, 10));
        assert_eq!(
            s,
            Selection {
                selected: 99,
                offset: 90
            }
        );
        assert!(s.act(Action::Up, 100, 10));
        assert_eq!(s.window(100, 10), 90..100);
        assert!(s.act(Action::Top, 100, 10));
        assert_eq!(s, Selection::default());
        assert!(!s.act(Action::Sort, 100, 10));
        s.move_by(5, 3, 10);
        assert_eq!(s.selected, 2);
        s.move_by(1, 0, 10);
        assert_eq!(s.selected, 0);
        s.select(50, 40, 10);
        assert_eq!(
            s,
            Selection {
                selected: 39,
                offset: 30
            }
        );
    }
}
