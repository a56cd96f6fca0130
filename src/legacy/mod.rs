//! Tolerant readers for the legacy responses.
//!
//! A reader's only job is to turn bytes the legacy side produced into a small typed value that
//! holds just the fields a projector may use. Everything else (traces, scores, metrics, instance
//! names, full document bodies) is skipped while parsing and never lands in memory as a string.
//! Readers accept the documented field-name variants (camelCase and snake_case) and tolerate odd
//! types in optional fields, but reject what is ambiguous or broken (duplicate keys, invalid
//! UTF-8, trailing garbage, nesting deeper than serde_json's limit) as `LEGACY_MALFORMED`: a
//! boundary must not guess which of two values a parser downstream would have believed.

pub mod logs;
pub mod rag;
mod source;
mod text;

pub use text::strip_bom;
