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
    for incident in [INCIDENT, PAYMENT] {
        let a = replay(&fixture(incident), "harness");
        let b = replay(&fixture(incident), "harness");
        assert_eq!(a.stdout, b.stdout, "{incident}");
        assert_eq!(a.stderr, b.stderr, "{incident}");
    }
}

/// A run that mixes `logs` and `rag`: log evidence, knowledge, the same log scope asked again in
/// other whitespace and case, a legacy log failure, an empty log result, an invalid lookback, a
/// repeated call id, and a budget of 7 spent to the last call.
const PAYMENT: &str = "incidents/payment-outage";

/// Raw values planted in the payment-outage responses; none may reach any view.
pub(crate) const PAYMENT_PLANTED: &[&str] = &[
    "pod-payment-service-6b7c8d9f4-m2n3b",
    "pod-payment-service-6b7c8d9f4-q8w7e",
    "pod-gateway-5f6a7b8c9-t4r5e",
    "pod-notification-service-7c8d9e-zx12c",
    "db_pool_active",
    "\"cpu\"",
    "198.51.100.23",
    "198.51.100.87",
    "Pay-Db-2026!",
    "pay-db-primary.prod.internal",
    "dave.wu@example.com",
    "whk_4f3e2d1c0b9a8f7e6d5c",
    "DataSourceUtils.java",
    "ChargeRepository.java",
    // The cause's head (`Caused by: java.sql.SQLTransientConnectionException: …`) stays, as
    // issue 35 asks; its frames go with the trace.
    "LTAI5tPayOutage9xK2mQ7v",
    "100.100.0.5",
    "sls.cn-shanghai.internal",
    "Throttling",
    "cn-shanghai",
    "成功查询到",
    "全文正文",
    "0.9117",
    "bge-reranker",
    "es-prod-kb-01",
    "keyword:HikariPool",
];

#[test]
fn mixed_logs_and_rag_incident_replays_call_by_call() {
    let dir = fixture(PAYMENT);
    let ran = replay(&dir, "envelope");
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let out = lines(&ran);
    let got: Vec<(&str, &str, &str, &str)> = out
        .iter()
        .map(|v| {
            (
                v["tool_call_id"].as_str().unwrap(),
                v["tool"].as_str().unwrap(),
                v["status"].as_str().unwrap(),
                v["error"]["code"]
                    .as_str()
                    .or(v["result"]["evidence_status"].as_str())
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("call_p01", "logs", "READY", "EVIDENCE"),
            ("call_p02", "rag", "READY", "EVIDENCE"),
            // The same log scope in other whitespace and case: admitted, flagged in the harness.
            ("call_p03", "logs", "READY", "EVIDENCE"),
            // success:false from the Mock source: admitted, counted, no Agent result.
            ("call_p04", "logs", "ERROR", "LEGACY_FAILURE"),
            // An empty log array is evidence of nothing, not an error.
            ("call_p05", "logs", "READY", "NO_EVIDENCE"),
            ("call_p06", "logs", "ERROR", "INVALID_REQUEST"),
            ("call_p03", "logs", "ERROR", "DUPLICATE_TOOL_CALL"),
            ("call_p07", "rag", "READY", "EVIDENCE"),
            // A longer lookback is another scope: not a duplicate; it spends the last call.
            ("call_p08", "logs", "READY", "EVIDENCE"),
            ("call_p09", "logs", "ERROR", "BUDGET_EXHAUSTED"),
        ]
    );
    for v in &out {
        assert_eq!(v["run_id"], "run-20261129-0815");
    }

    // Log evidence: the request's scope, Mock provenance, redacted patterns that fold.
    let first = &out[0]["result"];
    assert_eq!(first["source_kind"], "MOCK");
    assert_eq!(
        first["scope"],
        json!({"topic": "application-logs", "query": "payment timeout", "lookback_minutes": 30,
            "window_start": "2026-11-29T09:30:00+08:00", "window_end": "2026-11-29T10:00:00+08:00"})
    );
    assert_eq!(first["match_count"], 9);
    // The context bounds the timeline at 8 events: one of the nine is dropped, and said so.
    assert_eq!(first["returned_count"], 8);
    assert_eq!(first["truncated"], true);
    let pool = &first["patterns"][0];
    assert_eq!(pool["level"], "WARN");
    assert_eq!(
        pool["count"], 3,
        "three pool timeouts fold into one pattern"
    );
    // The repeated scope's result echoes what was asked, byte for byte, with the same evidence.
    let again = &out[2]["result"];
    assert_eq!(again["scope"]["topic"], " Application-Logs ");
    assert_eq!(again["scope"]["query"], "Payment   TIMEOUT");
    assert_eq!(again["patterns"], first["patterns"]);
    assert_eq!(again["timeline"], first["timeline"]);
    // The empty result keeps its full scope on the run's clock.
    let empty = &out[4]["result"];
    assert_eq!(
        empty["scope"],
        json!({"topic": "system-events", "query": "payment pods restart", "lookback_minutes": 120,
            "window_start": "2026-11-29T08:00:00+08:00", "window_end": "2026-11-29T10:00:00+08:00"})
    );
    assert_eq!(empty["match_count"], 0);
    assert_eq!(empty["timeline"], json!([]));
    assert!(out[3].get("result").is_none());
    // No planted raw value in the envelope or on stderr.
    for planted in PAYMENT_PLANTED {
        assert!(!ran.stdout.contains(planted), "{planted} leaked");
        assert!(!ran.stderr.contains(planted), "{planted} leaked to stderr");
    }
    let table: Vec<&str> = ran.stderr.lines().collect();
    assert_eq!(table.len(), 12, "{}", ran.stderr);
    assert_eq!(table[11], "replayed 10 calls: 6 READY, 4 ERROR");
    assert!(!dir.join("run-20261129-0815.ledger.jsonl").exists());
}

#[test]
fn mixed_incident_harness_view_flags_the_repeated_log_scope() {
    let out = lines(&replay(&fixture(PAYMENT), "harness"));
    let (p01, p03, p08) = (&out[0], &out[2], &out[8]);
    // Whitespace and case do not make a new scope: same fingerprint, duplicate_of the first.
    assert_eq!(p03["duplicate_of"], "call_p01");
    assert_eq!(p03["scope_fingerprint"], p01["scope_fingerprint"]);
    assert_eq!(
        p03["scope"],
        json!({"topic": "application-logs", "query": "payment timeout", "lookback_minutes": 30})
    );
    // Another lookback is another scope.
    assert_eq!(p08["duplicate_of"], Value::Null);
    assert_ne!(p08["scope_fingerprint"], p01["scope_fingerprint"]);
    // Logs and rag scopes never collide.
    assert_ne!(out[1]["scope_fingerprint"], p01["scope_fingerprint"]);
    // What the harness learns about the log evidence: counts, truncation and redactions.
    assert_eq!(p01["match_count"], 9);
    assert_eq!(p01["returned_count"], 8);
    assert_eq!(
        p01["truncation"],
        json!({"timeline": {"items": 1, "bytes": 0}})
    );
    assert_eq!(
        p01["redactions"],
        json!({"email": 1, "host": 1, "ip": 2, "secret": 2, "stack": 2})
    );
    // The legacy failure was admitted: it has a scope and spent a call.
    assert_eq!(out[3]["error"]["code"], "LEGACY_FAILURE");
    assert_eq!(out[3]["error"]["stage"], "legacy");
    assert_eq!(out[3]["budget"]["tool_calls_used"], 4);
    // Refusals (invalid lookback, repeated call id) leave the counters where they were.
    for refused in &out[5..7] {
        assert_eq!(refused["budget"]["tool_calls_used"], 5);
        assert_eq!(refused["scope"], Value::Null);
    }
    assert_eq!(out[8]["budget"]["tool_calls_left"], 0);
    assert_eq!(out[9]["error"]["code"], "BUDGET_EXHAUSTED");
    // The summary's byte column is the model observation's size, for logs as for rag.
    let model = replay(&fixture(PAYMENT), "model");
    for (i, line) in model.stdout.lines().enumerate() {
        assert_eq!(out[i]["observation_bytes"], line.len(), "line {}", i + 1);
    }
}

#[test]
fn mixed_incident_model_view_carries_nothing_raw_or_harness_only() {
    let ran = replay(&fixture(PAYMENT), "model");
    assert_eq!(ran.code, 0);
    for forbidden in PAYMENT_PLANTED.iter().chain(&[
        "run-20261129-0815",
        "fingerprint",
        "duplicate_of",
        "budget",
        "returned_count",
        "redactions",
        "stage",
    ]) {
        assert!(!ran.stdout.contains(forbidden), "{forbidden} leaked");
    }
    let out = lines(&ran);
    // The model still reads the scope it asked for, and how many entries matched.
    assert_eq!(out[0]["scope"]["window_start"], "2026-11-29T09:30:00+08:00");
    assert_eq!(out[0]["match_count"], 9);
    assert_eq!(out[3]["error"]["code"], "LEGACY_FAILURE");
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
}

#[test]
fn replay_names_the_missing_file_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    let ran = replay(&absent, "envelope");
    assert_eq!(ran.code, 5);
    assert_eq!(
        ran.stderr,
        format!(
            "aciproj: replay: cannot read the incident folder {}: No such file or directory\n",
            absent.display()
        )
    );
    // A file given as the incident folder.
    let file = dir.path().join("calls.jsonl.txt");
    std::fs::write(&file, "{}").unwrap();
    let ran = replay(&file, "envelope");
    assert_eq!(ran.code, 5);
    assert!(
        ran.stderr
            .contains(&format!("{}: Not a directory", file.display())),
        "{}",
        ran.stderr
    );
    // A folder without context.json, then without calls.jsonl, then calls.jsonl as a folder.
    let ran = replay(dir.path(), "envelope");
    assert_eq!(ran.code, 5);
    let context = dir.path().join("context.json");
    assert!(
        ran.stderr.contains(&format!(
            "cannot read the run context {}: No such file or directory",
            context.display()
        )),
        "{}",
        ran.stderr
    );
    std::fs::write(&context, CONTEXT).unwrap();
    let ran = replay(dir.path(), "envelope");
    assert_eq!(ran.code, 5);
    let calls = dir.path().join("calls.jsonl");
    assert!(
        ran.stderr.contains(&format!(
            "cannot read the calls {}: No such file or directory",
            calls.display()
        )),
        "{}",
        ran.stderr
    );
    std::fs::create_dir(&calls).unwrap();
    let ran = replay(dir.path(), "envelope");
    assert_eq!(ran.code, 5, "{}", ran.stderr);
    assert!(ran.stderr.contains(": Is a directory"), "{}", ran.stderr);
}

#[test]
fn an_incident_with_no_calls_is_an_error() {
    for calls in ["", "\n", "  \n\n"] {
        let dir = incident(CONTEXT, calls);
        let ran = replay(dir.path(), "model");
        assert_eq!(ran.code, 5, "{calls:?}");
        assert_eq!(ran.stdout, "");
        assert!(
            ran.stderr.contains("the incident has no calls"),
            "{}",
            ran.stderr
        );
    }
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
    assert_eq!(out[1]["error"]["code"], "RESPONSE_FILE_UNAVAILABLE");
}

/// A copy of a bundled incident in a temporary folder (its context's ledger lands there too).
pub(crate) fn copy_incident(name: &str) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                copy(&entry.path(), &target);
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    copy(&fixture(name), dir.path());
    dir
}

/// Makes the incident's calls live, as a Rust harness would: through one boundary over the
/// context's ledger file. Returns the ledger's path.
pub(crate) fn live(dir: &Path) -> std::path::PathBuf {
    use aciproj::boundary::arguments::execute_arguments;
    use aciproj::{LegacySource, RunContext, ToolBoundary};
    let context = RunContext::load(&dir.join("context.json")).unwrap();
    let ledger = context
        .ledger()
        .map(Path::to_owned)
        .expect("the incident's context names a ledger");
    let mut boundary = ToolBoundary::new(context);
    for line in std::fs::read_to_string(dir.join("calls.jsonl"))
        .unwrap()
        .lines()
    {
        let call: aciproj::replay::IncidentCall = serde_json::from_str(line).unwrap();
        let inline = call.response.as_ref().map(|r| r.to_string());
        let file = call.response_file.as_ref().map(|f| dir.join(f));
        let legacy = match (&inline, &file) {
            (Some(bytes), _) => LegacySource::Bytes(bytes.as_bytes()),
            (None, Some(path)) => LegacySource::File(path),
            (None, None) => unreachable!("the bundled calls have a response"),
        };
        execute_arguments(
            &mut boundary,
            call.tool,
            &call.tool_call_id,
            call.run_id.as_deref(),
            &Value::Object(call.arguments.clone()),
            legacy,
        );
    }
    ledger
}

fn replay_verify(dir: &Path, ledger: &Path) -> Ran {
    Aci::new(["replay"])
        .arg(dir)
        .arg("--verify")
        .arg(ledger)
        .run()
}

/// The `verify …` lines of a replay's stderr.
fn verify_lines(ran: &Ran) -> Vec<&str> {
    ran.stderr
        .lines()
        .filter(|l| l.starts_with("verify") || l.starts_with("verified"))
        .collect()
}

#[test]
fn an_untouched_incident_verifies_against_its_live_ledger() {
    for (name, calls) in [(INCIDENT, 7), (PAYMENT, 10)] {
        let dir = copy_incident(name);
        let ledger = live(dir.path());
        let ran = replay_verify(dir.path(), &ledger);
        assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
        let lines = verify_lines(&ran);
        assert_eq!(lines.len(), calls + 2, "{}", ran.stderr);
        for line in &lines[..calls] {
            assert!(line.contains(": match"), "{name}: {line}");
        }
        assert!(lines[calls].starts_with("verify ledger: chain intact"));
        assert_eq!(
            lines[calls + 1],
            format!("verified {calls} calls: {calls} match, 0 differ")
        );
        // The JSON lines are the replay's, unchanged by --verify.
        assert_eq!(ran.stdout, replay(dir.path(), "envelope").stdout);
    }
    let lines = {
        let dir = copy_incident(INCIDENT);
        let ledger = live(dir.path());
        replay_verify(dir.path(), &ledger).stderr
    };
    assert!(lines.contains("verify call_01: match\n"), "{lines}");
    assert!(
        lines.contains("verify call_06: match (refused with BUDGET_EXHAUSTED, not recorded)\n"),
        "{lines}"
    );
}

#[test]
fn a_changed_response_is_a_mismatch_naming_the_call() {
    let dir = copy_incident(INCIDENT);
    let ledger = live(dir.path());
    // Someone "fixes" the captured response of call_02 after the fact.
    let calls = std::fs::read_to_string(dir.path().join("calls.jsonl")).unwrap();
    let planted = "先用 redis-cli --latency";
    assert!(calls.contains(planted));
    let changed = calls.replacen(planted, "先用 redis-cli --bigkeys", 1);
    std::fs::write(dir.path().join("calls.jsonl"), changed).unwrap();
    let ran = replay_verify(dir.path(), &ledger);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    let lines = verify_lines(&ran);
    let call_02 = lines[1];
    // The same length, the same counts: only the result's hash tells.
    assert!(
        call_02.starts_with("verify call_02: MISMATCH: result_sha256 ledger \"")
            && !call_02.contains("observation_bytes"),
        "{call_02}"
    );
    assert_eq!(lines[0], "verify call_01: match");
    assert_eq!(
        *lines.last().unwrap(),
        "verified 7 calls: 6 match, 1 differ: the ledger does not prove this replay"
    );
    // Counts, codes and hashes only: no legacy content on stderr.
    assert!(!ran.stderr.contains("bigkeys") && !ran.stderr.contains("latency"));
}

#[test]
fn a_call_the_ledger_lacks_or_holds_extra_is_a_mismatch() {
    let dir = copy_incident(INCIDENT);
    let ledger = live(dir.path());
    let text = std::fs::read_to_string(&ledger).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The last record cut off: its call is not in the ledger (the chain alone cannot see it).
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, format!("{}\n", lines[..3].join("\n"))).unwrap();
    let ran = replay_verify(dir.path(), &cut);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("verify call_05: MISMATCH: not in the ledger\n")
    );
    assert!(
        ran.stderr
            .contains("verify ledger: chain intact, 3 records\n")
    );
    // A record of the run that the incident does not hold.
    let incident_calls = std::fs::read_to_string(dir.path().join("calls.jsonl")).unwrap();
    let fewer: Vec<&str> = incident_calls.lines().take(2).collect();
    std::fs::write(dir.path().join("calls.jsonl"), fewer.join("\n")).unwrap();
    let ran = replay_verify(dir.path(), &ledger);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(
            "verify call_03: MISMATCH: ledger line 3 records it, the incident does not hold it"
        ),
        "{}",
        ran.stderr
    );
    // A tampered chain fails the proof even when every call matches.
    let swapped = dir.path().join("swapped.jsonl");
    std::fs::write(&swapped, format!("{}\n{}\n", lines[1], lines[0])).unwrap();
    let ran = replay_verify(dir.path(), &swapped);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("verify ledger: CHAIN BROKEN: line 1 is out of order")
    );
}

#[test]
fn an_unreadable_verify_ledger_exits_5_before_replaying() {
    let dir = copy_incident(INCIDENT);
    let missing = dir.path().join("no-such.ledger.jsonl");
    let ran = replay_verify(dir.path(), &missing);
    assert_eq!(ran.code, 5, "{}", ran.stderr);
    assert_eq!(ran.stdout, "");
    assert!(
        ran.stderr.contains(&missing.display().to_string()),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("No such file or directory"),
        "{}",
        ran.stderr
    );
}
