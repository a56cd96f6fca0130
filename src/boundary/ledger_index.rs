//! The ledger's index: a cache beside the ledger that makes one call's cost independent of the
//! ledger's size (SPEC §6, issue 29). See docs/ledger.md, "The index".
//!
//! The JSONL ledger stays the only record: everything here is derived from it, checked against
//! it on every call, and rebuilt from it by streaming when missing, stale or damaged. It lives in
//! the folder `LEDGER.index/`, is read and written only under the ledger's exclusive lock, and
//! `ledger verify` never looks at it.
//!
//! Layout. Each record's entry (`[run_id, tool_call_id, scope_fingerprint, observation_bytes]`,
//! one JSON array a line) goes to one of [`BUCKETS`] append-only bucket files, chosen by a hash
//! of its run id (records without a run id, which count for every run, to a bucket of their own),
//! so a call reads only its run's bucket: about 1/1024 of the entries of other runs. The `head`
//! file names how far the index covers the ledger (bytes, lines, where the last record is and its
//! chain hash) and, per bucket, its committed length and the place and hash of its last entry.
//!
//! Trust. The head is taken only if the ledger is at least as long as it says and the ledger's
//! last indexed record still has the hash it names (a ledger restored from a backup, cut, or
//! replaced fails this); whole lines beyond the covered length (appended by hand, or by a call
//! that crashed before its head was written) are indexed by streaming them. A bucket is taken
//! only if it is at least its committed length and its last committed entry hashes as named;
//! bytes past the committed length are a crashed append and are cut before the next one. The
//! head is replaced atomically (temp file + rename) after the bucket appends, so a crash at any
//! point leaves either the old state (caught up from the ledger next time) or the new one. What
//! this cannot see is a deliberate same-length edit in the middle of a file: the index guards
//! against accidents, and the chain (`ledger verify`) is the audit.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::chain;
use super::lines::LineReader;
use super::preflight::History;
use super::scope::sha256_hex;
use crate::contracts::LedgerRecord;

/// The ledger could not be used (here, where the index reads it, and in `ledger`, which
/// imports it from here); the diagnostic says which step failed and the OS's reason,
/// with a `{ledger}` marker the boundary replaces by the path.
pub(crate) fn unavailable(step: &str, e: &std::io::Error) -> crate::error::ToolError {
    crate::error::ToolError::new(
        crate::error::ErrorCode::LedgerUnavailable,
        "the ledger cannot be created, locked, read or written",
    )
    .with_diagnostic(format!(
        "cannot {step} the ledger {{ledger}}: {}",
        crate::error::os_reason(e)
    ))
}

/// How many buckets the runs are spread over.
pub const BUCKETS: u32 = 1024;
/// The bucket of records without a run id (they count for every run).
const ANY_RUN: u32 = BUCKETS;
const VERSION: u32 = 1;
/// A rebuild writes its buckets out whenever this much is buffered: flat memory.
const REBUILD_BUFFER: usize = 4 << 20;

/// The index's folder beside a ledger: `LEDGER.index`.
pub fn dir_of(ledger: &Path) -> PathBuf {
    let mut name = ledger.as_os_str().to_owned();
    name.push(".index");
    PathBuf::from(name)
}

/// What the index knows about the ledger, and about each of its buckets.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub(crate) struct Head {
    version: u32,
    /// The ledger's bytes the index covers: whole lines only.
    pub ledger_len: u64,
    /// The lines in those bytes (blank ones too), to number the next.
    pub lines: u64,
    /// Offset and length of the last non-blank line, when there is one.
    pub last: Option<(u64, u64)>,
    /// Its chain hash (the next record's `prev_sha256`), [`chain::GENESIS`] for none.
    pub chain_head: String,
    /// Per bucket: committed length, offset of its last entry, a hash of that entry.
    buckets: BTreeMap<u32, (u64, u64, String)>,
}

impl Head {
    fn empty() -> Self {
        Self {
            version: VERSION,
            chain_head: chain::GENESIS.to_owned(),
            ..Self::default()
        }
    }
}

/// The bucket a run's entries go to.
fn bucket_of(run_id: Option<&str>) -> u32 {
    match run_id {
        None => ANY_RUN,
        Some(id) => {
            use sha2::{Digest, Sha256};
            let d = Sha256::digest(id.as_bytes());
            u32::from(u16::from_be_bytes([d[0], d[1]])) % BUCKETS
        }
    }
}

fn bucket_name(bucket: u32) -> String {
    if bucket == ANY_RUN {
        "any-run.jsonl".to_owned()
    } else {
        format!("b{bucket:04}.jsonl")
    }
}

fn entry_hash(entry: &[u8]) -> String {
    sha256_hex(entry)[..16].to_owned()
}

/// One record's entry line (no newline).
fn entry(record: &LedgerRecord) -> Vec<u8> {
    serde_json::to_vec(&(
        &record.run_id,
        &record.tool_call_id,
        &record.scope_fingerprint,
        record.observation_bytes,
    ))
    .expect("strings and numbers serialize")
}

/// The rest of an entry of this run after its run id (`"call","fp",812]`), read without a JSON
/// parser when it holds no escape (every entry the appender writes for a sane id): a run of
/// 100k calls reads its bucket in a few milliseconds. `None` sends the line to the parser.
fn this_runs_entry(rest: &[u8]) -> Option<(&str, Option<&str>, Option<u64>)> {
    fn string(bytes: &[u8]) -> Option<(&str, &[u8])> {
        let bytes = bytes.strip_prefix(b"\"")?;
        let end = memchr::memchr(b'"', bytes)?;
        Some((std::str::from_utf8(&bytes[..end]).ok()?, &bytes[end + 1..]))
    }
    let (call, rest) = string(rest)?;
    let rest = rest.strip_prefix(b",")?;
    let (fingerprint, rest) = match rest.strip_prefix(b"null") {
        Some(rest) => (None, rest),
        None => string(rest).map(|(f, rest)| (Some(f), rest))?,
    };
    let bytes = rest.strip_prefix(b",")?.strip_suffix(b"]")?;
    let bytes = match bytes {
        b"null" => None,
        digits if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
            Some(std::str::from_utf8(digits).ok()?.parse().ok()?)
        }
        _ => return None,
    };
    Some((call, fingerprint, bytes))
}

/// An entry as read back: its strings borrowed from the line unless they hold escapes.
#[derive(Deserialize)]
struct EntryRef<'a>(
    #[serde(borrow)] Option<Cow<'a, str>>,
    #[serde(borrow)] Cow<'a, str>,
    #[serde(borrow)] Option<Cow<'a, str>>,
    Option<u64>,
);

/// Why the index was not used: it is rebuilt from the ledger.
#[derive(Debug)]
pub(crate) struct Stale;

impl From<std::io::Error> for Stale {
    fn from(_: std::io::Error) -> Self {
        Stale
    }
}

/// An index opened under the ledger's lock.
pub(crate) struct Index {
    dir: PathBuf,
    pub head: Head,
    /// Buckets cut back to their committed length in this session.
    cut: Vec<u32>,
}

impl Index {
    /// The index beside `ledger`, when its head can be read and belongs to `ledger_file`
    /// (`len` bytes long): its last indexed record is still there, byte for byte.
    pub fn load(ledger: &Path, ledger_file: &File, len: u64) -> Result<Self, Stale> {
        let dir = dir_of(ledger);
        let text = std::fs::read(dir.join("head"))?;
        let head: Head = serde_json::from_slice(&text).map_err(|_| Stale)?;
        if head.version != VERSION || head.ledger_len > len {
            return Err(Stale);
        }
        match head.last {
            None if head.chain_head == chain::GENESIS => {}
            None => return Err(Stale),
            Some((start, line_len)) => {
                let end = start.checked_add(line_len).ok_or(Stale)?;
                if end >= head.ledger_len || line_len > super::lines::MAX_LINE_BYTES as u64 {
                    return Err(Stale);
                }
                let mut line = vec![0u8; usize::try_from(line_len + 1).map_err(|_| Stale)?];
                read_at(ledger_file, &mut line, start)?;
                if line.pop() != Some(b'\n') || chain::line_hash(&line) != head.chain_head {
                    return Err(Stale);
                }
            }
        }
        Ok(Self {
            dir,
            head,
            cut: Vec::new(),
        })
    }

    /// Adds the record on the ledger line `[start, start + len)` (followed by its newline).
    pub fn add(&mut self, record: &LedgerRecord, start: u64, len: u64) -> Result<(), Stale> {
        let bucket = bucket_of(record.run_id.as_deref());
        let committed = self.head.buckets.get(&bucket).map_or(0, |b| b.0);
        let path = self.dir.join(bucket_name(bucket));
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        if !self.cut.contains(&bucket) {
            // Bytes past the committed length are an append that crashed before its head.
            file.set_len(committed)?;
            self.cut.push(bucket);
        }
        let mut line = entry(record);
        let tail = entry_hash(&line);
        line.push(b'\n');
        file.seek(SeekFrom::Start(committed))?;
        file.write_all(&line)?;
        self.head
            .buckets
            .insert(bucket, (committed + line.len() as u64, committed, tail));
        self.head.last = Some((start, len));
        Ok(())
    }

    /// Writes the head atomically (temp file + rename): the commit point of an append.
    pub fn commit(&self) -> Result<(), Stale> {
        write_head(&self.dir, &self.head)
    }

    /// Feeds `history` this run's entries (and those without a run id), checking each bucket
    /// read against the head.
    pub fn feed(&self, history: &mut History) -> Result<(), Stale> {
        let run_id = history.run_id().to_owned();
        let run_id = run_id.as_str();
        for bucket in [bucket_of(Some(run_id)), ANY_RUN] {
            let Some((len, last, tail)) = self.head.buckets.get(&bucket) else {
                continue;
            };
            let file = File::open(self.dir.join(bucket_name(bucket)))?;
            if file.metadata()?.len() < *len || *last >= *len {
                return Err(Stale);
            }
            // The last committed entry first: a short or rewritten bucket fails here, cheaply.
            let mut line = vec![0u8; usize::try_from(len - last).map_err(|_| Stale)?];
            read_at(&file, &mut line, *last)?;
            if line.pop() != Some(b'\n') || entry_hash(&line) != *tail {
                return Err(Stale);
            }
            let prefix = serde_json::to_vec(&(run_id,)).map_err(|_| Stale)?;
            // `["run",`: the entries of this run, found without parsing the others.
            let prefix = &prefix[..prefix.len() - 1];
            let mut file = file;
            file.rewind()?;
            let mut reader = BufReader::with_capacity(1 << 16, file.take(*len));
            let mut buf = Vec::new();
            loop {
                buf.clear();
                if reader.read_until(b'\n', &mut buf)? == 0 {
                    break;
                }
                if buf.pop() != Some(b'\n') {
                    return Err(Stale);
                }
                let mine = bucket == ANY_RUN
                    || (buf.starts_with(prefix) && buf.get(prefix.len()) == Some(&b','));
                if !mine {
                    continue;
                }
                let fast = (bucket != ANY_RUN && memchr::memchr(b'\\', &buf).is_none())
                    .then(|| this_runs_entry(&buf[prefix.len() + 1..]))
                    .flatten();
                if let Some((call, fingerprint, bytes)) = fast {
                    history.add(Some(run_id), call, fingerprint, bytes);
                    continue;
                }
                let EntryRef(run, call, fingerprint, bytes) =
                    serde_json::from_slice(&buf).map_err(|_| Stale)?;
                history.add(run.as_deref(), &call, fingerprint.as_deref(), bytes);
            }
        }
        Ok(())
    }
}

/// Reads `buf.len()` bytes at `offset` (the file's position moves; every reader seeks first).
fn read_at(mut file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}

fn write_head(dir: &Path, head: &Head) -> Result<(), Stale> {
    let temp = dir.join("head.tmp");
    let bytes = serde_json::to_vec(head).map_err(|_| Stale)?;
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, dir.join("head"))?;
    Ok(())
}

/// A fresh index, written while the whole ledger is streamed: entries are buffered per bucket
/// and written out every few MiB, so memory stays flat whatever the ledger's size.
pub(crate) struct Rebuild {
    dir: PathBuf,
    head: Head,
    pending: HashMap<u32, Vec<u8>>,
    /// Each bucket's last entry, hashed once at the end.
    tails: HashMap<u32, Vec<u8>>,
    buffered: usize,
}

impl Rebuild {
    /// Clears the index folder beside `ledger` (creating it if needed); `None` when it cannot
    /// be used, and the call then goes on without an index.
    pub fn start(ledger: &Path) -> Option<Self> {
        let dir = dir_of(ledger);
        match std::fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(_) => return None,
        }
        if !std::fs::metadata(&dir).ok()?.is_dir() {
            return None;
        }
        // The head goes first: until the new one is written, there is no index to trust.
        match std::fs::remove_file(dir.join("head")) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(_) => return None,
        }
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let ours =
                name.ends_with(".jsonl") && (name.starts_with('b') || name == "any-run.jsonl");
            if ours || name == "head.tmp" {
                std::fs::remove_file(entry.path()).ok()?;
            }
        }
        Some(Self {
            dir,
            head: Head::empty(),
            pending: HashMap::new(),
            tails: HashMap::new(),
            buffered: 0,
        })
    }

    /// Adds a record read from the ledger line `[start, start + len)`.
    pub fn add(&mut self, record: &LedgerRecord, start: u64, len: u64) -> Result<(), Stale> {
        let bucket = bucket_of(record.run_id.as_deref());
        let line = entry(record);
        let buf = self.pending.entry(bucket).or_default();
        let (committed, _, _) = self
            .head
            .buckets
            .entry(bucket)
            .or_insert((0, 0, String::new()));
        let at = *committed + buf.len() as u64;
        buf.extend_from_slice(&line);
        buf.push(b'\n');
        self.buffered += line.len() + 1;
        let b = self.head.buckets.get_mut(&bucket).expect("inserted above");
        b.1 = at;
        let tail = self.tails.entry(bucket).or_default();
        tail.clear();
        tail.extend_from_slice(&line);
        self.head.last = Some((start, len));
        if self.buffered >= REBUILD_BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), Stale> {
        for (bucket, buf) in &mut self.pending {
            if buf.is_empty() {
                continue;
            }
            let mut file = OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.dir.join(bucket_name(*bucket)))?;
            file.write_all(buf)?;
            let b = self
                .head
                .buckets
                .get_mut(bucket)
                .expect("a pending bucket is known");
            b.0 += buf.len() as u64;
            buf.clear();
        }
        self.buffered = 0;
        Ok(())
    }

    /// Writes what is left and the head for a ledger covered up to `ledger_len` (`lines` lines,
    /// chain head `chain_head`); the index is then ready for the call's own append.
    pub fn finish(mut self, ledger_len: u64, lines: u64, chain_head: &str) -> Result<Index, Stale> {
        self.flush()?;
        for (bucket, tail) in &self.tails {
            let b = self
                .head
                .buckets
                .get_mut(bucket)
                .expect("a bucket with a tail is known");
            b.2 = entry_hash(tail);
        }
        self.head.ledger_len = ledger_len;
        self.head.lines = lines;
        chain_head.clone_into(&mut self.head.chain_head);
        if self.head.chain_head == chain::GENESIS {
            self.head.last = None;
        }
        write_head(&self.dir, &self.head)?;
        Ok(Index {
            dir: self.dir,
            head: self.head,
            cut: Vec::new(),
        })
    }
}

/// Removes the head so that the next call rebuilds (used when an update failed half-way).
pub(crate) fn invalidate(ledger: &Path) {
    let _ = std::fs::remove_file(dir_of(ledger).join("head"));
}

/// Reads a whole ledger's records from `offset` (`lines` lines already read), for a rebuild or
/// a catch-up: calls `each` with every record and where its line is; returns the offset after
/// the last whole line, the lines read, and the torn bytes after it (if any).
pub(crate) fn stream_records(
    file: &File,
    offset: u64,
    lines: u64,
    each: &mut dyn FnMut(&LedgerRecord, u64, u64),
) -> Result<Streamed, crate::error::ToolError> {
    use super::lines::LineError;
    use crate::error::{ErrorCode, ToolError};
    let mut source = file;
    source
        .seek(SeekFrom::Start(offset))
        .map_err(|e| unavailable("read", &e))?;
    let mut reader = LineReader::new(BufReader::with_capacity(1 << 16, source), offset, lines);
    let corrupt = |number: u64, why: &'static str| {
        ToolError::numbered(ErrorCode::LedgerCorrupt, why, &[number])
    };
    let mut out = Streamed {
        complete_len: offset,
        lines,
        torn: false,
        last: None,
    };
    loop {
        let line = match reader.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(LineError::TooLong(n)) => {
                return Err(corrupt(
                    n,
                    "ledger line {} is longer than 1 MiB; repair or move the ledger",
                ));
            }
            Err(LineError::Io(e)) => return Err(unavailable("read", &e)),
        };
        if !line.complete {
            out.torn = !line.is_blank();
            break;
        }
        out.complete_len = line.end();
        out.lines = line.number;
        if line.is_blank() {
            continue;
        }
        let record = serde_json::from_slice::<LedgerRecord>(line.bytes).map_err(|_| {
            corrupt(
                line.number,
                "ledger line {} is not a valid record; repair or move the ledger",
            )
        })?;
        out.last = Some((line.start, line.bytes.len() as u64));
        each(&record, line.start, line.bytes.len() as u64);
    }
    Ok(out)
}

/// Where a stream of the ledger ended.
pub(crate) struct Streamed {
    /// The offset after the last whole line.
    pub complete_len: u64,
    /// Lines up to there.
    pub lines: u64,
    /// Whether non-blank bytes follow without a newline (a crash mid-write).
    pub torn: bool,
    /// Offset and length of the last record read, if any.
    pub last: Option<(u64, u64)>,
}

impl Streamed {
    /// The chain hash of the last record read (read back once: hashing every line on the way
    /// would cost a second pass's worth of SHA-256), or `before` when none was read.
    pub fn chain_head(&self, file: &File, before: &str) -> Result<String, crate::error::ToolError> {
        let Some((start, len)) = self.last else {
            return Ok(before.to_owned());
        };
        let mut line = vec![0u8; usize::try_from(len).unwrap_or(0)];
        read_at(file, &mut line, start).map_err(|e| unavailable("read", &e))?;
        Ok(chain::line_hash(&line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reads_the_same_without_the_parser() {
        let records = [
            ("r", "call_1", Some("ab".repeat(32)), Some(812)),
            ("r", "调用 1", None, None),
            ("r", "c", Some(String::new()), Some(0)),
        ];
        for (run, call, fp, bytes) in records {
            let r = LedgerRecord {
                run_id: Some(run.into()),
                tool_call_id: call.into(),
                scope_fingerprint: fp.clone(),
                observation_bytes: bytes,
                ..LedgerRecord::default()
            };
            let line = entry(&r);
            let rest = &line[br#"["r","#.len()..];
            assert_eq!(
                this_runs_entry(rest),
                Some((call, fp.as_deref(), bytes)),
                "{}",
                String::from_utf8_lossy(&line)
            );
        }
        // Anything else goes to the parser (or is a damaged index).
        for rest in [
            &br#""a","b",12"#[..],
            br#""a",null,1x]"#,
            br#""a",null,]"#,
            b"",
        ] {
            assert_eq!(this_runs_entry(rest), None);
        }
    }

    #[test]
    fn buckets_are_chosen_by_run_and_records_without_a_run_share_one() {
        assert_eq!(bucket_of(Some("run-a")), bucket_of(Some("run-a")));
        assert!(bucket_of(Some("run-a")) < BUCKETS);
        assert_eq!(bucket_of(None), ANY_RUN);
        let spread: std::collections::HashSet<u32> = (0..200)
            .map(|i| bucket_of(Some(&format!("run-{i}"))))
            .collect();
        assert!(spread.len() > 150, "{}", spread.len());
    }
}
