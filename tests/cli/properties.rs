//! Security properties, tested as properties over generated legacy responses, contexts and
//! bounds (issue "Hardening"). Each runs in-process through the library's ToolBoundary, the same
//! path the binary takes, so hundreds of cases run in a second or two.
//!
//! 1. every view is one valid JSON document and the exit code is a documented one;
//! 2. the compact result is within `max_total_bytes`, every item and collection within its bound;
//! 3. `truncated` is true exactly when something was removed (checked against the same call
//!    with unlimited bounds);
//! 4. planted secrets of every redaction class never appear in any byte of any view, with
//!    correlation labels on or off (and labels never change the patterns);
//! 5. an `ERROR` never carries a result, and its message never quotes input;
//! 6. no input panics.

use aciproj::RunContext;
use aciproj::boundary::{CallOutcome, LegacySource, ToolBoundary, ToolCall, ToolRequest};
use aciproj::contracts::ToolResult;
use aciproj::render;
use aciproj::views::{Format, View};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Cases per property: 256 in the ordinary run; `PROPTEST_CASES` raises it (the ignored
/// `properties_nightly` test runs 8192).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

/// Text that stresses escaping and character boundaries.
fn nasty_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "Kafka",
        "内存碎片",
        "排查",
        "😀",
        "👩‍💻",
        "\u{200b}",
        "\u{202e}",
        "\"",
        "\\",
        "\\\"",
        "\n",
        "\t",
        "\u{1}",
        "\u{7f}",
        " ",
        "  ",
        "é",
        "ｆｕｌｌ",
        "<*>",
        "{}",
        "[]",
        "'",
        "%s",
        "null",
        "0",
        "-1",
        "1e309",
    ]);
    prop::collection::vec(
        prop_oneof![3 => pieces.prop_map(str::to_owned), 1 => any::<String>()],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

fn maybe_text() -> impl Strategy<Value = Option<String>> {
    prop_oneof![1 => Just(None), 4 => nasty_text().prop_map(Some)]
}

fn context(limits: Value, budget: Option<Value>) -> RunContext {
    correlated_context(limits, budget, false)
}

fn correlated_context(limits: Value, budget: Option<Value>, correlate: bool) -> RunContext {
    let mut ctx = json!({
        "run_id": "run-prop", "status": "ACTIVE", "authorized_tools": ["*"],
        "now": "2026-11-29T10:00:00+08:00", "timezone": "Asia/Shanghai", "limits": limits,
    });
    if let Some(b) = budget {
        ctx["budget"] = b;
    }
    if correlate {
        ctx["redaction"] = json!({"correlate": true});
    }
    RunContext::from_slice(ctx.to_string().as_bytes(), std::path::Path::new("."))
        .expect("generated contexts are valid")
}

fn views(outcome: &CallOutcome) -> Vec<String> {
    let mut out = Vec::new();
    for view in [View::Envelope, View::Model, View::Harness] {
        out.push(render::to_text(
            &render::document(outcome, view, Format::Json),
            false,
        ));
    }
    out.push(render::to_text(
        &render::document(outcome, View::Model, Format::Mcp),
        true,
    ));
    out
}

fn check_common(outcome: &CallOutcome) -> Result<(), TestCaseError> {
    prop_assert!(
        [0u8, 3, 4, 5].contains(&outcome.exit_code()),
        "exit {}",
        outcome.exit_code()
    );
    for text in views(outcome) {
        let parsed: Result<Value, _> = serde_json::from_str(&text);
        prop_assert!(parsed.is_ok(), "not JSON: {text}");
        prop_assert!(text.ends_with('\n') && !text[..text.len() - 1].contains("\n\n"));
    }
    if let Err(e) = outcome.result() {
        prop_assert!(e.message().len() <= 256);
        let envelope = serde_json::to_value(outcome.envelope()).unwrap();
        prop_assert!(envelope.get("result").is_none());
    }
    Ok(())
}

// ---------- RAG ----------

#[derive(Debug, Clone)]
struct Block {
    id: Option<String>,
    source: Option<String>,
    title: Option<String>,
    crumbs: Option<Vec<String>>,
    excerpt: Option<String>,
}

fn block() -> impl Strategy<Value = Block> {
    // Small id alphabets make duplicates common.
    let id = prop_oneof![1 => Just(None), 3 => "[ab]{0,2}".prop_map(Some), 1 => nasty_text().prop_map(Some)];
    let source = prop_oneof![1 => Just(None), 2 => "[xy]{1,2}".prop_map(Some)];
    (
        id,
        source,
        maybe_text(),
        prop::option::of(prop::collection::vec(nasty_text(), 0..4)),
        maybe_text(),
    )
        .prop_map(|(id, source, title, crumbs, excerpt)| Block {
            id,
            source,
            title,
            crumbs,
            excerpt,
        })
}

fn rag_response(blocks: &[Block], shape: u8, relevance: &str) -> Value {
    match shape {
        0 | 1 => {
            let camel = shape == 0;
            let items: Vec<Value> = blocks
                .iter()
                .map(|b| {
                    let mut o = serde_json::Map::new();
                    if let Some(v) = &b.id {
                        o.insert(if camel { "documentId" } else { "document_id" }.into(), json!(v));
                    }
                    if let Some(v) = &b.source {
                        o.insert("source".into(), json!(v));
                    }
                    if let Some(v) = &b.title {
                        o.insert("title".into(), json!(v));
                    }
                    if let Some(v) = &b.crumbs {
                        o.insert(if camel { "headingPath" } else { "heading_path" }.into(), json!(v));
                    }
                    if let Some(v) = &b.excerpt {
                        o.insert("excerpt".into(), json!(v));
                    }
                    o.insert("content".into(), json!("FULL-DOCUMENT-BODY"));
                    o.insert("score".into(), json!(0.123456));
                    Value::Object(o)
                })
                .collect();
            let key = if camel { "contextPack" } else { "context_pack" };
            let rel = if camel { "relevanceLevel" } else { "relevance_level" };
            json!({"success": true, key: {"blocks": items}, "retrievalTrace": {"secret": "TRACE-VALUE"}, rel: relevance})
        }
        _ => Value::Array(
            blocks
                .iter()
                .map(|b| {
                    let meta = json!({"document_id": b.id, "source": b.source, "title": b.title, "breadcrumb": b.crumbs});
                    json!({"id": b.id, "content": b.excerpt, "score": 0.5, "metadata": meta.to_string()})
                })
                .collect(),
        ),
    }
}

fn rag_limits() -> impl Strategy<Value = Value> {
    (1usize..7, 1usize..200, 1usize..40, 700usize..5000).prop_map(|(e, x, f, t)| {
        json!({"rag": {"max_evidence": e, "max_excerpt_bytes": x, "max_field_bytes": f, "max_total_bytes": t, "max_query_bytes": 64}})
    })
}

fn run_rag(ctx: RunContext, query: &str, body: &[u8]) -> CallOutcome {
    let mut boundary = ToolBoundary::new(ctx);
    let call = ToolCall {
        tool_call_id: "call_p".into(),
        run_id: None,
        request: ToolRequest::Rag {
            query: query.into(),
        },
    };
    boundary.execute(&call, LegacySource::Bytes(body))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn rag_results_are_bounded_and_truncated_tells_the_truth(
        blocks in prop::collection::vec(block(), 0..14),
        shape in 0u8..3,
        relevance in prop::sample::select(vec!["HIGH", "low", "中", "0.9", ""]),
        limits in rag_limits(),
        query in "[a-z内存]{1,10}( [a-z]{1,5})?",
    ) {
        let body = serde_json::to_vec(&rag_response(&blocks, shape, relevance)).unwrap();
        let bounded = run_rag(context(limits.clone(), None), &query, &body);
        check_common(&bounded)?;
        let Ok(ToolResult::Rag(r)) = bounded.result() else {
            return Err(TestCaseError::fail(format!("a well-formed response is READY: {:?}", bounded.result())));
        };
        let l = &limits["rag"];
        let compact = serde_json::to_string(r).unwrap();
        prop_assert!(compact.len() as u64 <= l["max_total_bytes"].as_u64().unwrap());
        prop_assert!(r.evidence.len() as u64 <= l["max_evidence"].as_u64().unwrap());
        prop_assert_eq!(r.returned_count as usize, r.evidence.len());
        for e in &r.evidence {
            prop_assert!(e.excerpt.len() as u64 <= l["max_excerpt_bytes"].as_u64().unwrap());
            prop_assert!(!e.excerpt.trim().is_empty());
            for f in [&e.document_id, &e.source, &e.title, &e.breadcrumb] {
                prop_assert!(f.len() as u64 <= l["max_field_bytes"].as_u64().unwrap());
            }
        }
        prop_assert!(!compact.contains("FULL-DOCUMENT-BODY") && !compact.contains("TRACE-VALUE") && !compact.contains("0.123456"));
        // The oracle: the same call with bounds that remove nothing.
        let open = json!({"rag": {"max_evidence": 1000, "max_excerpt_bytes": 1 << 20, "max_field_bytes": 1 << 20, "max_total_bytes": 1 << 24, "max_query_bytes": 64}});
        let unbounded = run_rag(context(open, Some(json!({"max_observation_bytes": 1u64 << 40}))), &query, &body);
        let Ok(ToolResult::Rag(u)) = unbounded.result() else { unreachable!() };
        prop_assert!(!u.truncated);
        let removed = u.evidence != r.evidence;
        prop_assert_eq!(r.truncated, removed, "truncated must equal 'something was removed'");
        // Kept evidence is, in order, a subsequence of what unlimited bounds give (an item whose
        // excerpt bound leaves nothing is skipped), each field an exact prefix of the full one.
        let mut full = u.evidence.iter();
        for kept in &r.evidence {
            let found = full.by_ref().any(|f| {
                f.excerpt.starts_with(&kept.excerpt)
                    && f.document_id.starts_with(&kept.document_id)
                    && f.source.starts_with(&kept.source)
                    && f.title.starts_with(&kept.title)
                    && f.breadcrumb.starts_with(&kept.breadcrumb)
            });
            prop_assert!(found, "kept item is not a prefix of an unbounded item in order");
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_errors_never_quote_input(
        body in prop::collection::vec(any::<u8>(), 0..300),
        marker in "[A-Z]{12}",
    ) {
        let mut body = body;
        body.extend_from_slice(marker.as_bytes());
        for tool in 0..2 {
            let ctx = context(json!({}), None);
            let mut boundary = ToolBoundary::new(ctx);
            let request = if tool == 0 {
                ToolRequest::Rag { query: "q".into() }
            } else {
                ToolRequest::Logs { topic: "t".into(), query: "q".into(), lookback_minutes: None }
            };
            let call = ToolCall { tool_call_id: "c".into(), run_id: None, request };
            let outcome = boundary.execute(&call, LegacySource::Bytes(&body));
            check_common(&outcome)?;
            for text in views(&outcome) {
                prop_assert!(!text.contains(&marker) || outcome.result().is_ok(), "an error quoted input");
            }
        }
    }

    #[test]
    fn json_shaped_garbage_never_panics(
        doc in prop_oneof![
            Just("{\"success\":true,\"logs\":[".to_owned()),
            nasty_text().prop_map(|t| format!("{{\"success\":true,\"contextPack\":{{\"blocks\":[{{\"excerpt\":{}}}]}}}}", serde_json::to_string(&t).unwrap())),
            (0usize..3000).prop_map(|n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
            (0usize..3000).prop_map(|n| format!("{{\"success\":true,\"logs\":[{{\"message\":{}1{}}}]}}", "[".repeat(n), "]".repeat(n))),
            Just("{\"success\":true,\"total\":1e999999,\"logs\":[]}".to_owned()),
            Just("{\"success\":true,\"total\":-1,\"logs\":[{\"timestamp\":99999999999999999999,\"message\":\"x\"}]}".to_owned()),
            Just("\u{feff}{\"success\":true,\"logs\":[]}".to_owned()),
        ],
    ) {
        for request in [
            ToolRequest::Rag { query: "q".into() },
            ToolRequest::Logs { topic: "t".into(), query: "q".into(), lookback_minutes: Some(5) },
        ] {
            let mut boundary = ToolBoundary::new(context(json!({}), None));
            let call = ToolCall { tool_call_id: "c".into(), run_id: None, request };
            check_common(&boundary.execute(&call, LegacySource::Bytes(doc.as_bytes())))?;
        }
    }
}

// ---------- Logs ----------

/// A secret phrase to plant and the raw value that must never appear.
fn planted() -> impl Strategy<Value = (String, String)> {
    let word = "[a-z]{4,8}";
    let alnum = "[A-Za-z0-9]{12,20}";
    prop_oneof![
        alnum.prop_map(|v| (format!("password={v}"), v)),
        alnum.prop_map(|v| (format!("\"secret\": \"{v}\""), v)),
        alnum.prop_map(|v| (format!("数据库密码：{v}"), v)),
        alnum.prop_map(|v| (format!("Authorization: Bearer {v}"), v)),
        "[A-Z0-9]{16}".prop_map(|v| {
            let k = format!("AKIA{v}");
            (format!("key {k} used"), k)
        }),
        (alnum, alnum).prop_map(|(a, b)| {
            let t = format!("eyJ{a}.eyJ{b}.{a}{b}");
            (format!("token {t}"), t)
        }),
        (1u8..=254, 0u8..=255, 0u8..=255, 1u8..=254, 1024u16..65000).prop_map(|(a, b, c, d, p)| {
            let ip = format!("{a}.{b}.{c}.{d}");
            (format!("connect to {ip}:{p} failed"), ip)
        }),
        (word, word).prop_map(|(u, d)| {
            let e = format!("{u}.{d}@example.com");
            (format!("mail {e} sent"), e)
        }),
        // Kubernetes' name hashes use a consonant-and-digit alphabet.
        (
            word,
            "[bcdfghjklmnpqrstvwxz2456789]{9,10}",
            "[bcdfghjklmnpqrstvwxz2456789]{5}"
        )
            .prop_map(|(s, h, r)| {
                let p = format!("{s}-service-{h}-{r}");
                (format!("pod {p} restarted"), p)
            }),
        (word, word).prop_map(|(a, b)| {
            let h = format!("{a}-01.{b}.prod.internal");
            (format!("upstream {h} down"), h)
        }),
        word.prop_map(|v| {
            let lit = format!("'{v}zz{v}'");
            (format!("SELECT * FROM users WHERE name = {lit}"), lit)
        }),
        word.prop_map(|v| {
            let frame = format!("{v}Service.java:42");
            (
                format!("boom\n\tat com.acme.{v}Service.run({frame})"),
                frame,
            )
        }),
    ]
}

#[derive(Debug, Clone)]
struct Entry {
    stamp: Value,
    level: String,
    service: String,
    message: String,
    secret: String,
}

fn entry() -> impl Strategy<Value = Entry> {
    let stamp = prop_oneof![
        (0u32..60, 0u32..60).prop_map(|(m, s)| json!(format!("2026-11-29 09:{m:02}:{s:02}"))),
        (0i64..3_600_000).prop_map(|ms| json!(1_795_914_000_000i64 + ms)),
        (0u32..60).prop_map(|m| json!(format!("2026-11-29T01:{m:02}:00Z"))),
        Just(json!("not a time")),
    ];
    let level = prop::sample::select(vec![
        "ERROR", "WARN", "INFO", "DEBUG", "FATAL", "warning", "audit",
    ]);
    let service = prop::sample::select(vec![
        "payment-service",
        "order-service",
        "gateway",
        "库存服务",
    ]);
    let filler = prop::sample::select(vec![
        "timeout after 3000ms",
        "连接失败",
        "retry 2 of 5",
        "HTTP 503",
        "ok",
        "v1.2.3 deployed",
    ]);
    (stamp, level, service, filler, planted(), nasty_text()).prop_map(
        |(stamp, level, service, filler, (phrase, secret), noise)| Entry {
            stamp,
            level: level.into(),
            service: service.into(),
            message: format!("{filler} {phrase} {noise}"),
            secret,
        },
    )
}

fn logs_limits() -> impl Strategy<Value = Value> {
    (1usize..8, 1usize..8, 8usize..200, 8usize..120, 1usize..4, 1500usize..9000).prop_map(|(p, e, m, pb, s, t)| {
        json!({"logs": {"max_patterns": p, "max_events": e, "max_message_bytes": m, "max_pattern_bytes": pb,
            "max_services": s, "max_total_bytes": t, "max_query_bytes": 64, "max_topic_bytes": 64}})
    })
}

fn run_logs(ctx: RunContext, body: &[u8]) -> CallOutcome {
    let mut boundary = ToolBoundary::new(ctx);
    let call = ToolCall {
        tool_call_id: "call_l".into(),
        run_id: None,
        request: ToolRequest::Logs {
            topic: "application-logs".into(),
            query: "q".into(),
            lookback_minutes: Some(60),
        },
    };
    boundary.execute(&call, LegacySource::Bytes(body))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn planted_secrets_never_leak_and_logs_stay_bounded(
        entries in prop::collection::vec(entry(), 0..40),
        extra_total in 0u64..5,
        limits in logs_limits(),
        correlate in any::<bool>(),
    ) {
        let logs: Vec<Value> = entries.iter().map(|e| json!({
            "timestamp": e.stamp, "level": e.level, "service": e.service, "message": e.message,
            "instance": "pod-secret-instance-7d8f9c6b5-x2k4m", "metrics": {"token": "METRIC-SECRET"},
        })).collect();
        let body = serde_json::to_vec(&json!({"success": true, "region": "cn", "log_topic": "LEGACY-TOPIC",
            "query": "LEGACY-QUERY", "logs": logs, "total": entries.len() as u64 + extra_total, "message": "ok"})).unwrap();
        let bounded = run_logs(correlated_context(limits.clone(), None, correlate), &body);
        check_common(&bounded)?;
        for text in views(&bounded) {
            for e in &entries {
                prop_assert!(!text.contains(&e.secret), "planted secret {} leaked: {}", e.secret, text);
            }
            for raw in ["pod-secret-instance", "METRIC-SECRET", "LEGACY-TOPIC", "LEGACY-QUERY"] {
                prop_assert!(!text.contains(raw), "{raw} leaked");
            }
        }
        let Ok(ToolResult::Logs(r)) = bounded.result() else {
            return Err(TestCaseError::fail(format!("a well-formed response is READY: {:?}", bounded.result())));
        };
        let l = &limits["logs"];
        let get = |k: &str| l[k].as_u64().unwrap() as usize;
        prop_assert!(serde_json::to_string(r).unwrap().len() <= get("max_total_bytes"));
        prop_assert!(r.patterns.len() <= get("max_patterns"));
        prop_assert!(r.timeline.len() <= get("max_events"));
        prop_assert_eq!(r.returned_count as usize, r.timeline.len());
        prop_assert!(r.match_count >= entries.len() as u64);
        for p in &r.patterns {
            prop_assert!(p.pattern.len() <= get("max_pattern_bytes"));
            prop_assert!(p.services.len() <= get("max_services"));
        }
        for e in &r.timeline {
            prop_assert!(e.message.len() <= get("max_message_bytes"));
        }
        let mut sorted = r.timeline.clone();
        sorted.sort_by(|a, b| a.timestamp.cmp(&b.timestamp));
        prop_assert_eq!(&sorted.iter().map(|e| &e.timestamp).collect::<Vec<_>>(), &r.timeline.iter().map(|e| &e.timestamp).collect::<Vec<_>>());
        // The oracle: unlimited bounds remove nothing, so `truncated` must say whether ours did.
        let open = json!({"logs": {"max_patterns": 100000, "max_events": 100000, "max_message_bytes": 1 << 20,
            "max_pattern_bytes": 1 << 20, "max_services": 1000, "max_total_bytes": 1 << 26, "max_query_bytes": 64, "max_topic_bytes": 64}});
        let open_budget = Some(json!({"max_observation_bytes": 1u64 << 40}));
        let unbounded = run_logs(correlated_context(open.clone(), open_budget.clone(), correlate), &body);
        let Ok(ToolResult::Logs(u)) = unbounded.result() else { unreachable!() };
        if correlate {
            // Labels are for the timeline only: grouping, counts and templates are unchanged.
            let plain = run_logs(context(open, open_budget), &body);
            let Ok(ToolResult::Logs(p)) = plain.result() else { unreachable!() };
            prop_assert_eq!(&p.patterns, &u.patterns);
            prop_assert_eq!(p.timeline.len(), u.timeline.len());
        }
        prop_assert_eq!(u.truncated, extra_total > 0);
        let removed = u.patterns != r.patterns || u.timeline != r.timeline || extra_total > 0;
        prop_assert_eq!(r.truncated, removed, "truncated must equal 'something was removed'");
    }
}

/// Same inputs, same bytes, whatever `TZ`, locale or working directory (a few real processes).
#[test]
fn output_is_identical_across_tz_locale_and_cwd() {
    let bin = assert_cmd::cargo::cargo_bin("aciproj");
    let ctx = crate::common::fixture("contexts/active.json");
    let response = crate::common::fixture("logs/application-logs.json");
    let tmp = tempfile::tempdir().unwrap();
    let mut outputs = Vec::new();
    for (tz, lang, cwd) in [
        ("UTC", "C", std::env::temp_dir()),
        ("America/New_York", "zh_CN.UTF-8", tmp.path().to_owned()),
        ("Asia/Kolkata", "de_DE.UTF-8", std::path::PathBuf::from("/")),
    ] {
        let out = std::process::Command::new(&bin)
            .args(["logs", "--context"])
            .arg(&ctx)
            .args([
                "--call-id",
                "c",
                "--topic",
                "t",
                "--query",
                "q",
                "--view",
                "harness",
            ])
            .arg(&response)
            .env("TZ", tz)
            .env("LANG", lang)
            .env("LC_ALL", lang)
            .current_dir(cwd)
            .output()
            .unwrap();
        assert!(out.status.success());
        outputs.push(out.stdout);
    }
    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
}

/// The nightly-style run: every property again with 8192 cases each.
/// `cargo test --release --test cli properties_nightly -- --ignored`
#[test]
#[ignore = "nightly: 8192 cases per property, minutes of CPU"]
fn properties_nightly() {
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "properties::",
            "--skip",
            "properties_nightly",
            "--test-threads",
            "2",
        ])
        .env("PROPTEST_CASES", "8192")
        .status()
        .unwrap();
    assert!(status.success());
}
