//! docs/ARCHITECTURE.md is a map of the code that can be checked: every module is named in it,
//! every place that starts a thread is named in its list of them, and every view over the
//! panes is named — so the map cannot fall behind the code unnoticed.

use std::path::{Path, PathBuf};

fn doc() -> String {
    std::fs::read_to_string(crate::common::repo("docs/ARCHITECTURE.md")).expect("the map")
}

/// Every source file under `src/`, with its module path (`tui::views::help`; `tui` for
/// `tui/mod.rs`) and its code before its tests.
fn sources() -> Vec<(String, PathBuf, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = crate::common::repo("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&src).unwrap_or(&path).with_extension("");
            let mut parts: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let code = text
                .split("#[cfg(test)]")
                .next()
                .unwrap_or_default()
                .to_string();
            (parts.join("::"), path, code)
        })
        .collect()
}

/// The names written in backticks in `text`, split at what is not part of a path.
fn named(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|t| {
            t.split(|c: char| !(c.is_alphanumeric() || "_:/.".contains(c)))
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// True when `names` name the module `module` (`a::b::c`): by its path from any level, or
/// as its file.
fn names_module(names: &[String], module: &str) -> bool {
    let parts: Vec<&str> = module.split("::").collect();
    let file = format!("{}.rs", parts.join("/"));
    let dir_file = format!("{}/mod.rs", parts.join("/"));
    (0..parts.len()).any(|from| {
        let tail = parts[from..].join("::");
        names.iter().any(|n| {
            *n == tail || n.ends_with(&format!("::{tail}")) || n.starts_with(&format!("{tail}::"))
        })
    }) || names.iter().any(|n| *n == file || *n == dir_file)
}

#[test]
fn every_module_is_on_the_map() {
    let names = named(&doc());
    let missing: Vec<String> = sources()
        .into_iter()
        .map(|(module, _, _)| module)
        .filter(|m| !["lib", "main"].contains(&m.as_str()))
        .filter(|m| !m.ends_with("tests") && !m.ends_with("testing"))
        .filter(|m| !names_module(&names, m))
        .collect();
    assert!(
        missing.is_empty(),
        "modules docs/ARCHITECTURE.md does not name: {missing:?}"
    );
}

#[test]
fn every_thread_start_is_in_the_list_of_them() {
    let doc = doc();
    let list = doc
        .split("Threads are started in these places only")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the list of thread starts");
    let names = named(list);
    let starts = [
        "thread::spawn",
        "thread::scope",
        "thread::Builder",
        "ThreadPoolBuilder",
        "Threads::",
        "threads()",
        ".work(\"skope-",
        "latest::spawn",
    ];
    let mut seen = 0;
    let missing: Vec<String> = sources()
        .into_iter()
        .filter(|(_, _, code)| starts.iter().any(|s| code.contains(s)))
        .inspect(|_| seen += 1)
        .map(|(module, _, _)| module)
        .filter(|m| !names_module(&names, m))
        .collect();
    assert!(
        seen >= 10,
        "{seen} files start threads: the search is broken"
    );
    assert!(
        missing.is_empty(),
        "modules that start threads and are not in the list: {missing:?}"
    );
}

#[test]
fn every_view_over_the_panes_is_on_the_map() {
    let names = named(&doc());
    let views: Vec<&str> = skope::tui::VIEWS.iter().map(|v| v.name).collect();
    assert!(views.len() >= 9, "{views:?}");
    let registry = std::fs::read_to_string(crate::common::repo("src/tui/mod.rs")).unwrap();
    let modules: Vec<String> = registry
        .split("pub static VIEWS")
        .nth(1)
        .and_then(|r| r.split("];").next())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().strip_suffix("::VIEW,"))
        .map(str::to_string)
        .collect();
    assert_eq!(modules.len(), views.len(), "{modules:?}");
    for module in modules {
        assert!(
            names_module(&names, &format!("tui::{module}")),
            "the view module {module} is not on the map"
        );
    }
}
