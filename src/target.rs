//! The hardware a graph is built for: `dav-2201` (Atlas A2/A3) or `dav-3510` (Ascend 950, where
//! SuperKernel is experimental), and how skope knows which.
//!
//! Where a target is recorded (the aclgraph pass's marker kernels are named
//! `sk_scope_kernel_begin_dav_<arch>`, generated entry code guards on `__NPU_ARCH__ == <arch>`)
//! it is read; else the user chooses it (`--target`, or the explorer's config key `target`);
//! else it is A2/A3, and skope says so. What differs per target (reference
//! superkernel_ops_2026.md §1.1, aclgraph_superkernel.md §2.1): on dav-3510 the runtime forces
//! mix-kernel split, the SIMT check and dynamic UB size on, `SK_BIND` and the op compiler's
//! SuperKernel path (GE mode) are not supported, and the entry code sets no FFTS base address.

/// A SuperKernel target arch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub enum Target {
    /// Atlas A2/A3 (`--npu-arch=dav-2201`).
    #[default]
    #[serde(rename = "dav-2201")]
    Dav2201,
    /// Ascend 950PR/950DT, Atlas 350 (`--npu-arch=dav-3510`): SuperKernel is experimental there.
    #[serde(rename = "dav-3510")]
    Dav3510,
}

impl Target {
    /// Every target, in the order `--help` names them.
    pub const ALL: [Target; 2] = [Target::Dav2201, Target::Dav3510];

    /// The name the samples' `--npu-arch` takes: `dav-2201`, `dav-3510`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Dav2201 => "dav-2201",
            Target::Dav3510 => "dav-3510",
        }
    }

    /// The hardware, in words.
    pub fn hardware(self) -> &'static str {
        match self {
            Target::Dav2201 => "Atlas A2/A3",
            Target::Dav3510 => "Ascend 950, SuperKernel experimental",
        }
    }

    /// The value of `__NPU_ARCH__` the entry code guards on.
    pub fn npu_arch(self) -> u32 {
        match self {
            Target::Dav2201 => 2201,
            Target::Dav3510 => 3510,
        }
    }

    /// The target named `text` (`dav-2201`, `dav_3510`, `2201`…); the error lists the names.
    pub fn parse(text: &str) -> Result<Target, String> {
        let t = text.trim().to_ascii_lowercase().replace('_', "-");
        let digits = t.strip_prefix("dav-").unwrap_or(&t);
        Target::ALL
            .into_iter()
            .find(|target| target.npu_arch().to_string() == digits)
            .ok_or_else(|| {
                format!(
                    "unknown target \"{}\": the targets are dav-2201 (Atlas A2/A3) and dav-3510 \
                     (Ascend 950, experimental)",
                    crate::text::sanitize(text)
                )
            })
    }

    /// The target an aclgraph marker kernel's name records (`sk_scope_kernel_begin_dav_3510`,
    /// `sk_placeholder_kernel_dav_2201`; aclgraph_superkernel.md §1.1).
    pub fn of_marker(func_name: &str) -> Option<Target> {
        if !func_name.starts_with("sk_") {
            return None;
        }
        let (_, arch) = func_name.rsplit_once("_dav_")?;
        Target::ALL
            .into_iter()
            .find(|t| t.npu_arch().to_string() == arch)
    }

    /// The target generated entry code guards on (`__NPU_ARCH__ == 3510`), when it names one.
    pub fn of_entry_code(code: &str) -> Option<Target> {
        let at = code.find("__NPU_ARCH__")?;
        let rest = code[at + "__NPU_ARCH__".len()..].trim_start();
        let digits: String = rest
            .strip_prefix("==")?
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        Target::ALL
            .into_iter()
            .find(|t| t.npu_arch().to_string() == digits)
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How skope knows the target.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Known {
    /// Nothing read records it and the user chose none: A2/A3.
    #[default]
    Default,
    /// The user chose it (`--target`, the config key).
    Chosen(&'static str),
    /// A file records it: where.
    Recorded(String),
}

/// The target a graph is planned for, and how skope knows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TargetChoice {
    /// The target.
    pub target: Target,
    /// How skope knows it.
    pub known: Known,
}

impl TargetChoice {
    /// `target`, chosen by the user through `how` (`--target`, `the config`).
    pub fn chosen(target: Target, how: &'static str) -> TargetChoice {
        TargetChoice {
            target,
            known: Known::Chosen(how),
        }
    }

    /// `target`, recorded at `place`.
    pub fn recorded(target: Target, place: impl Into<String>) -> TargetChoice {
        TargetChoice {
            target,
            known: Known::Recorded(place.into()),
        }
    }

    /// True when nothing but the default says.
    pub fn is_default(&self) -> bool {
        self.known == Known::Default
    }

    /// The evidence word for how skope knows: `dump` (recorded), `edit` (chosen), `assumed`.
    pub fn evidence(&self) -> &'static str {
        match self.known {
            Known::Default => "assumed",
            Known::Chosen(_) => "edit",
            Known::Recorded(_) => "dump",
        }
    }

    /// One line: `dav-2201 (Atlas A2/A3), assumed: nothing read records the target (--target
    /// dav-3510 for Ascend 950)`, `dav-3510 (Ascend 950, …), from --target`.
    pub fn words(&self) -> String {
        let head = format!("{} ({})", self.target, self.target.hardware());
        match &self.known {
            Known::Default => format!(
                "{head}, assumed: nothing read records the target (--target dav-3510 for \
                 Ascend 950)"
            ),
            Known::Chosen(how) => format!("{head}, from {how}"),
            Known::Recorded(place) => format!("{head}, recorded in {place}"),
        }
    }
}

/// As JSON, one shape wherever a target is written: `{"arch": "dav-2201", "hardware": "Atlas
/// A2/A3", "evidence": "assumed", "words": "…"}`.
impl serde::Serialize for TargetChoice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Target", 4)?;
        out.serialize_field("arch", &self.target)?;
        out.serialize_field("hardware", self.target.hardware())?;
        out.serialize_field("evidence", self.evidence())?;
        out.serialize_field("words", &self.words())?;
        out.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_in_every_spelling() {
        for (text, target) in [
            ("dav-2201", Target::Dav2201),
            ("DAV_3510", Target::Dav3510),
            ("3510", Target::Dav3510),
            (" dav-3510 ", Target::Dav3510),
        ] {
            assert_eq!(Target::parse(text), Ok(target), "{text}");
        }
        let err = Target::parse("dav-c220").unwrap_err();
        assert!(
            err.contains("dav-2201") && err.contains("dav-3510"),
            "{err}"
        );
    }

    #[test]
    fn markers_and_entry_code_record_the_target() {
        assert_eq!(
            Target::of_marker("sk_scope_kernel_begin_dav_3510"),
            Some(Target::Dav3510)
        );
        assert_eq!(
            Target::of_marker("sk_placeholder_kernel_dav_2201"),
            Some(Target::Dav2201)
        );
        assert_eq!(Target::of_marker("MatMul_dav_3510"), None);
        assert_eq!(Target::of_marker("sk_scope_kernel_begin_dav_9999"), None);
        assert_eq!(
            Target::of_entry_code("#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == 3510)"),
            Some(Target::Dav3510)
        );
        assert_eq!(
            Target::of_entry_code("#if defined(__DAV_C220_CUBE__)"),
            None
        );
    }

    #[test]
    fn the_words_say_how_skope_knows() {
        let assumed = TargetChoice::default();
        assert!(
            assumed
                .words()
                .starts_with("dav-2201 (Atlas A2/A3), assumed")
        );
        assert_eq!(assumed.evidence(), "assumed");
        let chosen = TargetChoice::chosen(Target::Dav3510, "--target");
        assert_eq!(
            chosen.words(),
            "dav-3510 (Ascend 950, SuperKernel experimental), from --target"
        );
        assert_eq!(chosen.evidence(), "edit");
    }
}
