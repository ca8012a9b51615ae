//! Which op belongs to which scope, with which options: the part of the plan's input a user
//! edits. Read from the dump's `_super_kernel_scope` / `_super_kernel_options` attributes.

use crate::graph::{Graph, OpId};
use std::collections::HashMap;

/// Index of a scope in [`Marks::scopes`].
pub type ScopeIdx = u32;

/// How one op is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpMark {
    /// In no scope.
    Unscoped,
    /// Explicitly kept out of fusion (what `super_kernel(None)` does inside a scope).
    DoNotFuse,
    /// A member of a scope, with its options string (index into [`Marks::options_text`]).
    Member {
        /// The scope.
        scope: ScopeIdx,
        /// The options string the op carries.
        options: u32,
    },
}

/// Scope membership and options of every op of a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marks {
    scopes: Vec<String>,
    options: Vec<String>,
    per_op: Vec<OpMark>,
}

impl Marks {
    /// The marks the dump carries. Scopes are numbered in order of first appearance in the
    /// execution order.
    pub fn from_graph(graph: &Graph) -> Marks {
        let mut scopes: Vec<String> = Vec::new();
        let mut scope_index: HashMap<&str, ScopeIdx> = HashMap::new();
        let mut options: Vec<String> = Vec::new();
        let mut options_index: HashMap<&str, u32> = HashMap::new();
        let mut per_op = vec![OpMark::Unscoped; graph.len()];
        for &id in graph.exec_order() {
            let op = graph.op(id);
            let Some(scope) = op.scope() else { continue };
            let scope = *scope_index.entry(scope).or_insert_with(|| {
                scopes.push(scope.to_string());
                (scopes.len() - 1) as ScopeIdx
            });
            let text = op.sk_options().unwrap_or("");
            let opt = *options_index.entry(text).or_insert_with(|| {
                options.push(text.to_string());
                (options.len() - 1) as u32
            });
            per_op[id.index()] = OpMark::Member {
                scope,
                options: opt,
            };
        }
        Marks {
            scopes,
            options,
            per_op,
        }
    }

    /// Marks for `ops` ops, none of them in a scope.
    pub fn unmarked(ops: usize) -> Marks {
        Marks {
            scopes: Vec::new(),
            options: Vec::new(),
            per_op: vec![OpMark::Unscoped; ops],
        }
    }

    /// Scope names, by [`ScopeIdx`].
    pub fn scopes(&self) -> &[String] {
        &self.scopes
    }

    /// The name of the scope op `id` is a member of, if any.
    pub fn scope_of(&self, id: OpId) -> Option<&str> {
        match self.get(id) {
            OpMark::Member { scope, .. } => Some(&self.scopes[scope as usize]),
            _ => None,
        }
    }

    /// How op `id` is marked.
    pub fn get(&self, id: OpId) -> OpMark {
        self.per_op[id.index()]
    }

    /// The options string with index `index`.
    pub fn options_text(&self, index: u32) -> &str {
        &self.options[index as usize]
    }

    /// Number of distinct options strings.
    pub fn options_count(&self) -> usize {
        self.options.len()
    }

    /// Marks op `id` as kept out of fusion.
    pub fn set_do_not_fuse(&mut self, id: OpId) {
        self.per_op[id.index()] = OpMark::DoNotFuse;
    }

    /// Sets how op `id` is marked.
    pub fn set(&mut self, id: OpId, mark: OpMark) {
        self.per_op[id.index()] = mark;
    }

    /// The scope named `name`. Names are never removed, so a scope that marks no op any more
    /// is still found.
    pub fn scope_named(&self, name: &str) -> Option<ScopeIdx> {
        self.scopes
            .iter()
            .position(|s| s == name)
            .map(|i| i as ScopeIdx)
    }

    /// The scope named `name`, added when there is none.
    pub fn intern_scope(&mut self, name: &str) -> ScopeIdx {
        self.scope_named(name).unwrap_or_else(|| {
            self.scopes.push(name.to_string());
            (self.scopes.len() - 1) as ScopeIdx
        })
    }

    /// Adds a scope named `name` without looking for one of that name (the caller makes
    /// names unique: for many generated scopes, the lookup of [`Marks::intern_scope`] would
    /// cost a pass over all of them each).
    pub fn add_scope(&mut self, name: String) -> ScopeIdx {
        self.scopes.push(name);
        (self.scopes.len() - 1) as ScopeIdx
    }

    /// Renames scope `scope` (the caller makes sure no other scope in use has the name).
    pub fn rename_scope(&mut self, scope: ScopeIdx, name: &str) {
        self.scopes[scope as usize] = name.to_string();
    }

    /// The index of options string `text`, added when new.
    pub fn intern_options(&mut self, text: &str) -> u32 {
        match self.options.iter().position(|o| o == text) {
            Some(i) => i as u32,
            None => {
                self.options.push(text.to_string());
                (self.options.len() - 1) as u32
            }
        }
    }

    /// Every op marked as a member of `scope`.
    pub fn members(&self, scope: ScopeIdx) -> impl Iterator<Item = OpId> + '_ {
        self.per_op
            .iter()
            .enumerate()
            .filter(move |(_, m)| matches!(m, OpMark::Member { scope: s, .. } if *s == scope))
            .map(|(i, _)| OpId(i as u32))
    }
}
