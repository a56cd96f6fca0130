//! A Rust agent harness embedding `aciproj`: one run, several calls, a ledger, every view.
//!
//! The harness validates its run context once, makes one boundary for the run and sends each
//! tool call through it with the legacy tool's captured response. Duplicates and budgets count
//! across the calls, every admitted call is appended to the hash-chained ledger, and the harness
//! picks what to hand the model (the model observation, or an MCP `CallToolResult`) and what to
//! keep for itself (the control view). Nothing here starts a thread or touches the process:
//! `ToolBoundary::parallel` is left off.
//!
//! Run it with `cargo run --example harness` (CI does); it checks its own results and exits 1
//! on a surprise.

use aciproj::contracts::CallStatus;
use aciproj::{
    ErrorCode, Format, LegacySource, RunContext, ToolBoundary, ToolCall, ToolRequest, View,
};

const RAG_RESPONSE: &str = r#"{"success": true, "contextPack": {"blocks": [
    {"documentId": "kb-redis-7", "title": "Redis 内存碎片", "breadcrumb": "运维 > Redis",
     "excerpt": "碎片率高于 1.5 时执行 MEMORY PURGE，并检查 activedefrag 配置。", "score": 0.93},
    {"documentId": "kb-redis-7", "title": "Redis 内存碎片", "excerpt": "重复的块", "score": 0.5}
]}}"#;

const LOGS_RESPONSE: &str = r#"{"success": true, "total": 4, "logs": [
    {"timestamp": "2026-11-29 09:41:02", "level": "ERROR", "service": "payment",
     "message": "timeout calling 10.2.3.4:6379 after 3000ms password=hunter2"},
    {"timestamp": "2026-11-29 09:42:10", "level": "ERROR", "service": "payment",
     "message": "timeout calling 10.2.3.5:6379 after 3001ms password=swordfish"},
    {"timestamp": "2026-11-29 09:43:00", "level": "WARN", "service": "gateway",
     "message": "retrying order 8812 for alice@example.com"},
    {"timestamp": "2026-11-29 09:44:30", "level": "INFO", "service": "payment",
     "message": "recovered"}
]}"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. The run context, validated once. Its ledger path is relative to `base_dir`.
    let dir = tempfile::tempdir()?;
    let context = RunContext::from_slice(
        br#"{
            "run_id": "run-42", "status": "ACTIVE", "authorized_tools": ["rag", "logs"],
            "now": "2026-11-29T10:00:00+08:00", "timezone": "Asia/Shanghai",
            "budget": {"max_tool_calls": 3},
            "ledger": "ledger.jsonl"
        }"#,
        dir.path(),
    )?;
    let ledger = context
        .ledger()
        .expect("the context names a ledger")
        .to_owned();

    // 2. One boundary for the run: its ledger and counters span every call.
    let mut boundary = ToolBoundary::new(context);
    let call = |id: &str, request| ToolCall {
        tool_call_id: id.into(),
        run_id: Some("run-42".into()),
        request,
    };
    let rag = || ToolRequest::Rag {
        query: "Redis 内存碎片".into(),
    };

    // 3. The calls, each with the legacy tool's captured response.
    let first = boundary.execute(
        &call("call_1", rag()),
        LegacySource::Bytes(RAG_RESPONSE.as_bytes()),
    );
    let logs_request = ToolRequest::Logs {
        topic: "application-logs".into(),
        query: "payment timeout".into(),
        lookback_minutes: Some(30),
    };
    let logs = boundary.execute(
        &call("call_2", logs_request),
        LegacySource::Bytes(LOGS_RESPONSE.as_bytes()),
    );
    // The same scope again: admitted, but flagged as a duplicate of call_1.
    let again = boundary.execute(
        &call("call_3", rag()),
        LegacySource::Bytes(RAG_RESPONSE.as_bytes()),
    );
    // Over the run's budget of three calls: refused before the response is read.
    let over = boundary.execute(
        &call("call_4", rag()),
        LegacySource::Bytes(RAG_RESPONSE.as_bytes()),
    );

    // 4. The three views of a call, and the MCP result a harness hands an MCP client.
    let envelope = aciproj::render::view_value(&logs, View::Envelope);
    let model = aciproj::render::view_value(&logs, View::Model);
    let control = aciproj::render::view_value(&logs, View::Harness);
    let mcp = aciproj::render::document(&first, View::default(), Format::Mcp);
    println!("envelope (call_2): {envelope}");
    println!("model observation (call_2): {model}");
    println!("control view (call_2): {control}");
    println!("MCP result (call_1): {mcp}");

    let text = model.to_string();
    check(
        !text.contains("hunter2") && !text.contains("10.2.3.4"),
        "secrets and hosts are redacted",
    )?;
    check(
        !mcp.to_string().contains("score"),
        "scores never reach the agent",
    )?;
    check(mcp["isError"] == false, "call_1 is not an error")?;
    check(
        first.control_view().status == CallStatus::Ready,
        "call_1 is READY",
    )?;
    check(logs.exit_code() == 0, "call_2 is READY")?;
    check(
        again.control_view().duplicate_of.as_deref() == Some("call_1"),
        "call_3 is flagged as a duplicate of call_1",
    )?;
    let refused = over.result().err().map(|e| e.code());
    check(
        refused == Some(ErrorCode::BudgetExhausted),
        "call_4 is over budget",
    )?;
    println!(
        "call_4: {}",
        aciproj::render::to_text(&over.envelope(), false).trim_end()
    );

    // 5. Afterwards: the ledger's hash chain is intact and ends at the head the last recorded
    // call handed the harness.
    let head = again.control_view().ledger_head.clone();
    let report = aciproj::verify_ledger(&ledger, head.as_deref())?;
    let mut verdict = Vec::new();
    report.write(&mut verdict)?;
    print!("ledger: {}", String::from_utf8_lossy(&verdict));
    check(report.is_intact(), "the ledger's chain is intact")?;
    check(report.records == 3, "three admitted calls were recorded")?;
    Ok(())
}

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("unexpected: not true that {what}"))
    }
}
