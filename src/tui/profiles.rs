//! Profiles with and without SuperKernel, read on a worker thread and compared against the
//! current plan there again after every edit.

use crate::fusion::marks::Marks;
use crate::fusion::plan::{Context, Plan};
use crate::profile::payoff::PayoffRule;
use crate::profile::ranks::{RankProgress, RanksDiff};
use crate::profile::{self, Diff, Pair, PlannedFusion, ProfileError};
use crate::suggest::prediction::{Checked, check};
use crate::workspace::Workspace;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Which profiles to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfilesRequest {
    /// The base profile (without SuperKernel), or a directory holding both.
    pub base: PathBuf,
    /// The new profile (with SuperKernel), unless `base` holds both.
    pub new: Option<PathBuf>,
    /// The rank to read, when the profiles hold several.
    pub rank: Option<u32>,
    /// The plan file the new profile was made with (a run's), when known: the comparison is
    /// bound to it, not to the plan as edited since.
    pub made_with: Option<PathBuf>,
}

impl ProfilesRequest {
    /// The profiles `paths` name as `--profiles` gives them: one directory holding
    /// `no_sk_model` and `sk_model`, or the base then the new one; none for no path.
    pub fn of_paths(paths: Vec<PathBuf>) -> Result<Option<ProfilesRequest>, &'static str> {
        let mut paths = paths.into_iter();
        match (paths.next(), paths.next(), paths.next()) {
            (None, _, _) => Ok(None),
            (Some(base), new, None) => Ok(Some(ProfilesRequest {
                base,
                new,
                rank: None,
                made_with: None,
            })),
            (Some(_), _, Some(_)) => Err(
                "--profiles takes one directory holding no_sk_model and sk_model, or two \
                 profiles (without, then with SuperKernel)",
            ),
        }
    }

    /// The paths as the user would type them at the `p` prompt.
    pub fn paths(&self) -> String {
        let mut text = self.base.display().to_string();
        if let Some(new) = &self.new {
            text.push(' ');
            text.push_str(&new.display().to_string());
        }
        text
    }

    /// The paths and the rank, for titles.
    pub fn describe(&self) -> String {
        let mut text = self.paths();
        if let Some(rank) = self.rank {
            text.push_str(&format!(" (rank {rank})"));
        }
        text
    }
}

/// Profiles read and compared on the worker.
#[derive(Debug)]
pub struct LoadedProfiles {
    /// The profiles (of the rank shown, when they hold several).
    pub pair: Pair,
    /// Their comparison against the plan as it was when they were asked for.
    pub compared: Compared,
    /// The workspace version of that plan.
    pub plan_version: u64,
    /// That plan and the marks it was made from: what the profiles' run built (suggestions
    /// fit their model on it whatever the edits since).
    pub run_plan: Arc<(Marks, Plan)>,
    /// Every rank compared, when they hold several and none was asked for: the slowest is
    /// the one shown.
    pub ranks: Option<Arc<RanksDiff>>,
    /// The rank shown, when they hold several.
    pub rank: Option<u32>,
    /// What the run whose plan they are bound to predicted before it ran, beside what this
    /// comparison measured: when that run recorded a prediction.
    pub foresight: Option<Checked>,
}

/// A workspace's plan as of one version, cheap to take (the context is shared, marks and plan
/// are copied) and turned into what the comparison needs on another thread.
#[derive(Debug)]
pub struct PlanSnapshot {
    cx: Arc<Context>,
    marks: Marks,
    plan: Plan,
    source: String,
    /// The workspace version it is of.
    pub version: u64,
}

impl PlanSnapshot {
    /// `ws`'s plan now.
    pub fn of(ws: &Workspace) -> PlanSnapshot {
        PlanSnapshot {
            cx: ws.shared_context(),
            marks: ws.marks().clone(),
            plan: ws.plan().clone(),
            source: format!(
                "the current plan of {} (the plan the new profile was made with is not known: \
                 profiles a run made are bound to its plan)",
                ws.source().file
            ),
            version: ws.version(),
        }
    }

    /// The plan of `ws`'s graph that the plan file `path` (a run's) makes; why not, when the
    /// file cannot be read or was made for another graph.
    pub fn of_plan_file(ws: &Workspace, path: &std::path::Path) -> Result<PlanSnapshot, String> {
        let file = crate::planfile::PlanFile::read(path).map_err(|e| e.to_string())?;
        let (marks, mismatch) = file.marks_for(ws.graph());
        if let Some(refusal) = mismatch.refusal(path, ws.graph(), false) {
            return Err(refusal);
        }
        Ok(PlanSnapshot {
            cx: ws.shared_context(),
            plan: ws.plan_of(&marks),
            marks,
            source: format!(
                "the plan the new profile was made with ({})",
                path.display()
            ),
            version: ws.version(),
        })
    }

    /// The plan reduced to op names and types.
    pub fn planned(&self) -> PlannedFusion {
        PlannedFusion::from_plan(&self.cx, &self.marks, &self.plan, &self.source)
    }
}

/// Profiles being read: what was asked, and how far the ranks' comparison has come.
#[derive(Debug)]
pub struct ProfilesLoading {
    /// What was asked.
    pub request: ProfilesRequest,
    /// The ranks compared so far, counted on the worker.
    pub progress: Arc<RankProgress>,
    /// The count last told.
    pub told: (usize, usize),
}

/// Reads and compares the profiles `request` names against `snapshot`: when they hold several
/// ranks and none was asked for, every rank first (a rank per core, counted in `progress`),
/// then the slowest rank's pair for the view. A panic while reading becomes an error
/// ([`unreadable`]).
pub fn load(
    request: &ProfilesRequest,
    snapshot: &PlanSnapshot,
    progress: &RankProgress,
) -> Result<Box<LoadedProfiles>, ProfileError> {
    let (base, new) = (&request.base, request.new.as_deref());
    let planned = snapshot.planned();
    // The sides are found once, for every rank and for the pair shown.
    let sides = profile::Sides::find(base, new)?;
    let (ranks, rank) = match (request.rank, sides.ranks()?) {
        (None, Some(list)) => {
            let all = profile::ranks::compare_ranks(
                &sides,
                &list,
                Some(&planned),
                PayoffRule::default(),
                progress,
            )?;
            let slowest = all.slowest_rank.or(list.first().copied());
            (Some(Arc::new(all)), slowest)
        }
        (rank, _) => (None, rank),
    };
    let pair = sides.load(rank)?;
    let compared = Compared::new(&pair, &planned);
    let foresight = request.made_with.as_deref().and_then(|plan| {
        let (dir, record) = crate::compile::record::run_of(Some(plan), base)?;
        let diff = &compared.diff;
        let run = dir.display().to_string();
        let (account, payoffs) = (&diff.account, diff.payoffs.as_ref());
        Some(check((record.predicted.as_ref()?, &run), account, payoffs))
    });
    Ok(Box::new(LoadedProfiles {
        pair,
        compared,
        plan_version: snapshot.version,
        run_plan: Arc::new((snapshot.marks.clone(), snapshot.plan.clone())),
        ranks,
        rank,
        foresight,
    }))
}

/// The error of profiles `request` names that could not be read, saying `why`.
pub fn unreadable(request: &ProfilesRequest, why: &str) -> ProfileError {
    ProfileError::Pairing {
        path: request.base.clone(),
        message: format!("could not be read: {why}"),
    }
}

/// The comparison of a pair against one plan, with the lookups the views need.
#[derive(Debug)]
pub struct Compared {
    /// The comparison.
    pub diff: Diff,
    /// For each op name in a segment, the segment's index in `diff.per_op.segments`.
    pub(super) segment_of: HashMap<String, usize>,
    /// For each break op's name, its indices in `diff.per_op.breaks`.
    pub(super) breaks_of: HashMap<String, Vec<usize>>,
    /// The SuperKernels of the plan compared against, as (segment, kernel name).
    pub(super) superkernels: Vec<(String, String)>,
}

impl Compared {
    /// Compares `pair` against `planned`.
    pub fn new(pair: &Pair, planned: &PlannedFusion) -> Compared {
        let diff = profile::diff(pair, Some(planned));
        let mut segment_of = HashMap::new();
        let mut breaks_of: HashMap<String, Vec<usize>> = HashMap::new();
        if let Some(per_op) = &diff.per_op {
            for (i, s) in per_op.segments.iter().enumerate() {
                for op in &s.ops {
                    segment_of.insert(op.name.clone(), i);
                }
            }
            for (i, b) in per_op.breaks.iter().enumerate() {
                breaks_of.entry(b.op.clone()).or_default().push(i);
            }
        }
        let superkernels = planned
            .segments
            .iter()
            .map(|s| (s.segment.clone(), s.fused_node.clone()))
            .collect();
        Compared {
            diff,
            segment_of,
            breaks_of,
            superkernels,
        }
    }
}
