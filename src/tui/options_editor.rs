//! The options editor's model: a form over the SuperKernel option schema for one scope, and
//! the raw `k=v:k=v` string, kept in step. Choices cycle; numbers, lists and the raw string are
//! typed and checked as the compiler checks them, with its exact message.

use crate::fusion::options::{OptionKind, OptionSpec, SCHEMA, SkOptions, check_value, set_option};

/// What the editor's selected row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The raw options string.
    Raw,
    /// One option of the schema.
    Field(&'static OptionSpec),
}

/// A problem with typed text: our message and the compiler's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    /// What is wrong and what to write.
    pub message: String,
    /// The compiler's wording.
    pub ge_message: String,
}

/// The editor of one scope's options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionsEditor {
    /// The scope.
    pub scope: String,
    /// The options string in effect.
    pub text: String,
    /// The selected row: 0 is the raw string, then the schema in order.
    pub row: usize,
    /// Text being typed into the selected row, when editing.
    pub input: Option<String>,
    /// The id of this editing session (consecutive changes of one field are one undo step).
    pub session: u64,
    /// The hardware the graph is built for: the title names it.
    pub target: crate::target::Target,
}

impl OptionsEditor {
    /// This editor for a graph built for `target`.
    pub fn for_target(self, target: crate::target::Target) -> OptionsEditor {
        OptionsEditor { target, ..self }
    }

    /// Rows: the raw string and every option.
    pub const ROWS: usize = SCHEMA.len() + 1;

    /// An editor for scope `scope` whose options are `text`.
    pub fn new(scope: &str, text: &str, session: u64) -> OptionsEditor {
        OptionsEditor {
            target: Default::default(),
            scope: scope.to_string(),
            text: text.to_string(),
            row: 0,
            input: None,
            session,
        }
    }

    /// What row `i` is.
    pub fn row_at(i: usize) -> Row {
        match i.checked_sub(1).and_then(|k| SCHEMA.get(k)) {
            Some(spec) => Row::Field(spec),
            None => Row::Raw,
        }
    }

    /// The selected row.
    pub fn selected(&self) -> Row {
        OptionsEditor::row_at(self.row)
    }

    /// The options as parsed.
    pub fn parsed(&self) -> SkOptions {
        SkOptions::parse(&self.text)
    }

    /// The value `spec` has in the text, if it is given (and valid).
    pub fn value(&self, spec: &OptionSpec) -> Option<String> {
        self.parsed().get(spec.key).map(|v| v.to_string())
    }

    /// Moves the selection by `delta` rows (clamped).
    pub fn move_by(&mut self, delta: isize) {
        self.row = self
            .row
            .saturating_add_signed(delta)
            .min(OptionsEditor::ROWS - 1);
    }

    /// The key that makes consecutive changes of the selected row one undo step.
    pub fn step_key(&self) -> u64 {
        self.session.wrapping_mul(64).wrapping_add(self.row as u64)
    }

    /// For a choice row: the text with the next (or previous) value, "unset" counting as one
    /// of them. `None` for other rows.
    pub fn cycle(&self, forward: bool) -> Option<String> {
        let Row::Field(spec) = self.selected() else {
            return None;
        };
        let OptionKind::Choice(choices) = spec.kind else {
            return None;
        };
        let mut values: Vec<Option<&str>> = vec![None];
        values.extend(choices.iter().map(|c| Some(c.value)));
        let current = self.value(spec);
        let at = values
            .iter()
            .position(|v| v.map(str::to_string) == current)
            .unwrap_or(0);
        let n = values.len();
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        Some(set_option(&self.text, spec.key, values[next]))
    }

    /// The text with the selected option removed (back to its default); `None` on the raw row
    /// or when the option is not given.
    pub fn unset(&self) -> Option<String> {
        let Row::Field(spec) = self.selected() else {
            return None;
        };
        let text = set_option(&self.text, spec.key, None);
        (text != self.text).then_some(text)
    }

    /// Starts typing into the selected row, from its current text. Choices are cycled, not
    /// typed.
    pub fn begin_input(&mut self) -> bool {
        let start = match self.selected() {
            Row::Raw => self.text.clone(),
            Row::Field(spec) if matches!(spec.kind, OptionKind::Choice(_)) => return false,
            Row::Field(spec) => self.value(spec).unwrap_or_default(),
        };
        self.input = Some(start);
        true
    }

    /// What is wrong with the text being typed, if anything. For the raw string, its first
    /// problem (every problem is listed under it while typing).
    pub fn input_error(&self) -> Option<InputError> {
        let input = self.input.as_ref()?;
        match self.selected() {
            Row::Raw => SkOptions::parse(input)
                .diagnostics()
                .first()
                .map(|d| InputError {
                    message: d.message.clone(),
                    ge_message: d.ge_message.clone(),
                }),
            Row::Field(_) if input.trim().is_empty() => None,
            Row::Field(spec) => check_value(spec, input.trim())
                .err()
                .map(|(m, g)| InputError {
                    message: m,
                    ge_message: g,
                }),
        }
    }

    /// Ends typing: the new text to apply, or the problem that keeps the typed value out. An
    /// empty field unsets the option. The raw string is taken as typed, problems and all (the
    /// plan then shows what the compiler would say).
    pub fn commit_input(&mut self) -> Result<String, InputError> {
        let Some(input) = self.input.clone() else {
            return Ok(self.text.clone());
        };
        let text = match self.selected() {
            Row::Raw => input,
            Row::Field(spec) => {
                let value = input.trim();
                if value.is_empty() {
                    set_option(&self.text, spec.key, None)
                } else {
                    if let Some(e) = self.input_error() {
                        return Err(e);
                    }
                    set_option(&self.text, spec.key, Some(value))
                }
            }
        };
        self.input = None;
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(editor: &mut OptionsEditor, key: &str) {
        editor.row = 1 + SCHEMA.iter().position(|s| s.key == key).unwrap();
    }

    #[test]
    fn choices_cycle_through_unset_and_keep_other_parts() {
        let mut e = OptionsEditor::new("s", "stream-fusion=1:bogus", 1);
        at(&mut e, "early-start");
        let values: Vec<String> = (0..4)
            .map(|_| {
                let t = e.cycle(true).unwrap();
                e.text = t.clone();
                t
            })
            .collect();
        assert_eq!(
            values,
            [
                "stream-fusion=1:bogus:early-start=0",
                "stream-fusion=1:bogus:early-start=1",
                "stream-fusion=1:bogus:early-start=2",
                "stream-fusion=1:bogus",
            ]
        );
        e.text = "stream-fusion=1".into();
        at(&mut e, "stream-fusion");
        assert_eq!(e.cycle(false).unwrap(), "stream-fusion=0");
        assert_eq!(e.unset().unwrap(), "");
        // Typing is for numbers, lists and the raw string.
        assert!(!e.begin_input());
    }

    #[test]
    fn typed_values_are_checked_with_the_compilers_words() {
        let mut e = OptionsEditor::new("s", "early-start=0", 1);
        at(&mut e, "split-mode");
        assert!(e.begin_input());
        e.input = Some("65".into());
        let err = e.input_error().unwrap();
        assert!(err.ge_message.contains("(0, 64]"), "{err:?}");
        assert_eq!(e.commit_input(), Err(err));
        e.input = Some("4".into());
        assert_eq!(e.input_error(), None);
        assert_eq!(e.commit_input().unwrap(), "early-start=0:split-mode=4");
        // An empty value unsets the option.
        e.text = "early-start=0:split-mode=4".into();
        e.begin_input();
        assert_eq!(e.input.as_deref(), Some("4"));
        e.input = Some(String::new());
        assert_eq!(e.commit_input().unwrap(), "early-start=0");
        // The raw string: its first problem while typing; taken as typed on enter.
        e.row = 0;
        e.begin_input();
        e.input = Some("stream-funsion=1".into());
        let err = e.input_error().unwrap();
        assert!(err.message.contains("stream-fusion"), "{err:?}");
        assert!(
            err.ge_message
                .contains("stream-funsion option is not supported"),
            "{err:?}"
        );
        assert_eq!(e.commit_input().unwrap(), "stream-funsion=1");
    }
}
