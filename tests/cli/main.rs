//! One integration-test binary (fast to link), one module per concept.

mod boundary;
mod common;
mod logs;
mod output;
mod rag;
