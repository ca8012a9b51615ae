//! The suggestions view: it lists the suggested scopes of the current plan, says how their
//! saving is estimated, lists a suggestion's ops, and accepts one or all as ordinary edits that
//! undo and that the plan follows.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::suggest::accept::Pick;
use skope::tui::effect::Effect;

fn view(app: &skope::tui::app::App) -> &skope::tui::suggestions_view::SuggestionsView {
    app.view_state::<skope::tui::suggestions_view::SuggestionsView>()
        .unwrap()
}

#[test]
fn the_view_lists_templates_first_and_says_they_are_counted_without_profiles() {
    let mut app = app(160, 40);
    press(&mut app, KeyCode::Char('S'));
    let text = screen(&app);
    assert!(
        text.contains(
            "Suggested scopes · 5 template(s), 9 per layer · by saving · the saving is an estimate"
        ),
        "{text}"
    );
    assert!(
        text.contains("ranked by kernel boundaries removed — a count, not a time"),
        "{text}"
    );
    // The whole model if all that fit were accepted: the `layer` template and the head.
    assert!(
        text.contains("+7 boundaries fused (65 → 72) · SuperKernels 13 → 9"),
        "{text}"
    );
    // Templates first: the whole layer in all four, with where it splits.
    assert_eq!(view(&app).current(), Some(Pick::Template(0)));
    assert!(
        text.contains("layer_{i}")
            && text.contains("layer{i}_input_rmsnorm … layer{i}_moe_add")
            && text.contains("every layer (4) · 8 SK, 6 distinct · splits in 0,1,3"),
        "{text}"
    );
    // Nothing that crosses a layer; layer 2 whole is the best per-layer one.
    assert!(!text.contains("layer1_gmm_up … layer3_rope"), "{text}");
    assert!(
        text.contains("layer2_input_rmsnorm … layer2_moe_add"),
        "{text}"
    );
    insta::assert_snapshot!("suggestions_160x40", text);
    // enter shows the template's code to paste and its splits.
    press(&mut app, KeyCode::Enter);
    let text = screen(&app);
    assert!(view(&app).expanded);
    assert!(
        text.contains(
            "TorchAir: with torchair.scope.super_kernel(f\"layer_{i}\", \"\"):  # around layer{i}_input_rmsnorm … layer{i}_moe_add"
        ),
        "{text}"
    );
    assert!(
        text.contains("aclgraph: torch.npu.super_kernel_scope_begin(f\"layer_{i}\") before layer{i}_input_rmsnorm"),
        "{text}"
    );
    assert!(
        text.contains("splits in layer 3: layer3_kv_scatter: SIMT op"),
        "{text}"
    );
    // A per-layer one lists its ops.
    for _ in 0..5 {
        press(&mut app, KeyCode::Char('j'));
    }
    let text = screen(&app);
    assert!(
        text.contains("layer2 · 18 ops · starts after layer1_moe_add"),
        "{text}"
    );
    press(&mut app, KeyCode::Char('s'));
    assert!(screen(&app).contains("by ops"));
    press(&mut app, KeyCode::Char('?'));
    assert!(screen(&app).contains("In the suggestions view"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert_ne!(app.up(), Some("suggestions"));
    assert!(screen(&app).contains("Ops (execution order) 137"));
}

#[test]
fn on_an_80x24_terminal_the_template_and_its_code_still_show() {
    let mut app = app(80, 24);
    press(&mut app, KeyCode::Char('S'));
    press(&mut app, KeyCode::Enter);
    let text = screen(&app);
    assert!(text.contains("layer_{i}"), "{text}");
    assert!(
        text.contains("TorchAir: with torchair.scope.super_kernel"),
        "{text}"
    );
    insta::assert_snapshot!("suggestions_80x24", text);
}

/// The scopes of `app`'s plan, each with its SuperKernels (segments of two ops or more).
fn superkernels(app: &skope::tui::app::App) -> Vec<(String, usize)> {
    let plan = app.explorer().unwrap().ws.plan();
    plan.scopes
        .iter()
        .map(|s| {
            let n = s.segments.iter().filter(|seg| seg.ops.len() >= 2).count();
            (s.name.clone(), n)
        })
        .collect()
}

#[test]
fn a_template_is_one_scope_in_every_layer_made_and_undone_as_one_step() {
    let mut app = app(160, 40);
    let before = app.explorer().unwrap().ws.plan().clone();
    press(&mut app, KeyCode::Char('S'));
    let template = view(&app).suggestions.templates[0].clone();
    press(&mut app, KeyCode::Char('a'));
    // Each layer's scope takes the whole region, as the `with` block in the code does.
    let ops: usize = template.units.iter().map(Vec::len).sum();
    let status = app.status.as_ref().unwrap().text.clone();
    assert!(
        status.contains(&format!("4 new scopes layer_0 … layer_3 of {ops} ops"))
            && status.contains("one undo step"),
        "{status}"
    );
    let plan = app.explorer().unwrap().ws.plan().clone();
    for (layer, ops) in template.layers.iter().zip(&template.units) {
        let scope = plan
            .scopes
            .iter()
            .find(|s| s.name == format!("layer_{layer}"))
            .unwrap_or_else(|| panic!("layer_{layer}"));
        let members: Vec<_> = scope.segments.iter().flat_map(|s| s.ops.clone()).collect();
        assert!(members.iter().all(|id| ops.contains(id)), "layer {layer}");
    }
    // The SuperKernels the template counted (of one op too), and no scope of the user's left
    // without one.
    let made: usize = plan
        .scopes
        .iter()
        .filter(|s| s.name.starts_with("layer_"))
        .map(|s| s.segments.len())
        .sum();
    assert_eq!(made, template.superkernels);
    let sk: Vec<(String, usize)> = superkernels(&app);
    assert!(sk.iter().all(|(_, k)| *k > 0), "{sk:?}");
    // One step: one undo takes all four back, one redo makes them again.
    assert_eq!(app.explorer().unwrap().ws.history_len(), (1, 0));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
    let status = app.status.as_ref().unwrap().text.clone();
    assert!(
        status.contains("4 new scopes layer_0 … layer_3"),
        "{status}"
    );
    app.handle(skope::tui::app::Msg::Key(
        ratatui::crossterm::event::KeyEvent::new(
            KeyCode::Char('r'),
            ratatui::crossterm::event::KeyModifiers::CONTROL,
        ),
    ));
    assert_eq!(app.explorer().unwrap().ws.plan(), &plan);
    // The suggestions follow: the template adds nothing now, and is not offered again.
    press(&mut app, KeyCode::Char('S'));
    assert!(
        view(&app)
            .suggestions
            .templates
            .iter()
            .all(|t| t.name != "layer" || t.first != template.first || t.last != template.last),
        "{:?}",
        view(&app).suggestions.templates
    );
}

#[test]
fn accepting_all_makes_scopes_leaves_none_empty_and_undo_takes_them_back() {
    let mut app = app(160, 40);
    let before = app.explorer().unwrap().ws.plan().clone();
    press(&mut app, KeyCode::Char('S'));
    let expected = view(&app).suggestions.whole_model.clone().unwrap();
    // A per-layer one first: it leaves the list, as it adds nothing now.
    let row = (0..view(&app).rows.len())
        .position(|row| matches!(view(&app).at(row), Some(Pick::Single(_))))
        .unwrap();
    for _ in 0..row {
        press(&mut app, KeyCode::Char('j'));
    }
    let top = view(&app).current_suggestion().unwrap().clone();
    press(&mut app, KeyCode::Char('a'));
    assert!(
        view(&app).suggestions.list.iter().all(|s| s.ops != top.ops),
        "accepted, and still offered"
    );
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
    press(&mut app, KeyCode::Char('S'));
    // Accept all: as the whole-model line said, each an undo step of its own.
    press(&mut app, KeyCode::Char('A'));
    let status = app.status.as_ref().unwrap().text.clone();
    assert!(
        status.contains("accepted 2 suggestion(s)")
            && status.contains("u undoes them one at a time"),
        "{status}"
    );
    let sk = superkernels(&app);
    let all = app
        .explorer()
        .unwrap()
        .ws
        .plan()
        .scopes
        .iter()
        .flat_map(|s| &s.segments)
        .count();
    assert_eq!(all, expected.superkernels.1);
    assert!(
        sk.iter().all(|(_, k)| *k > 0),
        "a scope left without a SuperKernel: {sk:?}"
    );
    assert_eq!(app.explorer().unwrap().ws.history_len().0, 2);
    press(&mut app, KeyCode::Esc);
    for _ in 0..2 {
        press(&mut app, KeyCode::Char('u'));
    }
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
}

#[test]
fn y_copies_the_selected_template_s_code() {
    let mut app = app(160, 40);
    press(&mut app, KeyCode::Char('S'));
    app.effects.take();
    press(&mut app, KeyCode::Char('y'));
    let effects = app.effects.take();
    let [Effect::Copy(sequence)] = effects.as_slice() else {
        panic!("one copy expected, got {effects:?}")
    };
    assert!(sequence.starts_with("\x1b]52;c;") && sequence.ends_with('\x07'));
    let status = app.status.as_ref().unwrap().text.clone();
    assert!(status.contains("copied the code of layer"), "{status}");
}

#[test]
fn with_the_profiles_read_the_saving_is_in_microseconds_and_the_fit_is_said() {
    let (mut app, rx) = app_with_events(120, 40);
    press(&mut app, KeyCode::Char('p'));
    app.handle(skope::tui::app::Msg::Key(
        ratatui::crossterm::event::KeyEvent::new(
            KeyCode::Char('u'),
            ratatui::crossterm::event::KeyModifiers::CONTROL,
        ),
    ));
    keys(&mut app, "assets/examples/prof_result");
    press(&mut app, KeyCode::Enter);
    pump(&mut app, &rx, |app| app.profiles_loading.is_none());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('S'));
    // They are made on the worker; the view says so until they come.
    assert!(screen(&app).contains("making them for the current plan"));
    pump(&mut app, &rx, |app| !view(app).stale);
    let text = screen(&app);
    assert!(text.contains("µs/step"), "{text}");
    assert!(
        text.contains("fitted on 12 SuperKernels (means over 5 steps): error 2.13 µs leaving one out, 1.82 µs leaving a step out"),
        "{text}"
    );
    // The bundled pair cannot tell the gap from the sync costs (nor see the kernels' own time
    // in the savings): they come out negative, and the view says they were left out.
    assert!(
        text.contains("refitted without c_same, c_cross, k (wrong sign"),
        "{text}"
    );
    let fit = view(&app).fit.as_ref().expect("a fit");
    assert!(
        fit.rejected.iter().any(|r| r.starts_with("c_same=-")),
        "{fit:?}"
    );
    // Fitted on the means over the pair's five steps, and judged on each step left out.
    assert_eq!(fit.steps, 5);
    let left = fit.left_out_steps.as_ref().expect("steps left out");
    assert_eq!(left.steps, 5);
    assert!(text.contains("5 steps"), "{text}");
    assert!(view(&app).suggestions.measured && view(&app).fit.is_some());
    // Accepting a suggestion changes the plan, not what the profiles' run built: the model
    // stays the one fitted on the pair.
    let before = view(&app).fit.as_ref().unwrap().coefficients;
    let version = app.explorer().unwrap().ws.version();
    press(&mut app, KeyCode::Char('a'));
    assert_ne!(app.explorer().unwrap().ws.version(), version, "accepted");
    pump(&mut app, &rx, |app| !view(app).stale);
    let after = view(&app).fit.as_ref().expect("still fitted");
    assert_eq!(after.coefficients, before);
    assert_eq!(after.segments, 12);
    let text = screen(&app);
    assert!(text.contains("fitted on 12 SuperKernels"), "{text}");
    assert!(!text.contains("assumed coefficients"), "{text}");
}
