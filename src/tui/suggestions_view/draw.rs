//! Drawing the suggestions view: the suggested scopes ranked, one row each — estimated saving per
//! step (or boundaries removed, said as a count), ops, stream, the run's first and last op and
//! how it stands against the user's scopes — under a line that says how the saving is
//! estimated (skope's assumed coefficients, or fitted with the leave-one-out error), and the
//! selected one's ops below when asked.

use super::SuggestionsView;
use crate::graph::Graph;
use crate::suggest::accept::Pick;
use crate::suggest::templates::LAYER;
use crate::suggest::{Suggestions, Versus};
use crate::text::{cut_middle, sanitize};
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::layout::suggestion_parts;
use crate::tui::theme::Role;
use crate::tui::views::{pane_block, put};
use ratatui::Frame;
use ratatui::layout::Rect;

/// Draws the suggestions view over the body `area`.
pub fn render(app: &App, view: &SuggestionsView, frame: &mut Frame, area: Rect) {
    let theme = &app.config.theme;
    let keymap = &app.config.keymap;
    let s = &view.suggestions;
    // Ranked by boundaries when the fitted model cannot tell the candidates apart.
    let order = match (view.sort, &s.ranked_by_boundaries) {
        (super::Sort::Saving, Some(_)) => "by boundaries (the fit cannot tell them apart)",
        _ => view.sort.label(),
    };
    // While they are made, that comes first: the rest may be cut at the border.
    let title = format!(
        " Suggested scopes{} · {}{} template(s), {} per layer · {} · the saving is an estimate ",
        if view.stale {
            " (making them for the current plan…)"
        } else {
            ""
        },
        match s.remedies.len() {
            0 => String::new(),
            n => format!("{n} exclusion(s), "),
        },
        s.templates.len(),
        s.list.len(),
        order,
    );
    frame.render_widget(pane_block(title, true, theme), area);
    let (table, details_area) = suggestion_parts(area, view.expanded);
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
             c_same={:.2} c_cross={:.2} c0={:.2} µs k={:.2}); a profile pair calibrates them",
            s.coefficients.a,
            s.coefficients.b,
            s.coefficients.c_same,
            s.coefficients.c_cross,
            s.coefficients.c0,
            s.coefficients.k
        ),
        (true, Some(f)) => format!(
            "µs per step, fitted on {} SuperKernels{}: error {:.2} µs leaving one out{}",
            f.segments,
            match f.steps {
                0 | 1 => String::new(),
                n => format!(" (means over {n} steps)"),
            },
            f.loo_mean_us,
            match &f.left_out_steps {
                Some(left) => format!(", {:.2} µs leaving a step out", left.mean_us),
                None => String::new(),
            },
        ),
    };
    // What to take with care: terms refitted or doubtful, and why the ranking is by boundaries.
    let mut caveats: Vec<String> = Vec::new();
    if let Some(f) = &view.fit {
        let names = |terms: &[String]| {
            let names: Vec<&str> = terms
                .iter()
                .map(|t| t.split('=').next().unwrap_or(t))
                .collect();
            names.join(", ")
        };
        if !f.rejected.is_empty() {
            caveats.push(format!(
                "refitted without {} (wrong sign; defaults kept)",
                names(&f.rejected)
            ));
        }
        if !f.doubtful.is_empty() {
            caveats.push(format!("doubtful: {}", f.doubtful.join(", ")));
        }
    }
    if s.ranked_by_boundaries.is_some() {
        caveats.push("ranked by boundaries: the error is not below the savings' steps".to_string());
    }
    let role = if caveats.is_empty() {
        Role::Dim
    } else {
        Role::Warning
    };
    put(buf, x, table.y, w, &model, theme.get(Role::Dim));
    put(
        buf,
        x,
        table.y + 1,
        w,
        &caveats.join(" · "),
        theme.get(role),
    );
    let whole = match &s.whole_model {
        Some(whole) => whole.words(),
        None => String::new(),
    };
    put(buf, x, table.y + 2, w, &whole, theme.get(Role::Text));
    let keys = format!(
        "{} accept (a template: one scope in every layer, one undo step) · {} accept all that fit \
         · {} details · {} copy its code · {} sort · {} back",
        keymap.hint(Action::AcceptSuggestion),
        keymap.hint(Action::AcceptAllSuggestions),
        keymap.hint(Action::Activate),
        keymap.hint(Action::CopyCode),
        keymap.hint(Action::Sort),
        keymap.hint(Action::Back)
    );
    put(buf, x, table.y + 3, w, &keys, theme.get(Role::Key));
    // The scope and first … last columns share what the fixed ones leave, with room kept for
    // what it is: 30 and 44 wide from 158 columns, narrower below.
    let free = usize::from(w).saturating_sub(26);
    let (name_w, span_w) = ((free * 3 / 10).clamp(8, 30), (free * 9 / 20).clamp(10, 44));
    let header = format!(
        "{:>3} {:>10} {:>5} {:>3}  {:<name_w$} {:<span_w$} {}",
        "#",
        if s.measured { "µs/step" } else { "boundaries" },
        "ops",
        "s",
        "scope",
        "first … last",
        "what it is"
    );
    put(buf, x, table.y + 4, w, &header, theme.get(Role::Title));
    let head = crate::tui::layout::SUGGESTION_HEAD;
    let height = usize::from(table.height.saturating_sub(head));
    if view.rows.is_empty() {
        let why = if view.stale {
            "making suggestions…".to_string()
        } else if let Some(why) = s.not_offered {
            format!("no suggestions: {why}")
        } else {
            format!(
                "nothing adds to the current plan ({} template(s) and {} candidate(s) left out: \
                 fused already, or nothing saved)",
                s.templates_adding_nothing, s.adding_nothing
            )
        };
        put(buf, x, table.y + head, w, &why, theme.get(Role::Dim));
    }
    for (i, row) in (view.rows.selection.offset..view.rows.len())
        .take(height)
        .enumerate()
    {
        let Some(pick) = view.at(row) else { break };
        let Some(line) = row_text(s, pick) else {
            continue;
        };
        let text = format!(
            "{:>3} {:>10} {:>5} {:>3}  {:<name_w$} {:<span_w$} {}",
            row + 1,
            line.value,
            line.ops,
            line.streams,
            cut_middle(&line.name, name_w),
            cut_middle(&line.span, span_w),
            line.what
        );
        let mut style = theme.get(Role::Text);
        if row == view.rows.selection.selected {
            style = style.patch(theme.get(Role::Selection));
        }
        let y = table.y + head + i as u16;
        buf.set_style(Rect::new(x, y, w, 1), style);
        put(buf, x, y, w, &sanitize(&text), style);
    }
    let (Some(below), Some(pick)) = (details_area, view.current()) else {
        return;
    };
    let Some(graph) = app.explorer().map(|ex| ex.ws.graph()) else {
        return;
    };
    let width = usize::from(below.width);
    // Long lines (the code to paste) go on over the next lines, indented.
    let mut lines: Vec<(bool, String)> = Vec::new();
    for (k, line) in details(s, pick, graph, width).into_iter().enumerate() {
        let chars: Vec<char> = sanitize(&line).chars().collect();
        let mut rest: &[char] = &chars;
        let mut first = true;
        while !rest.is_empty() || first {
            let room = if first {
                width
            } else {
                width.saturating_sub(2)
            }
            .max(1);
            let (head, tail) = rest.split_at(room.min(rest.len()));
            let text: String = head.iter().collect();
            lines.push((k == 0, if first { text } else { format!("  {text}") }));
            rest = tail;
            first = false;
        }
    }
    for ((title, line), y) in lines.iter().zip(below.y..below.y + below.height) {
        let role = if *title { Role::Title } else { Role::Text };
        put(buf, below.x, y, below.width, line, theme.get(role));
    }
}

/// One row of the table, in words.
struct Row {
    value: String,
    ops: String,
    streams: String,
    name: String,
    span: String,
    what: String,
}

/// The row of `pick`: a template by the scope it writes in every layer, a per-layer
/// suggestion by its own.
fn row_text(s: &Suggestions, pick: Pick) -> Option<Row> {
    let value = |saving: Option<f64>, boundaries: usize| match saving {
        Some(us) => format!("{us:.1}"),
        None => boundaries.to_string(),
    };
    Some(match pick {
        Pick::Remedy(i) => {
            let r = s.remedies.get(i)?;
            Row {
                value: String::new(),
                ops: r.exclude.len().to_string(),
                streams: String::new(),
                name: "(exclusion)".to_string(),
                span: format!("{} … {}", r.first, r.last),
                what: format!(
                    "{} · SuperKernels {} → {}, one-kernel {} → {}",
                    match r.places {
                        1 => "once".to_string(),
                        n => format!("{n} layers"),
                    },
                    r.before.superkernels,
                    r.after.superkernels,
                    r.before.single,
                    r.after.single
                ),
            }
        }
        Pick::Template(i) => {
            let t = s.templates.get(i)?;
            let splits: Vec<&str> = t.splits.iter().map(|(layer, _)| layer.as_str()).collect();
            Row {
                value: value(t.saving_us, t.boundaries),
                ops: t.units.iter().map(Vec::len).sum::<usize>().to_string(),
                streams: String::new(),
                name: format!("{}_{LAYER}", t.name),
                span: format!("{} … {}", t.first.0, t.last.0),
                what: format!(
                    "every layer ({}) · {} SK, {} distinct{}",
                    t.layers.len(),
                    t.superkernels,
                    t.distinct,
                    if splits.is_empty() {
                        String::new()
                    } else {
                        format!(" · splits in {}", splits.join(","))
                    }
                ),
            }
        }
        Pick::Single(i) => {
            let sg = s.list.get(i)?;
            let streams: Vec<String> = sg.streams.iter().map(i64::to_string).collect();
            Row {
                value: value(sg.saving_us, sg.boundaries),
                ops: sg.ops.len().to_string(),
                streams: streams.join("+"),
                name: sg.name.clone(),
                span: format!("{} … {}", sg.first_op, sg.last_op),
                what: match (&sg.loop_over_layers, &sg.versus) {
                    (Some((a, b)), _) => format!("around the loop over layers {a}–{b}"),
                    (None, Versus::New) => "new".to_string(),
                    (None, Versus::Same(seg)) => format!("fused already as {seg}"),
                    (None, Versus::Overlaps(segs)) => format!("takes ops of {}", segs.join(", ")),
                },
            }
        }
    })
}

/// The lines below the table for `pick`: a template's code to paste and where it splits; a
/// suggestion's code, ends and ops (as many to a line as fit in `width`).
fn details(s: &Suggestions, pick: Pick, graph: &Graph, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    match pick {
        Pick::Remedy(i) => {
            let Some(r) = s.remedies.get(i) else {
                return lines;
            };
            lines.push(format!("{} · {}", r.what(), r.why));
            lines.push(format!(
                "checked by skope's prediction of the pass: {}",
                r.effect()
            ));
            lines.extend(r.code.lines().map(|l| format!("aclgraph: {l}")));
        }
        Pick::Template(i) => {
            let Some(t) = s.templates.get(i) else {
                return lines;
            };
            let code = t.code();
            lines.push(format!(
                "{}_{LAYER} · from {} ({}) to {} ({}) · layers {}",
                t.name,
                t.first.0,
                t.first.1,
                t.last.0,
                t.last.1,
                t.layers.join(",")
            ));
            lines.push(format!("TorchAir: {}", code.torchair));
            lines.push(format!("aclgraph: {}", code.aclgraph));
            if !t.missing.is_empty() {
                lines.push(format!(
                    "not in layer(s) {} (an end is missing there)",
                    t.missing.join(", ")
                ));
            }
            for (layer, cuts) in &t.splits {
                lines.push(format!("splits in layer {layer}: {}", cuts.join("; ")));
            }
        }
        Pick::Single(i) => {
            let Some(sg) = s.list.get(i) else {
                return lines;
            };
            let code = sg.code();
            lines.push(format!(
                "{} · {} ops · starts after {} · ends before {}",
                sg.name,
                sg.ops.len(),
                sg.starts_after,
                sg.ends_before
            ));
            lines.push(format!("TorchAir: {}", code.torchair));
            lines.push(format!("aclgraph: {}", code.aclgraph));
            let mut line = String::new();
            for name in sg.ops.iter().map(|&id| &graph.op(id).name) {
                if !line.is_empty() && line.chars().count() + name.chars().count() + 2 > width {
                    lines.push(std::mem::take(&mut line));
                }
                if !line.is_empty() {
                    line.push_str("  ");
                }
                line.push_str(name);
            }
            lines.push(line);
        }
    }
    lines
}
