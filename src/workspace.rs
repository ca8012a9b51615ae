//! The state a front end works on: one loaded graph with its planning context, the scope marks,
//! and the plan of those marks with its index. Plain data; no terminal, no threads.

use crate::fusion::index::PlanIndex;
use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan, plan};
use crate::fusion::rules::RuleSet;
use crate::graph::Graph;
use crate::load::Format;

/// Where the graph came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The dump file as the user named it.
    pub file: String,
    /// Its detected format.
    pub format: Format,
}

/// A loaded graph and its current plan.
#[derive(Debug)]
pub struct Workspace {
    source: Source,
    cx: Context,
    marks: Marks,
    plan: Plan,
    index: PlanIndex,
}

impl Workspace {
    /// Plans `graph` with `rules` and the scope marks the dump carries.
    pub fn new(graph: Graph, format: Format, file: &str, rules: &RuleSet) -> Workspace {
        let cx = Context::new(graph, rules);
        let marks = Marks::from_graph(cx.graph());
        let plan = plan(&cx, &marks);
        let index = PlanIndex::new(cx.graph(), &plan);
        Workspace {
            source: Source {
                file: file.to_string(),
                format,
            },
            cx,
            marks,
            plan,
            index,
        }
    }

    /// Where the graph came from.
    pub fn source(&self) -> &Source {
        &self.source
    }

    /// The graph.
    pub fn graph(&self) -> &Graph {
        self.cx.graph()
    }

    /// The planning context (verdicts, streams, topo ids).
    pub fn context(&self) -> &Context {
        &self.cx
    }

    /// The scope marks the plan was made from.
    pub fn marks(&self) -> &Marks {
        &self.marks
    }

    /// The current plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The current plan's index.
    pub fn index(&self) -> &PlanIndex {
        &self.index
    }
}
