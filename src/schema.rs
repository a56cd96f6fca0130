//! `aciproj schema`: JSON Schemas (draft 2020-12) of every contract, generated from the Rust types.
//!
//! The schemas come from the same types that serialize the outputs (`schemars` reads their serde
//! attributes), so a schema cannot drift from what aciproj prints; the test suite validates real
//! outputs of every view against them. Frozen contracts are `deny_unknown_fields`, which becomes
//! `additionalProperties: false`. The two model-observation schemas cover what `--view model`
//! prints for one tool: its READY observation or the error observation.

use schemars::{JsonSchema, Schema, schema_for};
use serde_json::Value;

use crate::context::RunContextFile;
use crate::contracts::{
    Case, ControlView, Envelope, ErrorObservation, IncidentCall, LedgerRecord, LogsObservation,
    LogsToolResult, RagObservation, RagToolResult,
};
use crate::views::SchemaName;

/// What `--view model` prints for a rag call.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
enum RagModelView {
    /// The call is READY.
    Ready(RagObservation),
    /// The call failed.
    Error(ErrorObservation),
}

/// What `--view model` prints for a logs call.
#[derive(JsonSchema)]
#[schemars(untagged)]
#[allow(dead_code)]
enum LogsModelView {
    /// The call is READY.
    Ready(LogsObservation),
    /// The call failed.
    Error(ErrorObservation),
}

/// Every schema name, in the order `schema` lists them.
pub const NAMES: &[(SchemaName, &str)] = &[
    (SchemaName::Envelope, "envelope"),
    (SchemaName::RagResult, "rag-result"),
    (SchemaName::LogsResult, "logs-result"),
    (SchemaName::RagObservation, "rag-observation"),
    (SchemaName::LogsObservation, "logs-observation"),
    (SchemaName::ControlView, "control-view"),
    (SchemaName::Context, "context"),
    (SchemaName::Case, "case"),
    (SchemaName::IncidentCall, "incident-call"),
    (SchemaName::LedgerRecord, "ledger-record"),
];

/// The schema of one contract.
pub fn schema(name: SchemaName) -> Schema {
    match name {
        SchemaName::Envelope => schema_for!(Envelope),
        SchemaName::RagResult => schema_for!(RagToolResult),
        SchemaName::LogsResult => schema_for!(LogsToolResult),
        SchemaName::RagObservation => schema_for!(RagModelView),
        SchemaName::LogsObservation => schema_for!(LogsModelView),
        SchemaName::ControlView => schema_for!(ControlView),
        SchemaName::Context => schema_for!(RunContextFile),
        SchemaName::Case => schema_for!(Case),
        SchemaName::IncidentCall => schema_for!(IncidentCall),
        SchemaName::LedgerRecord => schema_for!(LedgerRecord),
    }
}

/// The schema of one contract as a JSON value, titled with its name (`$schema` and `title` first).
pub fn schema_value(name: SchemaName) -> Value {
    let Value::Object(generated) = schema(name).to_value() else {
        return Value::Null;
    };
    let text = NAMES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, t)| t);
    let mut ordered = serde_json::Map::new();
    if let Some(draft) = generated.get("$schema") {
        ordered.insert("$schema".to_owned(), draft.clone());
    }
    ordered.insert("title".to_owned(), Value::String(format!("aciproj {text}")));
    for (k, v) in generated {
        if k != "$schema" && k != "title" {
            ordered.insert(k, v);
        }
    }
    Value::Object(ordered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_once_and_is_draft_2020_12() {
        use clap::ValueEnum;
        assert_eq!(NAMES.len(), SchemaName::value_variants().len());
        for variant in SchemaName::value_variants() {
            let listed: Vec<_> = NAMES.iter().filter(|(n, _)| n == variant).collect();
            assert_eq!(listed.len(), 1, "{variant:?}");
            // The listed name is the one clap accepts on the command line.
            let clap_name = variant.to_possible_value().unwrap();
            assert_eq!(clap_name.get_name(), listed[0].1);
            let v = schema_value(*variant);
            assert_eq!(
                v["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{variant:?}"
            );
        }
    }

    #[test]
    fn frozen_contracts_allow_no_other_properties() {
        for name in [
            SchemaName::Envelope,
            SchemaName::RagResult,
            SchemaName::LogsResult,
            SchemaName::ControlView,
            SchemaName::Context,
            SchemaName::IncidentCall,
            SchemaName::LedgerRecord,
        ] {
            let v = schema_value(name);
            assert_eq!(v["additionalProperties"], false, "{name:?}");
        }
        let rag = schema_value(SchemaName::RagResult);
        assert_eq!(rag["$defs"]["RagEvidence"]["additionalProperties"], false);
        let required: Vec<_> = rag["required"].as_array().unwrap().iter().collect();
        assert!(!required.contains(&&Value::from("relevance_level")));
        assert!(required.contains(&&Value::from("truncated")));
    }
}
