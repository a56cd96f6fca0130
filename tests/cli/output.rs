//! Output plumbing: views, formats, stdin, atomic files, help and usage errors.

use serde_json::Value;

use crate::common::{Aci, active, fixture};

#[test]
fn stdin_is_read_when_response_is_absent_or_dash() {
    let bytes = std::fs::read(fixture("rag/duplicates.json")).unwrap();
    let by_path = Aci::rag(active(), "c", "q")
        .response("rag/duplicates.json")
        .run();
    let absent = Aci::rag(active(), "c", "q").stdin(bytes.clone()).run();
    let dash = Aci::rag(active(), "c", "q").arg("-").stdin(bytes).run();
    assert_eq!(by_path.code, 0);
    assert_eq!(absent.stdout, by_path.stdout);
    assert_eq!(dash.stdout, by_path.stdout);
}

#[test]
fn compact_by_default_pretty_on_request() {
    let compact = Aci::rag(active(), "c", "q")
        .response("rag/duplicates.json")
        .run();
    assert_eq!(compact.stdout.matches('\n').count(), 1, "one line");
    let pretty = Aci::rag(active(), "c", "q")
        .arg("--pretty")
        .response("rag/duplicates.json")
        .run();
    assert!(pretty.stdout.matches('\n').count() > 10);
    assert_eq!(compact.json(), pretty.json());
}

#[test]
fn output_file_is_written_whole_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.json");
    let ran = Aci::rag(active(), "c", "q")
        .arg("-o")
        .arg(&target)
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 0);
    assert_eq!(ran.stdout, "");
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(written["status"], "READY");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["out.json"], "no temporary file left behind");
}

#[test]
fn unwritable_output_is_exit_5_before_any_record() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = crate::common::context_with(
        serde_json::json!({"ledger": dir.path().join("l.jsonl").to_str().unwrap()}),
    );
    let ran = Aci::rag(&ctx.path, "c", "q")
        .args(["-o", "/nonexistent/dir/out.json"])
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.error_code(), "OUTPUT_UNWRITABLE");
    assert!(!dir.path().join("l.jsonl").exists(), "no call was recorded");
}

#[test]
fn mcp_structured_content_is_the_model_observation() {
    let mcp = Aci::rag(active(), "c", "q")
        .args(["--format", "mcp"])
        .response("rag/duplicates.json")
        .run();
    let model = Aci::rag(active(), "c", "q")
        .args(["--view", "model"])
        .response("rag/duplicates.json")
        .run();
    let harness = Aci::rag(active(), "c", "q")
        .args(["--view", "harness"])
        .response("rag/duplicates.json")
        .run();
    let v = mcp.json();
    assert_eq!(v["structuredContent"], model.json());
    assert_eq!(v["isError"], false);
    let text = v["content"][0]["text"].as_str().unwrap();
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), model.json());
    assert_eq!(v["_meta"]["aciproj/control"], harness.json());
    // The model gets the model observation whatever is asked: `--view` with mcp is refused.
    let mcp_harness = Aci::rag(active(), "c", "q")
        .args(["--format", "mcp", "--view", "harness"])
        .response("rag/duplicates.json")
        .run();
    assert_eq!(mcp_harness.code, 2, "{}", mcp_harness.stderr);
    assert_eq!(mcp_harness.stdout, "");
    assert!(
        mcp_harness.stderr.contains("--view"),
        "{}",
        mcp_harness.stderr
    );
    let failed = Aci::rag(active(), "c", "q")
        .args(["--format", "mcp"])
        .response("rag/failure.json")
        .run();
    assert_eq!(failed.code, 4);
    assert_eq!(failed.json()["isError"], true);
    assert!(failed.json()["structuredContent"].get("stage").is_none());
}

#[test]
fn model_view_of_an_error_has_no_stage_or_run() {
    let ran = Aci::rag(active(), "c", "q")
        .args(["--view", "model"])
        .response("rag/malformed.json")
        .run();
    let v = ran.json();
    let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["status", "tool_call_id", "error"]);
    let error_keys: Vec<_> = v["error"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(error_keys, ["code", "message"]);
    let h = Aci::rag(active(), "c", "q")
        .args(["--view", "harness"])
        .response("rag/malformed.json")
        .run()
        .json();
    assert_eq!(h["error"]["stage"], "legacy");
    assert_eq!(h["budget"]["tool_calls_used"], 1);
}

#[test]
fn help_documents_exit_codes_and_usage_errors_exit_2() {
    let help = Aci::new(["rag", "--help"]).run();
    assert_eq!(help.code, 0);
    for line in [
        "0  READY",
        "3  preflight",
        "4  ERROR",
        "5  the tool's own input",
    ] {
        assert!(help.stdout.contains(line), "{line}");
    }
    let usage = Aci::new(["rag", "--query", "q"]).run();
    assert_eq!(usage.code, 2);
    let bad_view = Aci::rag(active(), "c", "q").args(["--view", "raw"]).run();
    assert_eq!(bad_view.code, 2);
}

#[test]
fn oversized_ids_are_not_echoed() {
    let long = "x".repeat(129);
    let ran = Aci::rag(active(), &long, "q")
        .arg(crate::common::MISSING_RESPONSE)
        .run();
    assert_eq!(ran.code, 3);
    assert_eq!(ran.error_code(), "REQUEST_TOO_LARGE");
    assert_eq!(ran.json()["tool_call_id"], Value::Null);
    assert!(!ran.stdout.contains(&long));
}

#[test]
fn dash_is_a_standard_stream_for_output_and_context() {
    let by_path = Aci::rag(active(), "c", "q")
        .response("rag/duplicates.json")
        .run();
    // `-o -` is standard output, not a file named `-`.
    let dir = tempfile::tempdir().unwrap();
    let ran = Aci::rag(active(), "c", "q")
        .args(["-o", "-"])
        .response("rag/duplicates.json")
        .current_dir(dir.path())
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stdout, by_path.stdout);
    assert!(!dir.path().join("-").exists(), "no file named -");
    // `--context -` reads the context from standard input.
    let context = std::fs::read(active()).unwrap();
    let ran = Aci::rag("-", "c", "q")
        .response("rag/duplicates.json")
        .stdin(context)
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(ran.stdout, by_path.stdout);
}

#[test]
fn context_and_response_both_on_standard_input_is_a_usage_error() {
    for response in [None, Some("-")] {
        let mut aci = Aci::rag("-", "c", "q");
        if let Some(r) = response {
            aci = aci.arg(r);
        }
        let ran = aci.stdin("{}").run();
        assert_eq!(ran.code, 2, "{response:?}");
        assert_eq!(ran.stdout, "");
        assert!(
            ran.stderr.contains("RESPONSE must be a file"),
            "{}",
            ran.stderr
        );
        assert!(ran.stderr.contains("Usage: aciproj rag"), "{}", ran.stderr);
    }
}

/// Runs `aciproj ARGS` under `umask MASK` in `dir` (the shell sets the mask the binary inherits).
#[cfg(unix)]
fn under_umask(mask: &str, dir: &std::path::Path, args: &str) -> std::process::Output {
    let bin = env!("CARGO_BIN_EXE_aciproj");
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("umask {mask}; exec '{bin}' {args}"))
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn a_new_output_file_gets_the_umask_mode_and_an_existing_one_keeps_its_own() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let args = format!(
        "rag --context '{}' --call-id c --query q -o out.json '{}'",
        active().display(),
        fixture("rag/duplicates.json").display()
    );
    let mode = |name: &str| {
        std::fs::metadata(dir.path().join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o777
    };
    let ran = under_umask("022", dir.path(), &args);
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(mode("out.json"), 0o644, "new file: 0666 under umask 022");
    std::fs::remove_file(dir.path().join("out.json")).unwrap();
    let ran = under_umask("027", dir.path(), &args);
    assert!(ran.status.success());
    assert_eq!(mode("out.json"), 0o640, "new file: 0666 under umask 027");
    // An existing file keeps its mode, whatever the umask, and is replaced whole.
    std::fs::write(dir.path().join("out.json"), "old").unwrap();
    std::fs::set_permissions(
        dir.path().join("out.json"),
        std::fs::Permissions::from_mode(0o604),
    )
    .unwrap();
    let ran = under_umask("077", dir.path(), &args);
    assert!(ran.status.success());
    assert_eq!(mode("out.json"), 0o604);
    let text = std::fs::read_to_string(dir.path().join("out.json")).unwrap();
    assert!(text.starts_with("{\"status\":\"READY\""), "{text}");
}

#[test]
fn a_context_on_standard_input_keeps_its_ledger_relative_to_the_current_folder() {
    let dir = tempfile::tempdir().unwrap();
    let context = r#"{"run_id":"r","status":"ACTIVE","authorized_tools":["rag"],
        "now":"2026-11-29T10:00:00Z","ledger":"run.ledger.jsonl"}"#;
    let call = || {
        Aci::rag("-", "c1", "q")
            .arg(fixture("rag/first-call.json"))
            .stdin(context)
            .current_dir(dir.path())
            .run()
    };
    assert_eq!(call().code, 0);
    let ledger = std::fs::read_to_string(dir.path().join("run.ledger.jsonl")).unwrap();
    assert_eq!(ledger.lines().count(), 1);
    // The ledger is the run's: the same call id again is a duplicate.
    assert_eq!(call().error_code(), "DUPLICATE_TOOL_CALL");
}
