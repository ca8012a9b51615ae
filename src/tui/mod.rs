//! The explorer: a full-screen terminal UI over a [`crate::workspace::Workspace`].
//!
//! One [`app::App`] holds all state and changes only in [`app::App::handle`]; the views in
//! [`views`] draw it without changing it. The event loop below gets terminal input, signals,
//! ticks and the loader's messages from one channel, applies everything pending, then draws
//! once.

pub mod action;
pub mod app;
pub mod clipboard;
mod code_actions;
pub mod code_view;
pub mod compare_with;
pub mod config;
pub mod details_text;
pub mod dialog;
pub mod editing;
pub mod effect;
pub mod explorer;
pub mod go_to;
pub mod help_text;
pub mod highlight;
pub mod keymap;
pub mod latest;
pub mod layer;
pub mod layout;
pub mod list;
pub mod loader;
pub mod minimap;
pub mod msg;
mod option_presets;
pub mod options_editor;
pub mod profile_view;
pub mod profiles;
pub mod prompt;
pub mod query;
pub mod reply;
pub mod runs;
mod scope_edits;
mod scope_questions;
pub mod session;
pub mod sink;
pub mod statics_view;
pub mod suggestions_view;
pub mod terminal;
pub mod theme;
pub mod tree;
pub mod view;
pub mod views;
pub mod workers;

// The views that take the body over the panes. A new view is its module, a line here and a
// line in `VIEWS`, its actions in `action` and its tests (docs/ARCHITECTURE.md, "How to add a
// view").
mod compare_actions;
pub mod dataflow_view;
mod find;
pub mod findings_view;
pub mod flags_view;
pub mod inside_view;
pub mod ledger_view;
pub mod palette_view;
pub mod ranks_view;
mod runs_view;
pub mod timeline_view;

/// Every view that can take the body over the graph's panes, in the order the help lists them.
pub static VIEWS: &[view::ViewSpec<App>] = &[
    runs_view::VIEW,
    ledger_view::VIEW,
    profile_view::VIEW,
    ranks_view::VIEW,
    timeline_view::VIEW,
    dataflow_view::VIEW,
    inside_view::VIEW,
    suggestions_view::VIEW,
    statics_view::VIEW,
    flags_view::VIEW,
    findings_view::VIEW,
    palette_view::VIEW,
];

use crate::fusion::rules::RuleConfig;
use crate::load::LoadOptions;
use anyhow::{Context as _, Result};
use app::{App, Msg};
use effect::Effect;
use ratatui::crossterm::event::{self, Event, MouseEventKind};
use ratatui::crossterm::terminal::{BeginSynchronizedUpdate, EndSynchronizedUpdate};
use ratatui::layout::Rect;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// How often the loading spinner moves.
const TICK: Duration = Duration::from_millis(100);

/// What the explorer opens and how.
#[derive(Debug)]
pub struct Options {
    /// The dump to open.
    pub input: loader::Input,
    /// The plan file to apply and to save to.
    pub plan: loader::PlanPath,
    /// Limits for loading.
    pub load: LoadOptions,
    /// The rules to judge ops with.
    pub rules: RuleConfig,
    /// Keys and theme.
    pub config: config::Config,
    /// Capture the mouse (clicks and wheel); off leaves the terminal's own text selection.
    pub mouse: bool,
    /// Profiles to read and compare once the graph is loaded.
    pub profiles: Option<profiles::ProfilesRequest>,
    /// A static kernel compile's outputs to read once the graph is loaded.
    pub statics: Option<std::path::PathBuf>,
    /// A compile's kernel_meta for the code view.
    pub kernel_meta: Vec<std::path::PathBuf>,
    /// The user's operator sources, for what adapting a break's op type takes.
    pub op_sources: Vec<std::path::PathBuf>,
}

/// The app with every view of [`VIEWS`]: what the event loop, the tests and the benches
/// drive.
pub fn new_app(
    config: config::Config,
    size: ratatui::layout::Rect,
    file: &str,
    plan_path: std::path::PathBuf,
) -> App {
    App::new(config, size, file, plan_path).with_views(VIEWS)
}

/// How the explorer ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// The user quit after the dump could not be loaded: its message (skope then exits with
    /// status 2, as the command line does on an error).
    LoadFailed(String),
    /// A signal stopped it (skope then exits with 128 + it, as a shell's programs do).
    Stopped(i32),
}

/// The rules' target and the operator sources, with the config's standing where the command
/// line gives none.
fn config_fills(
    rules: RuleConfig,
    op_sources: Vec<std::path::PathBuf>,
    config: &config::Config,
) -> (RuleConfig, Vec<std::path::PathBuf>) {
    let rules = match config.target {
        Some(t) if rules.target().is_default() => {
            rules.with_target(crate::target::TargetChoice::chosen(t, "the config"))
        }
        _ => rules,
    };
    let op_sources = match op_sources {
        given if given.is_empty() => config.op_sources.clone(),
        given => given,
    };
    (rules, op_sources)
}

/// Runs the explorer until the user quits; how it ended.
pub fn run(options: Options) -> Result<Ended> {
    let (tx, rx) = mpsc::channel();
    spawn_input(tx.clone());
    spawn_signals(tx.clone())?;
    // A file size limit makes a write fail (said, the edit kept) rather than end skope.
    // SAFETY: ignoring a signal installs no handler.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
    let name = options.input.name();
    let plan_path = options.plan.path.clone();
    let highlighter = msg::highlighter(&tx);
    let events = tx.clone();
    let (rules, op_sources) = config_fills(options.rules, options.op_sources, &options.config);
    let request = loader::LoadRequest {
        input: options.input,
        plan: options.plan,
        options: options.load,
        rules,
        kernel_meta: options.kernel_meta,
        op_sources,
        again: false,
    };
    loader::start(
        crate::worker::Threads::Own,
        request.clone(),
        msg::events(&tx),
    );
    let mut terminal = terminal::enter(options.mouse).context("cannot take over the terminal")?;
    let mut slot: Option<App> = None;
    let mut stopped_by = None;
    let result = (|| -> Result<()> {
        let size = terminal.size()?;
        let app = slot.insert(new_app(
            options.config,
            Rect::new(0, 0, size.width, size.height),
            &name,
            plan_path,
        ));
        app.workers.highlighter = Some(highlighter);
        app.workers.events = Some(events);
        app.reload = Some(request);
        if let Some(request) = options.profiles {
            app.on_load
                .push(App::message(move |app| app.load_profiles(request)));
        }
        if let Some(dir) = options.statics {
            app.on_load
                .push(App::message(move |app| statics_view::load(app, dir)));
        }
        let start = Instant::now();
        let mut last_tick = start;
        // Set by skope's own suspend: the continue that follows it is its own.
        let mut suspended = false;
        loop {
            // The terminal may have changed size since the last resize event was handled.
            let size = terminal.size()?;
            if (size.width, size.height) != (app.size.width, app.size.height) {
                app.handle(Msg::Resize(size.width, size.height));
            }
            ratatui::crossterm::execute!(std::io::stdout(), BeginSynchronizedUpdate)?;
            terminal.draw(|frame| views::render(app, frame))?;
            ratatui::crossterm::execute!(std::io::stdout(), EndSynchronizedUpdate)?;
            let first = if app.animating() {
                match rx.recv_timeout(TICK) {
                    Ok(msg) => msg,
                    Err(RecvTimeoutError::Timeout) => Msg::Tick(start.elapsed()),
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            } else {
                match rx.recv() {
                    Ok(msg) => msg,
                    Err(_) => break,
                }
            };
            app.now = start.elapsed();
            app.handle(first);
            while let Ok(msg) = rx.try_recv() {
                app.handle(msg);
            }
            // Progress messages must not starve the spinner and the clock.
            if app.animating() && last_tick.elapsed() >= TICK {
                last_tick = Instant::now();
                app.handle(Msg::Tick(start.elapsed()));
            }
            let mut quit = false;
            for effect in app.effects.take() {
                match effect {
                    Effect::Copy(sequence) => {
                        use std::io::Write;
                        let mut out = std::io::stdout();
                        out.write_all(sequence.as_bytes())?;
                        out.flush()?;
                    }
                    Effect::Suspend => {
                        terminal::restore();
                        // SIGSTOP: skope's own SIGTSTP handler would only tell it again.
                        signal_hook::low_level::raise(signal_hook::consts::SIGSTOP)
                            .context("cannot suspend")?;
                        // Resumed (`fg`): take the terminal again and draw everything anew. (A
                        // fresh `Terminal` rather than `Terminal::clear`, which asks the terminal
                        // for the cursor position while the input thread owns its replies.)
                        terminal = terminal::take(options.mouse)
                            .context("cannot take the terminal back")?;
                        // The terminal may have been resized meanwhile.
                        let size = terminal.size()?;
                        app.handle(Msg::Resize(size.width, size.height));
                        suspended = true;
                    }
                    // After its own suspend, above, skope has just taken the terminal again.
                    Effect::Retake if suspended => suspended = false,
                    // Continued after a stop skope did not ask for (`kill -STOP`, then `fg`):
                    // the shell had the terminal meanwhile and may have changed its modes.
                    Effect::Retake => {
                        terminal::restore();
                        terminal = terminal::take(options.mouse)
                            .context("cannot take the terminal back")?;
                        let size = terminal.size()?;
                        app.handle(Msg::Resize(size.width, size.height));
                    }
                    Effect::Quit => {
                        quit = true;
                        break;
                    }
                    Effect::Stopped(signal) => {
                        stopped_by = Some(signal);
                        quit = true;
                        break;
                    }
                }
            }
            if quit {
                break;
            }
        }
        Ok(())
    })();
    terminal::restore();
    // No job outlives skope.
    if let Some(app) = &slot {
        app.runs.stop_all(runs::GRACE);
    }
    let failed = slot.as_ref().and_then(|app| match &app.screen {
        app::Screen::Failed { file, message } => Some(format!("{file}: {message}")),
        _ => None,
    });
    result.map(|()| match (stopped_by, failed) {
        (Some(signal), _) => Ended::Stopped(signal),
        (None, Some(message)) => Ended::LoadFailed(message),
        (None, None) => Ended::Quit,
    })
}

/// Reads terminal events on their own thread. Mouse motion is dropped (nothing uses it, and
/// it would cost a frame per pixel). If reading fails or the thread panics, the UI is told to
/// stop, so it never waits for input that cannot come.
fn spawn_input(tx: Sender<Msg>) {
    std::thread::spawn(move || {
        let stop = tx.clone();
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            loop {
                let msg = match event::read() {
                    Ok(Event::Key(key)) => Msg::Key(key),
                    Ok(Event::Mouse(mouse)) if mouse.kind != MouseEventKind::Moved => {
                        Msg::Mouse(mouse)
                    }
                    Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
                    Ok(Event::Paste(text)) => Msg::Paste(text),
                    Ok(_) => continue,
                    Err(_) => return,
                };
                if tx.send(msg).is_err() {
                    return;
                }
            }
        }));
        let _ = stop.send(Msg::Stop);
    });
}

/// Turns SIGTERM, SIGHUP, SIGINT and SIGQUIT into a clean stop (the terminal is restored,
/// runs get their ending, the journal stays for the next start), SIGTSTP into a suspend and
/// SIGCONT into taking the terminal again; an abort (a failed allocation) restores the
/// terminal before the process ends.
fn spawn_signals(tx: Sender<Msg>) -> Result<()> {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP};
    terminal::restore_on_abort().context("cannot install the abort handler")?;
    let mut signals =
        signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])
            .context("cannot install signal handlers")?;
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if tx.send(Msg::Signal(signal)).is_err() {
                return;
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{Target, TargetChoice};
    use std::path::PathBuf;

    #[test]
    fn the_config_fills_what_the_command_line_leaves_out() {
        let config = config::parse("target = \"dav-3510\"\nop_sources = [\"/ops\"]\n").unwrap();
        let (rules, sources) = config_fills(RuleConfig::default(), Vec::new(), &config);
        assert_eq!(
            rules.target(),
            &TargetChoice::chosen(Target::Dav3510, "the config")
        );
        assert_eq!(sources, [PathBuf::from("/ops")]);
        // --target and --op-sources win.
        let given =
            RuleConfig::default().with_target(TargetChoice::chosen(Target::Dav2201, "--target"));
        let (rules, sources) = config_fills(given, vec![PathBuf::from("mine")], &config);
        assert_eq!(rules.target().target, Target::Dav2201);
        assert_eq!(sources, [PathBuf::from("mine")]);
    }
}
