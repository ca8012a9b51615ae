//! Runs a program in a real pseudo-terminal and reads its screen through a terminal emulator.
//!
//! Failures panic with a message that says what went wrong: this is test code.

// Shared by several test files, each of which uses only part of it.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::num::NonZeroU16;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// How long `wait_for_text` waits.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the screen is looked at while waiting.
const POLL: Duration = Duration::from_millis(20);

type Writer = Arc<Mutex<Box<dyn Write + Send>>>;
type Parser = Arc<Mutex<vt100::Parser<Replies>>>;

/// A program running in a pseudo-terminal, with a terminal emulator reading its output.
pub struct Session {
    parser: Parser,
    writer: Writer,
    master: Box<dyn MasterPty + Send>,
    child: Box<dyn Child + Send + Sync>,
    /// The thread feeding the program's output to the parser; ends at end of output.
    reader: Option<JoinHandle<()>>,
    exit_code: Option<u32>,
}

/// A fresh data directory for one session.
fn scratch_data_home() -> PathBuf {
    crate::common::scratch("pty-data")
}

impl Session {
    /// Starts `program` with `args` in a `cols`×`rows` pseudo-terminal, with extra environment
    /// variables `env` (TERM=xterm-256color is set by default).
    pub fn spawn(
        program: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
        rows: u16,
    ) -> Session {
        let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
        Session::spawn_in(crate_dir, program, args, env, cols, rows)
    }

    /// As [`Session::spawn`], in the working directory `cwd`.
    pub fn spawn_in(
        cwd: &Path,
        program: &Path,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
        rows: u16,
    ) -> Session {
        let (rows_nz, cols_nz) = non_zero(cols, rows);
        let pair = native_pty_system()
            .openpty(pty_size(cols, rows))
            .unwrap_or_else(|e| panic!("cannot open a pseudo-terminal: {e:#}"));
        let mut command = CommandBuilder::new(program);
        command.args(args);
        command.cwd(cwd);
        command.env("TERM", "xterm-256color");
        // Away from any CANN install of this machine, unless a test sets one.
        command.env_remove("ASCEND_OPP_PATH");
        command.env_remove("ASCEND_HOME_PATH");
        // The bundled example is written out under XDG_DATA_HOME: a directory of each
        // session's own, unless a test sets one.
        command.env("XDG_DATA_HOME", scratch_data_home());
        for (key, value) in env {
            command.env(key, value);
        }
        let child = pair
            .slave
            .spawn_command(command)
            .unwrap_or_else(|e| panic!("cannot start {}: {e:#}", program.display()));
        // Only the child may hold the terminal side open, so that reading ends when it exits.
        drop(pair.slave);
        let output = pair
            .master
            .try_clone_reader()
            .unwrap_or_else(|e| panic!("cannot read the pseudo-terminal: {e:#}"));
        let input = pair
            .master
            .take_writer()
            .unwrap_or_else(|e| panic!("cannot write to the pseudo-terminal: {e:#}"));
        let writer: Writer = Arc::new(Mutex::new(input));
        let emulator = vt100::Parser::new_with_callbacks(rows_nz, cols_nz, 0, Replies::default());
        let parser = Arc::new(Mutex::new(emulator));
        let reader = {
            let (parser, writer) = (Arc::clone(&parser), Arc::clone(&writer));
            thread::spawn(move || pump(output, &parser, &writer))
        };
        Session {
            parser,
            writer,
            master: pair.master,
            child,
            reader: Some(reader),
            exit_code: None,
        }
    }

    /// The program's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    /// Sends raw bytes as if typed (e.g. b"j", b"\x1b[B" for Down, b"\r" for Enter, b"\x1b" for
    /// Esc).
    pub fn send(&mut self, bytes: &[u8]) {
        let mut writer = lock(&self.writer);
        writer
            .write_all(bytes)
            .and_then(|()| writer.flush())
            .unwrap_or_else(|e| panic!("cannot send {bytes:?} to the program: {e}"));
    }

    /// The current screen as text, rows joined by '\n' (trailing spaces trimmed per row).
    pub fn screen(&self) -> String {
        let parser = lock(&self.parser);
        let screen = parser.screen();
        let rows: Vec<String> = screen
            .rows(0, screen.size().1.get())
            .map(|row| row.trim_end().to_owned())
            .collect();
        rows.join("\n")
    }

    /// Waits until `pred(screen)` holds, up to `timeout`; returns the screen. On timeout panics
    /// with a message that includes what was awaited and the last screen.
    pub fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        pred: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            // Looked at before the screen: once output has ended, the screen is final.
            let ended = self.output_ended();
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if ended {
                let code = self.wait_exit(Duration::from_secs(1));
                panic!(
                    "the program's output ended (exit code {code:?}) while waiting for {what}; \
                     the screen was:\n{}",
                    framed(&screen)
                );
            }
            if Instant::now() >= deadline {
                panic!(
                    "timed out after {timeout:?} waiting for {what}; the screen was:\n{}",
                    framed(&screen)
                );
            }
            thread::sleep(POLL);
        }
    }

    /// Shorthand: waits until the screen contains `text` (default timeout 10 s).
    pub fn wait_for_text(&mut self, text: &str) -> String {
        self.wait_for(&format!("{text:?} on screen"), DEFAULT_TIMEOUT, |screen| {
            screen.contains(text)
        })
    }

    /// Resizes the pseudo-terminal (the program receives SIGWINCH).
    pub fn resize(&mut self, cols: u16, rows: u16) {
        let (rows_nz, cols_nz) = non_zero(cols, rows);
        // The emulator first, so that whatever the program redraws lands on the new grid.
        lock(&self.parser).set_size(rows_nz, cols_nz);
        self.master
            .resize(pty_size(cols, rows))
            .unwrap_or_else(|e| {
                panic!("cannot resize the pseudo-terminal to {cols}x{rows}: {e:#}")
            });
    }

    /// Waits up to `timeout` for the program to exit; returns its exit code, or None if it is
    /// still running.
    ///
    /// Once the program has exited, this also waits (briefly) for its last output to reach
    /// the emulator, so `screen` and `terminal_restored` show the final state.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<u32> {
        let deadline = Instant::now() + timeout;
        loop {
            if self.exit_code.is_none() {
                let status = self
                    .child
                    .try_wait()
                    .unwrap_or_else(|e| panic!("cannot check whether the program exited: {e}"));
                self.exit_code = status.map(|s| s.exit_code());
            }
            if self.exit_code.is_some() {
                self.join_reader(Duration::from_secs(2));
                return self.exit_code;
            }
            if Instant::now() >= deadline {
                return None;
            }
            thread::sleep(POLL);
        }
    }

    /// Number of cells on screen drawn with a foreground or background colour.
    pub fn coloured_cells(&self) -> usize {
        self.count_cells(|cell| {
            cell.fgcolor() != vt100::Color::Default || cell.bgcolor() != vt100::Color::Default
        })
    }

    /// Number of cells on screen drawn in italics.
    pub fn italic_cells(&self) -> usize {
        self.count_cells(vt100::Cell::italic)
    }

    fn count_cells(&self, test: impl Fn(&vt100::Cell) -> bool) -> usize {
        let parser = lock(&self.parser);
        let screen = parser.screen();
        let (rows, cols) = screen.size();
        let (rows, cols) = (rows.get(), cols.get());
        (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .filter_map(|(r, c)| screen.cell(r, c))
            .filter(|cell| test(cell))
            .count()
    }

    /// True when the program has put the terminal back: not in the alternate screen, cursor
    /// visible (from the emulator's state).
    pub fn terminal_restored(&self) -> bool {
        let parser = lock(&self.parser);
        let screen = parser.screen();
        !screen.alternate_screen() && !screen.hide_cursor()
    }

    /// True when the program's output has ended (every holder of the terminal side closed it).
    fn output_ended(&self) -> bool {
        self.reader.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Joins the reader thread if it ends within `limit`; otherwise leaves it running (a
    /// grandchild of the program may still hold the terminal open).
    fn join_reader(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.output_ended() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        if self.output_ended()
            && let Some(reader) = self.reader.take()
        {
            // A panic in the reader would only mean a poisoned lock, which `lock` tolerates.
            let _ = reader.join();
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // No panics here: this may run while a failed test unwinds.
        if self.exit_code.is_none() && matches!(self.child.try_wait(), Ok(None)) {
            // portable-pty sends SIGHUP, then SIGKILL after a short grace period.
            let _ = self.child.kill();
        }
        // Reap the child so that no zombie is left behind.
        let _ = self.child.wait();
        self.join_reader(Duration::from_secs(1));
    }
}

/// Collects what a real terminal would answer to the program's queries.
///
/// Only the cursor position report is answered (crossterm may ask for it at startup and
/// would otherwise wait for a reply).
#[derive(Default)]
struct Replies {
    pending: Vec<u8>,
}

impl vt100::Callbacks for Replies {
    fn unhandled_csi(
        &mut self,
        screen: &mut vt100::Screen,
        i1: Option<u8>,
        _i2: Option<u8>,
        params: &[&[u16]],
        c: char,
    ) {
        // DSR 6 (`ESC [ 6 n`) asks for the cursor position, answered 1-based as `ESC [ row ; col R`.
        if c == 'n' && i1.is_none() && params == [&[6][..]] {
            let (row, col) = screen.cursor_position();
            let reply = format!("\x1b[{};{}R", row + 1, col + 1);
            self.pending.extend_from_slice(reply.as_bytes());
        }
    }
}

/// Feeds the program's output to the emulator until end of output, sending any replies back.
fn pump(mut output: Box<dyn Read + Send>, parser: &Parser, writer: &Writer) {
    let mut buf = [0u8; 8192];
    loop {
        let n = match output.read(&mut buf) {
            // portable-pty reports EIO (the terminal side was closed) as end of file.
            Ok(0) => return,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return,
        };
        let replies = {
            let mut parser = lock(parser);
            parser.process(&buf[..n]);
            std::mem::take(&mut parser.callbacks_mut().pending)
        };
        if !replies.is_empty() {
            let mut writer = lock(writer);
            // The program may already be gone; then nobody is waiting for the reply.
            let _ = writer.write_all(&replies).and_then(|()| writer.flush());
        }
    }
}

/// Locks a mutex, tolerating poisoning (a panicking test must still be able to clean up).
fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn pty_size(cols: u16, rows: u16) -> PtySize {
    PtySize {
        rows,
        cols,
        pixel_width: 0,
        pixel_height: 0,
    }
}

/// `(rows, cols)` as the emulator wants them.
fn non_zero(cols: u16, rows: u16) -> (NonZeroU16, NonZeroU16) {
    match (NonZeroU16::new(rows), NonZeroU16::new(cols)) {
        (Some(rows), Some(cols)) => (rows, cols),
        _ => panic!("a terminal of {cols}x{rows} cells has no room"),
    }
}

/// A screen dump framed so that leading and trailing blanks are visible in a panic message.
fn framed(screen: &str) -> String {
    let mut out = String::from("+----\n");
    for row in screen.lines() {
        out.push('|');
        out.push_str(row);
        out.push('\n');
    }
    out.push_str("+----");
    out
}
