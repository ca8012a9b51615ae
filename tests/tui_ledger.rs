//! The run ledger view (`C`): three recorded runs of the bundled example ordered by benefit
//! against the baseline run, the differing option named, sorted, a baseline chosen, a profile
//! added by path and then gone, two runs marked to open their profile comparison, and the
//! same ledger after a restart.

use crate::common::ledger_runs::{DUMP, copy_dir, three_runs};
use crate::common::{repo, scratch};
use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::app::{App, Msg};
use skope::tui::config::Config;
use skope::tui::ledger_view::LedgerView;
use std::path::Path;
use std::sync::mpsc::Receiver;

/// The explorer on the dump in `dir`, with the runs `skope compile` left beside it.
fn app_in(dir: &Path, w: u16, h: u16) -> (App, Receiver<Msg>) {
    let dump = dir.join(DUMP);
    let mut app = app_on(&dump.to_string_lossy(), w, h, Config::default());
    app.runs.dir = Some(dir.join(format!("{DUMP}.runs")));
    let (tx, rx) = std::sync::mpsc::channel();
    app.workers.events = Some(tx);
    (app, rx)
}

fn view(app: &App) -> &LedgerView {
    app.view_state::<LedgerView>().expect("the ledger view")
}

fn built(app: &App) -> bool {
    app.view_state::<LedgerView>()
        .is_some_and(|v| !v.building && v.ledger.is_some())
}

/// Opens the ledger and waits until it is built.
fn open_ledger(app: &mut App, rx: &Receiver<Msg>) {
    press(app, KeyCode::Char('C'));
    assert_eq!(app.up(), Some("ledger"));
    pump(app, rx, built);
}

fn order(app: &App) -> Vec<usize> {
    let ledger = view(app).ledger.as_ref().unwrap();
    ledger.rows.iter().map(|r| r.number).collect()
}

/// The screen with the parts that change from run to run (absolute paths, which the scratch
/// directory starts, and the start times) replaced.
fn redacted(app: &App, dir: &Path) -> String {
    let text = screen(app).replace(&dir.display().to_string(), "<dir>");
    let text = text.replace(" /", " <dir>");
    text.lines()
        .map(|line| {
            let mut out = line.to_string();
            while let Some(at) = out.find(" UTC") {
                let start = out[..at].char_indices().rev().nth(18).map_or(0, |(i, _)| i);
                out.replace_range(start..at + 4, "<time>");
            }
            // A path's length varies with the directory: what follows it is cut.
            if let Some(at) = out.find("<dir>") {
                out.truncate(at + "<dir>".len());
                out.push('…');
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_ledger_orders_runs_by_benefit_and_names_the_changed_option() {
    let dir = scratch("tui-ledger");
    three_runs(&dir);
    let (mut app, rx) = app_in(&dir, 140, 30);
    open_ledger(&mut app, &rx);
    assert_eq!(order(&app), [3, 2, 1]);
    let text = screen(&app);
    assert!(text.contains("baseline: run 1, the newest whose plan builds no SuperKernel"));
    assert!(text.contains("attn_0: stream-fusion=1 set"), "{text}");
    assert!(text.contains("+123.05 µs (19.69 %)"), "{text}");
    insta::assert_snapshot!("ledger_140x30", redacted(&app, &dir));
    let (mut small, rx_small) = app_in(&dir, 80, 24);
    open_ledger(&mut small, &rx_small);
    insta::assert_snapshot!("ledger_80x24", redacted(&small, &dir));

    // s: by median (the same here), then run order.
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(view(&app).sort.name(), "step-time");
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(order(&app), [1, 2, 3]);
    // The selection stays on its run when the order changes.
    let selected = view(&app).list.selected;
    assert_eq!(order(&app)[selected], 3);

    // B: run 2 as the baseline.
    press(&mut app, KeyCode::Char('k'));
    press(&mut app, KeyCode::Char('B'));
    pump(&mut app, &rx, built);
    let ledger = view(&app).ledger.clone().unwrap();
    assert_eq!(ledger.baseline, Some(2));
    assert!(ledger.row(1).unwrap().benefit.unwrap().saved_us < 0.0);

    // A restart: another explorer on the same dump reads the same records.
    let (mut again, rx2) = app_in(&dir, 140, 30);
    open_ledger(&mut again, &rx2);
    let first = {
        let (mut fresh, rx3) = app_in(&dir, 140, 30);
        open_ledger(&mut fresh, &rx3);
        view(&fresh).ledger.clone().unwrap()
    };
    assert_eq!(view(&again).ledger.as_ref(), Some(&first));
    assert_eq!(first.baseline, Some(1));
}

#[test]
fn two_marked_runs_open_their_profile_comparison() {
    let dir = scratch("tui-ledger-mark");
    three_runs(&dir);
    let (mut app, rx) = app_in(&dir, 120, 40);
    open_ledger(&mut app, &rx);
    // Rows by benefit: 3, 2, 1. Mark the baseline (run 1), then run 2.
    press(&mut app, KeyCode::Char('G'));
    press(&mut app, KeyCode::Char(' '));
    assert!(status(&app).contains("run 1 marked"), "{}", status(&app));
    press(&mut app, KeyCode::Char('k'));
    press(&mut app, KeyCode::Char(' '));
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    assert_eq!(app.up(), Some("profiles"), "{}", status(&app));
    let profiles = app.profile_view().unwrap();
    let change = profiles.diff.account.change_pct;
    assert!((change.unwrap() - 19.69).abs() < 0.01);
}

#[test]
fn a_profile_added_by_path_joins_and_a_gone_one_is_said() {
    let dir = scratch("tui-ledger-add");
    three_runs(&dir);
    let elsewhere = dir.join("elsewhere");
    copy_dir(&repo("assets/examples/prof_result/sk_model"), &elsewhere);
    let (mut app, rx) = app_in(&dir, 120, 40);
    open_ledger(&mut app, &rx);
    press(&mut app, KeyCode::Char('o'));
    keys(&mut app, &elsewhere.display().to_string());
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, built);
    assert!(
        status(&app).contains("as a run with the current plan"),
        "{}",
        status(&app)
    );
    let ledger = view(&app).ledger.clone().unwrap();
    let added = ledger.row(4).expect("the added run");
    assert_eq!(added.status, "added");
    assert!((added.benefit.unwrap().pct - 19.69).abs() < 0.01);

    std::fs::remove_dir_all(&elsewhere).unwrap();
    press(&mut app, KeyCode::Esc);
    open_ledger(&mut app, &rx);
    let at = order(&app).iter().position(|n| *n == 4).unwrap();
    for _ in 0..at {
        press(&mut app, KeyCode::Char('j'));
    }
    let text = screen(&app);
    assert!(text.contains("profile: gone — "), "{text}");
    // A run without a profile cannot be marked for a comparison.
    press(&mut app, KeyCode::Char(' '));
    assert!(status(&app).contains("run 4 has no profile to compare (gone)"));
}

#[test]
fn without_runs_the_ledger_says_how_to_make_one() {
    let dir = scratch("tui-ledger-empty");
    std::fs::copy(repo(&format!("assets/examples/{DUMP}")), dir.join(DUMP)).unwrap();
    let (mut app, rx) = app_in(&dir, 100, 24);
    open_ledger(&mut app, &rx);
    let text = screen(&app);
    assert!(
        text.contains("no runs recorded: run a recipe (c)"),
        "{text}"
    );
    insta::assert_snapshot!("ledger_empty_100x24", redacted(&app, &dir));
}
