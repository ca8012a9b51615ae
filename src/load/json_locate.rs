//! Finding where in a JSON text a value is: the reader of atc JSON works on a parsed document
//! and names a problem by its JSON path (`graph[0].op[3].attr`); this walks the text along
//! that path to the value's byte offset, so the error can give a line and column too.

/// One step of a JSON path.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The steps of `path` (`$`, `graph[0].op[3].name`); `None` for a path it cannot read.
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let path = path.strip_prefix('$').unwrap_or(path);
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = part.split_at(part.find('[').unwrap_or(part.len()));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']')?;
            out.push(Step::Index(inner[..end].parse().ok()?));
            rest = &inner[end + 1..];
        }
        if !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The byte offset of the value at `path` in the JSON text `src`; `None` when the path
/// cannot be followed (a key holding `.` or `[`, a value that is not there).
pub fn locate(src: &[u8], path: &str) -> Option<usize> {
    let mut at = Cursor { src, i: 0 };
    at.skip_space();
    if src.starts_with(b"\xef\xbb\xbf") {
        at.i += 3;
        at.skip_space();
    }
    for step in steps(path)? {
        match step {
            Step::Key(key) => at.enter_key(key)?,
            Step::Index(n) => at.enter_index(n)?,
        }
    }
    // A place only where a value begins (a text cut short may end just before it).
    at.peek().map(|_| at.i)
}

struct Cursor<'a> {
    src: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.i).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.skip_space();
        (self.peek()? == byte).then(|| self.i += 1)
    }

    /// Past a string starting here; returns its text (decoded).
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        (self.peek()? == b'"').then_some(())?;
        self.i += 1;
        loop {
            match self.peek()? {
                b'\\' => self.i += 2,
                b'"' => break,
                _ => self.i += 1,
            }
        }
        self.i += 1;
        serde_json::from_slice(self.src.get(start..self.i)?).ok()
    }

    /// Past the value starting here.
    fn skip_value(&mut self) -> Option<()> {
        self.skip_space();
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']') && !b.is_ascii_whitespace())
                {
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// Into the value of `key` of the object here.
    fn enter_key(&mut self, key: &str) -> Option<()> {
        self.expect(b'{')?;
        loop {
            self.skip_space();
            if self.peek()? == b'}' {
                return None;
            }
            let name = self.string()?;
            self.expect(b':')?;
            self.skip_space();
            if name == key {
                return Some(());
            }
            self.skip_value()?;
            self.skip_space();
            if self.peek()? == b',' {
                self.i += 1;
            }
        }
    }

    /// Into element `n` of the array here.
    fn enter_index(&mut self, n: usize) -> Option<()> {
        self.expect(b'[')?;
        for _ in 0..n {
            self.skip_value()?;
            self.expect(b',')?;
        }
        self.skip_space();
        (self.peek()? != b']').then_some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "{\"graph\": [\n  {\"name\": \"g\", \"op\": [\n    {\"name\": \"a\\\"}\", \"type\": \"Add\"},\n    {\"name\": \"b\", \"attr\": [{\"key\": \"x\", \"value\": {\"i\": [1, {\"s\": \"]\"}]}}]}\n  ]}\n]}";

    fn at(path: &str) -> Option<&'static str> {
        locate(DOC.as_bytes(), path).map(|i| &DOC[i..i + 8.min(DOC.len() - i)])
    }

    #[test]
    fn paths_lead_to_their_values_past_strings_that_look_like_syntax() {
        assert_eq!(at("$"), Some("{\"graph\""));
        assert_eq!(at("graph[0].op[1]"), Some("{\"name\":"));
        assert_eq!(at("graph[0].op[1].attr[0].value"), Some("{\"i\": [1"));
        assert_eq!(at("graph[0].op[0].type"), Some("\"Add\"},\n"));
        assert_eq!(at("graph[0].op[2]"), None);
        assert_eq!(at("graph[0].nope"), None);
        assert_eq!(at("graph[x]"), None);
    }

    #[test]
    fn truncated_text_gives_no_place_instead_of_panicking() {
        let path = "graph[0].op[1].attr[0].value";
        let place = locate(DOC.as_bytes(), path).unwrap();
        for end in 0..DOC.len() {
            let got = locate(&DOC.as_bytes()[..end], path);
            // Cut before the value begins: no place; after: the place, never another.
            let want = (end > place).then_some(place);
            assert_eq!(got, want, "text cut at byte {end}");
        }
    }
}
