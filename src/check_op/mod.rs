//! Whether SuperKernel can fuse a user's own AscendC operator, read from its sources: each
//! `__global__` kernel against the documented contract (reference superkernel_ops_2026.md §1.2:
//! hicann/asc-devkit `SK_BIND.md` and `operator_adaptation.md` @12a14b50, and the SuperKernel
//! team's rule pack, whose rule ids are used where one exists). The sources are read as text by
//! a tolerant tokenizer ([`tokens`]); no compiler runs, so macros are not expanded (an
//! `SK_BIND` behind a macro of one's own is not seen: the text says so).

pub mod tokens;

use crate::target::Target;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tokens::{Kind, Token};

/// Where the rules come from.
const SK_BIND_DOC: &str = "asc-devkit SK_BIND.md";
const ADAPTATION_DOC: &str = "asc-devkit operator_adaptation.md";
/// Files read of a directory, at most (an operator's sources are a few dozen).
const MAX_FILES: usize = 10_000;
/// Bytes read of one file, at most.
const MAX_FILE_BYTES: u64 = 16 << 20;
/// The most sub-functions `SK_BIND` binds.
const MAX_SPLITS: usize = 4;

/// How much a finding stands in the way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpSeverity {
    /// SuperKernel cannot fuse it, or it would compute wrongly.
    Blocker,
    /// It fuses only under conditions.
    Warning,
    /// Worth knowing.
    Note,
}

impl OpSeverity {
    /// Its word.
    pub fn word(self) -> &'static str {
        match self {
            OpSeverity::Blocker => "blocker",
            OpSeverity::Warning => "warning",
            OpSeverity::Note => "note",
        }
    }
}

/// One finding, at the line of its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpFinding {
    /// How much it stands in the way.
    pub severity: OpSeverity,
    /// The rule (the rule pack's id where it has one).
    pub rule: &'static str,
    /// The kernel it concerns, when it concerns one.
    pub kernel: Option<String>,
    /// The file.
    pub file: String,
    /// The line.
    pub line: usize,
    /// What is wrong and what to do.
    pub words: String,
    /// The documentation the rule comes from.
    pub source: &'static str,
}

/// A `__global__` kernel and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelCheck {
    /// Its name.
    pub name: String,
    /// Where it is defined.
    pub file: String,
    /// Its line.
    pub line: usize,
    /// Its kernel type attribute (`__mix__(1,0)`, `__aicore__`…).
    pub kind: String,
    /// Its `SK_BIND`'s cap, when bound.
    pub cap: Option<u64>,
    /// Its `SK_BIND`'s sub-functions, when bound.
    pub sub_functions: Vec<String>,
    /// `fusible`, `fusible under conditions` or `not fusible`.
    pub verdict: &'static str,
}

/// What the check found in a set of sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The target the sources were checked for.
    pub target: Target,
    /// Files read.
    pub files: usize,
    /// Every `__global__` kernel found.
    pub kernels: Vec<KernelCheck>,
    /// Every finding, in file and line order.
    pub findings: Vec<OpFinding>,
}

impl Check {
    /// The kernel of op type `op_type` (`AddCustom` is the kernel `add_custom`: names compared
    /// without case and underscores), with its findings.
    pub fn of_op_type(&self, op_type: &str) -> Option<(&KernelCheck, Vec<&OpFinding>)> {
        let plain = |s: &str| s.replace('_', "").to_ascii_lowercase();
        let wanted = plain(op_type);
        let kernel = self.kernels.iter().find(|k| plain(&k.name) == wanted)?;
        let findings = self
            .findings
            .iter()
            .filter(|f| {
                f.kernel.as_ref() == Some(&kernel.name)
                    || (f.kernel.is_none() && f.file == kernel.file)
            })
            .collect();
        Some((kernel, findings))
    }

    /// What adapting op type `op_type` to SuperKernel takes, from its sources, in words (none
    /// when the sources hold no kernel of that type).
    pub fn adapting(&self, op_type: &str) -> Option<String> {
        let (kernel, findings) = self.of_op_type(op_type)?;
        let blockers: Vec<&&OpFinding> = findings
            .iter()
            .filter(|f| f.severity == OpSeverity::Blocker)
            .collect();
        Some(match blockers.first() {
            Some(first) => format!(
                "{} finding(s) in its sources ({} blocker(s)), the first {} at {}:{}: {}",
                findings.len(),
                blockers.len(),
                first.rule,
                first.file,
                first.line,
                first.words
            ),
            None => format!(
                "its sources ({}:{}) bind {} for SuperKernel ({} finding(s), no blocker): build                  the operator with SuperKernel support (the static kernel compile passes                  --enable_super_kernel)",
                kernel.file,
                kernel.line,
                kernel.name,
                findings.len()
            ),
        })
    }

    /// True when any finding blocks fusion.
    pub fn has_blocker(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity == OpSeverity::Blocker)
    }

    /// The check in words: a summary, then each kernel with its findings, then the findings of
    /// no one kernel.
    pub fn to_text(&self) -> String {
        let count = |s: OpSeverity| self.findings.iter().filter(|f| f.severity == s).count();
        let mut out = format!(
            "{} file(s), {} kernel(s) for {} ({}): {} blocker(s), {} warning(s), {} note(s)\n",
            self.files,
            self.kernels.len(),
            self.target,
            self.target.hardware(),
            count(OpSeverity::Blocker),
            count(OpSeverity::Warning),
            count(OpSeverity::Note)
        );
        let line = |f: &OpFinding| {
            format!(
                "  {}:{}: {} {}: {} ({})\n",
                f.file,
                f.line,
                f.severity.word(),
                f.rule,
                f.words,
                f.source
            )
        };
        for k in &self.kernels {
            let bound = match k.cap {
                Some(cap) => format!(
                    "SK_BIND cap {cap} → {}",
                    if k.sub_functions.is_empty() {
                        "no sub-function".to_string()
                    } else {
                        k.sub_functions.join(", ")
                    }
                ),
                None => "no SK_BIND".to_string(),
            };
            out.push_str(&format!(
                "\nkernel {}  {}:{}  {} · {bound}  {}\n",
                k.name, k.file, k.line, k.kind, k.verdict
            ));
            for f in self
                .findings
                .iter()
                .filter(|f| f.kernel.as_ref() == Some(&k.name))
            {
                out.push_str(&line(f));
            }
        }
        let loose: Vec<&OpFinding> = self
            .findings
            .iter()
            .filter(|f| f.kernel.is_none())
            .collect();
        if !loose.is_empty() {
            out.push_str("\nnot of one kernel:\n");
            for f in loose {
                out.push_str(&line(f));
            }
        }
        if self.kernels.is_empty() {
            out.push_str(
                "\nno __global__ kernel in these sources: give the operator's kernel sources \
                 (op_kernel/*.cpp)\n",
            );
        }
        crate::text::sanitize_lines(&out)
    }
}

/// A source file read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its path as given or found.
    pub path: PathBuf,
    /// Its text (invalid UTF-8 replaced).
    pub text: String,
}

/// Why sources could not be read.
#[derive(Debug)]
pub struct ReadError {
    /// The path.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}\n  hint: give AscendC kernel sources (.cpp, .h, .hpp, .cc, .asc) or a \
             directory holding them",
            self.path.display(),
            self.message
        )
    }
}

impl std::error::Error for ReadError {}

/// True for a file name an operator's sources use.
fn is_source(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["cpp", "cc", "cxx", "c", "h", "hpp", "hh", "asc", "cce"]
            .contains(&e.to_ascii_lowercase().as_str())
    })
}

/// Reads `paths`: files as given, directories' source files (in name order, not following
/// links to directories).
pub fn read_sources(paths: &[PathBuf]) -> Result<Vec<Source>, ReadError> {
    let mut files = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|e| ReadError {
            path: path.clone(),
            message: e.to_string(),
        })?;
        if meta.is_dir() {
            collect(path, &mut files)?;
        } else {
            files.push(path.clone());
        }
    }
    files
        .into_iter()
        .map(|path| {
            use std::io::Read as _;
            let mut bytes = Vec::new();
            std::fs::File::open(&path)
                .and_then(|f| f.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
                .map_err(|e| ReadError {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Ok(Source { path, text })
        })
        .collect()
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), ReadError> {
    let error = |e: std::io::Error| ReadError {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(error)?
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if path.is_dir() && !link {
            collect(&path, files)?;
        } else if path.is_file() && is_source(&path) {
            if files.len() == MAX_FILES {
                return Err(ReadError {
                    path: dir.to_path_buf(),
                    message: format!(
                        "more than {MAX_FILES} source files: give the operator's own directory"
                    ),
                });
            }
            files.push(path);
        }
    }
    Ok(())
}

/// A function found: its name, attributes, line and body (token range).
#[derive(Debug, Clone)]
struct Function {
    name: String,
    /// Its kernel type attribute as written (`__mix__(1,0)`, `__cube__`, `__aicore__`…).
    kind: String,
    line: usize,
    body: Option<(usize, usize)>,
}

/// An `SK_BIND(GF, cap, SK0, …)` invocation.
#[derive(Debug, Clone)]
struct Bind {
    kernel: String,
    cap: Option<u64>,
    cap_text: String,
    subs: Vec<String>,
    line: usize,
}

/// The index of the token closing the bracket opened at `open` (or the last token).
fn closing(t: &[Token], open: usize) -> usize {
    let (o, c) = match t[open].text {
        "(" => ("(", ")"),
        "{" => ("{", "}"),
        _ => ("[", "]"),
    };
    let mut depth = 0usize;
    for (i, tok) in t.iter().enumerate().skip(open) {
        if tok.text == o {
            depth += 1;
        } else if tok.text == c {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i;
            }
        }
    }
    t.len().saturating_sub(1)
}

/// The kernel type attributes SuperKernel tells apart.
const KIND_WORDS: [&str; 5] = ["__mix__", "__cube__", "__vector__", "__aicore__", "__aiv__"];

/// The functions marked `marker` (`__global__`, `__sk__`).
fn functions(t: &[Token], marker: &str) -> Vec<Function> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i].text != marker {
            i += 1;
            continue;
        }
        let line = t[i].line;
        let mut kind = String::new();
        let mut name = None;
        let mut j = i + 1;
        while j < t.len() && !matches!(t[j].text, ";" | "{" | "}") {
            match t[j].text {
                "(" if t[j - 1].text == "__mix__" => {
                    let end = closing(t, j);
                    kind.push_str(&t[j..=end].iter().map(|t| t.text).collect::<String>());
                    j = end + 1;
                    continue;
                }
                "(" => {
                    name = (t[j - 1].kind == Kind::Ident).then(|| t[j - 1].text.to_string());
                    break;
                }
                w if KIND_WORDS.contains(&w) && kind.is_empty() => kind.push_str(w),
                _ => {}
            }
            j += 1;
        }
        let Some(name) = name else {
            i = j.max(i + 1);
            continue;
        };
        let params_end = closing(t, j);
        // A definition when its body follows the parameters (and qualifiers), not a `;`.
        let body = t[params_end + 1..]
            .iter()
            .position(|x| matches!(x.text, "{" | ";"))
            .map(|k| params_end + 1 + k)
            .filter(|&k| t[k].text == "{")
            .map(|k| (k, closing(t, k)));
        out.push(Function {
            name,
            kind,
            line,
            body,
        });
        i = body.map_or(params_end + 1, |(_, end)| end + 1);
    }
    out
}

/// The top-level arguments of the call whose `(` is at `open`, each as its tokens' text.
fn arguments(t: &[Token], open: usize) -> Vec<String> {
    let end = closing(t, open);
    let mut args = vec![String::new()];
    let mut depth = 0i32;
    for tok in &t[open + 1..end] {
        match tok.text {
            "(" | "<" | "[" | "{" => depth += 1,
            ")" | ">" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                args.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = args.last_mut() {
            last.push_str(tok.text);
        }
    }
    args.retain(|a| !a.is_empty());
    args
}

/// A number literal's value (`16`, `0x10`, `16u`, `0b10000`).
fn number(text: &str) -> Option<u64> {
    let t = text
        .trim_end_matches(['u', 'U', 'l', 'L'])
        .replace('\'', "");
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if let Some(bin) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(bin, 2).ok()
    } else {
        t.parse().ok()
    }
}

/// The value of a cap written as literals and named constants joined by `|` or `+` (with
/// parentheses), when every part is known.
fn cap_value(text: &str, constants: &HashMap<String, u64>) -> Option<u64> {
    let mut value = 0u64;
    for part in text.split(['|', '+']) {
        let part = part.trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace());
        let v = number(part).or_else(|| constants.get(part).copied())?;
        value |= v;
    }
    Some(value)
}

/// Named numbers the sources define: `#define NAME N` and `constexpr … NAME = N;`.
fn constants(all: &[Vec<Token>]) -> HashMap<String, u64> {
    let mut out = HashMap::new();
    for t in all {
        for (i, tok) in t.iter().enumerate() {
            if tok.kind == Kind::Directive {
                let words: Vec<&str> = tok.text.split_whitespace().collect();
                if let ["#define", name, value] = words.as_slice()
                    && let Some(v) = number(value.trim_matches(['(', ')']))
                {
                    out.insert(name.to_string(), v);
                }
            } else if tok.text == "="
                && i >= 1
                && t[i - 1].kind == Kind::Ident
                && t[..i].iter().rev().take(6).any(|x| x.text == "constexpr")
                && let Some(v) = t.get(i + 1).and_then(|x| number(x.text))
            {
                out.insert(t[i - 1].text.to_string(), v);
            }
        }
    }
    out
}

/// The cap bits the documentation gives (SK_BIND.md; aot/sk_node.h).
const EARLY_START_WAIT: u64 = 1;
const EARLY_START_SET: u64 = 2;
const KNOWN_CAP: u64 = 1 | 2 | 4 | 8 | 16;

/// Reads and checks the sources at `paths` for `target`.
pub fn check_paths(paths: &[PathBuf], target: Target) -> Result<Check, ReadError> {
    Ok(check(&read_sources(paths)?, target))
}

/// Checks `sources` for `target`: on dav-3510 `SK_BIND` is not supported (SK_BIND.md: 950
/// "不支持") and the TPipe barrier rule is A2/A3's.
pub fn check(sources: &[Source], target: Target) -> Check {
    let a2_a3 = target == Target::Dav2201;
    let tokens: Vec<Vec<Token>> = sources.iter().map(|s| tokens::tokenize(&s.text)).collect();
    let named = constants(&tokens);
    let mut kernels: Vec<(usize, Function)> = Vec::new();
    let mut subs: Vec<(usize, Function)> = Vec::new();
    let mut binds: Vec<(usize, Bind)> = Vec::new();
    let mut findings = Vec::new();
    for (f, t) in tokens.iter().enumerate() {
        kernels.extend(functions(t, "__global__").into_iter().map(|k| (f, k)));
        subs.extend(functions(t, "__sk__").into_iter().map(|k| (f, k)));
        for (i, tok) in t.iter().enumerate() {
            if tok.text == "SK_BIND" && t.get(i + 1).is_some_and(|x| x.text == "(") {
                let args = arguments(t, i + 1);
                let cap_text = args.get(1).cloned().unwrap_or_default();
                binds.push((
                    f,
                    Bind {
                        kernel: args.first().cloned().unwrap_or_default(),
                        cap: cap_value(&cap_text, &named),
                        cap_text,
                        subs: args.iter().skip(2).cloned().collect(),
                        line: tok.line,
                    },
                ));
            }
        }
    }
    let file = |f: usize| sources[f].path.display().to_string();
    let mut add = |severity, rule, kernel: Option<&str>, f: usize, line, words: String, source| {
        findings.push(OpFinding {
            severity,
            rule,
            kernel: kernel.map(str::to_string),
            file: file(f),
            line,
            words,
            source,
        });
    };
    // The kernel a line of file `f` is in: its body or one of its sub-functions', else the
    // file's only kernel.
    let owner = |f: usize, line: usize| -> Option<String> {
        let within = |func: &Function| {
            func.body
                .is_some_and(|(a, b)| tokens[f][a].line <= line && line <= tokens[f][b].line)
        };
        if let Some((_, k)) = kernels.iter().find(|(kf, k)| *kf == f && within(k)) {
            return Some(k.name.clone());
        }
        if let Some((_, s)) = subs.iter().find(|(sf, s)| *sf == f && within(s)) {
            let bound = binds
                .iter()
                .find(|(_, b)| b.subs.iter().any(|x| base(x) == s.name));
            return bound.map(|(_, b)| b.kernel.clone());
        }
        let mine: Vec<&Function> = kernels
            .iter()
            .filter(|(kf, _)| *kf == f)
            .map(|(_, k)| k)
            .collect();
        match mine.as_slice() {
            [only] => Some(only.name.clone()),
            _ => None,
        }
    };
    for (f, k) in &kernels {
        if !a2_a3 && !binds.iter().any(|(_, b)| b.kernel == k.name) {
            add(
                OpSeverity::Note,
                "sk.bind-target",
                Some(&k.name),
                *f,
                k.line,
                format!(
                    "on {target} SK_BIND is not supported, so no binding can adapt {}: whether \
                     SuperKernel fuses it there is not documented (experimental on Ascend 950)",
                    k.name
                ),
                SK_BIND_DOC,
            );
        } else if !binds.iter().any(|(_, b)| b.kernel == k.name) {
            add(
                OpSeverity::Blocker,
                "sk.bind-present",
                Some(&k.name),
                *f,
                k.line,
                format!(
                    "no SK_BIND binds {}: SuperKernel cannot fuse it (GE: type not adapted to \
                     SuperKernel; aclgraph: OP_UNSUPPORT [BINDMAP_INIT_EMPTY]) — bind it to up \
                     to {MAX_SPLITS} __sk__ sub-functions with SK_BIND({}, cap, …)",
                    k.name, k.name
                ),
                SK_BIND_DOC,
            );
        }
    }
    for (f, b) in &binds {
        let kernel = kernels
            .iter()
            .find(|(_, k)| k.name == b.kernel)
            .map(|(_, k)| k);
        let of = Some(b.kernel.as_str());
        if !a2_a3 {
            add(
                OpSeverity::Blocker,
                "sk.bind-target",
                of,
                *f,
                b.line,
                format!(
                    "SK_BIND is not supported on {target} ({}): SuperKernel cannot use this \
                     binding there — build for dav-2201 (Atlas A2/A3) to fuse {}",
                    target.hardware(),
                    b.kernel
                ),
                SK_BIND_DOC,
            );
        }
        if kernel.is_none() {
            add(
                OpSeverity::Warning,
                "sk.global-preserved",
                of,
                *f,
                b.line,
                format!(
                    "SK_BIND binds {}, which no __global__ kernel of these sources defines",
                    b.kernel
                ),
                SK_BIND_DOC,
            );
        }
        if b.subs.len() > MAX_SPLITS {
            add(
                OpSeverity::Blocker,
                "sk.bind-max-splits",
                of,
                *f,
                b.line,
                format!(
                    "SK_BIND binds {} sub-functions: at most {MAX_SPLITS}",
                    b.subs.len()
                ),
                SK_BIND_DOC,
            );
        }
        match b.cap {
            None => add(
                OpSeverity::Note,
                "sk.bind-mask-known",
                of,
                *f,
                b.line,
                format!(
                    "the cap `{}` is not a constant skope can read: its bits are not checked",
                    b.cap_text
                ),
                SK_BIND_DOC,
            ),
            Some(cap) if cap & !KNOWN_CAP != 0 => add(
                OpSeverity::Warning,
                "sk.bind-mask-known",
                of,
                *f,
                b.line,
                format!(
                    "cap {cap} has bits no documentation gives ({}): the known bits are 1 early-start \
                     wait, 2 early-start set, 4 disable DCCI, 8 skip the schedule-mode check, 16 \
                     block-dim scale-up",
                    cap & !KNOWN_CAP
                ),
                SK_BIND_DOC,
            ),
            Some(cap) if cap & (8 | 16) != 0 => add(
                OpSeverity::Note,
                "sk.bind-mask-known",
                of,
                *f,
                b.line,
                format!(
                    "cap {cap} uses bit{} documented since mid-2026 (8 skip the schedule-mode check, \
                     16 block-dim scale-up): the SuperKernel team's rule pack still accepts 0..7 only",
                    if cap & 24 == 24 {
                        "s 8 and 16"
                    } else if cap & 8 != 0 {
                        " 8"
                    } else {
                        " 16"
                    }
                ),
                SK_BIND_DOC,
            ),
            Some(_) => {}
        }
        // The sub-functions' kernel type must follow the kernel's.
        let wanted = kernel.and_then(|k| match k.kind.replace(' ', "").as_str() {
            "__mix__(1,0)" => Some("__cube__"),
            "__mix__(0,1)" => Some("__vector__"),
            _ => None,
        });
        if let Some(wanted) = wanted {
            for name in &b.subs {
                if let Some((_, s)) = subs.iter().find(|(_, s)| s.name == base(name))
                    && s.kind != wanted
                {
                    add(
                        OpSeverity::Blocker,
                        "sk.kernel-type-match",
                        of,
                        *f,
                        b.line,
                        format!(
                            "{} is {}, its sub-function {} is {}: a {} kernel's sub-functions \
                             must be {wanted}",
                            b.kernel,
                            kernel.map_or("", |k| k.kind.as_str()),
                            s.name,
                            if s.kind.is_empty() {
                                "of no kernel type"
                            } else {
                                &s.kind
                            },
                            kernel.map_or("", |k| k.kind.as_str())
                        ),
                        SK_BIND_DOC,
                    );
                }
            }
        }
        // Early start: the bits declared against the calls made.
        let Some(cap) = b.cap else { continue };
        let bodies: Vec<(usize, (usize, usize))> = kernel
            .iter()
            .filter_map(|k| kernels.iter().find(|(_, x)| x.name == k.name))
            .chain(
                subs.iter()
                    .filter(|(_, s)| b.subs.iter().any(|x| base(x) == s.name)),
            )
            .filter_map(|(sf, func)| Some((*sf, func.body?)))
            .collect();
        let call = |word: &str| {
            bodies.iter().find_map(|&(sf, (a, z))| {
                tokens[sf][a..=z]
                    .iter()
                    .find(|t| t.text == word)
                    .map(|t| (sf, t.line))
            })
        };
        for (bit, word, what) in [
            (EARLY_START_WAIT, "WaitPreTaskEnd", "early-start wait"),
            (EARLY_START_SET, "SetNextTaskStart", "early-start set"),
        ] {
            match (cap & bit != 0, call(word)) {
                (false, Some((sf, line))) => add(
                    OpSeverity::Warning,
                    "sk.cap-matches",
                    of,
                    sf,
                    line,
                    format!(
                        "it calls {word} but its cap lacks bit {bit} ({what}): declare it in SK_BIND"
                    ),
                    SK_BIND_DOC,
                ),
                (true, None) if !bodies.is_empty() => add(
                    OpSeverity::Warning,
                    "sk.cap-matches",
                    of,
                    *f,
                    b.line,
                    format!(
                        "its cap declares bit {bit} ({what}) but neither it nor its sub-functions \
                         call {word} (calls through helpers are not seen)"
                    ),
                    SK_BIND_DOC,
                ),
                _ => {}
            }
        }
    }
    for (f, t) in tokens.iter().enumerate() {
        for (i, tok) in t.iter().enumerate() {
            let after_member = i > 0 && matches!(t[i - 1].text, "." | "->" | "::");
            match tok.text {
                "block_idx" | "block_num" if !after_member => add(
                    OpSeverity::Blocker,
                    "sk.raw-block-index",
                    owner(f, tok.line).as_deref(),
                    f,
                    tok.line,
                    format!(
                        "raw {} inside a SuperKernel counts the SuperKernel's cores, not the \
                         operator's: use {}",
                        tok.text,
                        if tok.text == "block_idx" {
                            "GetBlockIdx()"
                        } else {
                            "GetBlockNum()"
                        }
                    ),
                    ADAPTATION_DOC,
                ),
                "<<<" if i > 0 && t[i - 1].kind == Kind::Ident => add(
                    OpSeverity::Warning,
                    "sk.launch-aclgraph-only",
                    Some(t[i - 1].text),
                    f,
                    tok.line,
                    format!(
                        "{} is launched with <<<>>>: such an operator fuses only on the aclgraph \
                         path (npugraph_ex, with SK_BIND), never in GE mode",
                        t[i - 1].text
                    ),
                    ADAPTATION_DOC,
                ),
                _ => {}
            }
        }
        // Several TPipes on A2/A3 need the barrier TPipe::Destroy no longer emits.
        let pipes: Vec<usize> = t
            .windows(2)
            .filter(|w| w[0].text == "TPipe" && w[1].kind == Kind::Ident)
            .map(|w| w[0].line)
            .collect();
        let barrier = t
            .windows(3)
            .any(|w| w[0].text == "PipeBarrier" && w[1].text == "<" && w[2].text == "PIPE_ALL");
        if a2_a3 && pipes.len() > 1 && !barrier {
            add(
                OpSeverity::Blocker,
                "sk.tpipe-destroy-without-pipe-all",
                owner(f, pipes[1]).as_deref(),
                f,
                pipes[1],
                format!(
                    "{} TPipes and no PipeBarrier<PIPE_ALL>(): on A2/A3 TPipe::Destroy no longer \
                     emits it, so inside a SuperKernel the next pipe's work can overtake this one's \
                     — add PipeBarrier<PIPE_ALL>() between them",
                    pipes.len()
                ),
                ADAPTATION_DOC,
            );
        }
    }
    findings.sort_by(|a, b| (&a.file, a.line, a.rule).cmp(&(&b.file, b.line, b.rule)));
    let kernels = kernels
        .iter()
        .map(|(f, k)| {
            let bind = binds
                .iter()
                .find(|(_, b)| b.kernel == k.name)
                .map(|(_, b)| b);
            let mine = |s: OpSeverity| {
                findings.iter().any(|x| {
                    x.severity == s
                        && (x.kernel.as_ref() == Some(&k.name)
                            || (x.kernel.is_none() && x.file == file(*f)))
                })
            };
            KernelCheck {
                name: k.name.clone(),
                file: file(*f),
                line: k.line,
                kind: if k.kind.is_empty() {
                    "no kernel type attribute".into()
                } else {
                    k.kind.clone()
                },
                cap: bind.and_then(|b| b.cap),
                sub_functions: bind.map(|b| b.subs.clone()).unwrap_or_default(),
                verdict: if mine(OpSeverity::Blocker) {
                    "not fusible"
                } else if mine(OpSeverity::Warning) {
                    "fusible under conditions"
                } else {
                    "fusible"
                },
            }
        })
        .collect();
    Check {
        target,
        files: sources.len(),
        kernels,
        findings,
    }
}

/// A sub-function's name without its template arguments (`f_sk<0>` → `f_sk`).
fn base(name: &str) -> &str {
    name.split('<').next().unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Check {
        run_for(text, Target::Dav2201)
    }

    fn run_for(text: &str, target: Target) -> Check {
        let source = Source {
            path: PathBuf::from("op.cpp"),
            text: text.to_string(),
        };
        check(&[source], target)
    }

    fn rules(c: &Check) -> Vec<(&str, OpSeverity, usize)> {
        c.findings
            .iter()
            .map(|f| (f.rule, f.severity, f.line))
            .collect()
    }

    #[test]
    fn an_adapted_operator_is_fusible() {
        let c = run("#include \"kernel_operator.h\"\n\
             extern \"C\" __global__ __mix__(0, 1) void add_custom(GM_ADDR x) {\n\
               KernelAdd op; op.Init(x, GetBlockIdx()); op.Process();\n\
             }\n\
             template<uint32_t> __sk__ __vector__ void add_sk(const Args* a, sk::SkSystemArgs* s) {\n\
               KernelAdd op; op.Process();\n\
             }\n\
             SK_BIND(add_custom, 0, add_sk<0>, add_sk<1>, add_sk<2>, add_sk<3>);\n");
        assert!(c.findings.is_empty(), "{:?}", c.findings);
        assert_eq!(c.kernels.len(), 1);
        assert_eq!(c.kernels[0].verdict, "fusible");
        assert_eq!(c.kernels[0].sub_functions.len(), 4);
    }

    #[test]
    fn each_rule_finds_its_evidence_at_its_line() {
        let c = run("#define CAP_SET 2\n\
             __global__ __mix__(1, 0) void mm(GM_ADDR x) {\n\
               int i = block_idx;\n\
               SetNextTaskStart();\n\
               TPipe a;\n\
               TPipe b;\n\
             }\n\
             template<uint32_t> __sk__ __vector__ void mm_sk(const Args* a, sk::SkSystemArgs* s) {}\n\
             SK_BIND(mm, 1 | 32, mm_sk<0>, mm_sk<1>, mm_sk<2>, mm_sk<3>, mm_sk<4>);\n\
             __global__ __aicore__ void plain(GM_ADDR x) {}\n\
             void host() { plain<<<8, nullptr, s>>>(x); }\n");
        let found = rules(&c);
        for expected in [
            ("sk.raw-block-index", OpSeverity::Blocker, 3),
            ("sk.cap-matches", OpSeverity::Warning, 4),
            ("sk.tpipe-destroy-without-pipe-all", OpSeverity::Blocker, 6),
            ("sk.bind-max-splits", OpSeverity::Blocker, 9),
            ("sk.bind-mask-known", OpSeverity::Warning, 9),
            ("sk.kernel-type-match", OpSeverity::Blocker, 9),
            ("sk.cap-matches", OpSeverity::Warning, 9),
            ("sk.bind-present", OpSeverity::Blocker, 10),
            ("sk.launch-aclgraph-only", OpSeverity::Warning, 11),
        ] {
            assert!(found.contains(&expected), "{expected:?} in {found:?}");
        }
        assert!(c.has_blocker());
        assert!(
            c.kernels.iter().all(|k| k.verdict == "not fusible"),
            "{:?}",
            c.kernels
        );
    }

    #[test]
    fn named_caps_and_the_newer_bits_are_read() {
        let c = run("constexpr uint64_t SK_CAP_BLOCKDIM_SCALE_UP = 16;\n\
             __global__ __aicore__ void k(GM_ADDR x) { WaitPreTaskEnd(); }\n\
             SK_BIND(k, SK_CAP_BLOCKDIM_SCALE_UP | 1, k_1, k_2);\n");
        assert_eq!(c.kernels[0].cap, Some(17));
        assert_eq!(rules(&c), [("sk.bind-mask-known", OpSeverity::Note, 3)]);
        assert_eq!(c.kernels[0].verdict, "fusible");
    }

    #[test]
    fn on_ascend_950_a_binding_cannot_adapt_a_kernel_and_the_pipe_rule_is_a2_a3s() {
        let text = "__global__ __mix__(0, 1) void add(GM_ADDR x) { TPipe a; TPipe b; }\n\
             template<uint32_t> __sk__ __vector__ void add_sk(const Args* a, sk::SkSystemArgs* s) {}\n\
             SK_BIND(add, 0, add_sk<0>);\n\
             __global__ __aicore__ void plain(GM_ADDR x) {}\n";
        let a2 = run_for(text, Target::Dav2201);
        assert_eq!(
            rules(&a2),
            [
                ("sk.tpipe-destroy-without-pipe-all", OpSeverity::Blocker, 1),
                ("sk.bind-present", OpSeverity::Blocker, 4)
            ]
        );
        let a5 = run_for(text, Target::Dav3510);
        assert_eq!(
            rules(&a5),
            [
                ("sk.bind-target", OpSeverity::Blocker, 3),
                ("sk.bind-target", OpSeverity::Note, 4)
            ]
        );
        assert!(
            a5.to_text().contains("for dav-3510 (Ascend 950"),
            "{}",
            a5.to_text()
        );
    }
}
