//! Rendering of a ratatui [`Buffer`] as an SVG picture of a terminal screen.

use std::fmt::Write as _;

use ratatui::buffer::{Buffer, Cell, CellWidth as _};
use ratatui::style::{Color, Modifier};

/// Width of one terminal cell in pixels: the advance of DejaVu Sans Mono at 15 px is 9.03 px, so
/// text lines up even where a viewer ignores `textLength`.
const CELL_W: u32 = 9;
/// Height of one terminal cell in pixels (15 px glyphs are 17.5 px tall, so box-drawing lines nearly join).
const CELL_H: u32 = 18;
/// Distance from the top of a cell to the text baseline in pixels.
const BASELINE: u32 = 14;
/// Space around the grid in pixels.
const MARGIN: u32 = 12;
const FONT: &str = "DejaVu Sans Mono, Menlo, Consolas, monospace";
const FONT_SIZE: u32 = 15;
const DEFAULT_FG: Rgb = rgb(0xcccccc);
const DEFAULT_BG: Rgb = rgb(0x1e1e1e);
/// The 16 ANSI colours (VS Code's dark terminal theme), in ANSI order 0..=15.
const ANSI: [u32; 16] = [
    0x000000, 0xcd3131, 0x0dbc79, 0xe5e510, 0x2472c8, 0xbc3fbc, 0x11a8cd, 0xe5e5e5, // normal
    0x666666, 0xf14c4c, 0x23d18b, 0xf5f543, 0x3b8eea, 0xd670d6, 0x29b8db, 0xffffff, // bright
];

/// A resolved colour.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Rgb(u8, u8, u8);

/// An [`Rgb`] from a `0xRRGGBB` literal.
const fn rgb(hex: u32) -> Rgb {
    Rgb((hex >> 16) as u8, (hex >> 8) as u8, hex as u8)
}

impl std::fmt::Display for Rgb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Everything that decides how a glyph is painted; equal styles share a `<text>` run.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct TextStyle {
    fg: Rgb,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
    strike: bool,
}

/// One glyph on the grid: a cell, widened over the cells a wide character covers.
struct Glyph {
    x: u32,
    cells: u32,
    text: String,
    bg: Rgb,
    style: Option<TextStyle>,
}

/// Renders a ratatui buffer as a standalone SVG image of a terminal screen.
pub fn buffer_to_svg(buffer: &Buffer, title: &str) -> String {
    let area = buffer.area;
    let (cols, rows) = (u32::from(area.width), u32::from(area.height));
    let (width, height) = (cols * CELL_W + 2 * MARGIN, rows * CELL_H + 2 * MARGIN);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">\n<title>{}</title>\n\
         <rect width=\"100%\" height=\"100%\" rx=\"6\" fill=\"{DEFAULT_BG}\"/>\n\
         <g font-family=\"{FONT}\" font-size=\"{FONT_SIZE}\" xml:space=\"preserve\">\n",
        escape(title)
    );
    for (row, y) in (area.top()..area.bottom()).enumerate() {
        let top = MARGIN + row as u32 * CELL_H;
        let glyphs = row_glyphs(buffer, y);
        for run in glyphs.chunk_by(|a, b| a.bg == b.bg) {
            if run[0].bg != DEFAULT_BG {
                let (x, w) = span(run);
                let _ = writeln!(
                    svg,
                    "<rect x=\"{x}\" y=\"{top}\" width=\"{w}\" height=\"{CELL_H}\" fill=\"{}\"/>",
                    run[0].bg
                );
            }
        }
        // Wide characters get a `<text>` of their own: their fallback fonts rarely match the grid.
        for run in glyphs.chunk_by(|a, b| a.style == b.style && a.cells == 1 && b.cells == 1) {
            let Some(style) = run[0].style else { continue };
            let text: String = run.iter().map(|g| g.text.as_str()).collect();
            if text.trim().is_empty() && !style.underline && !style.strike {
                continue;
            }
            let (x, w) = span(run);
            let _ = writeln!(
                svg,
                "<text x=\"{x}\" y=\"{}\" textLength=\"{w}\" lengthAdjust=\"spacingAndGlyphs\" \
                 fill=\"{}\"{}>{}</text>",
                top + BASELINE,
                style.fg,
                attributes(&style),
                escape(&text)
            );
        }
    }
    svg.push_str("</g>\n</svg>\n");
    svg
}

/// Pixel x and width of a run of glyphs.
fn span(run: &[Glyph]) -> (u32, u32) {
    let cells: u32 = run.iter().map(|g| g.cells).sum();
    (MARGIN + run[0].x * CELL_W, cells * CELL_W)
}

/// The glyphs of buffer row `y`, left to right; cells hidden by a wide character are skipped.
fn row_glyphs(buffer: &Buffer, y: u16) -> Vec<Glyph> {
    let area = buffer.area;
    let mut glyphs = Vec::new();
    let mut x = area.left();
    while x < area.right() {
        let cell = &buffer[(x, y)];
        let cells = cell_width(cell).clamp(1, area.right() - x);
        let (fg, bg) = colours(cell);
        let m = cell.modifier;
        let style = (!m.contains(Modifier::HIDDEN)).then_some(TextStyle {
            fg,
            bold: m.contains(Modifier::BOLD),
            dim: m.contains(Modifier::DIM),
            italic: m.contains(Modifier::ITALIC),
            underline: m.contains(Modifier::UNDERLINED),
            strike: m.contains(Modifier::CROSSED_OUT),
        });
        let mut text: String = cell.symbol().chars().filter(|&c| xml_char(c)).collect();
        if text.is_empty() {
            text.push(' ');
        }
        let rel_x = u32::from(x - area.left());
        glyphs.push(Glyph {
            x: rel_x,
            cells: u32::from(cells),
            text,
            bg,
            style,
        });
        x += cells;
    }
    glyphs
}

/// Width of a cell's symbol in cells (0 for an empty symbol).
fn cell_width(cell: &Cell) -> u16 {
    // A single byte is always one cell; ratatui debug-asserts on lone control bytes.
    if cell.symbol().len() == 1 {
        1
    } else {
        cell.cell_width()
    }
}

/// Foreground and background of a cell, with defaults and reversal applied.
fn colours(cell: &Cell) -> (Rgb, Rgb) {
    let fg = resolve(cell.fg).unwrap_or(DEFAULT_FG);
    let bg = resolve(cell.bg).unwrap_or(DEFAULT_BG);
    if cell.modifier.contains(Modifier::REVERSED) {
        (bg, fg)
    } else {
        (fg, bg)
    }
}

/// The RGB value of a colour, or `None` for the terminal's default.
fn resolve(color: Color) -> Option<Rgb> {
    let ansi = |i: usize| Some(rgb(ANSI[i]));
    match color {
        Color::Reset => None,
        Color::Black => ansi(0),
        Color::Red => ansi(1),
        Color::Green => ansi(2),
        Color::Yellow => ansi(3),
        Color::Blue => ansi(4),
        Color::Magenta => ansi(5),
        Color::Cyan => ansi(6),
        Color::Gray => ansi(7),
        Color::DarkGray => ansi(8),
        Color::LightRed => ansi(9),
        Color::LightGreen => ansi(10),
        Color::LightYellow => ansi(11),
        Color::LightBlue => ansi(12),
        Color::LightMagenta => ansi(13),
        Color::LightCyan => ansi(14),
        Color::White => ansi(15),
        Color::Rgb(r, g, b) => Some(Rgb(r, g, b)),
        Color::Indexed(i) => Some(indexed(i)),
    }
}

/// The xterm-256 palette: 16 ANSI colours, a 6×6×6 cube, then 24 greys.
fn indexed(i: u8) -> Rgb {
    const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    match i {
        0..=15 => rgb(ANSI[usize::from(i)]),
        16..=231 => {
            let n = usize::from(i - 16);
            Rgb(LEVELS[n / 36], LEVELS[n / 6 % 6], LEVELS[n % 6])
        }
        _ => {
            let v = 8 + 10 * (i - 232);
            Rgb(v, v, v)
        }
    }
}

/// SVG presentation attributes for the modifiers of a text run.
fn attributes(style: &TextStyle) -> String {
    let mut out = String::new();
    if style.bold {
        out.push_str(" font-weight=\"bold\"");
    }
    if style.italic {
        out.push_str(" font-style=\"italic\"");
    }
    if style.dim {
        out.push_str(" opacity=\"0.6\"");
    }
    match (style.underline, style.strike) {
        (true, true) => out.push_str(" text-decoration=\"underline line-through\""),
        (true, false) => out.push_str(" text-decoration=\"underline\""),
        (false, true) => out.push_str(" text-decoration=\"line-through\""),
        (false, false) => {}
    }
    out
}

/// True for characters that XML 1.0 allows in text and that take up room on screen.
fn xml_char(c: char) -> bool {
    !c.is_control() && c != '\u{FFFE}' && c != '\u{FFFF}'
}

/// Escapes text for use in XML content and attribute values, dropping characters XML forbids.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().filter(|&c| xml_char(c)) {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    /// The `<text>` elements of an SVG, in order.
    fn texts(svg: &str) -> Vec<&str> {
        svg.lines().filter(|l| l.starts_with("<text")).collect()
    }

    #[test]
    fn escapes_markup_and_drops_forbidden_characters() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 12, 1));
        buf.set_string(0, 0, "a<b>&\"c\"", Style::default());
        buf[(10, 0)].set_symbol("\u{1}");
        let svg = buffer_to_svg(&buf, "T & <t>");
        assert!(svg.contains("<title>T &amp; &lt;t&gt;</title>"), "{svg}");
        assert!(
            svg.contains(">a&lt;b&gt;&amp;&quot;c&quot;    </text>"),
            "{svg}"
        );
        assert!(!svg.contains('\u{1}'));
    }

    #[test]
    fn reversed_cell_swaps_default_colours() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 3, 1));
        buf.set_string(1, 0, "x", Style::default().add_modifier(Modifier::REVERSED));
        let svg = buffer_to_svg(&buf, "t");
        let rect = format!(
            "<rect x=\"{}\" y=\"{MARGIN}\" width=\"{CELL_W}\" height=\"{CELL_H}\" fill=\"{DEFAULT_FG}\"/>",
            MARGIN + CELL_W
        );
        assert!(svg.contains(&rect), "{svg}");
        assert!(
            texts(&svg)[0].contains(&format!("fill=\"{DEFAULT_BG}\">x</text>")),
            "{svg}"
        );
    }

    #[test]
    fn wide_character_keeps_columns_aligned() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "a", Style::default());
        buf.set_string(1, 0, "界", Style::default().fg(Color::Red));
        buf.set_string(3, 0, "b", Style::default().fg(Color::Red));
        // Older ratatui versions leave an empty symbol behind a wide character.
        buf.set_string(4, 0, "界", Style::default().fg(Color::Red));
        buf[(5, 0)].set_symbol("");
        let svg = buffer_to_svg(&buf, "t");
        let texts = texts(&svg);
        assert_eq!(texts.len(), 4, "{svg}");
        let x = |col: u32| format!("<text x=\"{}\"", MARGIN + col * CELL_W);
        assert!(
            texts[1].starts_with(&x(1))
                && texts[1].contains(&format!("textLength=\"{}\"", 2 * CELL_W))
        );
        assert!(texts[1].ends_with(">界</text>"), "{svg}");
        assert!(
            texts[2].starts_with(&x(3)) && texts[2].ends_with(">b</text>"),
            "{svg}"
        );
        assert!(
            texts[3].starts_with(&x(4)) && texts[3].ends_with(">界</text>"),
            "{svg}"
        );
    }

    #[test]
    fn equal_styles_merge_into_runs() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 10, 2));
        let green = Style::default()
            .fg(Color::Indexed(46))
            .bg(Color::Rgb(1, 2, 3));
        buf.set_string(0, 0, "ab", green);
        buf.set_string(2, 0, " cd", green);
        buf.set_string(5, 0, "ef", green.add_modifier(Modifier::BOLD));
        let svg = buffer_to_svg(&buf, "t");
        let texts = texts(&svg);
        assert_eq!(texts.len(), 2, "{svg}");
        let length = format!(
            "textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\"",
            5 * CELL_W
        );
        assert!(texts[0].contains(&length), "{svg}");
        assert!(texts[0].contains("fill=\"#00ff00\">ab cd</text>"), "{svg}");
        assert!(texts[1].contains("font-weight=\"bold\">ef</text>"), "{svg}");
        let rects: Vec<_> = svg
            .lines()
            .filter(|l| l.contains("fill=\"#010203\""))
            .collect();
        assert_eq!(rects.len(), 1, "{svg}");
        let rect = format!("x=\"{MARGIN}\" y=\"{MARGIN}\" width=\"{}\"", 7 * CELL_W);
        assert!(rects[0].contains(&rect), "{svg}");
    }
}
