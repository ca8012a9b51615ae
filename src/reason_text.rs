//! A reason's words, as tables of reasons (the aclgraph pass's, MindSpore graph kernel
//! fusion's) hold them.

/// What a reason key (`OP_UNSUPPORT`, `gk_level_1`, …) means and what to do about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReasonText {
    /// The key, as the logs (or skope's JSON) write it.
    pub key: &'static str,
    /// What it means, in a user's words.
    pub meaning: &'static str,
    /// What to do about it.
    pub action: &'static str,
}
