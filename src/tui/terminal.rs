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

/// The terminal's modes before skope took it, and the descriptor they were read from.
static BEFORE: std::sync::OnceLock<(i32, libc::termios)> = std::sync::OnceLock::new();

/// What an abort writes to the terminal: mouse reports and bracketed paste off, the main
/// screen back, the cursor shown.
const GIVE_BACK: &[u8] =
    b"\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?2004l\x1b[?1049l\x1b[?25h";

/// Notes the terminal's modes now (before raw mode) and, should the process abort — a failed
/// allocation ends it without unwinding, so no panic hook runs — gives the terminal back
/// before it ends: raw mode off, the main screen, the cursor. Call before [`enter`].
pub fn restore_on_abort() -> io::Result<()> {
    // The descriptor raw mode is set on: standard input when it is the terminal, else the
    // controlling terminal (kept open for the handler).
    // SAFETY: isatty and open have no memory preconditions; the path is a NUL-ended literal.
    let fd = unsafe {
        if libc::isatty(0) == 1 {
            0
        } else {
            libc::open(c"/dev/tty".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC)
        }
    };
    if fd >= 0 {
        // SAFETY: tcgetattr fills the termios it is given; a zeroed termios is a valid value.
        let mut modes: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(fd, &mut modes) } == 0 {
            let _ = BEFORE.set((fd, modes));
        }
    }
    // SAFETY: the handler only calls write(2), tcsetattr(3), signal(2) and raise(3), all
    // async-signal-safe, on data set before it is installed. It then lets the default action
    // end the process: the signal raised again is delivered once the handler returns.
    unsafe {
        signal_hook::low_level::register(libc::SIGABRT, || {
            libc::write(1, GIVE_BACK.as_ptr().cast(), GIVE_BACK.len());
            if let Some((fd, modes)) = BEFORE.get() {
                libc::tcsetattr(*fd, libc::TCSANOW, modes);
            }
            libc::signal(libc::SIGABRT, libc::SIG_DFL);
            libc::raise(libc::SIGABRT);
        })?;
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
