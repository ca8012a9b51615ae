//! Planners other than GE's pass (the aclgraph pass's, MindSpore's graph kernel fusion): each
//! plans scope marks its own way and may refuse edits it has no model for. The workspace and
//! the fix checker plan through one of them when the graph has one, through GE's otherwise.

use crate::edit::Edit;
use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan};

/// A planner other than GE's pass: plans the marks its own way, and may refuse edits it has
/// no model for.
pub trait Planner: std::fmt::Debug + Send + Sync {
    /// The plan of `marks` on the graph of `cx`.
    fn plan(&self, cx: &Context, marks: &Marks) -> Plan;
    /// Why `edit` cannot be made, when it cannot.
    fn refuses(&self, edit: &Edit) -> Option<&'static str>;
}
