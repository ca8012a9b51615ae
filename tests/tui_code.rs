//! The code view: it follows the selected op's segment and call, moving through the code
//! selects ops, barrier lines say which dependency they serve, option edits regenerate it,
//! highlighting applies only to its own version, copy and write.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::codegen::Origin;
use skope::tui::app::{App, Msg};
use skope::tui::effect::Effect;
use skope::tui::highlight::{Highlighted, highlight};

/// The explorer in a `w`×`h` terminal with `op` selected and the code view on.
fn code_on(w: u16, h: u16, op: &str) -> App {
    let mut app = app(w, h);
    find(&mut app, op);
    press(&mut app, KeyCode::Char('e'));
    app
}

/// The code view's state.
fn view(app: &App) -> &skope::tui::code_view::CodeView {
    app.explorer().unwrap().code.as_ref().unwrap()
}

fn cursor_line(app: &App) -> String {
    line_after_cursor(app, 0)
}

/// The code line `offset` lines below the cursor.
fn line_after_cursor(app: &App, offset: usize) -> String {
    let view = view(app);
    view.text()
        .lines()
        .nth(view.cursor + offset)
        .unwrap()
        .to_string()
}

/// The `// skope: op <name> (<type>)` line that follows the call's `//begin func call` line.
fn op_under_cursor(app: &App) -> String {
    line_after_cursor(app, 1)
}

fn source(app: &App) -> String {
    let view = app.explorer().unwrap().code.as_ref().unwrap();
    view.code.as_ref().unwrap().source.clone()
}

/// Highlights the view's code on this thread, as the worker would.
fn highlight_now(app: &mut App) {
    let view = app.explorer().unwrap().code.as_ref().unwrap();
    let generation = view.generation;
    let lines = highlight(view.text());
    app.handle(Msg::from(Highlighted {
        generation,
        first: 0,
        lines,
    }));
}

#[test]
fn the_code_follows_the_selected_op_to_its_call() {
    let mut app = code_on(120, 40, "layer0_rope");
    let text = screen(&app);
    assert!(
        text.contains("Code · attn_0.cpp · MIX_AIC_1_2 × 24"),
        "{text}"
    );
    assert!(cursor_line(&app).contains("begin func call of sub operator"));
    assert!(
        op_under_cursor(&app).contains("op layer0_rope ("),
        "{}",
        op_under_cursor(&app)
    );
    // another op of the same segment moves the cursor; one of another segment swaps the code
    press(&mut app, KeyCode::Char('j'));
    assert!(op_under_cursor(&app).contains("op layer0_kv_scatter ("));
    find(&mut app, "layer0_gate");
    assert!(screen(&app).contains("Code · moe_0_split_17_22.cpp"));
    assert!(op_under_cursor(&app).contains("op layer0_gate ("));
    // an op in no segment keeps the last code and says why
    find(&mut app, "layer0_init_routing");
    let text = screen(&app);
    assert!(
        text.contains("layer0_init_routing is in no segment"),
        "{text}"
    );
    assert!(text.contains("Code · moe_0_split_17_22.cpp"), "{text}");
    // e again closes it and gives the tree its place back
    press(&mut app, KeyCode::Char('e'));
    assert!(app.explorer().unwrap().code.is_none());
    assert!(screen(&app).contains("Scopes"));
}

#[test]
fn moving_through_the_code_selects_ops_and_explains_barriers() {
    let mut app = code_on(200, 50, "layer0_input_rmsnorm");
    press(&mut app, KeyCode::Tab);
    let mut saw_barrier = false;
    let mut selected = vec![selected_name(&app)];
    for _ in 0..400 {
        press(&mut app, KeyCode::Char('j'));
        let view = app.explorer().unwrap().code.as_ref().unwrap();
        if let Origin::Barrier { .. } = view.origin_at_cursor()
            && !saw_barrier
        {
            saw_barrier = true;
            let text = screen(&app);
            assert!(
                text.contains(
                    "barrier: layer0_qkv_proj waits for layer0_input_rmsnorm (it reads its output)"
                ),
                "{text}"
            );
        }
        let name = selected_name(&app);
        if selected.last() != Some(&name) {
            selected.push(name);
        }
    }
    assert!(saw_barrier);
    assert_eq!(
        &selected[..3],
        ["layer0_input_rmsnorm", "layer0_qkv_proj", "layer0_rope"],
        "{selected:?}"
    );
}

#[test]
fn an_option_edit_regenerates_the_code_and_its_barriers() {
    let mut app = code_on(120, 40, "layer0_rope");
    assert!(source(&app).contains("WaitPreTaskEndImpl"));
    let generation = app.explorer().unwrap().code.as_ref().unwrap().generation;
    press(&mut app, KeyCode::Char('o'));
    for _ in 0..9 {
        press(&mut app, KeyCode::Char('j'));
    }
    for _ in 0..3 {
        if source(&app).contains("EarlyStartDisable") {
            break;
        }
        press(&mut app, KeyCode::Char('l'));
    }
    let code = source(&app);
    assert!(
        code.contains("// reason2: inter op barrier when EarlyStartDisable"),
        "{code}"
    );
    assert!(!code.contains("WaitPreTaskEndImpl"));
    assert!(code.contains("early-start=0"));
    assert!(app.explorer().unwrap().code.as_ref().unwrap().generation > generation);
    // undo brings the early-start barriers back
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('u'));
    assert!(source(&app).contains("WaitPreTaskEndImpl"));
}

#[test]
fn highlighting_applies_to_its_own_version_only() {
    let mut app = code_on(120, 40, "layer0_rope");
    let stale = view(&app).generation.wrapping_sub(1);
    let whole = highlight(&view(&app).code.as_ref().unwrap().source);
    app.handle(Msg::from(Highlighted {
        generation: stale,
        first: 0,
        lines: whole,
    }));
    let highlighted = |app: &App| view(app).spans(0).is_some();
    assert!(!highlighted(&app));
    highlight_now(&mut app);
    assert!(highlighted(&app));
}

#[test]
fn snapshot_code_view() {
    for (w, h) in [(120, 40), (80, 24)] {
        let mut app = code_on(w, h, "layer0_qkv_proj");
        highlight_now(&mut app);
        insta::assert_snapshot!(format!("code_view_{w}x{h}"), screen(&app));
    }
}

#[test]
fn copy_uses_osc_52_and_write_puts_the_file_beside_the_others() {
    // A copy of the dump of its own: the code is written beside the dump.
    let scratch = crate::common::scratch("tui-code-write");
    let dump = scratch.join("moe_decode.ge_proto.txt");
    std::fs::copy(crate::ui::EXAMPLE, &dump).unwrap();
    let mut app = crate::ui::app_on(
        dump.to_str().unwrap(),
        120,
        40,
        skope::tui::config::Config::default(),
    );
    press(&mut app, KeyCode::Char('y'));
    assert!(app.effects.take().is_empty());
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('e'));
    press(&mut app, KeyCode::Char('y'));
    let effects = app.effects.take();
    let [Effect::Copy(sequence)] = effects.as_slice() else {
        panic!("one copy expected, got {effects:?}")
    };
    assert!(sequence.starts_with("\x1b]52;c;") && sequence.ends_with('\x07'));
    let status = app.status.as_ref().unwrap().text.clone();
    assert!(status.contains("copied attn_0.cpp"), "{status}");

    let dir = scratch.join("moe_decode.ge_proto.txt.codegen");
    press(&mut app, KeyCode::Char('W'));
    let status = app.status.as_ref().unwrap().text.clone();
    let written = std::fs::read_to_string(dir.join("attn_0.cpp"));
    let sidecar = dir.join("attn_0.json").exists();
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(status.contains("wrote"), "{status}");
    assert_eq!(written.unwrap(), source(&app));
    assert!(sidecar);
}

#[test]
fn the_worker_colours_the_lines_in_view_as_they_come_into_view() {
    let (tx, rx) = std::sync::mpsc::channel::<Highlighted>();
    let mut app = app(120, 40);
    let results: skope::tui::sink::Sink<Highlighted> =
        std::sync::Arc::new(move |done| tx.send(done).is_ok());
    app.workers.highlighter = Some(skope::tui::highlight::Highlighter::spawn(
        results,
        std::sync::Arc::new(|_| true),
    ));
    find(&mut app, "layer0_qkv_proj");
    press(&mut app, KeyCode::Char('e'));
    let wait = |rx: &std::sync::mpsc::Receiver<Highlighted>| {
        rx.recv_timeout(std::time::Duration::from_secs(60))
            .expect("the highlighter answers")
    };
    let done = wait(&rx);
    let (first, count) = (done.first, done.lines.len());
    let (scroll, height) = (view(&app).scroll, app.explorer().unwrap().code_height());
    assert!(
        first <= scroll && scroll + height <= first + count,
        "{first}+{count}"
    );
    assert!(
        count < view(&app).line_count(),
        "only a window is highlighted"
    );
    app.handle(Msg::from(done));
    assert!((scroll..scroll + height).all(|n| view(&app).spans(n).is_some()));
    // the end of the file is out of the window: going there asks for it
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('G'));
    let end = view(&app).line_count() - 1;
    assert!(view(&app).spans(end).is_none());
    app.handle(Msg::from(wait(&rx)));
    assert!(view(&app).spans(end).is_some());
}

#[test]
fn the_code_scrolls_sideways_searches_and_zooms() {
    let mut app = code_on(120, 40, "layer0_qkv_proj");
    // Below 160 columns the code takes the tree's place: one tab from the list.
    press(&mut app, KeyCode::Tab);
    assert_eq!(
        app.explorer().unwrap().focus,
        skope::tui::explorer::Pane::Details
    );
    // l and h scroll the code sideways, 8 columns a press.
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Char('l'));
    assert_eq!(view(&app).shift, 16);
    let text = screen(&app);
    assert!(text.contains("· from column 17"), "{text}");
    press(&mut app, KeyCode::Char('h'));
    assert_eq!(view(&app).shift, 8);
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Char('h'));
    assert_eq!(view(&app).shift, 0);
    // / searches the code, not the ops; n and N go on, wrapping.
    let ops_search = app.explorer().unwrap().search().is_some();
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "WaitPreTaskEnd");
    assert!(
        cursor_line(&app).contains("WaitPreTaskEnd"),
        "{}",
        cursor_line(&app)
    );
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.explorer().unwrap().search().is_some(), ops_search);
    let first = view(&app).cursor;
    press(&mut app, KeyCode::Char('n'));
    let second = view(&app).cursor;
    assert!(second > first && cursor_line(&app).contains("WaitPreTaskEnd"));
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(view(&app).cursor, first);
    // A text no line holds: the cursor stays, the prompt's esc puts it back.
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "no such text");
    assert_eq!(view(&app).cursor, first);
    press(&mut app, KeyCode::Esc);
    assert_eq!(view(&app).cursor, first);
    // z gives the code the whole body; esc gives the panes back.
    press(&mut app, KeyCode::Char('z'));
    let text = screen(&app);
    assert!(!text.contains("Ops (execution order)"), "{text}");
    assert!(text.contains("Code · attn_0.cpp"), "{text}");
    let ex = app.explorer().unwrap();
    assert_eq!(ex.areas.code, ex.areas.body);
    press(&mut app, KeyCode::Tab);
    assert_eq!(
        app.explorer().unwrap().focus,
        skope::tui::explorer::Pane::Details
    );
    press(&mut app, KeyCode::Esc);
    let text = screen(&app);
    assert!(text.contains("Ops (execution order)"), "{text}");
    assert!(app.explorer().unwrap().code.is_some());
}

#[test]
fn snapshot_the_zoomed_code_view() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut app = code_on(w, h, "layer0_qkv_proj");
        press(&mut app, KeyCode::Char('z'));
        highlight_now(&mut app);
        insta::assert_snapshot!(format!("code_zoomed_{w}x{h}"), screen(&app));
    }
}

/// A kernel_meta directory holding what the compiler wrote for segment attn_0: skope's
/// prediction under a hash name, without skope's notes, other preload sizes and without the
/// ffts set-up line.
fn compilers_source_for_attn_0() -> std::path::PathBuf {
    let input = skope::open::Input::File(EXAMPLE.into());
    let (ws, _) = skope::open::open(
        &input,
        skope::load::LoadOptions::default(),
        &skope::fusion::rules::RuleConfig::default(),
        &mut |_| {},
    )
    .unwrap();
    let segment = ws
        .plan()
        .scopes
        .iter()
        .flat_map(|s| &s.segments)
        .find(|s| s.name == "attn_0")
        .unwrap();
    let code = skope::codegen::entry(ws.context(), ws.kernel_meta(), segment);
    let written: String = code
        .source
        .lines()
        .filter(|l| !l.trim_start().starts_with("// skope:"))
        .filter(|l| !l.contains("set_ffts_base_addr((uint64_t)ffts_addr);"))
        .map(|l| {
            let l = l.replace(&code.kernel_name, "te_superkernel_9c0ffee1");
            format!("{}\n", l.replace("_split1, 2);", "_split1, 3);"))
        })
        .collect();
    let dir = crate::common::scratch("tui-meta");
    std::fs::write(dir.join("te_superkernel_9c0ffee1_77_kernel.cpp"), written).unwrap();
    dir
}

#[test]
fn the_code_shows_against_the_compilers_source_and_back() {
    let meta = compilers_source_for_attn_0();
    let mut app = app_with_kernel_meta(&meta, 120, 40);
    find(&mut app, "layer0_rope");
    press(&mut app, KeyCode::Char('e'));
    let predicted = view(&app).line_count();
    press(&mut app, KeyCode::Char('='));
    let v = view(&app);
    assert!(v.comparing);
    let comparison = v.comparison.as_ref().unwrap();
    assert_eq!(comparison.predicted, 1 + comparison.preloads / 2);
    assert_eq!(comparison.written, comparison.preloads / 2);
    // The cursor stays on the op's call, and every line still leads to its op.
    assert!(
        cursor_line(&app).contains("begin func call"),
        "{}",
        cursor_line(&app)
    );
    assert_eq!(
        v.origin_at_cursor()
            .op()
            .map(|id| app.explorer().unwrap().ws.graph().op(id).name.clone()),
        Some("layer0_rope".to_string())
    );
    let text = screen(&app);
    assert!(
        text.contains("Code vs te_superkernel_9c0…7_kernel.cpp"),
        "{text}"
    );
    // The footer of a compared line says how it stands.
    assert!(
        text.contains("calls layer0_rope (ApplyRotaryPosEmb)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "· -{} +{} ",
            comparison.predicted, comparison.written
        )),
        "{text}"
    );
    // The line the compiler does not write is marked, next to the op it belongs to.
    let ffts = v
        .text()
        .lines()
        .position(|l| l.contains("set_ffts_base_addr"))
        .unwrap();
    assert_eq!(
        v.change(ffts),
        Some(skope::codegen::compare::Change::Predicted)
    );
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Char('/'));
    keys(&mut app, "set_ffts");
    press(&mut app, KeyCode::Enter);
    assert_eq!(view(&app).cursor, ffts);
    assert!(screen(&app).contains("only in skope's code · set-up shared by every sub-op"));
    highlight_now(&mut app);
    insta::assert_snapshot!("code_compared_120x40", screen(&app));

    press(&mut app, KeyCode::Char('='));
    assert!(!view(&app).comparing);
    assert_eq!(view(&app).line_count(), predicted);
}

#[test]
fn comparing_without_the_compilers_source_says_what_to_pass() {
    let mut app = code_on(120, 40, "layer0_rope");
    press(&mut app, KeyCode::Char('='));
    assert!(!view(&app).comparing);
    let text = screen(&app);
    assert!(
        text.contains("nothing to compare with: start skope with --kernel-meta"),
        "{text}"
    );
    // kernel_meta with a source for another segment only.
    let meta = compilers_source_for_attn_0();
    let mut app = app_with_kernel_meta(&meta, 120, 40);
    find(&mut app, "layer0_gate");
    press(&mut app, KeyCode::Char('e'));
    press(&mut app, KeyCode::Char('='));
    assert!(!view(&app).comparing);
    assert!(screen(&app).contains("no entry source in kernel_meta calls this segment's sub-ops"));
}
