//! "Compare with…" (`O`): the explorer on graph B of the fusion pair compared with the bundled
//! example (graph A) marks exactly the split, the heal, the rename and the removed scope in
//! the op list and the strip; the marks follow an edit; a plan file of the same graph compares
//! too; `O` again stops; a path that is neither is refused.

use crate::common::fusion_pair::{GRAPH, graph_b};
use crate::common::repo;
use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::fusion_diff::OpDiff;
use skope::tui::app::App;
use skope::tui::config::Config;

fn compare(app: &mut App, path: &str) {
    press(app, KeyCode::Char('O'));
    keys(app, path);
    press(app, KeyCode::Enter);
}

/// The ops marked, by name, with their marks.
fn marked(app: &App) -> Vec<(String, OpDiff)> {
    let ex = app.explorer().unwrap();
    let c = ex.compared.as_ref().expect("a comparison");
    ex.ws
        .graph()
        .ops()
        .iter()
        .enumerate()
        .filter_map(|(i, op)| Some((op.name.clone(), c.mark(i)?)))
        .collect()
}

/// The op list's row of `name` as drawn (the list is the pane after the scopes tree's).
fn row_of(app: &App, name: &str) -> String {
    screen(app)
        .lines()
        .filter_map(|l| l.split('┃').nth(1))
        .find(|cell| cell.contains(&format!(" {name} ")))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn compared_with_graph_a_the_list_and_strip_mark_what_changed() {
    let b = graph_b();
    let mut app = app_on(&b.to_string_lossy(), 140, 40, Config::default());
    let a = repo("assets/examples").join(GRAPH);
    compare(&mut app, &a.to_string_lossy());
    let marks = marked(&app);
    let get = |name: &str| marks.iter().find(|(n, _)| n == name).map(|(_, d)| *d);
    assert_eq!(get("layer0_rope"), Some(OpDiff::BreakAdded));
    assert_eq!(get("layer2_mask_fill"), Some(OpDiff::BreakHealed));
    assert_eq!(get("layer3_out_proj"), Some(OpDiff::Renamed));
    // moe_3's ops left fusion with their scope.
    assert!(
        marks
            .iter()
            .any(|(n, d)| n.starts_with("layer3_") && *d == OpDiff::Unfused),
        "{marks:?}"
    );
    // Nothing in layer 1 changed.
    assert!(
        !marks.iter().any(|(n, _)| n.starts_with("layer1_")),
        "{marks:?}"
    );
    assert!(status(&app).contains("compared with "), "{}", status(&app));
    let text = screen(&app);
    assert!(text.contains(&format!("· vs {}", a.display())), "{text}");
    assert!(
        text.contains('◆'),
        "the strip marks the changed cells: {text}"
    );
    find(&mut app, "layer0_rope");
    let row = row_of(&app, "layer0_rope");
    assert!(row.contains("+ "), "{row}\n{}", screen(&app));

    // An edit compares again: keeping layer1_gate out of fusion splits its segment.
    find(&mut app, "layer1_gate");
    press(&mut app, KeyCode::Char('d'));
    let after = marked(&app);
    assert!(
        after.iter().any(|(n, _)| n.starts_with("layer1_")),
        "{after:?}"
    );
    // O again stops.
    press(&mut app, KeyCode::Char('O'));
    assert!(app.explorer().unwrap().compared.is_none());
    assert!(!screen(&app).contains("· vs "));
}

#[test]
fn a_plan_file_of_the_graph_compares_and_a_bad_path_is_refused() {
    let mut app = app_on(EXAMPLE, 120, 40, Config::default());
    // The example's plan with moe_0 removed, written as a plan file.
    let dir = crate::common::scratch("tui-compare-plan");
    let plan = dir.join("p.skope.json");
    let out = crate::common::skope(&["export", EXAMPLE, "--format", "plan"]);
    let mut value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    value["scopes"]
        .as_array_mut()
        .unwrap()
        .retain(|s| s["name"] != "moe_0");
    std::fs::write(&plan, value.to_string()).unwrap();
    compare(&mut app, &plan.to_string_lossy());
    let marks = marked(&app);
    // Compared with the plan without moe_0, this graph's moe_0 segments are new, and so is
    // the break that splits it.
    assert!(
        marks.iter().all(|(n, d)| n.starts_with("layer0_")
            && matches!(d, OpDiff::SegmentChanged | OpDiff::BreakAdded)),
        "{marks:?}"
    );
    assert!(marks.contains(&("layer0_init_routing".to_string(), OpDiff::BreakAdded)));

    press(&mut app, KeyCode::Char('O'));
    compare(&mut app, "/no/such/file");
    assert!(
        status(&app).contains("cannot compare with /no/such/file"),
        "{}",
        status(&app)
    );
    assert!(app.explorer().unwrap().compared.is_none());
}
