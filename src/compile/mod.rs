//! Compile and run jobs: recipes with argument templates, processes in their own process
//! group with streamed and bounded output, cancelling, and where results appear.

pub mod batch;
pub mod foreground;
pub mod job;
pub mod log;
pub mod prepare;
pub mod recipe;
pub mod record;
pub mod template;
