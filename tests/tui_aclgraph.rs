//! The explorer on the aclgraph pass's output: the model directory opens as one graph of
//! tasks per stream with the pass's SuperKernels as segments and its cuts as breaks, every
//! task's verdict in the pass's words; the plan is read, so edits and the code view say why
//! they do not apply.

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;
use skope::tui::config::Config;

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
    // A fused kernel names its SuperKernel; a marker says what it is.
    find(&mut app, "GroupedMatmulFinalizeRouting_9d9d#62");
    let text = screen(&app);
    assert!(text.contains("fused into SuperKernel 24"), "{text}");
    find(&mut app, "begin moe_1#56");
    assert!(screen(&app).contains("scope begin marker"));
}

#[test]
fn edits_and_the_code_view_say_why_they_do_not_apply() {
    let mut app = app_on(MODEL, 160, 45, Config::default());
    find(&mut app, "Cast_f00d#33");
    let before = app.explorer().unwrap().ws.plan().clone();
    press(&mut app, KeyCode::Char('d'));
    let text = screen(&app);
    assert!(
        text.contains("this plan is what the aclgraph pass did"),
        "{text}"
    );
    assert_eq!(app.explorer().unwrap().ws.plan(), &before);
    find(&mut app, "ApplyRotaryPosEmb_9ef39792#6");
    press(&mut app, KeyCode::Char('e'));
    let text = screen(&app);
    assert!(
        text.contains("runs the prebuilt sk_entry_* kernel"),
        "{text}"
    );
}
