//! The search and filter language: whitespace-separated terms that must all match; a term is
//! text to find in an op's name, type, scope or reason, or `name:`/`type:`/`scope:`/`reason:`
//! followed by text to find in that field only. Smart case: a term with a capital letter is
//! case-sensitive, otherwise case is ignored.

use crate::fusion::index::break_at;
use crate::fusion::plan::describe_reason;
use crate::graph::OpId;
use crate::workspace::Workspace;

/// A field of an op that a term can be limited to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The op name.
    Name,
    /// The op type.
    Type,
    /// The scope the op is marked with.
    Scope,
    /// Why the op breaks a scope or cannot be fused.
    Reason,
}

impl Field {
    const ALL: [Field; 4] = [Field::Name, Field::Type, Field::Scope, Field::Reason];

    fn prefix(self) -> &'static str {
        match self {
            Field::Name => "name:",
            Field::Type => "type:",
            Field::Scope => "scope:",
            Field::Reason => "reason:",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    field: Option<Field>,
    text: String,
    case_sensitive: bool,
}

impl Term {
    fn matches(&self, haystack: &str) -> bool {
        if self.case_sensitive {
            haystack.contains(&self.text)
        } else {
            contains_ignore_case(haystack, &self.text)
        }
    }
}

/// A parsed search or filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    text: String,
    terms: Vec<Term>,
}

impl Query {
    /// Parses `text`; `None` when it holds no term.
    pub fn parse(text: &str) -> Option<Query> {
        let terms: Vec<Term> = text
            .split_whitespace()
            .filter_map(|word| {
                let (field, rest) = Field::ALL
                    .into_iter()
                    .find_map(|f| word.strip_prefix(f.prefix()).map(|rest| (Some(f), rest)))
                    .unwrap_or((None, word));
                let case_sensitive = rest.chars().any(char::is_uppercase);
                (!rest.is_empty()).then(|| Term {
                    field,
                    case_sensitive,
                    text: if case_sensitive {
                        rest.to_string()
                    } else {
                        rest.to_lowercase()
                    },
                })
            })
            .collect();
        (!terms.is_empty()).then(|| Query {
            text: text.trim().to_string(),
            terms,
        })
    }

    /// The text as typed (trimmed).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// True when op `id` of `ws` matches every term.
    pub fn matches(&self, ws: &Workspace, id: OpId) -> bool {
        let op = ws.graph().op(id);
        self.terms.iter().all(|term| {
            let want = |f: Field| term.field.is_none_or(|t| t == f);
            (want(Field::Name) && term.matches(&op.name))
                || (want(Field::Type) && term.matches(&op.op_type))
                || (want(Field::Scope) && ws.marks().scope_of(id).is_some_and(|s| term.matches(s)))
                || (want(Field::Reason) && reasons(ws, id).iter().any(|r| term.matches(r)))
        })
    }
}

/// The reasons shown for op `id`: why it breaks each scope it breaks, else why it cannot be
/// fused. Empty for a fusible op that breaks nothing.
pub fn reasons(ws: &Workspace, id: OpId) -> Vec<String> {
    let mut out: Vec<String> = ws
        .index()
        .breaks_of(id)
        .map(|r| describe_reason(ws.marks(), break_at(ws.plan(), r).reason))
        .collect();
    if out.is_empty()
        && let Some(reason) = ws.context().verdicts().get(id).verdict.reason()
    {
        out.push(reason.text().to_string());
    }
    out
}

/// Case-insensitive substring test; `needle` is already lower case.
fn contains_ignore_case(haystack: &str, needle: &str) -> bool {
    if haystack.is_ascii() && needle.is_ascii() {
        let (h, n) = (haystack.as_bytes(), needle.as_bytes());
        return n.is_empty()
            || h.windows(n.len())
                .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b));
    }
    haystack.to_lowercase().contains(needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_parse_with_fields_and_smart_case() {
        assert_eq!(Query::parse("   "), None);
        assert_eq!(Query::parse("type:"), None);
        let q = Query::parse(" type:Cast  moe ").unwrap();
        assert_eq!(q.text(), "type:Cast  moe");
        assert_eq!(
            q.terms,
            [
                Term {
                    field: Some(Field::Type),
                    text: "Cast".into(),
                    case_sensitive: true
                },
                Term {
                    field: None,
                    text: "moe".into(),
                    case_sensitive: false
                }
            ]
        );
    }

    #[test]
    fn case_insensitive_matching_handles_ascii_and_unicode() {
        assert!(contains_ignore_case("Layer1_Expert_IDS_cast", "ids_cast"));
        assert!(!contains_ignore_case("layer1", "layer2"));
        assert!(contains_ignore_case("Größe_OP", "größe"));
        assert!(contains_ignore_case("x", ""));
    }
}
