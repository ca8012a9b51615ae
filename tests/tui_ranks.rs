//! The ranks view (`R` in the profile view): every rank at a glance, sorted by any column,
//! stragglers and regressions marked, enter opening a rank's comparison.

use crate::common::ledger_runs::{copy_dir, scaled};
use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::app::App;
use skope::tui::ranks_view::RanksView;

/// The bundled pair as 8 ranks under `root`: rank 5's SuperKernels take twice as long (they
/// regress, and it is the slowest), the others' 0.9–0.97 times as long.
fn eight_ranks(root: &std::path::Path) {
    let bundled = crate::common::repo("assets/examples/prof_result");
    for side in ["no_sk_model", "sk_model"] {
        let run = std::fs::read_dir(bundled.join(side))
            .unwrap()
            .flatten()
            .next()
            .unwrap()
            .path();
        for r in 0..8 {
            let to = root.join(side).join(format!("rank{r}_ascend_pt"));
            copy_dir(&run, &to);
            if side == "sk_model" {
                let kernels = to.join("ASCEND_PROFILER_OUTPUT/kernel_details.csv");
                let text = std::fs::read_to_string(&kernels).unwrap();
                let factor = if r == 5 { 2.0 } else { 0.9 + r as f64 / 100.0 };
                std::fs::write(&kernels, scaled(&text, factor)).unwrap();
            }
        }
    }
}

fn view(app: &App) -> &RanksView {
    app.view_state::<RanksView>().unwrap()
}

/// The rank on row `row` of the view, as drawn.
fn rank_on(app: &App, row: usize) -> u32 {
    let text = screen(app);
    let line = text
        .lines()
        .filter(|l| l.starts_with('┃'))
        .nth(row + 1)
        .unwrap_or_default()
        .to_string();
    line.trim_start_matches(['┃', ' '])
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no rank on row {row}: {line:?}\n{text}"))
}

#[test]
fn eight_ranks_sort_by_any_column_and_enter_opens_one() {
    let dir = crate::common::scratch("tui-ranks");
    eight_ranks(&dir);
    let (mut app, rx) = app_with_events(120, 40);
    crate::tui_profiles::open(&mut app, &rx, &dir.to_string_lossy());
    assert_eq!(app.up(), Some("profiles"), "{:?}", app.status);
    press(&mut app, KeyCode::Char('R'));
    assert_eq!(app.up(), Some("ranks"));
    let text = screen(&app);
    let superkernels = app
        .profile_view()
        .and_then(|v| v.ranks.as_ref())
        .map_or(0, |r| r.superkernels.len());
    assert!(superkernels >= 4, "{text}");
    assert!(
        text.contains(&format!("8 rank(s) × {superkernels} SuperKernel(s)")),
        "{text}"
    );
    // Rank 5's SuperKernels regressed, and it is the slowest.
    assert!(text.contains("⚑ slowest: rank 5"), "{text}");
    assert!(text.contains("   5 ⚑▲"), "{text}");
    assert_eq!(
        (0..8).map(|r| rank_on(&app, r)).collect::<Vec<_>>(),
        (0..8).collect::<Vec<_>>()
    );
    // The step time column, longest first: the straggler on top.
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(view(&app).sort, (1, true));
    assert_eq!(rank_on(&app, 0), 5);
    assert!(screen(&app).contains("sorted by step time, largest first"));
    // The first SuperKernel's column: the rank it cost most on first; again, the other way.
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(view(&app).column, 3);
    assert!(screen(&app).contains(": median Δ"), "{}", screen(&app));
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(rank_on(&app, 0), 5);
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(rank_on(&app, 7), 5);
    // The selected rank stays selected through a sort; enter opens its comparison.
    press(&mut app, KeyCode::Char('G'));
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(rank_on(&app, 0), 5, "sorted the other way again");
    assert_eq!(
        view(&app).rows.selection.selected,
        0,
        "rank 5 is still the one selected"
    );
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    assert_eq!(app.up(), Some("profiles"));
    assert_eq!(app.profile_view().unwrap().request.rank, Some(5));
    // Back to every rank: the same view, as it was left.
    press(&mut app, KeyCode::Char('R'));
    assert_eq!(view(&app).column, 3);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.up(), Some("profiles"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The explorer with the ranks view of a made-up comparison of `ranks` × `superkernels`.
fn made_up(ranks: u32, superkernels: usize, w: u16, h: u16) -> App {
    let mut app = app(w, h);
    crate::common::ranks_diff::show(&mut app, ranks, superkernels);
    app
}

#[test]
fn a_thousand_ranks_read_at_a_glance() {
    let mut app = made_up(1024, 64, 120, 40);
    insta::assert_snapshot!("ranks_120x40", screen(&app));
    // The SuperKernel columns scroll with the cursor; the last shows.
    for _ in 0..70 {
        press(&mut app, KeyCode::Char('l'));
    }
    let text = screen(&app);
    assert!(text.contains("layer7_moe_63: median Δ"), "{text}");
    // Sorted by the step time, largest first: the straggler on top.
    for _ in 0..70 {
        press(&mut app, KeyCode::Char('h'));
    }
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(rank_on(&app, 0), 17);
    insta::assert_snapshot!("ranks_80x24", screen(&made_up(1024, 64, 80, 24)));
}

#[test]
fn without_several_ranks_it_says_why() {
    let status = |app: &App| {
        app.status
            .as_ref()
            .map(|s| s.text.clone())
            .unwrap_or_default()
    };
    let mut app = app(120, 40);
    (skope::tui::ranks_view::VIEW.open)(&mut app);
    assert_ne!(app.up(), Some("ranks"));
    assert!(
        status(&app).contains("no profiles read"),
        "{}",
        status(&app)
    );
    // Profiles of one rank: the view is not opened on them either.
    let (mut app, rx) = app_with_events(120, 40);
    let bundled = crate::common::repo("assets/examples/prof_result");
    crate::tui_profiles::open(&mut app, &rx, &bundled.to_string_lossy());
    assert_eq!(app.up(), Some("profiles"), "{}", status(&app));
    (skope::tui::ranks_view::VIEW.open)(&mut app);
    assert_eq!(app.up(), Some("profiles"));
    assert!(
        status(&app).contains("the profiles hold one rank"),
        "{}",
        status(&app)
    );
}
