//! The explorer on the aclgraph pass's output: the model directory opens as one graph of
//! tasks per stream with the pass's SuperKernels as segments and its cuts as breaks, every
//! task's verdict in the pass's words; an edit re-plans with skope's prediction, undo brings
//! the pass's own result back, and the code view says there is no generated entry.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::config::Config;

const MODEL: &str = "assets/examples/aclgraph";

#[test]
fn the_model_directory_opens_as_the_pass_left_it() {
    let mut app = app_on(MODEL, 160, 45, Config::default());
    let text = screen(&app);
    assert!(
        text.contains("aclgraph · 69 ops · 5 scopes → 7 segments · ✗ 4 breaks"),
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
