//! Writes generated source line by line, remembering where each line came from.

use super::Origin;

/// Source text under construction with one [`Origin`] per line.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    text: String,
    origins: Vec<Origin>,
    origin: Origin,
}

impl Writer {
    /// A writer with room for about `bytes` bytes of text.
    pub(crate) fn with_capacity(bytes: usize) -> Writer {
        Writer {
            text: String::with_capacity(bytes),
            origins: Vec::with_capacity(bytes / 32),
            origin: Origin::default(),
        }
    }

    /// Lines written from now on come from `origin`.
    pub(crate) fn from(&mut self, origin: Origin) {
        self.origin = origin;
    }

    /// Runs `body` with lines attributed to `origin`, then restores the previous origin.
    pub(crate) fn within(&mut self, origin: Origin, body: impl FnOnce(&mut Writer)) {
        let before = std::mem::replace(&mut self.origin, origin);
        body(self);
        self.origin = before;
    }

    /// Writes `text` (one or more lines, without the final newline) at `indent` spaces.
    pub(crate) fn line(&mut self, indent: usize, text: &str) {
        for line in text.split('\n') {
            if !line.is_empty() {
                self.text.extend(std::iter::repeat_n(' ', indent));
            }
            self.text.push_str(line);
            self.text.push('\n');
            self.origins.push(self.origin);
        }
    }

    /// Writes `text` as it is, a line for each of its lines (a final newline ends the last
    /// line; an empty line between two newlines stays).
    pub(crate) fn put(&mut self, text: &str) {
        for line in text.lines() {
            self.text.push_str(line);
            self.text.push('\n');
            self.origins.push(self.origin);
        }
    }

    /// The text and the origin of each of its lines.
    pub(crate) fn finish(self) -> (String, Vec<Origin>) {
        (self.text, self.origins)
    }
}

/// `text` with `prefix` before each line that is not empty (the compiler's `indent_code_func`).
pub(crate) fn indent(text: &str, prefix: &str) -> String {
    // Room for a prefix on every line: growing the string line by line reallocated it.
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    let mut out = String::with_capacity(text.len() + prefix.len() * lines);
    for line in text.split_inclusive('\n') {
        if line != "\n" {
            out.push_str(prefix);
        }
        out.push_str(line);
    }
    out
}
