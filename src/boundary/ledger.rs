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
//!
//! At scale (issue 29) the records are never held: a call reads what its run has done from the
//! index beside the ledger (`ledger_index.rs`), checked against the ledger's length and
//! last record, and otherwise streams the ledger once with a bounded line length, rebuilding the
//! index on the way. A ledger path that is not a regular file is refused before it is opened.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::chain;
use super::ledger_index::{self, Index, Rebuild, unavailable};
use super::preflight::History;
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

/// A ledger opened under its lock; appending releases nothing until dropped.
pub(crate) struct LedgerSession<'a> {
    sink: Sink<'a>,
}

enum Sink<'a> {
    None,
    File {
        path: &'a Path,
        file: File,
        valid_len: u64,
        torn: bool,
        lines: u64,
        /// The hash of the last whole line: the next record's `prev_sha256`.
        head: String,
        /// The index, when it could be used; `None` runs on without one.
        index: Option<Index>,
    },
    Memory(&'a mut Vec<LedgerRecord>),
}

/// A ledger path that exists but is not a regular file (a device, a FIFO, a folder): refused
/// before it is opened, so `/dev/zero` is never read and a FIFO never waited on.
fn not_regular(meta: &std::fs::Metadata) -> ToolError {
    ToolError::new(
        ErrorCode::LedgerUnavailable,
        "the ledger is not a regular file",
    )
    .with_diagnostic(format!(
        "cannot use the ledger {{ledger}}: {}",
        chain::not_a_regular_file(meta)
    ))
}

impl LedgerStore {
    /// Opens the store, takes its lock and reads what the run has done into a history made by
    /// `fresh` (which holds the harness's prior calls; it is called again if the index turns
    /// out stale half-way).
    pub(crate) fn open(
        &mut self,
        fresh: &dyn Fn() -> History,
    ) -> Result<(LedgerSession<'_>, History), ToolError> {
        let mut history = fresh();
        match self {
            LedgerStore::None => Ok((LedgerSession { sink: Sink::None }, history)),
            LedgerStore::Memory(records) => {
                for r in records.iter() {
                    history.add_record(r);
                }
                Ok((
                    LedgerSession {
                        sink: Sink::Memory(records),
                    },
                    history,
                ))
            }
            LedgerStore::File(path) => {
                match std::fs::metadata(&*path) {
                    Ok(meta) if !meta.is_file() => return Err(not_regular(&meta)),
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                    Err(e) => return Err(unavailable("inspect", &e)),
                }
                let file = OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .open(&*path)
                    .map_err(|e| unavailable("open", &e))?;
                let meta = file.metadata().map_err(|e| unavailable("inspect", &e))?;
                if !meta.is_file() {
                    return Err(not_regular(&meta));
                }
                file.lock().map_err(|e| unavailable("lock", &e))?;
                let len = file
                    .metadata()
                    .map_err(|e| unavailable("inspect", &e))?
                    .len();
                let read = match read_with_index(path, &file, len, &mut history) {
                    Some(read) => read?,
                    None => {
                        history = fresh();
                        rebuild(path, &file, &mut history)?
                    }
                };
                Ok((
                    LedgerSession {
                        sink: Sink::File {
                            path,
                            file,
                            valid_len: read.streamed.complete_len,
                            torn: read.streamed.torn,
                            lines: read.streamed.lines,
                            head: read.head,
                            index: read.index,
                        },
                    },
                    history,
                ))
            }
        }
    }
}

/// What a read of the ledger file learned.
struct Read {
    streamed: ledger_index::Streamed,
    head: String,
    index: Option<Index>,
}

/// The fast path: the index's head checked against the ledger, the lines past it (if any)
/// indexed, then this run's bucket read. `None`: no usable index, rebuild.
fn read_with_index(
    path: &Path,
    file: &File,
    len: u64,
    history: &mut History,
) -> Option<Result<Read, ToolError>> {
    let mut index = Index::load(path, file, len).ok()?;
    let (from, lines) = (index.head.ledger_len, index.head.lines);
    let mut failed = false;
    let streamed = ledger_index::stream_records(file, from, lines, &mut |r, start, n| {
        // Lines the index has not seen: written by hand, or by a call that crashed after its
        // append and before its head.
        if index.add(r, start, n).is_err() {
            failed = true;
        }
    });
    let streamed = match streamed {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    let chain_head = match streamed.chain_head(file, &index.head.chain_head) {
        Ok(h) => h,
        Err(e) => return Some(Err(e)),
    };
    if failed {
        ledger_index::invalidate(path);
        return None;
    }
    if streamed.complete_len != index.head.ledger_len {
        index.head.ledger_len = streamed.complete_len;
        index.head.lines = streamed.lines;
        index.head.chain_head.clone_from(&chain_head);
        if index.commit().is_err() {
            ledger_index::invalidate(path);
            return None;
        }
    }
    index.feed(history).ok()?;
    Some(Ok(Read {
        streamed,
        head: chain_head,
        index: Some(index),
    }))
}

/// The slow path: the whole ledger streamed once, for this run's history and a fresh index.
fn rebuild(path: &Path, file: &File, history: &mut History) -> Result<Read, ToolError> {
    let mut builder = Rebuild::start(path);
    let streamed = ledger_index::stream_records(file, 0, 0, &mut |r, start, n| {
        history.add_record(r);
        if let Some(b) = &mut builder
            && b.add(r, start, n).is_err()
        {
            builder = None;
        }
    })?;
    let chain_head = streamed.chain_head(file, chain::GENESIS)?;
    let index = builder.and_then(|b| {
        b.finish(streamed.complete_len, streamed.lines, &chain_head)
            .ok()
    });
    if index.is_none() {
        ledger_index::invalidate(path);
    }
    Ok(Read {
        streamed,
        head: chain_head,
        index,
    })
}

impl LedgerSession<'_> {
    /// Appends one record durably (written and synced before this returns). A file ledger links
    /// it to the last whole line and returns the hash of the line written: the chain's new head.
    /// The other stores keep no chain and return `None`.
    pub(crate) fn append(&mut self, record: &LedgerRecord) -> Result<Option<String>, ToolError> {
        match &mut self.sink {
            Sink::None => Ok(None),
            Sink::Memory(records) => {
                records.push(record.clone());
                Ok(None)
            }
            Sink::File {
                path,
                file,
                valid_len,
                torn,
                lines,
                head,
                index,
            } => {
                let linked = LedgerRecord {
                    prev_sha256: Some(head.clone()),
                    ..record.clone()
                };
                let mut line = serde_json::to_vec(&linked)
                    .map_err(|e| unavailable("serialize a record for", &e.into()))?;
                let new_head = chain::line_hash(&line);
                let (start, line_len) = (*valid_len, line.len() as u64);
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
                *lines += 1;
                head.clone_from(&new_head);
                // The record is written; the index follows it. Failing here costs the next call
                // a catch-up or a rebuild, never a wrong answer.
                if let Some(ix) = index {
                    let updated = ix.add(&linked, start, line_len).is_ok() && {
                        ix.head.ledger_len = *valid_len;
                        ix.head.lines = *lines;
                        ix.head.chain_head.clone_from(&new_head);
                        ix.commit().is_ok()
                    };
                    if !updated {
                        ledger_index::invalidate(path);
                        *index = None;
                    }
                }
                Ok(Some(new_head))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh() -> History {
        History::new("r", None, None)
    }

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
            let (mut s, history) = store.open(&fresh).unwrap();
            assert_eq!(history.calls_used(), 1);
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
        let first = store
            .open(&fresh)
            .unwrap()
            .0
            .append(&record("a"))
            .unwrap()
            .unwrap();
        let second = store
            .open(&fresh)
            .unwrap()
            .0
            .append(&record("b"))
            .unwrap()
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(first, chain::line_hash(lines[0].as_bytes()));
        assert_eq!(second, chain::line_hash(lines[1].as_bytes()));
        let linked = |l: &str| serde_json::from_str::<LedgerRecord>(l).unwrap().prev_sha256;
        assert_eq!(linked(lines[0]).as_deref(), Some(chain::GENESIS));
        assert_eq!(linked(lines[1]), Some(first));
        // A crash mid-write, then the next call: linked to the last whole record.
        std::fs::write(&path, format!("{text}{{\"tool_call_id\":\"c\"")).unwrap();
        let third = store.open(&fresh).unwrap().0.append(&record("d")).unwrap();
        let report = chain::verify(&std::fs::read(&path).unwrap(), third.as_deref());
        assert!(report.is_intact() && report.torn.is_none(), "{report:?}");
        assert_eq!(report.records, 3);
        // Memory and absent stores keep no chain.
        assert_eq!(
            LedgerStore::None
                .open(&fresh)
                .unwrap()
                .0
                .append(&record("x")),
            Ok(None)
        );
    }

    #[test]
    fn damaged_middle_line_names_its_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.jsonl");
        let (good, bad) = (serde_json::to_string(&record("a")).unwrap(), "{not json");
        std::fs::write(&path, format!("{good}\n{bad}\n{good}\n")).unwrap();
        let e = LedgerStore::File(path).open(&fresh).err().unwrap();
        assert_eq!(e.code(), ErrorCode::LedgerCorrupt);
        assert!(e.message().contains("line 2"), "{}", e.message());
    }

    #[test]
    fn memory_store_keeps_appends() {
        let mut store = LedgerStore::Memory(Vec::new());
        store.open(&fresh).unwrap().0.append(&record("a")).unwrap();
        assert_eq!(store.open(&fresh).unwrap().1.calls_used(), 1);
    }
}
