//! The rules table: what is known about op types when the dump cannot say.
//!
//! Dumps taken before GE compiles (TorchAir `txt`/`pbtxt`) carry no `supportSuperKernel`, so
//! whether an op can be fused comes from this table. It is data: the bundled files in
//! `assets/rules/` (documented in `assets/rules/README.md`), extended or overridden by a user
//! file (`--rules FILE`) with the same format.

use super::verdict::{Reason, Verdict};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The bundled rule files, embedded so the binary works from any directory.
const BUNDLED: &[(&str, &str)] = &[
    (
        "assets/rules/ge_superkernel_pass.json",
        include_str!("../../assets/rules/ge_superkernel_pass.json"),
    ),
    (
        "assets/rules/communication.json",
        include_str!("../../assets/rules/communication.json"),
    ),
];

/// One entry of a rules file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// The op type it applies to (exact match).
    pub op_type: String,
    /// What the rule says about the type.
    pub verdict: Verdict,
    /// Extra words for the user (why, which versions).
    pub detail: Option<String>,
    /// Where the fact comes from (document, source file, site knowledge).
    pub source: String,
    /// The rules file that holds the entry.
    pub file: String,
}

/// A rules file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, 0 when unknown.
    pub line: usize,
    /// 1-based column, 0 when unknown.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for RulesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        write!(
            f,
            ": {}\n  hint: a rules file is JSON: {{\"rules\": [{{\"op_type\": \"Cast\", \
             \"verdict\": \"unsupported\", \"reason\": \"not_ascendc\", \"source\": \"…\"}}]}} \
             (see assets/rules/README.md)",
            self.message
        )
    }
}

impl std::error::Error for RulesError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    /// Free text describing the file; not used by the planner.
    #[serde(default, rename = "about")]
    _about: String,
    rules: Vec<RuleEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    op_type: String,
    verdict: VerdictName,
    reason: Option<Reason>,
    detail: Option<String>,
    source: String,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum VerdictName {
    Fusible,
    Ignored,
    Unsupported,
}

/// All rules in effect, by op type; later files override earlier ones.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    by_type: HashMap<String, Rule>,
    files: Vec<String>,
}

impl RuleSet {
    /// The bundled rules.
    pub fn bundled() -> RuleSet {
        let mut set = RuleSet::default();
        for (name, text) in BUNDLED {
            // The bundled files are checked by a test; a broken one is a build defect.
            if let Err(e) = set.add_text(Path::new(name), text) {
                panic!("bundled rules file is invalid: {e}");
            }
        }
        set
    }

    /// Adds the rules of the file at `path`, overriding entries for the same op types.
    pub fn add_file(&mut self, path: &Path) -> Result<(), RulesError> {
        let text = std::fs::read_to_string(path).map_err(|e| RulesError {
            path: path.to_path_buf(),
            line: 0,
            column: 0,
            message: format!("cannot read the rules file: {e}"),
        })?;
        self.add_text(path, &text)
    }

    /// Adds rules from `text` (the content of the file `path`).
    pub fn add_text(&mut self, path: &Path, text: &str) -> Result<(), RulesError> {
        let error = |line, column, message| RulesError {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        let file: RulesFile = serde_json::from_str(text).map_err(|e| {
            // serde_json appends " at line L column C"; the position is shown up front.
            let message = e.to_string();
            let message = message
                .rsplit_once(" at line ")
                .map_or(message.as_str(), |(m, _)| m);
            error(e.line(), e.column(), message.to_string())
        })?;
        let name = path.display().to_string();
        let mut rules = Vec::with_capacity(file.rules.len());
        for (i, entry) in file.rules.into_iter().enumerate() {
            let verdict = match (entry.verdict, entry.reason) {
                (VerdictName::Fusible, None) => Verdict::Fusible,
                (VerdictName::Ignored, None) => Verdict::Ignored,
                (VerdictName::Unsupported, Some(reason)) => Verdict::Unsupported(reason),
                (VerdictName::Unsupported, None) => {
                    return Err(error(
                        0,
                        0,
                        format!(
                            "rules[{i}] ({}): an unsupported verdict needs a \"reason\" (one of {})",
                            entry.op_type,
                            Reason::CODES.join(", ")
                        ),
                    ));
                }
                (_, Some(_)) => {
                    return Err(error(
                        0,
                        0,
                        format!(
                            "rules[{i}] ({}): only an unsupported verdict takes a \"reason\"",
                            entry.op_type
                        ),
                    ));
                }
            };
            if entry.op_type.trim().is_empty() {
                return Err(error(0, 0, format!("rules[{i}]: op_type is empty")));
            }
            rules.push(Rule {
                op_type: entry.op_type,
                verdict,
                detail: entry.detail,
                source: entry.source,
                file: name.clone(),
            });
        }
        for rule in rules {
            self.by_type.insert(rule.op_type.clone(), rule);
        }
        self.files.push(name);
        Ok(())
    }

    /// The rule for `op_type`, if any.
    pub fn get(&self, op_type: &str) -> Option<&Rule> {
        self.by_type.get(op_type)
    }

    /// The files the rules came from, in the order they were added.
    pub fn files(&self) -> &[String] {
        &self.files
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_rules_cover_the_reference_lists() {
        let rules = RuleSet::bundled();
        for t in [
            "Data",
            "Const",
            "Constant",
            "ConstPlaceHolder",
            "Variable",
            "Send",
            "Recv",
            "SendNotify",
            "RecvNotify",
            "SendMem",
            "RecvMem",
        ] {
            assert_eq!(
                rules.get(t).map(|r| r.verdict),
                Some(Verdict::Ignored),
                "{t}"
            );
        }
        for t in [
            "MoeInitRoutingV2",
            "MoeInitRoutingV3",
            "MoeInitRoutingQuant",
        ] {
            assert_eq!(
                rules.get(t).map(|r| r.verdict),
                Some(Verdict::Unsupported(Reason::Blacklisted)),
                "{t}"
            );
        }
        for t in [
            "HcomAllReduce",
            "HcomReduceScatter",
            "HcomAllGather",
            "HcomAllToAll",
        ] {
            assert_eq!(
                rules.get(t).map(|r| r.verdict),
                Some(Verdict::Fusible),
                "{t}"
            );
        }
        assert_eq!(
            rules.get("HcomBroadcast").map(|r| r.verdict),
            Some(Verdict::Unsupported(Reason::CommNotSupported))
        );
        assert!(rules.get("MatMulV2").is_none());
    }

    #[test]
    fn a_user_file_overrides_and_extends() {
        let mut rules = RuleSet::bundled();
        let text = r#"{"rules": [
            {"op_type": "Cast", "verdict": "unsupported", "reason": "not_ascendc",
             "source": "site: Cast is TBE in this CANN build"},
            {"op_type": "HcomBroadcast", "verdict": "fusible", "source": "site"}
        ]}"#;
        rules.add_text(Path::new("site.json"), text).unwrap();
        assert_eq!(
            rules.get("Cast").map(|r| (r.verdict, r.file.as_str())),
            Some((Verdict::Unsupported(Reason::NotAscendC), "site.json"))
        );
        assert_eq!(
            rules.get("HcomBroadcast").map(|r| r.verdict),
            Some(Verdict::Fusible)
        );
        assert_eq!(rules.files().last().map(String::as_str), Some("site.json"));
    }

    #[test]
    fn bad_files_name_the_position_and_the_problem() {
        let mut rules = RuleSet::default();
        let cases = [
            (
                "{\"rules\": [{\"op_type\": \"Cast\",\n \"verdit\": \"fusible\"}]}",
                "2:",
                "unknown field `verdit`",
            ),
            (
                "{\"rules\": [{\"op_type\": \"Cast\", \"verdict\": \"maybe\", \"source\": \"x\"}]}",
                "1:",
                "unknown variant `maybe`",
            ),
            (
                "{\"rules\": [{\"op_type\": \"Cast\", \"verdict\": \"unsupported\", \"reason\": \"tbe\", \"source\": \"x\"}]}",
                "1:",
                "unknown variant `tbe`",
            ),
            (
                "{\"rules\": [{\"op_type\": \"Cast\", \"verdict\": \"unsupported\", \"source\": \"x\"}]}",
                "",
                "needs a \"reason\"",
            ),
            (
                "{\"rules\": [{\"op_type\": \"Cast\", \"verdict\": \"fusible\", \"reason\": \"simt\", \"source\": \"x\"}]}",
                "",
                "only an unsupported",
            ),
            ("{\"rules\": [", "1:", "EOF"),
            ("", "1:", "EOF"),
        ];
        for (text, at, what) in cases {
            let e = rules.add_text(Path::new("r.json"), text).unwrap_err();
            let shown = e.to_string();
            assert!(
                shown.starts_with(&format!("r.json:{at}")) || at.is_empty(),
                "{shown}"
            );
            assert!(shown.contains(what), "{shown}");
            assert!(shown.contains("hint:"), "{shown}");
        }
        let missing = rules
            .add_file(Path::new("/nonexistent/rules.json"))
            .unwrap_err();
        assert!(missing.to_string().contains("cannot read the rules file"));
    }
}
