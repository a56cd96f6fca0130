//! The canonical ledger under concurrency and crashes (SPEC §6).

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::{Aci, MISSING_RESPONSE, TempContext, context_with, fixture};

fn records(ctx: &TempContext) -> Vec<Value> {
    std::fs::read_to_string(ctx.dir.path().join("l.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every ledger line is a whole record"))
        .collect()
}

/// Makes one call that the boundary must admit (exit 0).
fn admit(ctx: &TempContext, call_id: &str, query: &str) {
    let ran = Aci::rag(&ctx.path, call_id, query)
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 0, "{call_id}: {}", ran.stdout);
}

/// Starts `n` real processes at once, each calling `rag` with the given call id, and returns
/// their exit codes.
fn race(ctx: &TempContext, n: usize, call_id: impl Fn(usize) -> String) -> Vec<i32> {
    let bin = assert_cmd::cargo::cargo_bin("aciproj");
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(&bin)
                .args(["rag", "--context"])
                .arg(&ctx.path)
                .args(["--call-id", &call_id(i), "--query", &format!("query {i}")])
                .arg(fixture("rag/redis-fragmentation-snake.json"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap().status.code().unwrap())
        .collect()
}

#[test]
fn concurrent_calls_with_one_id_admit_exactly_one() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    let codes = race(&ctx, 12, |_| "call_same".to_owned());
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 3).count(), 11, "{codes:?}");
    let recs = records(&ctx);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["tool_call_id"], "call_same");
}

#[test]
fn concurrent_calls_never_exceed_the_call_budget() {
    let ctx = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 5}}));
    let codes = race(&ctx, 14, |i| format!("call_{i}"));
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 5, "{codes:?}");
    let recs = records(&ctx);
    assert_eq!(recs.len(), 5);
    let mut ids: Vec<_> = recs
        .iter()
        .map(|r| r["tool_call_id"].as_str().unwrap().to_owned())
        .collect();
    ids.dedup();
    assert_eq!(ids.len(), 5, "no id twice");
}

#[test]
fn concurrent_calls_never_exceed_the_observation_budget() {
    // Each observation of this response is about 800 bytes; 3000 bytes admit a few calls, then
    // a cut one, then none.
    let ctx = context_with(
        json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 100, "max_observation_bytes": 3000}}),
    );
    let codes = race(&ctx, 10, |i| format!("call_{i}"));
    let recs = records(&ctx);
    let admitted = codes.iter().filter(|c| **c == 0).count();
    assert_eq!(admitted, recs.len(), "{codes:?}");
    assert!((3..10).contains(&admitted), "{codes:?}");
    let spent: u64 = recs
        .iter()
        .map(|r| r["observation_bytes"].as_u64().unwrap())
        .sum();
    assert!(spent <= 3000, "observation bytes spent: {spent}");
}

#[test]
fn torn_last_line_is_ignored_and_the_run_continues() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    admit(&ctx, "call_1", "a");
    admit(&ctx, "call_2", "b");
    let path = ctx.dir.path().join("l.jsonl");
    let whole = std::fs::read(&path).unwrap();
    // A crash in the middle of writing the second record.
    let cut = whole.len() - 40;
    std::fs::write(&path, &whole[..cut]).unwrap();
    // The torn call is gone, so its id is free again; the first is still known.
    assert_eq!(
        Aci::rag(&ctx.path, "call_1", "a")
            .arg(MISSING_RESPONSE)
            .run()
            .error_code(),
        "DUPLICATE_TOOL_CALL"
    );
    admit(&ctx, "call_3", "c");
    let ids: Vec<_> = records(&ctx)
        .iter()
        .map(|r| r["tool_call_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        ids,
        ["call_1", "call_3"],
        "the torn line was cut, not glued to the next record"
    );
}

#[test]
fn damaged_middle_line_is_an_input_error_naming_it() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    admit(&ctx, "call_1", "a");
    let path = ctx.dir.path().join("l.jsonl");
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{good}{{garbage\n{good}")).unwrap();
    let before = std::fs::read(&path).unwrap();
    let ran = Aci::rag(&ctx.path, "call_9", "z")
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 5);
    assert_eq!(ran.error_code(), "LEDGER_CORRUPT");
    assert!(
        ran.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 2")
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a corrupt ledger is left alone"
    );
}

#[test]
fn rejected_calls_leave_the_ledger_byte_identical() {
    let ctx = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 1}}));
    admit(&ctx, "call_1", "a");
    let path = ctx.dir.path().join("l.jsonl");
    let before = std::fs::read(&path).unwrap();
    for (id, query) in [("call_1", "a"), ("call_2", "b"), ("call_3", " ")] {
        assert_eq!(
            Aci::rag(&ctx.path, id, query)
                .arg(MISSING_RESPONSE)
                .run()
                .code,
            3
        );
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn legacy_errors_are_admitted_and_recorded() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    let ran = Aci::rag(&ctx.path, "call_bad", "a")
        .response("rag/failure.json")
        .run();
    assert_eq!(ran.code, 4);
    let recs = records(&ctx);
    assert_eq!(recs[0]["status"], "ERROR");
    assert_eq!(recs[0]["stage"], "legacy");
    assert_eq!(recs[0]["code"], "LEGACY_FAILURE");
    assert_eq!(recs[0]["result_sha256"], Value::Null);
}
