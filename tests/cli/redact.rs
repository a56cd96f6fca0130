//! `aciproj redact` and `aciproj rules`: the catalogue as a filter for any log stream, and the
//! catalogue itself, held to its own examples through the real binary.

use serde_json::{Value, json};

use crate::common::{Aci, timeline_beside_redact};

/// The redaction catalogue as `aciproj rules --json` prints it (the flag rules, listed after
/// it, are held to theirs in `untrusted.rs`).
fn rules() -> Vec<Value> {
    let ran = Aci::new(["rules", "--json"]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran.stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("one JSON object per line"))
        .filter(|r| r["action"] == "redact")
        .collect()
}

#[test]
fn rules_json_lists_the_catalogue_with_examples_and_negatives() {
    let rules = rules();
    assert!(rules.len() >= 30, "{} rules", rules.len());
    let classes: std::collections::BTreeSet<&str> =
        rules.iter().map(|r| r["class"].as_str().unwrap()).collect();
    for class in [
        "secret",
        "token",
        "host",
        "pod",
        "pid",
        "ip",
        "email",
        "sql_literal",
        "stack",
    ] {
        assert!(classes.contains(class), "no rule of class {class}");
    }
    for r in &rules {
        let id = r["id"].as_str().unwrap();
        assert!(
            r["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{id}"
        );
        assert!(
            r["placeholder"]
                .as_str()
                .is_some_and(|p| p.starts_with('<')),
            "{id}"
        );
        assert!(r["examples"].as_array().unwrap().len() >= 2, "{id}");
        assert!(!r["negatives"].as_array().unwrap().is_empty(), "{id}");
    }
}

/// Every example gives exactly its output through `aciproj redact`, and every negative comes
/// out unchanged. Examples that span lines go through `--json` as one JSON string each (the
/// text mode reads one line at a time); one-line examples also go through the text mode.
#[test]
fn every_rule_example_and_negative_holds_through_aciproj_redact() {
    let mut cases: Vec<(String, String, String)> = Vec::new();
    for r in rules() {
        let id = r["id"].as_str().unwrap().to_owned();
        for e in r["examples"].as_array().unwrap() {
            let (i, o) = (e["input"].as_str().unwrap(), e["output"].as_str().unwrap());
            cases.push((id.clone(), i.to_owned(), o.to_owned()));
        }
        for n in r["negatives"].as_array().unwrap() {
            let n = n.as_str().unwrap();
            cases.push((id.clone(), n.to_owned(), n.to_owned()));
        }
    }
    let input: String = cases
        .iter()
        .map(|(_, i, _)| format!("{}\n", Value::String(i.clone())))
        .collect();
    let ran = Aci::new(["redact", "--json"]).stdin(input).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let got: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(got.len(), cases.len());
    for ((id, input, want), line) in cases.iter().zip(&got) {
        let out: String = serde_json::from_str(line).unwrap();
        assert_eq!(&out, want, "{id}: {input:?}");
    }

    let single: Vec<_> = cases.iter().filter(|(_, i, _)| !i.contains('\n')).collect();
    let input: String = single.iter().map(|(_, i, _)| format!("{i}\n")).collect();
    let ran = Aci::new(["redact"]).stdin(input).run();
    let got: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(got.len(), single.len());
    for ((id, input, want), out) in single.iter().zip(&got) {
        assert_eq!(out, want, "{id}: {input:?}");
    }
}

/// For every message, `aciproj redact` gives exactly what the logs timeline shows for it.
#[test]
fn redact_gives_what_the_logs_timeline_gives_for_each_message() {
    let (timeline, lines, n) = timeline_beside_redact(json!({}), &[]);
    assert_eq!(timeline.len(), n, "every message is in the timeline");
    assert_eq!(lines, timeline);
}

#[test]
fn redact_keeps_empty_lines_terminators_and_replaces_invalid_utf8() {
    let ran = Aci::new(["redact"])
        .stdin(&b"x 10.0.0.1\n\n\xff pid=42\r\nlast"[..])
        .run();
    assert_eq!(ran.code, 0);
    assert_eq!(ran.stdout, "x <IP>\n\n\u{fffd} pid=<PID>\r\nlast");
}

#[test]
fn redact_json_redacts_string_values_and_keeps_the_rest() {
    let line = r#"{"level":"error","msg":"db 10.0.0.7 down","token":"abc","n":1.50,"ok":false}"#;
    let ran = Aci::new(["redact", "--json"])
        .stdin(format!("{line}\nplain password=x\n"))
        .run();
    assert_eq!(
        ran.stdout,
        "{\"level\":\"error\",\"msg\":\"db <IP> down\",\"token\":\"<SECRET>\",\"n\":1.50,\"ok\":false}\n\
         plain password=<SECRET>\n"
    );
}

#[test]
fn redact_stats_prints_counts_per_class_and_rule_on_stderr() {
    let ran = Aci::new(["redact", "--stats"])
        .stdin("a 10.0.0.1 10.0.0.2\nb password=x\nclean\n")
        .run();
    assert_eq!(ran.code, 0);
    let stats: Value = serde_json::from_str(ran.stderr.trim()).expect("stats are JSON");
    assert_eq!(stats["lines"], 3);
    assert_eq!(stats["changed"], 2);
    assert_eq!(stats["by_class"], json!({"ip": 2, "secret": 1}));
    assert_eq!(
        stats["by_rule"],
        json!({"credential.assignment": 1, "ip.v4": 2})
    );
    assert!(!ran.stdout.contains("10.0.0.1"));
}

#[test]
fn redact_names_a_file_it_cannot_read() {
    let ran = Aci::new(["redact", "/nonexistent/aciproj/app.log"]).run();
    assert_eq!(ran.code, 5);
    assert!(
        ran.stderr
            .contains("/nonexistent/aciproj/app.log: No such file or directory"),
        "{}",
        ran.stderr
    );
    assert!(ran.stdout.is_empty());
}

#[test]
fn redact_reads_a_file_or_dash() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("app.log");
    std::fs::write(&path, "Authorization: Bearer abcdef123456\n").unwrap();
    let from_file = Aci::new(["redact"]).arg(&path).run();
    assert_eq!(from_file.stdout, "Authorization: Bearer <SECRET>\n");
    let from_dash = Aci::new(["redact", "-"])
        .stdin("Authorization: Bearer abcdef123456\n")
        .run();
    assert_eq!(from_dash.stdout, from_file.stdout);
}
