//! The legacy Mock log response (placeholder until the log reader lands).
