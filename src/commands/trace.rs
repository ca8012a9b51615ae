//! `skope export --format trace`: the profiles' kernels as a Chrome trace (Perfetto,
//! chrome://tracing), marked with the plan of the dump they were taken from.

use crate::open::Request;
use crate::profile::planned::KernelStreams;
use crate::profile::trace_out::{OwnClock, Slice, TraceInput};
use crate::profile::{self, PlannedFusion, Profile, ProfileError};
use anyhow::{Context as _, Result};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// What the trace is made of besides the dump.
#[derive(Debug, Clone, Copy)]
pub struct TraceRequest<'a> {
    /// `--profiles`: a pair's directory, one profile, or BASE then NEW.
    pub profiles: &'a [PathBuf],
    /// With several ranks, the one to write.
    pub rank: Option<u32>,
    /// Only this step.
    pub step: Option<&'a str>,
    /// Where to write it (standard output without).
    pub output: Option<&'a Path>,
}

/// Writes the trace of `asked.profiles` marked with the plan of `file`; `say` hears what was
/// written and how to open it.
pub fn run(
    request: &Request,
    file: &Path,
    asked: &TraceRequest<'_>,
    say: &mut dyn FnMut(&str),
    stdout: &mut impl Write,
) -> Result<()> {
    if let Some(path) = asked.output {
        let mut inputs = request.inputs(file);
        inputs.extend(asked.profiles.iter().map(PathBuf::as_path));
        crate::own_files::refuse_input_as_output(path, &inputs)?;
    }
    let ws = super::open(request, file, say)?;
    let plan = PlannedFusion::from_workspace(&ws, &file.display().to_string());
    let streams = KernelStreams::of(&ws);
    let stream_of = |name: &str| streams.get(name);
    let loaded = load(asked.profiles, asked.rank)?;
    let sides: Vec<(&str, &Profile)> = loaded.iter().map(|(n, p)| (*n, p)).collect();
    let own_clocks: Vec<OwnClock> = superkernels_inside(file).into_iter().collect();
    let input = TraceInput {
        sides: &sides,
        plan: Some(&plan),
        step: asked.step,
        stream_of: Some(&stream_of),
        own_clocks: &own_clocks,
    };
    let written = match asked.output {
        Some(path) => profile::trace_out::write_file(path, crate::own_files::Links::Follow, &input)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => {
            let mut out = BufWriter::with_capacity(1 << 20, stdout);
            let written =
                profile::trace_out::write(&mut out, &input).context("cannot write the trace")?;
            out.flush().context("cannot write the trace")?;
            written
        }
    };
    if written.kernels == 0 {
        anyhow::bail!(
            "no kernel runs to write: the profiles have no kernel file{}",
            asked
                .step
                .map_or(String::new(), |s| format!(" or no step {s}"))
        );
    }
    if written.own_clock > 0 {
        say(&format!(
            "the SuperKernels' sk_prof records ({} slices) are a process of their own, on the \
             device clock: not lined up with the profiles",
            written.own_clock
        ));
    }
    say(&format!(
        "wrote {} kernel(s), {} segment span(s) and {} break instant(s){}: open it in \
         https://ui.perfetto.dev (Open trace file) or chrome://tracing (Load)",
        written.kernels,
        written.spans,
        written.breaks,
        asked
            .output
            .map_or(String::new(), |p| format!(" to {}", p.display()))
    ));
    Ok(())
}

/// When `file` is an aclgraph model with `sk_prof_device_*.json`: each SuperKernel's
/// occurrences on Cube and Vector threads, the whole SuperKernel the parent slice of its
/// sub-ops (each clamped to start after the one before it, so slices nest), on the device
/// clock.
fn superkernels_inside(file: &Path) -> Option<OwnClock> {
    use crate::aclgraph::inside;
    if !crate::aclgraph::layout::looks_like_output(file) {
        return None;
    }
    let (model, _) = crate::aclgraph::open(file).ok()?;
    let mut records = Vec::new();
    for path in crate::aclgraph::layout::timing_files(&model.dir) {
        let bytes = std::fs::read(&path).ok()?;
        records.extend(crate::aclgraph::device::records(&bytes).ok()?);
    }
    let mut threads = Vec::new();
    for sk in &model.sks {
        let occurrences = inside::occurrences(&records, sk.scope_id, inside::OCCURRENCE_GAP_NS);
        if occurrences.is_empty() {
            continue;
        }
        for (unit, cube) in [("Cube", true), ("Vector", false)] {
            let mut slices = Vec::new();
            for o in &occurrences {
                let spans = if cube { &o.cube } else { &o.vector };
                if spans.is_empty() {
                    continue;
                }
                slices.push(Slice {
                    start: o.origin,
                    end: o.origin + o.end(),
                    name: sk.name.clone(),
                    cat: "superkernel",
                });
                let mut reach = o.origin;
                for s in spans {
                    let start = (o.origin + s.start).max(reach);
                    let end = (o.origin + s.end).max(start);
                    reach = end;
                    slices.push(Slice {
                        start,
                        end,
                        name: s.name.clone(),
                        cat: "sub-op",
                    });
                }
            }
            if !slices.is_empty() {
                threads.push((format!("{} · {unit}", sk.name), slices));
            }
        }
    }
    (!threads.is_empty()).then(|| OwnClock {
        process: if inside::buffer_full(&model.dir) {
            "SuperKernels inside (sk_prof, device clock; incomplete: the device buffer filled)"
                .to_string()
        } else {
            "SuperKernels inside (sk_prof, device clock)".to_string()
        },
        threads,
    })
}

/// The profiles `paths` name: a pair (`base`, `new`) or one profile (`profile`).
fn load(paths: &[PathBuf], rank: Option<u32>) -> Result<Vec<(&'static str, Profile)>> {
    let what = |e: ProfileError| anyhow::Error::new(e).context("cannot read the profiles");
    match paths {
        [] => anyhow::bail!(
            "--format trace writes profiles: give --profiles (a directory holding no_sk_model \
             and sk_model, one profile, or BASE then NEW)"
        ),
        [one]
            if matches!(
                profile::discover(one).map_err(what)?,
                profile::Found::Pair { .. }
            ) =>
        {
            let pair = profile::load_pair(one, None, rank).map_err(what)?;
            Ok(vec![("base", pair.base), ("new", pair.new)])
        }
        [one] => Ok(vec![("profile", Profile::open(one, rank).map_err(what)?)]),
        [base, new] => {
            let pair = profile::load_pair(base, Some(new), rank).map_err(what)?;
            Ok(vec![("base", pair.base), ("new", pair.new)])
        }
        _ => anyhow::bail!("--profiles takes one or two paths"),
    }
}
