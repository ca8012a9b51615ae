//! Keys ↔ actions. The defaults bind vim keys and arrows both; the config file may rebind any
//! action. The help overlay and the key bar read the same map, so they never drift from it.

use super::action::{Action, Group, TABLE};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::collections::HashMap;
use std::fmt;

/// One key with its modifiers, normalised so that a typed key and a key from the config file
/// compare equal (`G` is `G`, not `shift-g`; shift-tab is `backtab`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    code: KeyCode,
    modifiers: KeyModifiers,
}

impl Key {
    /// The key of a terminal key event.
    pub fn from_event(event: KeyEvent) -> Key {
        let mut modifiers = event.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        let code = match event.code {
            KeyCode::Char(c) if modifiers.contains(KeyModifiers::CONTROL) => {
                KeyCode::Char(c.to_ascii_lowercase())
            }
            KeyCode::Tab if event.modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            code => code,
        };
        // Shift is part of a character (`G`) and of backtab; for other keys it counts.
        if !matches!(code, KeyCode::Char(_) | KeyCode::BackTab) {
            modifiers |= event.modifiers & KeyModifiers::SHIFT;
        }
        Key { code, modifiers }
    }

    /// Parses the config-file notation: a single character (`j`, `?`, `G`), a key name (`up`,
    /// `down`, `left`, `right`, `enter`, `esc`, `tab`, `backtab`, `space`, `backspace`,
    /// `delete`, `insert`, `home`, `end`, `pageup`, `pagedown`, `f1`…`f12`), optionally
    /// prefixed by `ctrl-`, `alt-` or `shift-` (`shift-` only for keys that are not
    /// characters: `shift-up`, `shift-tab`).
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.chars().count() > 1 && lower.starts_with("ctrl-") {
                modifiers |= KeyModifiers::CONTROL;
                rest = &rest[5..];
            } else if rest.chars().count() > 1 && lower.starts_with("alt-") {
                modifiers |= KeyModifiers::ALT;
                rest = &rest[4..];
            } else if lower == "shift-tab" {
                return Ok(Key {
                    code: KeyCode::BackTab,
                    modifiers,
                });
            } else if rest.chars().count() > 1 && lower.starts_with("shift-") {
                modifiers |= KeyModifiers::SHIFT;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) if !c.is_control() => {
                if modifiers.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            _ => match rest.to_ascii_lowercase().as_str() {
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "insert" => KeyCode::Insert,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" | "pgup" => KeyCode::PageUp,
                "pagedown" | "pgdn" => KeyCode::PageDown,
                name => match name.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    Some(n @ 1..=12) => KeyCode::F(n),
                    _ => {
                        return Err(format!(
                            "unknown key \"{text}\": use one character (j, ?, G), a key name \
                             (up, down, left, right, enter, esc, tab, backtab, space, backspace, \
                             delete, insert, home, end, pageup, pagedown, f1…f12), optionally \
                             after ctrl- or alt-"
                        ));
                    }
                },
            },
        };
        if modifiers.contains(KeyModifiers::SHIFT) && matches!(code, KeyCode::Char(_)) {
            return Err(format!(
                "unknown key \"{text}\": write a shifted character as itself (G, not shift-g)"
            ));
        }
        Ok(Key { code, modifiers })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::BackTab => f.write_str("shift-tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Insert => f.write_str("insert"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::PageUp => f.write_str("pgup"),
            KeyCode::PageDown => f.write_str("pgdn"),
            KeyCode::F(n) => write!(f, "f{n}"),
            _ => f.write_str("?"),
        }
    }
}

/// Which key does what. The runs and profile views have keys of their own
/// ([`Action::view_only`]), which may be the same as those of the scope edits.
#[derive(Debug, Clone)]
pub struct Keymap {
    by_key: HashMap<Key, Action>,
    view_by_key: HashMap<Key, Action>,
    by_action: HashMap<Action, Vec<Key>>,
}

/// One key bound to two actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conflict {
    /// The key.
    pub key: Key,
    /// The two actions.
    pub actions: [Action; 2],
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "key \"{}\" is bound to both {} and {}: bind one of them to another key",
            self.key,
            self.actions[0].name(),
            self.actions[1].name()
        )
    }
}

impl Keymap {
    /// Builds a keymap from `(action, keys)` bindings; a later binding of an action replaces
    /// an earlier one. Fails, naming both actions, when one key is bound to two actions.
    pub fn from_bindings(bindings: &[(Action, Vec<Key>)]) -> Result<Keymap, Conflict> {
        let mut by_action: HashMap<Action, Vec<Key>> = HashMap::new();
        for (action, keys) in bindings {
            by_action.insert(*action, keys.clone());
        }
        let conflict = |key: &Key, one: Action, other: Action| Conflict {
            key: *key,
            actions: [one, other],
        };
        let mut by_key: HashMap<Key, Action> = HashMap::new();
        let mut view_by_key: HashMap<Key, Action> = HashMap::new();
        for action in Action::all() {
            let map = if action.view_only() {
                &mut view_by_key
            } else {
                &mut by_key
            };
            for key in by_action.get(&action).into_iter().flatten() {
                if let Some(other) = map.insert(*key, action)
                    && other != action
                {
                    return Err(conflict(key, other, action));
                }
            }
        }
        // A view's own key may share a key with a scope edit, not with anything else.
        for (key, action) in &view_by_key {
            if let Some(other) = by_key.get(key)
                && other.group() != Group::Edit
            {
                return Err(conflict(key, *other, *action));
            }
        }
        Ok(Keymap {
            by_key,
            view_by_key,
            by_action,
        })
    }

    /// The default bindings, parsed.
    pub fn default_bindings() -> Vec<(Action, Vec<Key>)> {
        TABLE
            .iter()
            .map(|spec| {
                let keys = spec
                    .keys
                    .iter()
                    .filter_map(|k| Key::parse(k).ok())
                    .collect::<Vec<_>>();
                (spec.action, keys)
            })
            .collect()
    }

    /// The action bound to the key of `event`.
    pub fn action(&self, event: KeyEvent) -> Option<Action> {
        self.by_key.get(&Key::from_event(event)).copied()
    }

    /// The action bound to the key of `event` in the runs or profile view, where the views'
    /// own keys come first and the scope edits do not work.
    pub fn view_action(&self, event: KeyEvent) -> Option<Action> {
        let key = Key::from_event(event);
        self.view_by_key.get(&key).copied().or_else(|| {
            self.by_key
                .get(&key)
                .copied()
                .filter(|a| a.group() != Group::Edit || matches!(a, Action::Undo | Action::Redo))
        })
    }

    /// The keys bound to `action` (possibly none).
    pub fn keys(&self, action: Action) -> &[Key] {
        self.by_action.get(&action).map_or(&[], Vec::as_slice)
    }

    /// The keys of `action` as one label, e.g. `j/↓`; `(unbound)` when it has none.
    pub fn label(&self, action: Action) -> String {
        let keys = self.keys(action);
        if keys.is_empty() {
            return "(unbound)".to_string();
        }
        keys.iter()
            .map(Key::to_string)
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The first key of `action`, for the key bar.
    pub fn first(&self, action: Action) -> Option<Key> {
        self.keys(action).first().copied()
    }

    /// The first key of `action` as text, for hints in messages; `(unbound)` when it has
    /// none.
    pub fn hint(&self, action: Action) -> String {
        self.first(action)
            .map_or_else(|| "(unbound)".to_string(), |k| k.to_string())
    }
}

impl Default for Keymap {
    fn default() -> Self {
        // The defaults are fixed and tested to be free of conflicts.
        Keymap::from_bindings(&Keymap::default_bindings()).unwrap_or_else(|_| Keymap {
            by_key: HashMap::new(),
            view_by_key: HashMap::new(),
            by_action: HashMap::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventKind;

    fn event(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent {
            code,
            modifiers,
            kind: KeyEventKind::Press,
            state: ratatui::crossterm::event::KeyEventState::NONE,
        }
    }

    #[test]
    fn defaults_parse_without_conflicts_and_bind_vim_keys_and_arrows() {
        for spec in TABLE {
            for k in spec.keys {
                assert!(Key::parse(k).is_ok(), "{:?}: {k}", spec.action);
            }
        }
        assert!(Keymap::from_bindings(&Keymap::default_bindings()).is_ok());
        let map = Keymap::default();
        let none = KeyModifiers::NONE;
        assert_eq!(
            map.action(event(KeyCode::Char('j'), none)),
            Some(Action::Down)
        );
        assert_eq!(map.action(event(KeyCode::Down, none)), Some(Action::Down));
        // Terminals report G with SHIFT; the binding says just "G".
        assert_eq!(
            map.action(event(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Action::Bottom)
        );
        assert_eq!(
            map.action(event(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Action::PrevPane)
        );
        assert_eq!(
            map.action(event(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(map.label(Action::Down), "j/↓");
        for action in Action::all() {
            assert!(
                !map.keys(action).is_empty(),
                "{action:?} has no default key"
            );
        }
    }

    #[test]
    fn key_notation_parses_and_rejects_with_a_hint() {
        assert_eq!(Key::parse("ctrl-R").unwrap().to_string(), "ctrl-r");
        assert_eq!(
            Key::parse("shift-tab").unwrap(),
            Key::parse("backtab").unwrap()
        );
        assert_eq!(Key::parse("F5").unwrap().to_string(), "f5");
        assert_eq!(Key::parse("-").unwrap().to_string(), "-");
        assert_eq!(Key::parse("space").unwrap().to_string(), "space");
        let err = Key::parse("ctrl-").unwrap_err();
        assert!(err.contains("unknown key \"ctrl-\""), "{err}");
        assert!(Key::parse("f13").is_err());
        assert!(Key::parse("hyper-x").is_err());
        assert!(Key::parse("").is_err());
    }

    #[test]
    fn a_key_bound_twice_is_an_error_naming_both_actions() {
        let mut bindings = Keymap::default_bindings();
        bindings.push((Action::NextBreak, vec![Key::parse("n").unwrap()]));
        let err = Keymap::from_bindings(&bindings).unwrap_err().to_string();
        assert!(err.contains("\"n\""), "{err}");
        assert!(
            err.contains("search_next") && err.contains("next_break"),
            "{err}"
        );
        // Rebinding the other action too resolves it; the later binding replaces the earlier.
        bindings.push((Action::SearchNext, vec![Key::parse("ctrl-n").unwrap()]));
        let map = Keymap::from_bindings(&bindings).unwrap();
        assert_eq!(map.label(Action::NextBreak), "n");
        assert_eq!(map.label(Action::SearchNext), "ctrl-n");
    }

    #[test]
    fn the_views_keys_may_share_a_scope_edit_key_and_nothing_else() {
        let map = Keymap::default();
        let x = event(KeyCode::Char('x'), KeyModifiers::NONE);
        assert_eq!(map.action(x), Some(Action::RemoveFromScope));
        assert_eq!(map.view_action(x), Some(Action::CancelRun));
        // Scope edits do nothing in the views; their own keys on the same letters do.
        let d = event(KeyCode::Char('d'), KeyModifiers::NONE);
        assert_eq!(map.action(d), Some(Action::DoNotFuse));
        assert_eq!(map.view_action(d), Some(Action::Prune));
        let w = event(KeyCode::Char('w'), KeyModifiers::NONE);
        assert_eq!(map.view_action(w), None, "saving is the graph's");
        let a = event(KeyCode::Char('a'), KeyModifiers::NONE);
        assert_eq!(map.action(a), Some(Action::AssignScope));
        assert_eq!(map.view_action(a), Some(Action::AcceptSuggestion));
        let j = event(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(map.view_action(j), Some(Action::Down));
        let mut bindings = Keymap::default_bindings();
        bindings.push((Action::CancelRun, vec![Key::parse("j").unwrap()]));
        let err = Keymap::from_bindings(&bindings).unwrap_err().to_string();
        assert!(err.contains("down") && err.contains("cancel_run"), "{err}");
    }
}
