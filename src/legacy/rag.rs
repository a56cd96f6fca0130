//! The legacy RAG knowledge-search responses.
//!
//! Two shapes exist in the wild (SPEC §5):
//! 1. the context-pack object: `{"success":true,"contextPack":{"blocks":[…]},"relevanceLevel":…}`
//!    with traces, scores and full document bodies beside the blocks;
//! 2. the older bare array `[{"id","content","score","metadata":"<JSON as a string>"}]`, with the
//!    status objects `{"status":"no_results"}` and `{"status":"error"}`.
//!
//! Only identity, title, breadcrumb and excerpt are kept. A block's `content` (the full document
//! body) is never read as an excerpt in shape 1; in shape 2 `content` *is* the hit's chunk text,
//! since that shape has no other excerpt field.

use serde::Deserialize;

use super::text::{Crumbs, Ident, Object, Text, strip_bom};
use crate::error::{ErrorCode, ToolError};

/// A legacy RAG response reduced to what the projector may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RagResponse {
    /// Candidate blocks, in legacy order.
    pub blocks: Vec<RagBlock>,
    /// The upstream relevance label, as written (normalized later).
    pub relevance: Option<String>,
}

/// One candidate evidence block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RagBlock {
    /// The document id.
    pub document_id: Option<String>,
    /// The document's source.
    pub source: Option<String>,
    /// The document's title.
    pub title: Option<String>,
    /// The heading path, joined.
    pub breadcrumb: Option<String>,
    /// The excerpt (never a full document body).
    pub excerpt: Option<String>,
}

#[derive(Deserialize)]
struct ContextPackResponse {
    #[serde(default)]
    success: Option<bool>,
    #[serde(default)]
    status: Text,
    #[serde(default, alias = "contextPack")]
    context_pack: Option<Object<ContextPack>>,
    #[serde(default, alias = "relevanceLevel")]
    relevance_level: Text,
}

#[derive(Deserialize)]
struct ContextPack {
    #[serde(default)]
    blocks: Option<Vec<Object<PackBlock>>>,
}

#[derive(Deserialize)]
struct PackBlock {
    #[serde(default, alias = "documentId")]
    document_id: Ident,
    #[serde(default)]
    source: Text,
    #[serde(default)]
    title: Text,
    #[serde(default)]
    breadcrumb: Crumbs,
    #[serde(default, alias = "headingPath")]
    heading_path: Crumbs,
    #[serde(default)]
    excerpt: Text,
    #[serde(default)]
    snippet: Text,
    #[serde(default, alias = "chunkText")]
    chunk_text: Text,
}

#[derive(Deserialize)]
struct BareHit {
    #[serde(default)]
    id: Ident,
    #[serde(default)]
    content: Text,
    #[serde(default)]
    metadata: Metadata,
}

/// The bare-array metadata: a JSON object, or (usually) a string holding one.
#[derive(Default)]
struct Metadata(HitMetadata);

#[derive(Deserialize, Default)]
struct HitMetadata {
    #[serde(default, alias = "documentId", alias = "doc_id")]
    document_id: Ident,
    #[serde(default)]
    source: Text,
    #[serde(default)]
    title: Text,
    #[serde(default)]
    breadcrumb: Crumbs,
    #[serde(default, alias = "headingPath")]
    heading_path: Crumbs,
}

impl<'de> Deserialize<'de> for Metadata {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Metadata that cannot be read costs the block its title and breadcrumb, not the whole
        // response: the hit's id and content still identify usable evidence.
        let value = serde_json::Value::deserialize(d)?;
        let meta = match value {
            serde_json::Value::String(s) => serde_json::from_str(&s).unwrap_or_default(),
            v @ serde_json::Value::Object(_) => serde_json::from_value(v).unwrap_or_default(),
            _ => HitMetadata::default(),
        };
        Ok(Metadata(meta))
    }
}

fn malformed() -> ToolError {
    ToolError::new(
        ErrorCode::LegacyMalformed,
        "the legacy RAG response is not JSON of a recognized shape",
    )
}

/// Malformed, with where serde_json stopped (line and column only: its own message quotes
/// values, so it is never used).
fn malformed_at(e: &serde_json::Error) -> ToolError {
    malformed().with_diagnostic(format!(
        "is not JSON of a recognized shape: it breaks at line {}, column {}",
        e.line(),
        e.column()
    ))
}

/// Reads a legacy RAG response. `success:false` and `status:"error"` are `LEGACY_FAILURE`;
/// `status:"no_results"` is an empty response; anything unrecognized is `LEGACY_MALFORMED`.
pub fn read(bytes: &[u8]) -> Result<RagResponse, ToolError> {
    let bytes = strip_bom(bytes);
    // JSON is UTF-8 everywhere, also inside the fields skipped without decoding.
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(
            malformed().with_diagnostic(format!("is not valid UTF-8 at byte {}", e.valid_up_to()))
        );
    }
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => {
            let hits: Vec<Object<BareHit>> =
                serde_json::from_slice(bytes).map_err(|e| malformed_at(&e))?;
            Ok(RagResponse {
                blocks: hits.into_iter().map(|h| RagBlock::from(h.0)).collect(),
                relevance: None,
            })
        }
        Some(b'{') => {
            let obj: ContextPackResponse =
                serde_json::from_slice(bytes).map_err(|e| malformed_at(&e))?;
            let status = obj
                .status
                .0
                .as_deref()
                .map(|s| s.trim().to_ascii_lowercase());
            if obj.success == Some(false) || status.as_deref() == Some("error") {
                return Err(ToolError::new(
                    ErrorCode::LegacyFailure,
                    "the legacy RAG tool reported a failure",
                ));
            }
            if status.as_deref() == Some("no_results") {
                return Ok(RagResponse {
                    blocks: Vec::new(),
                    relevance: None,
                });
            }
            // Without its context pack a response is not the RAG shape (a log response handed to
            // `rag` by mistake, say): say so rather than report "no evidence".
            if obj.context_pack.is_none() {
                return Err(malformed().with_diagnostic(
                    "is a JSON object without `contextPack` (nor a `status`): not the RAG shape",
                ));
            }
            let blocks = obj
                .context_pack
                .and_then(|p| p.0.blocks)
                .unwrap_or_default()
                .into_iter()
                .map(|b| RagBlock::from(b.0))
                .collect();
            Ok(RagResponse {
                blocks,
                relevance: obj.relevance_level.0,
            })
        }
        _ => Err(malformed()
            .with_diagnostic("is neither a JSON object nor an array (empty, or a bare value)")),
    }
}

impl From<PackBlock> for RagBlock {
    fn from(b: PackBlock) -> Self {
        RagBlock {
            document_id: b.document_id.0,
            source: b.source.0,
            title: b.title.0,
            breadcrumb: b.breadcrumb.0.or(b.heading_path.0),
            excerpt: first_non_blank([b.excerpt.0, b.snippet.0, b.chunk_text.0]),
        }
    }
}

impl From<BareHit> for RagBlock {
    fn from(h: BareHit) -> Self {
        let meta = h.metadata.0;
        RagBlock {
            document_id: meta.document_id.0.or(h.id.0),
            source: meta.source.0,
            title: meta.title.0,
            breadcrumb: meta.breadcrumb.0.or(meta.heading_path.0),
            excerpt: h.content.0,
        }
    }
}

fn first_non_blank<const N: usize>(candidates: [Option<String>; N]) -> Option<String> {
    candidates
        .into_iter()
        .flatten()
        .find(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(bytes: &str) -> ErrorCode {
        read(bytes.as_bytes()).unwrap_err().code()
    }

    #[test]
    fn context_pack_in_camel_and_snake_case() {
        let camel = r#"{"success":true,"contextPack":{"blocks":[{"documentId":"d1","source":"s",
            "title":"t","headingPath":["A","B"],"snippet":"x","content":"FULL BODY","score":0.9}]},
            "relevanceLevel":"high"}"#;
        let snake = r#"{"success":true,"context_pack":{"blocks":[{"document_id":"d1","source":"s",
            "title":"t","heading_path":["A","B"],"snippet":"x","content":"FULL BODY"}]},
            "relevance_level":"high"}"#;
        for doc in [camel, snake] {
            let r = read(doc.as_bytes()).unwrap();
            assert_eq!(r.relevance.as_deref(), Some("high"));
            assert_eq!(
                r.blocks,
                vec![RagBlock {
                    document_id: Some("d1".into()),
                    source: Some("s".into()),
                    title: Some("t".into()),
                    breadcrumb: Some("A > B".into()),
                    excerpt: Some("x".into()),
                }]
            );
        }
    }

    #[test]
    fn full_document_body_is_never_an_excerpt() {
        let r = read(
            br#"{"success":true,"contextPack":{"blocks":[{"documentId":"d","content":"BODY"}]}}"#,
        )
        .unwrap();
        assert_eq!(r.blocks[0].excerpt, None);
    }

    #[test]
    fn excerpt_preference_is_excerpt_then_snippet_then_chunk_text() {
        let r = read(
            br#"{"success":true,"contextPack":{"blocks":[
            {"excerpt":"  ","snippet":"s","chunkText":"c"},{"chunk_text":"c"}]}}"#,
        )
        .unwrap();
        assert_eq!(r.blocks[0].excerpt.as_deref(), Some("s"));
        assert_eq!(r.blocks[1].excerpt.as_deref(), Some("c"));
    }

    #[test]
    fn bare_array_reads_metadata_strings() {
        let r = read(
            br#"[{"id":"chunk-7","content":"text","score":0.3,
                 "metadata":"{\"source\":\"redis.md\",\"title\":\"Redis\",\"headingPath\":[\"a\",\"b\"]}"},
                {"id":8,"content":"x","metadata":"not json"}]"#,
        )
        .unwrap();
        assert_eq!(r.blocks[0].source.as_deref(), Some("redis.md"));
        assert_eq!(r.blocks[0].document_id.as_deref(), Some("chunk-7"));
        assert_eq!(r.blocks[0].breadcrumb.as_deref(), Some("a > b"));
        assert_eq!(r.blocks[1].document_id.as_deref(), Some("8"));
        assert_eq!(r.blocks[1].title, None);
    }

    #[test]
    fn status_objects() {
        assert!(
            read(br#"{"status":"no_results","message":"none"}"#)
                .unwrap()
                .blocks
                .is_empty()
        );
        assert_eq!(
            code(r#"{"status":"error","message":"boom"}"#),
            ErrorCode::LegacyFailure
        );
        assert_eq!(
            code(r#"{"success":false,"message":"boom"}"#),
            ErrorCode::LegacyFailure
        );
    }

    #[test]
    fn broken_and_ambiguous_inputs_are_malformed() {
        for doc in [
            "",
            "null",
            "42",
            "{}",
            r#"{"success":true"#,
            r#"{"success":"yes"}"#,
            r#"{"success":true,"success":false}"#,
            r#"{"success":true,"contextPack":{"blocks":{}}}"#,
            r#"{"success":true} trailing"#,
            r#"[{"id":NaN}]"#,
            // Records as arrays of field values would be read positionally: refused.
            r#"[["d1","password=hunter2 in an array hit"]]"#,
            r#"[[]]"#,
            r#"{"success":true,"contextPack":[[{"documentId":"d1"}]]}"#,
            r#"{"success":true,"contextPack":{"blocks":[["d1","s","t","b","h","excerpt"]]}}"#,
        ] {
            assert_eq!(code(doc), ErrorCode::LegacyMalformed, "{doc}");
        }
        assert_eq!(
            read(b"[\"\xff\"]").unwrap_err().code(),
            ErrorCode::LegacyMalformed
        );
    }

    #[test]
    fn deep_nesting_never_overflows_the_stack() {
        let (open, close) = ("[".repeat(100_000), "]".repeat(100_000));
        // Nesting where a whole value is read: serde_json's depth limit makes it malformed.
        let in_metadata = format!(r#"[{{"id":"a","content":"x","metadata":{open}{close}}}]"#);
        assert_eq!(code(&in_metadata), ErrorCode::LegacyMalformed);
        // Arrays in the place of hits are not hits (not read positionally as fields).
        assert_eq!(code(&format!("{open}{close}")), ErrorCode::LegacyMalformed);
        // Nesting where only a string is wanted, or in a skipped field (a trace), is skipped
        // without recursion and without keeping anything.
        let in_block =
            format!(r#"{{"success":true,"contextPack":{{"blocks":[{{"title":{open}{close}}}]}}}}"#);
        assert_eq!(read(in_block.as_bytes()).unwrap().blocks[0].title, None);
        let skipped =
            format!(r#"{{"success":true,"contextPack":{{}},"retrievalTrace":{open}{close}}}"#);
        assert!(read(skipped.as_bytes()).unwrap().blocks.is_empty());
    }
}
