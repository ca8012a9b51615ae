//! The whole UI state and its one entry point, [`App::handle`]: every key, mouse event, resize,
//! tick and worker message goes through it. Drawing reads the state and never changes it.

use super::action::{Action, Group};
use super::config::Config;
use super::dialog::Dialog;
use super::effect::{Effect, Effects};
use super::explorer::{Direction, Explorer, Jump, Pane};
use super::help_text::{self, ViewKeys};
use super::layer::{Keys, Layer, Layers, Mouse};
use super::layout::{self, Areas};
use super::loader::Loaded;
pub use super::prompt::Prompt;
use super::reply::Reply;
use super::runs::Runs;
use super::session::Session;
use super::tree::TreeId;
use super::view::ViewSpec;
use super::workers::Workers;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use std::path::PathBuf;

pub use super::loader::Stage;
pub use super::msg::Msg;
use std::time::Duration;

/// The loading screen's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loading {
    /// The file being loaded, as named by the user.
    pub file: String,
    /// The current stage.
    pub stage: Option<Stage>,
    /// Time since loading started.
    pub elapsed: Duration,
}

/// Which screen is up.
#[derive(Debug)]
pub enum Screen {
    /// A graph is being loaded.
    Loading(Loading),
    /// Loading failed.
    Failed {
        /// The file.
        file: String,
        /// The loader's message.
        message: String,
    },
    /// A graph is loaded.
    Explorer(Box<Explorer>),
}

/// A one-line message shown in place of the key bar until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The message.
    pub text: String,
    /// True for a problem, false for information.
    pub problem: bool,
}

/// What the answer of work done for the app, or a worker's event, does on it.
type Then = Box<dyn FnOnce(&mut App) + Send>;

/// The loader's events, each taken in by the app.
impl From<super::loader::LoadEvent> for Msg {
    fn from(event: super::loader::LoadEvent) -> Msg {
        App::message(move |app| app.load_event(event))
    }
}

/// The highlighter's lines, taken in by the code view.
impl From<super::highlight::Highlighted> for Msg {
    fn from(done: super::highlight::Highlighted) -> Msg {
        App::message(move |app| app.highlighted(done))
    }
}

/// Messages the bottom line keeps, for `M` (the line cuts long ones at its edge).
pub const MESSAGES_KEPT: usize = 200;

/// The UI state.
#[derive(Debug)]
pub struct App {
    /// Keys and theme.
    pub config: Config,
    /// The terminal's size.
    pub size: Rect,
    /// The current screen.
    pub screen: Screen,
    /// The help overlay's scroll position, when it is open.
    pub help: Option<usize>,
    /// The prompt, when one is open.
    pub prompt: Option<Prompt<App>>,
    /// The last message.
    pub status: Option<Status>,
    /// The last messages of the bottom line, oldest first, with when they came (the app's
    /// clock).
    pub messages: std::collections::VecDeque<(Duration, Status)>,
    /// Ticks seen, for the spinner.
    pub ticks: usize,
    /// What the event loop is to do next: copy, suspend, quit.
    pub effects: Effects,
    /// The question or picker shown over the screen, if any.
    pub dialog: Option<Dialog<App>>,
    /// The plan file and the journal.
    pub session: Session,
    /// The runs started from the explorer, and the runs view.
    pub runs: Runs,
    /// The channel and the workers the app talks to (none in tests that drive it directly).
    pub workers: Workers,
    /// Time since the app started, as of the last message.
    pub now: Duration,
    /// Messages to handle once the graph is loaded, in order (read `--profiles`, `--static`).
    pub on_load: Vec<Msg>,
    /// The profiles being read, if any.
    pub profiles_loading: Option<super::profiles::ProfilesLoading>,
    /// How the dump was loaded, to load it again when it changed on disk (`None` in tests
    /// that build the app by hand).
    pub reload: Option<super::loader::LoadRequest>,
    /// True once the user agreed that quitting stops the runs still going.
    pub(super) runs_may_stop: bool,
    /// The views that can take the body over the panes (given by the registry).
    pub views: &'static [ViewSpec<App>],
}

impl App {
    /// An app loading `file` in a terminal of `size`, saving edits to `plan_path`.
    pub fn new(config: Config, size: Rect, file: &str, plan_path: PathBuf) -> App {
        App {
            config,
            size,
            screen: Screen::Loading(Loading {
                file: file.to_string(),
                stage: None,
                elapsed: Duration::ZERO,
            }),
            help: None,
            prompt: None,
            status: None,
            messages: std::collections::VecDeque::new(),
            ticks: 0,
            effects: Effects::default(),
            dialog: None,
            session: Session::new(plan_path),
            runs: Runs::default(),
            workers: Workers::default(),
            now: Duration::ZERO,
            profiles_loading: None,
            on_load: Vec::new(),
            reload: None,
            runs_may_stop: false,
            views: &[],
        }
    }

    /// The same app with `views` to open over the panes (`tui::VIEWS`).
    pub fn with_views(mut self, views: &'static [ViewSpec<App>]) -> App {
        self.views = views;
        self
    }

    /// The view up over the panes, by name, if any: the one place that says which. It belongs
    /// to the graph loaded, so another graph starts with none.
    pub fn up(&self) -> Option<&'static str> {
        self.explorer()?.up
    }

    /// The view up over the panes, if any.
    pub fn up_view(&self) -> Option<&'static ViewSpec<App>> {
        let name = self.up()?;
        self.views.iter().find(|v| v.name == name)
    }

    /// Puts the view `name` up over the panes (closing any other).
    pub fn show_view(&mut self, name: &'static str) {
        if let Screen::Explorer(ex) = &mut self.screen {
            ex.up = Some(name);
        }
    }

    /// Closes the view up over the panes: the graph's panes show again.
    pub fn close_view(&mut self) {
        if let Screen::Explorer(ex) = &mut self.screen {
            ex.up = None;
        }
    }

    /// The state the view of type `T` keeps for the graph loaded, if it is open or was.
    pub fn view_state<T: std::any::Any>(&self) -> Option<&T> {
        self.explorer()?.view_states.get::<T>()
    }

    /// The same, to change.
    pub fn view_state_mut<T: std::any::Any>(&mut self) -> Option<&mut T> {
        match &mut self.screen {
            Screen::Explorer(ex) => ex.view_states.get_mut::<T>(),
            _ => None,
        }
    }

    /// Keeps `state` for the graph loaded (replacing one of its type); dropped with the graph.
    pub fn set_view_state<T: std::any::Any + Send>(&mut self, state: T) {
        if let Screen::Explorer(ex) = &mut self.screen {
            ex.view_states.set(state);
        }
    }

    /// The explorer, once a graph is loaded.
    pub fn explorer(&self) -> Option<&Explorer> {
        match &self.screen {
            Screen::Explorer(ex) => Some(ex),
            _ => None,
        }
    }

    /// The screen areas for the current size and graph.
    pub fn areas(&self) -> Areas {
        let streams = self
            .explorer()
            .map_or(1, |ex| ex.ws.context().streams().len());
        let code = self
            .explorer()
            .map_or(layout::BodyLayout::Panes, Explorer::body_layout);
        layout::areas(self.size, streams, code)
    }

    /// Where help is asked: the keys of the view up, or of the code view when it has the
    /// keys; `None` in the graph's panes.
    pub fn help_view(&self) -> Option<ViewKeys> {
        if let Some(view) = self.up_view() {
            return Some((view.title, view.keys));
        }
        self.explorer()
            .filter(|ex| ex.focus == Pane::Details && ex.code.is_some())
            .map(|_| super::code_view::CODE_KEYS)
    }

    /// True while something on screen moves by itself (the loading spinner, a run's clock).
    pub fn animating(&self) -> bool {
        matches!(self.screen, Screen::Loading(_)) || self.runs.running() > 0
    }

    /// A message that does `then` on the app when it is handled: how every worker's answer
    /// and event reaches the app.
    pub fn message(then: impl FnOnce(&mut App) + Send + 'static) -> Msg {
        let then: Then = Box::new(then);
        Msg::Answered(super::msg::Answered::new(then))
    }

    /// Runs `work` where the workers say (on a thread of its own with an event loop, on the
    /// spot without one: see [`super::workers`]); `then` gets its result on the app — or why
    /// there is none (a panic, no thread) — as the answer to a message of its own.
    pub fn work<R: Send + 'static>(
        &self,
        name: &str,
        work: impl FnOnce() -> R + Send + 'static,
        then: impl FnOnce(&mut App, Result<R, crate::worker::Stopped>) + Send + 'static,
    ) {
        let answers = self.workers.sender();
        self.workers.threads().start(name, work, move |result| {
            // Only a closed app stops listening; its answers no longer matter.
            let _ = answers.send(App::message(move |app| then(app, result)));
        });
    }

    /// Applies one message, then — without an event loop — the answers of the work it
    /// started (see [`super::workers`]).
    pub fn handle(&mut self, msg: Msg) {
        self.apply(msg);
        while let Some(answer) = self.workers.waiting() {
            self.apply(answer);
        }
        if let Screen::Explorer(ex) = &mut self.screen {
            ex.keep_details();
        }
    }

    /// Applies one message.
    fn apply(&mut self, msg: Msg) {
        match msg {
            Msg::Key(key) if key.kind != KeyEventKind::Release => self.key(key),
            Msg::Key(_) => {}
            Msg::Mouse(mouse) => self.mouse(mouse),
            Msg::Paste(text) => {
                if let Some(prompt) = &mut self.prompt {
                    prompt.typing();
                    // One line: line breaks and tabs become spaces, other controls go.
                    prompt.input.extend(
                        text.chars()
                            .map(|c| if c.is_whitespace() { ' ' } else { c })
                            .filter(|c| !c.is_control()),
                    );
                    self.prompt_changed();
                }
            }
            Msg::Resize(w, h) => {
                self.size = Rect::new(0, 0, w, h);
                let areas = self.areas();
                if let Screen::Explorer(ex) = &mut self.screen {
                    ex.set_areas(areas);
                }
            }
            Msg::Tick(elapsed) => {
                self.ticks = self.ticks.wrapping_add(1);
                self.now = self.now.max(elapsed);
                self.tell_rank_progress();
                if let Screen::Loading(l) = &mut self.screen {
                    l.elapsed = elapsed;
                }
            }
            Msg::Answered(answer) => {
                if let Some(then) = answer.take::<Then>() {
                    then(self);
                }
            }
            Msg::WorkerFailed { work, message } => self.problem(format!(
                "{work} stopped: {}",
                crate::text::sanitize(&message)
            )),
            Msg::Stop => self.effects.push(Effect::Quit),
            Msg::Signal(signal) => self.effects.push(match signal {
                libc::SIGCONT => Effect::Retake,
                libc::SIGTSTP => Effect::Suspend,
                stop => Effect::Stopped(stop),
            }),
        }
        self.request_highlight();
    }

    /// Takes in the loader's event: its new stage, or the graph loaded (or why not).
    pub(super) fn load_event(&mut self, event: super::loader::LoadEvent) {
        let result = match event {
            super::loader::LoadEvent::Progress(stage) => {
                if let Screen::Loading(l) = &mut self.screen {
                    l.stage = Some(stage);
                }
                return;
            }
            super::loader::LoadEvent::Loaded(result) => result,
        };
        let file = match &self.screen {
            Screen::Loading(l) => l.file.clone(),
            _ => return,
        };
        match result {
            Ok(loaded) => {
                let Loaded {
                    ws,
                    notes,
                    journal,
                    plan_read,
                    saved,
                } = *loaded;
                self.session.graph = Some(ws.source().id.clone());
                let mut recovery = None;
                match journal {
                    Some(Ok(claim)) => {
                        recovery = claim.recovery;
                        self.session.journal = Some(claim.journal);
                    }
                    Some(Err(why)) => self.session.no_journal = Some(why),
                    None => {}
                }
                if let Some((path, modified)) = plan_read {
                    self.session.opened(path, modified);
                }
                let dirs = self.runs.history_dirs(&ws.source().file);
                self.runs.load_history(&dirs, &ws.source().id);
                let streams = ws.context().streams().len();
                let areas = layout::areas(self.size, streams, layout::BodyLayout::Panes);
                let ex = Explorer::new(ws, &self.config.theme, areas);
                self.screen = Screen::Explorer(Box::new(ex));
                let mut notes = notes;
                notes.extend(self.carry_scopes_over());
                // Every note goes to the messages; the bottom line shows the first.
                for note in notes.iter().skip(1).rev() {
                    self.log_message(Status {
                        text: note.clone(),
                        problem: true,
                    });
                }
                if let Some(first) = notes.first() {
                    let more = notes.len() - 1;
                    let text = if more > 0 {
                        format!("{first} (and {more} more: M lists them)")
                    } else {
                        first.clone()
                    };
                    self.problem(text);
                }
                if let Some(recovery) = recovery {
                    self.offer_recovery(recovery);
                } else if let Some(saved) = saved {
                    self.offer_saved_plan(saved);
                }
                for msg in std::mem::take(&mut self.on_load) {
                    self.apply(msg);
                }
            }
            Err(message) => self.screen = Screen::Failed { file, message },
        }
    }

    /// Takes in the highlighter's lines for the code view.
    fn highlighted(&mut self, done: super::highlight::Highlighted) {
        if let Screen::Explorer(ex) = &mut self.screen
            && let Some(code) = &mut ex.code
        {
            code.highlighted(done);
        }
    }

    /// Asks the highlighter for the code view's visible lines when they have no colours yet.
    fn request_highlight(&mut self) {
        let (Some(highlighter), Screen::Explorer(ex)) =
            (&self.workers.highlighter, &mut self.screen)
        else {
            return;
        };
        let height = ex.code_height();
        if let Some(view) = &mut ex.code
            && let Some(lines) = view.highlight_request(height)
        {
            highlighter.request(view.generation, view.text().clone(), lines);
        }
    }

    /// The layers on screen, bottom first: the one place that orders them.
    pub fn layers(&self) -> Layers {
        let body = match &self.screen {
            Screen::Explorer(_) if self.up_view().is_some() => Layer::View,
            Screen::Explorer(_) => Layer::Panes,
            _ => Layer::Screen,
        };
        let options = self.explorer().is_some_and(|ex| ex.options.is_some());
        Layers::of(
            body,
            options,
            self.dialog.is_some(),
            self.help.is_some(),
            self.prompt.is_some(),
        )
    }

    /// A key goes to the layer on top, read as that layer reads keys.
    fn key(&mut self, key: KeyEvent) {
        self.status = None;
        let top = self.layers().top();
        let action = match top.keys() {
            Keys::Text => return self.prompt_key(key),
            Keys::Answers => return self.dialog_key(key),
            // The options editor reads its own keys first; the rest reach the panes.
            Keys::Graph if top == Layer::Options && self.options_key(key) => return,
            Keys::Graph => self.config.keymap.action(key),
            // A view that reads text takes its keys first.
            Keys::View => match self.up_view().and_then(|v| v.text) {
                Some(text) if text(self, key) => return,
                _ => self.config.keymap.view_action(key),
            },
        };
        if let Some(action) = action {
            self.perform(action);
        }
    }

    /// Does what `action` means on the layer on top, as its key would.
    pub fn perform(&mut self, action: Action) {
        let top = self.layers().top();
        if top.takes_global_keys() && self.global_action(action) {
            return;
        }
        match (top, self.up_view()) {
            (Layer::Help, _) => self.help_action(action),
            // The action that opened a view closes it; its handler reads the rest.
            (Layer::View, Some(view)) if view.opens_with == Some(action) => self.close_view(),
            // Undo and redo work in every view, as on the graph: an edit made from a view
            // (a prune) is undone where it was made.
            (Layer::View, Some(_)) if matches!(action, Action::Undo | Action::Redo) => {
                self.edit_action(action)
            }
            (Layer::View, Some(view)) => (view.handle)(self, action),
            _ => self.explorer_action(action),
        }
    }

    /// Does what a view's handler left for the app.
    pub(super) fn carry_out(&mut self, reply: Reply) {
        match reply {
            Reply::Done => {}
            Reply::Close => self.close_view(),
            Reply::Open(name) => {
                if let Some(view) = self.views.iter().find(|v| v.name == name) {
                    (view.open)(self);
                }
            }
            Reply::Info(text) => self.info(text),
            Reply::Problem(text) => self.problem(text),
            Reply::Apply(edit) => self.apply_edit(edit, None),
            Reply::Pass(action) => self.explorer_action(action),
            Reply::GoTo(target) => self.go_to(target),
        }
    }

    /// Quit, suspend and help, which work the same on every layer that takes them. True when
    /// `action` was one.
    fn global_action(&mut self, action: Action) -> bool {
        match action {
            Action::Quit => self.request_quit(),
            Action::Suspend => self.effects.push(Effect::Suspend),
            Action::Help => self.help = Some(0),
            Action::Messages => self.show_messages(),
            // A view every layer opens (the findings, the palette); the same key closes it.
            _ if let Some(view) = self.views.iter().find(|v| v.opens_with == Some(action))
                && matches!(action, Action::Findings | Action::Palette) =>
            {
                if self.up() == Some(view.name) {
                    self.close_view();
                } else {
                    (view.open)(self);
                }
            }
            _ => return false,
        }
        true
    }

    /// A key in the help overlay: scrolling, and closing it.
    fn help_action(&mut self, action: Action) {
        let Some(scroll) = self.help else {
            return;
        };
        let view = self.help_view();
        let max = help_text::max_scroll(&self.config.keymap, &self.config.theme, self.size, view);
        self.help = match action {
            Action::Help | Action::Back => None,
            Action::Quit => {
                self.request_quit();
                None
            }
            Action::Down => Some(scroll + 1),
            Action::Up => Some(scroll.saturating_sub(1)),
            Action::PageDown => Some(scroll + 10),
            Action::PageUp => Some(scroll.saturating_sub(10)),
            Action::Top => Some(0),
            Action::Bottom => Some(max),
            _ => Some(scroll),
        }
        .map(|s| s.min(max));
    }

    fn explorer_action(&mut self, action: Action) {
        if action.group() == Group::Edit {
            self.edit_action(action);
            return;
        }
        if matches!(
            action,
            Action::CodeView
                | Action::CopyCode
                | Action::WriteCode
                | Action::Zoom
                | Action::CompareCode
        ) {
            self.code_action(action);
            return;
        }
        if action == Action::CompareWith {
            return self.compare_with();
        }
        // The actions that open a view.
        if let Some(view) = self.views.iter().find(|v| v.opens_with == Some(action)) {
            return (view.open)(self);
        }
        let code_focused = self
            .explorer()
            .is_some_and(|ex| ex.focus == Pane::Details && ex.code.is_some());
        if code_focused && self.code_key(action) {
            return;
        }
        // With the details over the whole body, esc gives the panes back, and the keys that
        // move between panes have none to move to.
        if self.explorer().is_some_and(|ex| ex.details_zoomed) {
            match action {
                Action::Back => return self.code_action(Action::Zoom),
                Action::NextPane | Action::PrevPane | Action::Collapse | Action::Activate => return,
                _ => {}
            }
        }
        if action == Action::Activate
            && let Some(ex) = self.explorer()
            && ex.focus == Pane::Details
            && ex.code.is_none()
        {
            return self.pick_neighbour();
        }
        match action {
            Action::Search => return self.ask_search(),
            Action::Filter => return self.ask_filter(),
            _ => {}
        }
        // A view answers the actions it takes from the graph (`c` picks a recipe).
        if let Some(view) = self.views.iter().find(|v| v.from_graph.contains(&action)) {
            return (view.handle)(self, action);
        }
        if matches!(action.group(), Group::Run | Group::Profile) {
            return;
        }
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let page = |ex: &Explorer| match ex.focus {
            Pane::Scopes => ex.tree_height(),
            Pane::Ops => ex.list_height(),
            Pane::Details if ex.code.is_some() => ex.code_height(),
            Pane::Details => usize::from(layout::inner(ex.areas.details).height),
        } as isize;
        let mut problem: Option<String> = None;
        let mut wrapped: Option<&str> = None;
        let mut hidden = false;
        match action {
            Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
                let step = match action {
                    Action::Up => -1,
                    Action::Down => 1,
                    Action::PageUp => -page(ex),
                    _ => page(ex),
                };
                match ex.focus {
                    Pane::Ops => ex.move_cursor(step),
                    Pane::Scopes => hidden = !ex.move_tree(step),
                    Pane::Details if ex.code.is_some() => ex.move_code(step),
                    Pane::Details => ex.scroll_details(step),
                }
            }
            Action::Top | Action::Bottom => {
                let top = action == Action::Top;
                match ex.focus {
                    Pane::Ops => ex.select_row(if top { 0 } else { usize::MAX }),
                    Pane::Scopes => {
                        let height = ex.tree_height();
                        ex.tree.select_row(if top { 0 } else { usize::MAX }, height);
                        hidden = !ex.follow_tree();
                    }
                    Pane::Details if ex.code.is_some() => {
                        ex.move_code(if top { isize::MIN } else { isize::MAX })
                    }
                    Pane::Details => ex.scroll_details(if top { isize::MIN } else { isize::MAX }),
                }
            }
            Action::Collapse | Action::Expand => {
                let open = action == Action::Expand;
                match ex.focus {
                    Pane::Scopes => {
                        let height = ex.tree_height();
                        ex.tree.set_open(open, &ex.ws, height);
                        hidden = !ex.follow_tree();
                    }
                    Pane::Ops => ex.focus = if open { Pane::Details } else { Pane::Scopes },
                    Pane::Details if !open => ex.focus = Pane::Ops,
                    Pane::Details => {}
                }
            }
            Action::Activate => match ex.focus {
                Pane::Scopes => match ex.tree.selected() {
                    [.., TreeId::Op(_)] | [_, TreeId::Break(_)] => {
                        hidden = !ex.follow_tree();
                        if !hidden {
                            ex.focus = Pane::Ops;
                        }
                    }
                    _ => {
                        let height = ex.tree_height();
                        ex.tree.toggle(&ex.ws, height);
                    }
                },
                Pane::Ops => ex.focus = Pane::Details,
                Pane::Details => ex.focus = Pane::Ops,
            },
            Action::NextPane | Action::PrevPane => {
                ex.focus = ex.focus.cycle(action == Action::NextPane);
                if ex.areas.scopes.is_empty() && ex.focus == Pane::Scopes {
                    // The code view took the tree's place.
                    ex.focus = ex.focus.cycle(action == Action::NextPane);
                }
            }
            Action::NextBreak | Action::PrevBreak => {
                let forward = action == Action::NextBreak;
                match ex.jump_to_break(direction(forward)) {
                    Jump::None => problem = Some("no other break in the list".to_string()),
                    Jump::Wrapped => {
                        wrapped = Some(if forward { "first break" } else { "last break" })
                    }
                    Jump::Found => {}
                }
            }
            Action::NextSegment | Action::PrevSegment => {
                let forward = action == Action::NextSegment;
                match ex.jump_to_segment(direction(forward)) {
                    Jump::None => problem = Some("no other segment starts in the list".to_string()),
                    Jump::Wrapped => {
                        wrapped = Some(if forward {
                            "first segment"
                        } else {
                            "last segment"
                        })
                    }
                    Jump::Found => {}
                }
            }
            Action::SearchNext | Action::SearchPrev => {
                match ex.search_step(direction(action == Action::SearchNext)) {
                    None => problem = Some("no search: press / to search".to_string()),
                    Some(false) => problem = Some("no op matches the search".to_string()),
                    Some(true) => {}
                }
            }
            Action::BreaksOnly => {
                let filter = ex.filter().cloned();
                let on = !ex.breaks_only();
                ex.set_filter(filter, on, None);
            }
            Action::ClearFilter => ex.set_filter(None, false, None),
            Action::JumpBack => match ex.jump_back() {
                None => problem = Some("no jump to go back from".to_string()),
                Some(false) => hidden = true,
                Some(true) => {}
            },
            Action::Back if !ex.clear_range() && ex.search().is_some() => {
                ex.set_search(None, 0);
            }
            _ => {}
        }
        if hidden {
            problem = Some(self.hidden_message());
        }
        if let Some(text) = problem {
            self.problem(text);
        } else if let Some(to) = wrapped {
            self.info(format!("wrapped to the {to} in the list"));
        }
    }

    fn prompt_key(&mut self, key: KeyEvent) {
        let Some(prompt) = &mut self.prompt else {
            return;
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => {
                self.cancel_prompt();
                return;
            }
            KeyCode::Enter => {
                if let Some(prompt) = self.prompt.take() {
                    prompt.enter(self);
                }
                return;
            }
            KeyCode::Backspace if prompt.offered => prompt.typing(),
            KeyCode::Backspace => {
                prompt.input.pop();
            }
            KeyCode::Char('u') if ctrl => prompt.input.clear(),
            KeyCode::Char('w') if ctrl && prompt.offered => prompt.typing(),
            KeyCode::Char('w') if ctrl => {
                // Drop the last word and the whitespace after it (any whitespace, any width).
                let keep = prompt
                    .input
                    .trim_end()
                    .trim_end_matches(|c: char| !c.is_whitespace())
                    .len();
                prompt.input.truncate(keep);
            }
            KeyCode::Char('c') if ctrl => {
                self.cancel_prompt();
                return;
            }
            KeyCode::Char(c) if !ctrl => {
                prompt.typing();
                prompt.input.push(c);
            }
            _ => return,
        }
        prompt.offered = false;
        self.prompt_changed();
    }

    /// Hands the prompt's text, as it is typed, to whoever asked for it.
    fn prompt_changed(&mut self) {
        let Some(mut prompt) = self.prompt.take() else {
            return;
        };
        prompt.follow(self);
        self.prompt.get_or_insert(prompt);
    }

    /// Closes the prompt; whoever asked undoes what the typing did.
    fn cancel_prompt(&mut self) {
        if let Some(prompt) = self.prompt.take() {
            prompt.cancel(self);
        }
    }

    fn mouse(&mut self, mouse: MouseEvent) {
        let top = self.layers().top();
        match top.mouse() {
            Mouse::Ignored => return,
            // The runs and profile views cover the panes: the wheel scrolls them, a line a
            // notch (whatever keys are bound to scrolling), and clicks do nothing.
            Mouse::Wheel => {
                let lines = match mouse.kind {
                    MouseEventKind::ScrollDown => 1,
                    MouseEventKind::ScrollUp => -1,
                    _ => return,
                };
                if let Some(view) = self.up_view() {
                    (view.scroll)(self, lines);
                }
                return;
            }
            Mouse::Panes => {}
        }
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let at = Position::new(mouse.column, mouse.row);
        let areas = ex.areas;
        let pane = [
            (areas.scopes, Pane::Scopes),
            (areas.ops, Pane::Ops),
            (areas.details, Pane::Details),
        ]
        .into_iter()
        .find(|(r, _)| r.contains(at))
        .map(|(_, p)| p);
        match mouse.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let delta = if mouse.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                };
                match pane {
                    Some(Pane::Ops) => ex.scroll_list(delta),
                    Some(Pane::Scopes) => {
                        let height = ex.tree_height();
                        ex.tree.scroll(delta, height);
                    }
                    Some(Pane::Details) => ex.scroll_details(delta),
                    None => {}
                }
            }
            MouseEventKind::Drag(MouseButton::Left) if pane == Some(Pane::Ops) => {
                // Dragging over the list selects a range from where the button went down.
                let inner = layout::inner(areas.ops);
                if at.y > inner.y {
                    let row = (ex.offset() + usize::from(at.y - inner.y) - 1)
                        .min(ex.rows().len().saturating_sub(1));
                    ex.start_range();
                    ex.select_row(row);
                }
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if areas.strip.contains(at) {
                    if let Some(row) = ex.strip_row_at(areas.strip, at) {
                        ex.select_row(row);
                    }
                    return;
                }
                let Some(pane) = pane else { return };
                ex.focus = pane;
                let inner = layout::inner(match pane {
                    Pane::Scopes => areas.scopes,
                    Pane::Ops => areas.ops,
                    Pane::Details => areas.details,
                });
                let line = usize::from(at.y.saturating_sub(inner.y));
                match pane {
                    Pane::Ops if at.y > inner.y && inner.contains(at) => {
                        // Below the last row there is nothing to select.
                        let row = ex.offset() + line - 1;
                        if row < ex.rows().len() {
                            ex.clear_range();
                            ex.select_row(row);
                        }
                    }
                    Pane::Scopes if inner.contains(at) => {
                        let row = ex.tree.offset() + line;
                        if row < ex.tree.row_count() {
                            let height = ex.tree_height();
                            if ex.tree.selected_row() == Some(row) {
                                ex.tree.toggle(&ex.ws, height);
                            } else {
                                ex.tree.select_row(row, height);
                            }
                            if !ex.follow_tree() {
                                let text = self.hidden_message();
                                self.problem(text);
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
}

impl App {
    /// The message for a tree node whose op the filter hides, with the key that clears it.
    pub(super) fn hidden_message(&self) -> String {
        format!(
            "that op is hidden by the filter: {} clears it",
            self.config.keymap.hint(Action::ClearFilter)
        )
    }
}

fn direction(forward: bool) -> Direction {
    if forward {
        Direction::Forward
    } else {
        Direction::Backward
    }
}
