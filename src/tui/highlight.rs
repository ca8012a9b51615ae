//! C++ highlighting of generated code with syntect, on a worker thread. The explorer asks for
//! the lines around what it shows (syntect's grammar runs at a few thousand lines a second, so a
//! 30,000-line file is never highlighted whole); the worker skips any request a newer one has
//! replaced, and the result comes back as a message carrying the request's generation and
//! first line.

use super::sink::Sink;
use super::theme::Role;
use std::ops::Range;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxSet};
use syntect::util::LinesWithEndings;

/// One line's spans: byte ranges of the line and the role that colours them.
pub type LineSpans = Vec<(Range<usize>, Role)>;

/// Highlighted lines of a source, for the request `generation`.
#[derive(Debug, Clone, PartialEq)]
pub struct Highlighted {
    /// The request it answers.
    pub generation: u64,
    /// The line the first entry of `lines` is for.
    pub first: usize,
    /// Spans per line.
    pub lines: Vec<LineSpans>,
}

/// A request: its generation, the source and the lines wanted.
type HighlightRequest = (u64, Arc<str>, Range<usize>);

/// Sends sources to the highlighting worker.
#[derive(Debug, Clone)]
pub struct Highlighter {
    requests: Sender<HighlightRequest>,
}

impl Highlighter {
    /// Starts the worker; results go to `results`, and a panic's message to `failed`.
    pub fn spawn(results: Sink<Highlighted>, failed: Sink<String>) -> Highlighter {
        // Without the worker thread the code simply stays plain: requests go nowhere.
        let mut rules: Option<Rules> = None;
        let serve = move |request: HighlightRequest| {
            let (generation, source, range) = request;
            let rules = rules.get_or_insert_with(Rules::new);
            let first = range.start;
            let lines = highlight_with(rules, &source, range);
            results(Highlighted {
                generation,
                first,
                lines,
            })
        };
        let report = move |message| {
            failed(message);
        };
        let requests = super::latest::spawn("skope-highlight", serve, report);
        Highlighter { requests }
    }

    /// Asks for `lines` of `source` to be highlighted; an older request still waiting is
    /// dropped.
    pub fn request(&self, generation: u64, source: Arc<str>, lines: Range<usize>) {
        // A stopped worker only means the code stays plain.
        let _ = self.requests.send((generation, source, lines));
    }
}

/// The C++ grammar and the scopes each role stands for.
struct Rules {
    syntaxes: SyntaxSet,
    roles: Vec<(Scope, Role)>,
}

impl Rules {
    fn new() -> Rules {
        let roles = [
            ("comment", Role::CodeComment),
            ("string", Role::CodeString),
            ("constant.numeric", Role::CodeNumber),
            ("meta.preprocessor", Role::CodePreprocessor),
            ("keyword.control.import", Role::CodePreprocessor),
            ("entity.name.function", Role::CodeFunction),
            ("keyword", Role::CodeKeyword),
            ("storage", Role::CodeKeyword),
            ("support.type", Role::CodeKeyword),
            ("constant.language", Role::CodeKeyword),
        ]
        .into_iter()
        .filter_map(|(name, role)| Scope::new(name).ok().map(|s| (s, role)))
        .collect();
        Rules {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            roles,
        }
    }

    /// The role of the innermost scope on `stack` that has one.
    fn role(&self, stack: &ScopeStack) -> Role {
        for scope in stack.as_slice().iter().rev() {
            if let Some((_, role)) = self.roles.iter().find(|(s, _)| s.is_prefix_of(*scope)) {
                return *role;
            }
        }
        Role::Text
    }
}

/// Highlights C++ `source` whole on the calling thread (for small files and tests).
pub fn highlight(source: &str) -> Vec<LineSpans> {
    highlight_with(&Rules::new(), source, 0..usize::MAX)
}

/// Highlights `lines` of `source` on the calling thread, as the worker does for a request.
pub fn highlight_lines(source: &str, lines: Range<usize>) -> Vec<LineSpans> {
    highlight_with(&Rules::new(), source, lines)
}

/// Highlights `lines` of `source`. From line 0 the grammar runs from the start; from elsewhere
/// it starts as if inside a function body (the generated code keeps comments and strings on
/// one line, so that is where a mid-file line is).
fn highlight_with(rules: &Rules, source: &str, lines: Range<usize>) -> Vec<LineSpans> {
    let syntax = rules
        .syntaxes
        .find_syntax_by_extension("cpp")
        .unwrap_or_else(|| rules.syntaxes.find_syntax_plain_text());
    let mut state = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    if lines.start > 0 {
        for op in state
            .parse_line("void window() {\n", &rules.syntaxes)
            .unwrap_or_default()
        {
            // A failure only means plainer colours.
            let _ = stack.apply(&op.1);
        }
    }
    let mut out = Vec::new();
    let wanted = LinesWithEndings::from(source)
        .skip(lines.start)
        .take(lines.end.saturating_sub(lines.start));
    for line in wanted {
        let text_len = line.trim_end_matches(['\n', '\r']).len();
        let mut spans: LineSpans = Vec::new();
        let mut push = |range: Range<usize>, role: Role| {
            let range = range.start.min(text_len)..range.end.min(text_len);
            if range.is_empty() {
                return;
            }
            match spans.last_mut() {
                Some((last, r)) if *r == role && last.end == range.start => last.end = range.end,
                _ => spans.push((range, role)),
            }
        };
        let Ok(ops) = state.parse_line(line, &rules.syntaxes) else {
            // A grammar failure leaves the rest plain rather than stopping.
            push(0..text_len, Role::Text);
            out.push(spans);
            continue;
        };
        let mut at = 0;
        for (offset, op) in ops {
            if offset > at {
                push(at..offset, rules.role(&stack));
                at = offset;
            }
            if stack.apply(&op).is_err() {
                stack = ScopeStack::new();
            }
        }
        push(at..text_len, rules.role(&stack));
        out.push(spans);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn role_of(source: &str, line: usize, text: &str) -> Role {
        let spans = highlight(source);
        let l = source.lines().nth(line).unwrap();
        let at = l.find(text).unwrap();
        spans[line]
            .iter()
            .find(|(r, _)| r.contains(&at))
            .map(|(_, role)| *role)
            .unwrap()
    }

    #[test]
    fn comments_keywords_numbers_and_preprocessor_get_their_roles() {
        let source =
            "#include \"kernel_operator.h\"\n// begin\nuint64_t x = 42;\nif (x) { f(\"s\"); }\n";
        assert_eq!(role_of(source, 0, "include"), Role::CodePreprocessor);
        assert_eq!(role_of(source, 1, "begin"), Role::CodeComment);
        assert_eq!(role_of(source, 2, "uint64_t"), Role::CodeKeyword);
        assert_eq!(role_of(source, 2, "42"), Role::CodeNumber);
        assert_eq!(role_of(source, 3, "if"), Role::CodeKeyword);
        assert_eq!(role_of(source, 3, "\"s\""), Role::CodeString);
        assert_eq!(highlight(source).len(), 4);
    }

    #[test]
    fn a_window_in_the_middle_reads_like_the_whole() {
        let source = "void f() {\n    // note\n    if (x < 8) {\n        g(1);\n    }\n}\n";
        let whole = highlight(source);
        let window = highlight_with(&Rules::new(), source, 1..4);
        assert_eq!(window.len(), 3);
        assert_eq!(window[..], whole[1..4]);
    }

    #[test]
    fn the_worker_answers_the_newest_request() {
        let (tx, rx) = std::sync::mpsc::channel();
        let h = Highlighter::spawn(
            Arc::new(move |done| tx.send(done).is_ok()),
            Arc::new(|_| true),
        );
        h.request(1, Arc::from("int a;\n"), 0..1);
        h.request(2, Arc::from("int b;\nint c;\nint d;\n"), 1..3);
        let mut last = None;
        while let Ok(done) = rx.recv_timeout(std::time::Duration::from_secs(20)) {
            let newest = done.generation == 2;
            last = Some(done);
            if newest {
                break;
            }
        }
        let last = last.unwrap();
        assert_eq!(last.generation, 2);
        assert_eq!((last.first, last.lines.len()), (1, 2));
    }
}
