//! Edits of the scope marks — what a user changes in the model code — and how to undo them.
//!
//! An [`Edit`] names scopes by name and ops by [`OpId`] (or by op name, `Edit<String>`, in files
//! and the journal). [`apply`] changes the marks and returns the [`Undo`] that restores them.

use crate::fusion::marks::{Marks, OpMark, ScopeIdx};
use crate::fusion::plan::Plan;
use crate::graph::OpId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One change to the scope marks. `O` is how ops are named: [`OpId`] in memory, the op name in
/// plan files and the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit<O = OpId> {
    /// Put ops into an existing scope; they take its options.
    Assign {
        /// The ops.
        ops: Vec<O>,
        /// The scope.
        scope: String,
    },
    /// Make a new scope of ops.
    NewScope {
        /// The ops.
        ops: Vec<O>,
        /// The new scope's name.
        scope: String,
        /// Its options string.
        options: String,
    },
    /// Take ops out of their scope.
    Remove {
        /// The ops.
        ops: Vec<O>,
    },
    /// Keep ops out of fusion (what `super_kernel(None)` does inside a scope).
    DoNotFuse {
        /// The ops.
        ops: Vec<O>,
    },
    /// Rename a scope.
    Rename {
        /// The scope.
        scope: String,
        /// Its new name.
        to: String,
    },
    /// Move every op of a scope into another one (they take its options).
    Merge {
        /// The scope that goes away.
        scope: String,
        /// The scope that takes its ops.
        into: String,
    },
    /// Take every op out of a scope.
    Delete {
        /// The scope.
        scope: String,
    },
    /// Set the options string of every op of a scope.
    SetOptions {
        /// The scope.
        scope: String,
        /// The options string.
        options: String,
    },
}

impl<O> Edit<O> {
    /// The same edit with its ops named by `f`; the first op `f` cannot name is the error.
    pub fn map_ops<P, E>(self, mut f: impl FnMut(O) -> Result<P, E>) -> Result<Edit<P>, E> {
        let mut ops = |v: Vec<O>| v.into_iter().map(&mut f).collect::<Result<Vec<P>, E>>();
        Ok(match self {
            Edit::Assign { ops: o, scope } => Edit::Assign {
                ops: ops(o)?,
                scope,
            },
            Edit::NewScope {
                ops: o,
                scope,
                options,
            } => Edit::NewScope {
                ops: ops(o)?,
                scope,
                options,
            },
            Edit::Remove { ops: o } => Edit::Remove { ops: ops(o)? },
            Edit::DoNotFuse { ops: o } => Edit::DoNotFuse { ops: ops(o)? },
            Edit::Rename { scope, to } => Edit::Rename { scope, to },
            Edit::Merge { scope, into } => Edit::Merge { scope, into },
            Edit::Delete { scope } => Edit::Delete { scope },
            Edit::SetOptions { scope, options } => Edit::SetOptions { scope, options },
        })
    }

    /// The edit in a few words, for messages and the undo list.
    pub fn describe(&self) -> String {
        let n = |ops: &Vec<O>| match ops.len() {
            1 => "1 op".to_string(),
            k => format!("{k} ops"),
        };
        match self {
            Edit::Assign { ops, scope } => format!("{} into scope {scope}", n(ops)),
            Edit::NewScope { ops, scope, .. } => format!("new scope {scope} of {}", n(ops)),
            Edit::Remove { ops } => format!("{} out of their scope", n(ops)),
            Edit::DoNotFuse { ops } => format!("{} kept out of fusion", n(ops)),
            Edit::Rename { scope, to } => format!("scope {scope} renamed {to}"),
            Edit::Merge { scope, into } => format!("scope {scope} merged into {into}"),
            Edit::Delete { scope } => format!("scope {scope} deleted"),
            Edit::SetOptions { scope, options } => {
                format!("options of scope {scope} set to \"{options}\"")
            }
        }
    }
}

impl Edit {
    /// True when `later`, made right after this edit, makes it moot: both set the same scope's
    /// options (the newest value stands).
    pub fn replaces(&self, later: &Edit) -> bool {
        matches!((self, later), (Edit::SetOptions { scope: a, .. }, Edit::SetOptions { scope: b, .. }) if a == b)
    }
}

/// Edits made as one step, in a few words: the edit itself when alone; the new scopes among
/// them by their first and last name and the ops they took, then the others; else how many,
/// ending with the last.
pub fn describe_all(edits: &[Edit]) -> String {
    let [.., last] = edits else {
        return String::new();
    };
    if edits.len() == 1 {
        return last.describe();
    }
    let scopes: Vec<(&str, usize)> = edits
        .iter()
        .filter_map(|e| match e {
            Edit::NewScope { scope, ops, .. } => Some((scope.as_str(), ops.len())),
            _ => None,
        })
        .collect();
    match (scopes.first(), scopes.last()) {
        (Some((a, _)), Some((b, _))) if scopes.len() > 1 => {
            let ops: usize = scopes.iter().map(|(_, n)| n).sum();
            let others: Vec<String> = edits
                .iter()
                .filter(|e| !matches!(e, Edit::NewScope { .. }))
                .map(Edit::describe)
                .collect();
            let mut words = format!("{} new scopes {a} … {b} of {ops} ops", scopes.len());
            if !others.is_empty() {
                words = format!("{words}; {}", others.join("; "));
            }
            words
        }
        _ => format!("{} edits, the last: {}", edits.len(), last.describe()),
    }
}

/// Why an edit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    /// No op was given.
    NoOps,
    /// No scope of that name marks any op.
    NoScope(String),
    /// A scope of that name already marks ops.
    ScopeExists(String),
    /// The name cannot be a scope name.
    BadName(String, &'static str),
    /// Merging a scope into itself.
    SameScope(String),
    /// The edit would change nothing.
    Unchanged,
    /// The graph's planner has no model for this edit (the words say why and what to do
    /// instead).
    Refused(&'static str),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::NoOps => f.write_str("no op selected"),
            EditError::NoScope(s) => write!(f, "no scope named \"{s}\""),
            EditError::ScopeExists(s) => write!(
                f,
                "scope \"{s}\" already exists: pick another name, or merge into it"
            ),
            EditError::BadName(s, why) => write!(f, "\"{s}\" cannot name a scope: {why}"),
            EditError::SameScope(s) => write!(f, "scope \"{s}\" cannot merge into itself"),
            EditError::Unchanged => f.write_str("nothing to change"),
            EditError::Refused(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for EditError {}

/// What restores the marks as they were before an edit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Undo {
    marks: Vec<(OpId, OpMark)>,
    names: Vec<(ScopeIdx, String)>,
}

impl Undo {
    /// Adds what undoes an edit made after this one: the two undo as one.
    pub fn then(&mut self, later: Undo) {
        self.marks.extend(later.marks);
        self.names.extend(later.names);
    }

    /// Puts the marks back.
    pub fn restore(&self, marks: &mut Marks) {
        for (scope, name) in self.names.iter().rev() {
            marks.rename_scope(*scope, name);
        }
        for &(id, mark) in self.marks.iter().rev() {
            marks.set(id, mark);
        }
    }

    /// The ops the edit changed, each with the scope it was in before the edit.
    pub fn changed(&self) -> Vec<(OpId, Option<ScopeIdx>)> {
        self.marks
            .iter()
            .map(|&(id, mark)| match mark {
                OpMark::Member { scope, .. } => (id, Some(scope)),
                _ => (id, None),
            })
            .collect()
    }

    /// The ops the edit changed, each with the scope it is in now (when `marks` are the marks
    /// after the edit): what undoing it changes.
    pub fn changed_back(&self, marks: &Marks) -> Vec<(OpId, Option<ScopeIdx>)> {
        self.marks
            .iter()
            .map(|&(id, _)| match marks.get(id) {
                OpMark::Member { scope, .. } => (id, Some(scope)),
                _ => (id, None),
            })
            .collect()
    }

    /// Scopes the edit renamed.
    pub fn renamed(&self) -> Vec<ScopeIdx> {
        self.names.iter().map(|(s, _)| *s).collect()
    }
}

/// Checks a scope name: not empty, no surrounding spaces, no control characters.
pub fn check_name(name: &str) -> Result<(), EditError> {
    let bad = |why| Err(EditError::BadName(name.to_string(), why));
    if name.is_empty() {
        return bad("it is empty");
    }
    if name.trim() != name {
        return bad("it starts or ends with a space");
    }
    if name.chars().any(char::is_control) {
        return bad("it holds control characters");
    }
    Ok(())
}

/// Applies `edit` to `marks`, whose current plan is `plan`; returns what undoes it.
pub fn apply(marks: &mut Marks, plan: &Plan, edit: &Edit) -> Result<Undo, EditError> {
    let mut undo = Undo::default();
    let in_use = |marks: &Marks, name: &str| {
        marks
            .scope_named(name)
            .filter(|&s| plan.scope_of_mark(s).is_some())
    };
    let scope_of = |marks: &Marks, name: &str| {
        in_use(marks, name).ok_or_else(|| EditError::NoScope(name.to_string()))
    };
    // The options a scope's ops carry: those of its first op (the ones compiled).
    let options_of = |marks: &mut Marks, scope: ScopeIdx| {
        let text = plan
            .scope_of_mark(scope)
            .map(|i| plan.scopes[i].options.clone())
            .unwrap_or_default();
        marks.intern_options(&text)
    };
    let set = |marks: &mut Marks, undo: &mut Undo, id: OpId, mark: OpMark| {
        let old = marks.get(id);
        if old != mark {
            undo.marks.push((id, old));
            marks.set(id, mark);
        }
    };
    let each = |ops: &[OpId]| {
        if ops.is_empty() {
            Err(EditError::NoOps)
        } else {
            Ok(ops.to_vec())
        }
    };
    match edit {
        Edit::Assign { ops, scope } => {
            let scope = scope_of(marks, scope)?;
            let options = options_of(marks, scope);
            for id in each(ops)? {
                set(marks, &mut undo, id, OpMark::Member { scope, options });
            }
        }
        Edit::NewScope {
            ops,
            scope: name,
            options,
        } => {
            let ops = each(ops)?;
            check_name(name)?;
            if in_use(marks, name).is_some() {
                return Err(EditError::ScopeExists(name.clone()));
            }
            let scope = marks.intern_scope(name);
            let options = marks.intern_options(options);
            for id in ops {
                set(marks, &mut undo, id, OpMark::Member { scope, options });
            }
        }
        Edit::Remove { ops } => {
            for id in each(ops)? {
                set(marks, &mut undo, id, OpMark::Unscoped);
            }
        }
        Edit::DoNotFuse { ops } => {
            for id in each(ops)? {
                set(marks, &mut undo, id, OpMark::DoNotFuse);
            }
        }
        Edit::Rename { scope, to } => {
            let s = scope_of(marks, scope)?;
            check_name(to)?;
            if to == scope {
                return Err(EditError::Unchanged);
            }
            if in_use(marks, to).is_some() {
                return Err(EditError::ScopeExists(to.clone()));
            }
            // A scope no op uses any more may still hold the name: free it.
            if let Some(old) = marks.scope_named(to) {
                undo.names.push((old, to.clone()));
                marks.rename_scope(old, "");
            }
            undo.names.push((s, scope.clone()));
            marks.rename_scope(s, to);
        }
        Edit::Merge { scope, into } => {
            let from = scope_of(marks, scope)?;
            let to = scope_of(marks, into)?;
            if from == to {
                return Err(EditError::SameScope(scope.clone()));
            }
            let options = options_of(marks, to);
            let members: Vec<OpId> = marks.members(from).collect();
            for id in members {
                set(marks, &mut undo, id, OpMark::Member { scope: to, options });
            }
        }
        Edit::Delete { scope } => {
            let s = scope_of(marks, scope)?;
            let members: Vec<OpId> = marks.members(s).collect();
            for id in members {
                set(marks, &mut undo, id, OpMark::Unscoped);
            }
        }
        Edit::SetOptions { scope, options } => {
            let s = scope_of(marks, scope)?;
            let options = marks.intern_options(options);
            let members: Vec<OpId> = marks.members(s).collect();
            for id in members {
                set(marks, &mut undo, id, OpMark::Member { scope: s, options });
            }
        }
    }
    if undo.marks.is_empty() && undo.names.is_empty() {
        return Err(EditError::Unchanged);
    }
    Ok(undo)
}
