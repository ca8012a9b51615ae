//! The loop closed on screen: with the bundled pair read, a suggestion accepted and a run made,
//! the run records what each SuperKernel of its plan was predicted to save; its profile opens
//! in the profile view with each prediction beside the payoff it measured; and the suggestions
//! are fitted again on the run's pair.

use crate::common::ledger_runs::copy_dir;
use crate::common::{repo, scratch};
use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use skope::compile::recipe::Recipe;
use skope::compile::record::RunRecord;
use skope::suggest::saving::Fit;
use skope::tui::app::{App, Msg};
use skope::tui::suggestions_view::SuggestionsView;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Receiver;

/// The explorer with the bundled pair read, runs kept under `dir`.
fn with_profiles(dir: &Path) -> (App, Receiver<Msg>) {
    let (mut app, rx) = app_with_events(140, 40);
    app.runs.dir = Some(dir.join("runs"));
    press(&mut app, KeyCode::Char('p'));
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    keys(&mut app, "assets/examples/prof_result");
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    press(&mut app, KeyCode::Esc);
    (app, rx)
}

/// A recipe that "profiles" the plan: it copies a pair into its results, as a model run with
/// the profiler leaves one.
fn profiling_recipe(pair: &Path) -> Recipe {
    Recipe {
        name: "profile".into(),
        about: String::new(),
        argv: ["cp", "-r", &pair.display().to_string(), "{out}/prof"]
            .map(String::from)
            .to_vec(),
        cwd: None,
        env: Vec::new(),
        results: Some("{out}/prof".into()),
        streams: skope::compile::job::Streams::Merged,
        file: None,
        overrides: false,
    }
}

/// Starts `recipe` and waits until its profile is read into the profile view; the run's
/// directory.
fn run_and_read(app: &mut App, rx: &Receiver<Msg>, recipe: Recipe) -> PathBuf {
    offer(app, recipe);
    press(app, KeyCode::Enter);
    pump(app, rx, |app| {
        app.runs.list.last().is_some_and(|r| !r.is_running()) && app.profiles_loading.is_none()
    });
    app.runs.list.last().unwrap().out.clone().unwrap()
}

/// The selected SuperKernel's prediction as its details say it, up to `then` (its class and
/// what was measured).
fn details(c: &skope::suggest::prediction::CheckedSuperKernel, then: &str) -> String {
    let (delta, range) = (c.predicted_delta(), c.range());
    format!("predicted before the run {delta} ({range}) {then}")
}

/// Back to the graph, the suggestions opened again and made: they read the run's profile in
/// `out`; their fit, if any.
fn suggested_again(app: &mut App, rx: &Receiver<Msg>, out: &Path) -> Option<Fit> {
    press(app, KeyCode::Esc);
    press(app, KeyCode::Char('S'));
    pump(app, rx, |app| !suggestions(app).stale);
    let profile = suggestions(app).profile.clone().unwrap();
    assert!(profile.starts_with(out), "{}", profile.display());
    suggestions(app).fit.clone()
}

fn suggestions(app: &App) -> &SuggestionsView {
    app.view_state::<SuggestionsView>()
        .expect("the suggestions view")
}

#[test]
fn a_run_of_an_accepted_suggestion_shows_each_prediction_beside_its_payoff() {
    let dir = scratch("tui-foresight");
    let pair = dir.join("pair");
    copy_dir(&repo("assets/examples/prof_result"), &pair);
    let (mut app, rx) = with_profiles(&dir);
    press(&mut app, KeyCode::Char('S'));
    pump(&mut app, &rx, |app| !suggestions(app).stale);
    press(&mut app, KeyCode::Char('a'));
    pump(&mut app, &rx, |app| !suggestions(app).stale);
    let today = suggestions(&app)
        .suggestions
        .today
        .clone()
        .expect("predicted");
    assert!(today.fitted, "{today:?}");
    press(&mut app, KeyCode::Esc);

    let out = run_and_read(&mut app, &rx, profiling_recipe(&pair));
    // The run recorded the suggestions' prediction for the plan it ran.
    let record = RunRecord::read(&out).expect("run.json");
    let recorded = record.predicted.expect("recorded");
    assert_eq!(recorded.basis, today.basis);
    let figures = |p: &skope::suggest::prediction::PlanPrediction| -> Vec<(String, f64)> {
        let rows = p.superkernels.iter();
        rows.map(|s| (s.segment.clone(), s.saving_us)).collect()
    };
    for (was, is) in figures(&recorded).iter().zip(figures(&today)) {
        // A figure read back from JSON, to its last bit or so.
        assert!(
            was.0 == is.0 && (was.1 - is.1).abs() < 1e-9,
            "{was:?} {is:?}"
        );
    }
    assert_eq!(recorded.superkernels.len(), today.superkernels.len());
    // Its profile opened, bound to its plan, each prediction beside what it measured.
    assert_eq!(app.up(), Some("profiles"), "{}", status(&app));
    let view = app.profile_view().unwrap();
    let foresight = view.foresight.as_ref().expect("checked");
    assert_eq!(foresight.run, out.display().to_string());
    assert_eq!(foresight.superkernels.len(), today.superkernels.len());
    // The pair the recipe copied was made with the plan before the accept: the accepted
    // scopes' SuperKernels did not run, so nothing is measured for them, and nothing invented.
    assert!(
        foresight
            .superkernels
            .iter()
            .all(|c| c.measured_us.is_none())
    );
    let text = screen(&app);
    assert!(
        text.contains("predicted before the run: 0/0 as judged"),
        "{text}"
    );
    let first = foresight.of(&today.superkernels[0].fused_node).unwrap();
    assert!(text.contains(&first.predicted_delta()), "{text}");
    let detail = details(first, "beneficial, the run did not build it");
    assert!(text.contains(&detail), "{text}");
    // The suggestions read the run's pair now; none of its plan's SuperKernels ran in it,
    // so there is nothing to fit, and the view does not pretend there is.
    assert!(suggested_again(&mut app, &rx, &out).is_none());
}

#[test]
fn a_run_started_before_any_suggestion_still_records_its_prediction() {
    let dir = scratch("tui-foresight-ask");
    let pair = dir.join("pair");
    copy_dir(&repo("assets/examples/prof_result"), &pair);
    let (mut app, rx) = with_profiles(&dir);
    let out = run_and_read(&mut app, &rx, profiling_recipe(&pair));
    let record = RunRecord::read(&out).expect("run.json");
    let predicted = record.predicted.expect("made where the run was prepared");
    assert_eq!(predicted.superkernels.len(), 13);
    assert!(predicted.fitted);
    // The plan the pair was made with: each SuperKernel's prediction beside what it measured.
    let foresight = app
        .profile_view()
        .unwrap()
        .foresight
        .clone()
        .expect("checked");
    assert_eq!(foresight.measurable, 12, "{foresight:?}");
    let text = screen(&app);
    assert!(
        text.contains(&format!("predicted before the run: {}", foresight.cell())),
        "{text}"
    );
    let attn = &foresight.superkernels[0];
    let line = text
        .lines()
        .find(|l| l.contains("attn_0 "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&attn.predicted_delta()), "{line}");
    // The selected SuperKernel (the worst, the regressed one) was predicted neutral.
    let worst = foresight
        .superkernels
        .iter()
        .find(|c| c.predicted.segment == "moe_1_split_54_56")
        .unwrap();
    let detail = details(worst, "neutral, measured ▲ +1.19");
    assert!(text.contains(&detail), "{text}");
    // At 80 columns the check stays whole in the title; the paths give way to it.
    app.handle(Msg::Resize(80, 24));
    let narrow = screen(&app);
    let check = format!("predicted before the run: {}", foresight.cell());
    assert!(narrow.contains(&check), "{narrow}");
    app.handle(Msg::Resize(140, 40));
    // The suggestions are fitted again on the run's pair, on the plan it ran.
    let fit = suggested_again(&mut app, &rx, &out);
    assert_eq!(fit.map(|f| f.segments), Some(12));
    // Without profiles read, nothing is predicted, and nothing is invented.
    let (mut bare, rx_bare) = app_with_events(140, 40);
    bare.runs.dir = Some(dir.join("bare-runs"));
    let out = run_and_read(&mut bare, &rx_bare, profiling_recipe(&pair));
    assert_eq!(RunRecord::read(&out).unwrap().predicted, None);
    let view = bare.profile_view().expect("its profile opened");
    assert!(view.foresight.is_none());
}
