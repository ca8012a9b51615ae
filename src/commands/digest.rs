//! `skope digest`: one rank's profile reduced to a digest, on the node where the profiler wrote
//! it, for `diff`, the explorer's `--profiles` and the ledger to compare anywhere with the same
//! figures as the profile itself ([`crate::profile::digest`]).

use crate::profile::{Found, digest, discover};
use crate::text::sanitize;
use anyhow::Result;
use std::path::{Path, PathBuf};

/// What `skope digest` is asked.
#[derive(Debug, Clone, Copy)]
pub struct DigestRequest<'a> {
    /// The profile: one rank's directory or file (or, with `rank`, a directory of ranks).
    pub profile: &'a Path,
    /// `-o`: the digest to write.
    pub output: &'a Path,
    /// `--rank`: the rank, of a directory of several; else the rank recorded for one.
    pub rank: Option<u32>,
}

/// Digests `asked.profile` into `asked.output`; `say` hears what was written.
pub fn run(asked: &DigestRequest, say: &mut dyn FnMut(&str)) -> Result<()> {
    let profile = asked.profile;
    let (files, rank, device) = match discover::discover(profile)? {
        Found::One(files) => {
            let rank = asked
                .rank
                .or_else(|| discover::rank_of_root(files.profile_root()));
            (files, rank, asked.rank)
        }
        found @ Found::Ranks(_) => (found.pick(asked.rank, profile)?, asked.rank, None),
        Found::Pair { .. } => anyhow::bail!(
            "{} holds both {} and {}: digest each side's ranks on their own (one digest per \
             rank and side)",
            profile.display(),
            discover::BASE_DIR,
            discover::NEW_DIR
        ),
    };
    // The profile's files, and the profiler's notes beside them (its level is read there).
    let infos = discover::profiler_infos(&files.root);
    let inputs: Vec<&Path> = std::iter::once(profile)
        .chain(files.kernels.iter().map(PathBuf::as_path))
        .chain(files.op_statistic.iter().map(PathBuf::as_path))
        .chain(infos.iter().map(PathBuf::as_path))
        .collect();
    // Refused before the profile is read, not after the wait.
    crate::own_files::refuse_input_as_output(asked.output, &inputs)?;
    let (bytes, digested) = digest::digest(&files, rank, device)?;
    super::write_apart(asked.output, &inputs, &bytes)?;
    let of_rank = digested.rank.map_or_else(
        || " (rank not known)".to_string(),
        |r| format!(" of rank {r}"),
    );
    let form = files.kernel_form.map_or("an op statistic", |f| f.words());
    say(&format!(
        "wrote {}: {} kernel run(s){of_rank} from {form}, {} (the profile's files: {})",
        sanitize(&asked.output.display().to_string()),
        digested.rows,
        crate::text::size(digested.bytes),
        crate::text::size(digested.source_bytes)
    ));
    Ok(())
}
