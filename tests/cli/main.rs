//! One integration-test binary (fast to link), one module per concept.

mod boundary;
mod common;
mod ledger;
mod logs;
mod output;
mod properties;
mod rag;
