//! The fuzz targets' bodies and the invariants they assert (issue "Hardening").
//!
//! Each `pub fn` takes the raw fuzz input and panics when an invariant of SPEC §4–§5 and §8
//! breaks, so a crash means "the agent could have received a secret, an oversized result, a lie
//! in `truncated`, or a crash", not merely "something panicked". The same file is compiled into
//! the ordinary test binary (`tests/cli/fuzz_regressions.rs` includes it by path) to replay the
//! minimized inputs under `fixtures/fuzz/<target>/`: one definition of each invariant, two
//! runners. It therefore depends only on `aciproj`, `serde_json`, `jiff` and `arbitrary`.

use std::path::Path;

use aciproj::boundary::{CallOutcome, LegacySource, ToolBoundary, ToolCall, ToolRequest};
use aciproj::context::LogsLimits;
use aciproj::contracts::{CallStatus, EvidenceStatus, LogsToolResult, ToolResult};
use aciproj::redact::{LineContext, RedactionCounts, Redactor, redact, redact_ungated};
use aciproj::views::{Format, View};
use aciproj::{ErrorCode, RunContext, render};
use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Value, json};

/// The query every RAG call asks; the topic and query every log call asks.
const QUERY: &str = "redis 内存碎片";
const TOPIC: &str = "application-logs";
const LOOKBACK: i64 = 30;

/// Bounds that remove nothing from any input a fuzzer sends: the oracle for `truncated`.
const OPEN_RAG: &str = r#"{"max_evidence": 100000, "max_excerpt_bytes": 16777216,
    "max_field_bytes": 16777216, "max_total_bytes": 268435456}"#;
const OPEN_LOGS: &str = r#"{"max_patterns": 1000000, "max_events": 1000000,
    "max_message_bytes": 16777216, "max_pattern_bytes": 16777216, "max_services": 100000,
    "max_field_bytes": 16777216, "max_total_bytes": 1073741824}"#;

/// Small bounds, so every cut and every "fit the total" path runs on short inputs.
const SMALL_RAG: &str = r#"{"max_query_bytes": 64, "max_evidence": 2, "max_excerpt_bytes": 24, "max_field_bytes": 8,
    "max_total_bytes": 640, "max_response_bytes": 4096}"#;
const SMALL_LOGS: &str = r#"{"max_query_bytes": 64, "max_topic_bytes": 64, "max_patterns": 2, "max_events": 3, "max_message_bytes": 24,
    "max_pattern_bytes": 20, "max_services": 1, "max_field_bytes": 8,
    "max_total_bytes": 1000, "max_response_bytes": 4096}"#;

/// A valid ACTIVE run with `limits` for `tool` and a budget that never runs out.
pub fn context(tool: &str, limits: &str) -> RunContext {
    let limits: Value = serde_json::from_str(limits).expect("limits are JSON");
    let ctx = json!({
        "run_id": "run-fuzz", "status": "ACTIVE", "authorized_tools": ["*"],
        "now": "2026-11-29T10:00:00+08:00", "timezone": "Asia/Shanghai",
        "budget": {"max_tool_calls": 1000, "max_observation_bytes": 1u64 << 40},
        "limits": {tool: limits},
    });
    RunContext::from_slice(ctx.to_string().as_bytes(), Path::new("."))
        .expect("the fuzz contexts are valid")
}

fn rag_call() -> ToolCall {
    ToolCall {
        tool_call_id: "call_fuzz".into(),
        run_id: Some("run-fuzz".into()),
        request: ToolRequest::Rag {
            query: QUERY.into(),
        },
    }
}

fn logs_call() -> ToolCall {
    ToolCall {
        tool_call_id: "call_fuzz".into(),
        run_id: Some("run-fuzz".into()),
        request: ToolRequest::Logs {
            topic: TOPIC.into(),
            query: QUERY.into(),
            lookback_minutes: Some(LOOKBACK),
        },
    }
}

fn execute(context: RunContext, call: &ToolCall, body: &[u8]) -> CallOutcome {
    ToolBoundary::new(context).execute(call, LegacySource::Bytes(body))
}

/// Whether the run uses the small bounds: the first byte's parity. A JSON document may start
/// with whitespace, so a copied fixture is a seed for both (`{…}` is odd, ` {…}` is even) and
/// the whole input is always the legacy response.
fn small_bounds(data: &[u8]) -> bool {
    data.first().is_some_and(|b| b % 2 == 0)
}

/// Invariants every outcome keeps, READY or ERROR.
fn check_outcome(outcome: &CallOutcome, input: &[u8]) {
    // A call through `Bytes` ends READY (0) or with a legacy ERROR (4); preflight (3) can only
    // refuse it for its size, since the request and the run are valid.
    let code = outcome.exit_code();
    match outcome.result() {
        Err(e) if code == 3 => assert_eq!(e.code(), ErrorCode::ResponseTooLarge),
        _ => assert!(code == 0 || code == 4, "exit code {code}"),
    }

    // Every view serializes on its own (render falls back to `null`, which would hide a failure)
    // and reads back as one JSON document.
    let texts = [
        serde_json::to_string(&outcome.envelope()).expect("envelope serializes"),
        serde_json::to_string(&outcome.model_observation()).expect("model view serializes"),
        serde_json::to_string(outcome.control_view()).expect("control view serializes"),
        render::to_text(&render::document(outcome, View::Model, Format::Mcp), true),
    ];
    for text in &texts {
        let parsed: Value = serde_json::from_str(text).expect("every view is valid JSON");
        assert!(!parsed.is_null(), "a view rendered as null");
    }

    let envelope = serde_json::to_value(outcome.envelope()).expect("envelope");
    match outcome.result() {
        Ok(_) => {
            assert_eq!(envelope["status"], "READY");
            assert!(envelope.get("error").is_none(), "READY with an error");
            assert_eq!(outcome.control_view().status, CallStatus::Ready);
        }
        Err(e) => {
            assert_eq!(envelope["status"], "ERROR");
            assert!(
                envelope.get("result").is_none(),
                "an ERROR carries a result"
            );
            assert!(e.message().len() <= 256, "error message over 256 bytes");
            assert!(
                !quotes(e.message().as_bytes(), input),
                "the error message quotes the legacy response: {:?}",
                e.message()
            );
            let model = serde_json::to_value(outcome.model_observation()).expect("model");
            assert!(model.get("result").is_none() && model["error"].get("stage").is_none());
        }
    }
}

/// Whether `message` holds any 16-byte run of `input`: fixed templates never do.
fn quotes(message: &[u8], input: &[u8]) -> bool {
    const RUN: usize = 16;
    let runs: std::collections::HashSet<&[u8]> = message.windows(RUN).collect();
    !runs.is_empty() && input.windows(RUN).any(|i| runs.contains(i))
}

/// Target `legacy_rag`: any bytes as a captured RAG response.
pub fn legacy_rag(data: &[u8]) {
    let limits = if small_bounds(data) { SMALL_RAG } else { "{}" };
    let ctx = context("rag", limits);
    let l = ctx.limits().rag;
    let (max_evidence, max_excerpt, max_field, max_total) = (
        l.max_evidence,
        l.max_excerpt_bytes,
        l.max_field_bytes,
        l.max_total_bytes,
    );
    let outcome = execute(ctx, &rag_call(), data);
    check_outcome(&outcome, data);
    let Ok(result) = outcome.result() else {
        return;
    };
    let ToolResult::Rag(r) = result else {
        panic!("a RAG call returned another tool's result");
    };
    let compact = serde_json::to_string(r).expect("result serializes");
    assert!(
        compact.len() <= max_total,
        "{} > {max_total}",
        compact.len()
    );
    assert_eq!(r.returned_count as usize, r.evidence.len());
    assert!(r.evidence.len() <= max_evidence);
    assert_eq!(r.tool_call_id, "call_fuzz");
    assert_eq!(r.query, QUERY, "the query is passed through unchanged");
    assert_eq!(
        r.evidence_status == EvidenceStatus::Evidence,
        !r.evidence.is_empty()
    );
    assert!(
        r.evidence.is_empty() <= r.relevance_level.is_none(),
        "relevance without evidence"
    );
    for e in &r.evidence {
        assert!(e.excerpt.len() <= max_excerpt);
        assert!(!e.excerpt.trim().is_empty(), "a blank excerpt is evidence");
        assert!(
            !e.document_id.is_empty() || !e.source.is_empty(),
            "evidence without an identity"
        );
        for f in [&e.document_id, &e.source, &e.title, &e.breadcrumb] {
            assert!(f.len() <= max_field);
        }
    }

    // The oracle: the same bytes under bounds that remove nothing.
    let open = execute(context("rag", OPEN_RAG), &rag_call(), data);
    check_outcome(&open, data);
    let Ok(ToolResult::Rag(u)) = open.result() else {
        panic!("READY under small bounds but not under open ones");
    };
    assert!(!u.truncated, "open bounds removed something");
    assert_eq!(
        r.truncated,
        u.evidence != r.evidence,
        "truncated must equal 'something was removed'"
    );
    let mut full = u.evidence.iter();
    for kept in &r.evidence {
        let found = full.by_ref().any(|f| {
            f.excerpt.starts_with(&kept.excerpt)
                && f.document_id.starts_with(&kept.document_id)
                && f.source.starts_with(&kept.source)
                && f.title.starts_with(&kept.title)
                && f.breadcrumb.starts_with(&kept.breadcrumb)
        });
        assert!(found, "kept evidence is not an in-order prefix of the full");
    }
}

/// Target `legacy_logs`: any bytes as a captured Mock log response.
pub fn legacy_logs(data: &[u8]) {
    same_entries_split_or_streamed(data);
    let limits = if small_bounds(data) { SMALL_LOGS } else { "{}" };
    let ctx = context("logs", limits);
    let l = ctx.limits().logs;
    let outcome = execute(ctx, &logs_call(), data);
    check_outcome(&outcome, data);
    if outcome.result().is_ok() {
        check_logs(&outcome, &l, data);
    }
}

/// The log reader cuts each entry out of its buffer and parses it as a slice; serde_json's
/// streaming parser, reading every entry itself, must come to the same entries, summary and
/// failure on any bytes.
fn same_entries_split_or_streamed(data: &[u8]) {
    use aciproj::legacy::logs::{read, read_unsplit};
    let (mut split, mut streamed) = (Vec::new(), Vec::new());
    let a = read(data, &mut |e| split.push(e));
    let b = read_unsplit(data, &mut |e| streamed.push(e));
    assert_eq!(a, b, "split and streamed readers disagree");
    assert_eq!(
        split, streamed,
        "split and streamed readers read different entries"
    );
}

/// The invariants of a READY log result under bounds `l`, with the same bytes under open
/// bounds as the oracle for `truncated`.
fn check_logs(outcome: &CallOutcome, l: &LogsLimits, data: &[u8]) -> LogsToolResult {
    let Ok(ToolResult::Logs(r)) = outcome.result() else {
        panic!("not a READY log result: {:?}", outcome.result());
    };
    let compact = serde_json::to_string(r).expect("result serializes");
    assert!(
        compact.len() <= l.max_total_bytes,
        "{} > {}",
        compact.len(),
        l.max_total_bytes
    );
    assert!(r.patterns.len() <= l.max_patterns);
    assert!(r.timeline.len() <= l.max_events);
    assert_eq!(r.returned_count as usize, r.timeline.len());
    assert!(
        r.match_count >= r.timeline.len() as u64,
        "match_count < entries shown"
    );
    let folded: u64 = r.patterns.iter().map(|p| p.count).sum();
    assert!(r.match_count >= folded, "match_count < entries folded");
    assert_eq!(
        r.evidence_status == EvidenceStatus::Evidence,
        !r.patterns.is_empty() || !r.timeline.is_empty()
    );
    assert_eq!(r.tool_call_id, "call_fuzz");
    assert_eq!(
        (r.scope.topic.as_str(), r.scope.query.as_str()),
        (TOPIC, QUERY),
        "the scope echoes the request"
    );
    assert_eq!(i64::from(r.scope.lookback_minutes), LOOKBACK);
    for p in &r.patterns {
        assert!(p.pattern.len() <= l.max_pattern_bytes);
        assert!(p.services.len() <= l.max_services);
        assert!(p.count >= 1);
        assert!(
            stamp(&p.first_seen) <= stamp(&p.last_seen),
            "first_seen after last_seen"
        );
        for s in &p.services {
            assert!(s.len() <= l.max_field_bytes);
        }
    }
    let mut previous = None;
    for e in &r.timeline {
        assert!(e.message.len() <= l.max_message_bytes);
        assert!(e.service.len() <= l.max_field_bytes);
        let at = stamp(&e.timestamp);
        assert!(previous <= Some(at), "the timeline is not chronological");
        previous = Some(at);
    }

    // The oracle: the same bytes under bounds that remove nothing.
    let open = execute(context("logs", OPEN_LOGS), &logs_call(), data);
    check_outcome(&open, data);
    let Ok(ToolResult::Logs(u)) = open.result() else {
        panic!("READY under bounds but not under open ones");
    };
    let removed = u.truncated || u.patterns != r.patterns || u.timeline != r.timeline;
    assert_eq!(
        r.truncated, removed,
        "truncated must equal 'something was removed'"
    );
    assert_eq!(r.match_count, u.match_count);
    u.clone()
}

fn stamp(text: &str) -> jiff::Timestamp {
    text.parse()
        .unwrap_or_else(|e| panic!("not an RFC 3339 timestamp {text:?}: {e}"))
}

/// Key forms a secret is planted behind (SPEC §5 "Redaction": key kept, value replaced).
#[derive(Debug, Clone, Copy, Arbitrary)]
pub enum SecretKey {
    /// `password=…`
    PasswordEquals,
    /// `password: …`
    PasswordColon,
    /// `"password": "…"`
    JsonPassword,
    /// `密码=…`
    ChinesePassword,
    /// `db_password=…`
    DbPassword,
}

impl SecretKey {
    fn plant(self, secret: &str) -> String {
        match self {
            SecretKey::PasswordEquals => format!("password={secret}"),
            SecretKey::PasswordColon => format!("password: {secret}"),
            SecretKey::JsonPassword => format!("\"password\": \"{secret}\""),
            SecretKey::ChinesePassword => format!("密码={secret}"),
            SecretKey::DbPassword => format!("db_password={secret}"),
        }
    }
}

/// A message built as `<prefix> <key><secret> <suffix>`.
#[derive(Debug, Clone, Arbitrary)]
pub struct PlantedSecret {
    /// Anything before the assignment.
    pub prefix: String,
    /// The key form.
    pub key: SecretKey,
    /// The secret's characters, mapped onto `[A-Za-z0-9]`.
    pub secret: Vec<u8>,
    /// Anything after it.
    pub suffix: String,
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Target `redact`: the first byte picks free text or a planted secret, the rest is structured
/// by `arbitrary`.
pub fn redact_target(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode % 2 == 0 {
        // Free text: the bytes' longest valid UTF-8 prefix.
        let text = match std::str::from_utf8(rest) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).expect("valid prefix"),
        };
        check_redaction(text);
        check_lines(text);
        return;
    }
    let Ok(input) = PlantedSecret::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    let secret: String = input
        .secret
        .iter()
        .map(|b| ALNUM[usize::from(*b) % ALNUM.len()] as char)
        .collect();
    let message = format!(
        "{} {} {}",
        input.prefix,
        input.key.plant(&secret),
        input.suffix
    );
    let out = check_redaction(&message);
    // Only a secret of 8+ characters that appears nowhere else in the message says something.
    if secret.len() >= 8 && message.matches(secret.as_str()).count() == 1 {
        assert!(
            !out.contains(&secret),
            "the planted secret survived: {message:?} -> {out:?}"
        );
    }
}

/// The text's lines read as `aciproj redact` reads them, each after what the lines before it
/// leave open: no panic, and each line's output is one the redactor leaves alone.
fn check_lines(text: &str) {
    let redactor = Redactor::shared();
    let mut context = LineContext::default();
    for line in text.split('\n') {
        let mut counts = RedactionCounts::default();
        let out = redactor.redact_line(&context, line, None, &mut counts);
        let mut again = RedactionCounts::default();
        assert_eq!(
            redact(&out, &mut again),
            out,
            "a line read in context is not a fixed point: {line:?} -> {out:?}"
        );
        context.advance(line);
    }
}

/// No panic, idempotence, and "changed exactly when counted"; returns the redacted text.
fn check_redaction(text: &str) -> String {
    let mut counts = RedactionCounts::default();
    let once = redact(text, &mut counts).into_owned();
    assert_eq!(
        once != text,
        counts.total() > 0,
        "a change must be counted and a count must change something: {text:?} -> {once:?}"
    );
    // The gates only skip rules that would find nothing.
    let mut ungated = RedactionCounts::default();
    let all_rules = redact_ungated(text, &mut ungated);
    assert_eq!(
        (all_rules.as_ref(), ungated),
        (once.as_str(), counts),
        "a gate skipped a rule that finds something in {text:?}"
    );
    let mut again = RedactionCounts::default();
    let twice = redact(&once, &mut again).into_owned();
    assert_eq!(
        twice, once,
        "redact is not idempotent on {text:?}: {once:?} -> {twice:?}"
    );
    once
}

/// Words the projector target builds messages from, so templates repeat and fold.
const WORDS: [&str; 24] = [
    "timeout after 3000ms",
    "连接失败",
    "retry 2 of 5",
    "HTTP 503",
    "v1.2.3 deployed",
    "user=alice",
    "10.0.0.7:6379",
    "pod-payment-service-7d8f9c6b5-x2k4m",
    "db-master-01.prod.internal",
    "ops@example.com",
    "SELECT * FROM t WHERE id = 42",
    "\n\tat com.acme.Pay.run(Pay.java:42)",
    "Caused by: java.io.IOException",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
    "AKIAIOSFODNN7EXAMPLE",
    "😀",
    "\u{202e}",
    "\"",
    "\\",
    "<*>",
    " ",
    "\u{1}",
    "é",
    "pid 4242",
];

/// A timestamp in one of the shapes the Mock source writes.
#[derive(Debug, Clone, Arbitrary)]
pub enum Stamp {
    /// `2026-11-29 09:MM:SS`, no offset (the run's time zone applies).
    Local(u8, u8),
    /// Epoch milliseconds within the window's hour.
    Millis(u32),
    /// RFC 3339 in UTC.
    Rfc3339(u8),
    /// Anything.
    Text(String),
}

impl Stamp {
    fn json(&self) -> Value {
        match self {
            Stamp::Local(m, s) => json!(format!("2026-11-29 09:{:02}:{:02}", m % 60, s % 60)),
            Stamp::Millis(ms) => json!(1_795_914_000_000i64 + i64::from(ms % 3_600_000)),
            Stamp::Rfc3339(m) => json!(format!("2026-11-29T01:{:02}:00Z", m % 60)),
            Stamp::Text(t) => json!(t),
        }
    }
}

/// One piece of a message: a word from [`WORDS`] or free text.
#[derive(Debug, Clone, Arbitrary)]
pub enum Piece {
    /// `WORDS[i % len]`.
    Word(u8),
    /// Anything.
    Free(String),
}

/// One structured log entry.
#[derive(Debug, Clone, Arbitrary)]
pub struct Entry {
    /// When.
    pub stamp: Stamp,
    /// Index into a list of levels (some unknown, some odd-cased).
    pub level: u8,
    /// Index into a list of services.
    pub service: u8,
    /// The message's pieces, joined with spaces.
    pub message: Vec<Piece>,
    /// A secret planted as `password=<secret>`, mapped onto `[A-Za-z0-9]`.
    pub secret: Option<[u8; 12]>,
}

/// Bounds, each mapped into a small range so that they bite.
#[derive(Debug, Clone, Arbitrary)]
pub struct Bounds {
    patterns: u8,
    events: u8,
    message: u8,
    pattern: u8,
    services: u8,
    field: u8,
    total: u16,
}

/// The projector target's input.
#[derive(Debug, Clone, Arbitrary)]
pub struct ProjectorInput {
    /// The log entries, in legacy order.
    pub entries: Vec<Entry>,
    /// How many more the legacy `total` claims than were sent.
    pub extra_total: u8,
    /// The bounds.
    pub bounds: Bounds,
}

const LEVELS: [&str; 8] = [
    "ERROR", "WARN", "INFO", "DEBUG", "FATAL", "warning", "audit", "",
];
const SERVICES: [&str; 5] = [
    "payment-service",
    "order-service",
    "gateway",
    "库存服务",
    "db-master-01.prod.internal",
];

/// Target `projector`: structured entries and bounds through the log projection.
pub fn projector(data: &[u8]) {
    let Ok(input) = ProjectorInput::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    let b = &input.bounds;
    let limits = json!({
        "max_query_bytes": 64, "max_topic_bytes": 64,
        "max_patterns": 1 + b.patterns % 8, "max_events": 1 + b.events % 8,
        "max_message_bytes": 1 + usize::from(b.message), "max_pattern_bytes": 1 + usize::from(b.pattern),
        "max_services": 1 + b.services % 4, "max_field_bytes": 1 + b.field % 64,
        "max_total_bytes": 1000 + usize::from(b.total % 12000),
    });
    let ctx = context("logs", &limits.to_string());
    let l = ctx.limits().logs;

    let mut secrets = Vec::new();
    let logs: Vec<Value> = input
        .entries
        .iter()
        .map(|e| {
            let mut message: Vec<String> = e
                .message
                .iter()
                .map(|p| match p {
                    Piece::Word(i) => WORDS[usize::from(*i) % WORDS.len()].to_owned(),
                    Piece::Free(t) => t.clone(),
                })
                .collect();
            if let Some(raw) = &e.secret {
                let secret: String = raw
                    .iter()
                    .map(|b| ALNUM[usize::from(*b) % ALNUM.len()] as char)
                    .collect();
                message.push(format!("password={secret}"));
                secrets.push(secret);
            }
            json!({
                "timestamp": e.stamp.json(),
                "level": LEVELS[usize::from(e.level) % LEVELS.len()],
                "service": SERVICES[usize::from(e.service) % SERVICES.len()],
                "instance": "pod-instance-7d8f9c6b5-x2k4m",
                "message": message.join(" "),
                "metrics": {"token": "METRIC-SECRET"},
            })
        })
        .collect();
    let sent = logs.len() as u64;
    let total = sent + u64::from(input.extra_total % 4);
    let body = serde_json::to_vec(&json!({
        "success": true, "region": "cn", "log_topic": "LEGACY-TOPIC", "query": "LEGACY-QUERY",
        "logs": logs, "total": total, "message": "ok",
    }))
    .expect("serializes");

    let outcome = execute(ctx, &logs_call(), &body);
    check_outcome(&outcome, &body);
    // A well-formed response is READY.
    let open = check_logs(&outcome, &l, &body);
    let Ok(ToolResult::Logs(r)) = outcome.result() else {
        unreachable!("check_logs asserted READY");
    };
    assert!(r.match_count >= sent && r.match_count >= total);
    assert_eq!(
        open.truncated,
        total > sent,
        "open bounds cut only by `total`"
    );

    // Nothing the legacy side must keep to itself reaches any view.
    let raw = String::from_utf8_lossy(&body);
    let views = [
        serde_json::to_string(&outcome.envelope()).expect("envelope"),
        serde_json::to_string(&outcome.model_observation()).expect("model"),
        serde_json::to_string(outcome.control_view()).expect("control"),
    ];
    for text in &views {
        for fixed in [
            "pod-instance-7d8f9c6b5",
            "METRIC-SECRET",
            "LEGACY-TOPIC",
            "LEGACY-QUERY",
        ] {
            assert!(!text.contains(fixed), "{fixed} leaked");
        }
        for secret in &secrets {
            // Only a secret that appears nowhere else in the response says something.
            if raw.matches(secret.as_str()).count() == 1 {
                assert!(
                    !text.contains(secret.as_str()),
                    "planted secret {secret} leaked"
                );
            }
        }
    }
}
