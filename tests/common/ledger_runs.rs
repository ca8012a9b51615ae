//! Three recorded runs of the bundled example for the ledger: a baseline whose plan has no
//! scopes (the profile without SuperKernel), the example's own plan (the profile with it), and
//! the same plan with `stream-fusion=1` on `attn_0` (the profile with every SuperKernel 20 %
//! faster). Each is made by `skope compile` with a recipe of the test's own `skope.toml` that
//! copies its profile into the run's results.

use super::{repo, skope_in};
use std::path::{Path, PathBuf};

/// The example dump's file name.
pub const DUMP: &str = "moe_decode.ge_proto.txt";

/// Copies the directory `from` to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `kernel_details.csv` text with every SuperKernel's duration times `factor`.
pub fn scaled(text: &str, factor: f64) -> String {
    // What the faster SuperKernels saved so far in the step: every later kernel starts that
    // much earlier, as on a device.
    let (mut step, mut saved) = (String::new(), 0.0);
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut cells: Vec<String> = line.split(',').map(str::to_string).collect();
        if i == 0 || cells.len() < 7 {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if cells[0] != step {
            step = cells[0].clone();
            saved = 0.0;
        }
        let start: f64 = cells[5].trim_matches(['"', '\t']).parse().unwrap();
        cells[5] = format!("\"{:.3}\t\"", start - saved);
        if cells[3] == "SuperKernel" {
            let dur: f64 = cells[6].parse().unwrap();
            cells[6] = format!("{:.3}", dur * factor);
            saved += dur - dur * factor;
        }
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// Writes the dump, plans, profiles and recipes into `dir` and makes the three runs; returns
/// the dump's path.
pub fn three_runs(dir: &Path) -> PathBuf {
    let dump = dir.join(DUMP);
    std::fs::copy(repo(&format!("assets/examples/{DUMP}")), &dump).unwrap();
    let prof = repo("assets/examples/prof_result");
    copy_dir(&prof.join("no_sk_model"), &dir.join("profiles/base"));
    copy_dir(&prof.join("sk_model"), &dir.join("profiles/default"));
    copy_dir(&prof.join("sk_model"), &dir.join("profiles/tuned"));
    let details = dir.join(
        "profiles/tuned/npu-node0_31337_20261122093000000_ascend_pt/ASCEND_PROFILER_OUTPUT/\
         kernel_details.csv",
    );
    let text = std::fs::read_to_string(&details).unwrap();
    std::fs::write(&details, scaled(&text, 0.8)).unwrap();

    let out = skope_in(dir, &["export", DUMP, "--format", "plan"], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut base = plan.clone();
    base["scopes"] = serde_json::json!([]);
    let mut tuned = plan.clone();
    assert_eq!(tuned["scopes"][0]["name"], "attn_0");
    tuned["scopes"][0]["options"] = "stream-fusion=1".into();
    for (name, value) in [("base", &base), ("default", &plan), ("tuned", &tuned)] {
        std::fs::write(dir.join(format!("{name}.plan.json")), value.to_string()).unwrap();
    }
    let mut toml = String::new();
    for name in ["base", "default", "tuned"] {
        let from = dir.join("profiles").join(name);
        toml.push_str(&format!(
            "[[recipe]]\nname = \"{name}\"\nargv = [\"cp\", \"-r\", \"{}\", \"{{out}}/prof\"]\n\
             results = \"{{out}}/prof\"\n\n",
            from.display()
        ));
    }
    std::fs::write(dir.join("skope.toml"), toml).unwrap();
    for name in ["base", "default", "tuned"] {
        let plan = format!("{name}.plan.json");
        let out = skope_in(
            dir,
            &["compile", DUMP, "--recipe", name, "--plan", &plan],
            &[],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    dump
}
