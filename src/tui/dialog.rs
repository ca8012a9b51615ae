//! The modal questions of the explorer, services whoever needs an answer asks through: a
//! picker (a list narrowed by typing) and a question with one-key answers. The asker hands
//! over what each answer does, so the answer goes back to whoever asked and nothing else needs
//! to know what was asked.

use std::any::{Any, TypeId};

/// What an answer does, handed back to whoever asked: run it on the app.
pub type Then<A> = Box<dyn FnOnce(&mut A)>;
/// What picking a row does with its value (erased to `Any`; the picker's rows all hold one type).
type OnPick<A> = Box<dyn FnOnce(&mut A, Box<dyn Any>)>;

/// A modal question over the screen, asked for by some part of the app `A`.
pub enum Dialog<A> {
    /// Pick from a list.
    Pick(Picker<A>),
    /// Answer a question with one key.
    Confirm(Confirm<A>),
}

impl<A> std::fmt::Debug for Dialog<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Dialog::Pick(p) => f
                .debug_struct("Pick")
                .field("title", &p.title)
                .field("choices", &p.choices.len())
                .finish_non_exhaustive(),
            Dialog::Confirm(c) => f
                .debug_struct("Confirm")
                .field("question", &c.question)
                .finish_non_exhaustive(),
        }
    }
}

/// A question with one-key answers; esc gives the last (the safe one).
pub struct Confirm<A> {
    /// The question, one or more lines.
    pub question: String,
    /// The answers, in the order shown.
    pub answers: Vec<Answer<A>>,
}

/// One answer of a [`Confirm`]: its key, its words and what it does.
pub struct Answer<A> {
    /// The key that gives it.
    pub key: char,
    /// What it says.
    pub words: String,
    then: Then<A>,
}

impl<A> Answer<A> {
    /// The answer given by `key`, saying `words`, doing `then`.
    pub fn new(key: char, words: &str, then: impl FnOnce(&mut A) + 'static) -> Answer<A> {
        Answer {
            key,
            words: words.to_string(),
            then: Box::new(then),
        }
    }

    /// The answer that does nothing (closes the question).
    pub fn cancel(key: char, words: &str) -> Answer<A> {
        Answer::new(key, words, |_| {})
    }
}

impl<A> Confirm<A> {
    /// The question `question` with `answers`.
    pub fn new(question: String, answers: Vec<Answer<A>>) -> Confirm<A> {
        Confirm { question, answers }
    }

    /// Takes out what the answer of `key` (esc, `None`: the last) does, when one has that
    /// key; the question is then done with.
    pub fn answer(&mut self, key: Option<char>) -> Option<Then<A>> {
        let at = match key {
            Some(k) => self
                .answers
                .iter()
                .position(|a| a.key == k.to_ascii_lowercase())?,
            None => self.answers.len().checked_sub(1)?,
        };
        Some(self.answers.swap_remove(at).then)
    }
}

/// One row of a picker.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pick {
    /// What the row says (and what typing narrows by).
    pub text: String,
    /// Words after it, dimmed — or standing out, when the flag is set (a recipe's file, one
    /// replacing a built-in).
    pub note: Option<(String, bool)>,
    /// More about it, shown under the list while it is selected.
    pub about: Vec<String>,
    /// Never narrowed away: first while nothing is typed, last after the matches once
    /// something is (`+ new scope…`).
    pub pinned: bool,
}

impl Pick {
    /// A row saying `text`.
    pub fn new(text: impl Into<String>) -> Pick {
        Pick {
            text: text.into(),
            ..Pick::default()
        }
    }
}

/// How wide a picker is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    /// Names (scopes, ranks).
    Narrow,
    /// Rows with more said about them (recipes, neighbours).
    Medium,
    /// Long rows whose whole text is shown, wrapped, under the list (messages).
    Wide,
}

/// A list to pick from, narrowed by typing. Each row has a value of the asker's type, which
/// picking it hands back to the asker.
pub struct Picker<A> {
    /// The title.
    pub title: String,
    /// Every row.
    pub choices: Vec<Pick>,
    /// What is said when typing leaves no row (`no recipe matches`).
    pub none_matches: &'static str,
    /// How wide it is drawn.
    pub width: Width,
    /// The text typed to narrow the rows.
    pub filter: String,
    /// The selected row among the shown ones.
    pub selected: usize,
    values: Vec<Box<dyn Any>>,
    value_type: TypeId,
    on_pick: OnPick<A>,
}

impl<A: 'static> Picker<A> {
    /// A picker titled `title` over `rows`, each with its value; picking one hands its value
    /// to `on_pick`.
    pub fn new<T: Any>(
        title: impl Into<String>,
        none_matches: &'static str,
        rows: Vec<(Pick, T)>,
        on_pick: impl FnOnce(&mut A, T) + 'static,
    ) -> Picker<A> {
        let (choices, values) = rows
            .into_iter()
            .map(|(pick, value)| (pick, Box::new(value) as Box<dyn Any>))
            .unzip();
        Picker {
            title: title.into(),
            choices,
            none_matches,
            width: Width::Narrow,
            filter: String::new(),
            selected: 0,
            values,
            value_type: TypeId::of::<T>(),
            on_pick: Box::new(move |app, value| {
                // Every value was given as a `T` (`new` and `insert` hold to it).
                if let Ok(value) = value.downcast::<T>() {
                    on_pick(app, *value);
                }
            }),
        }
    }

    /// Picks the selected row: what to do with its value, or `None` when no row is shown.
    pub fn pick(mut self) -> Option<Then<A>> {
        let at = *self.kept().get(self.selected)?;
        let value = self.values.swap_remove(at);
        let on_pick = self.on_pick;
        Some(Box::new(move |app| on_pick(app, value)))
    }
}

impl<A> Picker<A> {
    /// Drawn `width` wide.
    pub fn width(mut self, width: Width) -> Picker<A> {
        self.width = width;
        self
    }

    /// Starting on the row with text `text`, when there is one.
    pub fn starting_on(mut self, text: Option<&str>) -> Picker<A> {
        self.selected = text
            .and_then(|t| self.shown().iter().position(|p| p.text == t))
            .unwrap_or(0);
        self
    }

    /// Puts `pick` with `value` at row `at`; false (nothing changes) when `value` is not of
    /// the type the asker gave.
    pub fn insert<T: Any>(&mut self, at: usize, pick: Pick, value: T) -> bool {
        if TypeId::of::<T>() != self.value_type {
            return false;
        }
        let at = at.min(self.choices.len());
        self.choices.insert(at, pick);
        self.values.insert(at, Box::new(value));
        true
    }

    /// The indices of the rows the filter keeps, in the order shown.
    fn kept(&self) -> Vec<usize> {
        let filter = self.filter.to_lowercase();
        let matching = (0..self.choices.len()).filter(|&i| {
            let c = &self.choices[i];
            !c.pinned && c.text.to_lowercase().contains(&filter)
        });
        let pinned = (0..self.choices.len()).filter(|&i| self.choices[i].pinned);
        if filter.is_empty() {
            pinned.chain(matching).collect()
        } else {
            matching.chain(pinned).collect()
        }
    }

    /// The rows the filter keeps, in the order shown.
    pub fn shown(&self) -> Vec<&Pick> {
        self.kept().into_iter().map(|i| &self.choices[i]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picker() -> Picker<Vec<u32>> {
        let mut new = Pick::new("+ new…");
        new.pinned = true;
        Picker::new(
            "pick",
            "nothing matches",
            vec![(Pick::new("alpha"), 1), (Pick::new("beta"), 2), (new, 0)],
            |picked: &mut Vec<u32>, n| picked.push(n),
        )
    }

    #[test]
    fn the_picked_rows_value_goes_to_whoever_asked() {
        let mut p = picker();
        let texts = |p: &Picker<Vec<u32>>| -> Vec<String> {
            p.shown().iter().map(|c| c.text.clone()).collect()
        };
        assert_eq!(texts(&p), ["+ new…", "alpha", "beta"]);
        p.filter = "ET".into();
        assert_eq!(texts(&p), ["beta", "+ new…"]);
        let mut picked = Vec::new();
        p.pick().expect("a row")(&mut picked);
        assert_eq!(picked, [2]);
        let mut p = picker().starting_on(Some("+ new…"));
        assert!(!p.insert(0, Pick::new("wrong type"), "text"));
        assert!(p.insert(0, Pick::new("gamma"), 3u32));
        p.filter = "gam".into();
        p.pick().expect("a row")(&mut picked);
        assert_eq!(picked, [2, 3]);
        // Nothing matches: the pinned row is still there.
        let mut p = picker();
        p.filter = "zzz".into();
        p.pick().expect("the pinned row")(&mut picked);
        assert_eq!(picked, [2, 3, 0]);
        let mut p = Picker::new(
            "pick",
            "none",
            vec![(Pick::new("a"), 1)],
            |_: &mut (), _: u8| {},
        );
        p.filter = "zzz".into();
        assert!(p.pick().is_none());
    }

    #[test]
    fn esc_gives_the_last_answer_and_a_key_its_own() {
        let question = || {
            Confirm::new(
                "sure?".into(),
                vec![
                    Answer::new('y', "yes", |said: &mut Vec<&str>| said.push("yes")),
                    Answer::new('n', "no", |said: &mut Vec<&str>| said.push("no")),
                ],
            )
        };
        let mut said = Vec::new();
        question().answer(Some('Y')).expect("y")(&mut said);
        question().answer(None).expect("esc")(&mut said);
        let mut asked = question();
        assert!(asked.answer(Some('q')).is_none());
        assert_eq!(asked.answers.len(), 2);
        assert_eq!(said, ["yes", "no"]);
    }
}
