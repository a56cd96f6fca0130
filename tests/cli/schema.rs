//! `aciproj schema`: every contract's schema, and every real output validated against it.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::{Aci, MISSING_RESPONSE, active, context_with, fixture};

const NAMES: [&str; 10] = [
    "envelope",
    "rag-result",
    "logs-result",
    "rag-observation",
    "logs-observation",
    "control-view",
    "context",
    "case",
    "incident-call",
    "ledger-record",
];

fn schema(name: &str) -> Value {
    let ran = Aci::new(["schema", name]).run();
    assert_eq!(ran.code, 0, "{name}: {}", ran.stderr);
    ran.json()
}

struct Validator {
    name: &'static str,
    inner: jsonschema::Validator,
}

impl Validator {
    fn new(name: &'static str) -> Self {
        let inner = jsonschema::validator_for(&schema(name))
            .unwrap_or_else(|e| panic!("{name} is a valid schema: {e}"));
        Self { name, inner }
    }

    fn assert_valid(&self, instance: &Value, what: &str) {
        let errors: Vec<String> = self
            .inner
            .iter_errors(instance)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{what} does not validate against {}: {errors:#?}\n{instance}",
            self.name
        );
    }

    fn assert_invalid(&self, instance: &Value, what: &str) {
        assert!(
            !self.inner.is_valid(instance),
            "{what} should not validate against {}",
            self.name
        );
    }
}

#[test]
fn schema_lists_every_name_and_rejects_unknown_ones() {
    let ran = Aci::new(["schema"]).run();
    assert_eq!(ran.code, 0);
    assert_eq!(ran.stdout.lines().collect::<Vec<_>>(), NAMES);
    assert_eq!(Aci::new(["schema", "evidence"]).run().code, 2);
    for name in NAMES {
        let s = schema(name);
        assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(s["title"], format!("aciproj {name}"));
    }
}

#[test]
fn frozen_contracts_have_no_additional_properties() {
    for name in ["envelope", "rag-result", "logs-result", "control-view"] {
        assert_eq!(schema(name)["additionalProperties"], false, "{name}");
    }
    let rag = schema("rag-result");
    assert_eq!(rag["$defs"]["RagEvidence"]["additionalProperties"], false);
    let logs = schema("logs-result");
    for def in ["LogsScope", "LogPattern", "TimelineEvent"] {
        assert_eq!(logs["$defs"][def]["additionalProperties"], false, "{def}");
    }
    for (name, def) in [
        ("rag-observation", "RagObservation"),
        ("rag-observation", "ErrorObservation"),
        ("logs-observation", "LogsObservation"),
    ] {
        assert_eq!(
            schema(name)["$defs"][def]["additionalProperties"],
            false,
            "{def}"
        );
    }
}

/// Every view of every bundled RAG response, plus error outputs of each stage, validates.
#[test]
fn every_output_validates_against_its_schema() {
    let envelope = Validator::new("envelope");
    let result = Validator::new("rag-result");
    let model = Validator::new("rag-observation");
    let control = Validator::new("control-view");

    let mut responses: Vec<PathBuf> = std::fs::read_dir(fixture("rag"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    responses.sort();
    let tight = fixture("contexts/tight-bounds.json");
    let completed = fixture("contexts/completed.json");
    let broken_context = context_with(json!({"budget": {"max_tool_calls": "many"}}));
    // A context that keeps a ledger: the control view then carries `ledger_head`.
    let kept = context_with(json!({"ledger": "l.jsonl", "budget": {"max_tool_calls": 1000}}));
    let mut runs: Vec<(String, Aci)> = Vec::new();
    for file in &responses {
        for ctx in [active(), tight.clone()] {
            runs.push((
                format!("{} with {}", file.display(), ctx.display()),
                Aci::rag(&ctx, "call_schema", "kafka lag").arg(file),
            ));
        }
    }
    runs.push((
        "preflight error".into(),
        Aci::rag(&completed, "call_x", "q").arg(MISSING_RESPONSE),
    ));
    runs.push((
        "invalid call id".into(),
        Aci::rag(active(), &"c".repeat(200), "q").arg(MISSING_RESPONSE),
    ));
    runs.push((
        "input error".into(),
        Aci::rag(&broken_context.path, "call_x", "q").arg(MISSING_RESPONSE),
    ));
    let mut statuses = std::collections::BTreeSet::new();
    for (what, aci) in runs {
        let base = aci;
        let outputs = [
            ("envelope", base.clone_with(["--view", "envelope"]).run()),
            ("model", base.clone_with(["--view", "model"]).run()),
            ("harness", base.clone_with(["--view", "harness"]).run()),
            ("mcp", base.clone_with(["--format", "mcp"]).run()),
        ];
        for (view, ran) in outputs {
            let v = ran.json();
            let what = format!("{what} ({view}, exit {})", ran.code);
            statuses.insert(ran.code);
            match view {
                "envelope" => {
                    envelope.assert_valid(&v, &what);
                    if let Some(r) = v.get("result") {
                        result.assert_valid(r, &what);
                    }
                }
                "model" => model.assert_valid(&v, &what),
                "harness" => control.assert_valid(&v, &what),
                _ => {
                    model.assert_valid(&v["structuredContent"], &what);
                    control.assert_valid(&v["_meta"]["aciproj/control"], &what);
                }
            }
        }
    }
    // With a ledger kept, each view is its own admitted call (a fresh id each); every line the
    // ledger holds then validates too.
    let record = Validator::new("ledger-record");
    for (i, file) in responses.iter().enumerate() {
        for view in ["harness", "envelope", "model"] {
            let ran = Aci::rag(&kept.path, &format!("call_{i}_{view}"), "kafka lag")
                .arg(file)
                .args(["--view", view])
                .run();
            let v = ran.json();
            let what = format!("{} with a ledger ({view})", file.display());
            match view {
                "harness" => {
                    control.assert_valid(&v, &what);
                    assert!(v["ledger_head"].is_string() || ran.code == 3, "{what}: {v}");
                }
                "envelope" => envelope.assert_valid(&v, &what),
                _ => model.assert_valid(&v, &what),
            }
        }
        let mcp = Aci::rag(&kept.path, &format!("call_{i}_mcp"), "kafka lag")
            .arg(file)
            .args(["--format", "mcp"])
            .run()
            .json();
        control.assert_valid(&mcp["_meta"]["aciproj/control"], "mcp with a ledger");
        model.assert_valid(&mcp["structuredContent"], "mcp with a ledger");
    }
    let ledger = std::fs::read_to_string(kept.dir.path().join("l.jsonl")).unwrap();
    assert!(ledger.lines().count() >= responses.len(), "{ledger}");
    for line in ledger.lines() {
        record.assert_valid(&serde_json::from_str(line).unwrap(), line);
    }
    record.assert_invalid(
        &json!({"tool_call_id": "c", "tool": "rag", "prev_sha256": "x", "extra": 1}),
        "a record with a field the ledger never writes",
    );
    // READY, preflight, legacy and input outputs were all among them.
    assert_eq!(
        statuses.into_iter().collect::<Vec<_>>(),
        [0, 3, 4, 5],
        "exit codes covered"
    );
}

#[test]
fn replayed_outputs_validate() {
    let envelope = Validator::new("envelope");
    let model = Validator::new("rag-observation");
    let control = Validator::new("control-view");
    for (view, validator) in [
        ("envelope", &envelope),
        ("model", &model),
        ("harness", &control),
    ] {
        let ran = Aci::new(["replay", "--view", view])
            .arg(fixture("incidents/redis-latency"))
            .run();
        assert_eq!(ran.code, 0);
        for line in ran.stdout.lines() {
            validator.assert_valid(&serde_json::from_str(line).unwrap(), view);
        }
    }
}

/// The logs contract is validated on library-built results until the log projection lands; its
/// real outputs join `every_output_validates_against_its_schema` then.
#[test]
fn logs_contracts_validate_library_results() {
    use aciproj::contracts::{ModelObservation, ToolResult};
    let logs = aciproj::contracts::LogsToolResult::worst_case_empty(
        "call_1".into(),
        "app".into(),
        "error".into(),
    );
    let value = serde_json::to_value(&logs).unwrap();
    Validator::new("logs-result").assert_valid(&value, "empty logs result");
    let observation = ModelObservation::of_result(&ToolResult::Logs(logs));
    Validator::new("logs-observation").assert_valid(
        &serde_json::to_value(&observation).unwrap(),
        "logs observation",
    );
}

/// A logs call with correlation labels: the context that asks for them and every view.
#[test]
fn correlated_logs_outputs_validate() {
    let ctx_json = json!({"redaction": {"correlate": true}, "ledger": null});
    let ctx = context_with(ctx_json.clone());
    let mut file = serde_json::from_str::<Value>(
        &std::fs::read_to_string(fixture("contexts/active.json")).unwrap(),
    )
    .unwrap();
    file["redaction"] = ctx_json["redaction"].clone();
    Validator::new("context").assert_valid(&file, "a context with redaction.correlate");
    let base = Aci::logs(&ctx.path, "call_c", "application-logs", "timeout")
        .arg(fixture("logs/application-logs.json"));
    let harness = base.clone_with(["--view", "harness"]).run().json();
    Validator::new("control-view").assert_valid(&harness, "correlated harness view");
    assert!(harness["correlation"]["distinct"].is_object(), "{harness}");
    let envelope = base.clone_with(["--view", "envelope"]).run().json();
    Validator::new("envelope").assert_valid(&envelope, "correlated envelope");
    Validator::new("logs-result").assert_valid(&envelope["result"], "correlated result");
    let model = base.clone_with(["--view", "model"]).run().json();
    Validator::new("logs-observation").assert_valid(&model, "correlated model view");
}

#[test]
fn schemas_have_teeth() {
    let result = Validator::new("rag-result");
    let ran = Aci::rag(active(), "c", "q")
        .response("rag/duplicates.json")
        .run();
    let good = ran.json()["result"].clone();
    result.assert_valid(&good, "real result");
    let mut scored = good.clone();
    scored["evidence"][0]["score"] = json!(0.9);
    result.assert_invalid(&scored, "evidence with a score");
    let mut extra = good.clone();
    extra["retrievalTrace"] = json!({});
    result.assert_invalid(&extra, "result with a trace");
    let mut wrong = good;
    wrong["relevance_level"] = json!("VERY_HIGH");
    result.assert_invalid(&wrong, "unknown relevance level");
    Validator::new("rag-observation").assert_invalid(
        &json!({"status": "ERROR", "tool_call_id": "c", "error": {"code": "INVALID_REQUEST",
            "message": "m", "stage": "preflight"}}),
        "a model error with a stage",
    );
}

#[test]
fn operator_files_validate() {
    let case = Validator::new("case");
    let context = Validator::new("context");
    let call = Validator::new("incident-call");
    let mut cases: Vec<PathBuf> = ["cases/rag", "cases/logs"]
        .iter()
        .flat_map(|dir| std::fs::read_dir(fixture(dir)).unwrap())
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() >= 80, "{} cases", cases.len());
    for path in cases {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        case.assert_valid(&v, &path.display().to_string());
    }
    for name in [
        "active",
        "completed",
        "logs-only",
        "prior-calls",
        "tight-bounds",
        "first-call",
    ] {
        let path = fixture(&format!("contexts/{name}.json"));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        context.assert_valid(&v, name);
    }
    for name in ["redis-latency", "payment-outage"] {
        let incident = fixture(&format!("incidents/{name}"));
        let v: Value =
            serde_json::from_str(&std::fs::read_to_string(incident.join("context.json")).unwrap())
                .unwrap();
        context.assert_valid(&v, name);
        for line in std::fs::read_to_string(incident.join("calls.jsonl"))
            .unwrap()
            .lines()
        {
            call.assert_valid(&serde_json::from_str(line).unwrap(), line);
        }
    }
    context.assert_invalid(
        &json!({"run_id": "r", "status": "ACTIVE", "now": "x", "budgett": {}}),
        "a context with a typo",
    );
}

#[test]
fn case_and_incident_call_schemas_say_exactly_one_of() {
    let case = Validator::new("case");
    let base = json!({"name": "n", "tool": "rag", "request": {"call_id": "c", "query": "q"},
        "expect": {"exit_code": 0}});
    let with = |extra: Value| {
        let mut v = base.clone();
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    case.assert_valid(
        &with(json!({"context_file": "c.json", "response_file": "r.json"})),
        "one of each",
    );
    case.assert_valid(
        &with(json!({"context": {}, "response": {"success": true}})),
        "inline both",
    );
    for (extra, what) in [
        (json!({"context_file": "c.json"}), "no response"),
        (json!({"response_file": "r.json"}), "no context"),
        (
            json!({"context_file": "c.json", "context": {}, "response_file": "r.json"}),
            "both contexts",
        ),
        (
            json!({"context_file": "c.json", "response_file": "r.json", "response": 1}),
            "both responses",
        ),
        (
            json!({"context_file": "c.json", "response": null}),
            "a null response is no response",
        ),
    ] {
        case.assert_invalid(&with(extra), what);
    }
    let call = Validator::new("incident-call");
    let line = json!({"tool_call_id": "c", "tool": "rag", "arguments": {"query": "q"}});
    let mut both = line.clone();
    both["response"] = json!({});
    both["response_file"] = json!("r.json");
    call.assert_invalid(&both, "both responses");
    call.assert_invalid(&line, "no response");
    let mut one = line.clone();
    one["response_file"] = json!("r.json");
    call.assert_valid(&one, "a response file");
}

/// The control view's schema lists the truncation keys, so a harness can match on them.
#[test]
fn control_view_schema_lists_the_truncation_keys() {
    let control = schema("control-view");
    let names = &control["properties"]["truncation"]["propertyNames"];
    assert_eq!(names["$ref"], "#/$defs/Truncation", "{names}");
    let keys: Vec<&str> = control["$defs"]["Truncation"]["oneOf"]
        .as_array()
        .expect("one entry per key")
        .iter()
        .map(|k| k["const"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        keys,
        [
            "entries", "evidence", "excerpt", "field", "message", "pattern", "patterns",
            "services", "timeline", "total"
        ]
    );
}

/// A live call's control view carries `legacy_exit` and `legacy_stderr_bytes`, READY or not,
/// and still validates; the schema knows both fields.
#[cfg(unix)]
#[test]
fn live_call_outputs_validate() {
    let control = Validator::new("control-view");
    let mock = crate::common::root().join("fixtures/bin/mock-logs");
    let response = fixture("logs/application-logs.json");
    for (command, status) in [
        (vec![mock.to_str().unwrap(), "{topic}", "{query}"], "READY"),
        (
            vec!["sh", "-c", "cat \"$0\"; exit 2", response.to_str().unwrap()],
            "ERROR",
        ),
    ] {
        let base = Aci::logs(active(), "call_l", "application-logs", "timeout");
        let harness = base
            .clone_with(["--view", "harness", "--"])
            .args(command.iter().copied())
            .run()
            .json();
        assert_eq!(harness["status"], status, "{harness}");
        assert!(harness["legacy_exit"].is_i64() && harness["legacy_stderr_bytes"].is_u64());
        control.assert_valid(&harness, "a live call's harness view");
        let mcp = base
            .clone_with(["--format", "mcp", "--"])
            .args(command.iter().copied())
            .run()
            .json();
        control.assert_valid(
            &mcp["_meta"]["aciproj/control"],
            "a live call's MCP control",
        );
    }
    let properties = &schema("control-view")["properties"];
    assert!(properties["legacy_exit"].is_object() && properties["legacy_stderr_bytes"].is_object());
}
