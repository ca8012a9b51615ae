//! skope: predict and explain Ascend SuperKernel fusion on graph dumps.
//!
//! The library is plain functions and data: [`load`] reads every supported dump format into a
//! [`graph::Graph`]; [`info`] summarises a loaded dump. Front ends (the `skope` binary) are
//! thin layers over it.

pub mod fusion;
pub mod graph;
pub mod info;
pub mod load;
pub mod text;
