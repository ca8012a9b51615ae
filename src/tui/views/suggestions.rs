//! The suggestions view: the suggested scopes ranked, one row each — estimated saving per
//! step (or boundaries removed, said as a count), ops, stream, the run's first and last op and
//! how it stands against the user's scopes — under a line that says how the saving is
//! estimated (skope's assumed coefficients, or fitted with the leave-one-out error), and the
//! selected one's ops below when asked.

use super::{pane_block, put};
use crate::suggest::Versus;
use crate::text::sanitize;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::layout::suggestion_parts;
use crate::tui::suggestions::SuggestionsView;
use crate::tui::theme::Role;
use ratatui::Frame;
use ratatui::layout::Rect;

/// Draws the suggestions view over the body `area`.
pub fn render(app: &App, view: &SuggestionsView, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let keymap = &app.config.keymap;
    let s = &view.suggestions;
    // Ranked by boundaries when the fitted model cannot tell the candidates apart.
    let order = match (view.sort, &s.ranked_by_boundaries) {
        (crate::tui::suggestions::Sort::Saving, Some(_)) => {
            "by boundaries (the fit cannot tell them apart)"
        }
        _ => view.sort.label(),
    };
    let title = format!(
        " Suggested scopes · {} · {} · the saving is an estimate{} ",
        s.list.len(),
        order,
        if view.stale {
            " · making them for the current plan…"
        } else {
            ""
        }
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let (table, ops_area) = suggestion_parts(area, view.expanded);
    let buf = frame.buffer_mut();
    let (x, w) = (table.x, table.width);
    let model = match (s.measured, &view.fit) {
        (false, _) => format!(
            "no profile: ranked by kernel boundaries removed — a count, not a time ({} loads \
             profiles)",
            keymap.hint(Action::LoadProfiles)
        ),
        (true, None) => format!(
            "µs per step from measured gaps with skope's assumed coefficients (a={:.2} b={:.2} \
             c_same={:.2} c_cross={:.2} c0={:.2} µs); a profile pair calibrates them",
            s.coefficients.a,
            s.coefficients.b,
            s.coefficients.c_same,
            s.coefficients.c_cross,
            s.coefficients.c0
        ),
        (true, Some(f)) => format!(
            "µs per step, coefficients fitted on {} segments: leave-one-out error {:.2} µs mean, \
             {:.2} µs worst{}",
            f.segments,
            f.loo_mean_us,
            f.loo_worst_us,
            match (f.rejected.is_empty(), f.doubtful.is_empty()) {
                (true, true) => String::new(),
                (false, _) => format!(
                    " · refitted without {} (wrong sign; defaults kept)",
                    f.rejected.join(", ")
                ),
                (true, false) => format!(" · doubtful: {}", f.doubtful.join(", ")),
            }
        ),
    };
    let role = if view
        .fit
        .as_ref()
        .is_some_and(|f| !f.doubtful.is_empty() || !f.rejected.is_empty())
    {
        Role::Warning
    } else {
        Role::Dim
    };
    put(buf, x, table.y, w, &model, theme.get(role));
    let keys = format!(
        "{} accept · {} accept all that fit · {} ops · {} sort · {} back",
        keymap.hint(Action::AcceptSuggestion),
        keymap.hint(Action::AcceptAllSuggestions),
        keymap.hint(Action::Activate),
        keymap.hint(Action::Sort),
        keymap.hint(Action::Back)
    );
    put(buf, x, table.y + 1, w, &keys, theme.get(Role::Key));
    let header = format!(
        "{:>3} {:>12} {:>4} {:>3}  {:<40} {}",
        "#",
        if s.measured { "µs/step" } else { "boundaries" },
        "ops",
        "s",
        "first … last",
        "vs your scopes"
    );
    put(buf, x, table.y + 2, w, &header, theme.get(Role::Title));
    let height = usize::from(table.height.saturating_sub(3));
    if s.list.is_empty() {
        let why = if view.stale {
            "making suggestions…"
        } else {
            "no run of two fusible ops on any stream: nothing to suggest"
        };
        put(buf, x, table.y + 3, w, why, theme.get(Role::Dim));
    }
    for (i, row) in (view.offset..view.order.len()).take(height).enumerate() {
        let Some(sg) = view.at(row) else { break };
        let value = match sg.saving_us {
            Some(us) => format!("{us:>12.1}"),
            None => format!("{:>12}", sg.boundaries),
        };
        let (first, last) = (&sg.first_op, &sg.last_op);
        let span: String = format!("{first} … {last}").chars().take(40).collect();
        let versus = match &sg.versus {
            Versus::New => "new".to_string(),
            Versus::Same(seg) => format!("fused already as {seg}"),
            Versus::Overlaps(segs) => format!("takes ops of {}", segs.join(", ")),
        };
        let stream: Vec<String> = sg.streams.iter().map(i64::to_string).collect();
        let stream = stream.join("+");
        let text = format!(
            "{:>3} {value} {:>4} {:>3}  {:<40} {}",
            row + 1,
            sg.ops.len(),
            stream,
            span,
            versus
        );
        let mut style = if sg.saving_us.is_some_and(|us| us <= 0.0) {
            theme.get(Role::Dim)
        } else {
            theme.get(Role::Text)
        };
        if row == view.selected {
            style = style.patch(theme.get(Role::Selection));
        }
        let y = table.y + 3 + i as u16;
        buf.set_style(Rect::new(x, y, w, 1), style);
        put(buf, x, y, w, &sanitize(&text), style);
    }
    let (Some(ops), Some(sg)) = (ops_area, view.current()) else {
        return;
    };
    let head = format!(
        "{} · {} ops · starts after {} · ends before {}",
        sg.name,
        sg.ops.len(),
        sg.starts_after,
        sg.ends_before
    );
    put(
        buf,
        ops.x,
        ops.y,
        ops.width,
        &sanitize(&head),
        theme.get(Role::Title),
    );
    // The ops, as many to a line as fit, on the lines there are.
    let mut lines: Vec<String> = vec![String::new()];
    let Some(graph) = app.explorer().map(|ex| ex.ws.graph()) else {
        return;
    };
    for name in sg.ops.iter().map(|&id| &graph.op(id).name) {
        let Some(line) = lines.last_mut() else { break };
        if !line.is_empty()
            && line.chars().count() + name.chars().count() + 2 > usize::from(ops.width)
        {
            lines.push(name.clone());
            continue;
        }
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(name);
    }
    for (line, y) in lines.iter().zip(ops.y + 1..ops.y + ops.height) {
        put(
            buf,
            ops.x,
            y,
            ops.width,
            &sanitize(line),
            theme.get(Role::Text),
        );
    }
}
