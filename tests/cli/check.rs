//! `aciproj check`: fixture cases run in-process, diffs, `--update`, and cases that cannot be read.

use std::path::Path;

use serde_json::{Value, json};

use crate::common::{Aci, Ran, root};

const RUN: &str = "run-20261129-0042";

fn context() -> Value {
    json!({"run_id": RUN, "status": "ACTIVE", "authorized_tools": ["rag"],
           "now": "2026-11-29T10:00:00+08:00"})
}

fn response() -> Value {
    json!({"success": true, "contextPack": {"blocks": [
        {"documentId": "kb-1", "source": "runbooks/a.md", "title": "A", "excerpt": "执行 MEMORY PURGE",
         "score": 0.93}
    ]}})
}

/// The envelope `aciproj rag` prints for `response()` and query "q".
fn ready_output(call_id: &str) -> Value {
    json!({"status": "READY", "tool": "rag", "run_id": RUN, "tool_call_id": call_id,
        "result": {"evidence_status": "EVIDENCE", "tool_call_id": call_id, "query": "q",
            "evidence": [{"document_id": "kb-1", "source": "runbooks/a.md", "title": "A",
                "breadcrumb": "", "excerpt": "执行 MEMORY PURGE"}],
            "returned_count": 1, "truncated": false}})
}

fn case(call_id: &str, expect: Value) -> Value {
    json!({"name": format!("case {call_id}"), "tool": "rag",
        "request": {"call_id": call_id, "query": "q"},
        "context": context(), "response": response(), "expect": expect})
}

fn write(dir: &Path, name: &str, value: &Value) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_string_pretty(value).unwrap()).unwrap();
    path
}

fn check_in(dir: &Path, args: &[&str]) -> Ran {
    Aci::new(["check"]).args(args).current_dir(dir).run()
}

fn last_line(ran: &Ran) -> &str {
    ran.stdout.lines().last().unwrap_or_default()
}

#[test]
fn repository_cases_all_pass() {
    let ran = Aci::new(["check", "fixtures/**/*.case.json"]).run();
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    let summary = last_line(&ran);
    let passed: usize = summary
        .strip_suffix(" passed, 0 failed")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("summary line: {summary:?}"));
    // 42 RAG cases and 42 logs cases: a glob that lost a folder would show here.
    assert!(passed >= 84, "{passed} cases");
    // The default pattern is the same set.
    let default = Aci::new(["check"]).run();
    assert_eq!(last_line(&default), summary);
}

#[test]
fn a_failing_case_shows_json_pointer_differences_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let mut expected = ready_output("call_1");
    expected["result"]["returned_count"] = json!(4);
    expected["result"]["evidence"][0]["excerpt"] = json!("别的摘录");
    expected["result"]["relevance_level"] = json!("HIGH");
    write(
        dir.path(),
        "wrong.case.json",
        &case("call_1", json!({"exit_code": 0, "output": expected})),
    );
    write(
        dir.path(),
        "right.case.json",
        &case(
            "call_2",
            json!({"exit_code": 0, "output": ready_output("call_2")}),
        ),
    );
    let ran = check_in(dir.path(), &["*.case.json"]);
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    let out = &ran.stdout;
    assert!(out.contains("ok   right.case.json — case call_2"), "{out}");
    assert!(out.contains("FAIL wrong.case.json — case call_1"), "{out}");
    for line in [
        "/result/evidence/0/excerpt: expected \"别的摘录\", actual \"执行 MEMORY PURGE\"",
        "/result/returned_count: expected 4, actual 1",
        "/result/relevance_level: missing, expected \"HIGH\"",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert_eq!(last_line(&ran), "1 passed, 1 failed");
}

#[test]
fn exit_code_and_must_not_contain_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.case.json",
        &case(
            "call_1",
            json!({"exit_code": 3, "must_not_contain": ["MEMORY PURGE", "score"]}),
        ),
    );
    let ran = check_in(dir.path(), &["a.case.json"]);
    assert_eq!(ran.code, 1);
    assert!(ran.stdout.contains("exit code: expected 3, actual 0"));
    assert!(
        ran.stdout
            .contains("must_not_contain: the output contains \"MEMORY PURGE\"")
    );
    assert!(
        !ran.stdout.contains("contains \"score\""),
        "scores never reach the output"
    );
}

#[test]
fn update_rewrites_only_expect_output_keeping_field_order() {
    let dir = tempfile::tempdir().unwrap();
    // Fields in an unusual order, with output missing.
    let text = format!(
        "{{\"expect\": {{\"must_not_contain\": [\"score\"], \"exit_code\": 0}},\n \"tool\": \"rag\", \"name\": \"n\",\n \"response\": {},\n \"request\": {{\"query\": \"q\", \"call_id\": \"call_1\"}},\n \"context\": {}}}",
        response(),
        context()
    );
    let path = dir.path().join("u.case.json");
    std::fs::write(&path, text).unwrap();
    let ran = check_in(dir.path(), &["--update", "u.case.json"]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(ran.stdout.contains("updated u.case.json"));
    let updated: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let keys: Vec<_> = updated.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["expect", "tool", "name", "response", "request", "context"]
    );
    let expect_keys: Vec<_> = updated["expect"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(expect_keys, ["must_not_contain", "exit_code", "output"]);
    assert_eq!(updated["expect"]["output"], ready_output("call_1"));
    assert_eq!(
        updated["request"],
        json!({"query": "q", "call_id": "call_1"})
    );
    // Now it passes, and a second update leaves the file byte for byte as it is.
    let before = std::fs::read(&path).unwrap();
    let again = check_in(dir.path(), &["--update", "u.case.json"]);
    assert_eq!(again.code, 0);
    assert!(!again.stdout.contains("updated"));
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // Without --update a wrong output is reported, not rewritten.
    let mut wrong = updated.clone();
    wrong["expect"]["output"]["status"] = json!("ERROR");
    std::fs::write(&path, serde_json::to_string(&wrong).unwrap()).unwrap();
    let ran = check_in(dir.path(), &["u.case.json"]);
    assert_eq!(ran.code, 1);
    assert!(
        ran.stdout
            .contains("/status: expected \"ERROR\", actual \"READY\"")
    );
}

#[test]
fn update_does_not_hide_a_wrong_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "x.case.json",
        &case("call_1", json!({"exit_code": 4})),
    );
    let ran = check_in(dir.path(), &["--update", "x.case.json"]);
    assert_eq!(ran.code, 1);
    assert!(ran.stdout.contains("exit code: expected 4, actual 0"));
}

#[test]
fn unreadable_case_files_fail_cleanly_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder.case.json")).unwrap();
    std::fs::write(d.join("broken.case.json"), "{\"name\": \"x\", ").unwrap();
    std::fs::write(d.join("typo.case.json"), {
        let mut c = case("c", json!({"exit_code": 0}));
        c["expekt"] = json!({});
        c.to_string()
    })
    .unwrap();
    std::fs::write(d.join("both.case.json"), {
        let mut c = case("c", json!({"exit_code": 0}));
        c["context_file"] = json!("ctx.json");
        c.to_string()
    })
    .unwrap();
    let ran = check_in(d, &["*.case.json", "nowhere/**/*.case.json"]);
    assert_eq!(ran.code, 1, "no panic: {}", ran.stderr);
    let out = &ran.stdout;
    for needle in [
        "FAIL no case file matches the pattern \"nowhere/**/*.case.json\"",
        "FAIL both.case.json — case c",
        "give exactly one of `context_file` and `context`",
        "FAIL broken.case.json",
        "not a valid case: document is not valid JSON (line 1, column 14)",
        "FAIL folder.case.json",
        "cannot read the case file",
        "FAIL typo.case.json",
        "not a valid case: unknown field `expekt`",
    ] {
        assert!(out.contains(needle), "{needle}\n{out}");
    }
    assert_eq!(last_line(&ran), "0 passed, 5 failed");
}

#[test]
fn unknown_request_fields_fail_the_call_not_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = case(
        "call_1",
        json!({"exit_code": 3, "output": {"status": "ERROR", "tool": "rag", "run_id": RUN,
            "tool_call_id": "call_1", "error": {"stage": "preflight", "code": "INVALID_REQUEST",
            "message": "unknown request field `top_k`"}}}),
    );
    c["request"]["top_k"] = json!(5);
    write(dir.path(), "u.case.json", &c);
    let ran = check_in(dir.path(), &["u.case.json"]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
}

#[test]
fn each_case_has_its_own_in_memory_ledger() {
    let dir = tempfile::tempdir().unwrap();
    // Two cases with the same call id against a context that names a ledger file: neither sees
    // the other, and the ledger file is never created.
    for name in ["a.case.json", "b.case.json"] {
        let mut c = case(
            "call_same",
            json!({"exit_code": 0, "output": ready_output("call_same")}),
        );
        c["context"]["ledger"] = json!("run.ledger.jsonl");
        write(dir.path(), name, &c);
    }
    let ran = check_in(dir.path(), &["*.case.json"]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert_eq!(last_line(&ran), "2 passed, 0 failed");
    assert!(!dir.path().join("run.ledger.jsonl").exists());
}

#[test]
fn cases_run_in_sorted_order_with_paths_relative_to_the_case_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("z/deeper")).unwrap();
    std::fs::create_dir_all(d.join("a")).unwrap();
    std::fs::write(
        d.join("ctx.json"),
        serde_json::to_string(&context()).unwrap(),
    )
    .unwrap();
    std::fs::write(
        d.join("resp.json"),
        serde_json::to_string(&response()).unwrap(),
    )
    .unwrap();
    let mut deep = case(
        "call_deep",
        json!({"exit_code": 0, "output": ready_output("call_deep")}),
    );
    deep.as_object_mut().unwrap().remove("context");
    deep.as_object_mut().unwrap().remove("response");
    deep["context_file"] = json!("../../ctx.json");
    deep["response_file"] = json!("../../resp.json");
    write(&d.join("z/deeper"), "deep.case.json", &deep);
    write(
        &d.join("a"),
        "first.case.json",
        &case("call_a", json!({"exit_code": 0})),
    );
    let ran = check_in(d, &["**/*.case.json"]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    let lines: Vec<_> = ran.stdout.lines().collect();
    assert!(lines[0].starts_with("ok   a/first.case.json"), "{lines:?}");
    assert!(
        lines[1].starts_with("ok   z/deeper/deep.case.json"),
        "{lines:?}"
    );
}

#[test]
fn check_runs_from_any_folder_with_an_absolute_pattern() {
    let pattern = format!(
        "{}/fixtures/cases/rag/rejects-*.case.json",
        root().display()
    );
    let dir = tempfile::tempdir().unwrap();
    let ran = check_in(dir.path(), &[&pattern]);
    assert_eq!(ran.code, 0, "{}", ran.stdout);
    assert!(last_line(&ran).ends_with(" passed, 0 failed"));
}

#[test]
fn a_failing_case_shows_what_the_call_gave() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = case("call_1", json!({"exit_code": 0}));
    c["context"]["status"] = json!("COMPLETED");
    write(dir.path(), "n.case.json", &c);
    let ran = check_in(dir.path(), &["n.case.json"]);
    assert_eq!(ran.code, 1);
    let out = &ran.stdout;
    assert!(out.contains("exit code: expected 0, actual 3"), "{out}");
    assert!(
        out.contains(
            "the call gave: status ERROR, code RUN_NOT_ACTIVE, \
             message \"the run is not active\""
        ),
        "{out}"
    );
    // A case whose context file is missing says which file and why.
    let mut c = case("call_2", json!({"exit_code": 0}));
    c.as_object_mut().unwrap().remove("context");
    c["context_file"] = json!("nope.json");
    write(dir.path(), "m.case.json", &c);
    let ran = check_in(dir.path(), &["m.case.json"]);
    assert!(
        ran.stdout.contains(
            "code INVALID_CONTEXT, message \"the run context file cannot be read\" \
             (cannot read the run context nope.json: No such file or directory)"
        ),
        "{}",
        ran.stdout
    );
}

/// Reads a JUnit file with junitparser, a JUnit consumer CI tools use, and prints each testcase
/// as `name<TAB>classname<TAB>message<TAB>text` (the failure's; empty when it passed).
const READ_JUNIT: &str = "\
import sys
from junitparser import JUnitXml
xml = JUnitXml.fromfile(sys.argv[1])
for suite in xml:
    for case in suite:
        failure = next(iter(case.result), None)
        fields = [case.name, case.classname,
                  failure.message if failure is not None else '',
                  (failure.text or '') if failure is not None else '']
        print('\\t'.join(f.replace('\\n', '\\\\n') for f in fields))
";

#[test]
fn junit_has_one_testcase_per_case_and_the_diff_in_its_failure() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.case.json",
        &case("c1", json!({"exit_code": 0, "output": ready_output("c1")})),
    );
    let mut failing = case("c2", json!({"exit_code": 0, "output": ready_output("cX")}));
    failing["name"] = json!("rag: <b>&\"quoted\"</b> ]]> 'name'");
    write(dir.path(), "b.case.json", &failing);
    let junit = dir.path().join("check.junit.xml");
    let pattern = format!("{}/*.case.json", dir.path().display());
    let ran = Aci::new(["check", &pattern, "--junit"]).arg(&junit).run();
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    // The usual text report is unchanged by --junit.
    assert_eq!(last_line(&ran), "1 passed, 1 failed");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    assert!(xml.contains("tests=\"2\" failures=\"1\""), "{xml}");
    assert!(!xml.contains("time="), "no wall clock in the file: {xml}");
    // Same cases, same bytes.
    Aci::new(["check", &pattern, "--junit"]).arg(&junit).run();
    assert_eq!(std::fs::read_to_string(&junit).unwrap(), xml);
    let Some(read) = crate::common::python_with("junitparser", READ_JUNIT, &[&junit]) else {
        return;
    };
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let text = String::from_utf8(read.stdout).unwrap();
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][0], "case c1");
    assert_eq!(rows[0][2], "", "a passing case has no failure");
    assert!(rows[0][1].ends_with("a.case.json"));
    assert_eq!(rows[1][0], "rag: <b>&\"quoted\"</b> ]]> 'name'");
    assert!(
        rows[1][2].ends_with("tool_call_id: expected \"cX\", actual \"c2\""),
        "{text}"
    );
    // The failure's text is the diff check printed, line for line.
    let printed: Vec<&str> = ran
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("FAIL"))
        .skip(1)
        .take_while(|l| l.starts_with("       "))
        .map(str::trim)
        .collect();
    assert_eq!(rows[1][3], printed.join("\\n"));
}

#[test]
fn an_unwritable_junit_file_is_exit_5_naming_it() {
    let ran = Aci::new([
        "check",
        "fixtures/cases/rag/duplicate-documents.case.json",
        "--junit",
        "/nonexistent/aciproj/check.xml",
    ])
    .run();
    assert_eq!(ran.code, 5, "{}", ran.stderr);
    assert!(ran.stderr.contains(
        "aciproj: check: cannot write the JUnit file /nonexistent/aciproj/check.xml: No such file or directory"
    ), "{}", ran.stderr);
    assert_eq!(last_line(&ran), "1 passed, 0 failed");
}
