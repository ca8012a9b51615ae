//! What has the user's attention. The explorer's screen is a stack of layers — the panes (or
//! a view over them: runs, profiles…), the options editor, a dialog, the help, a prompt — and
//! this is the one place that says, for the layer on top, where keys and the mouse go and
//! which keymap reads the keys; drawing goes up the same stack.

/// One layer of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The loading or failure screen, before there are panes.
    Screen,
    /// The graph's panes.
    Panes,
    /// A view over the panes (`crate::tui::view`): the runs, the profiles…
    View,
    /// The options editor in the details pane's place.
    Options,
    /// A picker or a question.
    Dialog,
    /// The help overlay.
    Help,
    /// A line of text being typed (search, filter, a name).
    Prompt,
}

/// How a layer reads keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// As text (the prompt).
    Text,
    /// As the one-key answers of a dialog (its own keys).
    Answers,
    /// Through the keymap's graph bindings: every action, quit, suspend and help included.
    Graph,
    /// Through the keymap's view bindings (the views over the panes: no scope edits).
    View,
}

/// What the mouse does on a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mouse {
    /// Nothing (overlays and prompts take the keyboard only).
    Ignored,
    /// The wheel scrolls; clicks would land on panes that are not shown.
    Wheel,
    /// Clicks select, the wheel scrolls the pane under the pointer, dragging selects a range.
    Panes,
}

impl Layer {
    /// How it reads keys.
    pub fn keys(self) -> Keys {
        match self {
            Layer::Prompt => Keys::Text,
            Layer::Dialog => Keys::Answers,
            Layer::View => Keys::View,
            Layer::Screen | Layer::Panes | Layer::Options | Layer::Help => Keys::Graph,
        }
    }

    /// What the mouse does on it.
    pub fn mouse(self) -> Mouse {
        match self {
            Layer::Panes | Layer::Options => Mouse::Panes,
            Layer::View => Mouse::Wheel,
            Layer::Screen | Layer::Dialog | Layer::Help | Layer::Prompt => Mouse::Ignored,
        }
    }

    /// True when quit, suspend and help work here as everywhere (not in a prompt or a dialog,
    /// whose keys mean their own things; the help handles its own keys).
    pub fn takes_global_keys(self) -> bool {
        !matches!(self, Layer::Prompt | Layer::Dialog | Layer::Help)
    }
}

/// The layers up, bottom first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layers(Vec<Layer>);

impl Layers {
    /// The stack for this state: `body` at the bottom (screen, panes, runs or profiles), the
    /// options editor over the panes, then the help, a dialog (one that comes up while the help
    /// is open, from a worker, is answered first) and a prompt when they are up.
    pub fn of(body: Layer, options: bool, dialog: bool, help: bool, prompt: bool) -> Layers {
        let mut up = vec![body];
        if options && body == Layer::Panes {
            up.push(Layer::Options);
        }
        for (on, layer) in [
            (help, Layer::Help),
            (dialog, Layer::Dialog),
            (prompt, Layer::Prompt),
        ] {
            if on {
                up.push(layer);
            }
        }
        Layers(up)
    }

    /// The layer on top: it gets the keys.
    pub fn top(&self) -> Layer {
        self.0.last().copied().unwrap_or(Layer::Screen)
    }

    /// The layer at the bottom: the body the others are drawn over.
    pub fn body(&self) -> Layer {
        self.0.first().copied().unwrap_or(Layer::Screen)
    }

    /// The layers over the body, bottom first: the order they are drawn in.
    pub fn above_body(&self) -> impl Iterator<Item = Layer> + '_ {
        self.0.iter().skip(1).copied()
    }

    /// True when `layer` is up.
    pub fn has(&self, layer: Layer) -> bool {
        self.0.contains(&layer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_top_layer_takes_the_keys_and_the_body_is_drawn_first() {
        let plain = Layers::of(Layer::Panes, false, false, false, false);
        assert_eq!((plain.body(), plain.top()), (Layer::Panes, Layer::Panes));
        let busy = Layers::of(Layer::View, true, true, true, false);
        // The options editor belongs to the panes; over the runs view it is not up.
        assert!(!busy.has(Layer::Options));
        assert_eq!(busy.top(), Layer::Dialog);
        assert_eq!(busy.top().keys(), Keys::Answers);
        let help = Layers::of(Layer::View, false, false, true, false);
        assert_eq!(help.top().keys(), Keys::Graph);
        let typing = Layers::of(Layer::Panes, true, false, true, true);
        assert_eq!(typing.top(), Layer::Prompt);
        assert_eq!(typing.top().mouse(), Mouse::Ignored);
        assert!(!typing.top().takes_global_keys());
        assert_eq!(Layer::View.mouse(), Mouse::Wheel);
    }
}
