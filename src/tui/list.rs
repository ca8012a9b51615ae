//! The one list behind every list and table of the explorer's views: a selected row kept
//! within the rows shown, moved by the movement actions (a row, a page, the ends) and by the
//! mouse wheel, and kept within the rows when they change ([`Selection`]); the rows a table
//! shows of its items, filtered and sorted, with the selected item kept selected when they are
//! arranged again ([`Rows`]); and the orders and filters a key steps through ([`Cycle`]).

use super::action::Action;
use std::cmp::Ordering;
use std::ops::Range;

/// An order or a filter that a key steps through, in the order of [`Cycle::ALL`], round again
/// after the last.
pub trait Cycle: Copy + PartialEq + 'static {
    /// Every one, in the order the key steps through them.
    const ALL: &'static [Self];

    /// The one after this.
    fn next(self) -> Self {
        let at = Self::ALL.iter().position(|c| *c == self).unwrap_or(0);
        Self::ALL[(at + 1) % Self::ALL.len()]
    }
}

/// The rows a table shows of its items: the indices of the items its filter keeps, in its
/// order, with the selection among them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rows {
    order: Vec<usize>,
    /// The selected row and the first row shown.
    pub selection: Selection,
}

impl Rows {
    /// Shows those of `items` items that `keep` keeps, ordered by `order` (ties in item
    /// order). The item selected stays selected when it is still shown; otherwise the row
    /// stays where it was, within the rows.
    pub fn arrange(
        &mut self,
        items: usize,
        keep: impl Fn(usize) -> bool,
        mut order: impl FnMut(usize, usize) -> Ordering,
    ) {
        let selected = self.selected();
        self.order = (0..items).filter(|&i| keep(i)).collect();
        self.order.sort_by(|&a, &b| order(a, b));
        let row = selected
            .and_then(|item| self.order.iter().position(|&i| i == item))
            .unwrap_or(self.selection.selected);
        self.selection.selected = row.min(self.order.len().saturating_sub(1));
    }

    /// The items shown, in order.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// How many rows are shown.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when no row is shown.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// The item on the selected row.
    pub fn selected(&self) -> Option<usize> {
        self.order.get(self.selection.selected).copied()
    }

    /// The item on row `row`.
    pub fn item(&self, row: usize) -> Option<usize> {
        self.order.get(row).copied()
    }

    /// Moves as `action` does among the rows (see [`Selection::act`]).
    pub fn act(&mut self, action: Action, height: usize) -> bool {
        self.selection.act(action, self.order.len(), height)
    }

    /// Moves by `step` rows (the wheel).
    pub fn move_by(&mut self, step: isize, height: usize) {
        self.selection.move_by(step, self.order.len(), height);
    }

    /// The rows shown in `height` rows.
    pub fn window(&self, height: usize) -> Range<usize> {
        self.selection.window(self.order.len(), height)
    }
}

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
    fn arranging_again_keeps_the_selected_item_and_a_filter_keeps_the_row_in_range() {
        let items = [30, 10, 20, 40];
        let mut rows = Rows::default();
        rows.arrange(4, |_| true, |a, b| items[a].cmp(&items[b]));
        assert_eq!(rows.order(), &[1, 2, 0, 3]);
        assert!(rows.act(Action::Down, 10));
        assert!(rows.act(Action::Down, 10));
        assert_eq!(rows.selected(), Some(0), "the item of 30");
        // The other way round: 30 is now the second row, and still selected.
        rows.arrange(4, |_| true, |a, b| items[b].cmp(&items[a]));
        assert_eq!(
            (rows.order(), rows.selection.selected),
            (&[3, 0, 2, 1][..], 1)
        );
        // Filtered out, the selection stays on its row, within the rows left.
        rows.arrange(4, |i| items[i] < 30, |a, b| a.cmp(&b));
        assert_eq!((rows.order(), rows.selected()), (&[1, 2][..], Some(2)));
        rows.arrange(4, |_| false, |a, b| a.cmp(&b));
        assert!(rows.is_empty() && rows.selected().is_none());
    }

    #[test]
    fn a_cycle_goes_round() {
        #[derive(Debug, Clone, Copy, PartialEq)]
        enum Way {
            A,
            B,
            C,
        }
        impl Cycle for Way {
            const ALL: &'static [Way] = &[Way::A, Way::B, Way::C];
        }
        assert_eq!(
            [Way::A.next(), Way::B.next(), Way::C.next()],
            [Way::B, Way::C, Way::A]
        );
    }

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
