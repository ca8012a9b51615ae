//! The library's tests: readers of every format on real-shaped and bad input, plans against
//! hand-checked expectations, edits and plan files, generated code, profiles, jobs, and the
//! fuzzing of every reader. One binary: each test binary is a link step.

mod common;
mod mutate;

mod account;
mod aclgraph;
mod aclgraph_results;
mod architecture;
mod bad_input;
mod cann;
mod codegen;
mod digest;
mod edit;
mod fidelity;
mod file_safety;
mod fix;
mod formats;
mod fuzz;
mod ge_halves;
mod jobs;
mod kernel_meta;
mod layers;
mod mindspore;
mod payoff;
mod plan;
mod planfile;
mod profile;
mod profile_db;
mod static_kernels;
mod suggest;
mod timeline;
