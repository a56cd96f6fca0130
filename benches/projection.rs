//! Function-level benchmarks: `cargo bench`. Whole-command ratios against the parse floor are in
//! `bench/run.sh`; these isolate the pieces so a regression can be found by name.

use std::hint::black_box;

use aciproj::RunContext;
use aciproj::boundary::{LegacySource, ToolBoundary, ToolCall, ToolRequest};
use aciproj::legacy::logs;
use aciproj::patterns::TemplateMiner;
use aciproj::redact::{RedactionCounts, redact};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const CONTEXT: &str = r#"{"run_id":"run-bench","status":"ACTIVE","authorized_tools":["*"],
    "now":"2026-11-29T10:00:00+08:00","timezone":"Asia/Shanghai",
    "budget":{"max_tool_calls":1000000000,"max_observation_bytes":1000000000000}}"#;

fn corpus_lines() -> Vec<String> {
    include_str!("../fixtures/redaction/corpus.jsonl")
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["line"].as_str().map(str::to_owned))
        .collect()
}

fn mock_response(entries: usize) -> Vec<u8> {
    let lines = corpus_lines();
    let logs: Vec<_> = (0..entries)
        .map(|i| {
            let level = ["INFO", "WARN", "ERROR"][i % 3];
            serde_json::json!({
                "timestamp": format!("2026-11-29 09:{:02}:{:02}", (i / 60) % 60, i % 60),
                "level": level,
                "service": "payment-service",
                "instance": "pod-payment-service-7d8f9c6b5-x2k4m",
                "message": lines[i % lines.len()],
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"success": true, "logs": logs, "total": entries}))
        .unwrap()
}

fn benches(c: &mut Criterion) {
    let lines = corpus_lines();
    let mut group = c.benchmark_group("redact");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("corpus", |b| {
        b.iter(|| {
            let mut counts = RedactionCounts::default();
            for line in &lines {
                black_box(redact(black_box(line), &mut counts));
            }
        })
    });
    group.finish();

    let mut group = c.benchmark_group("miner");
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.bench_function("corpus", |b| {
        b.iter(|| {
            let mut miner = TemplateMiner::new();
            for line in &lines {
                black_box(miner.insert(black_box(line)));
            }
        })
    });
    group.finish();

    // The log reader alone: entries cut out of the buffer and parsed as slices (`read`), and
    // every entry parsed by serde_json's streaming parser (`read_unsplit`, the tests' oracle).
    let response = mock_response(10_000);
    let mut group = c.benchmark_group("read_logs");
    group.throughput(Throughput::Bytes(response.len() as u64));
    group.bench_function("split", |b| {
        b.iter(|| {
            black_box(logs::read(black_box(&response[..]), &mut |e| {
                drop(black_box(e))
            }))
        })
    });
    group.bench_function("streamed", |b| {
        b.iter(|| {
            black_box(logs::read_unsplit(black_box(&response[..]), &mut |e| {
                drop(black_box(e))
            }))
        })
    });
    group.finish();

    let context = RunContext::from_slice(CONTEXT.as_bytes(), std::path::Path::new(".")).unwrap();
    let rag = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/rag/oversized.json"
    ))
    .unwrap();
    let mut group = c.benchmark_group("boundary");
    group.bench_function("rag_oversized", |b| {
        b.iter(|| {
            let mut boundary = ToolBoundary::new(context.clone());
            let call = ToolCall {
                tool_call_id: "c".into(),
                run_id: None,
                request: ToolRequest::Rag { query: "q".into() },
            };
            black_box(boundary.execute(&call, LegacySource::Bytes(&rag)))
        })
    });
    group.throughput(Throughput::Elements(10_000));
    group.sample_size(20);
    group.bench_function("logs_10k_entries", |b| {
        b.iter(|| {
            // As the command line runs it: the second core prepares entries.
            let mut boundary = ToolBoundary::new(context.clone()).parallel(true);
            let request = ToolRequest::Logs {
                topic: "t".into(),
                query: "q".into(),
                lookback_minutes: None,
            };
            let call = ToolCall {
                tool_call_id: "c".into(),
                run_id: None,
                request,
            };
            black_box(boundary.execute(&call, LegacySource::Bytes(&response)))
        })
    });
    group.finish();
}

criterion_group!(projection, benches);
criterion_main!(projection);
