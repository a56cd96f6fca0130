//! Replays every minimized fuzz find under `fixtures/fuzz/<target>/` through the very invariants
//! the fuzz targets assert: `fuzz/src/lib.rs` is compiled into this test binary by path, so a
//! bug fixed after a fuzz run stays fixed in the ordinary `cargo test`, without libFuzzer (the
//! `fuzz/` crate itself is a workspace of its own and never built here). The legacy fixtures,
//! the fuzzers' seeds, run through the same invariants under both bound sets.

#[path = "../../fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};

const TARGETS: [&str; 4] = ["legacy_rag", "legacy_logs", "redact", "projector"];

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn fuzz_dir() -> PathBuf {
    crate::common::fixture("fuzz")
}

/// Runs `target` on every file of `fixtures/fuzz/<name>/`, naming the file that fails.
fn replay(name: &str, target: fn(&[u8])) {
    for path in files(&fuzz_dir().join(name)) {
        let bytes = std::fs::read(&path).unwrap();
        let outcome = std::panic::catch_unwind(|| target(&bytes));
        assert!(outcome.is_ok(), "fuzz regression {} fails", path.display());
    }
}

#[test]
fn fuzz_fixture_folders_are_named_after_targets() {
    for entry in std::fs::read_dir(fuzz_dir()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        assert!(
            TARGETS.contains(&name.as_str()) && entry.path().is_dir(),
            "fixtures/fuzz/{name} is not a target's folder, so nothing would replay it"
        );
    }
}

#[test]
fn fuzz_regressions_legacy_rag() {
    replay("legacy_rag", targets::legacy_rag);
}

#[test]
fn fuzz_regressions_legacy_logs() {
    replay("legacy_logs", targets::legacy_logs);
}

#[test]
fn fuzz_regressions_redact() {
    replay("redact", targets::redact_target);
}

#[test]
fn fuzz_regressions_projector() {
    replay("projector", targets::projector);
}

/// The seeds: every legacy fixture, as is (default bounds) and after a space (small bounds).
#[test]
fn legacy_fixtures_keep_the_fuzz_invariants() {
    for kind in ["rag", "logs"] {
        for path in files(&crate::common::fixture(kind)) {
            let bytes = std::fs::read(&path).unwrap();
            let spaced = [b" ".as_slice(), &bytes].concat();
            for input in [&bytes, &spaced] {
                let outcome = std::panic::catch_unwind(|| {
                    targets::legacy_rag(input);
                    targets::legacy_logs(input);
                });
                assert!(outcome.is_ok(), "{} breaks an invariant", path.display());
            }
        }
    }
}
