//! The code's layers: no file imports, directly or through others, a file that imports it —
//! in the library and in the explorer alike — so the modules read bottom-up.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every source file under `src/` by module path (`tui::views::help`), with its text before
/// its tests and without comments.
fn modules() -> BTreeMap<String, String> {
    fn walk(dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(crate::common::repo("src"))
                    .unwrap_or(&path);
                let mut parts: Vec<String> = rel
                    .with_extension("")
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                if matches!(
                    parts.last().map(String::as_str),
                    Some("mod" | "lib" | "main")
                ) {
                    parts.pop();
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                let code: String = code
                    .lines()
                    .map(|l| l.split("//").next().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("\n");
                out.insert(parts.join("::"), code);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&crate::common::repo("src"), &mut out);
    out
}

/// The modules `path` (as written in `module`) names: the longest known prefix.
fn target(module: &str, path: &[&str], known: &BTreeMap<String, String>) -> Option<String> {
    let mut base: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split("::").collect()
    };
    let mut rest = path;
    match rest.first() {
        Some(&"crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some(&"super" | &"self") => {
            while let Some(&first) = rest.first() {
                match first {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    let full: Vec<&str> = base.iter().chain(rest).copied().collect();
    (1..=full.len())
        .rev()
        .map(|n| full[..n].join("::"))
        .find(|m| known.contains_key(m))
}

/// Which modules each module uses: every path starting `crate::`, `super::` or `self::`, and
/// each item of a `{…}` group after one.
fn edges(known: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let is_path = |c: char| c.is_alphanumeric() || c == '_' || c == ':';
    let mut out = BTreeMap::new();
    for (module, code) in known {
        let mut used = BTreeSet::new();
        let mut add = |path: &[&str]| {
            if let Some(t) = target(module, path, known) {
                used.insert(t);
            }
        };
        for (start, _) in code.match_indices(['c', 's']) {
            let head = &code[start..];
            let starts_path = ["crate::", "super::", "self::"]
                .iter()
                .any(|p| head.starts_with(p));
            let after_ident = code[..start].chars().next_back().is_some_and(is_path);
            if !starts_path || after_ident {
                continue;
            }
            let end = head
                .find(|c: char| !is_path(c))
                .map_or(code.len(), |i| start + i);
            let path: Vec<&str> = code[start..end]
                .split("::")
                .filter(|p| !p.is_empty())
                .collect();
            add(&path);
            if code[end..].starts_with('{') {
                let close = code[end..].find('}').map_or(code.len(), |i| end + i);
                for item in code[end + 1..close].split(',') {
                    let first = item.trim().split("::").next().unwrap_or_default().trim();
                    if !first.is_empty() && first != "self" {
                        let mut each = path.clone();
                        each.push(first);
                        add(&each);
                    }
                }
            }
        }
        used.remove(module);
        out.insert(module.clone(), used);
    }
    out
}

/// A cycle through `from`, when there is one.
fn cycle(edges: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    fn visit(
        edges: &BTreeMap<String, BTreeSet<String>>,
        node: &str,
        goal: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in edges.get(node).into_iter().flatten() {
            if next == goal {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if visit(edges, next, goal, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![from.to_string()];
    visit(edges, from, from, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_module_imports_one_that_imports_it() {
    let known = modules();
    assert!(known.contains_key("tui::app") && known.contains_key("fusion::plan"));
    let edges = edges(&known);
    // The parser sees what it must: the app uses its layers, views use the app.
    assert!(edges["tui::app"].contains("tui::layer"));
    assert!(edges["tui::views::help"].contains("tui::help_text"));
    let cycles: Vec<String> = known
        .keys()
        // A module's parent declares it (`mod x;`): parent and child are one unit.
        .filter_map(|m| cycle(&edges, m))
        .filter(|c| {
            !c.iter()
                .any(|a| c.iter().any(|b| a != b && b.starts_with(&format!("{a}::"))))
        })
        .map(|c| c.join(" → "))
        .collect();
    assert!(cycles.is_empty(), "import loops:\n{}", cycles.join("\n"));
}

#[test]
fn the_fusion_core_reaches_no_backend_nor_anything_above_it() {
    let known = modules();
    let edges = edges(&known);
    // What the core may stand on: the graph and the plain helpers under it (the target is data).
    let below = ["fusion", "graph", "reason_text", "target", "text"];
    let up: Vec<String> = edges
        .iter()
        .filter(|(m, _)| m.as_str() == "fusion" || m.starts_with("fusion::"))
        .flat_map(|(m, used)| used.iter().map(move |u| (m, u)))
        .filter(|(_, u)| !below.contains(&u.split("::").next().unwrap_or_default()))
        .map(|(m, u)| format!("{m} → {u}"))
        .collect();
    assert!(
        edges["fusion::verdict"].contains("reason_text"),
        "the parser sees the core's imports"
    );
    assert!(
        up.is_empty(),
        "the fusion core imports from above:\n{}",
        up.join("\n")
    );
}

/// The library's modules from the bottom up, as docs/ARCHITECTURE.md lists them: each uses
/// only modules before it.
const ORDER: &[&str] = &[
    "text",
    "clock",
    "memory",
    "own_files",
    "paths",
    "worker",
    "reason_text",
    "scratch",
    "file_error",
    "target",
    "graph",
    "load",
    "fusion",
    "check_op",
    "static_kernels",
    "info",
    "edit",
    "planner",
    "fix",
    "kernel_meta",
    "report",
    "whole_model",
    "workspace",
    "dataflow",
    "planfile",
    "fusion_diff",
    "model_explorer",
    "codegen",
    "export",
    "journal",
    "profile",
    "markdown",
    "suggest",
    "aclgraph",
    "mindspore",
    "open",
    "compile",
    "ledger",
    "example",
    "commands",
    "tui",
];

#[test]
fn each_module_uses_only_the_modules_below_it() {
    let known = modules();
    let edges = edges(&known);
    let top = |m: &str| m.split("::").next().unwrap_or_default().to_string();
    let place = |m: &str| ORDER.iter().position(|o| *o == top(m));
    let unplaced: BTreeSet<String> = known
        .keys()
        .filter(|m| !["", "main", "lib"].contains(&m.as_str()) && place(m).is_none())
        .map(|m| top(m))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from the order (and from docs/ARCHITECTURE.md): {unplaced:?}"
    );
    let up: Vec<String> = edges
        .iter()
        .filter_map(|(m, used)| Some((m, place(m)?, used)))
        .flat_map(|(m, at, used)| {
            used.iter()
                .filter(move |u| place(u).is_some_and(|p| p > at))
                .map(move |u| format!("{m} → {u}"))
        })
        .collect();
    assert!(
        edges["open"].contains("workspace"),
        "the parser sees imports"
    );
    assert!(
        up.is_empty(),
        "imports that run up the order:\n{}",
        up.join("\n")
    );
}
