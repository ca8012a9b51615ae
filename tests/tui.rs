//! The explorer's screens on the bundled example, drawn with ratatui's `TestBackend`: insta
//! snapshots of every view at 120×40 and 80×24, and the behaviour behind them (list and tree
//! in step, break jumps, search, filter, mouse, resize, sanitising, NO_COLOR).

mod common;
mod ui;

mod tui_aclgraph;
mod tui_code;
mod tui_compare;
mod tui_dataflow;
mod tui_edit;
mod tui_files;
mod tui_findings;
mod tui_foresight;
mod tui_inside;
mod tui_ledger;
mod tui_mindspore;
mod tui_palette;
mod tui_profiles;
mod tui_ranks;
mod tui_reading;
mod tui_runs;
mod tui_static;
mod tui_suggest;
mod tui_timeline;
mod tui_views;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEventKind};
use ratatui::layout::Rect;
use ratatui::style::Color;
use skope::tui::app::{App, Msg, Screen, Stage};
use skope::tui::config::Config;
use skope::tui::effect::Effect;
use skope::tui::explorer::{Pane, Subject};
use skope::tui::tree::TreeId;
use skope::tui::views;
use std::path::PathBuf;
use std::time::Duration;
use ui::*;

/// Snapshots one view at both sizes; `setup` brings the app to the view.
fn snapshot_both(name: &str, setup: impl Fn(&mut App)) {
    for (w, h) in [(120, 40), (80, 24)] {
        let mut app = app(w, h);
        setup(&mut app);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen(&app));
    }
}

#[test]
fn snapshot_start() {
    snapshot_both("start", |_| {});
}

#[test]
fn snapshot_first_break() {
    snapshot_both("first_break", |app| press(app, KeyCode::Char(']')));
}

#[test]
fn snapshot_scope_selected_in_the_tree() {
    snapshot_both("scope_in_tree", |app| {
        // The first key selects the first row (the list's op is outside every scope).
        press(app, KeyCode::BackTab);
        press(app, KeyCode::Down);
        press(app, KeyCode::Down);
        press(app, KeyCode::Down);
    });
}

#[test]
fn snapshot_segment_opened_in_the_tree() {
    snapshot_both("segment_in_tree", |app| {
        press(app, KeyCode::BackTab);
        press(app, KeyCode::Down);
        press(app, KeyCode::Down);
        press(app, KeyCode::Enter);
        press(app, KeyCode::Down);
    });
}

#[test]
fn snapshot_help() {
    snapshot_both("help", |app| press(app, KeyCode::Char('?')));
}

#[test]
fn snapshot_search_prompt() {
    snapshot_both("search", |app| {
        press(app, KeyCode::Char('/'));
        keys(app, "type:Cast");
    });
}

#[test]
fn snapshot_breaks_only() {
    snapshot_both("breaks_only", |app| press(app, KeyCode::Char('b')));
}

#[test]
fn snapshot_loading() {
    for (w, h) in [(120, 40), (80, 24)] {
        let mut app = skope::tui::new_app(
            Config::default(),
            Rect::new(0, 0, w, h),
            "big.ge_proto.txt",
            PathBuf::from("big.ge_proto.txt.skope.json"),
        );
        app.handle(Msg::from(skope::tui::loader::LoadEvent::Progress(
            Stage::Reading {
                done: 40_000_000,
                total: 100_000_000,
            },
        )));
        app.handle(Msg::Tick(Duration::from_millis(1500)));
        insta::assert_snapshot!(format!("loading_{w}x{h}"), screen(&app));
    }
}

#[test]
fn snapshot_load_error() {
    for (w, h) in [(120, 40), (80, 24)] {
        let app = app_on("tests/no_such_dump.txt", w, h, Config::default());
        assert!(matches!(app.screen, Screen::Failed { .. }));
        insta::assert_snapshot!(format!("load_error_{w}x{h}"), screen(&app));
    }
}

#[test]
fn snapshot_too_small() {
    let app = app(50, 12);
    insta::assert_snapshot!("too_small_50x12", screen(&app));
}

#[test]
fn list_and_tree_select_the_same_op_both_ways() {
    let mut app = app(120, 40);
    // In the list: the first break is moe_0's MoeInitRoutingV2; the tree selects that break.
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(selected_name(&app), "layer0_init_routing");
    let ex = app.explorer().unwrap();
    assert_eq!(ex.tree.selected(), [TreeId::Scope(1), TreeId::Break(0)]);
    // Down to a fused op: the tree opens its segment and selects it there.
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(selected_name(&app), "layer0_gmm_up");
    let ex = app.explorer().unwrap();
    let id = ex.selected_op().unwrap();
    assert_eq!(
        ex.tree.selected(),
        [TreeId::Scope(1), TreeId::Segment(1), TreeId::Op(id)]
    );
    assert_eq!(ex.subject(), Subject::Op(id));
    // In the tree: moving up selects the break again, and the list follows.
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.explorer().unwrap().focus, Pane::Scopes);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    assert_eq!(
        app.explorer().unwrap().tree.selected(),
        [TreeId::Scope(1), TreeId::Break(0)]
    );
    assert_eq!(selected_name(&app), "layer0_init_routing");
    // A scope node shows the scope and puts the list on its first fused op.
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Char('h'));
    let ex = app.explorer().unwrap();
    assert_eq!(ex.tree.selected(), [TreeId::Scope(1)]);
    assert_eq!(ex.subject(), Subject::Scope(1));
    assert_eq!(selected_name(&app), "layer0_post_rmsnorm");
}

#[test]
fn break_jumps_visit_every_break_in_order_and_wrap_as_search_does() {
    let mut app = app(120, 40);
    let mut seen = Vec::new();
    for _ in 0..5 {
        press(&mut app, KeyCode::Char(']'));
        seen.push(selected_name(&app));
    }
    assert_eq!(
        seen,
        [
            "layer0_init_routing",
            "layer1_expert_ids_cast",
            "layer1_expert_broadcast",
            "layer2_mask_fill",
            "layer3_kv_scatter"
        ]
    );
    // Past the last break, `]` wraps to the first (as `n` does), saying so.
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(selected_name(&app), "layer0_init_routing");
    let status = app.status.clone().unwrap();
    assert!(
        !status.problem && status.text == "wrapped to the first break in the list",
        "{status:?}"
    );
    press(&mut app, KeyCode::Char('['));
    assert_eq!(selected_name(&app), "layer3_kv_scatter");
    assert!(screen(&app).contains("wrapped to the last break in the list"));
    app.status = None;
    press(&mut app, KeyCode::Char('['));
    assert_eq!(selected_name(&app), "layer2_mask_fill");
    assert_eq!(app.status, None);
    // Segments: from the top, `}` lands on each segment's first op.
    press(&mut app, KeyCode::Char('g'));
    press(&mut app, KeyCode::Char('}'));
    assert_eq!(selected_name(&app), "layer0_input_rmsnorm");
    press(&mut app, KeyCode::Char('}'));
    assert_eq!(selected_name(&app), "layer0_post_rmsnorm");
    press(&mut app, KeyCode::Char('}'));
    assert_eq!(selected_name(&app), "layer0_gmm_up");
}

#[test]
fn search_jumps_to_matches_and_cancel_restores_the_selection() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "rmsnorm");
    assert_eq!(selected_name(&app), "layer0_input_rmsnorm");
    assert!(screen(&app).contains("/rmsnorm▏  9 match(es)"));
    press(&mut app, KeyCode::Enter);
    assert!(app.prompt.is_none());
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(selected_name(&app), "layer0_post_rmsnorm");
    press(&mut app, KeyCode::Char('N'));
    press(&mut app, KeyCode::Char('N'));
    // Wraps to the last match.
    assert_eq!(selected_name(&app), "final_rmsnorm");
    // Fields and smart case: reason: finds the SIMT break; an upper-case term is exact.
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Backspace);
    for _ in 0..10 {
        press(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "reason:simt");
    assert_eq!(selected_name(&app), "layer3_kv_scatter");
    press(&mut app, KeyCode::Esc);
    assert_eq!(selected_name(&app), "final_rmsnorm");
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "type:CAST");
    assert!(screen(&app).contains("0 match(es)"));
}

#[test]
fn filter_and_breaks_only_narrow_the_list_and_clear_again() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(app.explorer().unwrap().rows().len(), 5);
    press(&mut app, KeyCode::Char('f'));
    keys(&mut app, "scope:moe");
    press(&mut app, KeyCode::Enter);
    let names: Vec<String> = {
        let ex = app.explorer().unwrap();
        ex.rows()
            .iter()
            .map(|&id| ex.ws.graph().op(id).name.clone())
            .collect()
    };
    assert_eq!(
        names,
        [
            "layer0_init_routing",
            "layer1_expert_ids_cast",
            "layer1_expert_broadcast"
        ]
    );
    assert!(screen(&app).contains("Ops 3 of 137 · filter \"scope:moe\" · breaks only"));
    press(&mut app, KeyCode::Char('F'));
    assert_eq!(app.explorer().unwrap().rows().len(), 137);
    // A filter that matches nothing says how to get the ops back.
    press(&mut app, KeyCode::Char('f'));
    keys(&mut app, "zzz");
    assert!(screen(&app).contains("no op matches: F clears the filter"));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.explorer().unwrap().rows().len(), 137);
}

#[test]
fn mouse_selects_scrolls_and_jumps_from_the_strip() {
    let mut app = app(120, 40);
    let areas = app.explorer().unwrap().areas;
    // Click the fourth op row (below the border and the column header).
    click(
        &mut app,
        areas.ops.x + 10,
        areas.ops.y + 2 + 3,
        MouseEventKind::Down(MouseButton::Left),
    );
    assert_eq!(selected_name(&app), "layer0_w_o");
    assert_eq!(app.explorer().unwrap().focus, Pane::Ops);
    for _ in 0..4 {
        click(
            &mut app,
            areas.ops.x + 10,
            areas.ops.y + 5,
            MouseEventKind::ScrollDown,
        );
    }
    let ex = app.explorer().unwrap();
    assert_eq!(ex.offset(), 12);
    assert!(ex.cursor() >= ex.offset() && ex.cursor() < ex.offset() + ex.list_height());
    // The strip: a click at its right end selects an op near the end of the graph.
    let strip = areas.strip;
    click(
        &mut app,
        strip.x + strip.width - 3,
        strip.y,
        MouseEventKind::Down(MouseButton::Left),
    );
    let ex = app.explorer().unwrap();
    assert!(ex.cursor() > 130, "{}", ex.cursor());
    // A click in the tree focuses it and selects the clicked node.
    click(
        &mut app,
        areas.scopes.x + 5,
        areas.scopes.y + 1,
        MouseEventKind::Down(MouseButton::Left),
    );
    let ex = app.explorer().unwrap();
    assert_eq!(ex.focus, Pane::Scopes);
    assert_eq!(ex.tree.selected(), [TreeId::Scope(0)]);
}

#[test]
fn every_size_draws_without_panicking_and_resize_relayouts() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char(']'));
    for (w, h) in [
        (1, 1),
        (0, 0),
        (10, 3),
        (59, 40),
        (60, 16),
        (61, 17),
        (300, 90),
        (80, 24),
    ] {
        app.handle(Msg::Resize(w, h));
        let text = screen(&app);
        if w < 60 || h < 16 {
            assert!(
                w < 20 || text.contains("terminal too small"),
                "{w}×{h}\n{text}"
            );
        } else {
            assert!(text.contains("layer0_init_routing"), "{w}×{h}\n{text}");
        }
    }
    // Drawing before the resize message arrives (the terminal shrank meanwhile) must not
    // write outside the smaller frame.
    let mut terminal = Terminal::new(TestBackend::new(70, 18)).unwrap();
    terminal.draw(|f| views::render(&app, f)).unwrap();
    // The selection stays visible after shrinking.
    let ex = app.explorer().unwrap();
    assert!(ex.cursor() >= ex.offset() && ex.cursor() < ex.offset() + ex.list_height());
}

#[test]
fn no_color_draws_no_colour_but_keeps_the_glyphs() {
    let config = Config {
        theme: skope::tui::theme::Theme::default().without_colour(),
        ..Config::default()
    };
    let mut app = app_on(EXAMPLE, 120, 40, config);
    press(&mut app, KeyCode::Char(']'));
    let buf = buffer(&app);
    for cell in buf.content() {
        assert_eq!(cell.fg, Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, Color::Reset, "{cell:?}");
    }
    let text = screen(&app);
    assert!(text.contains("22 s0   ✗ layer0_init_routing"), "{text}");
    assert!(text.contains("✗ type not adapted"), "{text}");
}

#[test]
fn breaks_have_a_glyph_a_colour_and_their_reason() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char(']'));
    let buf = buffer(&app);
    let text = screen(&app);
    let row = text
        .lines()
        .position(|l| l.contains("22 s0   ✗ layer0_init_routing"))
        .unwrap() as u16;
    let line: String = (0..buf.area.width)
        .map(|x| buf[(x, row)].symbol().to_string())
        .collect();
    let glyph_x = line.find('✗').map(|b| line[..b].chars().count()).unwrap() as u16;
    assert_eq!(buf[(glyph_x, row)].fg, Color::Red);
    assert!(line.contains("✗ type not adapted to"), "{line}");
}

#[test]
fn strings_from_the_dump_cannot_reach_the_terminal_raw() {
    // An op with escape sequences in its name and type and an attribute key with a bidi
    // override; an op of another scope, whose name has an escape, between two members: its
    // break reason names that scope.
    let path = temp_dump(
        "evil.txt",
        concat!(
            "graph {\n  name: \"g\"\n",
            "  op { name: \"evil\\033[2J\\007op\" type: \"Add\\033]0;pwned\\007\" id: 0\n",
            "    attr { key: \"_super_kernel_scope\" value { s: \"s\\033[31m\" } }\n",
            "    attr { key: \"k\\342\\200\\256ey\" value { i: 1 } } }\n",
            "  op { name: \"between\" type: \"Add\" id: 1\n",
            "    attr { key: \"_super_kernel_scope\" value { s: \"t\\033[1m\" } } }\n",
            "  op { name: \"last\" type: \"Add\" id: 2\n",
            "    attr { key: \"_super_kernel_scope\" value { s: \"s\\033[31m\" } } }\n",
            "}\n"
        ),
    );
    let mut app = app_on(&path, 120, 40, Config::default());
    assert!(app.explorer().is_some(), "{:?}", app.screen);
    let text = screen(&app);
    assert!(text.contains("evil\\u{1b}[2J\\u{7}op"), "{text}");
    // The attributes are at the end of the details.
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('G'));
    let text = screen(&app);
    assert!(text.contains("k\\u{202e}ey"), "{text}");
    assert!(!text.contains('\u{202e}'), "{text}");
    press(&mut app, KeyCode::Tab);
    // The break of the first scope: its reason names the other scope, escaped.
    press(&mut app, KeyCode::Char(']'));
    let text = screen(&app);
    assert!(text.contains("op of scope t\\u{1b}[1m between"), "{text}");
    press(&mut app, KeyCode::BackTab);
    let text = screen(&app);
    assert!(text.contains("s\\u{1b}[31m"), "{text}");
}

#[test]
fn a_graph_without_scopes_says_how_to_mark_them() {
    let path = temp_dump(
        "plain.txt",
        "graph {\n  name: \"g\"\n  op { name: \"a\" type: \"Add\" id: 0 }\n  op { name: \"b\" type: \"Mul\" id: 1 input: \"a:0\" }\n}\n",
    );
    let mut app = app_on(&path, 80, 24, Config::default());
    let text = screen(&app);
    assert!(text.contains("no scope in this"), "{text}");
    press(&mut app, KeyCode::Char(']'));
    assert!(screen(&app).contains("no other break in the list"));
    // The tree has nothing to select; keys there change nothing and break nothing.
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "a");
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(selected_name(&app), "b");
    // Breaks only, on a graph without breaks, says so and how to get the ops back.
    press(&mut app, KeyCode::Char('b'));
    let text = screen(&app);
    assert!(
        text.contains("no op breaks a scope: b shows all ops again"),
        "{text}"
    );
    assert!(text.contains("no op in the list"), "{text}");
    press(&mut app, KeyCode::Char('b'));
    assert_eq!(selected_name(&app), "b");
}

#[test]
fn an_empty_graph_opens_and_says_so() {
    let path = temp_dump("empty.txt", "graph {\n  name: \"g\"\n}\n");
    let mut app = app_on(&path, 80, 24, Config::default());
    let text = screen(&app);
    assert!(text.contains("the graph has no ops"), "{text}");
    for key in ['j', 'G', ']', '}', 'n', 'b', '?'] {
        press(&mut app, KeyCode::Char(key));
        screen(&app);
    }
}

#[test]
fn a_damaged_dump_shows_the_loaders_message_with_its_place() {
    let path = temp_dump(
        "truncated.txt",
        "graph {\n  op { name: \"a\" type: \"Add\"\n",
    );
    let mut app = app_on(&path, 120, 40, Config::default());
    let text = screen(&app);
    assert!(text.contains("cannot open"), "{text}");
    assert!(text.contains("truncated.txt:3:1:"), "{text}");
    assert!(text.contains("hint:"), "{text}");
    press(&mut app, KeyCode::Char('q'));
    assert!(app.effects.contains(&Effect::Quit));
}

#[test]
fn prompt_editing_handles_words_wide_spaces_and_pasted_lines() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char('/'));
    // A full-width space (U+3000) and a no-break space are whitespace of several bytes.
    keys(&mut app, "type:Cast\u{3000}moe\u{a0}x");
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('w'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(
        app.prompt.as_ref().unwrap().input,
        "type:Cast\u{3000}moe\u{a0}"
    );
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('w'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(app.prompt.as_ref().unwrap().input, "type:Cast\u{3000}");
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('u'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(app.prompt.as_ref().unwrap().input, "");
    // Pasted text is one line: breaks and tabs become spaces, escapes are dropped.
    app.handle(Msg::Paste("type:Cast\nscope:moe\t\u{1b}".to_string()));
    assert_eq!(app.prompt.as_ref().unwrap().input, "type:Cast scope:moe ");
    assert_eq!(selected_name(&app), "layer1_expert_ids_cast");
}

#[test]
fn the_tree_never_shows_one_op_while_the_list_shows_another() {
    let mut app = app(120, 40);
    // Filter to moe ops, then pick a break of attn_2 in the tree: the list cannot show it.
    press(&mut app, KeyCode::Char('f'));
    keys(&mut app, "scope:moe");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "layer0_post_rmsnorm");
    press(&mut app, KeyCode::BackTab);
    // Walk the tree to the row above the attn_2 break (the MaskedFill, an unscoped op).
    let break_path = [TreeId::Scope(4), TreeId::Break(0)];
    let mut before = (String::new(), Subject::Nothing);
    for _ in 0..40 {
        before = (selected_name(&app), app.explorer().unwrap().subject());
        press(&mut app, KeyCode::Down);
        if app.explorer().unwrap().tree.selected() == break_path {
            break;
        }
    }
    let ex = app.explorer().unwrap();
    assert_eq!(ex.tree.selected(), break_path, "{}", screen(&app));
    // The list and the details stay on the op they showed.
    assert_eq!((selected_name(&app), ex.subject()), before);
    assert!(
        app.status
            .as_ref()
            .unwrap()
            .text
            .contains("hidden by the filter: F clears it")
    );
    // A scope node with visible ops moves the list to its first visible op.
    press(&mut app, KeyCode::Char('g'));
    for _ in 0..40 {
        press(&mut app, KeyCode::Down);
        if app.explorer().unwrap().tree.selected() == [TreeId::Scope(1)] {
            break;
        }
    }
    assert_eq!(selected_name(&app), "layer0_post_rmsnorm");
    assert_eq!(app.explorer().unwrap().subject(), Subject::Scope(1));
}

#[test]
fn scrolling_stops_at_the_end_of_the_text() {
    let mut app = app(120, 40);
    press(&mut app, KeyCode::Char(']'));
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.explorer().unwrap().focus, Pane::Details);
    press(&mut app, KeyCode::Char('G'));
    let bottom = app.explorer().unwrap().details_scroll;
    assert!(bottom > 0);
    for _ in 0..5 {
        press(&mut app, KeyCode::Char('j'));
    }
    assert_eq!(app.explorer().unwrap().details_scroll, bottom);
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(app.explorer().unwrap().details_scroll, bottom - 1);
    assert!(screen(&app).contains("attributes ("));
    // Help: at 80×24 it scrolls, and not past its last line.
    let mut small = self::app(80, 24);
    press(&mut small, KeyCode::Char('?'));
    press(&mut small, KeyCode::Char('G'));
    let end = small.help.unwrap();
    assert!(end > 0);
    press(&mut small, KeyCode::Char('j'));
    assert_eq!(small.help, Some(end));
    assert!(screen(&small).contains("click the strip to jump"));
}

#[test]
fn an_op_between_interleaved_scopes_shows_every_break_and_an_ignored_member_its_scope() {
    // a0 b0 u a1 b1 c: u (no scope) lies inside both scopes; c is a Const marked with scope a.
    let op = |name: &str, ty: &str, id: u32, scope: Option<&str>| {
        let attr = scope.map_or(String::new(), |s| {
            format!(" attr {{ key: \"_super_kernel_scope\" value {{ s: \"{s}\" }} }}")
        });
        format!("  op {{ name: \"{name}\" type: \"{ty}\" id: {id}{attr} }}\n")
    };
    let text = [
        "graph {\n  name: \"g\"\n".to_string(),
        op("a0", "Add", 0, Some("a")),
        op("b0", "Add", 1, Some("b")),
        op("u", "Mul", 2, None),
        op("a1", "Add", 3, Some("a")),
        op("b1", "Add", 4, Some("b")),
        op("c", "Const", 5, Some("a")),
        "}\n".to_string(),
    ]
    .concat();
    let path = temp_dump("interleaved.txt", &text);
    let mut app = app_on(&path, 120, 40, Config::default());
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "name:u");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "u");
    let text = screen(&app);
    assert!(text.contains("✗ breaks scope a"), "{text}");
    assert!(text.contains("✗ breaks scope b"), "{text}");
    assert!(text.contains("✗×2 op without a scope"), "{text}");
    press(&mut app, KeyCode::Char('G'));
    assert_eq!(selected_name(&app), "c");
    let ex = app.explorer().unwrap();
    assert_eq!(ex.tree.selected(), [TreeId::Scope(0)]);
    assert!(screen(&app).contains("ignored by the pass"));
}

#[test]
fn a_dump_without_string_attributes_says_its_scopes_cannot_be_read() {
    let path = temp_dump(
        "ge_onnx_00000007_graph_0_Build.pbtxt",
        "ir_version: 3\nproducer_name: \"GE\"\ngraph {\n  node { name: \"a\" op_type: \"ge:Data\" attribute { name: \"id\" i: 0 type: INT } }\n  node { input: \"a:0\" name: \"b\" op_type: \"ge:Relu\" attribute { name: \"id\" i: 1 type: INT } }\n  name: \"g0\"\n}\n",
    );
    let app = app_on(&path, 120, 40, Config::default());
    let text = screen(&app);
    assert!(!text.contains("no scope in this"), "{text}");
    assert!(text.contains("this dump has no string"), "{text}");
    assert!(text.contains("DUMP_GE_GRAPH=1"), "{text}");
}

#[test]
fn enter_in_the_details_goes_to_a_neighbour_and_back_returns() {
    let mut app = app(120, 40);
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.explorer().unwrap().focus, Pane::Details);
    press(&mut app, KeyCode::Enter);
    let text = screen(&app);
    assert!(
        text.contains("Go to an op it takes from or gives to"),
        "{text}"
    );
    assert!(
        text.contains("← layer0_qkv_proj (QuantBatchMatmulV3) · its output 0"),
        "{text}"
    );
    assert!(text.contains("→ layer0_kv_scatter"), "{text}");
    // Type to narrow, enter to go.
    keys(&mut app, "kv_scatter");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "layer0_kv_scatter");
    // ] jumps to a break; back comes to the neighbour, then to where it started.
    press(&mut app, KeyCode::Char(']'));
    assert_ne!(selected_name(&app), "layer0_kv_scatter");
    app.handle(Msg::Key(ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('o'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    )));
    assert_eq!(selected_name(&app), "layer0_kv_scatter");
    press(&mut app, KeyCode::Backspace);
    assert_eq!(selected_name(&app), "layer0_rope");
    press(&mut app, KeyCode::Backspace);
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text == "no jump to go back from"),
        "{:?}",
        app.status
    );
}

#[test]
fn the_scope_picker_starts_on_the_scope_the_fix_names() {
    let mut app = app(120, 40);
    // layer2_mask_fill is an op without a scope between attn_2's ops: the fix adds it there.
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('a'));
    let text = screen(&app);
    let selected = text
        .lines()
        .find(|l| l.contains(" attn_2 "))
        .unwrap_or_default()
        .to_string();
    let Some(skope::tui::dialog::Dialog::Pick(picker)) = &app.dialog else {
        panic!("no picker: {text}");
    };
    assert_eq!(picker.shown()[picker.selected].text, "attn_2", "{selected}");
    // Enter puts it there: the break heals.
    press(&mut app, KeyCode::Enter);
    let ws = &app.explorer().unwrap().ws;
    assert!(
        !ws.index()
            .is_break(ws.graph().find("layer2_mask_fill").unwrap())
    );
}

#[test]
fn help_starts_with_the_keys_of_the_view_it_is_asked_in() {
    let mut app = app(120, 40);
    // In the graph: the groups, no view section.
    press(&mut app, KeyCode::Char('?'));
    let text = screen(&app);
    assert!(
        !text.contains("In the runs view") && !text.contains("In the code view"),
        "{text}"
    );
    press(&mut app, KeyCode::Esc);
    // The runs view.
    press(&mut app, KeyCode::Char('L'));
    press(&mut app, KeyCode::Char('?'));
    let text = screen(&app);
    assert!(text.contains("In the runs view"), "{text}");
    assert!(
        text.contains("stop the selected run") && text.contains("go to the first error"),
        "{text}"
    );
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('L'));
    // The code view, focused.
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('e'));
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('?'));
    let text = screen(&app);
    assert!(text.contains("In the code view"), "{text}");
    assert!(
        text.contains("scroll the code right") && text.contains("search the code"),
        "{text}"
    );
}

#[test]
fn a_scope_reused_in_every_layer_sums_up_its_breaks_by_kind() {
    // One scope name over six layers; each layer has a Cast (not AscendC) among its ops, and
    // every second layer an op of no scope between them.
    let mut text = String::from("graph {\n  name: \"g\"\n");
    let mut id = 0;
    let mut op = |text: &mut String, name: String, ty: &str, scoped: bool, support: i64| {
        let scope = if scoped {
            "    attr { key: \"_super_kernel_scope\" value { s: \"moe_ffn\" } }\n"
        } else {
            ""
        };
        text.push_str(&format!(
            "  op {{ name: \"{name}\" type: \"{ty}\" id: {id}\n{scope}    attr {{ key: \"supportSuperKernel\" value {{ i: {support} }} }} }}\n"
        ));
        id += 1;
    };
    for layer in 0..6 {
        op(
            &mut text,
            format!("model.layers.{layer}.up"),
            "MatMulV2",
            true,
            1,
        );
        op(
            &mut text,
            format!("model.layers.{layer}.cast"),
            "Cast",
            true,
            0,
        );
        if layer % 2 == 0 {
            op(
                &mut text,
                format!("model.layers.{layer}.add"),
                "Add",
                false,
                1,
            );
        }
        op(
            &mut text,
            format!("model.layers.{layer}.down"),
            "MatMulV2",
            true,
            1,
        );
    }
    text.push_str("}\n");
    let path = temp_dump("layers.ge_proto.txt", &text);
    let mut app = app_on(&path, 140, 50, Config::default());
    // The scope in the tree: its summary in the details.
    press(&mut app, KeyCode::BackTab);
    assert_eq!(app.explorer().unwrap().focus, Pane::Scopes);
    press(&mut app, KeyCode::Char('g'));
    let text = screen(&app);
    assert!(text.contains("breaks by reason"), "{text}");
    assert!(
        text.contains("✗ 6 × not an AscendC kernel (TBE/TIK/AI CPU) (Cast) · s0 · layers 0–5"),
        "{text}"
    );
    assert!(
        text.contains("✗ 3 × op without a scope between this scope's ops on the same stream (Add) · s0 · layers 0–4"),
        "{text}"
    );
    assert!(
        text.contains("(layer numbers as read from the op names)"),
        "{text}"
    );
}

#[test]
fn snapshot_the_neighbour_picker() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut app = app(w, h);
        find(&mut app, "layer0_rope");
        press(&mut app, KeyCode::Tab);
        if app.explorer().unwrap().focus != Pane::Details {
            press(&mut app, KeyCode::Tab);
        }
        press(&mut app, KeyCode::Enter);
        insta::assert_snapshot!(format!("neighbours_{w}x{h}"), screen(&app));
    }
}
