//! Every view that can take the body over the graph's panes, in the order the help lists
//! them: a new view is its module and its line here (see docs/ARCHITECTURE.md, "How to add a
//! view").

use super::app::App;
use super::view::ViewSpec;

/// The views.
pub static VIEWS: &[ViewSpec<App>] = &[
    super::run_actions::VIEW,
    super::profile_actions::VIEW,
    super::suggestion_actions::VIEW,
    super::static_actions::VIEW,
    super::flags_view::VIEW,
];
