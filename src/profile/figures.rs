//! How the comparison's figures are written — once, for every output (the diff's text and
//! Markdown, the profile view, the PR report, the run ledger): the same value prints the same
//! everywhere.

/// Below this many µs a delta counts as none.
const EPSILON: f64 = 0.0005;

/// `+1.25` / `−1.25` / `0.00`.
fn signed(v: f64) -> String {
    if v > EPSILON {
        format!("+{v:.2}")
    } else if v < -EPSILON {
        format!("−{:.2}", -v)
    } else {
        "0.00".to_string()
    }
}

/// A delta in µs with its arrow: `▲ +1.25` (more time), `▼ −1.25` (less), `= 0.00`.
pub fn delta(v: f64) -> String {
    let arrow = if v > EPSILON {
        "▲"
    } else if v < -EPSILON {
        "▼"
    } else {
        "="
    };
    format!("{arrow} {}", signed(v))
}

/// `v` with `places` decimals, never `-0.00`: a value that rounds to zero prints unsigned.
pub fn fixed(v: f64, places: usize) -> String {
    let text = format!("{v:.places$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => text,
    }
}

/// A time in µs from ns, with two decimals: the one format of the account's figures in every
/// output.
pub fn micros(ns: i64) -> String {
    fixed(ns as f64 / 1000.0, 2)
}

/// A difference in µs from ns with its arrow, as [`delta`] writes one: `▼ −123.05`; `= 0.00`
/// when it rounds to nothing.
pub fn delta_micros(ns: i64) -> String {
    match micros(ns.abs()).as_str() {
        "0.00" => "= 0.00".to_string(),
        shown if ns < 0 => format!("▼ −{shown}"),
        shown => format!("▲ +{shown}"),
    }
}

/// A change in percent with its sign: `+2.65 %`, `−12.74 %`; `—` when there is none.
pub fn pct(v: Option<f64>) -> String {
    match v {
        Some(v) => format!("{} %", signed(v)),
        None => "—".to_string(),
    }
}
