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

/// Runs `aciproj rag` against `ctx` and returns its exit code, stdout and stderr, failing the
/// test if it has not finished within ten seconds (a FIFO waited on, a device read on).
fn rag_within_seconds(ctx: &TempContext, call_id: &str) -> (i32, String, String) {
    use std::io::Read;
    let bin = assert_cmd::cargo::cargo_bin("aciproj");
    let mut child = Command::new(&bin)
        .args(["rag", "--context"])
        .arg(&ctx.path)
        .args(["--call-id", call_id, "--query", "q"])
        .arg(fixture("rag/duplicates.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("aciproj did not finish within 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let (mut out, mut err) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.code().unwrap_or(-1), out, err)
}

#[test]
fn a_ledger_that_is_not_a_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("ledger.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let folder = dir.path().join("ledger.d");
    std::fs::create_dir(&folder).unwrap();
    for (path, reason) in [
        (std::path::PathBuf::from("/dev/full"), "a character device"),
        (std::path::PathBuf::from("/dev/zero"), "a character device"),
        (fifo.clone(), "a FIFO"),
        (folder.clone(), "a directory"),
    ] {
        let ctx = context_with(json!({"ledger": path}));
        let (code, stdout, stderr) = rag_within_seconds(&ctx, "call_1");
        assert_eq!(code, 5, "{}: {stdout}{stderr}", path.display());
        let out: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(out["error"]["code"], "LEDGER_UNAVAILABLE", "{out}");
        assert!(
            stderr.contains(&path.display().to_string()) && stderr.contains(reason),
            "{}: {stderr}",
            path.display()
        );
        assert!(!stdout.contains(&path.display().to_string()), "{stdout}");
    }
    // Nothing recorded, nothing made beside them.
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_line_over_one_mib_is_a_corrupt_ledger_naming_it() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    admit(&ctx, "call_1", "a");
    let path = ledger_path(&ctx);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend(std::iter::repeat_n(b' ', (1 << 20) + 10));
    bytes.extend_from_slice(b"x\n");
    std::fs::write(&path, &bytes).unwrap();
    let ran = Aci::rag(&ctx.path, "call_2", "b")
        .response("rag/duplicates.json")
        .run();
    assert_eq!(ran.code, 5, "{}", ran.stdout);
    assert_eq!(ran.error_code(), "LEDGER_CORRUPT");
    assert!(
        ran.stdout.contains("line 2 is longer than 1 MiB"),
        "{}",
        ran.stdout
    );
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "left alone");
    // `ledger verify` reads it as a break, not an allocation.
    assert_broken(&verify(&path, &[]), &["line 2 is longer than 1 MiB"]);
}

/// The index beside the ledger.
fn index_dir(ctx: &TempContext) -> std::path::PathBuf {
    ctx.dir.path().join("l.jsonl.index")
}

/// Damages the index in one of the ways a crash, a backup or a hand might.
fn damage_index(ctx: &TempContext, how: usize) {
    let dir = index_dir(ctx);
    let bucket = || {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with('b'))
            .expect("a bucket file")
    };
    match how {
        0 => std::fs::remove_dir_all(&dir).unwrap(),
        1 => std::fs::remove_file(bucket()).unwrap(),
        2 => std::fs::write(bucket(), b"").unwrap(),
        3 => {
            // Same length, other bytes.
            let b = bucket();
            let len = std::fs::metadata(&b).unwrap().len() as usize;
            std::fs::write(&b, vec![b'x'; len]).unwrap();
        }
        4 => std::fs::write(dir.join("head"), b"{not json").unwrap(),
        _ => {
            // An index from another ledger: a fresh run's, copied over.
            let other = context_with(json!({"ledger": "l.jsonl"}));
            admit(&other, "call_other", "x");
            std::fs::copy(index_dir(&other).join("head"), dir.join("head")).unwrap();
        }
    }
}

#[test]
fn a_deleted_or_damaged_index_never_admits_a_duplicate_nor_exceeds_the_budget() {
    for how in 0..6 {
        let ctx = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 3}}));
        admit(&ctx, "call_1", "a");
        admit(&ctx, "call_2", "b");
        assert!(
            index_dir(&ctx).join("head").is_file(),
            "the index is written"
        );
        damage_index(&ctx, how);
        let dup = Aci::rag(&ctx.path, "call_1", "z")
            .arg(MISSING_RESPONSE)
            .run();
        assert_eq!(dup.error_code(), "DUPLICATE_TOOL_CALL", "damage {how}");
        damage_index(&ctx, how.min(4));
        // The same scope is still known as asked before.
        let harness = Aci::rag(&ctx.path, "call_3", "a")
            .response("rag/duplicates.json")
            .args(["--view", "harness"])
            .run();
        assert_eq!(harness.code, 0, "damage {how}: {}", harness.stdout);
        assert_eq!(harness.json()["duplicate_of"], "call_1", "damage {how}");
        damage_index(&ctx, how.min(4));
        let spent = Aci::rag(&ctx.path, "call_4", "d")
            .arg(MISSING_RESPONSE)
            .run();
        assert_eq!(spent.error_code(), "BUDGET_EXHAUSTED", "damage {how}");
        assert_chain_verifies(&ctx, 3);
    }
}

#[test]
fn records_appended_by_hand_and_a_ledger_restored_from_backup_are_seen() {
    let ctx = context_with(json!({"ledger": "l.jsonl"}));
    admit(&ctx, "call_1", "a");
    let path = ledger_path(&ctx);
    let backup = std::fs::read(&path).unwrap();
    admit(&ctx, "call_2", "b");
    // A record of this run written by another tool, behind the index's back.
    let lines = ledger_lines(&ctx);
    let mut by_hand: Value = serde_json::from_str(&lines[1]).unwrap();
    by_hand["tool_call_id"] = json!("call_by_hand");
    by_hand["prev_sha256"] = json!(sha256(&lines[1]));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(format!("{by_hand}\n").as_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let dup = Aci::rag(&ctx.path, "call_by_hand", "z")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(dup.error_code(), "DUPLICATE_TOOL_CALL");
    admit(&ctx, "call_3", "c");
    assert_chain_verifies(&ctx, 4);
    // The ledger put back as it was after call_1: call_2 is free again, the chain goes on.
    std::fs::write(&path, &backup).unwrap();
    admit(&ctx, "call_2", "b");
    assert_eq!(
        Aci::rag(&ctx.path, "call_3", "c")
            .response("rag/duplicates.json")
            .run()
            .code,
        0,
        "call_3 is not in the restored ledger"
    );
    assert_chain_verifies(&ctx, 3);
}

#[test]
fn a_crash_between_the_append_and_the_index_head_counts_the_call_once() {
    let ctx = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 3}}));
    admit(&ctx, "call_1", "a");
    let head = index_dir(&ctx).join("head");
    let before = std::fs::read(&head).unwrap();
    admit(&ctx, "call_2", "b");
    // As if call_2 died after writing its record and its bucket entry, before its head.
    std::fs::write(&head, &before).unwrap();
    let dup = Aci::rag(&ctx.path, "call_2", "z")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(dup.error_code(), "DUPLICATE_TOOL_CALL");
    let harness = Aci::rag(&ctx.path, "call_3", "c")
        .response("rag/duplicates.json")
        .args(["--view", "harness"])
        .run()
        .json();
    assert_eq!(harness["budget"]["tool_calls_used"], 3, "{harness}");
    let spent: u64 = records(&ctx)
        .iter()
        .map(|r| r["observation_bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(harness["budget"]["observation_bytes_used"], spent);
    let spent = Aci::rag(&ctx.path, "call_4", "d")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(spent.error_code(), "BUDGET_EXHAUSTED");
    assert_chain_verifies(&ctx, 3);
}
