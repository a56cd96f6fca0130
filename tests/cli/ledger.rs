//! The canonical ledger under concurrency and crashes, and its hash chain (SPEC §6).

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::common::{Aci, MISSING_RESPONSE, Ran, TempContext, context_with, fixture};

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
    race_heads(ctx, n, call_id)
        .into_iter()
        .map(|(c, _)| c)
        .collect()
}

/// [`race`], also returning the `ledger_head` each process handed its harness.
fn race_heads(
    ctx: &TempContext,
    n: usize,
    call_id: impl Fn(usize) -> String,
) -> Vec<(i32, Option<String>)> {
    let bin = assert_cmd::cargo::cargo_bin("aciproj");
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(&bin)
                .args(["rag", "--view", "harness", "--context"])
                .arg(&ctx.path)
                .args(["--call-id", &call_id(i), "--query", &format!("query {i}")])
                .arg(fixture("rag/redis-fragmentation-snake.json"))
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            let view: Value = serde_json::from_slice(&out.stdout).unwrap();
            let head = view["ledger_head"].as_str().map(str::to_owned);
            (out.status.code().unwrap(), head)
        })
        .collect()
}

/// The ledger's chain verifies through the real binary.
fn assert_chain_verifies(ctx: &TempContext, records: usize) {
    let ran = verify(&ledger_path(ctx), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(
        ran.stdout
            .starts_with(&format!("chain intact: {records} record")),
        "{}",
        ran.stdout
    );
}

#[test]
fn twenty_four_concurrent_appenders_build_one_chain() {
    let ctx = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 100}}));
    let ran = race_heads(&ctx, 24, |i| format!("call_{i}"));
    assert!(ran.iter().all(|(c, _)| *c == 0), "{ran:?}");
    assert_chain_verifies(&ctx, 24);
    // Every process was handed the hash of its own line, and each line is someone's head.
    let mut heads: Vec<String> = ran.into_iter().filter_map(|(_, h)| h).collect();
    let mut hashes: Vec<String> = ledger_lines(&ctx).iter().map(|l| sha256(l)).collect();
    heads.sort();
    hashes.sort();
    assert_eq!(heads, hashes);
}

#[test]
fn concurrent_calls_with_one_id_admit_exactly_one() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    let codes = race(&ctx, 24, |_| "call_same".to_owned());
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 1, "{codes:?}");
    assert_eq!(codes.iter().filter(|c| **c == 3).count(), 23, "{codes:?}");
    let recs = records(&ctx);
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["tool_call_id"], "call_same");
    assert_chain_verifies(&ctx, 1);
}

#[test]
fn concurrent_calls_never_exceed_the_call_budget() {
    let ctx = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 5}}));
    let codes = race(&ctx, 24, |i| format!("call_{i}"));
    assert_eq!(codes.iter().filter(|c| **c == 0).count(), 5, "{codes:?}");
    assert_chain_verifies(&ctx, 5);
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
    assert_chain_verifies(&ctx, admitted);
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

fn ledger_path(ctx: &TempContext) -> std::path::PathBuf {
    ctx.dir.path().join("l.jsonl")
}

/// `aciproj ledger verify PATH [extra...]`.
fn verify(path: &std::path::Path, extra: &[&str]) -> Ran {
    Aci::new(["ledger", "verify"]).arg(path).args(extra).run()
}

/// SHA-256 of a ledger line, as the chain links it.
fn sha256(line: &str) -> String {
    aciproj::boundary::chain::line_hash(line.as_bytes())
}

/// A context with a ledger holding `n` admitted calls (`call_1`..), and the heads each call
/// handed the harness.
fn run_of(n: usize) -> (TempContext, Vec<String>) {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    let heads = (1..=n)
        .map(|i| {
            let ran = Aci::rag(&ctx.path, &format!("call_{i}"), &format!("query {i}"))
                .response("rag/duplicates.json")
                .args(["--view", "harness"])
                .run();
            assert_eq!(ran.code, 0, "{}", ran.stdout);
            ran.json()["ledger_head"].as_str().unwrap().to_owned()
        })
        .collect();
    (ctx, heads)
}

fn ledger_lines(ctx: &TempContext) -> Vec<String> {
    std::fs::read_to_string(ledger_path(ctx))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Writes `lines` as a ledger of its own and verifies it.
fn verify_lines(ctx: &TempContext, lines: &[String]) -> Ran {
    let path = ctx.dir.path().join("tampered.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    verify(&path, &[])
}

/// Asserts the chain is broken and the report names `needles`.
fn assert_broken(ran: &Ran, needles: &[&str]) {
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.starts_with("chain broken: "), "{}", ran.stdout);
    for needle in needles {
        assert!(ran.stdout.contains(needle), "{needle}: {}", ran.stdout);
    }
}

#[test]
fn every_record_links_to_the_line_before_and_the_head_goes_to_the_harness() {
    let (ctx, heads) = run_of(3);
    let lines = ledger_lines(&ctx);
    let prev: Vec<String> = records(&ctx)
        .iter()
        .map(|r| r["prev_sha256"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(prev[0], "0".repeat(64));
    assert_eq!(prev[1], sha256(&lines[0]));
    assert_eq!(prev[2], sha256(&lines[1]));
    let hashes: Vec<String> = lines.iter().map(|l| sha256(l)).collect();
    assert_eq!(
        heads, hashes,
        "ledger_head is the hash of the line just appended"
    );
    let ran = verify(&ledger_path(&ctx), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(
        ran.stdout,
        format!("chain intact: 3 records, head {}\n", heads[2])
    );
    // MCP: the head travels in _meta, never in what the model reads.
    let mcp = Aci::rag(&ctx.path, "call_4", "query 4")
        .response("rag/duplicates.json")
        .args(["--format", "mcp"])
        .run()
        .json();
    let head = &mcp["_meta"]["aciproj/control"]["ledger_head"];
    assert_eq!(head, &Value::from(sha256(&ledger_lines(&ctx)[3])));
    assert!(!mcp["structuredContent"].to_string().contains("ledger_head"));
    let text = mcp["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains(head.as_str().unwrap()));
    let model = Aci::rag(&ctx.path, "call_5", "query 5")
        .response("rag/duplicates.json")
        .args(["--view", "model"])
        .run();
    assert!(!model.stdout.contains("ledger_head"));
    assert!(!model.stdout.contains(&sha256(&ledger_lines(&ctx)[4])));
    // Without a ledger file there is no head, and the harness view is as before.
    let none = context_with(json!({}));
    let harness = Aci::rag(&none.path, "call_1", "q")
        .response("rag/duplicates.json")
        .args(["--view", "harness"])
        .run()
        .json();
    assert!(harness.get("ledger_head").is_none(), "{harness}");
}

#[test]
fn an_edited_record_is_named() {
    let (ctx, _) = run_of(4);
    let mut lines = ledger_lines(&ctx);
    lines[1] = lines[1].replace("\"returned_count\":3", "\"returned_count\":1");
    assert_ne!(
        lines[1],
        ledger_lines(&ctx)[1],
        "the edit changed something"
    );
    assert_broken(
        &verify_lines(&ctx, &lines),
        &["line 3 does not follow line 2", "line 2 was edited"],
    );
}

#[test]
fn a_deleted_record_is_named() {
    let (ctx, _) = run_of(4);
    let mut lines = ledger_lines(&ctx);
    lines.remove(2);
    assert_broken(
        &verify_lines(&ctx, &lines),
        &[
            "line 3 does not follow line 2",
            "records between them were deleted",
        ],
    );
    // The first record deleted: the file no longer starts the chain.
    let mut lines = ledger_lines(&ctx);
    lines.remove(0);
    assert_broken(
        &verify_lines(&ctx, &lines),
        &["line 1 does not start the chain: records before it were deleted"],
    );
}

#[test]
fn an_inserted_record_is_named() {
    let (ctx, _) = run_of(3);
    let lines = ledger_lines(&ctx);
    // A forger who links the new record to the one before it still breaks the next link.
    let mut forged: Value = serde_json::from_str(&lines[1]).unwrap();
    forged["tool_call_id"] = json!("call_forged");
    forged["prev_sha256"] = json!(sha256(&lines[1]));
    let inserted = [
        lines[0].clone(),
        lines[1].clone(),
        forged.to_string(),
        lines[2].clone(),
    ];
    assert_broken(&verify_lines(&ctx, &inserted), &["line 3 was inserted"]);
    // A record copied as it is: one of the two identical lines was inserted.
    let copied = [
        lines[0].clone(),
        lines[1].clone(),
        lines[1].clone(),
        lines[2].clone(),
    ];
    assert_broken(&verify_lines(&ctx, &copied), &["line 2 was inserted"]);
}

#[test]
fn reordered_records_are_named() {
    let (ctx, _) = run_of(4);
    let mut lines = ledger_lines(&ctx);
    lines.swap(1, 2);
    assert_broken(
        &verify_lines(&ctx, &lines),
        &["line 2 is out of order: it was written right after line 3"],
    );
}

#[test]
fn a_torn_last_line_is_a_crash_artefact_and_the_next_call_continues_the_chain() {
    let (ctx, heads) = run_of(2);
    let path = ledger_path(&ctx);
    let mut torn = std::fs::read(&path).unwrap();
    let fragment = br#"{"run_id":"run-20261129-0042","tool_call_id":"call_3","to"#;
    torn.extend_from_slice(fragment);
    std::fs::write(&path, &torn).unwrap();
    let ran = verify(&path, &["--head", &heads[1]]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(
        ran.stdout,
        format!(
            "chain intact: 2 records, head {}\nnote: line 3 is torn ({} bytes, no newline): a \
             crash artefact, not part of the chain; the next call cuts it off\n--head: head found \
             at line 2; 0 records follow it\n",
            heads[1],
            fragment.len()
        )
    );
    admit(&ctx, "call_3", "c");
    assert_eq!(ledger_lines(&ctx).len(), 3);
    assert_eq!(records(&ctx)[2]["prev_sha256"], json!(heads[1]));
    let ran = verify(&path, &["--head", &heads[0]]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("head found at line 1; 2 records follow it")
    );
}

#[test]
fn head_catches_records_cut_off_the_end() {
    let (ctx, heads) = run_of(4);
    let path = ledger_path(&ctx);
    let lines = ledger_lines(&ctx);
    // Cut after the harness saw the fourth head: what is left still chains ...
    let ran = verify_lines(&ctx, &lines[..2]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    // ... but the head it was handed is gone.
    let tampered = ctx.dir.path().join("tampered.jsonl");
    let ran = verify(&tampered, &["--head", &heads[3]]);
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(
        ran.stdout.contains("--head: head not in the chain"),
        "{}",
        ran.stdout
    );
    // On the whole ledger the same head is found; upper case is accepted; a malformed head is
    // a usage error.
    let ran = verify(&path, &["--head", &heads[3].to_uppercase()]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(
        ran.stdout
            .contains("head found at line 4; 0 records follow it")
    );
    assert_eq!(verify(&path, &["--head", "abc"]).code, 2);
}

#[test]
fn an_unreadable_ledger_exits_5_naming_the_path_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone.jsonl");
    let ran = verify(&missing, &[]);
    assert_eq!(ran.code, 5);
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
    let ran = verify(dir.path(), &[]);
    assert_eq!(ran.code, 5, "a folder: {}", ran.stderr);
    // Standard input works like a file.
    let (ctx, heads) = run_of(1);
    let ran = Aci::new(["ledger", "verify", "-", "--head", &heads[0]])
        .stdin(std::fs::read(ledger_path(&ctx)).unwrap())
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(ran.stdout.contains("chain intact: 1 record, head"));
}
