//! Legacy Mock log response → canonical [`LogsToolResult`], one entry at a time.
//!
//! Each entry is redacted first (message, service and an unrecognized level), then folded into a
//! template; entries are grouped by (level, template). The projector keeps only bounded state
//! while the stream runs: one aggregate per group (count, services, first and last seen, its most
//! recent event) and a bounded heap of the most severe, most recent events. Memory therefore
//! depends on the number of groups (capped by the template miner) and the bounds, never on the
//! number of entries.
//!
//! At the end the timeline is chosen in two rounds (SPEC §5): one event of every pattern, patterns
//! taken most severe first and then by count; then the remaining slots by severity, then recency.
//! Ties go to input order. The chosen events are presented chronologically. Every bound that
//! removes something is tallied, so `truncated` is true exactly when something was removed.

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::ops::Range;

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::bounds::{Dropped, json_len, redacted_prefix_within};
use crate::cache::ClearingMap;
use crate::context::{LogsLimits, UntrustedPolicy};
use crate::contracts::{
    EvidenceStatus, LogPattern, LogsScope, LogsToolResult, SourceKind, TimelineEvent, Truncation,
    UntrustedDropped, UntrustedReport,
};
use crate::legacy::logs::{EntryRef, LogEntry, LogsSummary, RawStamp, StampRef};
use crate::patterns::{FxBuild, PatternId, TemplateMiner};
use crate::pipeline::Gather;
use crate::redact::{Correlator, Mark, RedactionCounts, Redactor};
use crate::untrusted::{Tally, scan};

/// How severe a level is; higher is more severe. Unknown levels rank lowest.
fn severity(level: &str) -> u8 {
    match level {
        "FATAL" => 5,
        "ERROR" => 4,
        "WARN" => 3,
        "INFO" => 2,
        "DEBUG" => 1,
        _ => 0,
    }
}

/// A level: one of the static names for the usual spellings (no allocation per entry on the hot
/// path), or a redacted, upper-cased copy of anything else.
type Level = Cow<'static, str>;

/// The usual spellings of each level, matched without regard to ASCII case.
const LEVEL_NAMES: [(&str, &[&str]); 5] = [
    (
        "FATAL",
        &["FATAL", "CRITICAL", "CRIT", "PANIC", "EMERG", "ALERT"],
    ),
    ("ERROR", &["ERROR", "ERR", "SEVERE"]),
    ("WARN", &["WARN", "WARNING"]),
    ("INFO", &["INFO", "NOTICE", "INFORMATION"]),
    ("DEBUG", &["DEBUG", "TRACE", "FINE", "VERBOSE"]),
];

/// Normalizes a legacy level to FATAL, ERROR, WARN, INFO or DEBUG when it is one of their usual
/// spellings; anything else is redacted and kept, upper-cased.
#[cfg(test)]
fn normalize_level(raw: Option<&str>, counts: &mut RedactionCounts) -> Level {
    normalize_level_with(Redactor::shared(), raw, counts)
}

/// [`normalize_level`] with `redactor` (a rules file's, `crate::redact::user`).
fn normalize_level_with(
    redactor: &Redactor,
    raw: Option<&str>,
    counts: &mut RedactionCounts,
) -> Level {
    let raw = raw.unwrap_or("").trim();
    if raw.is_empty() {
        return Cow::Borrowed("UNKNOWN");
    }
    for (name, spellings) in LEVEL_NAMES {
        if spellings.iter().any(|s| s.eq_ignore_ascii_case(raw)) {
            return Cow::Borrowed(name);
        }
    }
    Cow::Owned(redactor.redact(&raw.to_uppercase(), counts).into_owned())
}

/// Parses a legacy timestamp: RFC 3339, `yyyy-MM-dd HH:mm:ss[.fff]` in the run's zone, or epoch
/// milliseconds (as a number or a string of digits).
pub fn parse_stamp(raw: &RawStamp, tz: &TimeZone) -> Option<Timestamp> {
    match raw {
        RawStamp::Millis(ms) => Timestamp::from_millisecond(*ms).ok(),
        RawStamp::Missing => None,
        RawStamp::Text(text) => parse_stamp_text(text, tz),
    }
}

fn parse_stamp_text(text: &str, tz: &TimeZone) -> Option<Timestamp> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return text
            .parse::<i64>()
            .ok()
            .and_then(|ms| Timestamp::from_millisecond(ms).ok());
    }
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Some(ts);
    }
    let civil: jiff::civil::DateTime = text.parse().ok()?;
    tz.to_timestamp(civil).ok()
}

/// Formats a timestamp as RFC 3339 with the zone's offset at that instant.
pub fn format_stamp(ts: Timestamp, tz: &TimeZone) -> String {
    let offset = tz.to_offset(ts);
    ts.display_with_offset(offset).to_string()
}

#[derive(Debug, Clone)]
struct Event {
    timestamp: Timestamp,
    index: u64,
    severity: u8,
    level: Level,
    service: String,
    message: String,
    /// Bytes cut from the redacted message by `max_message_bytes`.
    message_cut: usize,
    /// Whether a flag rule fired on the message (scanned only under `drop`).
    flagged: bool,
}

impl Event {
    /// Priority for the second round: more severe, then more recent, then earlier in input.
    fn priority(&self) -> (u8, Timestamp, Reverse<u64>) {
        (self.severity, self.timestamp, Reverse(self.index))
    }
}

/// Heap entry ordered so the *lowest* priority is on top (a min-heap of the best K).
struct Candidate(Event);

impl PartialEq for Candidate {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Candidate {}
impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Candidate {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.priority().cmp(&self.0.priority())
    }
}

#[derive(Debug)]
struct Group {
    level: Level,
    pattern: PatternId,
    count: u64,
    first_index: u64,
    first_seen: Timestamp,
    last_seen: Timestamp,
    services: Vec<String>,
    services_dropped: bool,
    /// The group's most recent event (earliest in input among equal times).
    latest: Event,
}

/// An entry made safe: timestamp parsed, level normalized, every string redacted. This is all
/// the folding stage needs, and nothing it holds can leak. Its strings borrow from the batch
/// they were read into when redaction left them as they were.
#[derive(Debug)]
pub struct Prepared<'b> {
    timestamp: Timestamp,
    index: u64,
    level: Level,
    service: Cow<'b, str>,
    /// The whole redacted message (templates are mined from it before any cut).
    message: Cow<'b, str>,
    /// Where its labelled placeholders sit and what they replaced, when the call correlates
    /// (labels are numbered when folding, in input order, whoever prepared the entry).
    marks: Vec<Mark>,
}

/// The first stage of the projection: per-entry work that needs no state shared between entries
/// (parsing the time, redaction), so it can run on the thread that reads the response.
pub(crate) struct Preparer<'a> {
    limits: &'a LogsLimits,
    tz: &'a TimeZone,
    counts: RedactionCounts,
    skipped: u64,
    /// Bytes cut from levels and service names by `max_field_bytes`.
    field_cut: u64,
    /// Service names already prepared: a response names a handful of services over and over
    /// (looked up, never iterated: the hasher shapes no output).
    services: ClearingMap<PreparedField, FxBuild>,
    /// Whether messages are redacted with marks, for correlation labels.
    correlate: bool,
    /// The last timestamp text parsed and what it gave: entries come in time order, many to a
    /// second, so most repeat the one before.
    last_stamp: Option<(String, Option<Timestamp>)>,
    /// The redactor: the shared one, or one with the run's rules file.
    redactor: &'a Redactor,
}

/// A field as [`Preparer`] made it safe, with what that took, to be tallied again on every
/// entry that repeats the raw value.
struct PreparedField {
    kept: String,
    counts: RedactionCounts,
    cut: u64,
}

impl PreparedField {
    /// Adds what preparing the field took to `counts` and `cut`, as if it were done again; the
    /// field as prepared, borrowed from `raw` when that is what it is.
    fn tally<'s>(&self, raw: &'s str, counts: &mut RedactionCounts, cut: &mut u64) -> Cow<'s, str> {
        counts.merge(&self.counts);
        *cut += self.cut;
        if self.kept == raw {
            Cow::Borrowed(raw)
        } else {
            Cow::Owned(self.kept.clone())
        }
    }
}

/// Distinct service names remembered, and the bytes they may take.
const SERVICE_MEMO: (usize, usize) = (256, 64 * 1024);

impl<'a> Preparer<'a> {
    /// A preparer for one call's bounds and time zone.
    pub fn new(limits: &'a LogsLimits, tz: &'a TimeZone) -> Self {
        Self {
            limits,
            tz,
            counts: RedactionCounts::default(),
            skipped: 0,
            field_cut: 0,
            services: ClearingMap::new(SERVICE_MEMO.0, SERVICE_MEMO.1),
            correlate: false,
            last_stamp: None,
            redactor: Redactor::shared(),
        }
    }

    /// This preparer, redacting with `redactor` (one with a rules file's rules).
    pub fn with_redactor(mut self, redactor: &'a Redactor) -> Self {
        self.redactor = redactor;
        self
    }

    /// This preparer, keeping the marks correlation labels need when `correlate` is set.
    pub fn correlated(mut self, correlate: bool) -> Self {
        self.correlate = correlate;
        self
    }

    /// Prepares the entry at position `index` of the input, or counts it as skipped (no usable
    /// timestamp or message).
    pub(crate) fn prepare<'b>(&mut self, index: u64, entry: EntryRef<'b>) -> Option<Prepared<'b>> {
        let Some(timestamp) = self.timestamp(&entry.timestamp) else {
            self.skipped += 1;
            return None;
        };
        let raw_message = entry.message.unwrap_or_default();
        if raw_message.trim().is_empty() {
            self.skipped += 1;
            return None;
        }
        let level =
            match normalize_level_with(self.redactor, entry.level.as_deref(), &mut self.counts) {
                Cow::Owned(other) => Cow::Owned(self.cut_field(&other)),
                known => known,
            };
        let service = match entry.service {
            Some(Cow::Borrowed(raw)) => self.service(raw.trim()),
            Some(Cow::Owned(raw)) => Cow::Owned(self.service(raw.trim()).into_owned()),
            None => self.service(""),
        };
        // Most messages need no change: keep the text as read.
        let mut marks = Vec::new();
        let redacted = if self.correlate {
            self.redactor
                .redact_marked(&raw_message, &mut marks, &mut self.counts)
        } else {
            self.redactor.redact(&raw_message, &mut self.counts)
        };
        let redacted = match redacted {
            Cow::Owned(changed) => Some(changed),
            Cow::Borrowed(_) => None,
        };
        let message = redacted.map_or(raw_message, Cow::Owned);
        Some(Prepared {
            timestamp,
            index,
            level,
            service,
            message,
            marks,
        })
    }

    /// The entry's time; a text is parsed once for a run of entries that repeat it.
    fn timestamp(&mut self, raw: &StampRef<'_>) -> Option<Timestamp> {
        match raw {
            StampRef::Millis(ms) => Timestamp::from_millisecond(*ms).ok(),
            StampRef::Missing => None,
            StampRef::Text(text) => match &mut self.last_stamp {
                Some((last, parsed)) if last == text => *parsed,
                memo => {
                    let parsed = parse_stamp_text(text, self.tz);
                    let (last, at) = memo.get_or_insert_with(|| (String::new(), None));
                    last.clear();
                    last.push_str(text);
                    *at = parsed;
                    parsed
                }
            },
        }
    }

    /// A service name redacted and cut to `max_field_bytes`, tallied as if done afresh; each
    /// distinct name is worked out once.
    fn service<'s>(&mut self, raw: &'s str) -> Cow<'s, str> {
        if let Some(known) = self.services.get(raw) {
            return known.tally(raw, &mut self.counts, &mut self.field_cut);
        }
        let mut counts = RedactionCounts::default();
        let redacted = self.redactor.redact(raw, &mut counts);
        let (kept, cut) = redacted_prefix_within(&redacted, self.limits.max_field_bytes);
        let field = PreparedField {
            kept: kept.to_owned(),
            counts,
            cut: cut as u64,
        };
        let kept = field
            .tally(raw, &mut self.counts, &mut self.field_cut)
            .into_owned();
        self.services
            .insert(raw.into(), field, raw.len() + kept.len());
        if kept == raw {
            Cow::Borrowed(raw)
        } else {
            Cow::Owned(kept)
        }
    }

    /// Cuts a level or service name to `max_field_bytes`, tallying what was removed: a cut field
    /// is visible in the result (as a level, a listed service or an event) unless something else
    /// was dropped already, so the tally never makes `truncated` claim a removal that did not
    /// happen.
    fn cut_field(&mut self, value: &str) -> String {
        let (kept, cut) = redacted_prefix_within(value, self.limits.max_field_bytes);
        self.field_cut += cut as u64;
        kept.to_owned()
    }
}

/// Entries as read, a batch at a time: their strings copied into one buffer, so reading costs
/// no allocation per string and the preparing thread frees nothing the reading one allocated.
#[derive(Default)]
pub(crate) struct Entries {
    text: String,
    cuts: Vec<Cut>,
}

/// One entry of [`Entries`]: its position in the input and where its strings are.
struct Cut {
    index: u64,
    timestamp: StampCut,
    level: Option<Range<usize>>,
    service: Option<Range<usize>>,
    message: Option<Range<usize>>,
}

enum StampCut {
    Text(Range<usize>),
    Millis(i64),
    Missing,
}

impl Gather for Entries {
    type Item<'a> = (u64, EntryRef<'a>);

    fn push(&mut self, (index, entry): (u64, EntryRef<'_>)) {
        let text = &mut self.text;
        let mut keep = |s: &str| {
            let start = text.len();
            text.push_str(s);
            start..text.len()
        };
        let timestamp = match &entry.timestamp {
            StampRef::Text(t) => StampCut::Text(keep(t)),
            StampRef::Millis(ms) => StampCut::Millis(*ms),
            StampRef::Missing => StampCut::Missing,
        };
        let level = entry.level.as_deref().map(&mut keep);
        let service = entry.service.as_deref().map(&mut keep);
        let message = entry.message.as_deref().map(&mut keep);
        self.cuts.push(Cut {
            index,
            timestamp,
            level,
            service,
            message,
        });
    }

    fn len(&self) -> usize {
        self.cuts.len()
    }

    fn bytes(&self) -> usize {
        self.text.len()
    }
}

impl Entries {
    /// The entry as read.
    fn entry(&self, cut: &Cut) -> EntryRef<'_> {
        let at = |range: &Range<usize>| Cow::Borrowed(self.text.get(range.clone()).unwrap_or(""));
        EntryRef {
            timestamp: match &cut.timestamp {
                StampCut::Text(range) => StampRef::Text(at(range)),
                StampCut::Millis(ms) => StampRef::Millis(*ms),
                StampCut::Missing => StampRef::Missing,
            },
            level: cut.level.as_ref().map(at),
            service: cut.service.as_ref().map(at),
            message: cut.message.as_ref().map(at),
        }
    }

    /// Every entry prepared by `prep`, for the folding thread.
    pub(crate) fn prepare(&self, prep: &mut Preparer<'_>) -> PreparedEntries {
        let mut done = PreparedEntries::default();
        for cut in &self.cuts {
            let Some(p) = prep.prepare(cut.index, self.entry(cut)) else {
                continue;
            };
            let text = &mut done.text;
            let mut keep = |s: &str| {
                let start = text.len();
                text.push_str(s);
                start..text.len()
            };
            let (service, message) = (keep(&p.service), keep(&p.message));
            done.items.push(KeptEntry {
                timestamp: p.timestamp,
                index: p.index,
                level: p.level,
                service,
                message,
                marks: p.marks,
            });
        }
        done
    }
}

/// A batch the reading thread prepared: [`Prepared`] entries, their strings in one buffer.
#[derive(Default)]
pub(crate) struct PreparedEntries {
    text: String,
    items: Vec<KeptEntry>,
}

struct KeptEntry {
    timestamp: Timestamp,
    index: u64,
    level: Level,
    service: Range<usize>,
    message: Range<usize>,
    marks: Vec<Mark>,
}

/// A projection in progress.
pub struct LogsProjector<'a> {
    prep: Preparer<'a>,
    /// Entries received, usable or not.
    seen: u64,
    limits: &'a LogsLimits,
    tz: &'a TimeZone,
    miner: TemplateMiner,
    groups: Vec<Group>,
    /// Groups by (level, pattern); looked up, never iterated, so its hasher shapes no output.
    index: HashMap<(Level, PatternId), usize, FxBuild>,
    heap: BinaryHeap<Candidate>,
    heap_cap: usize,
    /// Labels for the timeline's placeholders, when the call correlates.
    correlator: Option<Correlator>,
    /// The untrusted-content policy of the call.
    untrusted: UntrustedPolicy,
    /// What the flag rules found in entries as they were folded (only under `drop`).
    flags: Tally,
    /// Entries whose timeline message was flagged (only under `drop`).
    flagged_entries: u64,
}

/// The finished projection with what the harness needs to know.
#[derive(Debug, Clone)]
pub struct LogsProjection {
    /// The canonical result.
    pub result: LogsToolResult,
    /// What each bound removed.
    pub truncation: BTreeMap<Truncation, Dropped>,
    /// Redactions per class.
    pub redactions: RedactionCounts,
    /// Entries without a usable timestamp or message (counted in `match_count`, not shown).
    pub skipped_entries: u64,
    /// What correlation labelled, when the call correlates.
    pub correlation: Option<Correlator>,
    /// What the flag rules found, when they found anything.
    pub untrusted: Option<UntrustedReport>,
}

impl<'a> LogsProjector<'a> {
    /// A projector for one call.
    pub fn new(limits: &'a LogsLimits, tz: &'a TimeZone) -> Self {
        // Round one can take at most `max_events` events that round two would also rank, so the
        // best 2×max_events candidates always contain every event round two can pick.
        let heap_cap = limits.max_events.saturating_mul(2);
        Self {
            prep: Preparer::new(limits, tz),
            seen: 0,
            limits,
            tz,
            miner: TemplateMiner::new(),
            groups: Vec::new(),
            index: HashMap::default(),
            heap: BinaryHeap::with_capacity(heap_cap + 1),
            heap_cap,
            correlator: None,
            untrusted: UntrustedPolicy::Flag,
            flags: Tally::default(),
            flagged_entries: 0,
        }
    }

    /// This projector, applying `policy` to text that addresses the model (SPEC §5). Under
    /// `flag` and `reject` only the finished result is scanned (a few dozen bounded strings);
    /// under `drop` every entry's timeline message is scanned as it is folded, so that a
    /// flagged event never takes a timeline candidate's place and the timeline refills from
    /// the clean events exactly as if the flagged ones had not been there.
    pub fn untrusted(mut self, policy: UntrustedPolicy) -> Self {
        self.untrusted = policy;
        self
    }

    /// This projector, labelling the timeline's identity and credential placeholders with an
    /// ordinal per distinct value (`<IP#1>`) when `correlate` is set (SPEC §5).
    pub fn correlated(mut self, correlate: bool) -> Self {
        self.prep.correlate = correlate;
        self.correlator = correlate.then(Correlator::new);
        self
    }

    /// A preparer like this projector's own, for another thread (see [`LogsProjector::absorb`]).
    pub(crate) fn preparer(&self) -> Preparer<'a> {
        Preparer::new(self.limits, self.tz)
            .correlated(self.prep.correlate)
            .with_redactor(self.prep.redactor)
    }

    /// This projector, redacting with `redactor` (one with the run's rules file, SPEC §5).
    pub fn with_redactor(mut self, redactor: &'a Redactor) -> Self {
        self.prep.redactor = redactor;
        self
    }

    /// The bounds this projector applies.
    pub fn limits(&self) -> &'a LogsLimits {
        self.limits
    }

    /// The zone for timestamps without an offset.
    pub fn time_zone(&self) -> &'a TimeZone {
        self.tz
    }

    /// Prepares (with this projector's own preparer) and folds a batch of entries as read, or
    /// folds one the reading thread prepared.
    pub(crate) fn fold_batch(&mut self, batch: crate::pipeline::Batch<Entries, PreparedEntries>) {
        match batch {
            crate::pipeline::Batch::Raw(entries) => {
                for cut in &entries.cuts {
                    if let Some(prepared) = self.prep.prepare(cut.index, entries.entry(cut)) {
                        self.fold(prepared);
                    }
                }
            }
            crate::pipeline::Batch::Prepared(done) => {
                let PreparedEntries { text, items } = done;
                for kept in items {
                    let at = |range: Range<usize>| Cow::Borrowed(text.get(range).unwrap_or(""));
                    self.fold(Prepared {
                        timestamp: kept.timestamp,
                        index: kept.index,
                        level: kept.level,
                        service: at(kept.service),
                        message: at(kept.message),
                        marks: kept.marks,
                    });
                }
            }
        }
    }

    /// Takes in the tallies of a preparer that ran elsewhere, and the number of entries read.
    pub(crate) fn absorb(&mut self, other: Preparer<'_>, seen: u64) {
        self.prep.counts.merge(&other.counts);
        self.prep.skipped += other.skipped;
        self.prep.field_cut += other.field_cut;
        self.seen = seen;
    }

    /// Prepares and folds one entry.
    pub fn push(&mut self, entry: LogEntry) {
        self.push_entry(entry.as_ref());
    }

    /// [`LogsProjector::push`] for an entry as the reader parsed it.
    pub(crate) fn push_entry(&mut self, entry: EntryRef<'_>) {
        let index = self.seen;
        self.seen += 1;
        if let Some(prepared) = self.prep.prepare(index, entry) {
            self.fold(prepared);
        }
    }

    /// Folds one prepared entry in: template, group, timeline candidates. The event is copied
    /// out of the entry only where it is kept (a new group, a group's newer latest event, a
    /// timeline candidate).
    pub fn fold(&mut self, prepared: Prepared<'_>) {
        let Prepared {
            timestamp,
            index,
            level,
            service,
            message,
            marks,
        } = prepared;
        let pattern = self.miner.insert(&message);
        // Templates keep plain placeholders; the timeline's copy is labelled here, in input
        // order, before the cut, so a label counts toward the bound like any other byte.
        let labelled;
        let message: &str = match &mut self.correlator {
            Some(c) if !marks.is_empty() => {
                labelled = c.label(&message, &marks);
                &labelled
            }
            _ => &message,
        };
        // The template was mined from the whole message; only the cut stays.
        let (kept, message_cut) = redacted_prefix_within(message, self.limits.max_message_bytes);
        let flagged = self.untrusted == UntrustedPolicy::Drop && self.flags.add(scan(kept));
        self.flagged_entries += u64::from(flagged);
        let severity = severity(&level);
        let event = || Event {
            timestamp,
            index,
            severity,
            level: level.clone(),
            service: service.clone().into_owned(),
            message: kept.to_owned(),
            message_cut,
            flagged,
        };
        let priority = (severity, timestamp, Reverse(index));
        let candidate = !flagged
            && self.heap_cap > 0
            && (self.heap.len() < self.heap_cap
                || self
                    .heap
                    .peek()
                    .is_some_and(|worst| priority > worst.0.priority()));
        if candidate {
            if self.heap.len() >= self.heap_cap {
                self.heap.pop();
            }
            self.heap.push(Candidate(event()));
        }
        match self.index.get(&(level.clone(), pattern)) {
            Some(&g) => {
                let group = &mut self.groups[g];
                group.count += 1;
                group.first_seen = group.first_seen.min(timestamp);
                group.last_seen = group.last_seen.max(timestamp);
                if !group.services.iter().any(|s| *s == *service) {
                    if group.services.len() < self.limits.max_services {
                        group.services.push(service.clone().into_owned());
                    } else {
                        group.services_dropped = true;
                    }
                }
                // A group's latest event is its latest clean one when it has one (under `drop`).
                let later = timestamp > group.latest.timestamp;
                if later && !flagged || group.latest.flagged && (later || !flagged) {
                    group.latest = event();
                }
            }
            None => {
                self.index
                    .insert((level.clone(), pattern), self.groups.len());
                let services = if self.limits.max_services > 0 {
                    vec![service.clone().into_owned()]
                } else {
                    Vec::new()
                };
                self.groups.push(Group {
                    level: level.clone(),
                    pattern,
                    count: 1,
                    first_index: index,
                    first_seen: timestamp,
                    last_seen: timestamp,
                    services,
                    services_dropped: false,
                    latest: event(),
                });
            }
        }
    }

    /// Finishes the projection.
    pub fn finish(
        self,
        summary: &LogsSummary,
        scope: LogsScope,
        tool_call_id: &str,
        total_bound: usize,
    ) -> LogsProjection {
        let limits = self.limits;
        let mut truncation: BTreeMap<Truncation, Dropped> = BTreeMap::new();
        let mut tally = |kind: Truncation, items: u64, bytes: u64| {
            if items > 0 || bytes > 0 {
                let entry = truncation.entry(kind).or_default();
                entry.items += items;
                entry.bytes += bytes;
            }
        };

        // Groups whose templates converged to the same text are one pattern.
        let mut merged: Vec<Group> = Vec::new();
        let mut by_text: HashMap<(Level, String), usize> = HashMap::new();
        let mut texts: Vec<String> = Vec::new();
        for group in self.groups {
            let text = self.miner.template(group.pattern).to_owned();
            match by_text.get(&(group.level.clone(), text.clone())) {
                Some(&m) => merge_into(&mut merged[m], group, limits.max_services),
                None => {
                    by_text.insert((group.level.clone(), text.clone()), merged.len());
                    merged.push(group);
                    texts.push(text);
                }
            }
        }
        let mut order: Vec<usize> = (0..merged.len()).collect();

        // Timeline, round one: the latest event of every pattern, most severe first, then count.
        order.sort_by_key(|&i| {
            (
                Reverse(severity(&merged[i].level)),
                Reverse(merged[i].count),
                merged[i].first_index,
            )
        });
        let mut chosen: Vec<Event> = Vec::new();
        for &i in &order {
            if chosen.len() == limits.max_events {
                break;
            }
            if !merged[i].latest.flagged {
                chosen.push(merged[i].latest.clone());
            }
        }
        // Round two: the remaining slots by severity, then recency.
        let mut rest: Vec<Event> = self.heap.into_iter().map(|c| c.0).collect();
        rest.sort_by_key(|e| Reverse(e.priority()));
        for event in rest {
            if chosen.len() == limits.max_events {
                break;
            }
            if !chosen.iter().any(|c| c.index == event.index) {
                chosen.push(event);
            }
        }
        // Entries `drop` left out are not truncation: a bound did not remove them.
        let usable = self.seen - self.prep.skipped - self.flagged_entries;
        tally(
            Truncation::Timeline,
            usable.saturating_sub(chosen.len() as u64),
            0,
        );

        // Patterns by count, then first occurrence; under `drop` a flagged pattern makes room
        // for the next one, and only those past the bound are truncation.
        let mut flags = self.flags;
        let mut dropped_patterns = 0u64;
        order.sort_by_key(|&i| (Reverse(merged[i].count), merged[i].first_index));
        let mut patterns = Vec::new();
        let mut examined = 0;
        for &i in &order {
            if patterns.len() == limits.max_patterns {
                break;
            }
            examined += 1;
            let g = &merged[i];
            let (text, cut) = redacted_prefix_within(&texts[i], limits.max_pattern_bytes);
            if self.untrusted == UntrustedPolicy::Drop && flags.add(scan(text)) {
                dropped_patterns += 1;
                continue;
            }
            tally(Truncation::Pattern, 0, cut as u64);
            if g.services_dropped {
                tally(Truncation::Services, 1, 0);
            }
            patterns.push(LogPattern {
                pattern: text.to_owned(),
                level: g.level.to_string(),
                count: g.count,
                services: g.services.clone(),
                first_seen: format_stamp(g.first_seen, self.tz),
                last_seen: format_stamp(g.last_seen, self.tz),
            });
        }

        tally(Truncation::Patterns, (order.len() - examined) as u64, 0);
        tally(Truncation::Field, 0, self.prep.field_cut);
        let seen = self.seen;
        let match_count = summary.total.unwrap_or(0).max(seen);
        tally(Truncation::Entries, match_count - seen, 0);

        let mut result = LogsToolResult {
            evidence_status: EvidenceStatus::NoEvidence,
            tool_call_id: tool_call_id.to_owned(),
            source_kind: SourceKind::Mock,
            scope,
            match_count,
            returned_count: 0,
            patterns,
            timeline: Vec::new(),
            truncated: false,
        };
        let dropped = fit_total(&mut result, &mut chosen, self.tz, total_bound);
        tally(Truncation::Total, dropped, 0);
        let message_cut: usize = chosen.iter().map(|e| e.message_cut).sum();
        tally(Truncation::Message, 0, message_cut as u64);
        result.truncated = !truncation.is_empty();
        let (mut flagged_patterns, mut flagged_events) = (Vec::new(), Vec::new());
        if self.untrusted != UntrustedPolicy::Drop {
            for (i, p) in result.patterns.iter().enumerate() {
                if flags.add(scan(&p.pattern)) {
                    flagged_patterns.push(i as u64);
                }
            }
            for (i, e) in result.timeline.iter().enumerate() {
                if flags.add(scan(&e.message)) {
                    flagged_events.push(i as u64);
                }
            }
        }
        let policy = self.untrusted;
        let untrusted = flags.any.then(|| UntrustedReport {
            policy,
            by_rule: flags
                .by_rule
                .iter()
                .map(|(k, v)| ((*k).to_owned(), *v))
                .collect(),
            patterns: flagged_patterns,
            timeline: flagged_events,
            dropped: (policy == UntrustedPolicy::Drop).then_some(UntrustedDropped {
                patterns: dropped_patterns,
                timeline: self.flagged_entries,
                ..UntrustedDropped::default()
            }),
            ..UntrustedReport::default()
        });
        LogsProjection {
            result,
            truncation,
            redactions: self.prep.counts,
            skipped_entries: self.prep.skipped,
            correlation: self.correlator,
            untrusted,
        }
    }
}

fn merge_into(into: &mut Group, from: Group, max_services: usize) {
    into.count += from.count;
    into.first_index = into.first_index.min(from.first_index);
    into.first_seen = into.first_seen.min(from.first_seen);
    into.last_seen = into.last_seen.max(from.last_seen);
    into.services_dropped |= from.services_dropped;
    for s in from.services {
        if !into.services.contains(&s) {
            if into.services.len() < max_services {
                into.services.push(s);
            } else {
                into.services_dropped = true;
            }
        }
    }
    let newer = (from.latest.timestamp, Reverse(from.latest.index))
        > (into.latest.timestamp, Reverse(into.latest.index));
    // A clean latest event wins over a flagged one (flags are set only under `drop`).
    let take = match (into.latest.flagged, from.latest.flagged) {
        (true, false) => true,
        (false, true) => false,
        _ => newer,
    };
    if take {
        into.latest = from.latest;
    }
}

/// Lays out the chosen events chronologically and drops the lowest-priority event or the
/// least frequent pattern, whichever collection is longer, until the result fits. Returns how
/// many items were dropped.
fn fit_total(
    result: &mut LogsToolResult,
    chosen: &mut Vec<Event>,
    tz: &TimeZone,
    bound: usize,
) -> u64 {
    let mut dropped = 0;
    loop {
        let mut events: Vec<&Event> = chosen.iter().collect();
        events.sort_by_key(|e| (e.timestamp, e.index));
        result.timeline = events
            .into_iter()
            .map(|e| TimelineEvent {
                timestamp: format_stamp(e.timestamp, tz),
                level: e.level.to_string(),
                service: e.service.clone(),
                message: e.message.clone(),
            })
            .collect();
        result.returned_count = result.timeline.len() as u64;
        let has = !result.timeline.is_empty() || !result.patterns.is_empty();
        result.evidence_status = EvidenceStatus::from_presence(has);
        // Measure with `truncated: false`, the longer spelling, so the final value only shrinks.
        result.truncated = false;
        if json_len(result) <= bound {
            return dropped;
        }
        if !chosen.is_empty() && chosen.len() >= result.patterns.len() {
            chosen.pop();
        } else if result.patterns.pop().is_none() {
            return dropped;
        }
        dropped += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::redact;

    fn entry(ts: &str, level: &str, service: &str, message: &str) -> LogEntry {
        LogEntry {
            timestamp: RawStamp::Text(ts.into()),
            level: Some(level.into()),
            service: Some(service.into()),
            message: Some(message.into()),
        }
    }

    fn project(entries: Vec<LogEntry>, limits: LogsLimits, total: Option<u64>) -> LogsProjection {
        project_with(entries, limits, total, false)
    }

    /// The projection of `entries` as one call makes it, with correlation labels or without.
    fn project_with(
        entries: Vec<LogEntry>,
        limits: LogsLimits,
        total: Option<u64>,
        correlated: bool,
    ) -> LogsProjection {
        let tz = TimeZone::fixed(jiff::tz::offset(8));
        let mut p = LogsProjector::new(&limits, &tz).correlated(correlated);
        let n = entries.len() as u64;
        for e in entries {
            p.push(e);
        }
        let summary = LogsSummary {
            success: Some(true),
            total,
            has_logs: true,
            entries: n,
        };
        p.finish(
            &summary,
            LogsScope::for_tests(),
            "call",
            limits.max_total_bytes,
        )
    }

    #[test]
    fn timestamps_in_every_accepted_form() {
        let tz = TimeZone::fixed(jiff::tz::offset(8));
        let want: Timestamp = "2026-11-29T01:58:01Z".parse().unwrap();
        for raw in [
            RawStamp::Text("2026-11-29 09:58:01".into()),
            RawStamp::Text("2026-11-29T09:58:01+08:00".into()),
            RawStamp::Text("2026-11-29T01:58:01Z".into()),
            RawStamp::Millis(want.as_millisecond()),
            RawStamp::Text(want.as_millisecond().to_string()),
        ] {
            assert_eq!(parse_stamp(&raw, &tz), Some(want), "{raw:?}");
        }
        assert_eq!(parse_stamp(&RawStamp::Text("yesterday".into()), &tz), None);
        assert_eq!(format_stamp(want, &tz), "2026-11-29T09:58:01+08:00");
    }

    #[test]
    fn groups_by_level_and_template_ordered_by_count_then_first_seen() {
        let p = project(
            vec![
                entry(
                    "2026-11-29 09:00:00",
                    "WARN",
                    "a",
                    "slow request took 120 ms",
                ),
                entry("2026-11-29 09:00:01", "ERROR", "a", "connection refused"),
                entry(
                    "2026-11-29 09:00:02",
                    "WARN",
                    "b",
                    "slow request took 300 ms",
                ),
                entry("2026-11-29 09:00:03", "ERROR", "a", "connection refused"),
                entry("2026-11-29 09:00:04", "INFO", "a", "connection refused"),
            ],
            LogsLimits::default(),
            None,
        );
        let r = &p.result;
        let got: Vec<_> = r
            .patterns
            .iter()
            .map(|p| (p.level.as_str(), p.count))
            .collect();
        assert_eq!(got, [("WARN", 2), ("ERROR", 2), ("INFO", 1)]);
        assert_eq!(r.patterns[0].services, ["a", "b"]);
        assert_eq!(r.patterns[0].first_seen, "2026-11-29T09:00:00+08:00");
        assert_eq!(r.patterns[0].last_seen, "2026-11-29T09:00:02+08:00");
        assert_eq!(r.timeline.len(), 5);
        assert!(!r.truncated);
    }

    #[test]
    fn timeline_takes_one_event_per_pattern_then_severity_then_recency() {
        let mut entries = Vec::new();
        for i in 0..10 {
            entries.push(entry(
                &format!("2026-11-29 09:00:{i:02}"),
                "INFO",
                "a",
                &format!("heartbeat ok seq {i}"),
            ));
        }
        entries.push(entry("2026-11-29 08:59:00", "DEBUG", "a", "cache warmed"));
        entries.push(entry(
            "2026-11-29 08:59:30",
            "ERROR",
            "a",
            "disk full on volume data",
        ));
        let limits = LogsLimits {
            max_events: 4,
            ..LogsLimits::default()
        };
        let p = project(entries, limits, None);
        let msgs: Vec<_> = p
            .result
            .timeline
            .iter()
            .map(|e| e.message.as_str())
            .collect();
        // One per pattern (ERROR, INFO latest, DEBUG), then the most recent remaining INFO;
        // presented chronologically.
        assert_eq!(
            msgs,
            [
                "cache warmed",
                "disk full on volume data",
                "heartbeat ok seq 8",
                "heartbeat ok seq 9"
            ]
        );
        assert!(p.result.truncated);
        assert_eq!(
            p.truncation[&Truncation::Timeline],
            Dropped { items: 8, bytes: 0 }
        );
    }

    #[test]
    fn total_larger_than_entries_is_truncation() {
        let p = project(
            vec![entry("2026-11-29 09:00:00", "INFO", "a", "x")],
            LogsLimits::default(),
            Some(50),
        );
        assert_eq!(p.result.match_count, 50);
        assert!(p.result.truncated);
        assert_eq!(p.truncation[&Truncation::Entries].items, 49);
    }

    /// Fuzz find (`fixtures/fuzz/legacy_logs/`): a level or service longer than
    /// `max_field_bytes` was cut without a tally, so `truncated` said `false` while the bound had
    /// removed bytes.
    #[test]
    fn long_level_or_service_cut_by_max_field_bytes_is_truncation() {
        let long = "x".repeat(70);
        for (level, service) in [(long.as_str(), "a"), ("INFO", long.as_str())] {
            let p = project(
                vec![entry("2026-11-29 09:00:00", level, service, "8")],
                LogsLimits::default(),
                None,
            );
            assert!(p.result.truncated, "level {level:?} service {service:?}");
            assert_eq!(
                p.truncation[&Truncation::Field],
                Dropped { items: 0, bytes: 6 }
            );
            let event = &p.result.timeline[0];
            assert_eq!(event.level.len().max(event.service.len()), 64);
        }
    }

    #[test]
    fn a_repeated_service_is_redacted_and_tallied_on_every_entry() {
        let pod = "pod-payment-7d8f9c6b5-x2k4m";
        let long_pod = format!("{pod} {}", "y".repeat(70));
        let services = [
            pod,
            "gateway",
            pod,
            long_pod.as_str(),
            pod,
            long_pod.as_str(),
        ];
        let entries = services
            .iter()
            .map(|s| entry("2026-11-29 09:00:00", "INFO", s, "ok"))
            .collect();
        let p = project(entries, LogsLimits::default(), None);
        // Each service on its own, redacted and cut afresh: what every repeat must add up to.
        let mut counts = RedactionCounts::default();
        let mut cut = 0;
        for s in services {
            let redacted = redact(s, &mut counts);
            cut += redacted_prefix_within(&redacted, LogsLimits::default().max_field_bytes).1;
        }
        assert_eq!(counts.get(crate::redact::RedactionClass::Pod), 5);
        assert_eq!(p.redactions, counts);
        assert_eq!(p.truncation[&Truncation::Field].bytes, cut as u64);
        assert!(cut > 0, "the long name is cut each time it comes");
        assert!(
            p.result
                .timeline
                .iter()
                .all(|e| !e.service.contains("x2k4m"))
        );
    }

    #[test]
    fn unusable_entries_are_skipped_not_truncated() {
        let mut bad = entry("not a time", "INFO", "a", "x");
        bad.message = Some("x".into());
        let p = project(
            vec![bad, entry("2026-11-29 09:00:00", "INFO", "a", "   ")],
            LogsLimits::default(),
            None,
        );
        assert_eq!(p.skipped_entries, 2);
        assert_eq!(p.result.match_count, 2);
        assert_eq!(p.result.evidence_status, EvidenceStatus::NoEvidence);
        assert!(!p.result.truncated);
    }

    fn project_correlated(entries: Vec<LogEntry>, limits: LogsLimits) -> LogsProjection {
        project_with(entries, limits, None, true)
    }

    fn timeouts() -> Vec<LogEntry> {
        let upstreams = ["10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.1"];
        upstreams
            .iter()
            .enumerate()
            .map(|(i, ip)| {
                entry(
                    &format!("2026-11-29 09:00:0{i}"),
                    "ERROR",
                    "gateway",
                    &format!("upstream {ip}:8080 timed out after 3000 ms"),
                )
            })
            .collect()
    }

    #[test]
    fn correlation_labels_the_timeline_by_first_appearance_and_keeps_patterns_plain() {
        let p = project_correlated(timeouts(), LogsLimits::default());
        let r = &p.result;
        assert_eq!(r.patterns.len(), 1);
        assert_eq!(
            r.patterns[0].pattern,
            "upstream <IP>:<*> timed out after <*>"
        );
        assert_eq!(r.patterns[0].count, 4);
        let labels: Vec<_> = r
            .timeline
            .iter()
            .map(|e| e.message.split_whitespace().nth(1).unwrap_or_default())
            .collect();
        assert_eq!(
            labels,
            ["<IP#1>:8080", "<IP#2>:8080", "<IP#1>:8080", "<IP#1>:8080"]
        );
        let c = p.correlation.expect("correlation was asked for");
        assert_eq!(
            c.distinct().collect::<Vec<_>>(),
            [(crate::redact::RedactionClass::Ip, 2)]
        );
        // Without it, today's plain placeholders and no correlation counts.
        let plain = project(timeouts(), LogsLimits::default(), None);
        assert!(plain.correlation.is_none());
        assert!(
            plain
                .result
                .timeline
                .iter()
                .all(|e| e.message.contains(" <IP>:"))
        );
        assert_eq!(plain.result.patterns, r.patterns);
    }

    #[test]
    fn labels_count_toward_the_message_bound_and_are_never_cut_in_half() {
        let limits = LogsLimits {
            max_message_bytes: 13,
            ..LogsLimits::default()
        };
        let p = project_correlated(timeouts(), limits);
        for e in &p.result.timeline {
            // `upstream <IP#1>` is 15 bytes: the label does not fit, so it goes whole.
            assert_eq!(e.message, "upstream ");
        }
        assert!(p.result.truncated);
    }

    #[test]
    fn labels_number_values_of_entries_the_timeline_does_not_show() {
        let limits = LogsLimits {
            max_events: 1,
            ..LogsLimits::default()
        };
        let mut entries = timeouts();
        entries.push(entry(
            "2026-11-29 09:00:09",
            "FATAL",
            "gateway",
            "upstream 10.0.0.2:8080 refused",
        ));
        let p = project_correlated(entries, limits);
        assert_eq!(p.result.timeline.len(), 1);
        assert_eq!(p.result.timeline[0].message, "upstream <IP#2>:8080 refused");
    }

    #[test]
    fn levels_normalize() {
        let mut c = RedactionCounts::default();
        assert_eq!(normalize_level(Some("warning"), &mut c), "WARN");
        assert_eq!(normalize_level(Some(" Err "), &mut c), "ERROR");
        assert_eq!(normalize_level(None, &mut c), "UNKNOWN");
        assert_eq!(normalize_level(Some("audit"), &mut c), "AUDIT");
    }
}
