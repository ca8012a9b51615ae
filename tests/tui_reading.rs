//! Reading the screen on a small terminal: a break's reason and fix first in the details, the
//! details over the whole body (`z`), the messages of the bottom line in full (`M`), and the
//! plan's findings listed with a way to each (`!`).

use crate::ui::*;
use ratatui::crossterm::event::KeyCode;

#[test]
fn at_80x24_a_breaks_reason_and_fix_are_the_first_lines_of_its_details() {
    let mut app = app(80, 24);
    press(&mut app, KeyCode::Char(']'));
    let text = screen(&app);
    assert!(
        text.contains("✗ breaks scope moe_0: type not adapted to SuperKernel"),
        "{text}"
    );
    assert!(
        text.contains("fix       only a model change heals it"),
        "{text}"
    );
}

#[test]
fn z_gives_the_details_the_body_and_esc_gives_the_panes_back() {
    let mut app = app(80, 24);
    press(&mut app, KeyCode::Char(']'));
    press(&mut app, KeyCode::Char('z'));
    let text = screen(&app);
    assert!(
        !text.contains("Scopes 8"),
        "the tree gave its place: {text}"
    );
    for words in [
        "between   layer0_gating_topk … layer0_gmm_up",
        "verdict   unsupported",
    ] {
        assert!(text.contains(words), "{words}\n{text}");
    }
    // The next break keeps the details over the body.
    press(&mut app, KeyCode::Char(']'));
    assert!(screen(&app).contains("layer1_expert_ids_cast"));
    assert!(!screen(&app).contains("Scopes 8"));
    press(&mut app, KeyCode::Esc);
    let text = screen(&app);
    assert!(
        text.contains("Scopes 8") && text.contains("Ops (execution order)"),
        "{text}"
    );
}

#[test]
fn m_lists_the_messages_the_bottom_line_cut() {
    let mut app = app(80, 24);
    // A search that finds nothing says so; then an edit says what it did, in more words
    // than the line holds.
    press(&mut app, KeyCode::Char('/'));
    keys(
        &mut app,
        "name:no_such_op_anywhere_in_this_graph_at_all_whatsoever_really",
    );
    press(&mut app, KeyCode::Enter);
    find(&mut app, "layer2_mask_fill");
    press(&mut app, KeyCode::Char('a'));
    keys(&mut app, "attn_2");
    press(&mut app, KeyCode::Enter);
    let last = app.status.as_ref().unwrap().text.clone();
    assert!(last.len() > 80, "{last}");
    press(&mut app, KeyCode::Char('M'));
    let text = screen(&app);
    assert!(text.contains("message(s), newest first"), "{text}");
    // The newest, selected, in full under the list (wrapped): its end is on screen.
    let end: String = last
        .chars()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert!(text.contains(end.trim()), "{end}\n{text}");
    press(&mut app, KeyCode::Esc);
    assert!(app.dialog.is_none());
}
