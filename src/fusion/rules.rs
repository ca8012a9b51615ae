//! The rules table: what is known about op types when the dump cannot say.
//!
//! Dumps taken before GE compiles (TorchAir `txt`/`pbtxt`) carry no `supportSuperKernel`, so
//! whether an op can be fused comes from this table. It is data: the bundled files in
//! `assets/rules/` (documented in `assets/rules/README.md`), extended or overridden by a user
//! file (`--rules FILE`) with the same format.

use super::cann::{CannInstall, CannRules};
pub use super::verdict::Rule;
use super::verdict::{Reason, Verdict};
use crate::graph::Graph;
use crate::target::{Target, TargetChoice};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The bundled facts about op types in general (which run on AI CPU in one CANN release): an
/// installed CANN knows better and overrides them.
const BUNDLED_GENERAL: &[(&str, &str)] = &[(
    "assets/rules/ai_cpu.json",
    include_str!("../../assets/rules/ai_cpu.json"),
)];

/// The bundled facts about GE's SuperKernel pass and the SuperKernel compiler (ignored types,
/// blacklist, communication whitelist): above an installed CANN's op information.
const BUNDLED_PASS: &[(&str, &str)] = &[
    (
        "assets/rules/ge_superkernel_pass.json",
        include_str!("../../assets/rules/ge_superkernel_pass.json"),
    ),
    (
        "assets/rules/communication.json",
        include_str!("../../assets/rules/communication.json"),
    ),
];

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
    /// The source of every entry that names none.
    source: Option<String>,
    rules: Vec<RuleEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleEntry {
    op_type: String,
    verdict: VerdictName,
    reason: Option<RuleReason>,
    detail: Option<String>,
    source: Option<String>,
    /// The one target the entry holds on (`dav-2201`, `dav-3510`); every target without it.
    target: Option<String>,
}

/// A reason code in a rules file; an unknown code is an error at its position.
struct RuleReason(Reason);

impl<'de> Deserialize<'de> for RuleReason {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        Reason::from_code(&code)
            .map(RuleReason)
            .ok_or_else(|| serde::de::Error::unknown_variant(&code, Reason::CODES))
    }
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum VerdictName {
    Fusible,
    Ignored,
    Unsupported,
}

/// All rules in effect on one target, by op type; later files override earlier ones.
#[derive(Debug, Clone, Default)]
pub struct RuleSet {
    by_type: HashMap<String, Rule>,
    files: Vec<String>,
    target: TargetChoice,
}

impl RuleSet {
    /// The bundled rules, on A2/A3.
    pub fn bundled() -> RuleSet {
        RuleSet::bundled_with(None, TargetChoice::default())
    }

    /// No rules, for `target`: entries of the files added that hold on another target are left
    /// out.
    pub fn for_target(target: TargetChoice) -> RuleSet {
        RuleSet {
            target,
            ..RuleSet::default()
        }
    }

    /// The target the rules are for.
    pub fn target(&self) -> &TargetChoice {
        &self.target
    }

    /// The bundled rules for `target`, with an installed CANN's between the general facts and
    /// those about GE's pass.
    pub fn bundled_with(cann: Option<(&str, &CannRules)>, target: TargetChoice) -> RuleSet {
        let mut set = RuleSet::for_target(target);
        let add = |files: &[(&str, &str)], set: &mut RuleSet| {
            for (name, text) in files {
                // The bundled files are checked by a test; a broken one is a build defect.
                if let Err(e) = set.add_text(Path::new(name), text) {
                    panic!("bundled rules file is invalid: {e}");
                }
            }
        };
        add(BUNDLED_GENERAL, &mut set);
        if let Some((name, cann)) = cann {
            set.add_rules(name, cann.rules.iter().cloned());
        }
        add(BUNDLED_PASS, &mut set);
        set
    }

    /// Adds `rules` under the name `name`, overriding entries for the same op types.
    fn add_rules(&mut self, name: &str, rules: impl IntoIterator<Item = Rule>) {
        for rule in rules {
            self.by_type.insert(rule.op_type.clone(), rule);
        }
        self.files.push(name.to_string());
    }

    /// Adds the rules of the file at `path`, overriding entries for the same op types.
    pub fn add_file(&mut self, path: &Path) -> Result<(), RulesError> {
        self.add_text(path, &read_rules(path)?)
    }

    /// Adds rules from `text` (the content of the file `path`).
    pub fn add_text(&mut self, path: &Path, text: &str) -> Result<(), RulesError> {
        let error = |line, column, message| RulesError {
            path: path.to_path_buf(),
            line,
            column,
            message,
        };
        let file: RulesFile = serde_json::from_str(text)
            .map_err(|e| error(e.line(), e.column(), crate::text::json_error_words(&e)))?;
        let name = path.display().to_string();
        let mut rules = Vec::with_capacity(file.rules.len());
        for (i, entry) in file.rules.into_iter().enumerate() {
            let verdict = match (entry.verdict, entry.reason) {
                (VerdictName::Fusible, None) => Verdict::Fusible,
                (VerdictName::Ignored, None) => Verdict::Ignored,
                (VerdictName::Unsupported, Some(RuleReason(reason))) => {
                    Verdict::Unsupported(reason)
                }
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
            let only_on = match entry.target.as_deref().map(Target::parse) {
                Some(Err(e)) => {
                    return Err(error(0, 0, format!("rules[{i}] ({}): {e}", entry.op_type)));
                }
                Some(Ok(t)) => Some(t),
                None => None,
            };
            let Some(source) = entry.source.or_else(|| file.source.clone()) else {
                return Err(error(
                    0,
                    0,
                    format!(
                        "rules[{i}] ({}): no \"source\" (give one per entry or one for the file)",
                        entry.op_type
                    ),
                ));
            };
            // Checked whole first: an entry for another target is as wrong or right here.
            if only_on.is_some_and(|t| t != self.target.target) {
                continue;
            }
            rules.push(Rule {
                op_type: entry.op_type,
                verdict,
                detail: entry.detail,
                source,
                file: name.clone(),
            });
        }
        self.add_rules(&name, rules);
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

/// The text of the rules file at `path`.
fn read_rules(path: &Path) -> Result<String, RulesError> {
    crate::text::read_utf8(path).map_err(|e| {
        let (line, column) = e.at().unwrap_or((0, 0));
        RulesError {
            path: path.to_path_buf(),
            line,
            column,
            message: format!("cannot read the rules file: {e}"),
        }
    })
}

/// Where a graph's rules come from: the bundled files, an installed CANN (read for the graph's
/// op types) and the user's files (`--rules`), each over the one before — except that the
/// bundled facts about GE's pass stay above CANN's.
#[derive(Debug, Clone, Default)]
pub struct RuleConfig {
    /// The user's rules files, read (and checked) once: path and text.
    user: Vec<(PathBuf, String)>,
    cann: Option<CannInstall>,
    target: TargetChoice,
}

impl RuleConfig {
    /// Reads the user's rules files (an error names the file, line and column) and keeps the
    /// CANN install to read when a graph comes.
    pub fn new(
        user_files: &[PathBuf],
        cann: Option<CannInstall>,
    ) -> Result<RuleConfig, RulesError> {
        let mut user = Vec::new();
        let mut checked = RuleSet::default();
        for path in user_files {
            let text = read_rules(path)?;
            checked.add_text(path, &text)?;
            user.push((path.clone(), text));
        }
        Ok(RuleConfig {
            user,
            cann,
            target: TargetChoice::default(),
        })
    }

    /// These rules for `target`.
    pub fn with_target(self, target: TargetChoice) -> RuleConfig {
        RuleConfig { target, ..self }
    }

    /// The target the rules are for.
    pub fn target(&self) -> &TargetChoice {
        &self.target
    }

    /// The CANN install, if one is used.
    pub fn cann(&self) -> Option<&CannInstall> {
        self.cann.as_ref()
    }

    /// The rules for `graph`, and the problems met reading the CANN install.
    pub fn for_graph(&self, graph: &Graph) -> (RuleSet, Vec<String>) {
        let cann = self.cann.as_ref().map(|install| {
            let types: std::collections::BTreeSet<&str> =
                graph.ops().iter().map(|op| op.op_type.as_str()).collect();
            (
                format!("CANN {}", install.opp.display()),
                install.rules_for(types),
            )
        });
        let bundled = cann.as_ref().map(|(n, r)| (n.as_str(), r));
        let mut set = RuleSet::bundled_with(bundled, self.target.clone());
        let mut problems = cann.map(|(_, r)| r.problems).unwrap_or_default();
        for (path, text) in &self.user {
            // Each was checked when the config was made; a failure now is still said.
            if let Err(e) = set.add_text(path, text) {
                problems.push(e.to_string());
            }
        }
        (set, problems)
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
        for t in [
            "Unique",
            "UniqueWithCounts",
            "Where",
            "MaskedSelect",
            "RandomUniform",
        ] {
            assert_eq!(
                rules.get(t).map(|r| r.verdict),
                Some(Verdict::Unsupported(Reason::AiCpu)),
                "{t}"
            );
        }
        let nonzero = rules.get("NonZero").expect("NonZero");
        assert_eq!(nonzero.verdict, Verdict::Unsupported(Reason::NotAscendC));
        assert!(nonzero.detail.as_deref().unwrap_or("").contains("TIK"));
        // Types with an AI Core kernel too are not listed: GE prefers AI Core.
        for t in ["Cast", "Add", "TopKV2", "ScatterNdUpdate"] {
            assert!(rules.get(t).is_none(), "{t}");
        }
    }

    #[test]
    fn a_file_may_give_one_source_for_its_entries() {
        let mut rules = RuleSet::default();
        let text = r#"{"source": "site list", "rules": [
            {"op_type": "A", "verdict": "unsupported", "reason": "ai_cpu"},
            {"op_type": "B", "verdict": "fusible", "source": "own"}
        ]}"#;
        rules.add_text(Path::new("s.json"), text).unwrap();
        assert_eq!(rules.get("A").map(|r| r.source.as_str()), Some("site list"));
        assert_eq!(rules.get("B").map(|r| r.source.as_str()), Some("own"));
        let e = rules
            .add_text(
                Path::new("s.json"),
                r#"{"rules": [{"op_type": "A", "verdict": "fusible"}]}"#,
            )
            .unwrap_err();
        assert!(e.to_string().contains("no \"source\""), "{e}");
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
