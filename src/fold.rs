//! Folding raw log lines into redacted patterns: the engine of `aciproj patterns`.
//!
//! Each line is redacted with the same rules as the log projection, then folded by the same
//! template miner, so what an operator sees here is what the agent would see in `patterns`.
//! Clusters whose templates converged to the same text are reported as one pattern. The per-line
//! assignment is kept as one integer per line (4 bytes), so `--assign` can print each line's
//! *final* pattern after the whole input was seen.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};

use serde::Serialize;

use crate::cache::ClearingMap;
use crate::patterns::{FxBuild, PatternId, TemplateMiner};
use crate::pipeline::Gather;
use crate::redact::{RedactionCounts, Redactor};

/// Lines folded into patterns.
pub struct Folded {
    miner: TemplateMiner,
    assignments: Vec<PatternId>,
}

/// One line of `aciproj patterns` output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PatternLine {
    /// The redacted template.
    pub pattern: String,
    /// Lines folded into it.
    pub count: u64,
    /// The 1-based number of the first line folded into it.
    pub first_line: u64,
}

/// Lines handed from the reading thread to the mining thread at a time.
const BATCH: usize = 1024;

/// Reads lines (invalid UTF-8 is replaced, `\r\n` and `\n` both end a line) and folds them.
///
/// Redaction is shared between the reading and the mining thread (`crate::pipeline`); lines
/// reach the miner in input order either way, so the result does not depend on who redacted what.
/// Unless `parallel`, everything runs on the caller's thread.
pub fn fold_lines(input: impl Read, parallel: bool) -> std::io::Result<Folded> {
    fold_lines_with(Redactor::shared(), input, parallel)
}

/// [`fold_lines`] with `redactor` (one with a rules file's rules, `patterns --rules`).
pub fn fold_lines_with(
    redactor: &Redactor,
    input: impl Read,
    parallel: bool,
) -> std::io::Result<Folded> {
    use crate::pipeline::{Batch, share};

    let mut reader = BufReader::with_capacity(256 * 1024, input);
    let mut reader_side = SeenLines::with(redactor);
    let start = Mining {
        miner: TemplateMiner::new(),
        assignments: Vec::new(),
        seen: SeenLines::with(redactor),
        known: KnownLines::default(),
    };
    let (read, mining) = share::<Lines, _, _, _>(
        parallel,
        BATCH,
        start,
        |sink| -> std::io::Result<()> {
            let mut buf = Vec::new();
            loop {
                buf.clear();
                if reader.read_until(b'\n', &mut buf)? == 0 {
                    return Ok(());
                }
                let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                // Valid UTF-8 is the common case, and a SIMD check is much faster than the
                // lossy conversion's walk.
                match simdutf8::basic::from_utf8(line) {
                    Ok(text) => sink(text),
                    Err(_) => sink(&String::from_utf8_lossy(line)),
                }
            }
        },
        |lines: Lines| {
            let mut redacted = Lines::default();
            for line in lines.iter() {
                reader_side.with_redacted(line, |r| redacted.push(r));
            }
            redacted
        },
        |m: &mut Mining, batch| match batch {
            Batch::Raw(lines) => lines.iter().for_each(|line| m.fold_raw(line)),
            Batch::Prepared(lines) => {
                for line in lines.iter() {
                    m.assignments.push(m.miner.insert_repeated(line));
                }
            }
        },
    );
    read.map(|()| Folded {
        miner: mining.miner,
        assignments: mining.assignments,
    })
}

/// The mining thread's state.
struct Mining<'r> {
    miner: TemplateMiner,
    assignments: Vec<PatternId>,
    seen: SeenLines<'r>,
    known: KnownLines,
}

impl Mining<'_> {
    /// Redacts and mines one line as read; a raw line whose answer is settled costs one lookup.
    fn fold_raw(&mut self, line: &str) {
        let epoch = self.miner.epoch();
        if self.known.epoch != epoch {
            self.known.ids.clear();
            self.known.epoch = epoch;
        }
        if let Some(&id) = self.known.ids.get(line) {
            self.miner.count(PatternId(id));
            self.assignments.push(PatternId(id));
            return;
        }
        let miner = &mut self.miner;
        let (id, settled) = self.seen.with_redacted(line, |r| miner.insert_settled(r));
        if settled && line.len() <= SEEN_MAX_LINE_BYTES {
            let epoch = self.miner.epoch();
            if self.known.epoch != epoch {
                self.known.ids.clear();
                self.known.epoch = epoch;
            }
            self.known.ids.insert(line.into(), id.0, line.len());
        }
        self.assignments.push(id);
    }
}

/// Raw lines whose pattern is settled ([`TemplateMiner::insert_settled`]), emptied whenever the
/// miner's epoch moves: a repeated line is one lookup, not a lookup of its redaction and another
/// of the redacted line in the miner. What a lookup gives is what redacting and mining the line
/// again would give, and skipping that changes no state that shapes output (only the two
/// caches). Bounded like [`SeenLines`].
struct KnownLines {
    ids: ClearingMap<u32, FxBuild>,
    epoch: u64,
}

impl Default for KnownLines {
    fn default() -> Self {
        KnownLines {
            ids: ClearingMap::new(SEEN_MAX_LINES, SEEN_MAX_BYTES),
            epoch: 0,
        }
    }
}

/// A batch of lines in one buffer: one allocation per batch instead of one per line.
#[derive(Default)]
struct Lines {
    text: String,
    /// Where each line ends in `text`.
    ends: Vec<usize>,
}

impl Gather for Lines {
    type Item<'a> = &'a str;

    fn push(&mut self, line: &str) {
        self.text.push_str(line);
        self.ends.push(self.text.len());
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn bytes(&self) -> usize {
        self.text.len()
    }
}

impl Lines {
    fn iter(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let line = self.text.get(start..end).unwrap_or("");
            start = end;
            line
        })
    }
}

/// Lines already redacted on this thread, and what each became (`None`: itself).
///
/// Log files repeat whole lines (health checks, retries, one error from every worker), and
/// redaction is most of the cost of a line: a repeated line costs a lookup instead. Bounded
/// like the miner's template cache: at most [`SEEN_MAX_LINES`] lines and [`SEEN_MAX_BYTES`]
/// bytes, emptied when full. Redaction is a pure function of the line, so the cache changes no
/// output; `patterns` reports no redaction counts, so none are kept. Only looked up, never
/// iterated, so its hasher shapes no output: the miner's, several times faster than SipHash on
/// a line.
struct SeenLines<'r> {
    redacted: ClearingMap<Option<Box<str>>, FxBuild>,
    redactor: &'r Redactor,
}

const SEEN_MAX_LINES: usize = 1 << 16;
const SEEN_MAX_BYTES: usize = 8 << 20;
/// Longer lines are rare and would crowd out many short ones.
const SEEN_MAX_LINE_BYTES: usize = 4096;

#[cfg(test)]
impl Default for SeenLines<'static> {
    fn default() -> Self {
        SeenLines::with(Redactor::shared())
    }
}

impl<'r> SeenLines<'r> {
    fn with(redactor: &'r Redactor) -> Self {
        SeenLines {
            redacted: ClearingMap::new(SEEN_MAX_LINES, SEEN_MAX_BYTES),
            redactor,
        }
    }

    /// `f` of the line redacted (one lookup when the line was seen before).
    fn with_redacted<T>(&mut self, line: &str, f: impl FnOnce(&str) -> T) -> T {
        if let Some(known) = self.redacted.get(line) {
            return f(known.as_deref().unwrap_or(line));
        }
        let changed = match self.redactor.redact(line, &mut RedactionCounts::default()) {
            Cow::Owned(changed) => Some(changed),
            Cow::Borrowed(_) => None,
        };
        let out = f(changed.as_deref().unwrap_or(line));
        if line.len() <= SEEN_MAX_LINE_BYTES {
            let cost = line.len() + changed.as_ref().map_or(0, String::len);
            self.redacted
                .insert(line.into(), changed.map(String::into_boxed_str), cost);
        }
        out
    }
}

impl Folded {
    /// The patterns, by count (descending), then first line.
    pub fn summary(&self) -> Vec<PatternLine> {
        // Count by cluster first (an array index per line), then merge clusters whose templates
        // read the same: hashing each line's template text cost more than mining some lines.
        let mut per_cluster: Vec<(u64, u64)> = Vec::new(); // (first line, count); count 0 = unseen
        for (n, id) in self.assignments.iter().enumerate() {
            let i = id.0 as usize;
            if per_cluster.len() <= i {
                per_cluster.resize(i + 1, (0, 0));
            }
            let slot = &mut per_cluster[i];
            if slot.1 == 0 {
                slot.0 = n as u64 + 1;
            }
            slot.1 += 1;
        }
        let mut by_text: HashMap<&str, usize> = HashMap::new();
        let mut lines: Vec<PatternLine> = Vec::new();
        for (i, &(first_line, count)) in per_cluster.iter().enumerate() {
            if count == 0 {
                continue;
            }
            let text = self.miner.template(PatternId(i as u32));
            match by_text.get(text) {
                Some(&slot) => {
                    let line = &mut lines[slot];
                    line.count += count;
                    line.first_line = line.first_line.min(first_line);
                }
                None => {
                    by_text.insert(text, lines.len());
                    lines.push(PatternLine {
                        pattern: text.to_owned(),
                        count,
                        first_line,
                    });
                }
            }
        }
        lines.sort_by(|a, b| b.count.cmp(&a.count).then(a.first_line.cmp(&b.first_line)));
        lines
    }

    /// Writes the summary as JSON lines.
    pub fn write_summary(&self, out: &mut impl Write) -> std::io::Result<()> {
        for line in self.summary() {
            serde_json::to_writer(&mut *out, &line)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }

    /// Writes, for each input line, its final pattern as a JSON string.
    pub fn write_assignments(&self, out: &mut impl Write) -> std::io::Result<()> {
        for id in &self.assignments {
            serde_json::to_writer(&mut *out, self.miner.template(*id))?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::redact;

    fn redacted(line: &str) -> String {
        redact(line, &mut RedactionCounts::default()).into_owned()
    }

    #[test]
    fn a_repeated_line_is_redacted_once_and_the_same() {
        let mut seen = SeenLines::default();
        let lines = [
            "login password=hunter2 from 10.0.0.7",
            "disk full",
            "login password=hunter2 from 10.0.0.7",
            "disk full",
        ];
        for line in lines {
            assert_eq!(seen.with_redacted(line, str::to_owned), redacted(line));
        }
        assert_eq!(seen.redacted.len(), 2, "each distinct line is kept once");
        assert!(
            !seen
                .redacted
                .values()
                .flatten()
                .any(|v| v.contains("hunter2"))
        );
    }

    #[test]
    fn the_seen_lines_cache_stays_within_its_bounds() {
        let mut seen = SeenLines::default();
        let long = format!(
            "token={} {}",
            "k".repeat(40),
            "x".repeat(SEEN_MAX_LINE_BYTES)
        );
        assert_eq!(seen.with_redacted(&long, str::to_owned), redacted(&long));
        assert!(
            seen.redacted.is_empty(),
            "a line over the per-line limit is not kept"
        );
        let line = |n: usize| format!("{n:04} host=db{n}.internal {}", "y".repeat(4000));
        let fits = SEEN_MAX_BYTES / (2 * line(0).len());
        for n in 0..fits + 10 {
            let l = line(n);
            assert_eq!(seen.with_redacted(&l, str::to_owned), redacted(&l));
            assert!(
                seen.redacted.bytes() <= SEEN_MAX_BYTES && seen.redacted.len() <= SEEN_MAX_LINES
            );
        }
        assert!(
            seen.redacted.len() < fits,
            "the cache was cleared when it filled up"
        );
    }

    #[test]
    fn folds_values_and_redacts() {
        let input = "user alice logged in from 10.0.0.1\r\nuser bob logged in from 10.0.0.2\ndisk full\n\
                     user carol logged in from 10.0.0.3\nuser dave logged in from 10.0.0.4\n\
                     user erin logged in from 10.0.0.5\n";
        let folded = fold_lines(input.as_bytes(), true).unwrap();
        let summary = folded.summary();
        assert_eq!(summary.len(), 2, "{summary:?}");
        assert_eq!(summary[0].count, 5);
        assert_eq!(summary[0].first_line, 1);
        assert!(
            !summary[0].pattern.contains("10.0.0"),
            "{}",
            summary[0].pattern
        );
        assert_eq!(
            summary[1],
            PatternLine {
                pattern: "disk full".into(),
                count: 1,
                first_line: 3
            }
        );
        let mut out = Vec::new();
        folded.write_assignments(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), 6, "one line per input line");
    }

    #[test]
    fn many_batches_fold_as_one_thread_would() {
        // Enough lines for several batches, so both threads redact some.
        let lines: Vec<String> = (0..5 * BATCH + 7)
            .map(|i| {
                format!(
                    "conn {i} from 10.0.{}.{} password=p{i} took {}ms",
                    i % 200,
                    i % 250,
                    i % 97
                )
            })
            .collect();
        let text = lines.join("\n");
        let folded = fold_lines(text.as_bytes(), true).unwrap();
        let expected = each_line_alone(&lines);
        assert_eq!(folded.assignments, expected);
        assert_eq!(folded.summary().len(), 1);
        assert!(!folded.summary()[0].pattern.contains("10.0."));
    }

    /// What redacting and mining each line in turn gives, the answer folding must match.
    fn each_line_alone(lines: &[String]) -> Vec<crate::patterns::PatternId> {
        let mut miner = TemplateMiner::new();
        let mut counts = RedactionCounts::default();
        lines
            .iter()
            .map(|l| miner.insert(&redact(l, &mut counts)))
            .collect()
    }

    /// Repeated lines looked up whole give what redacting and mining each line gives, also
    /// across the miner's cache emptying itself (more distinct lines than it holds).
    #[test]
    fn known_lines_fold_as_each_line_alone_would() {
        let word = |mut n: usize| -> String {
            let mut w = String::new();
            for _ in 0..4 {
                w.push(char::from(b'a' + (n % 26) as u8));
                n /= 26;
            }
            w
        };
        let lines: Vec<String> = (0..200_000usize)
            .map(|i| {
                // Every other line repeats one a thousand lines back, some across an emptying.
                let n = if i % 2 == 0 {
                    i / 2
                } else {
                    (i / 2).saturating_sub(500)
                };
                match n % 4 {
                    0 => format!("session {} opened from 10.0.0.{}", word(n), n % 250),
                    1 => format!("user {} logged in", word(n % 300)),
                    2 => format!("job {} done by {}", word(n), word(n / 3)),
                    _ => format!("{} {} state {}", word(n), word(n / 7), word(n % 11)),
                }
            })
            .collect();
        let text = lines.join("\n");
        let folded = fold_lines(text.as_bytes(), false).unwrap();
        assert!(folded.miner.epoch() > 0, "the miner's cache emptied itself");
        let expected = each_line_alone(&lines);
        assert_eq!(folded.assignments, expected);
    }

    #[test]
    fn invalid_utf8_and_empty_input() {
        let folded = fold_lines(&b"\xff\xfe broken\n"[..], false).unwrap();
        assert_eq!(folded.summary().len(), 1);
        assert!(fold_lines(&b""[..], false).unwrap().summary().is_empty());
    }
}
