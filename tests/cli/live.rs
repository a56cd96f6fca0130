//! A live legacy tool behind the boundary: `aciproj rag|logs … -- CMD [ARG…]` starts the
//! command only once preflight admitted the call, bounds it, and reads its output as the
//! response.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Aci, active, context_with, fixture, root};

/// The fixture Mock source, as the README runs it.
fn mock_logs() -> PathBuf {
    root().join("fixtures/bin/mock-logs")
}

/// An executable POSIX sh script in `dir`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `logs` with the fixture context and `extra` arguments, then `-- command…`.
fn live_logs(context: &Path, call_id: &str, extra: &[&str], command: &[&Path]) -> Aci {
    Aci::logs(context, call_id, "application-logs", "payment timeout")
        .args(extra.iter().copied())
        .arg("--")
        .args(command.iter().map(|p| p.as_os_str()))
}

const EMPTY_MOCK: &str = r#"{"success": true, "logs": []}"#;

#[test]
fn the_mock_source_runs_behind_the_boundary() {
    let mock = mock_logs();
    let command = [mock.as_path(), Path::new("{topic}"), Path::new("{query}")];
    let ran = live_logs(&active(), "call_live", &["--pretty"], &command).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = ran.json();
    assert_eq!(v["status"], "READY");
    assert_eq!(v["result"]["source_kind"], "MOCK");
    assert_eq!(v["result"]["match_count"], 4);
    assert_eq!(v["result"]["scope"]["query"], "payment timeout");
    for raw in [
        "tok_9f8e7d6c5b4a3f2e1d0c",
        "S3cr3tPass",
        "10.2.3.4",
        "pod-payment",
        "cpu",
    ] {
        assert!(!ran.stdout.contains(raw), "{raw} leaked: {}", ran.stdout);
    }
    // The command's standard error reaches no view, in any format; the control view counts it.
    let stderr_line = "mock-logs: querying application-logs";
    for (i, extra) in [
        &["--view", "harness"][..],
        &["--view", "model"],
        &["--format", "mcp"],
    ]
    .into_iter()
    .enumerate()
    {
        let ran = live_logs(&active(), &format!("c{i}"), extra, &command).run();
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert!(!ran.stdout.contains("querying"), "{}", ran.stdout);
        assert!(!ran.stderr.contains("querying"), "{}", ran.stderr);
        let v = ran.json();
        let control = match extra[1] {
            "harness" => v.clone(),
            "mcp" => v["_meta"]["aciproj/control"].clone(),
            _ => {
                assert!(v.get("legacy_exit").is_none(), "model view: {v}");
                continue;
            }
        };
        assert_eq!(control["legacy_exit"], 0, "{control}");
        assert_eq!(control["legacy_stderr_bytes"], stderr_line.len() + 1);
        if extra[1] == "mcp" {
            let model = v["structuredContent"].to_string();
            assert!(!model.contains("legacy_"), "{model}");
        }
    }
}

#[test]
fn file_calls_carry_no_legacy_fields() {
    let ran = Aci::logs(active(), "c", "application-logs", "q")
        .args(["--view", "harness"])
        .arg(fixture("logs/application-logs.json"))
        .run();
    let v = ran.json();
    assert!(v.get("legacy_exit").is_none() && v.get("legacy_stderr_bytes").is_none());
}

#[test]
fn a_refused_call_never_starts_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("started");
    let tool = script(
        dir.path(),
        "tool",
        &format!("touch '{}'\necho '{EMPTY_MOCK}'", marker.display()),
    );
    let refusals = [
        (json!({"authorized_tools": ["rag"]}), "UNAUTHORIZED_TOOL"),
        (json!({"status": "COMPLETED"}), "RUN_NOT_ACTIVE"),
        (
            json!({"prior_calls": [{"tool_call_id": "c1", "tool": "logs"}]}),
            "DUPLICATE_TOOL_CALL",
        ),
        (
            json!({"budget": {"max_tool_calls": 0, "max_observation_bytes": 100}}),
            "BUDGET_EXHAUSTED",
        ),
    ];
    for (patch, code) in refusals {
        let ctx = context_with(patch);
        let ran = live_logs(&ctx.path, "c1", &[], &[&tool]).run();
        assert_eq!((ran.code, ran.error_code()), (3, code.to_owned()));
        assert!(!marker.exists(), "{code}: the command was started");
    }
    // The same command does start once the call is admitted.
    let ran = live_logs(&active(), "c1", &[], &[&tool]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(marker.exists());
}

#[test]
fn a_hostile_query_reaches_the_command_as_one_literal_argument() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("argv");
    let tool = script(
        dir.path(),
        "tool",
        &format!(
            "for a in \"$@\"; do printf '<%s>\\n' \"$a\"; done > '{}'\necho '{EMPTY_MOCK}'",
            seen.display()
        ),
    );
    let query = "x'; rm -rf ./victim; $(touch pwned) `touch pwned2` \"$HOME\" && echo {topic}";
    std::fs::create_dir(dir.path().join("victim")).unwrap();
    let ran = Aci::logs(active(), "c", "app logs", query)
        .args(["--", tool.to_str().unwrap(), "{query}", "--topic={topic}"])
        .current_dir(dir.path())
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let argv = std::fs::read_to_string(&seen).unwrap();
    assert_eq!(argv, format!("<{query}>\n<--topic=app logs>\n"));
    assert!(dir.path().join("victim").is_dir());
    assert!(!dir.path().join("pwned").exists() && !dir.path().join("pwned2").exists());
}

#[test]
fn a_command_past_its_timeout_is_killed_with_its_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("helper.pid");
    let ctx = context_with(json!({"limits": {"logs": {"legacy_timeout_ms": 300}}}));
    let cases = [
        // Silent, with a helper in its group.
        format!("sleep 30 &\necho $! > '{}'\nwait", pid_file.display()),
        // Writes part of an answer, then hangs.
        "printf '{\"success\": true, \"logs\": ['\nsleep 30".to_owned(),
        // Closes its standard output early and keeps running.
        format!("echo '{EMPTY_MOCK}'\nexec >&- 2>&-\nsleep 30"),
    ];
    for (i, body) in cases.iter().enumerate() {
        let tool = script(dir.path(), &format!("tool{i}"), body);
        let started = Instant::now();
        let ran = live_logs(&ctx.path, "c", &["--view", "harness"], &[&tool]).run();
        let took = started.elapsed();
        assert_eq!(ran.code, 4, "case {i}: {}", ran.stderr);
        let v = ran.json();
        assert_eq!(v["error"]["code"], "LEGACY_TIMEOUT", "case {i}: {v}");
        assert_eq!(v["error"]["stage"], "legacy");
        assert_eq!(v["legacy_exit"], 128 + 9, "killed by SIGKILL: {v}");
        assert!(took < Duration::from_secs(10), "case {i} took {took:?}");
        assert!(ran.stderr.contains("300 ms"), "{}", ran.stderr);
    }
    // Killed: gone, or a zombie waiting for whoever adopted it to reap it.
    let helper = std::fs::read_to_string(&pid_file).unwrap();
    let state = std::fs::read_to_string(format!("/proc/{}/stat", helper.trim()))
        .map(|stat| stat.rsplit(") ").next().unwrap_or("").chars().next())
        .unwrap_or(None);
    assert!(
        matches!(state, None | Some('Z')),
        "the helper {helper} outlived the timeout: {state:?}"
    );
}

#[test]
fn output_past_max_response_bytes_kills_the_command() {
    let ctx = context_with(json!({"limits": {"logs": {"max_response_bytes": 1000}}}));
    let started = Instant::now();
    let ran = live_logs(&ctx.path, "c", &["--view", "harness"], &[Path::new("yes")]).run();
    assert_eq!(ran.code, 4, "{}", ran.stderr);
    let v = ran.json();
    assert_eq!(v["error"]["code"], "RESPONSE_TOO_LARGE");
    assert_eq!(v["error"]["stage"], "legacy");
    assert_eq!(v["legacy_exit"], 128 + 9);
    assert!(started.elapsed() < Duration::from_secs(10));
    // A RAG call is bounded the same way.
    let ctx = context_with(json!({"limits": {"rag": {"max_response_bytes": 1000}}}));
    let ran = Aci::rag(&ctx.path, "c", "q").args(["--", "yes"]).run();
    assert_eq!(
        (ran.code, ran.error_code()),
        (4, "RESPONSE_TOO_LARGE".into())
    );
}

#[test]
fn a_non_zero_exit_is_legacy_failed_whatever_it_printed() {
    let dir = tempfile::tempdir().unwrap();
    let response = fixture("logs/application-logs.json");
    let tool = script(
        dir.path(),
        "tool",
        &format!(
            "cat '{}'\necho 'secret-in-stderr password=hunter2' >&2\nexit 3",
            response.display()
        ),
    );
    let ran = live_logs(&active(), "c", &["--view", "harness"], &[&tool]).run();
    assert_eq!(ran.code, 4, "{}", ran.stderr);
    let v = ran.json();
    assert_eq!(v["error"]["code"], "LEGACY_FAILED");
    assert_eq!(
        (v["legacy_exit"].clone(), v["status"].clone()),
        (json!(3), json!("ERROR"))
    );
    assert_eq!(
        v["legacy_stderr_bytes"],
        "secret-in-stderr password=hunter2\n".len()
    );
    assert!(!ran.stdout.contains("hunter2") && !ran.stderr.contains("hunter2"));
    assert!(ran.stderr.contains("status 3"), "{}", ran.stderr);
}

#[test]
fn megabytes_on_standard_error_neither_block_nor_show() {
    let dir = tempfile::tempdir().unwrap();
    let tool = script(
        dir.path(),
        "tool",
        &format!("head -c 5000000 /dev/zero | tr '\\0' x >&2\necho '{EMPTY_MOCK}'"),
    );
    let ran = live_logs(&active(), "c", &["--view", "harness"], &[&tool]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = ran.json();
    assert_eq!(v["legacy_stderr_bytes"], 5_000_000);
    assert_eq!(v["evidence_status"], "NO_EVIDENCE");
    assert!(ran.stdout.len() < 2000 && !ran.stderr.contains("xxx"));
}

#[test]
fn a_command_that_cannot_start_is_input_not_recorded_and_the_call_id_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let not_executable = dir.path().join("tool");
    std::fs::write(&not_executable, format!("#!/bin/sh\necho '{EMPTY_MOCK}'\n")).unwrap();
    let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
    let ledger = ctx.dir.path().join("run.ledger.jsonl");
    for (command, reason) in [
        (
            Path::new("/nonexistent/aciproj/tool"),
            "No such file or directory",
        ),
        (not_executable.as_path(), "Permission denied"),
    ] {
        let ran = live_logs(&ctx.path, "c", &[], &[command]).run();
        assert_eq!(ran.code, 5, "{}", ran.stderr);
        assert_eq!(ran.json()["error"]["stage"], "input");
        assert_eq!(ran.error_code(), "LEGACY_COMMAND_UNAVAILABLE");
        assert!(ran.stderr.contains(reason), "{}", ran.stderr);
        assert!(
            ran.stderr.contains(&*command.to_string_lossy()),
            "{}",
            ran.stderr
        );
        assert!(!ran.stdout.contains(&*command.to_string_lossy()));
        assert!(!ledger.exists() || std::fs::read(&ledger).unwrap().is_empty());
    }
    std::fs::set_permissions(&not_executable, std::fs::Permissions::from_mode(0o755)).unwrap();
    let ran = live_logs(&ctx.path, "c", &[], &[&not_executable]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(std::fs::read_to_string(&ledger).unwrap().lines().count(), 1);
}

#[test]
fn the_ledger_records_a_live_call_as_for_a_file() {
    let response = fixture("logs/application-logs.json");
    let record = |live: bool| {
        let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
        let base = Aci::logs(&ctx.path, "c", "application-logs", "payment timeout");
        let ran = if live {
            base.args(["--", "cat", response.to_str().unwrap()]).run()
        } else {
            base.arg(&response).run()
        };
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        std::fs::read_to_string(ctx.dir.path().join("run.ledger.jsonl")).unwrap()
    };
    assert_eq!(record(true), record(false));
}

#[test]
fn the_context_may_come_on_standard_input_with_a_command() {
    let context = std::fs::read(active()).unwrap();
    let ran = Aci::logs("-", "c", "application-logs", "q")
        .args(["--", mock_logs().to_str().unwrap(), "{topic}", "{query}"])
        .stdin(context)
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
}

#[test]
fn usage_errors_of_the_live_form() {
    let response = fixture("logs/application-logs.json");
    let response = response.to_str().unwrap();
    for args in [
        vec!["--capture", "x.json", response],
        vec![response, "--", "cat", response],
    ] {
        let ran = Aci::logs(active(), "c", "t", "q").args(args.clone()).run();
        assert_eq!(ran.code, 2, "{args:?}: {}", ran.stderr);
    }
}

#[test]
fn capture_then_replay_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let captured = dir.path().join("responses/call_1.json");
    std::fs::create_dir(dir.path().join("responses")).unwrap();
    let live = Aci::logs(active(), "call_1", "application-logs", "payment timeout")
        .args(["--lookback-minutes", "30", "--capture"])
        .arg(&captured)
        .args(["--", mock_logs().to_str().unwrap(), "{topic}", "{query}"])
        .run();
    assert_eq!(live.code, 0, "{}", live.stderr);
    let mode = std::fs::metadata(&captured).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let direct = std::process::Command::new(mock_logs())
        .args(["application-logs", "payment timeout"])
        .output()
        .unwrap();
    assert_eq!(std::fs::read(&captured).unwrap(), direct.stdout);

    std::fs::copy(active(), dir.path().join("context.json")).unwrap();
    let call = json!({"tool_call_id": "call_1", "tool": "logs",
        "arguments": {"topic": "application-logs", "query": "payment timeout",
                      "lookback_minutes": 30},
        "response_file": "responses/call_1.json"});
    std::fs::write(dir.path().join("calls.jsonl"), format!("{call}\n")).unwrap();
    let replayed = Aci::new(["replay".as_ref(), dir.path().as_os_str()]).run();
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    assert_eq!(replayed.stdout, live.stdout);
}

#[test]
fn a_capture_is_kept_only_when_the_command_answered_whole() {
    let dir = tempfile::tempdir().unwrap();
    let captured = dir.path().join("kept.json");
    std::fs::write(&captured, "earlier").unwrap();
    let tool = script(dir.path(), "tool", &format!("echo '{EMPTY_MOCK}'\nexit 1"));
    let ran = live_logs(
        &active(),
        "c",
        &["--capture", captured.to_str().unwrap()],
        &[&tool],
    )
    .run();
    assert_eq!(ran.code, 4);
    assert_eq!(std::fs::read_to_string(&captured).unwrap(), "earlier");
    let leftovers: Vec<Value> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| json!(e.unwrap().file_name().to_string_lossy()))
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "no temporary file is left: {leftovers:?}"
    );
    // An unwritable capture folder fails before the command starts.
    let marker = dir.path().join("started");
    let tool = script(
        dir.path(),
        "tool2",
        &format!("touch '{}'", marker.display()),
    );
    let ran = live_logs(
        &active(),
        "c",
        &["--capture", "/nonexistent/aciproj/capture.json"],
        &[&tool],
    )
    .run();
    assert_eq!(ran.code, 5, "{}", ran.stderr);
    assert!(ran.stderr.contains("capture file"), "{}", ran.stderr);
    assert!(!marker.exists());
}
