//! Editing scopes in the explorer: ranges, the edit keys, the picker and questions, the
//! options editor (with snapshots, validation errors included), undo/redo, saving, the journal
//! and quitting with unsaved edits.

use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEventKind};
use skope::fusion::marks::OpMark;
use skope::fusion::plan::ScopeStatus;
use skope::journal::{self, JournalEntry};
use skope::planfile::PlanFile;
use skope::tui::app::{App, Msg};
use skope::tui::dialog::Dialog;
use skope::tui::effect::Effect;
use skope::tui::tree::TreeId;

fn ctrl(app: &mut App, c: char) {
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
    )));
}

fn shift(app: &mut App, code: KeyCode) {
    app.handle(Msg::Key(KeyEvent::new(code, KeyModifiers::SHIFT)));
}

fn scope_status(app: &App, name: &str) -> Option<ScopeStatus> {
    let ex = app.explorer().unwrap();
    ex.ws
        .plan()
        .scopes
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.status)
}

fn mark(app: &App, op: &str) -> OpMark {
    let ex = app.explorer().unwrap();
    ex.ws.marks().get(ex.ws.graph().find(op).unwrap())
}

#[test]
fn a_range_kept_out_of_fusion_splits_the_scope_and_undo_redo_follow() {
    let mut app = app(120, 40);
    find(&mut app, "layer0_qkv_proj");
    press(&mut app, KeyCode::Char('v'));
    press(&mut app, KeyCode::Char('j'));
    shift(&mut app, KeyCode::Down);
    assert_eq!(app.explorer().unwrap().edit_ops().len(), 3);
    press(&mut app, KeyCode::Char('d'));
    assert!(
        status(&app).starts_with("3 ops kept out of fusion:"),
        "{}",
        status(&app)
    );
    for op in ["layer0_qkv_proj", "layer0_rope", "layer0_kv_scatter"] {
        assert_eq!(mark(&app, op), OpMark::DoNotFuse);
    }
    assert_eq!(scope_status(&app, "attn_0"), Some(ScopeStatus::Split));
    // The range is gone; the rows show what changed; the header says unsaved.
    assert!(!app.explorer().unwrap().selecting());
    let text = screen(&app);
    assert!(text.contains("6 s0 + ✗ layer0_qkv_proj"), "{text}");
    assert!(text.contains("● unsaved"), "{text}");
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(scope_status(&app, "attn_0"), Some(ScopeStatus::Fused));
    assert!(
        status(&app).starts_with("undone: 3 ops kept out of fusion"),
        "{}",
        status(&app)
    );
    assert!(screen(&app).contains("6 s0 − ┃ layer0_qkv_proj"));
    assert!(!screen(&app).contains("● unsaved"));
    ctrl(&mut app, 'r');
    assert_eq!(scope_status(&app, "attn_0"), Some(ScopeStatus::Split));
    press(&mut app, KeyCode::Char('u'));
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(status(&app), "nothing to undo");
}

#[test]
fn the_picker_assigns_an_op_and_heals_its_break() {
    let mut app = app(120, 40);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('a'));
    assert!(matches!(app.dialog, Some(Dialog::Pick(_))));
    keys(&mut app, "attn_2");
    let text = screen(&app);
    assert!(text.contains("Put 1 op(s) into a scope"), "{text}");
    assert!(text.contains("› attn_2▏"), "{text}");
    press(&mut app, KeyCode::Enter);
    assert!(app.dialog.is_none());
    assert_eq!(scope_status(&app, "attn_2"), Some(ScopeStatus::Fused));
    assert!(
        status(&app).contains("1 break(s) healed"),
        "{}",
        status(&app)
    );
    assert!(
        status(&app).contains("attn_2 split → fused"),
        "{}",
        status(&app)
    );
    assert!(screen(&app).contains("74 s0 − ┃ layer2_mask_fill"));
}

#[test]
fn new_rename_merge_and_delete_scopes_from_the_keys() {
    let mut app = app(120, 40);
    // A new scope of two ops, named in the prompt.
    find(&mut app, "layer3_gate");
    press(&mut app, KeyCode::Char('v'));
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('s'));
    assert!(screen(&app).contains("new scope name: scope_1▏  2 op(s)"));
    ctrl(&mut app, 'u');
    keys(&mut app, "router_3");
    press(&mut app, KeyCode::Enter);
    assert!(matches!(mark(&app, "layer3_gate"), OpMark::Member { .. }));
    assert_eq!(scope_status(&app, "router_3"), Some(ScopeStatus::Fused));
    assert_eq!(scope_status(&app, "moe_3"), Some(ScopeStatus::Split));
    // A name already taken is refused with the reason, and nothing changes.
    press(&mut app, KeyCode::Char('s'));
    ctrl(&mut app, 'u');
    keys(&mut app, "moe_2");
    press(&mut app, KeyCode::Enter);
    assert!(
        status(&app).contains("scope \"moe_2\" already exists"),
        "{}",
        status(&app)
    );
    // Rename from the tree.
    press(&mut app, KeyCode::BackTab);
    let ex = app.explorer().unwrap();
    assert!(matches!(ex.tree.selected().first(), Some(TreeId::Scope(_))));
    press(&mut app, KeyCode::Char('r'));
    ctrl(&mut app, 'u');
    keys(&mut app, "router_three");
    press(&mut app, KeyCode::Enter);
    assert_eq!(scope_status(&app, "router_3"), None);
    assert_eq!(scope_status(&app, "router_three"), Some(ScopeStatus::Fused));
    // Merge it back into moe_3: moe_3 whole again.
    press(&mut app, KeyCode::Char('m'));
    keys(&mut app, "moe_3");
    press(&mut app, KeyCode::Enter);
    assert_eq!(scope_status(&app, "router_three"), None);
    assert_eq!(scope_status(&app, "moe_3"), Some(ScopeStatus::Fused));
    // Delete asks first; n keeps it, y deletes.
    find(&mut app, "layer3_gate");
    press(&mut app, KeyCode::Char('D'));
    assert!(screen(&app).contains("Delete scope moe_3?"));
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(scope_status(&app, "moe_3"), Some(ScopeStatus::Fused));
    press(&mut app, KeyCode::Char('D'));
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(scope_status(&app, "moe_3"), None);
    assert_eq!(mark(&app, "layer3_gate"), OpMark::Unscoped);
    assert!(
        status(&app).contains("moe_3 fused → gone"),
        "{}",
        status(&app)
    );
    // Undo brings it back: it was gone, not new.
    press(&mut app, KeyCode::Char('u'));
    assert!(
        status(&app).contains("moe_3 gone → fused"),
        "{}",
        status(&app)
    );
    press(&mut app, KeyCode::Char('D'));
    press(&mut app, KeyCode::Char('y'));
    // Scope edits need a scope.
    find(&mut app, "input_hidden");
    press(&mut app, KeyCode::Char('r'));
    assert!(status(&app).contains("select a scope"), "{}", status(&app));
}

#[test]
fn the_options_editor_cycles_types_checks_and_changes_the_plan() {
    let mut app = app(120, 40);
    find(&mut app, "layer1_gate");
    press(&mut app, KeyCode::Char('o'));
    assert!(app.explorer().unwrap().options.is_some());
    // strict-scope-check: unset → bypass → abort; one undo step.
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(scope_status(&app, "moe_1"), Some(ScopeStatus::Dropped));
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(scope_status(&app, "moe_1"), Some(ScopeStatus::Aborted));
    assert!(
        status(&app).contains("moe_1 dropped → aborted"),
        "{}",
        status(&app)
    );
    let text = screen(&app);
    assert!(
        text.contains("raw  stream-fusion=1:strict-scope-check=abort"),
        "{text}"
    );
    assert!(text.contains("1 error"), "{text}");
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(scope_status(&app, "moe_1"), Some(ScopeStatus::Split));
    // x unsets; a typed value is checked, and a bad one stays out with GE's words.
    press(&mut app, KeyCode::Char('G'));
    for _ in 0..5 {
        press(&mut app, KeyCode::Char('k'));
    }
    let editor = app.explorer().unwrap().options.clone().unwrap();
    let skope::tui::options_editor::Row::Field(spec) = editor.selected() else {
        panic!("on a field");
    };
    assert_eq!(spec.key, "split-mode");
    press(&mut app, KeyCode::Enter);
    keys(&mut app, "65");
    assert!(screen(&app).contains("(0, 64]"));
    press(&mut app, KeyCode::Enter);
    assert!(status(&app).contains("GE:"), "{}", status(&app));
    assert_eq!(
        app.explorer().unwrap().options.as_ref().unwrap().text,
        "stream-fusion=1"
    );
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert!(app.explorer().unwrap().options.is_none());
}

#[test]
fn snapshot_options_editor() {
    for (w, h) in [(120, 40), (80, 24)] {
        let mut app = app(w, h);
        find(&mut app, "layer1_gate");
        press(&mut app, KeyCode::Char('o'));
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Char('l'));
        insta::assert_snapshot!(format!("options_{w}x{h}"), screen(&app));
        // A value that does not pass the compiler's check (split-mode), while typing.
        press(&mut app, KeyCode::Char('G'));
        for _ in 0..5 {
            press(&mut app, KeyCode::Char('k'));
        }
        press(&mut app, KeyCode::Enter);
        keys(&mut app, "0");
        insta::assert_snapshot!(format!("options_invalid_{w}x{h}"), screen(&app));
    }
}

#[test]
fn snapshot_picker_and_quit_question() {
    // The question names the plan's path, and wraps by its length: a directory of this
    // process alone (tests run at once) whose path is as long whatever the process id.
    let dir = std::env::temp_dir().join(format!("skope-{:09}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (w, h) in [(120, 40), (80, 24)] {
        let plan = dir.join(format!("quit_{w}x{h}.skope.json"));
        // A run stopped half-way may have left its plan and journal.
        let _ = std::fs::remove_file(&plan);
        let _ = std::fs::remove_file(journal::path(&plan));
        let mut app = crate::ui::app_with_plan(&plan, w, h);
        find(&mut app, "layer2_mask_fill");
        press(&mut app, KeyCode::Char('a'));
        keys(&mut app, "attn");
        insta::assert_snapshot!(format!("picker_{w}x{h}"), screen(&app));
        keys(&mut app, "_2");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('q'));
        insta::assert_snapshot!(
            format!("quit_unsaved_{w}x{h}"),
            screen(&app).replace(dir.to_str().unwrap(), "$TMP")
        );
        // The quit key again does not throw the edits away; d does (and leaves nothing
        // behind for the next run).
        press(&mut app, KeyCode::Char('q'));
        assert!(!app.effects.contains(&Effect::Quit));
        press(&mut app, KeyCode::Char('q'));
        press(&mut app, KeyCode::Char('d'));
        assert!(app.effects.contains(&Effect::Quit));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn saving_quitting_and_the_journal() {
    let mut app = app(120, 40);
    let plan = app.session.plan_path.clone();
    let journal = journal::path(&plan);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('d'));
    // Every edit is in the journal at once, after the line naming the graph.
    let entries = journal::read(&journal).unwrap().entries;
    assert_eq!(entries.len(), 2);
    assert!(
        matches!(&entries[0], JournalEntry::Start { graph, base: None, .. } if graph.ops == 137)
    );
    // Quitting asks; c stays.
    press(&mut app, KeyCode::Char('q'));
    press(&mut app, KeyCode::Char('c'));
    assert!(!app.effects.contains(&Effect::Quit));
    // w saves: the plan file has the edit, the journal is emptied, nothing is unsaved.
    press(&mut app, KeyCode::Char('w'));
    assert!(
        status(&app).starts_with("saved 8 scope(s) to"),
        "{}",
        status(&app)
    );
    let saved = PlanFile::read(&plan).unwrap();
    assert!(saved.do_not_fuse.contains(&"layer2_mask_fill".to_string()));
    assert_eq!(journal::read(&journal).unwrap().entries.len(), 0);
    press(&mut app, KeyCode::Char('q'));
    assert!(app.effects.contains(&Effect::Quit));
    assert!(!journal.exists());
}

#[test]
fn an_unfinished_session_is_offered_back_and_replayed() {
    // A session that saved once and then stopped after two more edits.
    let mut first = app(120, 40);
    let plan = first.session.plan_path.clone();
    find(&mut first, "layer2_mask_fill");
    press(&mut first, KeyCode::Char('d'));
    press(&mut first, KeyCode::Char('w'));
    find(&mut first, "layer0_rope");
    press(&mut first, KeyCode::Char('x'));
    press(&mut first, KeyCode::Char('u'));
    press(&mut first, KeyCode::Char('d'));
    let expected = first.explorer().unwrap().ws.plan().clone();
    // No clean exit: the journal stays (its lock goes with the process). The next start
    // offers it.
    drop(first);
    let mut app = crate::ui::app_with_plan(&plan, 120, 40);
    let text = screen(&app);
    assert!(text.contains("did not end cleanly"), "{text}");
    assert!(text.contains("3 edit(s) to recover"), "{text}");
    press(&mut app, KeyCode::Char('r'));
    assert_eq!(app.explorer().unwrap().ws.plan(), &expected);
    assert!(
        status(&app).starts_with("recovered 3 edit(s)"),
        "{}",
        status(&app)
    );
    // Discarding empties the journal and keeps the saved plan.
    drop(app);
    let mut again = crate::ui::app_with_plan(&plan, 120, 40);
    press(&mut again, KeyCode::Char('d'));
    assert_eq!(journal::read(&journal::path(&plan)).unwrap().entries, []);
    assert_eq!(mark(&again, "layer2_mask_fill"), OpMark::DoNotFuse);
    assert!(matches!(mark(&again, "layer0_rope"), OpMark::Member { .. }));
}

#[test]
fn dragging_the_mouse_over_the_list_selects_a_range() {
    let mut app = app(120, 40);
    let areas = app.explorer().unwrap().areas;
    let x = areas.ops.x + 10;
    let top = areas.ops.y + 2;
    click(
        &mut app,
        x,
        top + 5,
        MouseEventKind::Down(MouseButton::Left),
    );
    click(
        &mut app,
        x,
        top + 7,
        MouseEventKind::Drag(MouseButton::Left),
    );
    let ops = app.explorer().unwrap().edit_ops();
    let names: Vec<String> = ops
        .iter()
        .map(|&id| app.explorer().unwrap().ws.graph().op(id).name.clone())
        .collect();
    assert_eq!(
        names,
        ["layer0_input_rmsnorm", "layer0_qkv_proj", "layer0_rope"]
    );
    // A plain click drops the range.
    click(
        &mut app,
        x,
        top + 9,
        MouseEventKind::Down(MouseButton::Left),
    );
    assert_eq!(app.explorer().unwrap().edit_ops().len(), 1);
}

/// A compiled GE dump: scope attn (q, k) would fuse; scope moe has strict-scope-check=abort
/// and the unscoped `gap` between its ops, so GE fails the whole build.
const ABORTING: &str = concat!(
    "graph {\n  name: \"g\"\n",
    "  op { name: \"q\" type: \"MatMulV2\" id: 0\n",
    "    attr { key: \"_super_kernel_scope\" value { s: \"attn\" } }\n",
    "    attr { key: \"supportSuperKernel\" value { i: 1 } } }\n",
    "  op { name: \"k\" type: \"MatMulV2\" id: 1 input: \"q:0\"\n",
    "    attr { key: \"_super_kernel_scope\" value { s: \"attn\" } }\n",
    "    attr { key: \"supportSuperKernel\" value { i: 1 } } }\n",
    "  op { name: \"a\" type: \"Add\" id: 2 input: \"k:0\"\n",
    "    attr { key: \"_super_kernel_scope\" value { s: \"moe\" } }\n",
    "    attr { key: \"_super_kernel_options\" value { s: \"strict-scope-check=abort\" } }\n",
    "    attr { key: \"supportSuperKernel\" value { i: 1 } } }\n",
    "  op { name: \"gap\" type: \"Mul\" id: 3 input: \"a:0\"\n",
    "    attr { key: \"supportSuperKernel\" value { i: 1 } } }\n",
    "  op { name: \"b\" type: \"Add\" id: 4 input: \"gap:0\"\n",
    "    attr { key: \"_super_kernel_scope\" value { s: \"moe\" } }\n",
    "    attr { key: \"_super_kernel_options\" value { s: \"strict-scope-check=abort\" } }\n",
    "    attr { key: \"supportSuperKernel\" value { i: 1 } } }\n",
    "}\n"
);

#[test]
fn a_failed_build_is_said_first_and_fixing_it_brings_the_segments_back() {
    let path = temp_dump("aborting.ge_proto.txt", ABORTING);
    for (w, h) in [(80, 24), (120, 40)] {
        let app = app_on(&path, w, h, skope::tui::config::Config::default());
        let text = screen(&app);
        let header = text.lines().next().unwrap();
        assert!(header.contains("✗ build fails"), "{header}");
        // The strip's rows say why and what to change, where the segments would be.
        assert!(
            text.contains("✗ build fails: scope moe has strict-scope-check=abort and gap (Mul)"),
            "{text}"
        );
        insta::assert_snapshot!(format!("build_fails_{w}x{h}"), text.replace(&path, "$DUMP"));
    }
    let mut app = app_on(&path, 120, 40, skope::tui::config::Config::default());
    let plan = app.explorer().unwrap().ws.plan();
    assert_eq!(plan.segment_count(), 0);
    assert_eq!(scope_status(&app, "attn"), Some(ScopeStatus::NotBuilt));
    // Put the breaking op into the scope: the build no longer fails, attn fuses again.
    find(&mut app, "gap");
    press(&mut app, KeyCode::Char('a'));
    keys(&mut app, "moe");
    press(&mut app, KeyCode::Enter);
    assert!(
        status(&app).contains("✓ the build no longer fails"),
        "{}",
        status(&app)
    );
    assert_eq!(app.explorer().unwrap().ws.plan().segment_count(), 2);
    assert_eq!(scope_status(&app, "attn"), Some(ScopeStatus::Fused));
    assert!(!screen(&app).contains("build fails"));
    // Undo fails it again; setting the option to bypass instead drops only moe.
    press(&mut app, KeyCode::Char('u'));
    assert!(
        status(&app).contains("✗ the build now fails"),
        "{}",
        status(&app)
    );
    assert!(
        status(&app).contains("1 scope(s) not built"),
        "{}",
        status(&app)
    );
    find(&mut app, "b");
    press(&mut app, KeyCode::Char('o'));
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Char('h'));
    assert_eq!(scope_status(&app, "moe"), Some(ScopeStatus::Dropped));
    assert_eq!(scope_status(&app, "attn"), Some(ScopeStatus::Fused));
    assert_eq!(app.explorer().unwrap().ws.plan().segment_count(), 1);
}

#[test]
fn a_name_the_prompt_offers_is_replaced_by_the_first_key_typed() {
    let mut app = app(120, 40);
    find(&mut app, "layer3_gate");
    press(&mut app, KeyCode::Char('s'));
    let text = screen(&app);
    assert!(text.contains("new scope name: scope_1▏  1 op(s)"), "{text}");
    assert!(text.contains("typing replaces it"), "{text}");
    keys(&mut app, "attn_1b");
    assert!(
        screen(&app).contains("new scope name: attn_1b▏"),
        "{}",
        screen(&app)
    );
    press(&mut app, KeyCode::Enter);
    assert!(scope_status(&app, "attn_1b").is_some());
    // Rename offers the scope's name: backspace clears it, then typing goes on as usual.
    press(&mut app, KeyCode::Char('r'));
    assert!(
        screen(&app).contains("rename to: attn_1b▏"),
        "{}",
        screen(&app)
    );
    press(&mut app, KeyCode::Backspace);
    keys(&mut app, "gate");
    press(&mut app, KeyCode::Backspace);
    keys(&mut app, "e_3");
    press(&mut app, KeyCode::Enter);
    assert!(scope_status(&app, "gate_3").is_some(), "{}", status(&app));
    // Enter alone takes what is offered.
    find(&mut app, "layer3_shared_up");
    press(&mut app, KeyCode::Char('s'));
    press(&mut app, KeyCode::Enter);
    assert!(scope_status(&app, "scope_1").is_some(), "{}", status(&app));
}
