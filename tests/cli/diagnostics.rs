//! What an operator reads when something is wrong: every file that cannot be read or written is
//! named with the operating system's reason on standard error, while the agent-facing JSON stays
//! a fixed template (no path, no input value); malformed responses say where they broke.

use serde_json::json;

use crate::common::{Aci, Ran, active, context_with, fixture, raw_context};

/// The JSON names no path: what the agent reads is the same whatever the file was called.
fn json_names_no_path(ran: &Ran, path: &str) {
    assert!(
        !ran.stdout.contains(path),
        "{path} in the JSON: {}",
        ran.stdout
    );
}

#[test]
fn an_unreadable_context_names_its_path_and_the_reason() {
    let ran = Aci::rag("nope.json", "c", "q").arg("x.json").run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.error_code(), "INVALID_CONTEXT");
    assert_eq!(
        ran.stderr,
        "aciproj: cannot read the run context nope.json: No such file or directory\n"
    );
    json_names_no_path(&ran, "nope.json");
    let ran = Aci::rag(fixture("hostile"), "c", "q").arg("x.json").run();
    assert!(
        ran.stderr.ends_with("hostile: Is a directory\n"),
        "{}",
        ran.stderr
    );
    // An invalid context: its path, then the safe reason naming the field.
    let ctx = context_with(json!({"budgett": {}}));
    let ran = Aci::rag(&ctx.path, "c", "q").arg("x.json").run();
    assert_eq!(
        ran.stderr,
        format!(
            "aciproj: {}: run context: unknown field `budgett`\n",
            ctx.path.display()
        )
    );
}

#[test]
fn an_unwritable_output_names_its_path_and_the_reason() {
    let ran = Aci::rag(active(), "c", "q")
        .args(["-o", "/nonexistent/dir/out.json"])
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.error_code(), "OUTPUT_UNWRITABLE");
    assert_eq!(
        ran.stderr,
        "aciproj: cannot write the output file /nonexistent/dir/out.json: \
         No such file or directory\n"
    );
    json_names_no_path(&ran, "/nonexistent");
}

#[test]
fn an_unreadable_log_file_for_patterns_names_its_path_and_the_reason() {
    let ran = Aci::new(["patterns", "nope.txt"]).run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.stdout, "");
    assert_eq!(
        ran.stderr,
        "aciproj: cannot read the log file nope.txt: No such file or directory\n"
    );
}

#[test]
fn a_malformed_response_says_where_it_broke_and_not_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.json");
    std::fs::write(
        &path,
        "{\"success\": true,\n \"contextPack\": {\"blocks\": [s3cr3t-token]}}",
    )
    .unwrap();
    let ran = Aci::rag(active(), "c", "q").arg(&path).run();
    assert_eq!(ran.code, 4, "a response that was read stays a legacy ERROR");
    assert_eq!(ran.error_code(), "LEGACY_MALFORMED");
    assert_eq!(
        ran.stderr,
        format!(
            "aciproj: the legacy RAG response {} is not JSON of a recognized shape: \
             it breaks at line 2, column 29\n",
            path.display()
        )
    );
    assert!(!ran.stdout.contains("s3cr3t") && !ran.stdout.contains("broken.json"));
    // The same for a log response, from a file and from standard input.
    std::fs::write(
        &path,
        "{\"success\":true,\"logs\":[\n{\"message\": s3cr3t}]}",
    )
    .unwrap();
    let ran = Aci::logs(active(), "c", "application-logs", "q")
        .arg(&path)
        .run();
    assert_eq!(ran.code, 4);
    assert!(
        ran.stderr.ends_with("it breaks at line 2, column 13\n"),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("s3cr3t"), "{}", ran.stderr);
    let ran = Aci::logs(active(), "c", "application-logs", "q")
        .stdin("{\"success\":true,\"logs\":[{\"message\": s3cr3t}]}")
        .run();
    assert_eq!(ran.code, 4);
    assert!(
        ran.stderr.starts_with(
            "aciproj: the legacy log response on standard input is not JSON of a recognized \
             shape: it broke within its first "
        ),
        "{}",
        ran.stderr
    );
    assert!(!ran.stderr.contains("s3cr3t"));
    // Well-formed JSON of the wrong shape: no position, the missing part named instead.
    let ran = Aci::rag(active(), "c", "q").stdin("{\"logs\": []}").run();
    assert!(
        ran.stderr.contains("without `contextPack`"),
        "{}",
        ran.stderr
    );
    let ran = Aci::rag(active(), "c", "q")
        .stdin(b"{\"a\":\"\xff\"}".to_vec())
        .run();
    assert!(
        ran.stderr.ends_with("is not valid UTF-8 at byte 6\n"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_context_without_authorized_tools_says_so_and_names_the_field() {
    let ctx = context_with(json!({"authorized_tools": null}));
    let ran = Aci::rag(&ctx.path, "c", "q")
        .arg(crate::common::MISSING_RESPONSE)
        .run();
    assert_eq!(ran.code, 3);
    assert_eq!(ran.error_code(), "UNAUTHORIZED_TOOL");
    let message = ran.json()["error"]["message"].as_str().unwrap().to_owned();
    assert_eq!(
        message,
        "the run context lists no `authorized_tools`, so it authorizes no tool"
    );
    assert!(message.len() <= 256);
    assert_eq!(
        ran.stderr,
        "aciproj: the run context lists no `authorized_tools`, so it authorizes no tool: add \
         the field, e.g. \"authorized_tools\": [\"rag\"]\n"
    );
    // A context that lists patterns, none of them this tool's: the usual message.
    let ctx = context_with(json!({"authorized_tools": ["logs"]}));
    let ran = Aci::rag(&ctx.path, "c", "q")
        .arg(crate::common::MISSING_RESPONSE)
        .run();
    assert_eq!(ran.error_code(), "UNAUTHORIZED_TOOL");
    assert!(!ran.stdout.contains("lists no"));
}

#[test]
fn enum_errors_list_the_allowed_values() {
    let ctx = context_with(json!({"status": "RUNNING"}));
    let ran = Aci::rag(&ctx.path, "c", "q").arg("x.json").run();
    assert_eq!(ran.code, 5);
    assert_eq!(
        ran.json()["error"]["message"],
        "run context: invalid value at `status`: expected one of ACTIVE, COMPLETED, FAILED, \
         CANCELLED"
    );
    assert!(!ran.stdout.contains("RUNNING") && !ran.stderr.contains("RUNNING"));
    // A value that imitates serde's own phrase cannot smuggle itself into the list.
    let ctx = raw_context(
        r#"{"run_id":"r","status":"ACTIVE","now":"2026-11-29T10:00:00Z",
            "mode":"x`, expected one of `hunter2"}"#,
    );
    let ran = Aci::rag(&ctx.path, "c", "q").arg("x.json").run();
    assert_eq!(
        ran.json()["error"]["message"],
        "run context: invalid value at `mode`: expected one of READ_ONLY, READ_WRITE"
    );
}

#[test]
fn an_unusable_ledger_names_its_path_and_the_reason() {
    let ctx = context_with(json!({"ledger": "no/such/folder/run.ledger.jsonl"}));
    let ran = Aci::rag(&ctx.path, "c", "q")
        .response("rag/first-call.json")
        .run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.error_code(), "LEDGER_UNAVAILABLE");
    let ledger = ctx.dir.path().join("no/such/folder/run.ledger.jsonl");
    assert_eq!(
        ran.stderr,
        format!(
            "aciproj: cannot open the ledger {}: No such file or directory\n",
            ledger.display()
        )
    );
    json_names_no_path(&ran, "no/such/folder");
    // A damaged record before the last line: the path and the line.
    let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
    let ledger = ctx.dir.path().join("run.ledger.jsonl");
    std::fs::write(
        &ledger,
        "{broken\n{\"tool_call_id\":\"a\",\"tool\":\"rag\"}\n",
    )
    .unwrap();
    let ran = Aci::rag(&ctx.path, "c", "q")
        .response("rag/first-call.json")
        .run();
    assert_eq!(ran.error_code(), "LEDGER_CORRUPT");
    assert_eq!(
        ran.stderr,
        format!(
            "aciproj: the ledger {}: ledger line 1 is not a valid record; repair or move the \
             ledger\n",
            ledger.display()
        )
    );
}
