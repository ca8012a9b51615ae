//! A MindSpore graph in the explorer: its composites as segments, the kernels left out with
//! their reasons, edits refused with what to do instead, no entry source in the code view, and
//! `o` opening the graph kernel flags with what each would change in this graph.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::config::Config;

const IR: &str = "assets/examples/mindspore/graph_build_0_1.ir";

#[test]
fn composites_reasons_refused_edits_and_the_flags_view() {
    let mut app = app_on(IR, 140, 40, Config::default());
    let text = screen(&app);
    assert!(
        text.contains("mindspore_ir · 55 ops · 1 scope → 6 segments · ✗ 15 breaks"),
        "{text}"
    );
    // Break names in the tree lose their middle, not their distinguishing end.
    let breaks: Vec<&str> = text.lines().filter(|l| l.contains("✗ Default")).collect();
    assert!(!breaks.is_empty(), "{text}");
    for line in &breaks {
        assert!(line.contains('…') && line.contains("-op"), "{line}");
    }
    find(
        &mut app,
        "Default/model-Model/layers-CellList/0-DecoderLayer/Softmax-op9",
    );
    let text = screen(&app);
    assert!(text.contains("(left out; no cut)"), "{text}");
    assert!(text.contains("rules — Softmax is on neither the"), "{text}");
    // An edit is refused, saying what changes composites instead.
    press(&mut app, KeyCode::Char('x'));
    let status = app.status.as_ref().unwrap();
    assert!(status.problem, "{}", status.text);
    assert!(
        status.text.contains("graph_kernel_flags"),
        "{}",
        status.text
    );
    // o: the graph kernel flags, with what each would change here.
    press(&mut app, KeyCode::Char('o'));
    let text = screen(&app);
    for words in [
        "Graph kernel flags · what each would change in this graph",
        "--opt_level  default 2 with graph kernel fusion on, else 0",
        "in this graph: 0 would leave all 6 composites as basic ops",
        "in this graph: 1 would let these level-1 types join composites: MatMul ×8",
        "(only level 1 clusters: Reshape, MatMul, TransData,",
    ] {
        assert!(text.contains(words), "{words}\n{text}");
    }
    insta::assert_snapshot!("mindspore_flags_140x40", text);
    // It scrolls to its end and no further; the help names its keys; esc goes back.
    for _ in 0..100 {
        press(&mut app, KeyCode::Char('j'));
    }
    let text = screen(&app);
    assert!(
        text.contains("Set them with MS_DEV_GRAPH_KERNEL_FLAGS"),
        "{text}"
    );
    // No further: one key back moves it at once.
    press(&mut app, KeyCode::Char('k'));
    assert_ne!(screen(&app), text);
    press(&mut app, KeyCode::Char('?'));
    assert!(screen(&app).contains("In the graph kernel flags view"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert!(screen(&app).contains("Ops (execution order) 55"));
}

#[test]
fn a_view_open_on_one_graph_is_gone_with_its_state_after_another_loads() {
    let mut app = app_on(IR, 140, 40, Config::default());
    press(&mut app, KeyCode::Char('o'));
    assert_eq!(app.up(), Some("flags"));
    assert!(
        app.view_state::<skope::tui::flags_view::FlagsView>()
            .is_some()
    );
    // Another graph: the bundled GE dump, loaded as the app loads any.
    let dump = crate::common::example_arg("moe_decode.ge_proto.txt");
    app.screen = skope::tui::app::Screen::Loading(skope::tui::app::Loading {
        file: dump.clone(),
        stage: None,
        elapsed: std::time::Duration::ZERO,
    });
    let (ws, _) = skope::open::open(
        &skope::open::Input::File(dump.into()),
        skope::load::LoadOptions::default(),
        &skope::fusion::rules::RuleConfig::default(),
        &mut |_| {},
    )
    .unwrap();
    app.handle(skope::tui::app::Msg::from(
        skope::tui::loader::LoadEvent::Loaded(Ok(Box::new(skope::tui::loader::Loaded::new(ws)))),
    ));
    assert_eq!(app.up(), None);
    assert!(
        app.view_state::<skope::tui::flags_view::FlagsView>()
            .is_none()
    );
    let text = screen(&app);
    assert!(text.contains("moe_decode.ge_proto.txt"), "{text}");
    assert!(!text.contains("Graph kernel flags"), "{text}");
}
