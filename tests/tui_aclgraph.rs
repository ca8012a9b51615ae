//! The explorer on the aclgraph pass's output: the model directory opens as one graph of
//! tasks per stream with the pass's SuperKernels as segments and its cuts as breaks, every
//! task's verdict in the pass's words; an edit re-plans with skope's prediction, undo brings
//! the pass's own result back, and the code view says there is no generated entry.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::config::Config;
use skope::tui::effect::Effect;

const MODEL: &str = "assets/examples/aclgraph";

#[test]
fn the_model_directory_opens_as_the_pass_left_it() {
    let mut app = app_on(MODEL, 160, 45, Config::default());
    let text = screen(&app);
    assert!(
        text.contains("aclgraph · 69 ops · 5 scopes → 7 segments · ✗ 3 breaks"),
        "{text}"
    );
    assert!(text.contains("sk_14 3 ops MIX_AIC_1_2"), "{text}");
    // The unsupported attention kernel: the pass's reason, sub-reason and file.
    find(&mut app, "FusedInferAttentionScore_30ab9e11#7");
    let text = screen(&app);
    assert!(text.contains("dump — OP_UNSUPPORT"), "{text}");
    assert!(
        text.contains("[BINDMAP_INIT_EMPTY]: the kernel was not built"),
        "{text}"
    );
    assert!(text.contains("sk_fusion_fail_reasons.log"), "{text}");
    insta::assert_snapshot!("aclgraph_unsupported_160x45", text);
    // Device time per task from sk_prof_device_*.json in the op list's time column.
    assert!(text.contains("µs dev"), "{text}");
    assert!(text.contains("4.55"), "{text}");
    // A fused kernel names its SuperKernel; a marker says what it is.
    find(&mut app, "GroupedMatmulFinalizeRouting_9d9d#62");
    let text = screen(&app);
    assert!(text.contains("fused into SuperKernel 24"), "{text}");
    find(&mut app, "begin moe_1#56");
    assert!(screen(&app).contains("scope begin marker"));
}

#[test]
fn an_edit_re_plans_with_the_prediction_and_undo_brings_the_pass_back() {
    let mut app = app_on(MODEL, 160, 45, Config::default());
    let before = app.explorer().unwrap().ws.plan().clone();
    // lm_head, outside every scope, into a scope of its own: skope predicts a SuperKernel.
    find(&mut app, "MatMulV2_lm_head_5e5e#67");
    press(&mut app, KeyCode::Char('s'));
    keys(&mut app, "head");
    press(&mut app, KeyCode::Enter);
    let text = screen(&app);
    assert!(text.contains("6 scopes → 8 segments"), "{text}");
    let plan = app.explorer().unwrap().ws.plan();
    assert!(
        plan.findings[0]
            .message
            .starts_with("skope's prediction after your edits")
    );
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
    // The code view says there is no generated entry.
    find(&mut app, "ApplyRotaryPosEmb_9ef39792#6");
    press(&mut app, KeyCode::Char('e'));
    let text = screen(&app);
    assert!(
        text.contains("runs the prebuilt sk_entry_* kernel"),
        "{text}"
    );
}

#[test]
fn options_offer_the_deployed_presets_and_an_edited_cut_says_it_came_from_the_edit() {
    let mut app = app_on(MODEL, 160, 45, Config::default());
    let before = app.explorer().unwrap().ws.plan().clone();
    find(&mut app, "RmsNorm_5cce7ee1#4");
    // `o` opens no editor of another system's options: it says why, and offers the DCCI shapes
    // real deployments ship, each with its call.
    press(&mut app, KeyCode::Char('o'));
    assert!(app.explorer().unwrap().options.is_none());
    let text = screen(&app);
    assert!(
        text.contains("aclgraph options are given once per graph"),
        "{text}"
    );
    assert!(
        text.contains("copy a deployed DCCI preset's call"),
        "{text}"
    );
    assert!(text.contains("vLLM-Ascend's default"), "{text}");
    assert!(
        text.contains("optimize_options={\"dcci_after_kernel_end\": [\".*\"]}"),
        "{text}"
    );
    assert!(app.effects.take().is_empty());
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    let effects = app.effects.take();
    let [Effect::Copy(sequence)] = effects.as_slice() else {
        panic!("one copy expected, got {effects:?}")
    };
    assert!(sequence.starts_with("\x1b]52;c;"), "{sequence:?}");
    assert!(
        screen(&app)
            .contains("copied the super_kernel_optimize call of a cann-recipes-style launcher"),
        "{}",
        screen(&app)
    );
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
    press(&mut app, KeyCode::Char('u'));
    assert!(screen(&app).contains("nothing to undo"));
    // `x` on a fused task: the cut it makes comes from the edit, and says so.
    find(&mut app, "QuantBatchMatmulV3_d237d73d#5");
    press(&mut app, KeyCode::Char('x'));
    find(&mut app, "QuantBatchMatmulV3_d237d73d#5");
    let text = screen(&app);
    assert!(text.contains("evidence  edit"), "{text}");
    assert!(!text.contains("evidence  dump — (empty)"), "{text}");
}

#[test]
fn the_results_users_have_today_open_in_the_explorer() {
    let root = crate::common::scratch("tui-acl-today");
    // The logs alone.
    let fx = crate::common::acl_dirs::logs_only(&root.join("logs"));
    let mut app = app_on(&fx.dir.to_string_lossy(), 140, 40, Config::default());
    let text = screen(&app);
    assert!(text.contains("1 scope → 3 segments"), "{text}");
    find(&mut app, "MoeGatingTopK_dd44#5");
    assert!(screen(&app).contains("OP_UNSUPPORT"));
    // The per-op debug mode in the header.
    let dir = crate::common::acl_dirs::per_op(&root.join("per-op"));
    let app = app_on(&dir.to_string_lossy(), 160, 40, Config::default());
    let text = screen(&app);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains("! per-op debug mode")),
        "{text}"
    );
    // The whole-model scope's pieces in the scope's details.
    let fx = crate::common::acl_dirs::whole_model(&root.join("whole"));
    let mut app = app_on(&fx.dir.to_string_lossy(), 160, 60, Config::default());
    press(&mut app, KeyCode::BackTab);
    press(&mut app, KeyCode::Char('g'));
    let text = screen(&app);
    assert!(
        text.contains("whole-model scope full_model: 37 of the"),
        "{text}"
    );
    assert!(
        text.contains("layer 0 · 4 segment(s) · 8 sub-op(s)"),
        "{text}"
    );
    assert!(text.contains("#1 sk_101 · 3 sub-op(s)"), "{text}");
}

#[test]
fn a_whole_model_scope_s_exclusions_are_offered_first_and_accepted_as_one_step() {
    let root = crate::common::scratch("tui-acl-heal");
    let fx = crate::common::acl_dirs::whole_model(&root);
    let mut app = app_on(&fx.dir.to_string_lossy(), 160, 40, Config::default());
    let before = app.explorer().unwrap().ws.plan().clone();
    press(&mut app, KeyCode::Char('S'));
    let text = screen(&app);
    assert!(text.contains("2 exclusion(s)"), "{text}");
    assert!(
        text.contains("(exclusion)")
            && text.contains("4 layers · SuperKernels 17 → 9, one-kernel 9 → 1"),
        "{text}"
    );
    // What it is, checked by the prediction, and its code.
    press(&mut app, KeyCode::Enter);
    let text = screen(&app);
    assert!(
        text.contains("keep GroupedMatmulFinalizeRouting_l0 … MoeFinalizeRouting_l0 out of fusion in every layer (4 places)"),
        "{text}"
    );
    assert!(
        text.contains("aclgraph: torch.npu.super_kernel_scope_begin(None)  # before GroupedMatmulFinalizeRouting_l0"),
        "{text}"
    );
    // Accepted: the eight tasks kept out in one step; the pass's prediction builds 9.
    press(&mut app, KeyCode::Char('a'));
    let plan = app.explorer().unwrap().ws.plan();
    let sks = plan.scopes.iter().flat_map(|s| &s.segments).count();
    assert_eq!(sks, 9);
    assert_eq!(app.explorer().unwrap().ws.history_len(), (1, 0));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('u'));
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
}
