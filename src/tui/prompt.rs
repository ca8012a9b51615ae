//! The line of text typed at the bottom, a service whoever needs text asks through: the asker
//! says what the text is for (the bar's words) and hands over what to do with it — on enter,
//! on each change (a search follows the typing), on cancel — so the answer goes back to whoever
//! asked and nothing else needs to know what was asked.

/// What enter does with the text.
type OnEnter<A> = Box<dyn FnOnce(&mut A, String)>;
/// What each change of the text does.
type OnChange<A> = Box<dyn FnMut(&mut A, &str)>;
/// What cancelling does.
type OnCancel<A> = Box<dyn FnOnce(&mut A)>;
/// Words shown after the text, from the app as it is now (`3 match(es)`).
type Count<A> = Box<dyn Fn(&A) -> String>;

/// A text prompt at the bottom line, asked for by some part of the app `A`.
pub struct Prompt<A> {
    /// What is typed, shown before the text (`filter: `).
    pub label: &'static str,
    /// The keys and what the text may be, shown after it.
    pub hint: &'static str,
    /// The text typed so far.
    pub input: String,
    /// True while `input` is what the prompt offered, untouched: the first key typed (or
    /// pasted) replaces it, a deleting key clears it, enter takes it as it is.
    pub offered: bool,
    on_enter: OnEnter<A>,
    on_change: Option<OnChange<A>>,
    on_cancel: Option<OnCancel<A>>,
    count: Option<Count<A>>,
}

impl<A> std::fmt::Debug for Prompt<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prompt")
            .field("label", &self.label)
            .field("input", &self.input)
            .field("offered", &self.offered)
            .finish_non_exhaustive()
    }
}

impl<A> Prompt<A> {
    /// A prompt labelled `label` with `hint`, offering `input` (a default or a guess: typing
    /// replaces it); enter hands the text to `on_enter`.
    pub fn new(
        label: &'static str,
        hint: &'static str,
        input: String,
        on_enter: impl FnOnce(&mut A, String) + 'static,
    ) -> Prompt<A> {
        Prompt {
            label,
            hint,
            offered: !input.is_empty(),
            input,
            on_enter: Box::new(on_enter),
            on_change: None,
            on_cancel: None,
            count: None,
        }
    }

    /// The text starts as `input`, to be edited (typing goes on from it).
    pub fn editing(mut self, input: String) -> Prompt<A> {
        self.input = input;
        self.offered = false;
        self
    }

    /// Each change of the text is handed to `on_change` as it is typed.
    pub fn live(mut self, on_change: impl FnMut(&mut A, &str) + 'static) -> Prompt<A> {
        self.on_change = Some(Box::new(on_change));
        self
    }

    /// Cancelling calls `on_cancel` (to undo what the typing did).
    pub fn on_cancel(mut self, on_cancel: impl FnOnce(&mut A) + 'static) -> Prompt<A> {
        self.on_cancel = Some(Box::new(on_cancel));
        self
    }

    /// The bar shows what `count` says after the text.
    pub fn counted(mut self, count: impl Fn(&A) -> String + 'static) -> Prompt<A> {
        self.count = Some(Box::new(count));
        self
    }

    /// Takes what was offered out of the way of a typed or pasted text.
    pub fn typing(&mut self) {
        if std::mem::take(&mut self.offered) {
            self.input.clear();
        }
    }

    /// The words after the text, for `app`.
    pub fn count(&self, app: &A) -> String {
        self.count.as_ref().map(|c| c(app)).unwrap_or_default()
    }

    /// Enter: the text goes to whoever asked.
    pub fn enter(self, app: &mut A) {
        (self.on_enter)(app, self.input);
    }

    /// Esc: whoever asked undoes what the typing did.
    pub fn cancel(self, app: &mut A) {
        if let Some(on_cancel) = self.on_cancel {
            on_cancel(app);
        }
    }

    /// Hands the text as it is now to whoever follows the typing (the prompt is out of `app`
    /// meanwhile).
    pub fn follow(&mut self, app: &mut A) {
        if let Some(on_change) = &mut self.on_change {
            on_change(app, &self.input);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Asker {
        typed: Vec<String>,
        entered: Option<String>,
        cancelled: bool,
    }

    fn prompt() -> Prompt<Asker> {
        Prompt::new(
            "name: ",
            "enter keep",
            "offered".into(),
            |a: &mut Asker, text| a.entered = Some(text),
        )
        .live(|a, text| a.typed.push(text.to_string()))
        .on_cancel(|a| a.cancelled = true)
        .counted(|a| format!("{} change(s)", a.typed.len()))
    }

    #[test]
    fn the_answer_goes_to_whoever_asked() {
        let mut asker = Asker::default();
        let mut p = prompt();
        assert!(p.offered);
        p.typing();
        p.input.push('x');
        p.follow(&mut asker);
        assert_eq!(asker.typed, ["x"]);
        let mut p = prompt();
        p.input = "kept".into();
        assert_eq!(p.count(&asker), "1 change(s)");
        p.enter(&mut asker);
        assert_eq!(asker.entered.as_deref(), Some("kept"));
        prompt().cancel(&mut asker);
        assert!(asker.cancelled);
    }
}
