//! `aciproj replay`: the bundled incident, views, determinism, and incidents that cannot be read.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Aci, Ran, fixture};

const INCIDENT: &str = "incidents/redis-latency";

fn replay(dir: &Path, view: &str) -> Ran {
    Aci::new(["replay", "--view", view]).arg(dir).run()
}

fn lines(ran: &Ran) -> Vec<Value> {
    ran.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn bundled_incident_replays_call_by_call() {
    let dir = fixture(INCIDENT);
    let ran = replay(&dir, "envelope");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let out = lines(&ran);
    let got: Vec<(&str, &str, &str)> = out
        .iter()
        .map(|v| {
            (
                v["tool_call_id"].as_str().unwrap(),
                v["status"].as_str().unwrap(),
                v["error"]["code"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("call_01", "READY", "-"),
            // Same normalized scope as call_01: admitted and flagged (duplicate_scope=flag).
            ("call_02", "READY", "-"),
            // The same call id again: refused, and not counted against the budget.
            ("call_02", "ERROR", "DUPLICATE_TOOL_CALL"),
            ("call_03", "ERROR", "LEGACY_FAILURE"),
            ("call_04", "ERROR", "INVALID_REQUEST"),
            // The fourth admitted call spends the budget of 4 ...
            ("call_05", "READY", "-"),
            // ... so the next is refused before its (never captured) response is looked for.
            ("call_06", "ERROR", "BUDGET_EXHAUSTED"),
        ]
    );
    for v in &out {
        assert_eq!(v["run_id"], "run-20261203-0107");
    }
    // Every line is compact.
    assert_eq!(ran.stdout.lines().count(), 7);
    // The summary table: a header, one row per call, and a count.
    let table: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(table.len(), 9, "{}", ran.stderr);
    for column in ["call id", "tool", "status", "code", "bytes", "truncated"] {
        assert!(table[0].contains(column), "{column}");
    }
    assert!(table[3].contains("call_02") && table[3].contains("DUPLICATE_TOOL_CALL"));
    assert_eq!(table[8], "replayed 7 calls: 3 READY, 4 ERROR");
    // The context names a ledger; replay never creates or reads it.
    assert!(!dir.join("run-20261203-0107.ledger.jsonl").exists());
}

#[test]
fn harness_view_shows_duplicate_scope_and_budget() {
    let out = lines(&replay(&fixture(INCIDENT), "harness"));
    assert_eq!(out[1]["duplicate_of"], "call_01");
    assert_eq!(out[1]["scope_fingerprint"], out[0]["scope_fingerprint"]);
    assert_eq!(out[1]["scope"]["query"], "redis 延迟 升高 排查");
    assert_eq!(out[5]["budget"]["tool_calls_used"], 4);
    assert_eq!(out[5]["budget"]["tool_calls_left"], 0);
    // Rejected calls leave the counters where they were.
    assert_eq!(out[2]["budget"]["tool_calls_used"], 2);
    // An argument the request cannot hold is refused like any invalid request: counters known.
    assert_eq!(out[4]["error"]["code"], "INVALID_REQUEST");
    assert_eq!(out[4]["budget"]["tool_calls_used"], 3);
    assert_eq!(out[4]["budget"]["tool_calls_left"], 1);
    assert_eq!(out[6]["error"]["code"], "BUDGET_EXHAUSTED");
    // The summary's byte column is the model observation's size.
    let ran = replay(&fixture(INCIDENT), "model");
    let first_len = ran.stdout.lines().next().unwrap().len();
    assert_eq!(out[0]["observation_bytes"], first_len);
}

#[test]
fn model_view_carries_nothing_raw_or_harness_only() {
    let ran = replay(&fixture(INCIDENT), "model");
    assert_eq!(ran.code, 0);
    for forbidden in [
        "run-20261203",
        "fingerprint",
        "duplicate",
        "budget",
        "returned_count",
        "r3d1s-Pr0d-2026",
        "redis-prod-01",
        "kb-svc-7d8f9c6b5-x2k4m",
        "Search.java",
        "0.9412",
        "bge-reranker",
        "第二个分块",
        "stage",
    ] {
        assert!(!ran.stdout.contains(forbidden), "{forbidden} leaked");
    }
}

#[test]
fn replay_is_byte_for_byte_repeatable() {
    let a = replay(&fixture(INCIDENT), "harness");
    let b = replay(&fixture(INCIDENT), "harness");
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(a.stderr, b.stderr);
}

fn incident(context: &str, calls: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("context.json"), context).unwrap();
    std::fs::write(dir.path().join("calls.jsonl"), calls).unwrap();
    dir
}

const CONTEXT: &str =
    r#"{"run_id":"r","status":"ACTIVE","authorized_tools":["rag"],"now":"2026-11-29T10:00:00Z"}"#;

#[test]
fn unreadable_incidents_exit_5_before_replaying_anything() {
    let good = json!({"tool_call_id": "c1", "tool": "rag", "arguments": {"query": "q"},
        "response": {"success": true, "contextPack": {"blocks": []}}})
    .to_string();
    let cases = [
        (
            incident(
                CONTEXT,
                &format!("{good}\n\n{{\"tool_call_id\": \"c2\", \"arguments\": {{}}}}\n"),
            ),
            "calls.jsonl:3: missing required field `tool`",
        ),
        (
            incident(
                CONTEXT,
                &format!(
                    "{good}\n{}\n",
                    json!({"tool_call_id": "c2", "tool": "rag", "arguments": {"query": "q"}})
                ),
            ),
            "calls.jsonl:2: give exactly one of `response` and `response_file`",
        ),
        (
            incident(
                CONTEXT,
                &format!(
                    "{}\n",
                    json!({"tool_call_id": "c", "tool": "shell", "arguments": {}, "response": 1})
                ),
            ),
            "calls.jsonl:1: invalid value at `tool`",
        ),
        (
            incident(r#"{"run_id":"r","status":"ACTIVE"}"#, &good),
            "context.json: run context: missing required field `now`",
        ),
    ];
    for (dir, needle) in &cases {
        let ran = replay(dir.path(), "envelope");
        assert_eq!(ran.code, 5, "{needle}: {}", ran.stderr);
        assert_eq!(
            ran.stdout, "",
            "nothing replayed before the incident was read"
        );
        assert!(ran.stderr.contains(needle), "{needle}\n{}", ran.stderr);
    }
    // A missing folder, a folder without calls.jsonl, and calls.jsonl as a folder.
    let dir = tempfile::tempdir().unwrap();
    let ran = replay(&dir.path().join("absent"), "envelope");
    assert_eq!(ran.code, 5);
    std::fs::write(dir.path().join("context.json"), CONTEXT).unwrap();
    let ran = replay(dir.path(), "envelope");
    assert_eq!(ran.code, 5);
    assert!(ran.stderr.contains("calls.jsonl: cannot read the calls"));
    std::fs::create_dir(dir.path().join("calls.jsonl")).unwrap();
    let ran = replay(dir.path(), "envelope");
    assert_eq!(ran.code, 5, "{}", ran.stderr);
}

#[test]
fn an_empty_incident_replays_nothing_and_succeeds() {
    let dir = incident(CONTEXT, "\n");
    let ran = replay(dir.path(), "model");
    assert_eq!(ran.code, 0);
    assert_eq!(ran.stdout, "");
    assert!(ran.stderr.contains("replayed 0 calls: 0 READY, 0 ERROR"));
}

#[test]
fn response_files_are_relative_to_the_incident_and_may_be_missing() {
    let dir = incident(
        CONTEXT,
        &[
            json!({"tool_call_id": "c1", "tool": "rag", "arguments": {"query": "q"},
                "response_file": "captured/r.json"}),
            json!({"tool_call_id": "c2", "tool": "rag", "arguments": {"query": "q2"},
                "response_file": "captured/lost.json"}),
        ]
        .map(|v| v.to_string())
        .join("\n"),
    );
    std::fs::create_dir(dir.path().join("captured")).unwrap();
    std::fs::write(
        dir.path().join("captured/r.json"),
        r#"{"success":true,"contextPack":{"blocks":[{"documentId":"d","excerpt":"e"}]}}"#,
    )
    .unwrap();
    let ran = Aci::new(["replay"]).arg(dir.path()).run();
    assert_eq!(ran.code, 0, "every call was replayed: {}", ran.stderr);
    let out = lines(&ran);
    assert_eq!(out[0]["result"]["evidence"][0]["excerpt"], "e");
    assert_eq!(out[1]["error"]["code"], "RESPONSE_UNREADABLE");
}
