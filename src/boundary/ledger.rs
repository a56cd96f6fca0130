//! The ledger: the canonical record store of a run (SPEC §6).
//!
//! One JSON line per admitted call. The duplicate and budget checks must see every call admitted
//! before them, also across processes, so a call holds an exclusive lock on the ledger file from
//! the moment it reads the records until its own record is written and synced: two processes with
//! the same call id can never both be admitted, and N processes against a budget of K admit
//! exactly K. A process killed mid-write leaves a last line without its newline; that torn line
//! is ignored on read and cut off before the next append, so it is never glued to a later record.
//! A damaged line *before* the last one is not a crash artefact and is reported, not skipped.
//!
//! Each appended line links to the last whole line before it (see [`super::chain`]): the link is
//! computed under the same lock as the check, from the bytes actually in the file, so concurrent
//! appenders build one chain, and after a torn line is cut the chain goes on from the last whole
//! record. The new line's hash is returned as the chain's head for the harness.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::chain;
use crate::contracts::LedgerRecord;
use crate::error::{ErrorCode, ToolError};

/// Where a boundary keeps its records.
#[derive(Debug)]
pub enum LedgerStore {
    /// No ledger: only `prior_calls` are known.
    None,
    /// A JSON-lines file shared by every process of the run.
    File(PathBuf),
    /// Records kept in memory (replay).
    Memory(Vec<LedgerRecord>),
}

/// The records of a ledger, read under its lock; appending releases nothing until dropped.
pub struct LedgerSession<'a> {
    records: Vec<LedgerRecord>,
    sink: Sink<'a>,
}

enum Sink<'a> {
    None,
    File {
        file: File,
        valid_len: u64,
        torn: bool,
        /// The hash of the last whole line: the next record's `prev_sha256`.
        head: String,
    },
    Memory(&'a mut Vec<LedgerRecord>),
}

/// The ledger could not be used; the diagnostic says which step failed and the OS's reason,
/// with a `{ledger}` marker the boundary replaces by the path.
fn unavailable(step: &str, e: &std::io::Error) -> ToolError {
    ToolError::new(
        ErrorCode::LedgerUnavailable,
        "the ledger cannot be created, locked, read or written",
    )
    .with_diagnostic(format!(
        "cannot {step} the ledger {{ledger}}: {}",
        crate::error::os_reason(e)
    ))
}

impl LedgerStore {
    /// Opens the store, takes its lock and reads its records.
    pub fn open(&mut self) -> Result<LedgerSession<'_>, ToolError> {
        match self {
            LedgerStore::None => Ok(LedgerSession {
                records: Vec::new(),
                sink: Sink::None,
            }),
            LedgerStore::Memory(records) => Ok(LedgerSession {
                records: records.clone(),
                sink: Sink::Memory(records),
            }),
            LedgerStore::File(path) => {
                let mut file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(path)
                    .map_err(|e| unavailable("open", &e))?;
                file.lock().map_err(|e| unavailable("lock", &e))?;
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)
                    .map_err(|e| unavailable("read", &e))?;
                let (records, valid_len, head) = parse(&bytes)?;
                let torn = valid_len < bytes.len() as u64;
                Ok(LedgerSession {
                    records,
                    sink: Sink::File {
                        file,
                        valid_len,
                        torn,
                        head,
                    },
                })
            }
        }
    }
}

/// Parses complete lines; returns the records, the length of the complete part and the hash of
/// the last whole line (the chain's head, [`chain::GENESIS`] for an empty ledger).
fn parse(bytes: &[u8]) -> Result<(Vec<LedgerRecord>, u64, String), ToolError> {
    let lines = chain::lines(bytes);
    let mut records = Vec::with_capacity(lines.whole.len());
    for (number, line) in &lines.whole {
        let record = serde_json::from_slice::<LedgerRecord>(line).map_err(|_| {
            ToolError::numbered(
                ErrorCode::LedgerCorrupt,
                "ledger line {} is not a valid record; repair or move the ledger",
                &[*number],
            )
        })?;
        records.push(record);
    }
    let head = lines
        .whole
        .last()
        .map_or_else(|| chain::GENESIS.to_owned(), |(_, l)| chain::line_hash(l));
    Ok((records, lines.complete_len as u64, head))
}

impl LedgerSession<'_> {
    /// The records already in the store.
    pub fn records(&self) -> &[LedgerRecord] {
        &self.records
    }

    /// Appends one record durably (written and synced before this returns). A file ledger links
    /// it to the last whole line and returns the hash of the line written: the chain's new head.
    /// The other stores keep no chain and return `None`.
    pub fn append(&mut self, record: &LedgerRecord) -> Result<Option<String>, ToolError> {
        match &mut self.sink {
            Sink::None => Ok(None),
            Sink::Memory(records) => {
                records.push(record.clone());
                Ok(None)
            }
            Sink::File {
                file,
                valid_len,
                torn,
                head,
            } => {
                let linked = LedgerRecord {
                    prev_sha256: Some(head.clone()),
                    ..record.clone()
                };
                let mut line = serde_json::to_vec(&linked)
                    .map_err(|e| unavailable("serialize a record for", &e.into()))?;
                let new_head = chain::line_hash(&line);
                line.push(b'\n');
                if *torn {
                    file.set_len(*valid_len)
                        .map_err(|e| unavailable("cut the torn last line of", &e))?;
                    *torn = false;
                }
                let write = |e: std::io::Error| unavailable("write", &e);
                file.seek(SeekFrom::Start(*valid_len)).map_err(write)?;
                file.write_all(&line).map_err(write)?;
                file.sync_data().map_err(write)?;
                *valid_len += line.len() as u64;
                *head = new_head.clone();
                Ok(Some(new_head))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: &str) -> LedgerRecord {
        LedgerRecord {
            tool_call_id: id.into(),
            tool: "rag".into(),
            ..LedgerRecord::default()
        }
    }

    #[test]
    fn torn_last_line_is_ignored_and_cut_before_append() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.jsonl");
        let good = serde_json::to_string(&record("a")).unwrap();
        std::fs::write(&path, format!("{good}\n{{\"tool_call_id\":\"b\",\"to")).unwrap();
        let mut store = LedgerStore::File(path.clone());
        {
            let mut s = store.open().unwrap();
            assert_eq!(s.records().len(), 1);
            s.append(&record("c")).unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let ids: Vec<_> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<LedgerRecord>(l)
                    .unwrap()
                    .tool_call_id
            })
            .collect();
        assert_eq!(ids, ["a", "c"]);
    }

    #[test]
    fn appends_form_one_chain_that_goes_on_after_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.jsonl");
        let mut store = LedgerStore::File(path.clone());
        let first = store.open().unwrap().append(&record("a")).unwrap().unwrap();
        let second = store.open().unwrap().append(&record("b")).unwrap().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(first, chain::line_hash(lines[0].as_bytes()));
        assert_eq!(second, chain::line_hash(lines[1].as_bytes()));
        let linked = |l: &str| serde_json::from_str::<LedgerRecord>(l).unwrap().prev_sha256;
        assert_eq!(linked(lines[0]).as_deref(), Some(chain::GENESIS));
        assert_eq!(linked(lines[1]), Some(first));
        // A crash mid-write, then the next call: linked to the last whole record.
        std::fs::write(&path, format!("{text}{{\"tool_call_id\":\"c\"")).unwrap();
        let third = store.open().unwrap().append(&record("d")).unwrap();
        let report = chain::verify(&std::fs::read(&path).unwrap(), third.as_deref());
        assert!(report.is_intact() && report.torn.is_none(), "{report:?}");
        assert_eq!(report.records, 3);
        // Memory and absent stores keep no chain.
        assert_eq!(
            LedgerStore::None.open().unwrap().append(&record("x")),
            Ok(None)
        );
    }

    #[test]
    fn damaged_middle_line_names_its_number() {
        let (good, bad) = (serde_json::to_string(&record("a")).unwrap(), "{not json");
        let e = parse(format!("{good}\n{bad}\n{good}\n").as_bytes()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::LedgerCorrupt);
        assert!(e.message().contains("line 2"), "{}", e.message());
    }

    #[test]
    fn memory_store_keeps_appends() {
        let mut store = LedgerStore::Memory(Vec::new());
        store.open().unwrap().append(&record("a")).unwrap();
        assert_eq!(store.open().unwrap().records().len(), 1);
    }
}
