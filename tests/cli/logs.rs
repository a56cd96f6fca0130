//! The Mock log projection: seed scenarios and snapshots of every bundled response.

use serde_json::Value;

use crate::common::{Aci, MISSING_RESPONSE, active, fixture};

fn logs(call_id: &str, file: &str) -> Aci {
    Aci::logs(active(), call_id, "application-logs", "payment timeout").response(file)
}

/// Seed 001 "Mock logs are projected".
#[test]
fn mock_logs_are_projected() {
    let ran = logs("call_logs_1", "logs/application-logs.json")
        .args(["--lookback-minutes", "30"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = ran.json();
    let r = &v["result"];
    assert_eq!(r["source_kind"], "MOCK");
    assert_eq!(r["tool_call_id"], "call_logs_1");
    assert_eq!(r["evidence_status"], "EVIDENCE");
    // The logical scope is the request's, not the legacy `query`/`log_topic`.
    assert_eq!(
        r["scope"],
        serde_json::json!({"topic": "application-logs", "query": "payment timeout", "lookback_minutes": 30,
            "window_start": "2026-11-29T09:30:00+08:00", "window_end": "2026-11-29T10:00:00+08:00"})
    );
    // Distinct match and returned counts.
    assert_eq!(r["match_count"], 14);
    assert_eq!(r["returned_count"], r["timeline"].as_array().unwrap().len());
    let patterns = r["patterns"].as_array().unwrap();
    assert!(
        patterns.len() < 14,
        "lines differing in values fold: {}",
        patterns.len()
    );
    let counts: Vec<u64> = patterns
        .iter()
        .map(|p| p["count"].as_u64().unwrap())
        .collect();
    assert!(
        counts.windows(2).all(|w| w[0] >= w[1]),
        "ordered by count: {counts:?}"
    );
    assert_eq!(
        counts.iter().sum::<u64>(),
        14,
        "every entry is in a pattern"
    );
    let order = patterns
        .iter()
        .find(|p| p["pattern"].as_str().unwrap().starts_with("订单创建成功"))
        .unwrap();
    assert_eq!(order["count"], 3);
    assert_eq!(order["services"], serde_json::json!(["order-service"]));
    // The timeline is chronological.
    let stamps: Vec<&str> = r["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["timestamp"].as_str().unwrap())
        .collect();
    let mut sorted = stamps.clone();
    sorted.sort();
    assert_eq!(stamps, sorted);
    assert_eq!(
        stamps.last(),
        Some(&"2026-11-29T09:50:00+08:00"),
        "epoch millis are read in the run's zone"
    );
}

#[test]
fn default_lookback_is_60_minutes_and_shown() {
    let v = logs("c", "logs/empty.json").run().json();
    assert_eq!(v["result"]["scope"]["lookback_minutes"], 60);
    assert_eq!(
        v["result"]["scope"]["window_start"],
        "2026-11-29T09:00:00+08:00"
    );
}

#[test]
fn lookback_outside_range_is_invalid_request() {
    for bad in ["0", "10081", "-5"] {
        let ran = Aci::logs(active(), "c", "t", "q")
            .args(["--lookback-minutes", bad])
            .arg(MISSING_RESPONSE)
            .run();
        assert_eq!(ran.code, 3, "{bad}");
        assert_eq!(ran.error_code(), "INVALID_REQUEST");
    }
    let ran = Aci::logs(active(), "c", "t", "q")
        .args(["--lookback-minutes", "10080"])
        .response("logs/empty.json")
        .run();
    assert_eq!(ran.code, 0);
    let ran = Aci::logs(active(), "c", " ", "q")
        .arg(MISSING_RESPONSE)
        .run();
    assert_eq!(ran.error_code(), "INVALID_REQUEST");
}

/// Seed 001 "Empty Mock result".
#[test]
fn empty_mock_result() {
    let ran = logs("call_empty", "logs/empty.json").run();
    assert_eq!(ran.code, 0);
    let v = ran.json();
    assert_eq!(v["status"], "READY");
    let r = &v["result"];
    assert_eq!(r["evidence_status"], "NO_EVIDENCE");
    let scope = r["scope"].as_object().unwrap();
    let keys: Vec<_> = scope.keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "topic",
            "query",
            "lookback_minutes",
            "window_start",
            "window_end"
        ],
        "the full scope"
    );
    assert_eq!(r["match_count"], 0);
    assert_eq!(r["returned_count"], 0);
    assert_eq!(r["patterns"], Value::Array(vec![]));
    assert_eq!(r["timeline"], Value::Array(vec![]));
    assert_eq!(r["truncated"], false);
}

/// Seed 001 "Legacy log error".
#[test]
fn legacy_log_error() {
    for (file, code) in [
        ("logs/failure.json", "LEGACY_FAILURE"),
        ("logs/malformed.json", "LEGACY_MALFORMED"),
    ] {
        let ran = logs("call_err", file).run();
        assert_eq!(ran.code, 4, "{file}");
        let v = ran.json();
        assert_eq!(v["status"], "ERROR");
        assert_eq!(v["error"]["code"], code);
        assert!(v["error"]["message"].as_str().unwrap().len() <= 256);
        assert!(v.get("result").is_none(), "no Agent result");
        for leak in [
            "LTAI5tHq7pX9mN2bV4cR8sE1",
            "10.1.2.3",
            "hunter2",
            "sls.cn-hangzhou",
        ] {
            assert!(
                !ran.stdout.contains(leak) && !ran.stderr.contains(leak),
                "{leak}"
            );
        }
    }
}

/// Seed 001 "Sensitive fields are present": instance, metrics, secret assignments, pod ids and
/// SQL literals never reach any view.
#[test]
fn sensitive_fields_are_present() {
    let raw = std::fs::read_to_string(fixture("logs/sensitive.json")).unwrap()
        + &std::fs::read_to_string(fixture("logs/application-logs.json")).unwrap();
    let secrets = [
        "pod-user-service-6d7f8-abc12",
        "metric-secret-value-77",
        "P@ssw0rd-2026!",
        "192.168.10.23",
        "张三",
        "110101199003071234",
        "yaml-secret-pass",
        "AKIAIOSFODNN7EXAMPLE",
        "mima-zhongwen-123",
        "py-secret-9",
        "10.9.8.7",
        "/app/worker.py",
        "main.go",
        "0xc000123456",
        "pod-payment-service-7d8f9c6b5-x2k4m",
        "payment-service-7d8f9c6b5-x2k4m",
        "tok_9f8e7d6c5b4a3f2e1d0c",
        "Sup3rS3cret!",
        "mysql-master-01.prod.internal",
        "GatewayClient.java",
        "10.24.8.17",
        "203.0.113.45",
        "eyJhbGciOiJIUzI1NiJ9",
        "alice.chen@example.com",
        "pid=41872",
        "\"cpu\"",
        "mem_mb",
    ];
    for s in secrets {
        assert!(raw.contains(s), "the fixture plants {s}");
    }
    for file in ["logs/sensitive.json", "logs/application-logs.json"] {
        for view in ["envelope", "model", "harness"] {
            for format in ["json", "mcp"] {
                // `--format mcp` carries every view itself and takes no `--view`.
                let args = match format {
                    "mcp" => vec!["--format", "mcp"],
                    _ => vec!["--view", view],
                };
                let ran = logs("call_s", file).args(args).run();
                assert_eq!(ran.code, 0);
                for s in secrets {
                    assert!(
                        !ran.stdout.contains(s),
                        "{s} leaked in {file} {view} {format}"
                    );
                }
            }
        }
    }
    // What the agent needs stays: codes, statuses, durations, service names, words.
    let text = logs("call_s", "logs/application-logs.json").run().stdout;
    for keep in [
        "503",
        "3012ms",
        "payment-service",
        "SocketTimeoutException",
        "OutOfMemoryError",
        "支付失败",
    ] {
        assert!(text.contains(keep), "{keep} was over-redacted");
    }
    let harness = logs("call_s", "logs/sensitive.json")
        .args(["--view", "harness"])
        .run()
        .json();
    let redactions = harness["redactions"].as_object().unwrap();
    for class in ["secret", "ip", "sql_literal", "stack"] {
        assert!(
            redactions.get(class).and_then(Value::as_u64).unwrap_or(0) > 0,
            "{class} counted: {redactions:?}"
        );
    }
}

/// Seed 001 "Projection exceeds collection budget" (logs side).
#[test]
fn logs_projection_exceeds_collection_budget() {
    let ran = Aci::logs(
        fixture("contexts/tight-bounds.json"),
        "call_tight",
        "application-logs",
        "payment",
    )
    .response("logs/application-logs.json")
    .run();
    assert_eq!(ran.code, 0);
    let v = ran.json();
    let r = &v["result"];
    assert_eq!(r["truncated"], true);
    assert!(serde_json::to_string(r).unwrap().len() <= 2600);
    let patterns = r["patterns"].as_array().unwrap();
    let timeline = r["timeline"].as_array().unwrap();
    assert!(patterns.len() <= 3 && timeline.len() <= 4);
    assert_eq!(r["returned_count"], timeline.len());
    for p in patterns {
        assert!(p["pattern"].as_str().unwrap().len() <= 60);
        assert!(p["services"].as_array().unwrap().len() <= 1);
    }
    for e in timeline {
        assert!(e["message"].as_str().unwrap().len() <= 80);
    }
    // The FATAL event is the most severe pattern: round one always takes it.
    assert!(timeline.iter().any(|e| e["level"] == "FATAL"));
}

#[test]
fn total_above_entries_seen_is_truncated() {
    let v = logs("c", "logs/system-metrics.json").run().json();
    assert_eq!(v["result"]["match_count"], 120);
    assert_eq!(v["result"]["truncated"], true);
}

#[test]
fn stream_larger_than_max_response_bytes_is_refused() {
    let ctx = crate::common::context_with(
        serde_json::json!({"limits": {"logs": {"max_response_bytes": 1000}}}),
    );
    let bytes = std::fs::read(fixture("logs/application-logs.json")).unwrap();
    let ran = Aci::logs(&ctx.path, "c", "t", "q").stdin(bytes).run();
    assert_eq!(ran.error_code(), "RESPONSE_TOO_LARGE");
}

#[test]
fn patterns_command_folds_and_redacts() {
    // Word values fold once a slot has shown several of them (five users here).
    let input = "conn from 10.0.0.1 user=alice password=s3cret1\nconn from 10.0.0.2 user=bob password=s3cret2\n\
                 disk /dev/sda1 is 91% full\nconn from 10.0.0.3 user=carol password=s3cret3\n\
                 conn from 10.0.0.4 user=dave password=s3cret4\nconn from 10.0.0.5 user=erin password=s3cret5\n";
    let ran = Aci::new(["patterns"]).stdin(input).run();
    assert_eq!(ran.code, 0);
    let lines: Vec<Value> = ran
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{}", ran.stdout);
    assert_eq!(lines[0]["count"], 5);
    assert_eq!(lines[0]["first_line"], 1);
    assert_eq!(lines[1]["first_line"], 3);
    for leak in ["10.0.0", "s3cret"] {
        assert!(!ran.stdout.contains(leak));
    }
    let assigned = Aci::new(["patterns", "--assign", "-"]).stdin(input).run();
    let rows: Vec<String> = assigned
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 6, "one line per input line");
    assert_eq!(rows[0], rows[1]);
    assert_eq!(rows[0], rows[5]);
    assert_ne!(rows[0], rows[2]);
    assert_eq!(rows[0], lines[0]["pattern"].as_str().unwrap());
}

/// Every bundled log response, in every view, against a reviewed snapshot.
#[test]
fn logs_fixture_snapshots() {
    for (name, file) in crate::common::fixture_files("logs") {
        for view in ["envelope", "model", "harness"] {
            let ran = Aci::logs(active(), "call_snap", "application-logs", "payment timeout")
                .args(["--view", view, "--pretty"])
                .arg(&file)
                .run();
            insta::assert_snapshot!(
                format!("logs__{name}__{view}"),
                format!("exit {}\n{}", ran.code, ran.stdout)
            );
        }
    }
}
