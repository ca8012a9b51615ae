//! Taking the terminal over and giving it back — also when skope panics.

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use std::io::{self, Stdout, stdout};

/// The terminal type the explorer draws on.
pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Enters raw mode and the alternate screen, with mouse capture when `mouse` is true, and
/// installs a panic hook: a panic on this (the UI) thread restores the terminal before the
/// message is printed; a panic on another thread prints nothing over the screen (each thread
/// catches its panics and tells the UI: the loader reports a load error, the input thread
/// asks the UI to stop).
pub fn enter(mouse: bool) -> io::Result<Term> {
    let previous = std::panic::take_hook();
    let ui = std::thread::current().id();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui {
            restore();
            previous(info);
        }
    }));
    take(mouse)
}

/// Takes the terminal (again, after a suspend): raw mode, alternate screen (cleared), bracketed
/// paste, and mouse capture when `mouse` is true. The returned `Terminal` is fresh, so its first
/// frame draws every cell.
pub fn take(mouse: bool) -> io::Result<Term> {
    take_modes(mouse).inspect_err(|_| restore())?;
    Terminal::new(CrosstermBackend::new(stdout()))
}

fn take_modes(mouse: bool) -> io::Result<()> {
    enable_raw_mode()?;
    execute!(
        stdout(),
        EnterAlternateScreen,
        Clear(ClearType::All),
        EnableBracketedPaste
    )?;
    if mouse {
        execute!(stdout(), EnableMouseCapture)?;
    }
    Ok(())
}

/// Gives the terminal back: mouse capture and bracketed paste off, main screen, cursor shown,
/// raw mode off. Safe to call more than once.
pub fn restore() {
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}
