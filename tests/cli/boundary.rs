//! The ToolBoundary: ownership, preflight order, safe errors, canonical records (seed 001
//! "Adapters SHALL reuse canonical boundary ownership", seed 004 "Harness evaluates duplicate
//! scope").

use serde_json::{Value, json};

use crate::common::{Aci, MISSING_RESPONSE, active, context_with, fixture, raw_context};

fn ledger_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Seed 001 "Framework ID and Run are valid": the record and the result carry the exact ids.
#[test]
fn framework_id_and_run_are_valid() {
    let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
    let id = "call_\"odd\" ünï/😀 id";
    let ran = Aci::rag(&ctx.path, id, "redis 内存碎片")
        .args(["--run-id", "run-20261129-0042"])
        .response("rag/redis-fragmentation-snake.json")
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = ran.json();
    assert_eq!(v["tool_call_id"], id);
    assert_eq!(v["result"]["tool_call_id"], id);
    assert_eq!(v["run_id"], "run-20261129-0042");
    let records = ledger_lines(&ctx.dir.path().join("run.ledger.jsonl"));
    assert_eq!(records.len(), 1, "one canonical record per admitted call");
    let r = &records[0];
    assert_eq!(r["tool_call_id"], id);
    assert_eq!(r["run_id"], "run-20261129-0042");
    assert_eq!(r["tool"], "rag");
    assert_eq!(r["status"], "READY");
    assert_eq!(r["evidence_status"], "EVIDENCE");
    assert_eq!(r["returned_count"], 2);
    let compact_result = serde_json::to_string(&v["result"]).unwrap();
    use sha2::Digest;
    let sha: String = sha2::Sha256::digest(compact_result.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        r["result_sha256"], sha,
        "the record names the exact result bytes"
    );
    let keys: Vec<_> = r.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "run_id",
            "tool_call_id",
            "tool",
            "status",
            "stage",
            "code",
            "evidence_status",
            "scope_fingerprint",
            "returned_count",
            "truncated",
            "observation_bytes",
            "result_sha256",
            "prev_sha256"
        ]
    );
    // The file's first record starts the hash chain.
    assert_eq!(r["prev_sha256"], "0".repeat(64));
    // Nothing but the ledger was written next to the context, and its index: a cache derived
    // from it (docs/ledger.md, "The index"), holding its head and one bucket.
    let names = |dir: &std::path::Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(ctx.dir.path()),
        ["context.json", "run.ledger.jsonl", "run.ledger.jsonl.index"]
    );
    let index = names(&ctx.dir.path().join("run.ledger.jsonl.index"));
    assert_eq!(index.len(), 2, "{index:?}");
    assert_eq!(index[1], "head");
    assert!(index[0].starts_with('b') && index[0].ends_with(".jsonl"));
}

/// Runs a rejected call against a response path that does not exist, with a ledger, and checks
/// the boundary answered before touching the legacy side and left the ledger as it was.
fn assert_rejected(patch: Value, extra: &[&str], query: &str, code: &str) {
    let mut patch = patch;
    patch["ledger"] = json!("run.ledger.jsonl");
    let ctx = context_with(patch);
    let ledger = ctx.dir.path().join("run.ledger.jsonl");
    let seeded = "{\"tool_call_id\":\"call_seen\",\"tool\":\"rag\",\"observation_bytes\":100}\n";
    std::fs::write(&ledger, seeded).unwrap();
    let ran = Aci::rag(&ctx.path, "call_new", query)
        .args(extra)
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(ran.code, 3, "{code}: {}", ran.stdout);
    let v = ran.json();
    assert_eq!(v["status"], "ERROR");
    assert_eq!(v["error"]["stage"], "preflight");
    assert_eq!(v["error"]["code"], code);
    assert!(v["error"]["message"].as_str().unwrap().len() <= 256);
    assert!(v.get("result").is_none());
    assert_eq!(
        std::fs::read_to_string(&ledger).unwrap(),
        seeded,
        "{code}: a rejected call is not recorded"
    );
}

/// Seed 001 "Boundary rejects the request": each preflight check, with a response path that does
/// not exist (opening it would be exit 4, not 3).
#[test]
fn boundary_rejects_the_request() {
    assert_rejected(json!({}), &["--run-id", "run-other"], "q", "RUN_NOT_OWNED");
    assert_rejected(json!({"status": "CANCELLED"}), &[], "q", "RUN_NOT_ACTIVE");
    assert_rejected(
        json!({"authorized_tools": ["logs", "shell*"]}),
        &[],
        "q",
        "UNAUTHORIZED_TOOL",
    );
    assert_rejected(
        json!({"tools": {"rag": {"read_only": false}}}),
        &[],
        "q",
        "READ_ONLY_VIOLATION",
    );
    assert_rejected(
        json!({"prior_calls": [{"tool_call_id": "call_new", "tool": "rag"}]}),
        &[],
        "q",
        "DUPLICATE_TOOL_CALL",
    );
    assert_rejected(
        json!({"budget": {"max_tool_calls": 1}}),
        &[],
        "q",
        "BUDGET_EXHAUSTED",
    );
    assert_rejected(
        json!({"budget": {"max_observation_bytes": 150}}),
        &[],
        "q",
        "BUDGET_EXHAUSTED",
    );
    assert_rejected(
        json!({"limits": {"rag": {"max_query_bytes": 8}}}),
        &[],
        "more than eight bytes",
        "REQUEST_TOO_LARGE",
    );
    assert_rejected(json!({}), &[], "   ", "INVALID_REQUEST");
    assert_rejected(json!({}), &[], "line\nbreak", "INVALID_REQUEST");
}

#[test]
fn boundary_rejects_duplicate_call_ids_from_the_ledger() {
    let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
    let ledger = ctx.dir.path().join("run.ledger.jsonl");
    let first = Aci::rag(&ctx.path, "call_once", "kafka")
        .response("rag/duplicates.json")
        .run();
    assert_eq!(first.code, 0);
    let before = std::fs::read(&ledger).unwrap();
    let again = Aci::rag(&ctx.path, "call_once", "something else")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(again.code, 3);
    assert_eq!(again.error_code(), "DUPLICATE_TOOL_CALL");
    assert_eq!(std::fs::read(&ledger).unwrap(), before);
}

#[test]
fn preflight_order_first_failure_wins() {
    // Not active *and* unauthorized *and* a blank query: the request check comes first, then
    // ownership, then authorization.
    let ctx = context_with(json!({"status": "FAILED", "authorized_tools": []}));
    let ran = Aci::rag(&ctx.path, "c", " ").arg(MISSING_RESPONSE).run();
    assert_eq!(ran.error_code(), "INVALID_REQUEST");
    let ran = Aci::rag(&ctx.path, "c", "q").arg(MISSING_RESPONSE).run();
    assert_eq!(ran.error_code(), "RUN_NOT_ACTIVE");
    let ctx = context_with(json!({"authorized_tools": [], "budget": {"max_tool_calls": 0}}));
    let ran = Aci::rag(&ctx.path, "c", "q").arg(MISSING_RESPONSE).run();
    assert_eq!(ran.error_code(), "UNAUTHORIZED_TOOL");
}

#[test]
fn authorized_tools_are_glob_patterns() {
    for patterns in [json!(["*"]), json!(["r?g"]), json!(["{logs,rag}"])] {
        let ctx = context_with(json!({"authorized_tools": patterns}));
        let ran = Aci::rag(&ctx.path, "c", "q")
            .response("rag/duplicates.json")
            .run();
        assert_eq!(ran.code, 0, "{patterns}");
    }
}

#[test]
fn response_larger_than_its_bound_is_rejected_before_reading() {
    let ctx = context_with(json!({"limits": {"rag": {"max_response_bytes": 100}}}));
    let ran = Aci::rag(&ctx.path, "c", "q")
        .response("rag/kafka-consumer-lag.json")
        .run();
    assert_eq!(ran.code, 3);
    assert_eq!(ran.error_code(), "RESPONSE_TOO_LARGE");
    // From standard input the size is only known by reading; it is still refused, not projected.
    let bytes = std::fs::read(fixture("rag/kafka-consumer-lag.json")).unwrap();
    let ran = Aci::rag(&ctx.path, "c", "q").stdin(bytes).run();
    assert_eq!(ran.error_code(), "RESPONSE_TOO_LARGE");
}

#[test]
fn a_mistyped_response_path_is_input_not_recorded_and_the_call_id_stays_usable() {
    let ran = Aci::rag(active(), "c", "q").arg(MISSING_RESPONSE).run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.json()["error"]["stage"], "input");
    assert_eq!(ran.error_code(), "RESPONSE_FILE_UNAVAILABLE");
    // With a ledger: nothing is recorded, and the same call id works once the path is right.
    let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
    let ledger = ctx.dir.path().join("run.ledger.jsonl");
    let typo = ctx.dir.path().join("redis-fragmentaton.json");
    let ran = Aci::rag(&ctx.path, "t1", "redis").arg(&typo).run();
    assert_eq!(ran.code, 5, "{}", ran.stderr);
    assert_eq!(
        ran.stderr,
        format!(
            "aciproj: cannot open the legacy response {}: No such file or directory\n",
            typo.display()
        )
    );
    assert!(!ran.stdout.contains("fragmentaton"), "no path in the JSON");
    let recorded = std::fs::read_to_string(&ledger).unwrap_or_default();
    assert_eq!(recorded, "", "the failed call is not in the ledger");
    let ran = Aci::rag(&ctx.path, "t1", "redis")
        .response("rag/redis-fragmentation-snake.json")
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(std::fs::read_to_string(&ledger).unwrap().lines().count(), 1);
}

/// Seed 004 "Harness evaluates duplicate scope".
#[test]
fn harness_evaluates_duplicate_scope() {
    let ctx = context_with(json!({"ledger": "run.ledger.jsonl"}));
    let first = Aci::rag(&ctx.path, "call_a", "redis 内存碎片")
        .args(["--view", "harness"])
        .response("rag/redis-fragmentation-snake.json")
        .run();
    let a = first.json();
    assert_eq!(a["duplicate_of"], Value::Null);
    let second = Aci::rag(&ctx.path, "call_b", "  Redis   内存碎片 ")
        .args(["--view", "harness"])
        .response("rag/redis-fragmentation-snake.json")
        .run();
    let b = second.json();
    assert_eq!(b["scope"]["query"], "redis 内存碎片");
    assert_eq!(b["scope_fingerprint"], a["scope_fingerprint"]);
    assert_eq!(b["duplicate_of"], "call_a");
    // The model never sees the fingerprint or the duplicate identity.
    let third = Aci::rag(&ctx.path, "call_c", "REDIS 内存碎片")
        .args(["--view", "model"])
        .response("rag/redis-fragmentation-snake.json")
        .run();
    let fingerprint = a["scope_fingerprint"].as_str().unwrap();
    assert!(!third.stdout.contains(fingerprint));
    assert!(!third.stdout.contains("call_a") && !third.stdout.contains("duplicate"));
    // With duplicate_scope=reject the repeat is refused.
    let ctx = context_with(json!({"ledger": "l.jsonl", "duplicate_scope": "reject"}));
    assert_eq!(
        Aci::rag(&ctx.path, "call_a", "kafka lag")
            .response("rag/duplicates.json")
            .run()
            .code,
        0
    );
    let again = Aci::rag(&ctx.path, "call_b", "Kafka  LAG")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(again.code, 3);
    assert_eq!(again.error_code(), "DUPLICATE_SCOPE");
}

#[test]
fn budget_counts_prior_calls_and_ledger() {
    // prior-calls.json allows 3 calls and already lists 2 (one of another tool).
    let dir = tempfile::tempdir().unwrap();
    let mut ctx: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("contexts/prior-calls.json")).unwrap(),
    )
    .unwrap();
    ctx["ledger"] = json!("l.jsonl");
    let path = dir.path().join("ctx.json");
    std::fs::write(&path, ctx.to_string()).unwrap();
    let ok = Aci::rag(&path, "call_3", "mysql")
        .args(["--view", "harness"])
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    let budget = &ok.json()["budget"];
    assert_eq!(budget["tool_calls_used"], 3);
    assert_eq!(budget["tool_calls_left"], 0);
    let spent = Aci::rag(&path, "call_4", "redis")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(spent.error_code(), "BUDGET_EXHAUSTED");
}

#[test]
fn observation_budget_caps_the_total_bound() {
    // 2000 bytes left: the 6.7 KB result is cut to fit, and says so.
    let ctx =
        context_with(json!({"budget": {"max_tool_calls": 20, "max_observation_bytes": 2000}}));
    let ran = Aci::rag(&ctx.path, "c", "jvm")
        .args(["--view", "harness"])
        .response("rag/oversized.json")
        .run();
    let h = ran.json();
    assert!(h["result_bytes"].as_u64().unwrap() <= 2000);
    assert!(h["observation_bytes"].as_u64().unwrap() <= 2000);
    assert_eq!(h["truncated"], true);
    assert!(h["truncation"]["total"]["items"].as_u64().unwrap() >= 1);
}

#[test]
fn invalid_contexts_exit_5_naming_the_field() {
    let cases = [
        (
            r#"{"run_id":"r","status":"ACTIVE","now":"2026-11-29T10:00:00Z","budgt":{}}"#,
            "`budgt`",
        ),
        (
            r#"{"run_id":"r","status":"ACTIVE","now":"2026-11-29T10:00:00Z","limits":{"rag":{"max_evidense":1}}}"#,
            "`limits.rag.max_evidense`",
        ),
        (
            r#"{"run_id":"r","status":"ACTIVE","now":"yesterday"}"#,
            "`now`",
        ),
        (
            r#"{"run_id":"r","status":"PAUSED","now":"2026-11-29T10:00:00Z"}"#,
            "`status`",
        ),
        (
            r#"{"run_id":"r","status":"ACTIVE","now":"2026-11-29T10:00:00Z","timezone":"Mars/Base"}"#,
            "`timezone`",
        ),
        (
            r#"{"run_id":"r","status":"ACTIVE","now":"2026-11-29T10:00:00Z","limits":{"rag":{"max_total_bytes":10}}}"#,
            "`limits.rag.max_total_bytes`",
        ),
        (r#"{"run_id":"r","status":"ACTIVE""#, "not valid JSON"),
    ];
    for (text, needle) in cases {
        let ctx = raw_context(text);
        let ran = Aci::rag(&ctx.path, "c", "q").arg(MISSING_RESPONSE).run();
        assert_eq!(ran.code, 5, "{text}");
        let v = ran.json();
        assert_eq!(v["error"]["stage"], "input");
        assert_eq!(v["error"]["code"], "INVALID_CONTEXT");
        assert!(
            v["error"]["message"].as_str().unwrap().contains(needle),
            "{needle}: {}",
            v["error"]["message"]
        );
    }
    // A directory, and a missing file.
    let dir = tempfile::tempdir().unwrap();
    for path in [dir.path().to_owned(), dir.path().join("absent.json")] {
        let ran = Aci::rag(&path, "c", "q").arg(MISSING_RESPONSE).run();
        assert_eq!(ran.code, 5);
        assert_eq!(ran.error_code(), "INVALID_CONTEXT");
    }
}

#[test]
fn context_values_are_never_echoed() {
    let ctx = raw_context(
        r#"{"run_id":"r","status":"ACTIVE","now":"2026-11-29T10:00:00Z","owner":{"password":"hunter2"}}"#,
    );
    let ran = Aci::rag(&ctx.path, "c", "q").arg(MISSING_RESPONSE).run();
    assert_eq!(ran.code, 5);
    assert!(!ran.stdout.contains("hunter2") && !ran.stderr.contains("hunter2"));
}

#[test]
fn unwritable_ledger_is_an_input_error_and_never_ready() {
    let ctx = context_with(json!({"ledger": "no/such/dir/l.jsonl"}));
    let ran = Aci::rag(&ctx.path, "c", "q")
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.error_code(), "LEDGER_UNAVAILABLE");
    assert!(!ran.stdout.contains("READY"));
}
