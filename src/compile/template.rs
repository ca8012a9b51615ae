//! Argument templates of compile recipes: `{graph}`, `{plan}`, `{codegen_dir}` and `{out}`
//! are replaced inside each argument, which stays one argument — a value from a dump or a scope
//! name can never become shell syntax or a second argument. `{{` and `}}` stand for braces.

use std::fmt;

/// The placeholders a template may use.
pub const PLACEHOLDERS: [&str; 4] = ["graph", "plan", "codegen_dir", "out"];

/// The values of the placeholders for one run.
#[derive(Debug, Clone, Default)]
pub struct Values {
    /// The dump file.
    pub graph: String,
    /// The current plan, saved to a file.
    pub plan: String,
    /// The directory holding the entry sources of every segment.
    pub codegen_dir: String,
    /// A fresh output directory for the run.
    pub out: String,
}

impl Values {
    fn get(&self, name: &str) -> Option<&str> {
        match name {
            "graph" => Some(&self.graph),
            "plan" => Some(&self.plan),
            "codegen_dir" => Some(&self.codegen_dir),
            "out" => Some(&self.out),
            _ => None,
        }
    }
}

/// A template that cannot be expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplateError {
    /// `{name}` is not a placeholder.
    Unknown {
        /// Index of the argument.
        arg: usize,
        /// The name between the braces.
        name: String,
    },
    /// A `{` without its `}`, or a lone `}`.
    Unbalanced {
        /// Index of the argument.
        arg: usize,
    },
}

impl TemplateError {
    /// The index of the argument it is in.
    pub fn arg(&self) -> usize {
        match self {
            TemplateError::Unknown { arg, .. } | TemplateError::Unbalanced { arg } => *arg,
        }
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::Unknown { arg, name } => write!(
                f,
                "argument {} uses {{{name}}}, which is not a placeholder (use {}; {{{{ and }}}} for braces)",
                arg + 1,
                PLACEHOLDERS.map(|p| format!("{{{p}}}")).join(", ")
            ),
            TemplateError::Unbalanced { arg } => write!(
                f,
                "argument {} has an unmatched brace (write {{{{ or }}}} for a literal one)",
                arg + 1
            ),
        }
    }
}

impl std::error::Error for TemplateError {}

/// The placeholders `argv` uses (so a run prepares only those).
pub fn used(argv: &[String]) -> Result<Vec<&'static str>, TemplateError> {
    let mut names = Vec::new();
    for (arg, text) in argv.iter().enumerate() {
        walk(arg, text, &mut |piece| {
            if let Piece::Placeholder(name) = piece {
                let known = PLACEHOLDERS
                    .into_iter()
                    .find(|p| *p == name)
                    .ok_or_else(|| TemplateError::Unknown {
                        arg,
                        name: name.to_string(),
                    })?;
                if !names.contains(&known) {
                    names.push(known);
                }
            }
            Ok(())
        })?;
    }
    Ok(names)
}

/// Expands every argument of `argv` with `values`; each stays one argument.
pub fn expand(argv: &[String], values: &Values) -> Result<Vec<String>, TemplateError> {
    argv.iter()
        .enumerate()
        .map(|(arg, text)| {
            let mut out = String::with_capacity(text.len());
            walk(arg, text, &mut |piece| {
                match piece {
                    Piece::Text(t) => out.push_str(t),
                    Piece::Placeholder(name) => {
                        out.push_str(values.get(name).ok_or_else(|| TemplateError::Unknown {
                            arg,
                            name: name.to_string(),
                        })?)
                    }
                }
                Ok(())
            })?;
            Ok(out)
        })
        .collect()
}

/// `argv` as the user reads it before it is expanded: literal braces written once,
/// placeholders as `{name}`, arguments joined by spaces. A malformed template shows as written.
pub fn shown(argv: &[String]) -> String {
    argv.iter()
        .enumerate()
        .map(|(arg, text)| {
            let mut out = String::with_capacity(text.len());
            let walked = walk(arg, text, &mut |piece| {
                match piece {
                    Piece::Text(t) => out.push_str(t),
                    Piece::Placeholder(name) => {
                        out.push('{');
                        out.push_str(name);
                        out.push('}');
                    }
                }
                Ok(())
            });
            if walked.is_err() {
                out = text.clone();
            }
            out
        })
        .collect::<Vec<_>>()
        .join(" ")
}

enum Piece<'a> {
    Text(&'a str),
    Placeholder(&'a str),
}

/// Splits `text` into literal text and placeholders.
fn walk<'a>(
    arg: usize,
    text: &'a str,
    each: &mut dyn FnMut(Piece<'a>) -> Result<(), TemplateError>,
) -> Result<(), TemplateError> {
    let mut rest = text;
    while !rest.is_empty() {
        let Some(at) = rest.find(['{', '}']) else {
            return each(Piece::Text(rest));
        };
        each(Piece::Text(&rest[..at]))?;
        let tail = &rest[at..];
        if let Some(after) = tail.strip_prefix("{{") {
            each(Piece::Text("{"))?;
            rest = after;
        } else if let Some(after) = tail.strip_prefix("}}") {
            each(Piece::Text("}"))?;
            rest = after;
        } else if let Some(inner) = tail.strip_prefix('{') {
            let end = inner.find('}').ok_or(TemplateError::Unbalanced { arg })?;
            let name = &inner[..end];
            if name.contains('{') {
                return Err(TemplateError::Unbalanced { arg });
            }
            each(Piece::Placeholder(name))?;
            rest = &inner[end + 1..];
        } else {
            return Err(TemplateError::Unbalanced { arg });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_template_shows_as_the_user_reads_it() {
        assert_eq!(
            shown(&argv(&[
                "sh",
                "-c",
                "\"${{CXX:-c++}}\" {codegen_dir}/x.cpp",
                "{out}"
            ])),
            "sh -c \"${CXX:-c++}\" {codegen_dir}/x.cpp {out}"
        );
        assert_eq!(shown(&argv(&["a{", "b"])), "a{ b");
    }

    fn values() -> Values {
        Values {
            graph: "/dumps/a b; rm -rf ~.txt".into(),
            plan: "/tmp/p.json".into(),
            codegen_dir: "/tmp/cg".into(),
            out: "/tmp/out/1".into(),
        }
    }

    #[test]
    fn each_argument_stays_one_argument_whatever_the_values_hold() {
        let out = expand(
            &argv(&[
                "python3",
                "run.py",
                "--graph={graph}",
                "{out}/prof",
                "{{literal}}",
            ]),
            &values(),
        )
        .unwrap();
        assert_eq!(
            out,
            [
                "python3",
                "run.py",
                "--graph=/dumps/a b; rm -rf ~.txt",
                "/tmp/out/1/prof",
                "{literal}"
            ]
        );
    }

    #[test]
    fn unknown_and_unbalanced_placeholders_are_refused_with_their_argument() {
        let err = expand(&argv(&["x", "{grpah}"]), &values()).unwrap_err();
        assert_eq!(
            err,
            TemplateError::Unknown {
                arg: 1,
                name: "grpah".into()
            }
        );
        assert!(err.to_string().contains("argument 2 uses {grpah}"));
        assert!(err.to_string().contains("{codegen_dir}"));
        for bad in ["{graph", "graph}", "{{graph}", "{a{b}"] {
            assert!(
                matches!(
                    expand(&argv(&[bad]), &values()),
                    Err(TemplateError::Unbalanced { arg: 0 })
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn used_lists_each_placeholder_once() {
        let names = used(&argv(&["{codegen_dir}", "{out}/{out}", "{graph}"])).unwrap();
        assert_eq!(names, ["codegen_dir", "out", "graph"]);
        assert!(used(&argv(&["{nope}"])).is_err());
    }
}
