//! Log template mining: fold already-redacted log messages into a handful of templates.
//!
//! Why: an agent reading a thousand log lines needs the few *kinds* of line, not the lines.
//! A message is cut on ASCII whitespace, and every token part that carries a value is masked
//! to `<*>` at once by hand-written byte classes (no regex per token): parts with a digit
//! (counts, ids, times, hex), runs of eight or more hex letters, `key=value` values with a
//! digit, dotted or coloned addresses, month and weekday names, and a size or time unit right
//! after a number. Masked parts joined only by punctuation fold into one (`10.0.0.1:8080` is
//! `<*>`). Words, and the redactor's placeholders (`<IP>`, `<SECRET>`, …), are kept. A flag
//! or null next to its key (`overlap:false`, `ws=null`) is masked like a number; a lone
//! `true`/`false`/`null` stays visible but counts as data when its slot varies.
//!
//! Variable-length parameters. One value often takes a varying number of words (`403 bytes`
//! and `1190 bytes (1.16 KB)`, `lifetime 00:01` and `lifetime <1 sec`, a list of block ids),
//! and since clustering compares messages position by position, each length would be its own
//! pattern. So while masking, the masked message is folded at its end after every token: two
//! tokens in a row that are nothing but masks and punctuation (`<*>`, `(<*>`, `<*>)`) become
//! one `<*>`, and a unit of one to three tokens holding a mask that repeats right after
//! itself (`blk_<*> blk_<*>`, `node-<*> <*> <ok> node-<*> <*> <ok>`) is kept once. Only
//! values fold: a word, and a redaction placeholder, never do, so two events that differ in a
//! constant word still differ in a constant position. This is the lexical half of what Brain
//! and LogBatcher do (a parameter is a span, not a token); the half it leaves out is a word
//! parameter of varying length (a quoted phrase of words), which still splits by length.
//! Binding a bracketed or quoted group into one token was tried and dropped: groups often
//! hold constants (`"GET /v2/… HTTP/1.1"`, `{ act=… (has extras) }`) that then vanish.
//!
//! Clustering is online and two-level. A *family* gathers messages with the same token count
//! and the same leading word that agree on at least 60% of their positions (the leading word
//! usually names the event; a leading value does not key). Inside a family a position stays a
//! constant until it has shown enough distinct values: five words, three values when one of
//! them looks like data, or two data-like values (with a digit, a mask or a placeholder,
//! dotted names, bare punctuation). So `alice`, `bob`, `carol`, … in one slot become `<*>`,
//! while a slot that only ever flips between `acquired` and `released` keeps the two apart.
//! A *cluster* (one [`PatternId`]) is a family member with its own words at the family's
//! still-constant positions: its id never changes and its template only ever generalizes.
//! Clusters whose templates become equal print the same text and are meant to be grouped by
//! that text.
//!
//! When read, templates whose differences between their common constant words are all runs
//! of values, at least one of them of another length (a list *and* a path, a duration *and* a
//! SQL statement), are merged first: see `align`. It runs on the miner's own templates, where
//! a quoted or bracketed group is still whole. Then templates that differ only inside one span
//! of varying words (a name, a path with spaces) are merged: see `spans`; and `align` once more
//! over what `spans` made. Last, a template that a more general one of the same leading word
//! matches (its `<*>` read as one token, a run of plain words, or a run that punctuation binds
//! into one value: a quoted phrase, a list, a path with spaces; the rare line of a sparse
//! event) is read as that one, and three symbols leading one rest are a value: see `absorb`.
//! Each cluster counts its messages, so that `spans` can read a slot whose fillers were each
//! seen about once as a parameter. A qualified type's label at a parameter position prints `<*>:`,
//! keeping the colon that says a message follows.
//!
//! Trade-offs. One built-in configuration for every input, chosen on the public Loghub-2k
//! benchmark (average grouping accuracy about 0.97 over its 16 systems, 0.98 on its corrected
//! truth), with no per-source rule. Messages of different token counts, after the folding
//! above, never share a cluster, so a parameter of several plain words still splits its event
//! by length (softened by printing a run of `<*>` as one, up to a value that closes a bracket:
//! `(attempt <*> of <*>): <*>` keeps its `):`); a
//! slot that shows only two to four distinct words is read as meaningful unless the same
//! words fill a slot of another template too (see `spans`), which sometimes splits what a
//! human would call one event. Memory is bounded: at most [`MAX_CLUSTERS`]
//! clusters of at most [`MAX_TOKENS`] tokens, at most 128 families per (token count, leading
//! word) and 256 clusters per family, and an exact-match cache that is emptied when full.
//! When a bound is reached a message joins its most similar cluster, or the one catch-all
//! cluster `<*>`. Speed comes from the cache of masked lines (lines that differ only in masked
//! values hit it) and from comparing a miss only with the families of its own key.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::cache::ClearingMap;

mod absorb;
mod align;
mod spans;

/// Stable identifier of one cluster of a [`TemplateMiner`]; ids are dense, from 0, in order
/// of creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PatternId(pub u32);

/// The most clusters a miner holds, the catch-all included.
pub const MAX_CLUSTERS: usize = 4096;
/// The most tokens in one template; a longer message keeps its first tokens and ends in `<*>`.
pub const MAX_TOKENS: usize = 64;
/// The mask of a variable token part.
pub const WILDCARD: &str = "<*>";

/// A token longer than this many bytes is data (a blob, a long id) and is masked whole.
const MAX_TOKEN_BYTES: usize = 96;
/// Families per (token count, leading word); past it a message joins the most similar one.
const MAX_FAMILIES_PER_KEY: usize = 128;
/// Clusters per family; past it a message joins the family's nearest cluster.
const MAX_MEMBERS: usize = 256;
/// The exact-match cache is emptied when it would exceed either bound.
const CACHE_MAX_ENTRIES: usize = 1 << 16;
const CACHE_MAX_BYTES: usize = 8 << 20;
/// A message joins a family when at least this share (in tenths) of its positions match.
const SIMILARITY_TENTHS: usize = 6;
/// Distinct values that make a position a parameter: plain words…
const WORDS_TO_VARY: usize = 5;
/// …any values when at least one looks like data…
const VALUES_TO_VARY: usize = 3;
/// …or data-like values alone.
const DATA_TO_VARY: usize = 2;

/// What a family knows about one token position.
#[derive(Clone, Debug)]
enum Slot {
    /// Every message so far had the family's first token here.
    Const,
    /// A few distinct tokens so far: still meaningful words, one cluster per combination.
    Few(Vec<Value>),
    /// Enough distinct values: a parameter, printed `<*>`.
    Var,
}

/// A distinct token seen at a position, by hash.
#[derive(Clone, Copy, Debug)]
struct Value {
    hash: u64,
    data: bool,
}

/// Messages of one token count and leading word that agree on most positions.
#[derive(Debug)]
struct Family {
    /// Hash of (token count, leading word when it is a plain word).
    bucket: u64,
    slots: Vec<Slot>,
    /// Hashes of the first member's tokens, the reference for `Const` slots.
    reference: Vec<u64>,
    /// Clusters in creation order; the first one's tokens are the family's reference.
    members: Vec<u32>,
}

/// One cluster: a family member, told apart by its tokens at the family's non-`Var` slots.
#[derive(Debug)]
struct Cluster {
    /// Index into `families`, or `NO_FAMILY` for the catch-all.
    family: u32,
    tokens: Vec<Box<str>>,
    /// The tokens' hashes: most comparisons end on a differing hash without a `memcmp`.
    hashes: Vec<u64>,
    template: String,
    /// Which tokens of the template are a qualified type's label, masked (`<*>:`), as bits.
    labels: u64,
    /// Messages that joined it: `spans` reads a slot whose templates hold a line or so each as
    /// a parameter.
    lines: u32,
}

const NO_FAMILY: u32 = u32::MAX;

/// Online, bounded, deterministic log template miner. See the module docs.
///
/// ```
/// use aciproj::patterns::TemplateMiner;
/// let mut miner = TemplateMiner::new();
/// let a = miner.insert("Connection from <IP> closed after 35 ms");
/// let b = miner.insert("Connection from <IP> closed after 120 ms");
/// assert_eq!(a, b);
/// assert_eq!(miner.template(a), "Connection from <IP> closed after <*>");
/// ```
pub struct TemplateMiner {
    clusters: Vec<Cluster>,
    families: Vec<Family>,
    /// Families by hash of (token count, key); lookups only, never iterated.
    by_key: HashMap<u64, Vec<u32>, FxBuild>,
    /// Masked message → cluster; lookups only, never iterated.
    cache: ClearingMap<u32, FxBuild>,
    catch_all: Option<u32>,
    /// Whole messages → cluster, for [`TemplateMiner::insert_repeated`]: each entry's masked
    /// form is in `cache` with the same cluster, so a hit is exactly what `insert` would return.
    lines: ClearingMap<u32, FxBuild>,
    /// `cache.clears()` when `lines` was last emptied to match it.
    lines_epoch: u64,
    /// Scratch: the masked message, tokens joined by one space, and each token's span.
    buf: String,
    spans: Vec<(u32, u32)>,
    /// The clusters' templates after [`align::merge`] and [`spans::merge`], drawn when first
    /// asked for and dropped whenever a message takes the slow path (only then can a template
    /// change).
    merged: OnceCell<spans::Merged>,
}

impl Default for TemplateMiner {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for TemplateMiner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TemplateMiner")
            .field("clusters", &self.clusters.len())
            .field("families", &self.families.len())
            .finish()
    }
}

/// One message on the slow path: its masked tokens and their hashes.
struct Line<'a> {
    tokens: Vec<&'a str>,
    hashes: Vec<u64>,
    key: &'a str,
}

impl TemplateMiner {
    /// The one built-in configuration for all inputs.
    pub fn new() -> Self {
        TemplateMiner {
            clusters: Vec::new(),
            families: Vec::new(),
            by_key: HashMap::default(),
            cache: ClearingMap::new(CACHE_MAX_ENTRIES, CACHE_MAX_BYTES),
            catch_all: None,
            lines: ClearingMap::new(CACHE_MAX_ENTRIES, CACHE_MAX_BYTES),
            lines_epoch: 0,
            buf: String::new(),
            spans: Vec::new(),
            merged: OnceCell::new(),
        }
    }

    /// Folds one (already redacted) message into a cluster; returns its id. Ids are stable: a
    /// cluster never changes id, even when its template generalizes later.
    pub fn insert(&mut self, message: &str) -> PatternId {
        let mut buf = std::mem::take(&mut self.buf);
        let mut spans = std::mem::take(&mut self.spans);
        buf.clear();
        spans.clear();
        tokenize(message, &mut buf, &mut spans);
        let id = match self.cache.get(buf.as_str()) {
            Some(&id) => id,
            None => {
                let tokens: Vec<&str> = spans
                    .iter()
                    .map(|&(a, b)| buf.get(a as usize..b as usize).unwrap_or(""))
                    .collect();
                let hashes = tokens.iter().map(|t| hash_str(t)).collect();
                let key = tokens
                    .first()
                    .copied()
                    .filter(|t| is_plain_word(t))
                    .unwrap_or("");
                let id = self.place(&Line {
                    tokens,
                    hashes,
                    key,
                });
                self.remember(&buf, id);
                id
            }
        };
        self.buf = buf;
        self.spans = spans;
        self.count(PatternId(id));
        PatternId(id)
    }

    /// [`TemplateMiner::insert`] for messages that repeat whole (`aciproj patterns` on a log
    /// file): a message seen before is looked up as it is, without being tokenized and masked
    /// again. Returns what `insert` returns and leaves the miner as `insert` would: a message is
    /// remembered only while its masked form is in the exact-match cache (that is when `insert`
    /// finds it there and changes nothing), and forgotten when that cache empties itself.
    pub fn insert_repeated(&mut self, message: &str) -> PatternId {
        self.insert_settled(message).0
    }

    /// [`TemplateMiner::insert_repeated`], and whether its answer is settled: while
    /// [`TemplateMiner::epoch`] stays as it is now, `insert` returns the same id for this
    /// message again and changes nothing, so a caller may remember the answer until then.
    pub(crate) fn insert_settled(&mut self, message: &str) -> (PatternId, bool) {
        if self.lines_epoch != self.cache.clears() {
            self.lines.clear();
            self.lines_epoch = self.cache.clears();
        }
        if let Some(&id) = self.lines.get(message) {
            self.count(PatternId(id));
            return (PatternId(id), true);
        }
        let id = self.insert(message);
        if self.lines_epoch != self.cache.clears() {
            self.lines.clear();
            self.lines_epoch = self.cache.clears();
        }
        let settled = self.cache.get(self.buf.as_str()) == Some(&id.0);
        if settled && message.len() <= CACHE_MAX_BYTES / 64 {
            self.lines.insert(message.into(), id.0, message.len());
        }
        (id, settled)
    }

    /// Counts one more message for a cluster, for a caller that remembered a settled answer
    /// ([`TemplateMiner::insert_settled`]) instead of inserting the message again.
    pub(crate) fn count(&mut self, id: PatternId) {
        if let Some(c) = self.clusters.get_mut(id.0 as usize) {
            c.lines = c.lines.saturating_add(1);
            // Counts shape the merged templates (see `spans`).
            self.merged.take();
        }
    }

    /// How many times the exact-match cache emptied itself: an answer
    /// [`TemplateMiner::insert_settled`] called settled holds while this is unchanged.
    pub(crate) fn epoch(&self) -> u64 {
        self.cache.clears()
    }

    /// The cluster's current template text (variable tokens masked as `<*>`, redaction
    /// placeholders kept). An id this miner never returned gives `<*>`.
    pub fn template(&self, id: PatternId) -> &str {
        let merged = self.merged.get_or_init(|| {
            let texts: Vec<Box<str>> = self
                .clusters
                .iter()
                .map(|c| c.template.as_str().into())
                .collect();
            let labels: Vec<u64> = self.clusters.iter().map(|c| c.labels).collect();
            let aligned = align::merge(&texts, &labels);
            let refs: Vec<&str> = aligned.texts.iter().map(|t| &**t).collect();
            let mut lines = vec![0u64; refs.len()];
            for (c, &t) in self.clusters.iter().zip(&aligned.of) {
                lines[t as usize] += u64::from(c.lines);
            }
            let spans = spans::merge(&refs, &lines);
            let again = align::merge(&spans.texts, &[]);
            let mut again_lines = vec![0u64; again.texts.len()];
            for (c, &t) in self.clusters.iter().zip(&aligned.of) {
                again_lines[again.of[spans.of[t as usize] as usize] as usize] += u64::from(c.lines);
            }
            let absorbed = absorb::merge(&again.texts, &again_lines);
            spans::Merged {
                of: aligned
                    .of
                    .iter()
                    .map(|&t| absorbed.of[again.of[spans.of[t as usize] as usize] as usize])
                    .collect(),
                texts: absorbed.texts,
            }
        });
        merged
            .of
            .get(id.0 as usize)
            .map_or(WILDCARD, |&t| &merged.texts[t as usize])
    }

    /// The number of clusters, at most [`MAX_CLUSTERS`].
    pub fn len(&self) -> usize {
        self.clusters.len()
    }

    /// Whether no message has been inserted yet.
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }

    fn remember(&mut self, key: &str, id: u32) {
        if key.len() > CACHE_MAX_BYTES / 64 {
            return;
        }
        self.cache.insert(key.into(), id, key.len());
    }

    fn full(&self) -> bool {
        // One slot always stays free for the catch-all.
        self.clusters.len() + 1 >= MAX_CLUSTERS
    }

    /// The slow path: choose (or make) the family, update it, choose (or make) the cluster.
    fn place(&mut self, line: &Line) -> u32 {
        self.merged.take();
        let bucket = bucket_hash(line.tokens.len(), line.key);
        let mut best: Option<(usize, u32)> = None;
        let mut crowded = false;
        if let Some(list) = self.by_key.get(&bucket) {
            crowded = list.len() >= MAX_FAMILIES_PER_KEY;
            for &f in list {
                let family = &self.families[f as usize];
                if family.bucket != bucket || family.slots.len() != line.tokens.len() {
                    continue; // never, short of a hash collision
                }
                let agree = self.agreement(family, line);
                if best.is_none_or(|(a, _)| agree > a) {
                    best = Some((agree, f));
                }
            }
        }
        let n = line.tokens.len();
        let full = self.full();
        let chosen = match best {
            Some((agree, f)) if full || crowded || agree * 10 >= n * SIMILARITY_TENTHS => f,
            _ if full => return self.catch_all(),
            _ => return self.new_family(line, bucket),
        };
        if self.absorb(chosen, line) {
            self.refresh(chosen);
        }
        let family = &self.families[chosen as usize];
        let mut nearest: Option<(usize, u32)> = None;
        for &m in &family.members {
            let same = matching(family, &self.clusters[m as usize], line);
            if same == n {
                return m;
            }
            if nearest.is_none_or(|(s, _)| same > s) {
                nearest = Some((same, m));
            }
        }
        match nearest {
            Some((_, m)) if full || family.members.len() >= MAX_MEMBERS => m,
            None if full => self.catch_all(),
            _ => self.new_cluster(chosen, line),
        }
    }

    /// How many positions of the message match the family's constants or known words.
    fn agreement(&self, family: &Family, line: &Line) -> usize {
        let mut agree = 0;
        for (i, slot) in family.slots.iter().enumerate() {
            // Hashes only: a collision could at worst nudge a similarity score.
            agree += usize::from(match slot {
                Slot::Var => false,
                Slot::Const => family.reference.get(i) == line.hashes.get(i),
                Slot::Few(values) => values.iter().any(|v| v.hash == line.hashes[i]),
            });
        }
        agree
    }

    /// Records the message's tokens in the family; returns whether a position became a
    /// parameter (so the members' templates must be redrawn).
    fn absorb(&mut self, f: u32, line: &Line) -> bool {
        let family = &mut self.families[f as usize];
        let Some(reference) = family
            .members
            .first()
            .map(|&m| &self.clusters[m as usize].tokens)
        else {
            return false;
        };
        let mut changed = false;
        for (i, slot) in family.slots.iter_mut().enumerate() {
            let token = line.tokens[i];
            match slot {
                Slot::Var => continue,
                Slot::Const => {
                    let Some(r) = reference.get(i) else { continue };
                    if **r == *token {
                        continue;
                    }
                    *slot = Slot::Few(vec![
                        Value {
                            hash: hash_str(r),
                            data: is_data(r),
                        },
                        Value {
                            hash: line.hashes[i],
                            data: is_data(token),
                        },
                    ]);
                }
                Slot::Few(values) => {
                    if values.iter().any(|v| v.hash == line.hashes[i]) {
                        continue;
                    }
                    values.push(Value {
                        hash: line.hashes[i],
                        data: is_data(token),
                    });
                }
            }
            if let Slot::Few(values) = slot {
                let data = values.iter().filter(|v| v.data).count();
                if values.len() >= WORDS_TO_VARY
                    || (data > 0 && values.len() >= VALUES_TO_VARY)
                    || data >= DATA_TO_VARY
                {
                    *slot = Slot::Var;
                    changed = true;
                }
            }
        }
        changed
    }

    fn catch_all(&mut self) -> u32 {
        if let Some(id) = self.catch_all {
            return id;
        }
        let id = self.clusters.len() as u32;
        self.clusters.push(Cluster {
            family: NO_FAMILY,
            tokens: Vec::new(),
            hashes: Vec::new(),
            template: WILDCARD.to_string(),
            labels: 0,
            lines: 0,
        });
        self.catch_all = Some(id);
        id
    }

    fn new_family(&mut self, line: &Line, bucket: u64) -> u32 {
        let f = self.families.len() as u32;
        self.families.push(Family {
            bucket,
            slots: vec![Slot::Const; line.tokens.len()],
            reference: line.hashes.clone(),
            members: Vec::new(),
        });
        self.by_key.entry(bucket).or_default().push(f);
        self.new_cluster(f, line)
    }

    fn new_cluster(&mut self, f: u32, line: &Line) -> u32 {
        let id = self.clusters.len() as u32;
        let family = &mut self.families[f as usize];
        family.members.push(id);
        let tokens: Vec<Box<str>> = line.tokens.iter().map(|&t| Box::from(t)).collect();
        let (template, labels) = render(&family.slots, &tokens);
        self.clusters.push(Cluster {
            family: f,
            tokens,
            hashes: line.hashes.clone(),
            template,
            labels,
            lines: 0,
        });
        id
    }

    /// Redraws the templates of a family's members after a position became a parameter.
    fn refresh(&mut self, f: u32) {
        let family = &self.families[f as usize];
        for &m in &family.members {
            let cluster = &mut self.clusters[m as usize];
            debug_assert_eq!(cluster.family, f);
            (cluster.template, cluster.labels) = render(&family.slots, &cluster.tokens);
        }
    }
}

/// How many positions of a member's tokens match the message where the family tells apart.
fn matching(family: &Family, member: &Cluster, line: &Line) -> usize {
    let mut same = 0;
    for (i, slot) in family.slots.iter().enumerate() {
        let equal = || {
            member.hashes.get(i) == line.hashes.get(i)
                && member.tokens.get(i).map(|t| &**t) == line.tokens.get(i).copied()
        };
        same += usize::from(matches!(slot, Slot::Var) || equal());
    }
    same
}

/// The template text of a cluster: its tokens with parameter positions masked (keeping a
/// group's or a list's punctuation, see [`bound_mask`]), a run of value-only tokens printed as
/// one with the run's outer punctuation (`"<*> <*> <*>"` is `"<*>"`); and which of the printed
/// tokens are a qualified type's label (`java.io.IOException:`) at a parameter position,
/// printed `<*>:` to keep its colon: what follows it is the type's message (see `align`).
fn render(slots: &[Slot], tokens: &[Box<str>]) -> (String, u64) {
    let mut out = String::new();
    let mut labels = 0u64;
    let mut printed = 0;
    let mut last_wild = false;
    let mut last = 0; // where the last printed token starts
    for (i, (slot, token)) in slots.iter().zip(tokens).enumerate() {
        let label = matches!(slot, Slot::Var) && align::is_qualified_label(token);
        let bound;
        let t: &str = if label {
            "<*>:"
        } else if matches!(slot, Slot::Var) {
            bound = keyed_mask(token).or_else(|| bound_mask(token));
            bound.as_deref().unwrap_or(WILDCARD)
        } else {
            token
        };
        let wild = !label && is_value_only(t);
        if wild && last_wild && !closes_group(&out[last..]) {
            // One value over several tokens: its opening punctuation, a mask, its closing one.
            let head = out[last..].find(WILDCARD).map_or(out.len(), |k| last + k);
            let tail = t.rfind(WILDCARD).map_or("", |k| &t[k + WILDCARD.len()..]);
            out.truncate(head);
            out.push_str(WILDCARD);
            out.push_str(tail);
            continue;
        }
        if i > 0 {
            out.push(' ');
        }
        last = out.len();
        out.push_str(t);
        if label && printed < 64 {
            labels |= 1 << printed;
        }
        printed += 1;
        last_wild = wild;
    }
    (out, labels)
}

/// A parameter token `key=` that opens a bracket keeps its key and the bracket (`scopes=[read`
/// is `scopes=[<*>`): the key names the field, the bracket opens a group `align` reads as one
/// value, and a bare `<*>` would fold into the value before it. A quote after a key keeps
/// masking whole: quotes in `key="…"` lists are often unbalanced.
fn keyed_mask(token: &str) -> Option<String> {
    let (key, value) = token.split_once('=')?;
    let word = !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && key.bytes().any(|b| b.is_ascii_alphabetic());
    if !word || !value.starts_with(['[', '(', '{']) {
        return None;
    }
    let masked = bound_mask(value).unwrap_or_else(|| WILDCARD.to_string());
    Some(format!("{key}={masked}"))
}

/// Whether a printed value token ends by closing a bracket (`<*>)`, `<*>]:`): the group its
/// constants opened ends there (`(attempt <*> of <*>): <*>`), so a value after it is another
/// value, not more of this one.
fn closes_group(token: &str) -> bool {
    let tail = token
        .rfind(WILDCARD)
        .map_or("", |k| &token[k + WILDCARD.len()..]);
    tail.contains([')', ']', '}'])
}

/// A parameter token keeps the punctuation that opens or closes a quoted or bracketed group,
/// or ends a list item, around its mask (`"<*>`, `<*>)`, `<*>,`): the group and the list stay
/// visible to `align` as one value when the words inside them vary.
fn bound_mask(token: &str) -> Option<String> {
    let opens = |c: char| matches!(c, '"' | '\'' | '(' | '[' | '{');
    let closes = |c: char| matches!(c, '"' | '\'' | ')' | ']' | '}' | ',');
    let head = token.len() - token.trim_start_matches(opens).len();
    let core = &token[head..];
    let tail = core.len() - core.trim_end_matches(closes).len();
    if (head == 0 && tail == 0) || head + tail >= token.len() {
        return None;
    }
    Some(format!(
        "{}{WILDCARD}{}",
        &token[..head],
        &core[core.len() - tail..]
    ))
}

/// Letters only, maybe ending in a colon: the shape of a verb or a subject.
fn is_plain_word(token: &str) -> bool {
    let t = token.strip_suffix(':').unwrap_or(token);
    !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphabetic() || b >= 0x80)
}

/// Whether a token looks like data rather than a word: a mask, a redaction placeholder or a
/// digit, no letters at all (`()`, `-`), or a dotted name (`ns.example.com`, `a.b.App`).
fn is_data(token: &str) -> bool {
    token.contains(WILDCARD)
        || has_placeholder(token)
        || token.bytes().any(|b| b.is_ascii_digit())
        || !token.bytes().any(is_word_byte)
        || token.bytes().filter(|&b| b == b'.').count() >= 2
        || is_bare_literal(token)
}

/// A program's name for a value rather than a word of prose: `ALL_CAPS` or `SNAKE_CASE` (an
/// enum constant, a signal, a state), or `snake_case` (a key, a setting). `spans` reads two of
/// them in one slot as values.
pub(super) fn is_symbol(token: &str) -> bool {
    let t = token.trim_end_matches([',', ';', ':', '.']);
    let b = t.as_bytes();
    let inner_underscore = b.len() >= 3 && b[1..b.len() - 1].contains(&b'_');
    let caps = b.len() >= 2 && b.iter().all(|&c| c.is_ascii_uppercase() || c == b'_');
    (caps || inner_underscore) && b.iter().all(|&c| c.is_ascii_alphabetic() || c == b'_')
}

/// A redactor's placeholder such as `<IP>` or `<SECRET>`: `<`, capitals, `>`.
fn has_placeholder(token: &str) -> bool {
    let bytes = token.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'<' && {
            let caps = bytes[i + 1..]
                .iter()
                .take_while(|c| c.is_ascii_uppercase())
                .count();
            caps > 0 && bytes.get(i + 1 + caps) == Some(&b'>')
        }
    })
}

/// Splits a message on ASCII whitespace and masks each token into `buf` (tokens joined by one
/// space), recording each token's byte span.
fn tokenize(message: &str, buf: &mut String, spans: &mut Vec<(u32, u32)>) {
    let bytes = message.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= bytes.len() {
            break;
        }
        let start = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        if !spans.is_empty() {
            buf.push(' ');
        }
        let begin = buf.len() as u32;
        if spans.len() + 1 >= MAX_TOKENS {
            // The rest of a very long message is one parameter.
            buf.push_str(WILDCARD);
            spans.push((begin, buf.len() as u32));
            return;
        }
        // Cuts are at ASCII bytes, so the slice is always on char boundaries.
        let raw = message.get(start..i).unwrap_or("");
        // A unit only matters after a masked number: most tokens skip the trim.
        let unit = buf
            .ends_with("<*> ")
            .then(|| raw.trim_end_matches(|c: char| c.is_ascii() && is_closer(c as u8)))
            .filter(|unit| is_unit(unit));
        if let Some(unit) = unit {
            buf.push_str(WILDCARD);
            buf.push_str(raw.get(unit.len()..).unwrap_or(""));
        } else {
            mask_token(raw, buf);
        }
        spans.push((begin, buf.len() as u32));
        fold_tail(buf, spans);
    }
}

/// The most tokens in one repeated unit of a list (`blk_<*> blk_<*>`, `node-<*> <*> <ok> …`).
const MAX_LIST_UNIT: usize = 3;

/// Folds the end of the masked message so that a parameter spans one token whatever its
/// length: two value tokens in a row become one `<*>` (`1190 bytes (1.16 KB)` and `403 bytes`
/// are both `<*>`), and a unit of up to [`MAX_LIST_UNIT`] tokens with a mask in it that repeats
/// right after itself is kept once (`delete blk_<*> blk_<*> blk_<*>` is `delete blk_<*>`).
/// Words are never folded: an event told apart by a constant stays apart.
fn fold_tail(buf: &mut String, spans: &mut Vec<(u32, u32)>) {
    while fold_once(buf, spans) {}
}

/// One step of [`fold_tail`]; returns whether it folded anything.
fn fold_once(buf: &mut String, spans: &mut Vec<(u32, u32)>) -> bool {
    let n = spans.len();
    let token = |i: usize| {
        let (a, b) = spans[i];
        buf.get(a as usize..b as usize).unwrap_or("")
    };
    if n >= 2 && is_value_only(token(n - 1)) && is_value_only(token(n - 2)) {
        let start = spans[n - 2].0 as usize;
        buf.truncate(start);
        buf.push_str(WILDCARD);
        spans.truncate(n - 2);
        spans.push((start as u32, buf.len() as u32));
        return true;
    }
    for unit in 1..=MAX_LIST_UNIT.min(n / 2) {
        let repeats = (0..unit).all(|k| token(n - unit + k) == token(n - 2 * unit + k));
        if repeats && (n - unit..n).any(|i| token(i).contains(WILDCARD)) {
            // Drop the repeat and the space before it.
            buf.truncate(spans[n - unit].0 as usize - 1);
            spans.truncate(n - unit);
            return true;
        }
    }
    false
}

/// A token that is nothing but masked values and punctuation (`<*>`, `(<*>`, `<*>),`): the
/// pieces of one multi-word value. A redactor's placeholder is not one: it is kept visible.
fn is_value_only(token: &str) -> bool {
    let mut rest = token;
    let mut masked = false;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(WILDCARD) {
            masked = true;
            rest = after;
            continue;
        }
        let b = rest.as_bytes()[0];
        if is_word_byte(b) {
            return false;
        }
        rest = &rest[1..];
    }
    masked
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b >= 0x80
}

/// Punctuation that closes a value rather than belonging to it.
fn is_closer(b: u8) -> bool {
    matches!(
        b,
        b',' | b';' | b')' | b']' | b'}' | b'"' | b'\'' | b'>' | b'.' | b':'
    )
}

/// Letters ending in one digit read as a name (`ssh2`, `SOCKS5`, `eth0`) and stay visible;
/// they still count as data when a slot varies.
fn is_named_word(seg: &[u8]) -> bool {
    seg.len() >= 3
        && seg[seg.len() - 1].is_ascii_digit()
        && seg[..seg.len() - 1].iter().all(u8::is_ascii_alphabetic)
}

/// Eight or more hex letters in a row make a value even without a digit (`ffffffff`).
fn is_long_hex(seg: &[u8]) -> bool {
    seg.len() >= 8 && seg.iter().all(u8::is_ascii_hexdigit)
}

/// Units of size and time: after a number they belong to its value (`12 KB`, `3 ms`).
fn is_unit(t: &str) -> bool {
    const UNITS: [&str; 29] = [
        "B", "bytes", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "ms", "us", "µs", "ns",
        "s", "sec", "secs", "seconds", "m", "min", "mins", "minutes", "h", "hr", "hrs", "hours",
        "d", "day", "days",
    ];
    UNITS.contains(&t)
}

/// The literals of a flag or an empty reference are values: `overlap:true` and
/// `overlap:false` are one event, `ws=null` a value like `ws=<*>`.
fn is_literal_word(t: &[u8]) -> bool {
    const WORDS: [&[u8]; 3] = [b"true", b"false", b"null"];
    WORDS.iter().any(|w| w.eq_ignore_ascii_case(t))
}

/// A literal next to a key in one token (`overlap:false`, `ws=null`): masked at once, as a
/// number there would be. A literal alone (`is now True`) is only data-like, see [`is_data`]:
/// it stays visible until its slot shows another value.
fn has_keyed_literal(token: &[u8]) -> bool {
    // Most tokens without a digit are one plain word: no split for them.
    if token.iter().all(|&b| is_word_byte(b)) {
        return false;
    }
    let words = || token.split(|&b| !is_word_byte(b)).filter(|s| !s.is_empty());
    words().nth(1).is_some() && words().any(is_literal_word)
}

/// A token whose one word is a literal (`true`, `False,`).
fn is_bare_literal(token: &str) -> bool {
    let mut words = token
        .as_bytes()
        .split(|&b| !is_word_byte(b))
        .filter(|s| !s.is_empty());
    matches!((words.next(), words.next()), (Some(w), None) if is_literal_word(w))
}

/// Month and weekday abbreviations are parts of a timestamp, so values.
fn is_date_word(t: &[u8]) -> bool {
    const WORDS: [&[u8]; 19] = [
        b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov",
        b"Dec", b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun",
    ];
    WORDS.contains(&t)
}

/// Appends the token masked: see the module docs for what counts as a value.
fn mask_token(token: &str, out: &mut String) {
    let bytes = token.as_bytes();
    if bytes.len() > MAX_TOKEN_BYTES {
        out.push_str(WILDCARD);
        return;
    }
    if mask_redacted_assignment(token, out) {
        return;
    }
    if !bytes.iter().any(u8::is_ascii_digit)
        && !bytes.split(|&b| !is_word_byte(b)).any(is_long_hex)
        && !has_keyed_literal(bytes)
    {
        out.push_str(if is_date_word(bytes) { WILDCARD } else { token });
        return;
    }
    if mask_assignment(token, out) || mask_address(token, out) {
        return;
    }
    mask_parts(token, out);
}

/// `key=<IP>`, `key=<HOST>`, …: an address or identity the redactor replaced is a value like any
/// other, so `rhost=<IP>` and `rhost=<HOST>` fold as `rhost=<*>` (as the raw `rhost=10.0.0.1`
/// would), instead of the key being lost with the whole token. `password=<SECRET>` and the other
/// "something sensitive was here" placeholders are kept: they say what the line carried.
fn mask_redacted_assignment(token: &str, out: &mut String) -> bool {
    const IDENTITIES: [&str; 5] = ["<IP>", "<HOST>", "<EMAIL>", "<POD>", "<PID>"];
    // A byte loop: tokens are short, and `str::find` costs more to set up than to run here.
    let Some(eq) = token.bytes().position(|b| b == b'=') else {
        return false;
    };
    let value = &token[eq + 1..];
    if eq == 0 || !IDENTITIES.iter().any(|p| value.starts_with(p)) || value.contains('=') {
        return false;
    }
    out.push_str(&token[..=eq]);
    out.push_str(WILDCARD);
    true
}

/// `key=value` with a digit in the value masks the whole value: `rhost=<*>`, `uid=<*>`.
fn mask_assignment(token: &str, out: &mut String) -> bool {
    let bytes = token.as_bytes();
    let Some(eq) = bytes.iter().position(|&b| b == b'=') else {
        return false;
    };
    let value = &bytes[eq + 1..];
    if eq == 0
        || bytes[..eq].iter().any(u8::is_ascii_digit)
        || value.contains(&b'=')
        || !value.iter().any(u8::is_ascii_digit)
    {
        return false;
    }
    let mut end = bytes.len();
    while end > eq + 1 && is_closer(bytes[end - 1]) {
        end -= 1;
    }
    out.push_str(token.get(..=eq).unwrap_or(""));
    out.push_str(WILDCARD);
    out.push_str(token.get(end..).unwrap_or(""));
    true
}

/// Addresses and ids as one value: dotted names with a digit (`10.0.0.1:80`,
/// `node-7.example.com`, `1.2.3`) and all-hex dashed or coloned ids (UUIDs, MACs, IPv6).
fn mask_address(token: &str, out: &mut String) -> bool {
    let bytes = token.as_bytes();
    let mut start = 0;
    while start < bytes.len()
        && matches!(
            bytes[start],
            b'[' | b'(' | b'{' | b'"' | b'\'' | b'<' | b'/' | b'@'
        )
    {
        start += 1;
    }
    let mut end = bytes.len();
    while end > start && is_closer(bytes[end - 1]) {
        end -= 1;
    }
    let core = &bytes[start..end];
    if core.is_empty()
        || !core
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
    {
        return false;
    }
    let dots = core.iter().filter(|&&b| b == b'.').count();
    let all_hex = core
        .iter()
        .all(|&b| b.is_ascii_hexdigit() || matches!(b, b'-' | b':' | b'.'));
    let separated = core.iter().any(|&b| matches!(b, b'-' | b':' | b'.'));
    if dots < 2 && !(all_hex && separated) {
        return false;
    }
    out.push_str(token.get(..start).unwrap_or(""));
    out.push_str(WILDCARD);
    out.push_str(token.get(end..).unwrap_or(""));
    true
}

/// Masks each word part that carries a value; adjacent masked parts joined only by
/// punctuation become one `<*>`, and a sign joins its number (`blk_-12` is `blk_<*>`).
fn mask_parts(token: &str, out: &mut String) {
    #[derive(PartialEq)]
    enum Last {
        Nothing,
        Word,
        Mask,
    }
    let bytes = token.as_bytes();
    let mut last = Last::Nothing;
    let mut pending = 0; // start of the punctuation run not yet written
    let mut i = 0;
    while i < bytes.len() {
        if !is_word_byte(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && is_word_byte(bytes[i]) {
            i += 1;
        }
        let seg = &bytes[start..i];
        let masked = (seg.iter().any(u8::is_ascii_digit) && !is_named_word(seg))
            || is_long_hex(seg)
            || is_literal_word(seg);
        let punct = token.get(pending..start).unwrap_or("");
        if masked {
            if last != Last::Mask {
                let punct = match punct.strip_suffix('-') {
                    Some(rest) if !rest.is_empty() || last == Last::Nothing => rest,
                    _ => punct,
                };
                out.push_str(punct);
                out.push_str(WILDCARD);
            }
            last = Last::Mask;
        } else {
            out.push_str(punct);
            out.push_str(token.get(start..i).unwrap_or(""));
            last = Last::Word;
        }
        pending = i;
    }
    out.push_str(token.get(pending..).unwrap_or(""));
}

/// A small seedless multiplicative hasher: deterministic and fast on short keys. Every map
/// keyed with it is only looked up, never iterated, so it never shapes any output.
#[derive(Default)]
pub(crate) struct FxHasher {
    hash: u64,
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        // The length tells `ab` from `ab\0`.
        self.add(u64::from_le_bytes(w) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        // Spread the high bits down: the table takes its control bits from the top.
        let h = self.hash;
        (h ^ (h >> 29)).wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }
}

fn hash_str(s: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(s.as_bytes());
    h.finish()
}

fn bucket_hash(len: usize, key: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write_usize(len);
    h.write(key.as_bytes());
    h.finish()
}

/// The template each of `lines` joins, mined in order: how the submodules' tests read a miner.
#[cfg(test)]
fn templates_of<S: AsRef<str>>(lines: &[S]) -> Vec<String> {
    let mut miner = TemplateMiner::new();
    let ids: Vec<_> = lines.iter().map(|l| miner.insert(l.as_ref())).collect();
    ids.iter()
        .map(|&id| miner.template(id).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacted_values_of_one_key_fold_whatever_their_class() {
        // After redaction an IP and a host name are different words; before, both were values.
        let mut m = TemplateMiner::new();
        let a = m.insert("auth failure; ruser= rhost=<IP>");
        let b = m.insert("auth failure; ruser= rhost=<HOST>");
        assert_eq!(a, b);
        assert_eq!(m.template(a), "auth failure; ruser= rhost=<*>");
        // A bare placeholder token is still kept as it is.
        let c = m.insert("connect to <IP> refused");
        assert_eq!(m.template(c), "connect to <IP> refused");
    }

    fn fold(lines: &[&str]) -> (TemplateMiner, Vec<PatternId>) {
        let mut miner = TemplateMiner::new();
        let ids = lines.iter().map(|l| miner.insert(l)).collect();
        (miner, ids)
    }

    #[test]
    fn value_only_differences_fold() {
        let (miner, ids) = fold(&[
            "Connection from 10.0.0.1:5432 closed after 35 ms",
            "Connection from 192.168.7.20:80 closed after 1200 ms",
            "Connection from <IP> closed after 7 ms",
            "Connection from fe80::1:2 closed after 0.5 ms",
        ]);
        assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
        assert_eq!(
            miner.template(ids[0]),
            "Connection from <*> closed after <*>"
        );

        let (miner, ids) = fold(&[
            "Deleting block blk_-6952295868487656571 file /data/current/subdir12/blk_-69522",
            "Deleting block blk_38865049064139660 file /data/current/subdir7/blk_3886504",
            "request 0x7f3a2b done in 12ms uuid=b9000564-fe1a-409b-b8cc-1e88b294cd1d",
        ]);
        assert_eq!(ids[0], ids[1]);
        // `subdir12/…` and `subdir7/…` differ in shape (`subdir7` reads as a name), but both
        // are data, so the slot is a parameter at once.
        assert_eq!(miner.template(ids[0]), "Deleting block blk_<*> file <*>");
        assert_eq!(miner.template(ids[2]), "request <*> done in <*> uuid=<*>");
    }

    #[test]
    fn word_values_fold_once_the_slot_varies_widely() {
        let users = ["alice", "bob", "carol", "dave", "erin", "frank", "grace"];
        let lines: Vec<String> = users
            .iter()
            .map(|u| format!("Invalid user {u} from <IP> port 22"))
            .collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (miner, ids) = fold(&refs);
        for id in &ids {
            assert_eq!(miner.template(*id), "Invalid user <*> from <IP> port <*>");
        }
    }

    #[test]
    fn meaningful_word_differences_split() {
        let (miner, ids) = fold(&[
            "Lock 17 acquired by worker 3",
            "Lock 18 released by worker 4",
            "Lock 19 acquired by worker 5",
            "Lock 20 released by worker 3",
            "Service payments started in 35 ms",
            "Service payments stopped in 12 ms",
            "Session opened for user root",
            "Session closed for user root",
        ]);
        assert_eq!(ids[0], ids[2]);
        assert_eq!(ids[1], ids[3]);
        assert_ne!(miner.template(ids[0]), miner.template(ids[1]));
        assert_eq!(miner.template(ids[0]), "Lock <*> acquired by worker <*>");
        assert_eq!(miner.template(ids[1]), "Lock <*> released by worker <*>");
        assert_ne!(miner.template(ids[4]), miner.template(ids[5]));
        assert_ne!(miner.template(ids[6]), miner.template(ids[7]));
    }

    #[test]
    fn a_parameter_of_any_length_is_one_value() {
        // A size with or without its rounded form, a lifetime as `00:01` or `<1 sec`.
        let (miner, ids) = fold(&[
            "conn close, 403 bytes sent, 12 bytes received, lifetime 00:01",
            "conn close, 1190 bytes (1.16 KB) sent, 0 bytes received, lifetime <1 sec",
            "conn close, 35850 bytes (35.0 KB) sent, 13903 bytes (13.5 KB) received, lifetime 04:12",
        ]);
        assert!(ids.iter().all(|&id| id == ids[0]), "{ids:?}");
        assert_eq!(
            miner.template(ids[0]),
            "conn close, <*> sent, <*> received, lifetime <*>"
        );
        // A list of ids, of one or of several repeated units.
        let (miner, ids) = fold(&[
            "ask <IP>:50010 to delete blk_-1 blk_22 blk_33",
            "ask <IP>:50010 to delete blk_7",
            "nodes node-1 0x1f <ok> node-2 0x3 <ok> done",
            "nodes node-9 0x2 <ok> done",
        ]);
        assert_eq!(ids[0], ids[1]);
        assert_eq!(miner.template(ids[0]), "ask <IP>:<*> to delete blk_<*>");
        assert_eq!(ids[2], ids[3]);
        assert_eq!(miner.template(ids[2]), "nodes node-<*> <*> <ok> done");
    }

    #[test]
    fn variable_length_folding_keeps_constants_apart() {
        // The same lengths of value, a different constant word: two events.
        let (miner, ids) = fold(&[
            "sent 12 bytes (1.2 KB) to peer",
            "received 12 bytes (1.2 KB) from peer",
            "sent 7 bytes to peer",
            "sent 7 bytes to peer now",
        ]);
        assert_eq!(ids[0], ids[2]);
        assert_ne!(miner.template(ids[0]), miner.template(ids[1]));
        assert_ne!(miner.template(ids[2]), miner.template(ids[3]));
        // A placeholder is never folded into the value next to it.
        let (miner, ids) = fold(&["connect to <IP> 8080 refused"]);
        assert_eq!(miner.template(ids[0]), "connect to <IP> <*> refused");
    }

    #[test]
    fn a_value_after_a_closed_group_stays_outside_it() {
        // Two-word reasons vary position by position; printed as one run they would swallow
        // the `):` that closes the group, and no longer read as the other lengths' template.
        let reasons = [
            "timed out",
            "broken pipe",
            "bad gateway",
            "disk full",
            "no route",
            "refused",
            "quota exceeded for tenant",
        ];
        let lines: Vec<String> = reasons
            .iter()
            .enumerate()
            .map(|(k, r)| format!("retry job {k} (try {k} of 9): {r}"))
            .collect();
        let t = templates_of(&lines);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "retry job <*> (try <*> of <*>): <*>");
        // A constant after the group still tells events apart.
        let t = templates_of(&[
            "retry job 1 (try 1 of 9): timed out",
            "retry job 2 (try 2 of 9): timed out",
            "retry job 3 (try 3 of 9): gave up",
        ]);
        assert_eq!(t[0], t[1]);
        assert_ne!(t[0], t[2]);
    }

    #[test]
    fn a_key_that_opens_a_bracket_keeps_its_key_when_masked() {
        assert_eq!(keyed_mask("scopes=[read").as_deref(), Some("scopes=[<*>"));
        assert_eq!(keyed_mask("opts=(a,").as_deref(), Some("opts=(<*>,"));
        // A plain value, a quote (often unbalanced in `key="…"` lists), no key: masked whole.
        assert_eq!(keyed_mask("user=root"), None);
        assert_eq!(keyed_mask("tag=\"Audio"), None);
        assert_eq!(keyed_mask("=[read"), None);
    }

    #[test]
    fn a_word_parameter_of_varying_length_merges() {
        let names = [
            "\"Mary\"",
            "\"Ann Lee\"",
            "\"Bob Kim Raj\"",
            "\"Wei\"",
            "\"Olga Nina\"",
            "\"Tom Paul Rosa\"",
        ];
        let mut lines = Vec::new();
        for (k, n) in names.iter().enumerate() {
            lines.push(format!("job {n} started on node {k}"));
            lines.push(format!("job {n} stopped on node {k}"));
            lines.push(format!("password changed for {n}"));
        }
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (miner, ids) = fold(&refs);
        let text = |i: usize| miner.template(ids[i]);
        for k in 0..names.len() {
            assert_eq!(
                text(3 * k),
                "job <*> started on node <*>",
                "{}",
                refs[3 * k]
            );
            assert_eq!(text(3 * k + 1), "job <*> stopped on node <*>");
            // Bound by its quotes, the name may end the message.
            assert_eq!(text(3 * k + 2), "password changed for <*>");
        }
    }

    #[test]
    fn words_after_a_variable_slot_that_vary_belong_to_it() {
        // The first names vary at every length, the family names only across lengths: a slot
        // already `<*>` next to words that vary is one parameter (a name of two or three words).
        let first = ["Ann", "Bob", "Eve", "Raj", "Wei", "Tom"];
        let last = ["Lee", "Kim", "Novak", "Silva"];
        let mut lines = Vec::new();
        for (k, f) in first.iter().enumerate() {
            lines.push(format!("user {f} logged out after {k} min"));
            for l in last {
                lines.push(format!("user {f} {l} logged out after {k} min"));
            }
        }
        lines.push("user Ann logged in after 3 min".to_string());
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (miner, ids) = fold(&refs);
        let n = ids.len();
        for &id in &ids[..n - 1] {
            assert_eq!(miner.template(id), "user <*> logged out after <*>");
        }
        assert_eq!(miner.template(ids[n - 1]), "user <*> logged in after <*>");
    }

    #[test]
    fn a_group_or_a_list_whose_words_vary_keeps_its_punctuation() {
        let mut lines = Vec::new();
        for (k, w) in ["apple", "river", "stone", "cloud", "amber", "delta"]
            .iter()
            .enumerate()
        {
            lines.push(format!("backup {k} failed: \"{w} lost {w}\""));
            lines.push(format!("loaded {k} plugins: {w}, {w}, gzip"));
        }
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let (miner, ids) = fold(&refs);
        assert_eq!(
            miner.template(ids[0]),
            "backup <*> failed: \"<*> lost <*>\""
        );
        assert_eq!(miner.template(ids[1]), "loaded <*> plugins: <*>, gzip");
    }

    #[test]
    fn a_constant_word_next_to_a_span_keeps_events_apart() {
        // Two events that differ in one word right after a variable-length value, and a short
        // header followed by different events: no merge.
        let (miner, ids) = fold(&[
            "task a b done now",
            "task c failed now",
            "task d e f done now",
            "task g failed now",
            "vm x: VM Started",
            "vm x: Instance spawned",
            "vm x: Terminating instance",
            "vm x: Creating image",
            "vm x: Deleting files",
        ]);
        assert_ne!(miner.template(ids[0]), miner.template(ids[1]));
        assert_ne!(miner.template(ids[2]), miner.template(ids[3]));
        for i in 5..9 {
            assert_ne!(miner.template(ids[4]), miner.template(ids[i]));
        }
    }

    #[test]
    fn flags_are_values_but_a_constant_flag_stays_visible() {
        let (miner, ids) = fold(&[
            "updateClipping isOverlap:false, padding=3",
            "updateClipping isOverlap:true, padding=4",
            "condition MemoryPressure is now True",
            "condition MemoryPressure is now True",
            "key down true canceled false",
            "key down false canceled false",
        ]);
        assert_eq!(ids[0], ids[1]);
        assert_eq!(
            miner.template(ids[0]),
            "updateClipping isOverlap:<*>, padding=<*>"
        );
        assert_eq!(
            miner.template(ids[2]),
            "condition MemoryPressure is now True"
        );
        assert_eq!(ids[4], ids[5]);
        assert_eq!(miner.template(ids[4]), "key down <*> canceled false");
    }

    #[test]
    fn redaction_placeholders_are_kept() {
        let (miner, ids) = fold(&[
            "login failed for <EMAIL> from <IP> password=<SECRET>",
            "login failed for <EMAIL> from <IP> password=<SECRET>",
        ]);
        assert_eq!(ids[0], ids[1]);
        assert_eq!(
            miner.template(ids[0]),
            "login failed for <EMAIL> from <IP> password=<SECRET>"
        );
    }

    #[test]
    fn ids_are_stable_while_templates_generalize() {
        let mut miner = TemplateMiner::new();
        let first = miner.insert("user alice logged in");
        assert_eq!(miner.template(first), "user alice logged in");
        for u in ["bob", "carol", "dave", "erin"] {
            miner.insert(&format!("user {u} logged in"));
        }
        assert_eq!(miner.template(first), "user <*> logged in");
        let zoe = miner.insert("user zoe logged in");
        assert_eq!(miner.template(first), miner.template(zoe));
        assert_eq!(first, PatternId(0));
    }

    fn corpus(n: usize) -> Vec<String> {
        // A deterministic mix of repeated events, value words and junk.
        let words = [
            "alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "zeta",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        (0..n)
            .map(|i| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let w = |k: u64| words[((seed >> k) % words.len() as u64) as usize];
                match i % 4 {
                    0 => format!("job {} finished in {} ms", i, seed % 1000),
                    1 => format!("{} {} {} state {}", w(3), w(9), w(15), w(21)),
                    2 => format!("x{:x} {} {}{}", seed, w(5), w(11), seed % 7),
                    _ => format!("{}{} {} {}", w(1), seed % 97, w(7), w(13)),
                }
            })
            .collect()
    }

    /// Looking repeated messages up whole gives the ids and templates `insert` gives, also
    /// across the exact-match cache emptying itself (more distinct lines than it holds).
    #[test]
    fn insert_repeated_is_insert() {
        let word = |mut n: usize| -> String {
            let mut w = String::new();
            for _ in 0..4 {
                w.push(char::from(b'a' + (n % 26) as u8));
                n /= 26;
            }
            w
        };
        let lines: Vec<String> = (0..2 * CACHE_MAX_ENTRIES + 9000)
            .map(|i| match i % 4 {
                0 => format!("job {} done in {} ms", i % 40, i % 7),
                1 => format!("user {} logged in", word(i % 300)),
                2 => format!("session {} opened", word(i)),
                _ => format!("{} {} state {}", word(i), word(i / 7), word(i % 11)),
            })
            .collect();
        let (mut a, mut b) = (TemplateMiner::new(), TemplateMiner::new());
        for line in &lines {
            let (x, y) = (a.insert(line), b.insert_repeated(line));
            assert_eq!(x, y, "{line}");
        }
        assert!(
            b.cache.clears() > 0,
            "the cache emptied itself at least once"
        );
        for id in 0..a.len() as u32 {
            assert_eq!(a.template(PatternId(id)), b.template(PatternId(id)));
        }
    }

    #[test]
    fn deterministic() {
        let lines = corpus(5000);
        let run = || {
            let mut miner = TemplateMiner::new();
            let ids: Vec<PatternId> = lines.iter().map(|l| miner.insert(l)).collect();
            let templates: Vec<String> = ids
                .iter()
                .map(|&id| miner.template(id).to_string())
                .collect();
            (ids, templates)
        };
        assert_eq!(run(), run());
    }

    #[test]
    fn cluster_cap_holds() {
        let mut miner = TemplateMiner::new();
        let mut seed = 7u64;
        for i in 0..40_000u32 {
            // Distinct words at every position, so nothing ever folds on its own.
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let word = |k: u32| -> String {
                (0..6)
                    .map(|j| char::from(b'a' + ((seed >> (k * 6 + j * 5)) % 26) as u8))
                    .collect()
            };
            let line = format!("{} {} {} {}", word(0), word(1), word(2), word(i % 3));
            let id = miner.insert(&line);
            assert!((id.0 as usize) < MAX_CLUSTERS);
            assert!(miner.len() <= MAX_CLUSTERS);
        }
        assert_eq!(miner.len(), MAX_CLUSTERS);
        // Everything still answers, and a message with no family left lands in the catch-all.
        let other = miner.insert("completely new shape of message here now");
        assert_eq!(miner.template(other), "<*>");
    }

    #[test]
    fn weird_input_never_panics() {
        let huge_word = "x".repeat(1 << 20);
        let huge_spaced = "a1 ".repeat(1 << 18);
        let inputs: Vec<String> = vec![
            String::new(),
            " \t\r\n ".into(),
            "数据库连接失败 错误码 1045 用户 张三".into(),
            "🚀🔥 deploy 💥 failed ✅ 42".into(),
            "\u{0}\u{1}\u{7f} ctrl \u{1b}[31m red \u{1b}[0m".into(),
            "<*> <*> <*>".into(),
            "=== --- ::: ... ///".into(),
            "a=1=2=3 =4 5= -- -1 +-2 0x 0xZZ".into(),
            "é1é2é3 ü-9 中1文".into(),
            huge_word,
            huge_spaced,
            "\u{3000}全角\u{3000}空白\u{a0}nbsp".into(),
        ];
        let mut miner = TemplateMiner::new();
        for s in &inputs {
            let id = miner.insert(s);
            let t = miner.template(id);
            assert!(t.len() <= MAX_TOKENS * (MAX_TOKEN_BYTES + 1), "{}", t.len());
            // Inserting again gives the same cluster.
            assert_eq!(miner.insert(s), id);
        }
        assert_eq!(miner.template(PatternId(u32::MAX)), WILDCARD);
    }
}
