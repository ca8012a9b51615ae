//! Where skope keeps what it writes for a dump: in the working directory, each named after the
//! dump file (the whole file name, extension included): `<dump file name>.skope.json` (the
//! plan), `<dump file name>.codegen/` (entry sources), `<dump file name>.runs/` (runs).

use std::path::{Path, PathBuf};

/// `<dump file name>.<suffix>` in the working directory (`model.txt.codegen`).
pub fn beside(dump: &str, suffix: &str) -> PathBuf {
    let name = Path::new(dump)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "skope".to_string());
    PathBuf::from(format!("{name}.{suffix}"))
}

/// The plan file of `dump`: `<dump file name>.skope.json`.
pub fn plan_file(dump: &str) -> PathBuf {
    beside(dump, "skope.json")
}

/// Where versions of skope before the one naming rule saved the plan of `dump`:
/// `<dump file name without its extension>.skope.json`; `None` when that is the same file.
pub fn older_plan_file(dump: &str) -> Option<PathBuf> {
    let stem = Path::new(dump).file_stem()?.to_string_lossy().into_owned();
    let older = PathBuf::from(format!("{stem}.skope.json"));
    (older != plan_file(dump)).then_some(older)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_follows_one_rule() {
        let dump = "/data/dumps/ge_proto_00000042_Build.txt";
        assert_eq!(
            plan_file(dump),
            PathBuf::from("ge_proto_00000042_Build.txt.skope.json")
        );
        assert_eq!(
            beside(dump, "runs"),
            PathBuf::from("ge_proto_00000042_Build.txt.runs")
        );
        assert_eq!(
            older_plan_file(dump),
            Some(PathBuf::from("ge_proto_00000042_Build.skope.json"))
        );
        assert_eq!(older_plan_file("graph"), None);
    }
}
