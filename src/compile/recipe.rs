//! Recipes: the commands to run for a graph, read from `skope.toml` (in the working directory,
//! then in the user config directory), plus the built-in `check` and `cann`. (Earlier releases
//! called them profiles, a word now kept for the profiler's output; `[[profile]]` tables are
//! still read, with a note.)
//!
//! ```toml
//! [[recipe]]
//! name = "compare"
//! argv = ["python3", "compare.py", "--graph", "{graph}", "--out", "{out}"]
//! cwd = "."                        # relative to the file; default: the working directory
//! env = { ASCEND_RT_VISIBLE_DEVICES = "0" }
//! results = "{out}/prof_result"    # where profiles appear
//! streams = "separate"             # mark stderr; default "merged" keeps the order written
//! ```

use super::job::Streams;
use super::template;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The file name recipes are read from.
pub const FILE_NAME: &str = "skope.toml";

/// One recipe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipe {
    /// Its name (`skope compile --recipe NAME`).
    pub name: String,
    /// One line on what it does.
    pub about: String,
    /// The command and its arguments, with placeholders.
    pub argv: Vec<String>,
    /// Where it runs; `None`: the working directory.
    pub cwd: Option<PathBuf>,
    /// Variables added to the environment.
    pub env: Vec<(String, String)>,
    /// Where its results appear (a template), if it makes any.
    pub results: Option<String>,
    /// How its stdout and stderr are read: one pipe (the order written) or two (each line's
    /// stream).
    pub streams: Streams,
    /// The file it came from; `None` for a built-in.
    pub file: Option<PathBuf>,
    /// True when it replaces a built-in recipe of the same name.
    pub overrides: bool,
}

impl Recipe {
    /// Where it comes from, in words: `built in`, or `from ./skope.toml` (the working
    /// directory's file; another file by its path, `~` for the home directory), with
    /// `, overrides the built-in` when it replaces one — a `skope.toml` in a cloned repository
    /// can redefine `check`, and the user must see that before running it.
    pub fn origin(&self) -> String {
        let Some(file) = &self.file else {
            return "built in".to_string();
        };
        let cwd = std::env::current_dir().ok();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let shown = match (file.parent(), file.file_name()) {
            (Some(dir), Some(name)) if Some(dir) == cwd.as_deref() => {
                format!("./{}", name.to_string_lossy())
            }
            _ => match home.as_deref().and_then(|h| file.strip_prefix(h).ok()) {
                Some(rest) => format!("~/{}", rest.display()),
                None => file.display().to_string(),
            },
        };
        let overrides = if self.overrides {
            ", overrides the built-in"
        } else {
            ""
        };
        format!("from {shown}{overrides}")
    }
}

/// A recipes file that cannot be used.
pub type RecipeError = crate::file_error::FileError;

/// What to do about a bad recipes file.
const HINT: &str = "each [[recipe]] needs name and argv (a list of strings); optional cwd, env, \
                    results, about, streams (\"merged\" or \"separate\")";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    recipe: Vec<toml::Spanned<RawRecipe>>,
    /// The tables' earlier name, still read.
    #[serde(default)]
    profile: Vec<toml::Spanned<RawRecipe>>,
    #[serde(default)]
    keep_runs: Option<toml::Spanned<i64>>,
}

/// Every recipe to choose from, and how many runs of a dump to keep on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipes {
    /// The recipes: those of the files, then the built-ins they do not replace.
    pub list: Vec<Recipe>,
    /// Runs kept in a dump's runs directory (`keep_runs`; the first file that sets it wins).
    pub keep_runs: usize,
    /// What the user should change in the files (tables under their earlier name).
    pub notes: Vec<String>,
}

/// What one recipes file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipesFile {
    /// Its recipes.
    pub recipes: Vec<Recipe>,
    /// Its `keep_runs`, when it sets one.
    pub keep_runs: Option<usize>,
    /// Set when it defines recipes as `[[profile]]` tables: what to change.
    pub note: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRecipe {
    name: String,
    argv: Vec<toml::Spanned<String>>,
    #[serde(default)]
    about: Option<String>,
    #[serde(default)]
    cwd: Option<PathBuf>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    results: Option<toml::Spanned<String>>,
    #[serde(default)]
    streams: Option<toml::Spanned<String>>,
}

/// The built-in recipes.
pub fn builtin() -> Vec<Recipe> {
    // Each part includes up to 64 entry sources, each in a namespace of its own (their helpers
    // share names); parts are checked on every core. Braces are doubled: argv is a template.
    let check_script = r#"dir=$1; set -- "$dir"/*.cpp; if [ ! -e "$1" ]; then echo "no entry sources in $dir"; exit 0; fi; n=$#; mkdir -p "$dir/check" && rm -f "$dir"/check/part_*.cpp; i=0; for f in "$@"; do w="$dir/check/part_$((i / 64 + 1)).cpp"; if [ $((i % 64)) -eq 0 ]; then printf '#include "kernel_operator.h"\n' > "$w"; fi; printf 'namespace skope_check_%d {{\n#include "%s"\n}}\n' "$i" "${{f##*/}}" >> "$w"; i=$((i + 1)); done; parts=$(( (n + 63) / 64 )); cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2); echo "checking $n entry sources: $parts part(s) of up to 64 on $cores core(s)"; printf '%s\0' "$dir"/check/part_*.cpp | xargs -0 -P "$cores" -n 1 sh -c '"${{CXX:-c++}}" -std=c++17 -fsyntax-only -I "$0" "$2" && p=${{2##*part_}} && echo "checked part ${{p%.cpp}} of $1"' "$dir" "$parts" || {{ echo "error: an entry source does not compile (see above)" >&2; exit 1; }}; echo "all $n entry sources compile""#;
    let cann_script = "if [ -z \"$ASCEND_HOME_PATH\" ]; then \
        echo \"error: ASCEND_HOME_PATH is not set: source the CANN set_env.sh first\" >&2; exit 2; fi; \
        for f in \"$1\"/*.cpp; do \
        echo \"compile $f\"; \
        \"$ASCEND_HOME_PATH/compiler/ccec_compiler/bin/ccec\" -c -x cce --cce-aicore-arch=dav-c220 \
        -I \"$ASCEND_HOME_PATH/include\" -I \"$ASCEND_HOME_PATH/compiler/tikcpp/tikcfw\" \
        -I \"$ASCEND_HOME_PATH/compiler/tikcpp/tikcfw/interface\" \
        -I \"$ASCEND_HOME_PATH/compiler/tikcpp/tikcfw/impl\" \"$f\" -o \"$2/$(basename \"$f\" .cpp).o\" || exit 1; \
        done";
    vec![
        Recipe {
            name: "check".into(),
            about: "compile every generated entry source with the host C++ compiler against \
                    skope's shim header (any machine; catches code generation errors)"
                .into(),
            argv: ["sh", "-c", check_script, "check", "{codegen_dir}"]
                .map(String::from)
                .to_vec(),
            cwd: None,
            env: Vec::new(),
            results: None,
            streams: Streams::Merged,
            file: None,
            overrides: false,
        },
        Recipe {
            name: "cann".into(),
            about: "compile every generated entry source with the CANN toolchain \
                    (needs ASCEND_HOME_PATH)"
                .into(),
            argv: ["sh", "-c", cann_script, "cann", "{codegen_dir}", "{out}"]
                .map(String::from)
                .to_vec(),
            cwd: None,
            env: Vec::new(),
            results: Some("{out}".into()),
            streams: Streams::Merged,
            file: None,
            overrides: false,
        },
    ]
}

/// Where recipe files are looked for: `skope.toml` in `cwd`, then in the user config
/// directory (`$XDG_CONFIG_HOME/skope` or `~/.config/skope`).
pub fn search_paths(cwd: &Path) -> Vec<PathBuf> {
    let mut paths = vec![cwd.join(FILE_NAME)];
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    if let Some(base) = base {
        paths.push(base.join("skope").join(FILE_NAME));
    }
    paths
}

/// The built-ins, then the recipes of each existing file in `paths`; a recipe of an earlier
/// file wins over a later one and over a built-in of the same name.
pub fn load(paths: &[PathBuf]) -> Result<Recipes, RecipeError> {
    let mut recipes: Vec<Recipe> = Vec::new();
    let mut keep_runs = None;
    let mut notes = Vec::new();
    for path in paths.iter().filter(|p| p.is_file()) {
        let text =
            crate::text::read_utf8(path).map_err(|e| RecipeError::unreadable(path, &e, HINT))?;
        let file = parse(&text, path)?;
        keep_runs = keep_runs.or(file.keep_runs);
        notes.extend(file.note);
        for recipe in file.recipes {
            if !recipes.iter().any(|p| p.name == recipe.name) {
                recipes.push(recipe);
            }
        }
    }
    for recipe in builtin() {
        match recipes.iter_mut().find(|p| p.name == recipe.name) {
            Some(replacing) => replacing.overrides = true,
            None => recipes.push(recipe),
        }
    }
    Ok(Recipes {
        list: recipes,
        keep_runs: keep_runs.unwrap_or(super::record::DEFAULT_KEEP),
        notes,
    })
}

/// The recipes (and `keep_runs`) in `text`, read from `path`.
pub fn parse(text: &str, path: &Path) -> Result<RecipesFile, RecipeError> {
    let error =
        |offset: Option<usize>, message: String| RecipeError::at(path, text, offset, message, HINT);
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        error(
            e.span().map(|s| s.start),
            e.message().trim_end().to_string(),
        )
    })?;
    let keep_runs = match raw.keep_runs {
        Some(n) if *n.get_ref() >= 1 => Some(usize::try_from(*n.get_ref()).unwrap_or(usize::MAX)),
        Some(n) => {
            return Err(error(
                Some(n.span().start),
                "keep_runs must be at least 1 (the number of runs of a dump kept on disk)".into(),
            ));
        }
        None => None,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    let note = (!raw.profile.is_empty()).then(|| {
        format!(
            "{}: [[profile]] tables are read as [[recipe]]; rename them (a later release reads \
             only [[recipe]])",
            path.display()
        )
    });
    let mut tables = raw.recipe;
    tables.extend(raw.profile);
    let mut out: Vec<Recipe> = Vec::new();
    for spanned in tables {
        let at = Some(spanned.span().start);
        let raw = spanned.into_inner();
        if raw.name.trim().is_empty() || raw.name.chars().any(char::is_control) {
            return Err(error(
                at,
                "a recipe needs a name without control characters".into(),
            ));
        }
        if out.iter().any(|p| p.name == raw.name) {
            return Err(error(
                at,
                format!("recipe \"{}\" is defined twice", raw.name),
            ));
        }
        if raw.argv.is_empty() {
            return Err(error(
                at,
                format!("recipe \"{}\" has an empty argv", raw.name),
            ));
        }
        // Every template, where it is in the file: an error points at the argument.
        let templates: Vec<&toml::Spanned<String>> =
            raw.argv.iter().chain(raw.results.as_ref()).collect();
        let texts: Vec<String> = templates.iter().map(|t| t.get_ref().clone()).collect();
        template::used(&texts).map_err(|e| {
            let place = templates.get(e.arg()).map(|t| t.span().start);
            error(place.or(at), format!("recipe \"{}\": {e}", raw.name))
        })?;
        let streams = match raw.streams {
            None => Streams::Merged,
            Some(given) => match given.get_ref().as_str() {
                "merged" => Streams::Merged,
                "separate" => Streams::Separate,
                other => {
                    return Err(error(
                        Some(given.span().start),
                        format!(
                            "recipe \"{}\": streams = {other:?}: write \"merged\" (stdout and \
                             stderr in the order written) or \"separate\" (each line's stream \
                             known)",
                            raw.name
                        ),
                    ));
                }
            },
        };
        let argv: Vec<String> = raw
            .argv
            .into_iter()
            .map(toml::Spanned::into_inner)
            .collect();
        out.push(Recipe {
            about: raw.about.unwrap_or_else(|| argv.join(" ")),
            name: raw.name,
            argv,
            cwd: raw.cwd.map(|c| dir.join(c)),
            env: raw.env.into_iter().collect(),
            results: raw.results.map(toml::Spanned::into_inner),
            streams,
            file: Some(path.to_path_buf()),
            overrides: false,
        });
    }
    Ok(RecipesFile {
        recipes: out,
        keep_runs,
        note,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
[[recipe]]
name = "compare"
argv = ["python3", "compare.py", "--graph", "{graph}", "--out", "{out}"]
cwd = "scripts"
env = { ASCEND_RT_VISIBLE_DEVICES = "0" }
results = "{out}/prof_result"

[[recipe]]
name = "check"
argv = ["make", "check"]
"#;

    #[test]
    fn files_give_recipes_and_override_built_ins_by_name() {
        let path = Path::new("/work/model/skope.toml");
        let parsed = parse(FILE, path).unwrap().recipes;
        assert_eq!(parsed[0].name, "compare");
        assert_eq!(
            parsed[0].cwd.as_deref(),
            Some(Path::new("/work/model/scripts"))
        );
        assert_eq!(
            parsed[0].env,
            [("ASCEND_RT_VISIBLE_DEVICES".into(), "0".into())]
        );
        assert_eq!(parsed[0].results.as_deref(), Some("{out}/prof_result"));
        let dir = crate::scratch::scratch("recipes");
        let file = dir.join(FILE_NAME);
        std::fs::write(&file, FILE).unwrap();
        let all = load(&[file, dir.join("missing.toml")]).unwrap();
        assert_eq!(all.keep_runs, crate::compile::record::DEFAULT_KEEP);
        let names: Vec<&str> = all.list.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["compare", "check", "cann"]);
        assert_eq!(all.list[1].argv, ["make", "check"]);
        // A file's check replacing the built-in says so; its other recipes and the
        // remaining built-in do not.
        let origins: Vec<String> = all.list.iter().map(Recipe::origin).collect();
        let shown = dir.join(FILE_NAME).display().to_string();
        assert_eq!(
            origins,
            [
                format!("from {shown}"),
                format!("from {shown}, overrides the built-in"),
                "built in".to_string()
            ]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_files_say_where() {
        let path = Path::new("skope.toml");
        let cases = [
            ("[[recipe]]\nname = \"x\"\n", "missing field `argv`"),
            ("[[recipe]]\nname = \"x\"\nargv = []\n", "empty argv"),
            (
                "[[recipe]]\nname = \"x\"\nargv = [\"a\", \"{grpah}\"]\n",
                "{grpah}",
            ),
            (
                "[[recipe]]\nname = \"x\"\nargv = [\"a\"]\nshell = true\n",
                "unknown field `shell`",
            ),
            (
                "[[recipe]]\nname = \"x\"\nargv = [\"a\"]\n[[recipe]]\nname = \"x\"\nargv = [\"b\"]\n",
                "defined twice",
            ),
            ("[[profile]\n", ""),
            ("keep_runs = 0\n", "at least 1"),
        ];
        for (text, words) in cases {
            let err = parse(text, path).unwrap_err();
            assert!(err.at.is_some(), "{text}: {err}");
            assert!(err.to_string().contains(words), "{text}: {err}");
            assert!(err.to_string().starts_with("skope.toml:"), "{err}");
        }
    }

    #[test]
    fn the_bundled_example_recipes_parse() {
        let path = Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/recipes/skope.toml"
        ));
        let text = std::fs::read_to_string(path).unwrap();
        let recipes = parse(&text, path).unwrap().recipes;
        let names: Vec<&str> = recipes.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["torchair-compare", "check-verbose"]);
        assert_eq!(recipes[0].results.as_deref(), Some("{out}/prof_result"));
    }

    #[test]
    fn tables_under_their_earlier_name_are_read_with_a_note() {
        let text = "[[profile]]\nname = \"old\"\nargv = [\"a\"]\n";
        let file = parse(text, Path::new("skope.toml")).unwrap();
        assert_eq!(file.recipes[0].name, "old");
        let note = file.note.unwrap();
        assert!(note.starts_with("skope.toml: [[profile]] tables"), "{note}");
        assert!(parse(FILE, Path::new("skope.toml")).unwrap().note.is_none());
        // One name may not be defined under both.
        let both = format!("{text}[[recipe]]\nname = \"old\"\nargv = [\"b\"]\n");
        let err = parse(&both, Path::new("skope.toml")).unwrap_err();
        assert!(err.to_string().contains("defined twice"), "{err}");
    }

    #[test]
    fn keep_runs_comes_from_the_first_file_that_sets_it() {
        let file = parse("keep_runs = 5\n", Path::new("skope.toml")).unwrap();
        assert_eq!(file.keep_runs, Some(5));
        assert!(file.recipes.is_empty());
    }

    #[test]
    fn built_ins_use_only_known_placeholders() {
        for recipe in builtin() {
            assert!(template::used(&recipe.argv).is_ok(), "{}", recipe.name);
            assert!(recipe.argv.iter().any(|a| a == "{codegen_dir}"));
        }
    }
}
