//! One integration-test binary (fast to link), one module per concept.

mod boundary;
mod check;
mod common;
mod correlate;
mod diagnostics;
mod docs;
mod fuzz_regressions;
mod hostile;
mod ledger;
mod library;
mod live;
mod logs;
mod output;
mod properties;
mod rag;
mod readme;
mod redact;
mod replay;
mod report;
mod schema;
mod untrusted;
mod user_rules;
