//! The ledger: the canonical record store of a run (SPEC §6).
//!
//! One JSON line per admitted call. The duplicate and budget checks must see every call admitted
//! before them, also across processes, so a call holds an exclusive lock on the ledger file from
//! the moment it reads the records until its own record is written and synced: two processes with
//! the same call id can never both be admitted, and N processes against a budget of K admit
//! exactly K. A process killed mid-write leaves a last line without its newline; that torn line
//! is ignored on read and cut off before the next append, so it is never glued to a later record.
//! A damaged line *before* the last one is not a crash artefact and is reported, not skipped.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

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
                let (records, valid_len) = parse(&bytes)?;
                let torn = valid_len < bytes.len() as u64;
                Ok(LedgerSession {
                    records,
                    sink: Sink::File {
                        file,
                        valid_len,
                        torn,
                    },
                })
            }
        }
    }
}

/// Parses complete lines; returns the records and the length of the complete part.
fn parse(bytes: &[u8]) -> Result<(Vec<LedgerRecord>, u64), ToolError> {
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut records = Vec::new();
    for (index, line) in bytes[..complete].split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record = serde_json::from_slice::<LedgerRecord>(line).map_err(|_| {
            ToolError::numbered(
                ErrorCode::LedgerCorrupt,
                "ledger line {} is not a valid record; repair or move the ledger",
                &[index as u64 + 1],
            )
        })?;
        records.push(record);
    }
    Ok((records, complete as u64))
}

impl LedgerSession<'_> {
    /// The records already in the store.
    pub fn records(&self) -> &[LedgerRecord] {
        &self.records
    }

    /// Appends one record durably (written and synced before this returns).
    pub fn append(&mut self, record: &LedgerRecord) -> Result<(), ToolError> {
        match &mut self.sink {
            Sink::None => Ok(()),
            Sink::Memory(records) => {
                records.push(record.clone());
                Ok(())
            }
            Sink::File {
                file,
                valid_len,
                torn,
            } => {
                let mut line = serde_json::to_vec(record)
                    .map_err(|e| unavailable("serialize a record for", &e.into()))?;
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
                Ok(())
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
