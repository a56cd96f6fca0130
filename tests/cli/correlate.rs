//! Correlation labels (`<IP#1>`, `<POD#2>`): `redaction.correlate` in the run context for the
//! `logs` timeline, `redact --correlate` for any stream. Same value, same label; the label is a
//! counter; off by default.

use serde_json::{Value, json};

use crate::common::{Aci, context_with, timeline_beside_redact};

const POD_A: &str = "payment-7d8f9c6b5-x2k4m";
const POD_B: &str = "payment-7d8f9c6b5-q9z8w";

#[test]
fn redact_correlate_numbers_values_by_first_appearance() {
    let input = format!(
        "timeout to 10.0.0.1 from pod {POD_A}\ntimeout to 10.0.0.2 from pod {POD_B}\ntimeout to 10.0.0.1 from pod {POD_A}\n"
    );
    let ran = Aci::new(["redact", "--correlate"])
        .stdin(input.clone())
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "timeout to <IP#1> from pod <POD#1>\n\
         timeout to <IP#2> from pod <POD#2>\n\
         timeout to <IP#1> from pod <POD#1>\n"
    );
    let plain = Aci::new(["redact"]).stdin(input).run();
    assert_eq!(
        plain.stdout,
        "timeout to <IP> from pod <POD>\n".repeat(3),
        "without the flag the placeholders are plain"
    );
}

#[test]
fn redact_json_correlate_labels_string_values_across_keys_and_lines() {
    let input = "{\"password\": \"hunter2\", \"peer\": \"10.0.0.1\"}\n\
                 {\"msg\": \"retry password=hunter2 to 10.0.0.1\", \"n\": 2}\n\
                 not json password=other\n";
    let ran = Aci::new(["redact", "--json", "--correlate", "--stats"])
        .stdin(input)
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(
        ran.stdout,
        "{\"password\": \"<SECRET#1>\", \"peer\": \"<IP#1>\"}\n\
         {\"msg\": \"retry password=<SECRET#1> to <IP#1>\", \"n\": 2}\n\
         not json password=<SECRET#2>\n"
    );
    let stats: Value = serde_json::from_str(ran.stderr.trim()).expect("stats are JSON");
    assert_eq!(stats["distinct"], json!({"secret": 2, "ip": 1}));
    let plain = Aci::new(["redact", "--stats"]).stdin(input).run();
    let stats: Value = serde_json::from_str(plain.stderr.trim()).unwrap();
    assert!(
        stats.get("distinct").is_none(),
        "no distinct counts unless asked"
    );
}

/// Forty timeouts: from one pod to one upstream, but the last two from another pod.
fn timeouts() -> String {
    let logs: Vec<Value> = (0..40)
        .map(|i| {
            let (pod, ip) = if i < 38 {
                (POD_A, "10.24.8.17")
            } else {
                (POD_B, "10.24.8.99")
            };
            json!({"timestamp": format!("2026-11-29 09:{:02}:00", i), "level": "ERROR",
                   "service": "payment-service",
                   "message": format!("pod {pod}: upstream {ip}:8443 read timed out")})
        })
        .collect();
    json!({"success": true, "logs": logs, "total": 40}).to_string()
}

fn logs_call(correlate: Option<bool>, view: &str) -> Value {
    let patch = match correlate {
        Some(c) => json!({"redaction": {"correlate": c}, "ledger": null}),
        None => json!({"ledger": null}),
    };
    let ctx = context_with(patch);
    let ran = Aci::logs(&ctx.path, "call_c", "application-logs", "timeout")
        .args(["--lookback-minutes", "600", "--view", view])
        .stdin(timeouts())
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran.json()
}

#[test]
fn logs_with_correlation_label_the_timeline_and_keep_one_plain_pattern() {
    let doc = logs_call(Some(true), "envelope");
    let result = &doc["result"];
    let patterns = result["patterns"].as_array().unwrap();
    assert_eq!(patterns.len(), 1, "{patterns:?}");
    assert_eq!(patterns[0]["count"], 40);
    let template = patterns[0]["pattern"].as_str().unwrap();
    assert!(
        template.starts_with("pod <POD>: upstream <IP>:"),
        "{template}"
    );
    let messages: Vec<&str> = result["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 20);
    for m in &messages[..18] {
        assert_eq!(*m, "pod <POD#1>: upstream <IP#1>:8443 read timed out");
    }
    for m in &messages[18..] {
        assert_eq!(*m, "pod <POD#2>: upstream <IP#2>:8443 read timed out");
    }
    for view in ["envelope", "model", "harness"] {
        let text = logs_call(Some(true), view).to_string();
        for raw in [POD_A, POD_B, "10.24.8.17", "10.24.8.99"] {
            assert!(!text.contains(raw), "{raw} in the {view} view");
        }
    }
    let harness = logs_call(Some(true), "harness");
    assert_eq!(
        harness["correlation"],
        json!({"distinct": {"pod": 2, "ip": 2}, "unlabelled": 0})
    );
}

#[test]
fn logs_without_correlation_or_with_it_off_give_todays_bytes() {
    for view in ["envelope", "harness"] {
        let default = logs_call(None, view);
        assert_eq!(logs_call(Some(false), view), default, "{view}");
        let text = default.to_string();
        assert!(!text.contains('#'), "{view}: {text}");
        assert!(default.get("correlation").is_none());
    }
}

#[test]
fn logs_labels_are_what_redact_correlate_gives_line_by_line() {
    let (timeline, lines, n) =
        timeline_beside_redact(json!({"redaction": {"correlate": true}}), &["--correlate"]);
    assert_eq!(timeline.len(), n);
    assert!(
        timeline.iter().any(|m| m.contains("#2>")),
        "labels were given"
    );
    assert_eq!(lines, timeline);
}
