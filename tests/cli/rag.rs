//! The RAG projection: seed scenarios (001 and 004) and snapshots of every bundled response.

use serde_json::Value;

use crate::common::{Aci, active, fixture};

fn evidence(v: &Value) -> &Vec<Value> {
    v["result"]["evidence"]
        .as_array()
        .expect("evidence is an array")
}

/// Seed 001 "RAG evidence is projected".
#[test]
fn rag_evidence_is_projected() {
    let query = "Kafka 消费者 lag 持续升高 如何排查";
    let ran = Aci::rag(active(), "call_kafka_01", query)
        .response("rag/kafka-consumer-lag.json")
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let v = ran.json();
    let r = &v["result"];
    assert_eq!(r["query"], query, "the original query, unchanged");
    assert_eq!(r["tool_call_id"], "call_kafka_01");
    assert_eq!(r["evidence_status"], "EVIDENCE");
    // The fourth block has a blank excerpt: not usable.
    assert_eq!(r["returned_count"], 3);
    assert_eq!(evidence(&v).len(), 3);
    assert_eq!(r["truncated"], false);
    // Excerpts are exact: each is the legacy excerpt (or snippet / chunkText) itself.
    let raw: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("rag/kafka-consumer-lag.json")).unwrap(),
    )
    .unwrap();
    let blocks = raw["contextPack"]["blocks"].as_array().unwrap();
    for (item, block) in evidence(&v).iter().zip(blocks) {
        let legacy = ["excerpt", "snippet", "chunkText"]
            .iter()
            .find_map(|k| block[k].as_str())
            .unwrap();
        assert_eq!(item["excerpt"], legacy);
        assert_eq!(item["document_id"], block["documentId"]);
    }
    // Exactly the frozen fields.
    let keys: Vec<_> = r.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "evidence_status",
            "tool_call_id",
            "query",
            "evidence",
            "returned_count",
            "relevance_level",
            "truncated"
        ]
    );
    let item_keys: Vec<_> = evidence(&v)[0]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    assert_eq!(
        item_keys,
        ["document_id", "source", "title", "breadcrumb", "excerpt"]
    );
}

/// Seed 004 "RAG evidence is serialized": no context pack, traces, scores, fallback attempts,
/// metadata or full document bodies in the canonical JSON.
#[test]
fn rag_evidence_is_serialized() {
    let ran = Aci::rag(active(), "call_kafka_02", "kafka lag")
        .response("rag/kafka-consumer-lag.json")
        .run();
    let text = &ran.stdout;
    for forbidden in [
        "contextPack",
        "retrievalTrace",
        "rerankTrace",
        "score",
        "rerankScore",
        "hitReason",
        "domain",
        "fallback",
        "metadata",
        "content",
        "全文正文",
        "kafka-sasl-pass-2026",
        "10.12.3.41",
        "0.9231",
        "bm25",
    ] {
        assert!(!text.contains(forbidden), "{forbidden} leaked: {text}");
    }
    assert_eq!(ran.json()["result"]["relevance_level"], "HIGH");
}

/// Seed 001 "RAG result has no usable excerpt" and seed 004 "RAG query has no evidence".
#[test]
fn rag_result_has_no_usable_excerpt() {
    let query = "Pod OOMKilled 怎么办";
    let ran = Aci::rag(active(), "call_oom", query)
        .response("rag/no-usable-excerpt.json")
        .run();
    assert_eq!(ran.code, 0);
    let r = ran.json()["result"].clone();
    assert_eq!(r["evidence_status"], "NO_EVIDENCE");
    assert_eq!(r["query"], query);
    assert_eq!(r["tool_call_id"], "call_oom");
    assert_eq!(r["evidence"], Value::Array(vec![]));
    assert_eq!(r["returned_count"], 0);
    assert_eq!(r["truncated"], false);
}

/// Seed 004 "RAG query has no evidence": relevance is not upgraded into evidence.
#[test]
fn rag_query_has_no_evidence() {
    let ran = Aci::rag(active(), "call_oom_2", "oom")
        .response("rag/no-usable-excerpt.json")
        .run();
    let v = ran.json();
    assert_eq!(v["result"]["evidence_status"], "NO_EVIDENCE");
    assert!(
        v["result"].get("relevance_level").is_none(),
        "HIGH upstream relevance is not shown without evidence"
    );
    // The harness still learns what upstream said.
    let harness = Aci::rag(active(), "call_oom_3", "oom")
        .args(["--view", "harness"])
        .response("rag/no-usable-excerpt.json")
        .run();
    assert_eq!(harness.json()["relevance_level"], "HIGH");
    // The older `no_results` status object is the same outcome.
    let ran = Aci::rag(active(), "call_none", "nginx 502")
        .response("rag/legacy-no-results.json")
        .run();
    assert_eq!(ran.code, 0);
    assert_eq!(ran.json()["result"]["evidence_status"], "NO_EVIDENCE");
}

/// Seed 001 "RAG duplicate documents".
#[test]
fn rag_duplicate_documents_keep_first() {
    let run = || {
        Aci::rag(active(), "call_dup", "mysql 慢查询")
            .response("rag/duplicates.json")
            .run()
    };
    let first = run();
    let v = first.json();
    let items = evidence(&v);
    let ids: Vec<_> = items
        .iter()
        .map(|e| {
            (
                e["document_id"].as_str().unwrap(),
                e["source"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            ("kb-mysql-0005", "runbooks/mysql/slow-query.md"),
            ("", "wiki/mysql/innodb-buffer.md"),
            ("kb-mysql-0009", "runbooks/mysql/slow-query.md")
        ]
    );
    // The first block of each identity wins, in legacy order.
    assert!(
        items[0]["excerpt"]
            .as_str()
            .unwrap()
            .starts_with("先看 slow_query_log")
    );
    assert_eq!(items[1]["title"], "InnoDB Buffer Pool 命中率");
    assert_eq!(
        v["result"]["truncated"], false,
        "dropping duplicates is not truncation"
    );
    // Deterministic: byte-identical on a second run.
    assert_eq!(first.stdout, run().stdout);
}

/// Seed 004 "Model receives RAG observation".
#[test]
fn model_receives_rag_observation() {
    let ran = Aci::rag(active(), "call_model", "Redis 内存碎片")
        .args(["--view", "model"])
        .response("rag/redis-fragmentation-snake.json")
        .run();
    assert_eq!(ran.code, 0);
    let v = ran.json();
    let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "status",
            "tool_call_id",
            "evidence_status",
            "query",
            "evidence",
            "relevance_level",
            "truncated"
        ]
    );
    assert_eq!(v["relevance_level"], "MEDIUM", "中 normalizes to MEDIUM");
    assert_eq!(v["query"], "Redis 内存碎片");
    for forbidden in [
        "returned_count",
        "run_id",
        "score",
        "fingerprint",
        "budget",
        "observation_bytes",
        "run-20261129",
    ] {
        assert!(!ran.stdout.contains(forbidden), "{forbidden} in model view");
    }
}

/// Seed 001 "Projection exceeds collection budget" (RAG side): valid JSON, bounded collections,
/// `truncated=true`.
#[test]
fn rag_projection_exceeds_collection_budget() {
    let ran = Aci::rag(
        fixture("contexts/tight-bounds.json"),
        "call_big",
        "jvm full gc",
    )
    .response("rag/oversized.json")
    .run();
    assert_eq!(ran.code, 0);
    let v = ran.json();
    let r = &v["result"];
    assert_eq!(r["truncated"], true);
    let compact = serde_json::to_string(r).unwrap();
    assert!(
        compact.len() <= 900,
        "within max_total_bytes: {}",
        compact.len()
    );
    let items = evidence(&v);
    assert!(!items.is_empty() && items.len() <= 2);
    assert_eq!(r["returned_count"], items.len());
    for item in items {
        assert!(item["excerpt"].as_str().unwrap().len() <= 120);
        for field in ["document_id", "source", "title", "breadcrumb"] {
            assert!(item[field].as_str().unwrap().len() <= 24, "{field}");
        }
    }
}

#[test]
fn legacy_bare_array_is_projected() {
    let ran = Aci::rag(active(), "call_nginx", "nginx 502")
        .response("rag/legacy-array.json")
        .run();
    assert_eq!(ran.code, 0);
    let v = ran.json();
    let items = evidence(&v);
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["breadcrumb"], "Nginx 手册 > 错误码 > 502");
    assert_eq!(items[1]["breadcrumb"], "Nginx 手册 > 错误码 > 504");
    assert_eq!(
        items[2]["document_id"], "90017",
        "unreadable metadata falls back to the hit id"
    );
    assert!(!ran.stdout.contains("0.82"));
}

#[test]
fn legacy_failures_are_errors_without_results() {
    for (file, code) in [
        ("rag/failure.json", "LEGACY_FAILURE"),
        ("rag/legacy-error.json", "LEGACY_FAILURE"),
        ("rag/malformed.json", "LEGACY_MALFORMED"),
    ] {
        let ran = Aci::rag(active(), "call_err", "q").response(file).run();
        assert_eq!(ran.code, 4, "{file}");
        let v = ran.json();
        assert_eq!(v["status"], "ERROR");
        assert_eq!(v["error"]["stage"], "legacy");
        assert_eq!(v["error"]["code"], code);
        assert!(v.get("result").is_none());
        for leak in [
            "10.2.3.4",
            "sk_live",
            "kb-svc-7d8f9c6b5-x2k4m",
            "Search.java",
            "不可用",
        ] {
            assert!(!ran.stdout.contains(leak), "{leak} quoted in the error");
        }
    }
}

/// Every bundled RAG response, in every view, against a reviewed snapshot.
#[test]
fn rag_fixture_snapshots() {
    for (name, file) in crate::common::fixture_files("rag") {
        for view in ["envelope", "model", "harness"] {
            let ran = Aci::rag(active(), "call_snap", "Kafka 消费积压 排查")
                .args(["--view", view, "--pretty"])
                .arg(&file)
                .run();
            insta::assert_snapshot!(
                format!("rag__{name}__{view}"),
                format!("exit {}\n{}", ran.code, ran.stdout)
            );
        }
    }
}
