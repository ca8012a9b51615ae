//! The config file: the target and operator sources the explorer uses when the command line
//! gives none, key bindings and theme overrides, in TOML.
//!
//! Looked up at `--config FILE`, else `$XDG_CONFIG_HOME/skope/config.toml`, else
//! `~/.config/skope/config.toml`; a missing default file means the defaults. `skope config`
//! prints a complete file with every default, to copy and edit.

use super::action::TABLE;
use super::action::{Action, Group};
use super::keymap::{Key, Keymap};
use super::theme::{BANDS_KEY, Role, Theme};
use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// Key bindings and theme, ready to use.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Which key does what.
    pub keymap: Keymap,
    /// The styles.
    pub theme: Theme,
    /// The hardware graphs are built for, when `--target` and the dump say nothing.
    pub target: Option<crate::target::Target>,
    /// The user's operator sources, when `--op-sources` gives none (a relative path is the
    /// config file's directory's).
    pub op_sources: Vec<PathBuf>,
    /// The file the settings came from, if any.
    pub file: Option<PathBuf>,
}

/// A config file that cannot be used, with the place and what to do.
pub type ConfigError = crate::file_error::FileError;

/// What to do about a bad config file.
const HINT: &str =
    "fix the config file, or run `skope config` to see every setting with its default";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    target: Option<Spanned<String>>,
    #[serde(default)]
    op_sources: Vec<PathBuf>,
    #[serde(default)]
    keys: BTreeMap<String, Spanned<OneOrMany>>,
    #[serde(default)]
    theme: BTreeMap<String, Spanned<OneOrMany>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn items(&self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s.clone()],
            OneOrMany::Many(v) => v.clone(),
        }
    }
}

/// Where the config file is looked for when `--config` is not given.
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("skope").join("config.toml"))
}

/// Loads the config: `explicit` must exist; otherwise the default file is read when present.
/// `no_colour` (the `NO_COLOR` convention) drops every colour after the theme is applied.
pub fn load(explicit: Option<&Path>, no_colour: bool) -> Result<Config, ConfigError> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => default_path().filter(|p| p.is_file()),
    };
    let mut config = match path {
        Some(path) => {
            let text = crate::text::read_utf8(&path)
                .map_err(|e| ConfigError::unreadable(&path, &e, HINT))?;
            let mut config = parse(&text)
                .map_err(|(at, message)| ConfigError::at(&path, &text, at, message, HINT))?;
            // Operator sources written relative to the config file are found beside it.
            if let Some(dir) = path.parent() {
                for source in &mut config.op_sources {
                    if source.is_relative() {
                        *source = dir.join(&*source);
                    }
                }
            }
            config.file = Some(path);
            config
        }
        None => Config::default(),
    };
    if no_colour {
        config.theme = config.theme.without_colour();
    }
    Ok(config)
}

/// Parses config text; an error carries the byte offset of the problem when it has one.
pub fn parse(text: &str) -> Result<Config, (Option<usize>, String)> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        (
            e.span().map(|s| s.start),
            e.message().trim_end().to_string(),
        )
    })?;
    let mut bindings = Keymap::default_bindings();
    for (name, value) in &raw.keys {
        let at = Some(value.span().start);
        // An action's old name (before it was renamed) still binds it.
        let (action, _) = Action::from_name(name).ok_or_else(|| {
            (
                at,
                format!(
                    "unknown action \"{name}\" in [keys] (known: {})",
                    Action::all()
                        .map(Action::name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })?;
        let keys = value
            .get_ref()
            .items()
            .iter()
            .map(|k| Key::parse(k))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| (at, e))?;
        bindings.push((action, keys));
    }
    // A conflict is shown at the user's binding that makes it.
    let keymap = Keymap::from_bindings(&bindings).map_err(|conflict| {
        let at = conflict.actions.iter().find_map(|action| {
            let value = raw.keys.get(action.name())?;
            let binds_it = value
                .get_ref()
                .items()
                .iter()
                .any(|k| Key::parse(k).is_ok_and(|k| k == conflict.key));
            binds_it.then(|| value.span().start)
        });
        (at, conflict.to_string())
    })?;
    let mut theme = Theme::default();
    for (name, value) in &raw.theme {
        let at = Some(value.span().start);
        let result = match (name.as_str(), value.get_ref()) {
            (BANDS_KEY, v) => theme.set_bands(&v.items()),
            (_, OneOrMany::One(style)) => theme.set(name, style),
            (_, OneOrMany::Many(_)) => Err(format!(
                "theme key \"{name}\" takes one style text, e.g. \"red bold\""
            )),
        };
        result.map_err(|e| (at, e))?;
    }
    let target = match &raw.target {
        Some(t) => {
            Some(crate::target::Target::parse(t.get_ref()).map_err(|e| (Some(t.span().start), e))?)
        }
        None => None,
    };
    Ok(Config {
        keymap,
        theme,
        target,
        op_sources: raw.op_sources,
        file: None,
    })
}

/// A complete config file holding every default, with comments.
pub fn default_config_text() -> String {
    let mut out = String::from(
        "# skope config: copy to ~/.config/skope/config.toml (or pass --config FILE) and edit.\n\
         # Every setting is optional; what you leave out keeps its default.\n\n\
         # The hardware your graphs are built for: \"dav-2201\" (Atlas A2/A3, the default) or\n\
         # \"dav-3510\" (Ascend 950, SuperKernel experimental). What a dump records wins, and\n\
         # --target overrides this.\n\
         # target = \"dav-2201\"\n\
         # Your own AscendC operators' kernel sources, as --op-sources takes them (relative to\n\
         # this file): a break of a type they define says what adapting it to SuperKernel takes.\n\
         # op_sources = [\"/path/to/op_kernel\"]\n\n\
         [keys]\n\
         # action = [\"key\", …]: one character (j, ?, G), or a key name (up, down, left, right,\n\
         # enter, esc, tab, backtab, space, backspace, delete, insert, home, end, pageup,\n\
         # pagedown, f1…f12), optionally after ctrl- or alt-.\n",
    );
    for group in Group::ALL {
        let _ = writeln!(out, "\n# {}", group.title());
        for spec in TABLE.iter().filter(|s| s.group == group) {
            let (action, keys) = (spec.action, spec.keys);
            let keys = keys
                .iter()
                .map(|k| format!("\"{}\"", k.replace('\\', "\\\\").replace('"', "\\\"")))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                out,
                "{} = [{keys}]  # {}",
                action.name(),
                action.description()
            );
        }
    }
    out.push_str(
        "\n[theme]\n\
         # style = \"<colour> <modifiers> on <colour>\": colours are names (red, light-blue,\n\
         # dark-gray…), #rrggbb, 0–255 or default; modifiers: bold dim italic underlined\n\
         # reversed crossed_out. NO_COLOR in the environment removes every colour.\n",
    );
    let theme = Theme::default();
    for role in Role::ALL {
        let _ = writeln!(
            out,
            "{} = \"{}\"  # {}",
            role.name(),
            style_text(theme.get(role)),
            role.meaning()
        );
    }
    let bands = theme
        .bands
        .iter()
        .map(|c| format!("\"{}\"", colour_text(*c)))
        .collect::<Vec<_>>()
        .join(", ");
    let _ = writeln!(
        out,
        "{BANDS_KEY} = [{bands}]  # colours given to segments in turn"
    );
    out
}

fn style_text(style: Style) -> String {
    let mut words = Vec::new();
    if let Some(fg) = style.fg {
        words.push(colour_text(fg));
    }
    for (m, name) in [
        (Modifier::BOLD, "bold"),
        (Modifier::DIM, "dim"),
        (Modifier::ITALIC, "italic"),
        (Modifier::UNDERLINED, "underlined"),
        (Modifier::REVERSED, "reversed"),
        (Modifier::CROSSED_OUT, "crossed_out"),
    ] {
        if style.add_modifier.contains(m) {
            words.push(name.to_string());
        }
    }
    if let Some(bg) = style.bg {
        words.push(format!("on {}", colour_text(bg)));
    }
    words.join(" ")
}

fn colour_text(c: Color) -> String {
    match c {
        Color::Reset => "default".into(),
        Color::Black => "black".into(),
        Color::Red => "red".into(),
        Color::Green => "green".into(),
        Color::Yellow => "yellow".into(),
        Color::Blue => "blue".into(),
        Color::Magenta => "magenta".into(),
        Color::Cyan => "cyan".into(),
        Color::Gray => "gray".into(),
        Color::DarkGray => "dark-gray".into(),
        Color::LightRed => "light-red".into(),
        Color::LightGreen => "light-green".into(),
        Color::LightYellow => "light-yellow".into(),
        Color::LightBlue => "light-blue".into(),
        Color::LightMagenta => "light-magenta".into(),
        Color::LightCyan => "light-cyan".into(),
        Color::White => "white".into(),
        Color::Indexed(i) => i.to_string(),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_printed_defaults_parse_back_to_the_defaults() {
        let text = default_config_text();
        let config = parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        assert_eq!(config.theme, Theme::default());
        for action in Action::all() {
            assert_eq!(
                config.keymap.keys(action),
                Keymap::default().keys(action),
                "{action:?}"
            );
        }
        assert!(
            text.contains("next_break = [\"]\"]  # next break"),
            "{text}"
        );
        assert!(text.contains("break = \"red bold\""), "{text}");
    }

    #[test]
    fn the_target_and_operator_sources_are_read_before_the_tables() {
        let config =
            parse("target = \"dav-3510\"\nop_sources = [\"/ops/a\", \"b\"]\n[keys]\n").unwrap();
        assert_eq!(config.target, Some(crate::target::Target::Dav3510));
        assert_eq!(config.op_sources, [Path::new("/ops/a"), Path::new("b")]);
        let none = parse("").unwrap();
        assert_eq!((none.target, none.op_sources.len()), (None, 0));
    }

    #[test]
    fn overrides_apply_and_keep_the_other_defaults() {
        let config = parse(
            "[keys]\nnext_break = [\"ctrl-n\", \"]\"]\nquit = \"Q\"\n\n[theme]\nbreak = \"magenta\"\nsegment_bands = [\"red\", \"blue\"]\n",
        )
        .unwrap();
        assert_eq!(config.keymap.label(Action::NextBreak), "ctrl-n/]");
        assert_eq!(config.keymap.label(Action::Quit), "Q");
        assert_eq!(config.keymap.label(Action::Down), "j/↓");
        assert_eq!(
            config.theme.get(Role::Break),
            Style::new().fg(Color::Magenta)
        );
        assert_eq!(config.theme.bands, [Color::Red, Color::Blue]);
    }

    #[test]
    fn errors_name_the_line_and_what_to_do() {
        let cases: &[(&str, (usize, usize), &str)] = &[
            (
                "[keys]\nnext_brake = \"x\"\n",
                (2, 14),
                "unknown action \"next_brake\"",
            ),
            (
                "[keys]\nquit = \"hyper-q\"\n",
                (2, 8),
                "unknown key \"hyper-q\"",
            ),
            (
                "[theme]\n\nbreak = \"blurple\"\n",
                (3, 9),
                "unknown colour \"blurple\"",
            ),
            (
                "[theme]\nbrake = \"red\"\n",
                (2, 9),
                "unknown theme key \"brake\"",
            ),
            (
                "# mine\ntarget = \"dav-c220\"\n",
                (2, 10),
                "unknown target \"dav-c220\": the targets are dav-2201",
            ),
            ("[keys\n", (1, 6), ""),
            ("[colours]\nx = 1\n", (1, 2), "colours"),
        ];
        for (text, at, needle) in cases {
            let (offset, message) = match parse(text) {
                Err(e) => e,
                Ok(_) => panic!("{text:?} parsed"),
            };
            assert_eq!(
                offset.map(|o| crate::text::line_col(text, o)),
                Some(*at),
                "{text:?}: {message}"
            );
            assert!(message.contains(needle), "{text:?}: {message}");
        }
        // A key bound twice: the position of the user's binding that does it.
        let text = "[keys]\nquit = \"q\"\nnext_break = \"n\"\n";
        let (at, message) = match parse(text) {
            Err(e) => e,
            Ok(_) => panic!("conflict accepted"),
        };
        assert_eq!(at.map(|o| crate::text::line_col(text, o)), Some((3, 14)));
        assert!(message.contains("search_next"), "{message}");
    }

    #[test]
    fn no_colour_removes_colours_from_the_user_theme_too() {
        let dir = crate::scratch::scratch("config");
        let path = dir.join("config.toml");
        std::fs::write(&path, "[theme]\nbreak = \"magenta bold\"\n").unwrap();
        let config = load(Some(&path), true).unwrap();
        assert_eq!(
            config.theme.get(Role::Break),
            Style::new().add_modifier(Modifier::BOLD)
        );
        assert_eq!(config.file.as_deref(), Some(path.as_path()));
        let config = load(Some(&path), false).unwrap();
        assert_eq!(config.theme.get(Role::Break).fg, Some(Color::Magenta));
    }

    #[test]
    fn relative_operator_sources_are_beside_the_config_file() {
        let dir = crate::scratch::scratch("config-sources");
        let path = dir.join("config.toml");
        std::fs::write(&path, "op_sources = [\"ops\", \"/abs/ops\"]\n").unwrap();
        let config = load(Some(&path), false).unwrap();
        assert_eq!(
            config.op_sources,
            [dir.join("ops"), PathBuf::from("/abs/ops")]
        );
    }

    #[test]
    fn a_missing_explicit_file_is_an_error_that_names_it() {
        let err = load(Some(Path::new("/nonexistent/skope.toml")), false).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("/nonexistent/skope.toml: cannot read it"),
            "{text}"
        );
        assert!(text.contains("hint:"), "{text}");
    }
}
