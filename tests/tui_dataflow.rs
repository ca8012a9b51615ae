//! The dataflow view (`V`): the selected op's producers and consumers as a layered graph —
//! segments framed, cross-stream edges labelled, the cut of a break marked — moving along
//! edges re-centres, `+`/`-` change the hops, a "+N more" node opens, `enter` selects the op
//! in the list and `ctrl-o` goes back.

use crate::ui::*;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use skope::dataflow::NodeKind;
use skope::tui::app::{App, Msg};
use skope::tui::dataflow_view::DataflowView;

fn view(app: &App) -> &DataflowView {
    app.view_state::<DataflowView>().expect("the dataflow view")
}

fn centre(app: &App) -> String {
    view(app).hood.nodes[0].name.clone()
}

fn open_on(app: &mut App, name: &str) {
    find(app, name);
    press(app, KeyCode::Char('V'));
    assert_eq!(app.up(), Some("dataflow"));
    assert_eq!(centre(app), name);
}

#[test]
fn moving_follows_edges_and_recentres_and_ctrl_o_comes_back() {
    let mut app = app(200, 50);
    open_on(&mut app, "layer0_rope");
    // Two hops each way: its producers' producers and its consumers' consumers.
    let names: Vec<&str> = view(&app)
        .hood
        .nodes
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    for near in [
        "layer0_qkv_proj",
        "input_positions",
        "layer0_kv_scatter",
        "layer0_attention",
    ] {
        assert!(names.contains(&near), "{near} missing: {names:?}");
    }
    press(&mut app, KeyCode::Char('k'));
    let up = centre(&app);
    assert!(
        ["layer0_qkv_proj", "input_positions"].contains(&up.as_str()),
        "{up}"
    );
    press(&mut app, KeyCode::Char('j'));
    assert_ne!(centre(&app), up, "down goes to a consumer");
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char('o'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(centre(&app), up);
    app.handle(Msg::Key(KeyEvent::new(
        KeyCode::Char('o'),
        KeyModifiers::CONTROL,
    )));
    assert_eq!(centre(&app), "layer0_rope");
    // Hops: fewer nodes with one, more with three.
    let two = view(&app).hood.nodes.len();
    press(&mut app, KeyCode::Char('-'));
    assert_eq!(view(&app).hops, 1);
    assert!(view(&app).hood.nodes.len() < two);
    press(&mut app, KeyCode::Char('+'));
    press(&mut app, KeyCode::Char('+'));
    assert_eq!(view(&app).hops, 3);
    assert!(view(&app).hood.nodes.len() > two);
    press(&mut app, KeyCode::Char('-'));
    // Across the row, then enter selects the op in the list.
    press(&mut app, KeyCode::Char('l'));
    press(&mut app, KeyCode::Char('h'));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.up(), None);
    assert_eq!(selected_name(&app), "layer0_rope");
}

#[test]
fn a_wide_fan_collapses_into_a_node_that_enter_opens() {
    let mut app = app(200, 50);
    open_on(&mut app, "input_positions");
    let more = |app: &App| {
        view(app)
            .hood
            .nodes
            .iter()
            .position(|n| matches!(n.kind, NodeKind::More { .. }))
    };
    let at = more(&app).expect("a +N more node");
    assert_eq!(view(&app).hood.nodes[at].name, "+3 more");
    assert!(screen(&app).contains("[+3 more]"));
    let target = view(&app).layout.nodes[at];
    let row: Vec<usize> = (0..view(&app).hood.nodes.len())
        .filter(|&i| view(&app).layout.nodes[i].layer == target.layer)
        .collect();
    let first = *row
        .iter()
        .min_by_key(|&&i| view(&app).layout.nodes[i].x)
        .unwrap();
    // From the row's leftmost node, right along the row to the +3 node.
    app.view_state_mut::<DataflowView>().unwrap().selected = first;
    while view(&app).selected != at {
        let before = view(&app).selected;
        press(&mut app, KeyCode::Char('l'));
        assert_ne!(view(&app).selected, before, "stuck before the +3 node");
    }
    press(&mut app, KeyCode::Enter);
    assert_eq!(more(&app), None);
    let consumers = view(&app).hood.nodes.iter().filter(|n| n.hops == 1).count();
    assert_eq!(consumers, 8);
}

#[test]
fn cross_stream_edges_are_labelled_and_a_cut_is_marked() {
    let mut app = app(200, 50);
    // The shared expert runs on stream 1: its edges from stream 0 cross.
    open_on(&mut app, "layer0_send_shared");
    let labels: Vec<String> = view(&app)
        .hood
        .links
        .iter()
        .filter_map(|l| l.label.clone())
        .collect();
    assert!(
        labels
            .iter()
            .any(|l| l.contains("s0→s1") || l.contains("s1→s0")),
        "{labels:?}"
    );
    // A break (layer1_expert_broadcast breaks moe_1): the edge into it is the cut.
    press(&mut app, KeyCode::Esc);
    open_on(&mut app, "layer1_expert_broadcast");
    assert!(
        view(&app)
            .hood
            .links
            .iter()
            .any(|l| l.label.as_deref() == Some("✂")),
        "{:?}",
        view(&app).hood.links
    );
    assert!(screen(&app).contains("[✗ layer1_expert_broadcast HcomBroadcast]"));
}

#[test]
fn snapshot_the_dataflow_view_at_200x50_and_80x24() {
    let mut app = app(200, 50);
    open_on(&mut app, "layer1_expert_broadcast");
    insta::assert_snapshot!("dataflow_200x50", screen(&app));
    let mut small = crate::ui::app(80, 24);
    open_on(&mut small, "layer0_rope");
    press(&mut small, KeyCode::Char('-'));
    insta::assert_snapshot!("dataflow_80x24", screen(&small));
}

#[test]
fn the_view_works_on_aclgraph_tasks_and_mindspore_composites() {
    for (input, w, h) in [
        ("assets/examples/aclgraph", 160, 45),
        ("assets/examples/mindspore/graph_build_0_1.ir", 160, 45),
        ("assets/examples/moe_decode.pbtxt", 160, 45),
    ] {
        let mut app = app_on(input, w, h, skope::tui::config::Config::default());
        // The middle-most op with a producer and a consumer (an aclgraph task: the tasks
        // before and after it on its stream, or an event's other end).
        let name = {
            let graph = app.explorer().unwrap().ws.graph();
            let order = graph.exec_order();
            let linked = |id: &&skope::graph::OpId| {
                graph.predecessors(**id).next().is_some() && graph.successors(**id).next().is_some()
            };
            let middle = order.len() / 2;
            let id = order[middle..].iter().find(linked).expect("a linked op");
            graph.op(*id).name.clone()
        };
        app.handle(Msg::Key(KeyEvent::new(
            KeyCode::Char('/'),
            KeyModifiers::NONE,
        )));
        keys(&mut app, &format!("name:{name}"));
        press(&mut app, KeyCode::Enter);
        assert_eq!(selected_name(&app), name, "{input}");
        press(&mut app, KeyCode::Char('V'));
        assert_eq!(app.up(), Some("dataflow"), "{input}");
        assert_eq!(centre(&app), name, "{input}");
        assert!(
            view(&app).hood.links.len() >= 2,
            "{input}: {:?}",
            view(&app).hood
        );
        let shown = skope::text::cut_middle(&name, 40);
        assert!(
            screen(&app).contains(&format!("Dataflow · {shown}")),
            "{input}"
        );
        press(&mut app, KeyCode::Char('k'));
        assert_ne!(centre(&app), name, "{input}: up follows an edge");
    }
}
