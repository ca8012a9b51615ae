//! `skope options --aclgraph`: the aclgraph path's options as text, listed or checked.

use super::options::{Kind, Level, OPTIONS, STRATEGIES};

/// `skope options --aclgraph`: every option of the aclgraph path, and what the runtime forces
/// on `target`.
pub fn list(target: &crate::target::TargetChoice) -> String {
    let mut out = format!(
        "aclgraph options (super_kernel_optimize), target {}:\n",
        target.words()
    );
    for o in OPTIONS {
        let kind = match o.kind {
            Kind::Int { min, max } => format!("int {min}..{max}"),
            Kind::Patterns => "list[str] of kernel-name patterns".to_string(),
            Kind::Extend => "str k=v1,v2:k2=v".to_string(),
            Kind::Strategies => "dict".to_string(),
        };
        let dict = if o.debug {
            "debug_options"
        } else {
            "optimize_options"
        };
        out.push_str(&format!(
            "  {:<28} {dict:<16} {kind}, default {}\n      {}\n",
            o.key, o.default, o.effect
        ));
    }
    out.push_str("  aggressive_opt_strategies keys:\n");
    for (key, max, effect) in STRATEGIES {
        out.push_str(&format!("    {key} (0..{max}): {effect}\n"));
    }
    if let Some(forced) = super::options::forced_on(target.target) {
        out.push_str(&format!("  {forced}\n"));
    }
    out.push_str("\nthe DCCI shapes real deployments ship (check one with `skope options --aclgraph JSON`):\n");
    for (options, who) in DCCI_PRESETS {
        out.push_str(&format!("  {options}\n      {who}\n"));
    }
    out
}

/// The cache-flush (DCCI) option shapes real deployments use, with who ships each
/// (superkernel_ops_2026.md §1.3).
pub const DCCI_PRESETS: [(&str, &str); 3] = [
    (
        r#"{"dcci_after_kernel_end": [".*"]}"#,
        "vLLM-Ascend's default when SuperKernel is on (its backend test)",
    ),
    (
        r#"{"dcci_disable_on_kernel": [".*"]}"#,
        "a cann-recipes-style launcher, with cache_compile",
    ),
    (
        r#"{"dcci_before_kernel_start": [".*"], "dcci_after_kernel_end": [".*"], "dcci_disable_on_kernel": [".*"]}"#,
        "the official AOT sample example02_sk_options (all three lists)",
    ),
];

/// The `super_kernel_optimize` call on `graph` with the options of `preset` (one of
/// [`DCCI_PRESETS`]), to paste into the model.
pub fn preset_call(preset: &str, graph: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(preset).ok()?;
    Some(super::options::check(value.as_object()?).python(graph))
}

/// `skope options --aclgraph JSON`: the options checked, and the call to paste.
pub fn check(text: &str) -> Result<(String, bool), String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "line {}, column {}: not a JSON object of options: {}\n  hint: write it as JSON, \
             e.g. '{{\"early_start\": 1, \"dcci_after_kernel_end\": [\".*\"]}}'",
            e.line(),
            e.column(),
            crate::text::json_error_words(&e)
        )
    })?;
    let Some(map) = value.as_object() else {
        return Err(format!("{value} is not a JSON object of options"));
    };
    let checked = super::options::check(map);
    let mut out = String::new();
    for d in &checked.diagnostics {
        let level = match d.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        out.push_str(&format!(
            "{level}: {}: {}\n",
            crate::text::sanitize(&d.key),
            crate::text::sanitize(&d.message)
        ));
    }
    out.push_str(&crate::text::sanitize_lines(&checked.python("graph")));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok((out, checked.ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deployed_dcci_shapes_are_listed_and_each_checks_clean() {
        let listed = list(&Default::default());
        for (options, _) in DCCI_PRESETS {
            assert!(listed.contains(options), "{listed}");
            let (_, ok) = check(options).expect("valid JSON");
            assert!(ok, "{options}");
        }
        assert!(!listed.contains("enable_simt_op_check"), "{listed}");
    }

    #[test]
    fn on_ascend_950_the_list_says_what_the_runtime_forces() {
        use crate::target::{Target, TargetChoice};
        let listed = list(&TargetChoice::chosen(Target::Dav3510, "--target"));
        assert!(
            listed.starts_with("aclgraph options (super_kernel_optimize), target dav-3510"),
            "{listed}"
        );
        assert!(
            listed.contains(
                "forces enable_mix_kernel_split, enable_simt_op_check and \
                 enable_set_dyn_ubuf_size on"
            ),
            "{listed}"
        );
    }
}
