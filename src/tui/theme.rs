//! Named styles. The default theme uses the terminal's own palette (named ANSI colours, bold,
//! reverse), so it fits dark and light terminals; `NO_COLOR` drops every colour and keeps the
//! modifiers. Meaning is never carried by colour alone: every state also has a glyph.

use ratatui::style::{Color, Modifier, Style};
use std::str::FromStr;

/// What a style is for. The config file names them in snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Ordinary text.
    Text,
    /// Secondary text: ops outside any scope, hints.
    Dim,
    /// Pane titles and section headings.
    Title,
    /// Borders of unfocused panes.
    Border,
    /// Border of the focused pane.
    BorderFocused,
    /// The selected row of the focused pane.
    Selection,
    /// The selected row of an unfocused pane.
    SelectionInactive,
    /// Breaks: glyph, op name and reason.
    Break,
    /// Warnings.
    Warning,
    /// Errors (load failures, build-failing findings, failed runs).
    Error,
    /// Good news: passed runs, time saved.
    Good,
    /// Ops the pass ignores (Data, Const, Send/Recv…).
    Ignored,
    /// Keys in the key bar and the help overlay.
    Key,
    /// The header line.
    Header,
    /// Search matches in the op list.
    Match,
    /// The op list's viewport on the fusion strip.
    Viewport,
    /// Ops in the range being selected for an edit.
    Range,
    /// What the last edit changed (new or healed breaks, new segments).
    Changed,
    /// Comments in generated code.
    CodeComment,
    /// Keywords and types in generated code.
    CodeKeyword,
    /// String literals in generated code.
    CodeString,
    /// Numbers in generated code.
    CodeNumber,
    /// Preprocessor lines in generated code.
    CodePreprocessor,
    /// Function names in generated code.
    CodeFunction,
    /// The lines of generated code that belong to the selected op.
    CodeFocus,
}

impl Role {
    /// The role of a change of time, µs: less time is good, more is a regression (red),
    /// none is dim.
    pub fn of_delta(us: f64) -> Role {
        if us < -0.0005 {
            Role::Good
        } else if us > 0.0005 {
            Role::Error
        } else {
            Role::Dim
        }
    }

    /// Every role, in config-file order.
    pub const ALL: [Role; 25] = [
        Role::Text,
        Role::Dim,
        Role::Title,
        Role::Border,
        Role::BorderFocused,
        Role::Selection,
        Role::SelectionInactive,
        Role::Break,
        Role::Warning,
        Role::Error,
        Role::Good,
        Role::Ignored,
        Role::Key,
        Role::Header,
        Role::Match,
        Role::Viewport,
        Role::Range,
        Role::Changed,
        Role::CodeComment,
        Role::CodeKeyword,
        Role::CodeString,
        Role::CodeNumber,
        Role::CodePreprocessor,
        Role::CodeFunction,
        Role::CodeFocus,
    ];

    /// The key in the config file's `[theme]` table.
    pub fn name(self) -> &'static str {
        match self {
            Role::Text => "text",
            Role::Dim => "dim",
            Role::Title => "title",
            Role::Border => "border",
            Role::BorderFocused => "border_focused",
            Role::Selection => "selection",
            Role::SelectionInactive => "selection_inactive",
            Role::Break => "break",
            Role::Warning => "warning",
            Role::Error => "error",
            Role::Ignored => "ignored",
            Role::Key => "key",
            Role::Header => "header",
            Role::Match => "match",
            Role::Viewport => "viewport",
            Role::Range => "range",
            Role::Changed => "changed",
            Role::Good => "good",
            Role::CodeComment => "code_comment",
            Role::CodeKeyword => "code_keyword",
            Role::CodeString => "code_string",
            Role::CodeNumber => "code_number",
            Role::CodePreprocessor => "code_preprocessor",
            Role::CodeFunction => "code_function",
            Role::CodeFocus => "code_focus",
        }
    }

    /// What it colours.
    pub fn meaning(self) -> &'static str {
        match self {
            Role::Text => "ordinary text",
            Role::Dim => "ops outside any scope, hints",
            Role::Title => "pane titles and headings",
            Role::Border => "borders of unfocused panes",
            Role::BorderFocused => "border of the focused pane",
            Role::Selection => "selected row of the focused pane",
            Role::SelectionInactive => "selected row of other panes",
            Role::Break => "breaks",
            Role::Warning => "warnings",
            Role::Error => "errors",
            Role::Ignored => "ops the pass ignores",
            Role::Key => "keys in the key bar and help",
            Role::Header => "the header line",
            Role::Match => "search matches",
            Role::Viewport => "the op list's place on the fusion strip",
            Role::Range => "ops selected for an edit",
            Role::Changed => "what the last edit changed",
            Role::Good => "good news: passed runs, time saved",
            Role::CodeComment => "comments in the code view",
            Role::CodeKeyword => "keywords and types in the code view",
            Role::CodeString => "strings in the code view",
            Role::CodeNumber => "numbers in the code view",
            Role::CodePreprocessor => "preprocessor lines in the code view",
            Role::CodeFunction => "function names in the code view",
            Role::CodeFocus => "the selected op's lines in the code view",
        }
    }

    /// Its default style: terminal palette colours and modifiers.
    fn default_style(self) -> Style {
        let fg = |c| Style::new().fg(c);
        let bold = Modifier::BOLD;
        match self {
            Role::Text => Style::new(),
            Role::Dim | Role::Ignored => Style::new().add_modifier(Modifier::DIM),
            Role::Title | Role::Header => Style::new().add_modifier(bold),
            Role::Border => fg(Color::DarkGray),
            Role::BorderFocused | Role::Key | Role::Viewport => fg(Color::Cyan).add_modifier(bold),
            Role::Selection => Style::new().add_modifier(Modifier::REVERSED),
            Role::SelectionInactive => Style::new().add_modifier(Modifier::UNDERLINED),
            Role::Break | Role::Error => fg(Color::Red).add_modifier(bold),
            Role::Warning => fg(Color::Yellow).add_modifier(bold),
            Role::Match => fg(Color::Yellow).add_modifier(Modifier::UNDERLINED),
            Role::Range => Style::new()
                .bg(Color::DarkGray)
                .add_modifier(Modifier::UNDERLINED),
            Role::Changed => fg(Color::LightYellow).add_modifier(bold),
            Role::Good => fg(Color::Green).add_modifier(bold),
            Role::CodeComment => fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
            Role::CodeKeyword => fg(Color::Magenta),
            Role::CodeString => fg(Color::Green),
            Role::CodeNumber => fg(Color::Cyan),
            Role::CodePreprocessor => fg(Color::Yellow),
            Role::CodeFunction => fg(Color::Blue).add_modifier(bold),
            Role::CodeFocus => Style::new().add_modifier(bold),
        }
    }
}

/// The name of the `[theme]` key holding the segment colours.
pub const BANDS_KEY: &str = "segment_bands";

/// Every style the views use, by [`Role`], and the segment colours.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    styles: [Style; Role::ALL.len()],
    /// Colours given to segments in turn, so neighbouring segments differ.
    pub bands: Vec<Color>,
}

impl Default for Theme {
    fn default() -> Self {
        Theme {
            styles: Role::ALL.map(Role::default_style),
            bands: vec![
                Color::Blue,
                Color::Magenta,
                Color::Cyan,
                Color::Green,
                Color::LightBlue,
                Color::LightMagenta,
            ],
        }
    }
}

impl Theme {
    /// The style for `role`.
    pub fn get(&self, role: Role) -> Style {
        self.styles[role as usize]
    }

    /// The theme with every colour removed (for `NO_COLOR`); modifiers stay.
    pub fn without_colour(mut self) -> Theme {
        for style in &mut self.styles {
            *style = Style::new()
                .add_modifier(style.add_modifier)
                .remove_modifier(style.sub_modifier);
        }
        self.bands = vec![Color::Reset];
        self
    }

    /// The colour of the segment with ordinal `ordinal`.
    pub fn band(&self, ordinal: usize) -> Color {
        match self.bands.len() {
            0 => Color::Reset,
            n => self.bands[ordinal % n],
        }
    }

    /// Sets the style of the role named `name` from a style text (see [`parse_style`]).
    pub fn set(&mut self, name: &str, text: &str) -> Result<(), String> {
        let role = Role::ALL
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| format!("unknown theme key \"{name}\" (known: {})", known_keys()))?;
        self.styles[role as usize] = parse_style(text)?;
        Ok(())
    }

    /// Sets the segment colours from colour texts.
    pub fn set_bands(&mut self, colours: &[String]) -> Result<(), String> {
        if colours.is_empty() {
            return Err(format!("{BANDS_KEY} needs at least one colour"));
        }
        self.bands = colours
            .iter()
            .map(|c| parse_colour(c))
            .collect::<Result<_, _>>()?;
        Ok(())
    }
}

fn known_keys() -> String {
    let mut names: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
    names.push(BANDS_KEY);
    names.join(", ")
}

/// Parses a style text: words separated by spaces — a foreground colour, `on <colour>` for the
/// background, and modifiers (`bold`, `dim`, `italic`, `underlined`, `reversed`,
/// `crossed_out`). Colours are names (`red`, `light-blue`, `dark-gray`), `#rrggbb` or a
/// palette index `0`…`255`; `default` is the terminal's own colour.
pub fn parse_style(text: &str) -> Result<Style, String> {
    let mut style = Style::new();
    let mut words = text.split_whitespace();
    while let Some(word) = words.next() {
        let modifier = match word.to_ascii_lowercase().as_str() {
            "bold" => Some(Modifier::BOLD),
            "dim" => Some(Modifier::DIM),
            "italic" => Some(Modifier::ITALIC),
            "underlined" | "underline" => Some(Modifier::UNDERLINED),
            "reversed" | "reverse" => Some(Modifier::REVERSED),
            "crossed_out" => Some(Modifier::CROSSED_OUT),
            "on" => {
                let colour = words
                    .next()
                    .ok_or_else(|| format!("\"{text}\": \"on\" needs a background colour"))?;
                style = style.bg(parse_colour(colour)?);
                None
            }
            _ => {
                style = style.fg(parse_colour(word)?);
                None
            }
        };
        if let Some(m) = modifier {
            style = style.add_modifier(m);
        }
    }
    Ok(style)
}

/// Parses one colour (see [`parse_style`]).
pub fn parse_colour(text: &str) -> Result<Color, String> {
    if text.eq_ignore_ascii_case("default") {
        return Ok(Color::Reset);
    }
    Color::from_str(text).map_err(|_| {
        format!(
            "unknown colour \"{text}\": use a name (red, light-blue, dark-gray…), #rrggbb, a \
             palette index 0–255, or default"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_texts_parse_and_bad_ones_say_why() {
        assert_eq!(
            parse_style("red bold on #102030").unwrap(),
            Style::new()
                .fg(Color::Red)
                .bg(Color::Rgb(0x10, 0x20, 0x30))
                .add_modifier(Modifier::BOLD)
        );
        assert_eq!(
            parse_style("245 reversed").unwrap(),
            Style::new()
                .fg(Color::Indexed(245))
                .add_modifier(Modifier::REVERSED)
        );
        assert_eq!(parse_style("").unwrap(), Style::new());
        assert!(parse_style("bold on").unwrap_err().contains("background"));
        assert!(
            parse_style("blurple")
                .unwrap_err()
                .contains("unknown colour \"blurple\"")
        );
    }

    #[test]
    fn every_theme_key_can_be_set_and_unknown_keys_list_the_known_ones() {
        let mut theme = Theme::default();
        for role in Role::ALL {
            theme.set(role.name(), "green").unwrap();
            assert_eq!(theme.get(role), Style::new().fg(Color::Green));
        }
        let err = theme.set("brake", "red").unwrap_err();
        assert!(err.contains("\"brake\"") && err.contains("break"), "{err}");
        theme.set_bands(&["red".into(), "#00ff00".into()]).unwrap();
        assert_eq!(theme.band(3), Color::Rgb(0, 255, 0));
        assert!(theme.set_bands(&[]).is_err());
    }

    #[test]
    fn without_colour_keeps_only_modifiers() {
        let theme = Theme::default().without_colour();
        for role in Role::ALL {
            assert_eq!(theme.get(role).fg, None);
            assert_eq!(theme.get(role).bg, None);
        }
        assert!(
            theme
                .get(Role::Selection)
                .add_modifier
                .contains(Modifier::REVERSED)
        );
        assert!(theme.get(Role::Break).add_modifier.contains(Modifier::BOLD));
        assert_eq!(theme.band(4), Color::Reset);
    }
}
