//! Merging templates that differ only inside one span: parameters of varying word count.
//!
//! Why: the miner compares messages position by position, so a parameter of several plain
//! words (`"Mary Ann Lee"`, a path with spaces, a list `red, blue`, a free-text reason) gives
//! each of its lengths, and often each of its values, a template of its own. Masking cannot
//! fold it: its tokens are words, and so are the constants that tell events apart.
//!
//! What it does, over the finished templates (not the lines, so its cost follows the number of
//! templates): a *context* is a template with one span of one to [`MAX_SPAN`] tokens cut out,
//! `prefix [] suffix`. Templates that share a context differ only inside that span, and the
//! spans they show there are the span's *fillers*. A context is a parameter, and all its
//! templates become `prefix <*> suffix`, when its fillers vary as a parameter slot would in the
//! miner: their first tokens vary *and* their last tokens vary (five distinct words, three values
//! when one looks like data, two data-like values, or two named values: a program's names such
//! as `SIGTERM`, `CRASH_LOOP` or `max_conn`, which prose never writes, and a word quoted or
//! bracketed whole, `'Active'`, `(young)`), or, inside the message, one filler already
//! is a lone `<*>` and the first or the last tokens vary (a slot that varied at one length
//! absorbs the same slot at another: `<*>`, `<*> Novak`, `<*> Lee` are one name). Each
//! template takes its narrowest qualifying context, and merged templates are compared again
//! until nothing changes, so two variable-length parameters in one event merge in two rounds.
//! A cut keeps the words that every filler of its context holds: when only a span over two
//! parameters is shared (`user [ann posted comment "red fox"] on`, `user [bob posted comment
//! "a b c"] on`; `by [Ann Lee reason: broken pipe]`, `by [Bo Kim Li reason: no route]`), the
//! words between them stay (`user <*> posted comment <*> on`, `by <*> reason: <*>`).
//!
//! A *domain*. Counting alone cannot tell a parameter of three or four words (a state
//! `RUNNING`/`FAILED`/`PENDING`, a queue `low`/`high`/`bulk`) from the three or four constants
//! that name three or four events (`VM Started`, `VM Paused`, `VM Stopped`). What tells them
//! apart is where else the words appear: a context also qualifies when at least three of its
//! fillers fill another context too, one that differs elsewhere (`session opened for user
//! [cyrus|news|test]` and `session closed for user [cyrus|news|test]`, or one queue name set
//! under every task of one event). A set that recurs across messages that otherwise differ
//! is a parameter's domain; a word that names an event changes with the rest of the message,
//! so its set shows up in one context only. A pair never counts: `opened`/`closed` crossed
//! with three users recurs too, and stays two events; nor do two pairs crossed (`granted from`,
//! `denied from`, `granted from kiosk -`, `denied from kiosk -`): a domain's fillers must show
//! three words at their start or at their end. A template takes every qualifying span
//! that does not overlap a narrower one, so two domains crossed in one event (a queue and a
//! task) are both read in the round that still shows the two.
//!
//! *Sparse* fillers. A context of at least three fillers whose templates hold fewer than
//! [`SPARSE_LINES`] messages each on average, that differ at both ends and hold no quote or
//! bracket, is a parameter too: a rare event of two parameters shows each name once, while a
//! constant that names an event repeats with it (`job cleanup|sync|report`, dozens of lines each,
//! stays three; so do `pump primed|drained|flushed` at three lines each).
//!
//! A span that quotes or brackets enclose may hold up to [`MAX_BOUND`] tokens (a subject, a
//! message). A span may end the message only when quotes or brackets enclose it, or after a header of
//! three or more words: after a short header the rest is as often another event as a value.
//! There it is a value only as a domain (below) whose fillers differ at both ends: `Error:
//! [connection refused|broken pipe|…]` when the same reasons end another event too, but not
//! `Starting [TrustedInstaller initialization.|the TrustedInstaller main loop.|…]`.
//!
//! *A label's message.* A span that ends the message (or its clause, with a `;`) right after
//! a token ending in a colon,
//! behind a header of three or more words (`DNSSEC validation failed for <*>: […]`), is the
//! message the label introduces: it qualifies when its fillers differ at both ends in three or
//! more ways and come in more than one length (one word of a few values is the miner's slot to
//! count), unless a filler opens with a label of its own (`wl0: [MDNS: …|setup_keepalive: …]`
//! names sub-events). After two words it is not enough: Mac's `Wake reason: […]` and `network
//! changed: […]` are events of their own in Loghub's labels, as alike as `running command: […]`.
//!
//! Why constants stay apart: a span whose end is a constant shows that constant in every
//! filler, so its first or last tokens do not vary and the narrower context (with the constant
//! kept) is the one that qualifies. `Job <*> started` and `Job <*> stopped` differ in one word
//! of two values, which never varies enough. Trade-off: an event whose constant word takes five
//! or more values right next to a variable-length parameter is read as one pattern, as the
//! miner reads five words in one slot.

use std::collections::HashMap;
use std::hash::Hasher;

use super::{FxBuild, FxHasher, WILDCARD, hash_str, is_data, is_symbol, is_value_only};

/// The most tokens a span may hold (a path with spaces, a reason, a list).
pub(super) const MAX_SPAN: usize = 10;
/// The most tokens a span that quotes or brackets enclose may hold (a subject, a message).
const MAX_BOUND: usize = 32;
/// Merge rounds at most; each round only generalizes, so this is a bound on work, not a knob.
const MAX_ROUNDS: usize = 8;
/// Fillers two contexts must share for both to be a parameter's domain: three, so that a pair
/// of opposites (`opened`/`closed`) crossed with another slot never counts.
const DOMAIN_SHARED: usize = 3;
/// A context with more fillers than this is not compared by its fillers (the bound on work;
/// a slot with that many values mostly varies by count already).
const MAX_DOMAIN: usize = 12;
/// A context whose fillers hold fewer messages than this many per filler, on average, is a
/// parameter (with at least [`DOMAIN_SHARED`] fillers): most of its values were seen once.
const SPARSE_LINES: u64 = 2;
/// Contexts one filler is compared through, at most (the bound on work per filler).
const MAX_SHARING: usize = 64;

/// The templates' final texts: `texts[of[i]]` is what template `i` of the input reads as.
pub(super) struct Merged {
    pub(super) texts: Vec<Box<str>>,
    pub(super) of: Vec<u32>,
}

/// One template in a round: its tokens and their hashes.
struct Template {
    tokens: Vec<Box<str>>,
    hashes: Vec<u64>,
}

/// What the templates sharing one context show in its span: only as much as decides it.
#[derive(Default)]
struct Context {
    /// The first filler's hash, and whether a second, different one was seen.
    filler: Option<u64>,
    two_fillers: bool,
    /// Whether one filler is a lone `<*>`, inside the message: a slot already found variable.
    lone: bool,
    firsts: Distinct,
    lasts: Distinct,
    /// The distinct fillers by content (not position) after `filler`, up to [`MAX_DOMAIN`] in all.
    fillers: Vec<u64>,
    /// Whether it had more fillers than that: then they are not compared.
    crowded: bool,
    /// Whether at least [`DOMAIN_SHARED`] of its fillers also fill another context.
    domain: bool,
    /// Whether a filler ends the message after a short header, unbound: then only a domain
    /// makes it a value.
    open: bool,
    /// Whether its span ends the message or a clause (`…;`) right after a label's colon and
    /// three or more words (`failed for <*>: […]`): what follows the colon is the message the
    /// label introduces.
    labelled: bool,
    /// Whether a filler opens with a label of its own (`wl0: [MDNS: …]`): a sub-event's name,
    /// not a message.
    sublabel: bool,
    /// The fewest and the most tokens of a filler, once one is seen.
    lengths: Option<(u8, u8)>,
    /// The first filler, as (template, start, length).
    reference: (u32, u8, u8),
    /// The tokens, by hash, that every filler so far holds (filled from the second filler on):
    /// the constants a cut keeps (`frank posted comment "…"` and `bob posted comment "…"` keep
    /// `posted comment`; `Ann Lee reason: broken pipe` and `Bo Kim Li reason: no route` keep
    /// `reason:`).
    common: Vec<u64>,
    /// The messages its templates hold.
    lines: u64,
    /// Whether a filler holds a quote or a bracket: a piece of a group, whose words are counted
    /// by the group's own context, not by how often each was seen.
    grouped: bool,
}

impl Context {
    fn qualifies(&self) -> bool {
        let (firsts, lasts) = (self.firsts.varies(), self.lasts.varies());
        let counted = !self.open && ((firsts && lasts) || (self.lone && (firsts || lasts)));
        // After a short header, a domain's fillers must also differ at both ends: phrases that
        // share their first or last word (`TrustedInstaller initialization.`, `… finalization.`)
        // are constants around a common one.
        let ends = |d: &Distinct| usize::from(d.len) >= DOMAIN_SHARED;
        let domain = self.domain
            && (ends(&self.firsts) || ends(&self.lasts))
            && (!self.open || (ends(&self.firsts) && ends(&self.lasts)));
        // Fillers that each hold about one message: a value seen once each, not the constants of
        // events, which repeat (`job cleanup|sync|report` over dozens of lines stays three).
        let distinct = 1 + self.fillers.len() as u64;
        // A constant at either end of the span shows in every filler: its ends must differ too.
        let sparse = !self.open
            && !self.grouped
            && !self.crowded
            && ends(&self.firsts)
            && ends(&self.lasts)
            && distinct >= DOMAIN_SHARED as u64
            && self.lines < SPARSE_LINES * distinct;
        // A label's message: phrases that differ at both ends, as a domain's must.
        // Of more than one length: one word of a few values is the miner's slot to count.
        let lengths = self.lengths.is_some_and(|(short, long)| short < long);
        let labelled = self.labelled
            && !self.sublabel
            && !self.crowded
            && lengths
            && ends(&self.firsts)
            && ends(&self.lasts);
        self.two_fillers && (counted || domain || sparse || labelled)
    }

    /// Records a filler's content; returns whether the context just reached
    /// [`DOMAIN_SHARED`] distinct fillers (it becomes a candidate domain once, then).
    fn add_filler(&mut self, content: u64) -> bool {
        // The first filler is `filler`: most contexts have one only, and no list then.
        if self.crowded || self.filler == Some(content) || self.fillers.contains(&content) {
            return false;
        }
        if 1 + self.fillers.len() == MAX_DOMAIN {
            self.crowded = true;
            return false;
        }
        self.fillers.push(content);
        1 + self.fillers.len() == DOMAIN_SHARED
    }

    /// Its distinct fillers by content.
    fn all_fillers(&self) -> impl Iterator<Item = &u64> {
        self.filler.iter().chain(&self.fillers)
    }
}

/// Up to [`super::WORDS_TO_VARY`] distinct (hash, data-like, symbol) values, inline: past that many
/// the answer of [`Distinct::varies`] cannot change.
#[derive(Default)]
struct Distinct {
    /// Each value's hash with its lowest bit replaced by whether it is data-like and the next
    /// by whether it is a symbol: half the memory of a pair, and contexts are many.
    values: [u64; super::WORDS_TO_VARY],
    len: u8,
}

impl Distinct {
    fn push(&mut self, (hash, data, symbol): (u64, bool, bool)) {
        let value = (hash & !3) | u64::from(data) | u64::from(symbol) << 1;
        let len = usize::from(self.len);
        if len < self.values.len() && !self.values[..len].contains(&value) {
            self.values[len] = value;
            self.len += 1;
        }
    }

    /// The miner's rule for a slot that became a parameter.
    fn varies(&self) -> bool {
        let len = usize::from(self.len);
        let data = self.values[..len].iter().filter(|&&v| v & 1 == 1).count();
        let symbols = self.values[..len].iter().filter(|&&v| v & 2 == 2).count();
        len >= super::WORDS_TO_VARY
            || symbols >= super::DATA_TO_VARY
            || (data > 0 && len >= super::VALUES_TO_VARY)
            || data >= super::DATA_TO_VARY
    }
}

fn mix(a: u64, b: u64) -> u64 {
    let mut h = FxHasher::default();
    h.write_u64(a);
    h.write_u64(b);
    h.finish()
}

/// Splits a template into tokens, a run of lone `<*>` kept as one.
fn template(text: &str) -> Template {
    let mut tokens: Vec<Box<str>> = Vec::new();
    for t in text.split(' ').filter(|t| !t.is_empty()) {
        if t == WILDCARD && tokens.last().is_some_and(|l| &**l == WILDCARD) {
            continue;
        }
        tokens.push(t.into());
    }
    let hashes = tokens.iter().map(|t| hash_str(t)).collect();
    Template { tokens, hashes }
}

/// Prefix hashes `p[i]` of `tokens[..i]` and suffix hashes `s[j]` of `tokens[j..]`.
fn affixes(hashes: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let n = hashes.len();
    let mut p = vec![0x9e37_79b9_7f4a_7c15; n + 1];
    for i in 0..n {
        p[i + 1] = mix(p[i], hashes[i]);
    }
    let mut s = vec![0x6a09_e667_f3bc_c909; n + 1];
    for j in (0..n).rev() {
        s[j] = mix(s[j + 1], hashes[j]);
    }
    (p, s)
}

/// Calls `f(i, j, key, filler)` for every span `[i, j)` of a template whose context keeps a
/// word: `key` names the context, `filler` the span's tokens.
fn for_each_context(t: &Template, mut f: impl FnMut(usize, usize, u64, u64, Ends)) {
    let n = t.tokens.len();
    let (p, s) = affixes(&t.hashes);
    // words[i]: tokens before i that are not values alone.
    let mut words = vec![0usize; n + 1];
    for i in 0..n {
        words[i + 1] = words[i] + usize::from(!is_value_only(&t.tokens[i]));
    }
    // The leading token names the event, as it keys the miner's families: never in a span.
    for i in 1..n {
        // By content alone: the same words fill spans of other contexts at other positions.
        let mut filler = 0x243f_6a88_85a3_08d3;
        let opens = t.tokens[i].starts_with(['"', '\'', '(', '[', '{']);
        let longest = if opens { MAX_BOUND } else { MAX_SPAN };
        for j in i + 1..=n.min(i + longest) {
            filler = mix(filler, t.hashes[j - 1]);
            let long = j - i > MAX_SPAN;
            if words[i] == 0 || cuts_group(&t.tokens[i..j]) || (long && !is_bound(&t.tokens[i..j]))
            {
                continue;
            }
            // An unbound span that ends the message after a short header may be a value only
            // as a domain's: see the module docs.
            let open = words[n] == words[j] && words[i] < 3 && !is_bound(&t.tokens[i..j]);
            let clause = j == n || t.tokens[j - 1].ends_with(';');
            let labelled = clause && words[i] >= 3 && t.tokens[i - 1].ends_with(':');
            let key = mix(mix(p[i], s[j]), ((i as u64) << 32) | (n - j) as u64);
            f(i, j, key, filler, Ends { open, labelled });
        }
    }
}

/// How a span ends the message, for [`Context::open`] and [`Context::labelled`].
#[derive(Clone, Copy)]
struct Ends {
    open: bool,
    labelled: bool,
}

/// Merges the templates (by their texts) that differ only inside one varying span.
pub(super) fn merge(texts: &[&str], lines: &[u64]) -> Merged {
    let mut of: Vec<u32> = Vec::with_capacity(texts.len());
    let mut current: Vec<Template> = Vec::new();
    let mut by_text: HashMap<Box<str>, u32> = HashMap::new();
    let mut lines0: Vec<u64> = Vec::new();
    for (k, text) in texts.iter().enumerate() {
        let t = template(text);
        let joined: Box<str> = t.tokens.join(" ").into();
        let next = current.len() as u32;
        let id = *by_text.entry(joined).or_insert(next);
        if id == next {
            current.push(t);
            lines0.push(0);
        }
        lines0[id as usize] += lines.get(k).copied().unwrap_or(0);
        of.push(id);
    }
    // forward[i]: what template i became (itself while alive).
    let mut forward: Vec<u32> = (0..current.len() as u32).collect();
    let mut alive: Vec<u32> = forward.clone();
    for _ in 0..MAX_ROUNDS {
        // The messages each template holds now, its own and those of the templates it took.
        let mut weight = vec![0u64; current.len()];
        for (k, &l) in lines0.iter().enumerate() {
            let mut r = k as u32;
            while forward[r as usize] != r {
                r = forward[r as usize];
            }
            weight[r as usize] += l;
        }
        let mut contexts: HashMap<u64, Context, FxBuild> = HashMap::default();
        contexts.reserve(alive.len() * MAX_SPAN);
        let mut data: Vec<(bool, bool)> = Vec::new();
        // Contexts with at least `DOMAIN_SHARED` fillers, in the order they reached it.
        let mut candidates: Vec<u64> = Vec::new();
        for &t in &alive {
            let tpl = &current[t as usize];
            data.clear();
            data.extend(
                tpl.tokens
                    .iter()
                    .map(|t| (is_span_data(t), is_named_value(t))),
            );
            for_each_context(tpl, |i, j, key, filler, ends| {
                let c = contexts.entry(key).or_default();
                c.open |= ends.open;
                c.labelled |= ends.labelled;
                c.sublabel |= tpl.tokens[i].ends_with(':');
                let len = (j - i) as u8;
                let (short, long) = c.lengths.unwrap_or((len, len));
                c.lengths = Some((short.min(len), long.max(len)));
                c.lines += weight[t as usize];
                c.grouped |= tpl.tokens[i..j]
                    .iter()
                    .any(|x| x.contains(['"', '\'', '(', ')', '[', ']', '{', '}']));
                match c.filler {
                    None => {
                        c.filler = Some(filler);
                        c.reference = (t, i as u8, (j - i) as u8);
                    }
                    Some(f) if f != filler => {
                        let span = &tpl.hashes[i..j];
                        if !c.two_fillers {
                            let (r, ri, rn) = c.reference;
                            let (ri, rn) = (usize::from(ri), usize::from(rn));
                            let other = &current[r as usize];
                            for k in ri..ri + rn {
                                let h = other.hashes[k];
                                if span.contains(&h)
                                    && !c.common.contains(&h)
                                    && !is_value_only(&other.tokens[k])
                                {
                                    c.common.push(h);
                                }
                            }
                        } else {
                            c.common.retain(|h| span.contains(h));
                        }
                        c.two_fillers = true;
                    }
                    Some(_) => {}
                }
                c.lone |= j - i == 1 && j < tpl.tokens.len() && &*tpl.tokens[i] == WILDCARD;
                c.firsts.push((tpl.hashes[i], data[i].0, data[i].1));
                c.lasts
                    .push((tpl.hashes[j - 1], data[j - 1].0, data[j - 1].1));
                if c.add_filler(filler) {
                    candidates.push(key);
                }
            });
        }
        mark_domains(&mut contexts, &candidates);
        let mut changed = false;
        let mut next_alive: Vec<u32> = Vec::new();
        for &t in &alive {
            let tpl = &current[t as usize];
            // Every qualifying span that does not overlap a narrower one (or one as narrow
            // further left): two domains crossed in one event (`queue low|high` × `task a|b|c`)
            // are read in the round that still shows both.
            let mut found: Vec<(usize, usize, u64)> = Vec::new();
            for_each_context(tpl, |i, j, key, _, _| {
                if let Some(c) = contexts.get(&key).filter(|c| c.qualifies()) {
                    // Which tokens of this filler every filler holds.
                    let mut keep = 0u64;
                    for k in i..j {
                        keep |= u64::from(c.common.contains(&tpl.hashes[k])) << (k - i);
                    }
                    found.push((i, j, keep));
                }
            });
            if found.is_empty() {
                next_alive.push(t);
                continue;
            }
            found.sort_by_key(|&(i, j, _)| (j - i, i));
            let mut cut: Vec<(usize, usize, u64)> = vec![found[0]];
            for &(i, j, keep) in &found[1..] {
                if cut.iter().all(|&(a, b, _)| j <= a || b <= i) {
                    cut.push((i, j, keep));
                }
            }
            cut.sort_unstable();
            let mut parts: Vec<&str> = Vec::with_capacity(tpl.tokens.len());
            let mut k = 0;
            for &(i, j, keep) in &cut {
                parts.extend(tpl.tokens[k..i].iter().map(|t| &**t));
                for (o, token) in tpl.tokens[i..j].iter().enumerate() {
                    let shared = keep >> o & 1 == 1 && !is_value_only(token);
                    parts.push(if shared { token } else { WILDCARD });
                }
                k = j;
            }
            parts.extend(tpl.tokens[k..].iter().map(|t| &**t));
            let merged = template(&parts.join(" "));
            let joined: Box<str> = merged.tokens.join(" ").into();
            let fresh = current.len() as u32;
            let id = *by_text.entry(joined).or_insert(fresh);
            if id == fresh {
                current.push(merged);
                forward.push(fresh);
            }
            next_alive.push(id);
            if id != t {
                forward[t as usize] = id;
                changed = true;
            }
        }
        next_alive.retain(|&x| forward[x as usize] == x);
        next_alive.sort_unstable();
        next_alive.dedup();
        alive = next_alive;
        if !changed {
            break;
        }
    }
    let resolve = |mut i: u32| {
        while forward[i as usize] != i {
            i = forward[i as usize];
        }
        i
    };
    let mut texts_out: Vec<Box<str>> = Vec::new();
    let mut slot: HashMap<u32, u32> = HashMap::new();
    let of = of
        .iter()
        .map(|&i| {
            let r = resolve(i);
            *slot.entry(r).or_insert_with(|| {
                texts_out.push(current[r as usize].tokens.join(" ").into());
                texts_out.len() as u32 - 1
            })
        })
        .collect();
    Merged {
        texts: texts_out,
        of,
    }
}

/// Marks as a domain every candidate context that shares [`DOMAIN_SHARED`] fillers with
/// another: a set of words that fills one slot in two events (or in two shapes of one event)
/// is a parameter's domain, however few its values (`RUNNING`, `FAILED`, `PENDING`), while a
/// constant that names an event changes with the rest of the message, not across it.
fn mark_domains(contexts: &mut HashMap<u64, Context, FxBuild>, candidates: &[u64]) {
    if candidates.len() < 2 {
        return;
    }
    // filler → the candidates it fills, in candidate order.
    let mut by_filler: HashMap<u64, Vec<u32>, FxBuild> = HashMap::default();
    for (k, key) in candidates.iter().enumerate() {
        let Some(c) = contexts.get(key).filter(|c| !c.crowded) else {
            continue;
        };
        for &f in c.all_fillers() {
            let list = by_filler.entry(f).or_default();
            if list.len() < MAX_SHARING {
                list.push(k as u32);
            }
        }
    }
    let mut shared = vec![0u8; candidates.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut domains: Vec<u64> = Vec::new();
    for (k, key) in candidates.iter().enumerate() {
        let Some(c) = contexts.get(key).filter(|c| !c.crowded) else {
            continue;
        };
        let mut hit = false;
        for f in c.all_fillers() {
            for &o in by_filler.get(f).map_or(&[][..], Vec::as_slice) {
                if o as usize == k {
                    continue;
                }
                if shared[o as usize] == 0 {
                    touched.push(o);
                }
                shared[o as usize] += 1;
                hit |= usize::from(shared[o as usize]) >= DOMAIN_SHARED;
            }
        }
        for &o in &touched {
            shared[o as usize] = 0;
        }
        touched.clear();
        if hit {
            domains.push(*key);
        }
    }
    for key in domains {
        if let Some(c) = contexts.get_mut(&key) {
            c.domain = true;
        }
    }
}

/// A symbol (see [`is_symbol`]), or one word that quotes or brackets enclose whole (`'Active'`,
/// `(young),`): a name the program marks as a value.
fn is_named_value(token: &str) -> bool {
    is_symbol(token) || is_bound(std::slice::from_ref(&Box::from(token)))
}

/// A span that opens a quote or a bracket and ends before it closes: its context would hold
/// the group's end as a constant (`"kettle lemon"` and `"oak lemon"` are not `"<*> lemon"`).
fn cuts_group(span: &[Box<str>]) -> bool {
    let Some(first) = span.first() else {
        return false;
    };
    first.starts_with(['"', '\'', '(', '[', '{'])
        && !is_bound(span)
        && !is_bound(std::slice::from_ref(first))
}

/// A span that one pair of quotes or brackets encloses (`"Mary Ann"`, `(disk is full)`): bound
/// by its punctuation into one value, so it may end the message. An unbound span must be
/// followed by a constant: after a common header, the rest of a message is as often a
/// different event (`[instance: <*>] VM Started`, `… Terminating instance`) as a value.
fn is_bound(span: &[Box<str>]) -> bool {
    let (Some(first), Some(last)) = (span.first(), span.last()) else {
        return false;
    };
    let last = last.trim_end_matches(['.', ',', ';', ':']);
    let Some(open) = first.chars().next() else {
        return false;
    };
    let close = match open {
        '"' => '"',
        '\'' => '\'',
        '(' => ')',
        '[' => ']',
        '{' => '}',
        '<' => '>',
        _ => return false,
    };
    last.ends_with(close) && (span.len() > 1 || first.len() > 1)
}

/// Data-like as the miner reads it, or an absolute path without a digit (`/srv/reports/`),
/// except a keyed value (`flg=<*>`, `cmp=…`): its key is a word, so a span that starts or ends
/// with different keys holds different fields.
fn is_span_data(token: &str) -> bool {
    let keyed = token
        .find(['=', ':'])
        .is_some_and(|k| k > 0 && token[..k].bytes().all(|b| b.is_ascii_alphabetic()));
    !keyed && (is_data(token) || token.starts_with('/') && token.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::super::templates_of as templates;

    #[test]
    fn a_word_set_that_fills_one_slot_in_two_events_is_a_parameter() {
        // Three regions, each in an `ok` and a `failed` event: the regions are values; the
        // pair `ok`/`failed`, crossed with them, stays two events.
        let mut lines = Vec::new();
        for region in ["north", "south", "east"] {
            for verdict in ["ok", "failed"] {
                lines.push(format!("replica {region} lag check {verdict}"));
            }
        }
        let t = templates(&lines);
        for (k, line) in lines.iter().enumerate() {
            let want = if line.ends_with("ok") {
                "replica <*> lag check ok"
            } else {
                "replica <*> lag check failed"
            };
            assert_eq!(t[k], want, "{line}");
        }
    }

    #[test]
    fn two_pairs_crossed_are_no_domain() {
        // `granted`/`denied` crossed with a field present or absent gives four fillers that
        // recur under every gate, but they start with two words and end with two: two pairs,
        // not a parameter's set of values. The gates, three words at both ends, are one.
        let mut lines = Vec::new();
        for verdict in ["granted", "denied"] {
            for kiosk in ["", "lobby - "] {
                for (k, gate) in ["north", "south", "east"].iter().enumerate() {
                    lines.push(format!("badge {verdict} at {kiosk}10.0.{k}.1 gate {gate}"));
                }
            }
        }
        let t = templates(&lines);
        for (k, line) in lines.iter().enumerate() {
            assert!(t[k].ends_with("gate <*>"), "{line}: {}", t[k]);
            let verdict = if line.contains("granted") {
                "granted"
            } else {
                "denied"
            };
            assert!(t[k].contains(verdict), "{line}: {}", t[k]);
        }
    }

    #[test]
    fn two_small_word_sets_crossed_in_one_event_are_both_parameters() {
        // A task of one to three words and a queue of three names, in every combination.
        let mut lines = Vec::new();
        for (k, task) in ["resize image", "send mail", "sync", "build pdf report"]
            .iter()
            .enumerate()
        {
            for queue in ["low", "high", "bulk"] {
                lines.push(format!("worker {k} took task {task} from queue {queue}"));
            }
        }
        let t = templates(&lines);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "worker <*> took task <*> from queue <*>");
    }

    #[test]
    fn two_symbols_in_one_slot_are_values_two_prose_words_are_not() {
        let lines: Vec<String> = [
            "worker 3 exited on signal SIGQUIT",
            "worker 4 exited on signal SIGABRT",
            "setting page_size changed to 40",
            "setting retry_limit changed to 3",
            "pump Primed at station 2",
            "pump Drained at station 3",
        ]
        .map(String::from)
        .to_vec();
        let t = templates(&lines);
        assert_eq!(t[0], "worker <*> exited on signal <*>");
        assert_eq!(t[1], t[0]);
        assert_eq!(t[2], "setting <*> changed to <*>");
        assert_eq!(t[3], t[2]);
        assert_ne!(t[4], t[5]);
    }

    #[test]
    fn after_a_short_header_only_a_domain_of_phrases_is_a_value() {
        // The same three reasons end two events, one with a one-word header: values. Phrases
        // that share their first word after `Opening` and `Closing` stay events of their own.
        let reasons = ["disk quota reached", "cable unplugged", "fan stalled hard"];
        let mut lines: Vec<String> = Vec::new();
        for (k, r) in reasons.iter().enumerate() {
            lines.push(format!("Fault: {r}"));
            lines.push(format!("Upload {k} aborted: {r}"));
        }
        for verb in ["Opening", "Closing"] {
            for what in ["cache index.", "the cache log.", "cache journal."] {
                lines.push(format!("{verb} {what}"));
            }
        }
        let t = templates(&lines);
        for k in 0..3 {
            assert_eq!(t[2 * k], "Fault: <*>");
            assert_eq!(t[2 * k + 1], "Upload <*> aborted: <*>");
        }
        assert_eq!(t[6], "Opening cache index.");
        assert_eq!(t[7], "Opening the cache log.");
        assert_eq!(t[11], "Closing cache journal.");
    }

    #[test]
    fn a_message_after_a_label_colon_is_a_value_a_phrase_after_a_word_is_not() {
        let reasons = [
            "timeout",
            "disk full",
            "peer went away",
            "quota exceeded on volume",
        ];
        let lines = |joint: &str| -> Vec<String> {
            reasons
                .iter()
                .flat_map(|r| (0..3).map(move |k| (k, r)))
                .map(|(k, r)| format!("sync of shard {k} failed{joint} {r}"))
                .collect()
        };
        let t = templates(&lines(":"));
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "sync of shard <*> failed: <*>");
        // Without the colon the four phrases might name four events: they stay apart.
        let t = templates(&lines(" because"));
        assert_ne!(t[0], t[3]);
        // A message that opens with a label of its own names a sub-event.
        let subs = [
            "MDNS: off",
            "keepalive: port 80",
            "seq: 4 ack 5 win",
            "wake: on lan now",
        ];
        let lines: Vec<String> = subs
            .iter()
            .flat_map(|r| (0..3).map(move |k| format!("radio of card {k} said: {r}")))
            .collect();
        let t = templates(&lines);
        assert_ne!(t[0], t[3]);
    }

    #[test]
    fn a_span_over_two_values_keeps_the_words_every_filler_shares() {
        // A name and a quoted comment of any length, each line its own: only the span over
        // both is shared, and its fillers all hold `posted comment` at the same place.
        let pairs = [
            ("ann", "\"red fox\""),
            ("bob", "\"a big blue whale\""),
            ("eve", "\"tiny\""),
            ("raj", "\"one two three\""),
            ("wei", "\"sun and moon rise\""),
            ("tom", "\"ok then\""),
        ];
        let lines: Vec<String> = pairs
            .iter()
            .enumerate()
            .map(|(k, (n, q))| format!("user {n} posted comment {q} on thread {k}"))
            .collect();
        let t = templates(&lines);
        for x in &t {
            assert_eq!(x, "user <*> posted comment <*> on thread <*>");
        }
    }

    #[test]
    fn a_span_never_ends_inside_a_group_it_opens() {
        let span = |t: &[&str]| -> Vec<Box<str>> { t.iter().map(|&x| Box::from(x)).collect() };
        // `{"sku": <*>` would leave the record's `}` (or its next field) in the context.
        assert!(super::cuts_group(&span(&["{\"sku\":", "<*>"])));
        assert!(super::cuts_group(&span(&["\"oak", "elm"])));
        assert!(!super::cuts_group(&span(&["{\"sku\":", "<*>}"])));
        assert!(!super::cuts_group(&span(&["(spare),"])));
        assert!(!super::cuts_group(&span(&["spare", "oak"])));
    }

    #[test]
    fn a_long_quoted_phrase_is_one_value() {
        // Quoted notes of two to twenty words, longer than an unbound span may be.
        let words = [
            "tide", "moss", "kiln", "reed", "flint", "brook", "loam", "sage",
        ];
        let lines: Vec<String> = [2, 5, 11, 14, 20, 17, 3]
            .iter()
            .enumerate()
            .map(|(k, &len)| {
                let note: Vec<&str> = (0..len).map(|w| words[(w * 3 + k) % words.len()]).collect();
                format!("ticket {k} closed with note \"{}\" by desk", note.join(" "))
            })
            .collect();
        let t = templates(&lines);
        for x in &t {
            assert_eq!(x, "ticket <*> closed with note <*> by desk");
        }
    }

    #[test]
    fn a_word_quoted_or_bracketed_whole_is_a_value() {
        let lines: Vec<String> = [
            "cache flush (eager) took 3 ms",
            "cache flush (lazy) took 4 ms",
            "replay mode set to 'fast' for shard 2",
            "replay mode set to 'safe' for shard 5",
        ]
        .map(String::from)
        .to_vec();
        let t = templates(&lines);
        assert_eq!(t[0], "cache flush <*> took <*>");
        assert_eq!(t[1], t[0]);
        assert_eq!(t[2], "replay mode set to <*> for shard <*>");
        assert_eq!(t[3], t[2]);
    }

    #[test]
    fn a_field_label_between_two_values_of_any_length_stays() {
        // Names of two or three words, reasons of one to four: the label sits at another place
        // in every filler of the span that covers both.
        let names = [
            "Ann Lee",
            "Bo Kim Li",
            "Cy Ray",
            "Di Fox Orr",
            "Ed Moe",
            "Flo Ng Tate",
        ];
        let reasons = [
            "stock gone",
            "card declined by bank",
            "fraud",
            "address not found",
            "late",
            "duplicate cart",
        ];
        let lines: Vec<String> = names
            .iter()
            .enumerate()
            .map(|(k, n)| format!("order {k} voided by {n} reason: {}", reasons[k]))
            .collect();
        let t = templates(&lines);
        for x in &t {
            assert_eq!(x, "order <*> voided by <*> reason: <*>");
        }
    }

    #[test]
    fn two_paths_in_one_slot_are_values() {
        let lines: Vec<String> = [
            "archive of /srv/reports/ sealed in 4 s",
            "archive of /home/ana/notes.txt sealed in 9 s",
        ]
        .map(String::from)
        .to_vec();
        let t = templates(&lines);
        assert_eq!(t[0], "archive of <*> sealed in <*>");
        assert_eq!(t[1], t[0]);
    }

    #[test]
    fn a_slot_whose_values_are_each_seen_once_is_a_parameter() {
        // Four names of one to three words, one message each: too few to vary by count, but a
        // constant that names an event repeats.
        let lines: Vec<String> = ["Ada Moe", "Bo", "Cy Dee Ek", "Fen Gu"]
            .iter()
            .enumerate()
            .map(|(k, n)| format!("refund {k} approved by {n} for order {k}"))
            .collect();
        let t = templates(&lines);
        for x in &t {
            assert_eq!(x, "refund <*> approved by <*> for order <*>");
        }
    }

    #[test]
    fn a_small_word_set_in_one_event_only_stays_constant() {
        // Three states of one pump, never crossed with another slot: three events.
        let lines: Vec<String> = ["primed", "drained", "flushed"]
            .iter()
            .flat_map(|s| (1..4).map(move |k| format!("pump {s} at station {k}")))
            .collect();
        let t = templates(&lines);
        assert_eq!(t[0], "pump primed at station <*>");
        assert_eq!(t[3], "pump drained at station <*>");
        assert_eq!(t[6], "pump flushed at station <*>");
    }
}
