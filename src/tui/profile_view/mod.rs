//! The profile view: asking for the profiles (with a guess of where they are; `L` from the
//! graph too), reading them on a worker thread, picking a rank or a step, pruning a
//! SuperKernel, the view's keys, and the drill-down from a row to the ops in the graph. The
//! comparison it shows ([`state::ProfileView`], kept with the graph's explorer) is data the
//! panes share — the op list's payoffs, the suggestions' calibration, the timeline read it —
//! so what the rest of the app asks of it are methods of the app here: `App::profile_view`,
//! `App::load_profiles`, `App::profiles_follow_plan`, `App::open_run_results`.

mod draw;
pub mod state;

use super::action::Action;
use super::app::{App, Prompt, Screen};
use super::dialog::{Answer, Confirm, Dialog, Pick, Picker};
use super::layout;
use super::profiles::{self, LoadedProfiles, ProfilesRequest};
use super::view::ViewSpec;
use crate::edit::Edit;
use crate::profile::ProfileError;
use crate::profile::ranks::RankProgress;
use crate::text::sanitize;
pub use state::{ProfileView, Sort, Table};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The profile comparison: each SuperKernel's payoff, time by op type, by segment and by
/// break, without and with SuperKernel, per step.
pub const VIEW: ViewSpec<App> = ViewSpec {
    name: "profiles",
    title: "In the profile view",
    opens_with: Some(Action::Profiles),
    from_graph: &[Action::LoadProfiles],
    keys: &[
        (Action::Down, "next row"),
        (Action::Up, "previous row"),
        (
            Action::NextPane,
            "next table (superkernels, where the time went, op types, breaks)",
        ),
        (Action::PrevPane, "previous table"),
        (
            Action::Prune,
            "prune the SuperKernel: keep its ops out of fusion (planned first)",
        ),
        (Action::PickStep, "show one step"),
        (Action::PickRank, "every rank at a glance (of several)"),
        (Action::Sort, "sort op types by Δ, total, name"),
        (
            Action::Activate,
            "go to the graph: its ops, segments or break",
        ),
        (
            Action::WriteCode,
            "write the pull request report (Markdown) beside the dump",
        ),
        (Action::LoadProfiles, "load other profiles"),
        (Action::Compile, "run a recipe"),
        (Action::Profiles, "back to the graph"),
        (Action::Back, "back to the graph"),
    ],
    open: App::open_profiles,
    handle: App::profile_view_action,
    scroll: App::profile_scroll,
    draw: |app, frame, area| {
        if let Some(view) = app.profile_view() {
            draw::render(app, view, frame, area);
        }
    },
    text: None,
};

impl App {
    /// Shows the profile comparison, or asks for the profiles the first time.
    fn open_profiles(&mut self) {
        match self.profile_view() {
            Some(_) => self.show_view("profiles"),
            None => self.ask_for_profiles(),
        }
    }

    /// Opens the prompt for the profiles' paths, with a guess typed in.
    fn ask_for_profiles(&mut self) {
        let guess = self
            .profile_view()
            .map(|v| v.request.paths())
            .or_else(|| self.guess_profiles().map(|p| p.display().to_string()))
            .unwrap_or_default();
        self.prompt = Some(Prompt::new(
            "profiles: ",
            "enter read · esc cancel · a directory holding no_sk_model and sk_model, or BASE NEW",
            guess,
            |app: &mut App, typed| app.submit_profiles(&typed),
        ));
    }

    /// Where profiles probably are: the newest run's results, `prof_result` in the working
    /// directory, or `prof_result` next to the dump.
    fn guess_profiles(&self) -> Option<PathBuf> {
        let from_runs = self
            .runs
            .list
            .iter()
            .rev()
            .filter_map(|r| r.results.clone())
            .find(|p| crate::profile::discover(p).is_ok());
        let dump = self.explorer().map(|ex| ex.ws.source().file.clone());
        let beside_dump = dump
            .as_deref()
            .and_then(|f| Path::new(f).parent())
            .map(|dir| dir.join("prof_result"));
        from_runs
            .into_iter()
            .chain([PathBuf::from("prof_result")])
            .chain(beside_dump)
            .find(|p| p.exists())
    }

    /// Reads the profiles the prompt names: one path (a directory holding both, as the
    /// comparison sample lays them out) or two (without, then with SuperKernel).
    pub(super) fn submit_profiles(&mut self, text: &str) {
        let text = text.trim();
        let (base, new) = if Path::new(text).exists() || !text.contains(char::is_whitespace) {
            (PathBuf::from(text), None)
        } else {
            let mut parts = text.split_whitespace();
            let base = parts.next().map(PathBuf::from).unwrap_or_default();
            let new = parts.next().map(PathBuf::from);
            if parts.next().is_some() {
                return self.problem(
                    "give one directory holding no_sk_model and sk_model, or two profiles: \
                     without, then with SuperKernel"
                        .to_string(),
                );
            }
            (base, new)
        };
        if base.as_os_str().is_empty() {
            return self.problem("no profiles given".to_string());
        }
        // Profiles a run left are bound to the plan that run used.
        let made_with = self.run_plan_of(&base);
        self.load_profiles(ProfilesRequest {
            base,
            new,
            rank: None,
            made_with,
        });
    }

    /// The plan file of the run whose results are at `results`, when a run of this session
    /// or an earlier one left them.
    fn run_plan_of(&self, results: &Path) -> Option<PathBuf> {
        let same = |p: &Path| {
            std::fs::canonicalize(p).ok() == std::fs::canonicalize(results).ok() || p == results
        };
        self.runs
            .list
            .iter()
            .filter(|r| r.results.as_deref().is_some_and(same))
            .find_map(|r| r.out.as_ref())
            .map(|out| out.join(crate::compile::record::PLAN))
            .filter(|p| p.exists())
    }

    /// Starts reading `request` on a worker thread.
    pub(super) fn load_profiles(&mut self, request: ProfilesRequest) {
        let Some(ex) = self.explorer() else {
            return;
        };
        let snapshot = match &request.made_with {
            Some(plan) => match profiles::PlanSnapshot::of_plan_file(&ex.ws, plan) {
                Ok(snapshot) => snapshot,
                Err(why) => {
                    return self.problem(format!(
                        "the plan the profiles were made with cannot be used: {}",
                        sanitize(&why.replace('\n', " "))
                    ));
                }
            },
            None => profiles::PlanSnapshot::of(&ex.ws),
        };
        self.info(format!(
            "reading the profiles in {}…",
            sanitize(&request.describe())
        ));
        let progress = Arc::new(RankProgress::default());
        self.profiles_loading = Some(profiles::ProfilesLoading {
            request: request.clone(),
            progress: Arc::clone(&progress),
            told: (0, 0),
        });
        let asked = request.clone();
        let read = move || profiles::load(&asked, &snapshot, &progress);
        self.work("skope-profiles", read, move |app, answer| {
            let result = answer.unwrap_or_else(|stopped| {
                let why = format!("the reader stopped: {stopped}");
                Err(profiles::unreadable(&request, &why))
            });
            app.profiles_loaded(request, result);
        });
    }

    /// Says how many ranks of the profiles being read are compared, when that changed.
    pub(super) fn tell_rank_progress(&mut self) {
        let Some(loading) = &mut self.profiles_loading else {
            return;
        };
        let now = loading.progress.get();
        if now.1 == 0 || now == loading.told {
            return;
        }
        loading.told = now;
        let what = sanitize(&loading.request.describe()).into_owned();
        self.info(format!(
            "reading the profiles in {what}… {} of {} ranks compared",
            now.0, now.1
        ));
    }

    /// Takes in profiles read on the worker: opens the view, asks for a rank, or says what
    /// is wrong with them.
    pub fn profiles_loaded(
        &mut self,
        request: ProfilesRequest,
        result: Result<Box<LoadedProfiles>, ProfileError>,
    ) {
        if self.profiles_loading.as_ref().map(|l| &l.request) != Some(&request) {
            return; // an older request
        }
        self.profiles_loading = None;
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match result {
            Ok(loaded) => {
                // Another rank of the same profiles keeps every rank's comparison.
                let carried = ex
                    .profiles
                    .as_ref()
                    .filter(|v| v.request.paths() == request.paths())
                    .and_then(|v| v.ranks.clone());
                let mut view = ProfileView::new(request, *loaded);
                if view.ranks.is_none() {
                    view.ranks = carried;
                }
                // The plan changed while they were read.
                let edited = view.plan_version != ex.ws.version();
                let text = format!(
                    "profiles compared: {}",
                    crate::profile::output::headline(&view.diff.account)
                );
                ex.profiles = Some(view);
                self.show_view("profiles");
                self.info(text);
                if edited {
                    self.profiles_follow_plan();
                }
            }
            Err(ProfileError::SeveralRanks { ranks, .. }) => {
                let rows = ranks
                    .iter()
                    .map(|r| (format!("rank {}", r.rank), r.rank))
                    .collect();
                self.pick_rank(request, rows);
            }
            Err(e) => self.problem(format!(
                "{} — {}",
                sanitize(&e.to_string().replace('\n', " ")),
                e.hint()
            )),
        }
    }

    /// Offers the ranks of `rows` (each row's words and its rank); the one picked is read
    /// again as `request` for that rank.
    pub(super) fn pick_rank(&mut self, request: ProfilesRequest, rows: Vec<(String, u32)>) {
        let rows = rows
            .into_iter()
            .map(|(words, rank)| (Pick::new(words), rank))
            .collect();
        let picker = Picker::new(
            " The profiles hold several ranks: pick one ",
            "no rank matches",
            rows,
            move |app: &mut App, rank| {
                let rank = Some(rank);
                app.load_profiles(ProfilesRequest { rank, ..request });
            },
        );
        self.dialog = Some(Dialog::Pick(picker));
    }

    /// Offers the steps of the profiles; the one picked is shown (none: every step's median).
    fn pick_step(&mut self) {
        let rows = match self.profile_view().map(|v| v.step_rows()) {
            Some(Ok(rows)) => rows,
            Some(Err(why)) => return self.problem(why),
            None => return,
        };
        let title = format!(
            " Show one of {} step(s): kernel time without → with SuperKernel ",
            rows.len().saturating_sub(1)
        );
        let rows = rows
            .into_iter()
            .map(|(words, step)| (Pick::new(words), step))
            .collect();
        let picker = Picker::new(title, "no step matches", rows, |app: &mut App, step| {
            if let Some(view) = app.profile_view_mut() {
                view.step = step;
            }
        });
        self.dialog = Some(Dialog::Pick(picker));
    }

    /// Asks to prune the selected SuperKernel: its scope deleted when it is the scope's only
    /// segment, else its ops kept out of fusion; the edit is planned first and the question
    /// says what the plan becomes.
    fn ask_to_prune(&mut self) {
        let Some(view) = self.profile_view() else {
            return;
        };
        let Some(payoff) = view.payoff_row(view.selected()) else {
            return self.problem("no SuperKernel to prune".to_string());
        };
        let (segment, class, why) = (payoff.segment.clone(), payoff.verdict(), payoff.why.clone());
        let Some(ex) = self.explorer() else {
            return;
        };
        let ws = &ex.ws;
        let found = ws.plan().scopes.iter().find_map(|s| {
            s.segments
                .iter()
                .find(|seg| seg.name == segment)
                .map(|seg| (s, seg))
        });
        let Some((scope, seg)) = found else {
            return self.problem(format!(
                "{} is not a segment of the plan now (an edit changed it since these profiles \
                 were made)",
                sanitize(&segment)
            ));
        };
        let edit = if scope.segments.len() == 1 {
            Edit::Delete {
                scope: scope.name.clone(),
            }
        } else {
            Edit::DoNotFuse {
                ops: seg.ops.clone(),
            }
        };
        let planned = match ws.what_if().plan_with(&edit) {
            Some(plan) => {
                let after = plan
                    .scopes
                    .iter()
                    .find(|s| s.name == scope.name)
                    .map_or(0, |s| s.segments.len());
                let kept = match &edit {
                    Edit::Delete { .. } => format!("scope {} leaves the plan", scope.name),
                    _ => format!(
                        "its {} op(s) kept out of fusion; {} keeps {after} segment(s)",
                        seg.ops.len(),
                        scope.name
                    ),
                };
                format!(
                    "planned: {kept} · {} → {} SuperKernel(s) in the graph",
                    ws.plan().segment_count(),
                    plan.segment_count()
                )
            }
            None => "the planner cannot plan it".to_string(),
        };
        let question = sanitize(&format!(
            "Prune {segment} ({class}: {why})? {planned}. {} undoes it.",
            self.config.keymap.hint(Action::Undo)
        ))
        .into_owned();
        let prune = move |app: &mut App| app.apply_edit(edit, None);
        self.dialog = Some(Dialog::Confirm(Confirm::new(
            question,
            vec![
                Answer::new('y', "prune", prune),
                Answer::cancel('n', "keep"),
            ],
        )));
    }

    /// An action in the profile view (which handles its own keys).
    fn profile_view_action(&mut self, action: Action) {
        if action == Action::LoadProfiles {
            return self.ask_for_profiles();
        }
        if action == Action::WriteCode {
            return self.write_pr_report();
        }
        if action == Action::PickStep {
            return self.pick_step();
        }
        if action == Action::PickRank {
            // Every rank at a glance; enter there opens one.
            return self.carry_out(super::reply::Reply::Open("ranks"));
        }
        if action == Action::Prune {
            return match self.profile_view().map(|v| v.table) {
                Some(Table::SuperKernels) => self.ask_to_prune(),
                _ => self.problem("prune a SuperKernel from the superkernels table".to_string()),
            };
        }
        let height = self.profile_rows();
        let Some(view) = self.profile_view_mut() else {
            return;
        };
        let reply = view.action(action, height);
        self.carry_out(reply);
    }

    /// Writes the plan and what it paid as Markdown for a pull request, beside the dump.
    fn write_pr_report(&mut self) {
        let (Some(view), Screen::Explorer(ex)) = (self.profile_view(), &self.screen) else {
            return;
        };
        let ws = &ex.ws;
        let what_if = ws.what_if();
        let report = crate::report::Report::new(
            &what_if,
            &ws.source().file,
            ws.source().format.id(),
            &ws.source().rules,
            crate::report::Detail::Summary,
        );
        let text = crate::markdown::pr_report(&report, &what_if, Some(&view.diff));
        let path = crate::paths::DumpFiles::of(&ws.source().file).report();
        let shown = sanitize(&path.display().to_string()).into_owned();
        match crate::own_files::replace(
            &path,
            text.as_bytes(),
            crate::own_files::Durability::Synced,
            crate::own_files::Links::Refuse,
        ) {
            Ok(()) => self.info(format!(
                "wrote the pull request report to {shown} (gh pr create --body-file {shown})"
            )),
            Err(e) => self.problem(format!("cannot write {shown}: {e}")),
        }
    }

    /// Moves the profile view's selection by `rows` (the mouse wheel).
    fn profile_scroll(&mut self, rows: isize) {
        let height = self.profile_rows();
        if let Some(view) = self.profile_view_mut() {
            view.move_by(rows, height);
        }
    }

    /// The profile comparison, once profiles are read.
    pub fn profile_view(&self) -> Option<&ProfileView> {
        self.explorer().and_then(|ex| ex.profiles.as_ref())
    }

    fn profile_view_mut(&mut self) -> Option<&mut ProfileView> {
        match &mut self.screen {
            Screen::Explorer(ex) => ex.profiles.as_mut(),
            _ => None,
        }
    }

    /// After the plan changed (an edit, undo, redo): the profiles stay compared against the
    /// plan their run used, and the view notes what the current plan no longer builds.
    pub(super) fn profiles_follow_plan(&mut self) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        if let Some(view) = &mut ex.profiles {
            view.follow(&ex.ws);
        }
    }

    /// After a run that passed: when its results hold profiles with and without SuperKernel,
    /// reads them (the view opens when they are in); true when it does.
    pub(super) fn open_run_results(&mut self, results: &Path) -> bool {
        match crate::profile::discover(results) {
            Ok(crate::profile::Found::Pair { .. }) => {
                let made_with = self.run_plan_of(results);
                self.load_profiles(ProfilesRequest {
                    base: results.to_path_buf(),
                    new: None,
                    rank: None,
                    made_with,
                });
                true
            }
            _ => false,
        }
    }

    /// Rows of the profile view's table.
    fn profile_rows(&self) -> usize {
        let detail = self
            .profile_view()
            .is_some_and(|v| v.table == Table::SuperKernels);
        layout::profile_table_rows(self.areas().body, detail)
    }
}
