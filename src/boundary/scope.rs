//! Normalized scopes and their fingerprints.
//!
//! Two calls ask the same thing when their normalized scopes are equal: NFKC, lowercase, trimmed,
//! whitespace runs collapsed to one space, so `"  Redis   内存碎片 "` and `"redis 内存碎片"` are
//! one scope. The fingerprint is the SHA-256 of the tool name and the normalized scope as compact
//! JSON, so it is stable across versions as long as the contract's field names are.

use sha2::{Digest, Sha256};
use unicode_normalization::UnicodeNormalization;

use crate::contracts::{NormalizedScope, Tool};

/// Normalizes one scope string.
pub fn normalize(s: &str) -> String {
    let folded: String = s.nfkc().collect::<String>().to_lowercase();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The fingerprint of a tool's normalized scope, as lowercase hex.
pub fn fingerprint(tool: Tool, scope: &NormalizedScope) -> String {
    let mut hasher = Sha256::new();
    hasher.update(tool.name().as_bytes());
    hasher.update([0u8]);
    // Serializing a struct of strings and integers into a Vec cannot fail.
    hasher.update(serde_json::to_vec(scope).unwrap_or_default());
    hex(&hasher.finalize())
}

/// Lowercase hex of a byte string.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The SHA-256 of `bytes`, as lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_example_is_one_scope() {
        assert_eq!(normalize("  Redis   内存碎片 "), "redis 内存碎片");
        assert_eq!(normalize("redis 内存碎片"), "redis 内存碎片");
        // NFKC folds full-width letters and the ideographic space.
        assert_eq!(normalize("ＲＥＤＩＳ\u{3000}内存"), "redis 内存");
    }

    #[test]
    fn fingerprint_depends_on_tool_and_every_scope_field() {
        let rag = NormalizedScope {
            topic: None,
            query: "redis".into(),
            lookback_minutes: None,
        };
        let logs = NormalizedScope {
            topic: Some("app".into()),
            query: "redis".into(),
            lookback_minutes: Some(60),
        };
        let a = fingerprint(Tool::Rag, &rag);
        assert_eq!(a.len(), 64);
        assert_eq!(a, fingerprint(Tool::Rag, &rag.clone()));
        assert_ne!(a, fingerprint(Tool::Logs, &rag));
        let longer = NormalizedScope {
            lookback_minutes: Some(61),
            ..logs.clone()
        };
        assert_ne!(
            fingerprint(Tool::Logs, &logs),
            fingerprint(Tool::Logs, &longer)
        );
    }
}
