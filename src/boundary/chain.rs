//! The ledger's hash chain (SPEC §6): proof, months later, that nobody edited the record store.
//!
//! Every record carries `prev_sha256`, the SHA-256 of the previous record's line: its exact bytes
//! without the newline, so the verifier never re-serializes anything and a byte changed anywhere
//! changes a hash. The first record of a file links to [`GENESIS`]. All runs sharing a file are
//! one chain, because the appender links to whatever line it finds last under the lock.
//!
//! A chain tells *that* something changed, and, from where the broken link points, roughly *what*:
//! a link to a line further back means the lines in between were inserted; a link to a later line
//! means records were reordered; a link to nothing means the line before was edited or records
//! were deleted there (the chain cannot tell these two apart: both leave a hash that no line in
//! the file has). Editing or cutting off the *last* records leaves a valid, shorter chain; only the
//! head the harness was handed (`ledger_head`) catches that, hence `--head`.
//!
//! Whitespace-only lines are skipped here exactly as the ledger's reader skips them, and the bytes
//! after the last newline are a torn line (a crash mid-write), not part of the chain: the
//! appender cuts them off before it writes, and the verifier reports them as a crash artefact.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::scope::sha256_hex;
use crate::contracts::LedgerRecord;

/// The `prev_sha256` of the first record of a file: 64 zeros.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// The hash a line contributes to the chain: SHA-256 of its bytes (no newline), lowercase hex.
pub fn line_hash(line: &[u8]) -> String {
    sha256_hex(line)
}

/// Whether `text` looks like a chain hash: 64 lowercase hex digits.
pub fn is_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The whole lines of a ledger file held in memory (replay's comparison).
pub(crate) struct Lines<'a> {
    /// 1-based line number and bytes (without the newline) of every non-blank whole line.
    pub whole: Vec<(u64, &'a [u8])>,
}

/// Splits a ledger into its whole lines, the way both the appender and the verifier read it:
/// blank lines skipped, the bytes after the last newline (a torn line) left out.
pub(crate) fn lines(bytes: &[u8]) -> Lines<'_> {
    let complete_len = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let whole = bytes[..complete_len]
        .split(|b| *b == b'\n')
        .enumerate()
        .filter(|(_, line)| !is_blank(line))
        .map(|(index, line)| (index as u64 + 1, line))
        .collect();
    Lines { whole }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainReport {
    /// Whole records in the file (the torn line not counted).
    pub records: u64,
    /// The hash of the last whole record: what the last call handed the harness as `ledger_head`.
    pub head: Option<String>,
    /// The first place the chain breaks, if it does.
    pub broken: Option<ChainBreak>,
    /// Bytes after the last newline: a crash mid-write, ignored.
    pub torn: Option<TornLine>,
    /// The result of `--head`, when a head was given.
    pub head_check: Option<HeadCheck>,
}

impl ChainReport {
    /// True when the chain is unbroken and the expected head, if any, is in it.
    pub fn is_intact(&self) -> bool {
        self.broken.is_none() && !matches!(self.head_check, Some(HeadCheck::Missing))
    }

    /// The report as `ledger verify` prints it: the verdict first, then the notes.
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let plural = if self.records == 1 { "" } else { "s" };
        match (&self.broken, &self.head) {
            (Some(b), _) => writeln!(out, "chain broken: {b}; {} records read", self.records)?,
            (None, Some(head)) => writeln!(
                out,
                "chain intact: {} record{plural}, head {head}",
                self.records
            )?,
            (None, None) => writeln!(out, "chain intact: 0 records")?,
        }
        if let Some(torn) = &self.torn {
            writeln!(out, "note: {torn}")?;
        }
        if let Some(check) = &self.head_check {
            writeln!(out, "--head: {check}")?;
        }
        Ok(())
    }
}

/// A torn last line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TornLine {
    /// Its 1-based line number.
    pub line: u64,
    /// Its length in bytes.
    pub bytes: u64,
}

impl fmt::Display for TornLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} is torn ({} bytes, no newline): a crash artefact, not part of the chain; \
             the next call cuts it off",
            self.line, self.bytes
        )
    }
}

/// Where the expected head sits in the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadCheck {
    /// The head is the record on `line`, and `following` records were appended after it.
    Found {
        /// Its 1-based line number.
        line: u64,
        /// Records after it.
        following: u64,
    },
    /// No whole record has that hash: it was edited, or cut off the end with everything after it.
    Missing,
}

impl fmt::Display for HeadCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeadCheck::Found { line, following } => write!(
                f,
                "head found at line {line}; {following} record{} follow{} it",
                if *following == 1 { "" } else { "s" },
                if *following == 1 { "s" } else { "" }
            ),
            HeadCheck::Missing => f.write_str(
                "head not in the chain: the record the harness was handed was edited, or cut off \
                 the end together with every record after it",
            ),
        }
    }
}

/// The first broken link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainBreak {
    /// The 1-based line the break is reported at (for an insertion, the first inserted line).
    pub line: u64,
    /// What the chain says happened.
    pub kind: BreakKind,
}

/// What a broken link points to, and so what most likely happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakKind {
    /// The line is not a ledger record at all (not JSON, or fields the ledger never writes).
    NotARecord,
    /// The line runs past 1 MiB without ending: damage, never a record; nothing after it is read.
    TooLong,
    /// A record without `prev_sha256`: written before the chain existed, or edited.
    Unchained,
    /// Lines `line..=last` were not there when the record after them was written.
    Inserted {
        /// The last inserted line.
        last: u64,
    },
    /// The record on `line` was written right after the record now on the later line `after`.
    Reordered {
        /// The later line it links to.
        after: u64,
    },
    /// The record's link matches no line: the previous line (`None` for the first record) was
    /// edited, or records before this one were deleted.
    EditedOrDeleted {
        /// The line before, if any.
        previous: Option<u64>,
    },
}

impl fmt::Display for ChainBreak {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = self.line;
        match self.kind {
            BreakKind::NotARecord => write!(
                f,
                "line {line} is not a ledger record: it was edited or inserted"
            ),
            BreakKind::TooLong => write!(
                f,
                "line {line} is longer than 1 MiB: not a ledger record; the file is not read \
                 past it"
            ),
            BreakKind::Unchained => write!(
                f,
                "line {line} has no prev_sha256: it was edited, or written before the ledger \
                 was hash-chained"
            ),
            BreakKind::Inserted { last } if last == line => write!(
                f,
                "line {line} was inserted: the record after it links to the record before it"
            ),
            BreakKind::Inserted { last } => write!(
                f,
                "lines {line} to {last} were inserted: the record after them links to the \
                 record before them"
            ),
            BreakKind::Reordered { after } => write!(
                f,
                "line {line} is out of order: it was written right after line {after}"
            ),
            BreakKind::EditedOrDeleted { previous: None } => write!(
                f,
                "line {line} does not start the chain: records before it were deleted, or its \
                 prev_sha256 was edited"
            ),
            BreakKind::EditedOrDeleted {
                previous: Some(prev),
            } => write!(
                f,
                "line {line} does not follow line {prev}: its prev_sha256 matches no line in the \
                 file, so line {prev} was edited or records between them were deleted"
            ),
        }
    }
}

/// Checks the chain of a ledger file's bytes, and that `expected_head` (if given) is in it.
pub fn verify(bytes: &[u8], expected_head: Option<&str>) -> ChainReport {
    verify_source(&mut std::io::Cursor::new(bytes), expected_head)
        .expect("reading from memory does not fail")
}

/// A line's chain hash as bytes, and the same from a `prev_sha256` (lowercase hex only, as the
/// appender writes it: anything else links to no line).
type Digest = [u8; 32];

fn digest(line: &[u8]) -> Digest {
    use sha2::{Digest as _, Sha256};
    Sha256::digest(line).into()
}

fn parse_hash(text: &str) -> Option<Digest> {
    if !is_hash(text) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in text.as_bytes().chunks(2).enumerate() {
        let nibble = |c: u8| if c <= b'9' { c - b'0' } else { c - b'a' + 10 };
        out[i] = nibble(pair[0]) << 4 | nibble(pair[1]);
    }
    Some(out)
}

const GENESIS_DIGEST: Digest = [0; 32];

/// A record's link as the verifier reads it.
enum Link {
    NotARecord,
    Unchained,
    /// The parsed hash, `None` when the text is not a hash (then it matches no line).
    To(Option<Digest>),
}

fn link_of(line: &[u8]) -> Link {
    match serde_json::from_slice::<LedgerRecord>(line) {
        Err(_) => Link::NotARecord,
        Ok(LedgerRecord {
            prev_sha256: None, ..
        }) => Link::Unchained,
        Ok(LedgerRecord {
            prev_sha256: Some(p),
            ..
        }) => Link::To(parse_hash(&p)),
    }
}

/// The first broken link as pass one sees it, with what it learns about it on the way.
struct Pending {
    /// The index (among whole non-blank lines) and number of the line whose link breaks.
    index: u64,
    line: u64,
    /// Its link, when it has one.
    target: Option<Option<Digest>>,
    /// What it should have linked to (the line before's hash), and that line's number.
    expected: Digest,
    previous: Option<u64>,
    /// The link of the whole line after it, when there is one.
    next_link: Option<Option<Digest>>,
    /// The first later line whose hash is the link.
    later: Option<u64>,
}

/// Streams a ledger and checks its chain, keeping one line in memory whatever its size; reads
/// the file a second time only to say where a broken link points, when it points back.
pub(crate) fn verify_source<R: Read + std::io::Seek>(
    source: &mut R,
    expected_head: Option<&str>,
) -> std::io::Result<ChainReport> {
    use super::lines::{LineError, LineReader};
    let wanted_head = expected_head.and_then(parse_hash);
    let mut reader = LineReader::new(
        std::io::BufReader::with_capacity(1 << 16, &mut *source),
        0,
        0,
    );
    let (mut records, mut last, mut last_line) = (0u64, None::<Digest>, None::<u64>);
    let mut first_line = None::<u64>;
    let mut head_found = None::<(u64, u64)>;
    let mut pending = None::<Pending>;
    let mut broken = None::<ChainBreak>;
    let mut torn = None;
    loop {
        let line = match reader.next_line() {
            Ok(Some(l)) => l,
            Ok(None) => break,
            Err(LineError::Io(e)) => return Err(e),
            Err(LineError::TooLong(line)) => {
                // Nothing past a line with no end can be read as records.
                if pending.is_none() && broken.is_none() {
                    broken = Some(ChainBreak {
                        line,
                        kind: BreakKind::TooLong,
                    });
                }
                break;
            }
        };
        if line.is_blank() {
            continue;
        }
        if !line.complete {
            torn = Some(TornLine {
                line: line.number,
                bytes: line.bytes.len() as u64,
            });
            break;
        }
        let hash = digest(line.bytes);
        let index = records;
        records += 1;
        first_line.get_or_insert(line.number);
        if wanted_head == Some(hash) && head_found.is_none() {
            head_found = Some((line.number, index));
        }
        let expected = last.unwrap_or(GENESIS_DIGEST);
        if let Some(p) = &mut pending {
            if index == p.index + 1 {
                p.next_link = Some(match link_of(line.bytes) {
                    Link::To(t) => t,
                    _ => None,
                });
            }
            if p.later.is_none() && p.target == Some(Some(hash)) {
                p.later = Some(line.number);
            }
        } else if broken.is_none() {
            let here = |kind| {
                Some(ChainBreak {
                    line: line.number,
                    kind,
                })
            };
            match link_of(line.bytes) {
                Link::NotARecord => broken = here(BreakKind::NotARecord),
                Link::Unchained => broken = here(BreakKind::Unchained),
                Link::To(Some(t)) if t == expected => {}
                Link::To(target) => {
                    pending = Some(Pending {
                        index,
                        line: line.number,
                        target: Some(target),
                        expected,
                        previous: last_line,
                        next_link: None,
                        later: None,
                    });
                }
            }
        }
        last = Some(hash);
        last_line = Some(line.number);
    }
    drop(reader);
    if let Some(p) = pending {
        broken = Some(explain(source, &p, first_line.unwrap_or(1))?);
    }
    let head_check = expected_head.map(|_| match head_found {
        Some((line, index)) => HeadCheck::Found {
            line,
            following: records - index - 1,
        },
        None => HeadCheck::Missing,
    });
    Ok(ChainReport {
        records,
        head: last.map(|d| super::scope::hex(&d)),
        broken,
        torn,
        head_check,
    })
}

/// Says what the first broken link points to: a line further back (the lines in between were
/// inserted), a later line (reordered), or no line (edited or deleted; or, when the next line
/// links past it, an inserted line with a forged link). Looking back reads the file again up to
/// the break, so the verifier never keeps a table of every hash.
fn explain<R: Read + std::io::Seek>(
    source: &mut R,
    p: &Pending,
    first_line: u64,
) -> std::io::Result<ChainBreak> {
    use super::lines::LineReader;
    let target = p.target.flatten();
    // The line the record was written after: `Some(None)` is the start of the file.
    let mut back: Option<Option<(u64, u64)>> = None;
    if target == Some(GENESIS_DIGEST) {
        back = Some(None);
    } else if let Some(t) = target {
        source.seek(std::io::SeekFrom::Start(0))?;
        let mut reader = LineReader::new(
            std::io::BufReader::with_capacity(1 << 16, &mut *source),
            0,
            0,
        );
        let mut index = 0u64;
        let mut previous_was_match = false;
        while index < p.index {
            let Ok(Some(line)) = reader.next_line() else {
                break;
            };
            if line.is_blank() {
                continue;
            }
            if previous_was_match {
                // The first line after the one linked to: where the insertion starts.
                back = back.map(|b| b.map(|(j, _)| (j, line.number)));
                break;
            }
            if digest(line.bytes) == t {
                back = Some(Some((index, line.number)));
                previous_was_match = true;
            }
            index += 1;
        }
    }
    let inserted_from = |first: u64| ChainBreak {
        line: first,
        kind: BreakKind::Inserted {
            last: p.previous.unwrap_or(first),
        },
    };
    Ok(match back {
        // A link to the start of the file, or to a line further back than the one before.
        Some(None) => inserted_from(first_line),
        Some(Some((j, next_number))) if j + 1 < p.index => inserted_from(next_number),
        _ => match p.later {
            Some(after) => ChainBreak {
                line: p.line,
                kind: BreakKind::Reordered { after },
            },
            None if p.next_link == Some(Some(p.expected)) => ChainBreak {
                line: p.line,
                kind: BreakKind::Inserted { last: p.line },
            },
            None => ChainBreak {
                line: p.line,
                kind: BreakKind::EditedOrDeleted {
                    previous: p.previous,
                },
            },
        },
    })
}

/// A ledger that cannot be read (exit 5).
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot read the ledger: {source}", path.display())]
pub struct LedgerReadError {
    /// The ledger's path as given (`-` for standard input).
    pub path: PathBuf,
    /// The operating system's reason.
    pub source: std::io::Error,
}

/// `aciproj ledger verify` as a library call: streams the ledger at `path` (`-`: standard input,
/// spooled to a temporary file so a broken link can be looked back on) and checks its hash
/// chain, and with `head` that the chain reaches that `ledger_head`. Memory stays flat whatever
/// the file's size.
pub fn verify_file(path: &Path, head: Option<&str>) -> Result<ChainReport, LedgerReadError> {
    let fail = |source| LedgerReadError {
        path: path.to_owned(),
        source,
    };
    let mut file = if path == Path::new("-") {
        let mut spool = tempfile::tempfile().map_err(fail)?;
        spool_bounded(&mut std::io::stdin().lock(), &mut spool).map_err(fail)?;
        spool
    } else {
        // Asked before opening, so a FIFO is never waited on and a device is never read.
        let meta = std::fs::metadata(path).map_err(fail)?;
        if !meta.is_file() {
            return Err(fail(not_a_regular_file(&meta)));
        }
        std::fs::File::open(path).map_err(fail)?
    };
    use std::io::Seek;
    file.rewind().map_err(fail)?;
    verify_source(&mut file, head).map_err(fail)
}

/// Why a path that exists is not a ledger: what it is instead.
pub(crate) fn not_a_regular_file(meta: &std::fs::Metadata) -> std::io::Error {
    let t = meta.file_type();
    let mut what = if t.is_dir() { "a directory" } else { "" };
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            what = "a FIFO";
        } else if t.is_char_device() {
            what = "a character device";
        } else if t.is_block_device() {
            what = "a block device";
        } else if t.is_socket() {
            what = "a socket";
        }
    }
    if what.is_empty() {
        return std::io::Error::other("it is not a regular file");
    }
    std::io::Error::other(format!("it is {what}, not a regular file"))
}

/// Copies standard input into the spool, stopping once a line runs past the bound: what follows
/// could never be read as records, and an endless stream must not fill the disk.
fn spool_bounded(input: &mut dyn Read, spool: &mut std::fs::File) -> std::io::Result<()> {
    use std::io::Write;
    let mut buf = vec![0u8; 1 << 16];
    let mut since_newline = 0usize;
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        spool.write_all(&buf[..n])?;
        since_newline = match memchr::memrchr(b'\n', &buf[..n]) {
            Some(i) => n - i - 1,
            None => since_newline + n,
        };
        if since_newline > super::lines::MAX_LINE_BYTES {
            return Ok(());
        }
    }
}

/// Reads a whole ledger file; `-` reads standard input.
pub fn read(path: &Path) -> Result<Vec<u8>, LedgerReadError> {
    let fail = |source| LedgerReadError {
        path: path.to_owned(),
        source,
    };
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        std::io::stdin()
            .lock()
            .read_to_end(&mut bytes)
            .map_err(fail)?;
    } else {
        std::fs::File::open(path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(fail)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `n` records written the way the appender writes them.
    fn chain(n: usize) -> Vec<String> {
        let mut prev = GENESIS.to_owned();
        (0..n)
            .map(|i| {
                let record = LedgerRecord {
                    run_id: Some("r".into()),
                    tool_call_id: format!("call_{i}"),
                    tool: "rag".into(),
                    prev_sha256: Some(prev.clone()),
                    ..LedgerRecord::default()
                };
                let line = serde_json::to_string(&record).unwrap();
                prev = line_hash(line.as_bytes());
                line
            })
            .collect()
    }

    fn file(lines: &[String]) -> Vec<u8> {
        lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect()
    }

    fn broken(lines: &[String]) -> ChainBreak {
        verify(&file(lines), None).broken.expect("the chain breaks")
    }

    #[test]
    fn an_untouched_chain_verifies_and_names_its_head() {
        let lines = chain(5);
        let report = verify(&file(&lines), None);
        assert!(report.is_intact(), "{report:?}");
        assert_eq!(report.records, 5);
        assert_eq!(report.head, Some(line_hash(lines[4].as_bytes())));
        assert!(verify(b"", None).is_intact());
        assert!(is_hash(GENESIS) && is_hash(&line_hash(b"x")));
    }

    #[test]
    fn an_edited_record_breaks_the_link_after_it() {
        let mut lines = chain(4);
        lines[1] = lines[1].replace("\"tool\":\"rag\"", "\"tool\":\"logs\"");
        let b = broken(&lines);
        assert_eq!(
            b,
            ChainBreak {
                line: 3,
                kind: BreakKind::EditedOrDeleted { previous: Some(2) }
            }
        );
        assert!(b.to_string().contains("line 2 was edited"), "{b}");
    }

    #[test]
    fn a_deleted_record_leaves_a_link_to_nothing() {
        let mut lines = chain(4);
        lines.remove(1);
        assert_eq!(
            broken(&lines).kind,
            BreakKind::EditedOrDeleted { previous: Some(1) }
        );
        let mut lines = chain(3);
        lines.remove(0);
        assert_eq!(
            broken(&lines),
            ChainBreak {
                line: 1,
                kind: BreakKind::EditedOrDeleted { previous: None }
            }
        );
    }

    #[test]
    fn inserted_records_are_named_with_or_without_a_forged_link() {
        let lines = chain(3);
        // Forged well: the inserted record links to the one before it.
        let forged = lines[0].replace("call_0", "call_x");
        let forged = forged.replace(
            &format!("\"prev_sha256\":\"{GENESIS}\""),
            &format!("\"prev_sha256\":\"{}\"", line_hash(lines[0].as_bytes())),
        );
        let with = [
            lines[0].clone(),
            forged.clone(),
            lines[1].clone(),
            lines[2].clone(),
        ];
        assert_eq!(
            broken(&with),
            ChainBreak {
                line: 2,
                kind: BreakKind::Inserted { last: 2 }
            }
        );
        // Forged badly: a link to nothing, but the next record skips it.
        let bad = lines[1]
            .replace("call_1", "call_y")
            .replace(&line_hash(lines[0].as_bytes()), &"ab".repeat(32));
        let with = [lines[0].clone(), bad, lines[1].clone(), lines[2].clone()];
        assert_eq!(
            broken(&with),
            ChainBreak {
                line: 2,
                kind: BreakKind::Inserted { last: 2 }
            }
        );
        // A prepended record: the old first record still links to GENESIS.
        let first = lines[0].replace("call_0", "call_z");
        let with = [first, lines[0].clone(), lines[1].clone()];
        assert_eq!(
            broken(&with),
            ChainBreak {
                line: 1,
                kind: BreakKind::Inserted { last: 1 }
            }
        );
    }

    #[test]
    fn swapped_records_are_out_of_order() {
        let mut lines = chain(4);
        lines.swap(1, 2);
        assert_eq!(
            broken(&lines),
            ChainBreak {
                line: 2,
                kind: BreakKind::Reordered { after: 3 }
            }
        );
        let mut lines = chain(2);
        lines.swap(0, 1);
        assert_eq!(broken(&lines).kind, BreakKind::Reordered { after: 2 });
    }

    #[test]
    fn damaged_and_unchained_lines_are_breaks() {
        let mut lines = chain(3);
        lines[1] = "{not json".into();
        assert_eq!(broken(&lines).kind, BreakKind::NotARecord);
        let old = r#"{"tool_call_id":"c","tool":"rag"}"#.to_owned();
        assert_eq!(
            broken(&[old]),
            ChainBreak {
                line: 1,
                kind: BreakKind::Unchained
            }
        );
    }

    #[test]
    fn a_torn_last_line_is_a_note_not_a_break() {
        let lines = chain(2);
        let mut bytes = file(&lines);
        bytes.extend_from_slice(b"{\"run_id\":\"r\",\"tool_ca");
        let report = verify(&bytes, None);
        assert!(report.is_intact(), "{report:?}");
        assert_eq!(report.records, 2);
        assert_eq!(report.torn, Some(TornLine { line: 3, bytes: 22 }));
        // Blank lines are skipped, as the reader skips them.
        let spaced = format!("{}\n\n{}\n", lines[0], lines[1]);
        assert!(verify(spaced.as_bytes(), None).is_intact());
    }

    #[test]
    fn the_head_must_be_in_the_chain() {
        let lines = chain(4);
        let head = line_hash(lines[1].as_bytes());
        let report = verify(&file(&lines), Some(&head));
        assert_eq!(
            report.head_check,
            Some(HeadCheck::Found {
                line: 2,
                following: 2
            })
        );
        assert!(report.is_intact());
        // The records from the head on cut off the end: the rest still chains, the head is gone.
        let cut = verify(&file(&lines[..1]), Some(&head));
        assert!(cut.broken.is_none());
        assert_eq!(cut.head_check, Some(HeadCheck::Missing));
        assert!(!cut.is_intact());
    }
}
