//! The inside of a SuperKernel: the bundled aclgraph model's sk_prof records of the selected
//! SuperKernel folded into end-to-end, Cube and Vector lanes on the device clock; occurrences
//! split by a gap and stepped through; an incomplete buffer said.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::config::Config;
use skope::tui::inside_view::InsideView;
use std::path::Path;

const MODEL: &str = "assets/examples/aclgraph";

fn view(app: &skope::tui::app::App) -> &InsideView {
    app.view_state::<InsideView>()
        .expect("the inside view's state")
}

#[test]
fn the_selected_superkernel_opens_in_lanes() {
    let mut app = app_on(MODEL, 120, 40, Config::default());
    find(&mut app, "RmsNorm_5cce7ee1#4");
    press(&mut app, KeyCode::Char('I'));
    assert_eq!(app.up(), Some("inside"), "{:?}", app.status);
    let v = view(&app);
    assert_eq!(v.sk_id, 14);
    assert_eq!(v.occurrences.len(), 1);
    let occ = &v.occurrences[0];
    // From the bundled records: the whole SuperKernel 13.7 µs from 1700.0, RmsNorm then
    // ApplyRotaryPosEmb on Vector, the matmul on Cube.
    assert_eq!(
        occ.whole.as_ref().map(|w| (w.start, w.end)),
        Some((0, 13_700))
    );
    assert_eq!(occ.vector.len(), 2);
    assert_eq!(occ.cube.len(), 1);
    assert_eq!((occ.cube[0].start, occ.cube[0].cores), (4_900, 2));
    let text = screen(&app);
    assert!(text.contains("Inside sk_14_attn_0_start_RmsNorm"), "{text}");
    assert!(
        text.contains("13.70 µs end to end · 1 on Cube, 2 on Vector"),
        "{text}"
    );
    assert!(!text.contains("buffer is full"), "{text}");
    insta::assert_snapshot!("inside_120x40", text);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.up(), None);
}

#[test]
fn occurrences_split_by_a_gap_and_a_full_buffer_is_said() {
    // The bundled model with SuperKernel 14 run three times, 2 ms apart, and a log whose
    // buffer filled.
    let dir = crate::common::scratch("tui-inside");
    let root = dir.join("aclgraph");
    copy_dir(Path::new(MODEL), &root);
    let prof = root.join("sk_meta/4711/sk_prof_device_0.json");
    let text = std::fs::read_to_string(&prof).expect("read");
    let sk14: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("\"skId\": 14"))
        .map(|l| l.trim_start_matches('[').trim_end_matches(','))
        .collect();
    let mut lines: Vec<String> = Vec::new();
    for k in 0..3 {
        for l in &sk14 {
            let shifted = l.replace("\"ts\": 17", &format!("\"ts\": {}7", 1 + 2 * k));
            lines.push(shifted);
        }
    }
    lines.push("{}".into());
    std::fs::write(&prof, format!("[{}]", lines.join(",\n"))).expect("write");
    std::fs::write(
        root.join("sk_meta/4711/super_kernel.log"),
        "[INFO] start\n[WARNING] buffer is full, stop dump the time of nodes\n",
    )
    .expect("write the log");
    let mut app = app_on(&root.to_string_lossy(), 120, 40, Config::default());
    find(&mut app, "RmsNorm_5cce7ee1#4");
    press(&mut app, KeyCode::Char('I'));
    assert_eq!(app.up(), Some("inside"), "{:?}", app.status);
    assert_eq!(view(&app).occurrences.len(), 3);
    let text = screen(&app);
    assert!(text.contains("occurrence 1 of 3"), "{text}");
    assert!(text.contains("these lanes are incomplete"), "{text}");
    press(&mut app, KeyCode::Char(']'));
    assert_eq!(view(&app).at, 1);
    assert!(screen(&app).contains("occurrence 2 of 3"));
    // Splitting only at gaps of 3.2 ms joins them into one.
    for _ in 0..5 {
        press(&mut app, KeyCode::Char('>'));
    }
    assert_eq!(view(&app).occurrences.len(), 1);
}

#[test]
fn without_a_superkernel_selected_or_without_records_it_says_why() {
    let mut app = app_on(MODEL, 120, 40, Config::default());
    find(&mut app, "begin moe_1#56");
    press(&mut app, KeyCode::Char('I'));
    assert_eq!(app.up(), None);
    let said = status(&app);
    assert!(said.contains("select a SuperKernel's task"), "{said}");
    let mut app = app_on(
        "assets/examples/moe_decode.ge_proto.txt",
        120,
        40,
        Config::default(),
    );
    press(&mut app, KeyCode::Char('I'));
    let status = status(&app);
    assert!(
        status.contains("needs the aclgraph pass's output"),
        "{status}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy");
        }
    }
}
