//! skope: predict and explain Ascend SuperKernel fusion on graph dumps.
//!
//! The library is plain functions and data: [`load`] reads every supported dump format into a
//! [`graph::Graph`]; [`info`] summarises a loaded dump; [`fusion`] predicts what GE's
//! SuperKernel pass makes of it; [`report`] puts the plan in words. Front ends (the `skope`
//! binary) are thin layers over it.

pub mod aclgraph;
pub mod check_op;
pub mod clock;
pub mod codegen;
pub mod commands;
pub mod compile;
pub mod dataflow;
pub mod edit;
pub mod example;
pub mod export;
pub mod file_error;
pub mod fix;
pub mod fusion;
pub mod fusion_diff;
pub mod graph;
pub mod info;
pub mod journal;
pub mod kernel_meta;
pub mod ledger;
pub mod load;
pub mod markdown;
pub mod memory;
pub mod mindspore;
pub mod model_explorer;
pub mod open;
pub mod own_files;
pub mod paths;
pub mod planfile;
pub mod planner;
pub mod profile;
pub mod reason_text;
pub mod report;
#[cfg(test)]
mod scratch;
pub mod static_kernels;
pub mod suggest;
pub mod target;
pub mod text;
pub mod tui;
pub mod whole_model;
pub mod worker;
pub mod workspace;
