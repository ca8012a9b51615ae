//! The explorer keeps the user's work and writes only where asked: a plan path that is a link
//! to something else or the dump itself is named before anything is written, a dump loaded
//! again keeps the unsaved scopes, a plan made for an older dump lists what saving drops, and
//! there is always somewhere to save.

use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use ratatui::layout::Rect;
use skope::fusion::marks::OpMark;
use skope::fusion::rules::RuleConfig;
use skope::journal::{self, JournalEntry};
use skope::load::LoadOptions;
use skope::open::Input;
use skope::planfile::PlanFile;
use skope::tui::app::{App, Msg};
use skope::tui::config::Config;
use skope::tui::effect::Effect;
use skope::tui::loader::{self, LoadRequest, PlanPath};
use std::path::{Path, PathBuf};

/// A copy of the bundled example in a fresh folder.
fn dump_copy(tag: &str) -> (PathBuf, PathBuf) {
    let dir = crate::common::scratch(tag);
    let dump = dir.join("m.txt");
    std::fs::copy(EXAMPLE, &dump).unwrap();
    (dir, dump)
}

/// An app that loaded `dump` as the explorer does, saving to `plan` (applied when `given`
/// and there), able to load the dump again.
fn app_loading(dump: &Path, plan: PathBuf, given: bool) -> App {
    let mut app = skope::tui::new_app(
        Config::default(),
        Rect::new(0, 0, 120, 40),
        &dump.to_string_lossy(),
        plan.clone(),
    );
    app.runs.dir = Some(plan.with_extension("runs"));
    let request = LoadRequest {
        input: Input::File(dump.to_path_buf()),
        plan: if given {
            PlanPath::given(plan, false)
        } else {
            PlanPath::of_dump(&dump.to_string_lossy())
        },
        options: LoadOptions::default(),
        rules: RuleConfig::default(),
        kernel_meta: Vec::new(),
        op_sources: Vec::new(),
        again: false,
    };
    app.reload = Some(request.clone());
    let loaded = loader::load(request, &mut |_| {}).map(Box::new);
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(loaded)));
    app
}

fn mark(app: &App, op: &str) -> OpMark {
    let ws = &app.explorer().unwrap().ws;
    ws.marks().get(ws.graph().find(op).unwrap())
}

fn ctrl(app: &mut App, c: char) {
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )));
}

fn question(app: &App) -> String {
    match &app.dialog {
        Some(skope::tui::dialog::Dialog::Confirm(c)) => c.question.clone(),
        other => panic!("no question: {other:?}"),
    }
}

#[test]
fn a_plan_path_linked_to_a_file_that_is_not_a_plan_is_named_with_its_target_before_writing() {
    let (dir, dump) = dump_copy("tui-files-link");
    let notes = dir.join("notes.txt");
    std::fs::write(&notes, "my notes\n").unwrap();
    let plan = dir.join("m.txt.skope.json");
    std::os::unix::fs::symlink(&notes, &plan).unwrap();
    let mut app = app_loading(&dump, plan.clone(), false);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('w'));
    let asked = question(&app);
    assert!(
        asked.contains(&format!("{} is a symbolic link to", plan.display()))
            && asked.contains("notes.txt, which is not a skope plan file"),
        "{asked}"
    );
    press(&mut app, KeyCode::Char('c'));
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
}

#[test]
fn the_dump_given_as_the_plan_file_is_never_written_over() {
    let (dir, dump) = dump_copy("tui-files-dump-as-plan");
    let before = std::fs::read(&dump).unwrap();
    let mut app = app_loading(&dump, dump.clone(), true);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('w'));
    assert!(
        status(&app).contains("is the dump this window opened"),
        "{}",
        status(&app)
    );
    assert_eq!(std::fs::read(&dump).unwrap(), before);
    // It asks where instead.
    assert!(app.prompt.is_some());
    keys(&mut app, &dir.join("mine.skope.json").to_string_lossy());
    press(&mut app, KeyCode::Enter);
    assert!(status(&app).starts_with("saved"), "{}", status(&app));
    assert!(PlanFile::read(&dir.join("mine.skope.json")).is_ok());
    assert_eq!(std::fs::read(&dump).unwrap(), before);
}

#[test]
fn with_nowhere_to_save_the_user_is_asked_where_and_w_saves_there_after() {
    let (dir, dump) = dump_copy("tui-files-nowhere");
    // A plan file where nothing can be written.
    let mut app = app_loading(&dump, PathBuf::from("/proc/skope/plan.skope.json"), true);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('w'));
    assert!(
        status(&app).contains("ctrl-s saves to another file"),
        "{}",
        status(&app)
    );
    // The quit question offers it too.
    press(&mut app, KeyCode::Char('q'));
    assert!(screen(&app).contains("a save elsewhere and quit…"));
    press(&mut app, KeyCode::Char('c'));
    ctrl(&mut app, 's');
    let target = dir.join("kept.skope.json");
    keys(&mut app, &target.to_string_lossy());
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        status(&app),
        format!("saved 8 scope(s) to {}", target.display())
    );
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('w'));
    assert!(status(&app).starts_with("saved"), "{}", status(&app));
    let saved = PlanFile::read(&target).unwrap();
    assert!(saved.do_not_fuse.contains(&"layer0_rope".to_string()));
}

#[test]
fn a_plan_made_for_an_older_dump_lists_the_ops_saving_drops() {
    let (dir, dump) = dump_copy("tui-files-older");
    let plan = dir.join("m.txt.skope.json");
    let ws = crate::common::workspace(EXAMPLE);
    let mut older = PlanFile::of(&ws);
    older.graph.fingerprint = "0123456789abcdef".into();
    older.scopes[0].ops.push("layer0_gone_op".into());
    older.write(&plan).unwrap();
    let mut app = app_loading(&dump, plan.clone(), true);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('d'));
    press(&mut app, KeyCode::Char('w'));
    let asked = question(&app);
    assert!(
        asked.contains(
            "Its scopes name 1 op(s) this graph lacks (layer0_gone_op): replacing it drops them"
        ),
        "{asked}"
    );
}

#[test]
fn a_dump_loaded_again_keeps_the_unsaved_edits_and_its_journal() {
    let (_dir, dump) = dump_copy("tui-files-reload");
    let plan = PlanPath::of_dump(&dump.to_string_lossy()).path;
    let mut app = app_loading(&dump, plan.clone(), false);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('d'));
    let journal_path = journal::path(&plan);
    assert!(journal_path.is_file());
    // The dump changes on disk: an op of a scope is renamed.
    let text = std::fs::read_to_string(&dump).unwrap();
    std::fs::write(&dump, text.replace("layer0_rope", "layer0_rope_v2")).unwrap();
    let request = app.load_again().expect("a dump is loaded");
    let loaded = loader::load(request, &mut |_| {}).map(Box::new);
    app.handle(Msg::from(skope::tui::loader::LoadEvent::Loaded(loaded)));
    let ex = app.explorer().unwrap();
    assert!(ex.ws.is_dirty(), "still unsaved");
    assert_eq!(mark(&app, "layer2_mask_fill"), OpMark::DoNotFuse);
    let said: Vec<String> = app.messages.iter().map(|(_, s)| s.text.clone()).collect();
    assert!(said.iter().any(|m| m.contains("carried over")), "{said:?}");
    assert!(
        said.iter()
            .any(|m| m.contains("op layer0_rope of scope attn_0 is not in this graph")),
        "{said:?}"
    );
    // Its own journal, started again on the new graph with the scopes.
    let records = journal::read(&journal_path).unwrap();
    match &records.entries[..] {
        [
            JournalEntry::Start { graph, .. },
            JournalEntry::Scopes { .. },
        ] => {
            assert_eq!(graph, &app.explorer().unwrap().ws.source().id)
        }
        other => panic!("{other:?}"),
    }
    assert!(!journal::path(&plan).with_extension("journal.2").exists());
    // q asks: the edits are unsaved.
    press(&mut app, KeyCode::Char('q'));
    assert!(!app.effects.contains(&Effect::Quit));
    assert!(question(&app).contains("unsaved edits"));
    // Killed now: the next window recovers them.
    drop(app);
    let mut next = app_loading(&dump, plan, false);
    assert!(question(&next).contains("did not end cleanly"));
    press(&mut next, KeyCode::Char('r'));
    assert_eq!(mark(&next, "layer2_mask_fill"), OpMark::DoNotFuse);
    assert!(next.explorer().unwrap().ws.is_dirty());
}
