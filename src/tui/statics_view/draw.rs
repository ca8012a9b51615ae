//! Drawing the static kernels view: which op types a static kernel compile built, for which input
//! signatures (one binary each); what it saw and left out, grouped by why; and the graph's ops
//! of compiled types, each marked by whether its input shapes got a kernel — a join the view
//! says is a guess — with each op's time in the base profile when profiles are read.

use super::{RowKind, StaticsView};
use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::layout::{self, statics_list};
use crate::tui::profile_view::state::ProfileView;
use crate::tui::theme::Role;
use crate::tui::views::{pane_block, put};
use ratatui::Frame;
use ratatui::layout::Rect;

/// Width of the time column.
const TIME: u16 = 12;

/// Draws the static kernels view over the body `area`.
pub fn render(
    app: &App,
    view: &StaticsView,
    profiles: Option<&ProfileView>,
    frame: &mut Frame,
    area: Rect,
) {
    let theme = &app.config.theme;
    let keymap = &app.config.keymap;
    let title = format!(
        " Static kernels · {} op type(s), {} binary(ies) · {} ",
        view.summary.compiled.len(),
        view.binaries(),
        sanitize(&view.dir.display().to_string())
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let inner = layout::inner(area);
    let buf = frame.buffer_mut();
    let (x, w) = (inner.x, inner.width);
    // What the time column holds, or how to get it.
    let time_of = |name: &str| profiles.and_then(|p| p.base_kernel_us(name));
    let about = match (&view.summary.graph, profiles) {
        (Some(join), Some(_)) => {
            let total = |names: &[String]| -> f64 { names.iter().filter_map(|n| time_of(n)).sum() };
            format!(
                "base profile: {:.1} µs in ops with a static kernel, {:.1} µs in ops of compiled \
                 types without one",
                total(&join.with_kernel),
                total(&join.other_shapes)
            )
        }
        (Some(_), None) => format!(
            "ops joined by type and input shapes (a guess: the outputs do not name the graph's \
             ops) · {} reads profiles for their time",
            keymap.hint(Action::LoadProfiles)
        ),
        (None, _) => "no graph to join".to_string(),
    };
    put(buf, x, inner.y, w, &about, theme.get(Role::Dim));
    let keys = format!(
        "{} go to the graph · {} back",
        keymap.hint(Action::Activate),
        keymap.hint(Action::Back)
    );
    put(buf, x, inner.y + 1, w, &keys, theme.get(Role::Key));
    let list = statics_list(area);
    for (i, row) in view
        .rows
        .iter()
        .enumerate()
        .skip(view.list.offset)
        .take(usize::from(list.height))
    {
        let y = list.y + (i - view.list.offset) as u16;
        let (role, indent) = match row.kind {
            RowKind::Heading => (Role::Title, 0),
            RowKind::Group => (Role::Text, 2),
            RowKind::Item => (Role::Dim, 4),
            RowKind::WithKernel => (Role::Good, 2),
            RowKind::OtherShapes => (Role::Break, 2),
            RowKind::Note => (Role::Warning, 0),
            RowKind::Problem => (Role::Error, 0),
        };
        let mut style = theme.get(role);
        if i == view.list.selected {
            style = style.patch(theme.get(Role::Selection));
        }
        buf.set_style(Rect::new(x, y, w, 1), style);
        let time = row.op.as_deref().and_then(time_of);
        let text_width = if time.is_some() {
            w.saturating_sub(TIME + indent)
        } else {
            w.saturating_sub(indent)
        };
        put(
            buf,
            x + indent.min(w),
            y,
            text_width,
            &sanitize(&row.text),
            style,
        );
        if let Some(us) = time {
            let shown = format!("{us:>9.2} µs");
            put(buf, x + w.saturating_sub(TIME), y, TIME, &shown, style);
        }
    }
}
