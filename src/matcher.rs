//! The redaction rules' regex type: `regex`'s own engine, built for a short-lived process.
//!
//! Compiling the rules dominated a small call, for two reasons measured with callgrind and
//! `perf` on the 100-entry bench input (`bench/run.sh`):
//!
//! - `regex::Regex` extracts literal prefilters, and for a case-insensitive keyword rule
//!   (`(?i-u:bearer|basic)`, `host|node` behind a word) the extraction and the automaton built
//!   from it cost more than the rest of the compile. A rule runs only on a message the keyword
//!   scan already flagged, a few hundred bytes where a prefilter has little to skip, so the
//!   rules are built without one.
//! - Every Unicode class (`[^\n]`, `(?s:.)`) sends the compiler through its UTF-8 automaton
//!   builder, which allocates and clears a 10,000-entry table (about 400 KB) per NFA: most of
//!   the 7.6 MB a small call allocated, and most of its page faults. The rules are compiled over
//!   bytes instead (`unicode(false)`, `utf8(false)`).
//!
//! Matching bytes gives the same spans as matching characters for these rules because each of
//! them starts with an ASCII element and every negated class or `.` in them runs up to an ASCII
//! delimiter or the end of the text: a run of "anything but these ASCII bytes" swallows a
//! character's continuation bytes whole, and never stops inside one. Non-ASCII literals
//! (`密码`) are matched as their UTF-8 bytes, which in valid UTF-8 occur only as those
//! characters. A property test in `redact` holds every rule to `regex::Regex`'s answers on text
//! full of multi-byte characters.
//!
//! [`Matcher`] wraps `regex_automata::meta::Regex` (the engine behind `regex::Regex`) and offers
//! the small part of the `regex` API the rules use, with the same leftmost-first semantics.
//!
//! Even so, compiling the rules was most of a 100-entry call: 50M of its 75M instructions,
//! and on the calling thread the lazy DFAs building their first states took 9M more. So the
//! patterns whose minimized DFAs are not too big are built at build time (`build.rs`, read by
//! `prebuilt`): a matcher
//! then reads its forward and reverse dense DFAs in place from the binary, searches with them
//! (the same forward-then-reverse search the meta regex runs with its lazy DFA, never giving
//! up), and compiles a regex only for a match whose groups a rule asks for, which it reads
//! anchored on the span the DFAs found, as the meta regex does. A pattern with no stored DFAs
//! (too big, or not read by the build script) is compiled as before. Tests hold the stored
//! DFAs to the catalogue and to the compiled patterns' answers.

use std::ops::Range;
use std::sync::OnceLock;

use regex_automata::dfa::{dense, regex::Regex as DfaRegex};
use regex_automata::meta::{self, Regex};
use regex_automata::util::{captures, syntax};
use regex_automata::{Anchored, Input, Span};

mod prebuilt;

/// A rule's DFAs as `prebuilt` stores them, read in place from the binary.
type Dfa = DfaRegex<dense::DFA<&'static [u32]>>;

/// A compiled rule; build it once, in a `LazyLock`.
#[derive(Debug)]
pub(crate) struct Matcher {
    engine: Engine,
    /// Kept for the test that holds the byte engine to `regex`'s Unicode one.
    #[cfg(test)]
    pattern: Box<str>,
}

#[derive(Debug)]
enum Engine {
    /// Compiled now: a pattern whose DFAs are too big to ship.
    Compiled(Regex),
    /// Built ahead of time (see `prebuilt`).
    Prebuilt(Box<Prebuilt>),
}

/// A rule built ahead of time: the DFAs find every match; the groups, which need an NFA, are
/// read with a regex compiled on the first search that needs them.
#[derive(Debug)]
struct Prebuilt {
    dfa: Dfa,
    pattern: &'static str,
    groups: OnceLock<Regex>,
}

/// The syntax every rule is compiled with; `build.rs` builds the DFAs with the same.
fn syntax_config() -> syntax::Config {
    syntax::Config::new().unicode(false).utf8(false)
}

impl Matcher {
    /// Compiles `pattern` over bytes, with no literal prefilter, or takes its DFAs from the
    /// ones built ahead of time. A pattern must keep the shape the module documentation
    /// describes, or its spans may split a character.
    pub(crate) fn new(pattern: &str) -> Result<Matcher, Box<meta::BuildError>> {
        let engine = match prebuilt::find(pattern) {
            Some((pattern, dfa)) => Engine::Prebuilt(Box::new(Prebuilt {
                dfa,
                pattern,
                groups: OnceLock::new(),
            })),
            None => Engine::Compiled(compile(pattern, Regex::config().auto_prefilter(false))?),
        };
        Ok(Matcher {
            engine,
            #[cfg(test)]
            pattern: pattern.into(),
        })
    }

    /// This pattern compiled now, whether or not it was built ahead of time.
    #[cfg(test)]
    fn compiled(pattern: &str) -> Matcher {
        Matcher {
            engine: Engine::Compiled(
                compile(pattern, Regex::config().auto_prefilter(false)).expect("valid"),
            ),
            pattern: pattern.into(),
        }
    }

    #[cfg(test)]
    pub(crate) fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Builds now whatever a later search could still have to compile: the regex that reads
    /// the groups of a rule built ahead of time.
    pub(crate) fn warm_up(&self) {
        if let Engine::Prebuilt(p) = &self.engine {
            groups_regex(&p.groups, p.pattern);
        }
    }

    /// Every non-overlapping match, leftmost-first, like `regex::Regex::find_iter`.
    pub(crate) fn find_iter<'r, 'h>(&'r self, hay: &'h str) -> impl Iterator<Item = Match<'h>> + 'r
    where
        'h: 'r,
    {
        let spans = match &self.engine {
            Engine::Compiled(re) => Spans::Compiled(re.find_iter(hay)),
            Engine::Prebuilt(p) => Spans::Prebuilt(p.dfa.find_iter(hay)),
        };
        spans.map(move |m| Match::new(hay, m.span()))
    }

    /// The first match starting at or after `start`, looking behind it for context, like
    /// `regex::Regex::find_at`.
    pub(crate) fn find_at<'h>(&self, hay: &'h str, start: usize) -> Option<Match<'h>> {
        let input = Input::new(hay).range(start..);
        let m = match &self.engine {
            Engine::Compiled(re) => re.find(input),
            Engine::Prebuilt(p) => p.dfa.find(input),
        };
        m.map(|m| Match::new(hay, m.span()))
    }

    /// The first match starting at or after `start`, with its groups, like
    /// `regex::Regex::captures_at`.
    pub(crate) fn captures_at<'h>(&self, hay: &'h str, start: usize) -> Option<Captures<'h>> {
        let input = Input::new(hay).range(start..);
        match &self.engine {
            Engine::Compiled(re) => {
                let mut caps = re.create_captures();
                re.search_captures(&input, &mut caps);
                caps.is_match().then_some(Captures { hay, caps })
            }
            Engine::Prebuilt(p) => {
                let m = p.dfa.find(input)?;
                let caps = groups_at(groups_regex(&p.groups, p.pattern), hay, m.span());
                Some(Captures { hay, caps })
            }
        }
    }

    /// Every non-overlapping match with its groups, like `regex::Regex::captures_iter`.
    pub(crate) fn captures_iter<'r, 'h>(
        &'r self,
        hay: &'h str,
    ) -> impl Iterator<Item = Captures<'h>> + 'r
    where
        'h: 'r,
    {
        let all = match &self.engine {
            Engine::Compiled(re) => AllCaptures::Compiled(re.captures_iter(hay)),
            Engine::Prebuilt(p) => {
                AllCaptures::Prebuilt(p.dfa.find_iter(hay), hay, p.pattern, &p.groups)
            }
        };
        all.map(move |caps| Captures { hay, caps })
    }
}

fn compile(pattern: &str, config: meta::Config) -> Result<Regex, Box<meta::BuildError>> {
    Regex::builder()
        .configure(config)
        .syntax(syntax_config())
        .build(pattern)
        .map_err(Box::new)
}

/// The regex that reads a prebuilt rule's groups: it only ever searches a match the DFAs
/// found, anchored there, so it needs no lazy DFA (and no reversed NFA for one).
fn groups_regex<'g>(groups: &'g OnceLock<Regex>, pattern: &str) -> &'g Regex {
    groups.get_or_init(|| {
        let config = Regex::config().auto_prefilter(false).hybrid(false);
        compile(pattern, config).expect("a prebuilt pattern compiled when it was built")
    })
}

/// The groups of the match at `span`, read the way the meta regex reads them once its DFA has
/// found a match: anchored at its start, bounded by its end, with the text around it in view.
fn groups_at(re: &Regex, hay: &str, span: Span) -> captures::Captures {
    let mut caps = re.create_captures();
    re.search_captures(
        &Input::new(hay).span(span).anchored(Anchored::Yes),
        &mut caps,
    );
    caps
}

/// The matches of either engine.
enum Spans<'r, 'h> {
    Compiled(meta::FindMatches<'r, 'h>),
    Prebuilt(regex_automata::dfa::regex::FindMatches<'r, 'h, dense::DFA<&'static [u32]>>),
}

impl Iterator for Spans<'_, '_> {
    type Item = regex_automata::Match;

    fn next(&mut self) -> Option<regex_automata::Match> {
        match self {
            Spans::Compiled(it) => it.next(),
            Spans::Prebuilt(it) => it.next(),
        }
    }
}

/// The matches of either engine, with their groups.
enum AllCaptures<'r, 'h> {
    Compiled(meta::CapturesMatches<'r, 'h>),
    Prebuilt(
        regex_automata::dfa::regex::FindMatches<'r, 'h, dense::DFA<&'static [u32]>>,
        &'h str,
        &'static str,
        &'r OnceLock<Regex>,
    ),
}

impl Iterator for AllCaptures<'_, '_> {
    type Item = captures::Captures;

    fn next(&mut self) -> Option<captures::Captures> {
        match self {
            AllCaptures::Compiled(it) => it.next(),
            AllCaptures::Prebuilt(it, hay, pattern, groups) => {
                let m = it.next()?;
                Some(groups_at(groups_regex(groups, pattern), hay, m.span()))
            }
        }
    }
}

/// A match of a [`Matcher`] in a `&str`; its bounds are always on character boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Match<'h> {
    hay: &'h str,
    start: usize,
    end: usize,
}

impl<'h> Match<'h> {
    fn new(hay: &'h str, span: Span) -> Match<'h> {
        Match {
            hay,
            start: span.start,
            end: span.end,
        }
    }

    pub(crate) fn start(&self) -> usize {
        self.start
    }

    pub(crate) fn end(&self) -> usize {
        self.end
    }

    pub(crate) fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    pub(crate) fn as_str(&self) -> &'h str {
        // The rules' shape keeps spans on character boundaries (see the module documentation);
        // `get` keeps a broken promise from panicking here, and the property test catches it.
        debug_assert!(self.hay.is_char_boundary(self.start) && self.hay.is_char_boundary(self.end));
        self.hay.get(self.range()).unwrap_or_default()
    }
}

/// The groups of one match; group 0 is the whole match.
#[derive(Debug)]
pub(crate) struct Captures<'h> {
    hay: &'h str,
    caps: captures::Captures,
}

impl<'h> Captures<'h> {
    /// The number of groups, the whole match's included.
    pub(crate) fn group_count(&self) -> usize {
        self.caps.group_len()
    }

    pub(crate) fn get(&self, group: usize) -> Option<Match<'h>> {
        self.caps
            .get_group(group)
            .map(|span| Match::new(self.hay, span))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wrapper must answer exactly as `regex::Regex` does.
    #[test]
    fn matcher_agrees_with_regex() {
        let patterns = [
            r"(?-u:\b)(?i-u:bearer|basic)[ \t]+([A-Za-z0-9._~+/=\-]{6,})",
            r"(?i-u:[a-z0-9_]*(?:host|node))[ \t]*[=:][ \t]*([A-Za-z0-9][A-Za-z0-9_.\-]*)",
            r"Parameters:[ \t]*([^\n]*)",
            r"(a)|(b)?c",
            r"",
        ];
        let hays = [
            "Authorization: Bearer abc.def-123 and basic Zm9vOmJhcg== ok",
            "db_host = db1.internal; NODE:n-2 ✓ 主机 host=",
            "Parameters: 1(Integer), 密码(String)\nnext",
            "xacbc ac",
            "héllo",
        ];
        for p in patterns {
            let m = Matcher::new(p).expect("valid");
            let theirs = regex::Regex::new(p).expect("valid");
            for h in hays {
                let want: Vec<_> = theirs.find_iter(h).map(|m| m.range()).collect();
                let got: Vec<_> = m.find_iter(h).map(|m| m.range()).collect();
                assert_eq!(got, want, "find_iter {p:?} on {h:?}");
                for at in (0..=h.len()).filter(|&at| h.is_char_boundary(at)) {
                    let want = theirs.find_at(h, at).map(|m| m.range());
                    assert_eq!(
                        m.find_at(h, at).map(|m| m.range()),
                        want,
                        "{p:?} {h:?} {at}"
                    );
                }
                let got: Vec<Vec<Option<&str>>> = m
                    .captures_iter(h)
                    .map(|c| (0..3).map(|i| c.get(i).map(|m| m.as_str())).collect())
                    .collect();
                let want: Vec<Vec<Option<&str>>> = theirs
                    .captures_iter(h)
                    .map(|c| (0..3).map(|i| c.get(i).map(|m| m.as_str())).collect())
                    .collect();
                assert_eq!(got, want, "captures_iter {p:?} on {h:?}");
            }
        }
    }

    /// Every distinct pattern of the catalogue, in catalogue order.
    fn catalogue_patterns() -> Vec<&'static str> {
        let mut out: Vec<&'static str> = Vec::new();
        for rule in crate::redact::catalogue() {
            for m in rule.matchers {
                let m: &'static Matcher = m;
                if !out.contains(&m.pattern()) {
                    out.push(m.pattern());
                }
            }
        }
        out
    }

    /// The build script read every pattern of the catalogue from the rules' source: each one is
    /// in the index it wrote, with DFAs or recorded as too big, and one with DFAs is searched
    /// with them. Nothing here can go stale (the DFAs are rebuilt with every build that
    /// changes a rule); a pattern `build.rs` cannot read (see `build/rule_source.rs`) fails
    /// here by its text. Every DFA stored was checked with `dense::DFA::from_bytes` by the
    /// build script that wrote it.
    #[test]
    fn the_build_script_read_every_catalogue_pattern() {
        let stored: Vec<&str> = prebuilt::entries().map(|(p, _)| p).collect();
        let missing: Vec<&str> = catalogue_patterns()
            .into_iter()
            .filter(|p| !stored.contains(p))
            .collect();
        assert!(
            missing.is_empty(),
            "build.rs did not read these patterns from the rules' source, so they compile at \
             start-up: {missing:#?}"
        );
        let mut kept = 0;
        for (p, dfas) in prebuilt::entries() {
            if dfas.is_some() {
                assert!(matches!(
                    Matcher::new(p).expect("valid").engine,
                    Engine::Prebuilt(_)
                ));
                kept += 1;
            }
        }
        assert!(kept > 0, "no DFAs were built ahead of time");
    }

    /// A rule built ahead of time answers exactly as its pattern compiled now, on every
    /// example and negative of the catalogue.
    #[test]
    fn prebuilt_dfas_agree_with_the_compiled_pattern() {
        let mut hays: Vec<&str> = vec!["", "héllo 主机 ✓", "\n\tat x.y(Z.java:1)\n"];
        for rule in crate::redact::catalogue() {
            hays.extend(rule.examples.iter().flat_map(|e| [e.input, e.output]));
            hays.extend(rule.negatives.iter().copied());
        }
        for p in catalogue_patterns() {
            let (ours, theirs) = (Matcher::new(p).expect("valid"), Matcher::compiled(p));
            for h in &hays {
                let spans = |m: &Matcher| m.find_iter(h).map(|m| m.range()).collect::<Vec<_>>();
                assert_eq!(spans(&ours), spans(&theirs), "find_iter {p:?} on {h:?}");
                let groups = |m: &Matcher| {
                    m.captures_iter(h)
                        .map(|c| {
                            (0..4)
                                .map(|g| c.get(g).map(|m| m.range()))
                                .collect::<Vec<_>>()
                        })
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    groups(&ours),
                    groups(&theirs),
                    "captures_iter {p:?} on {h:?}"
                );
                for at in (0..=h.len()).filter(|&at| h.is_char_boundary(at)) {
                    let found = |m: &Matcher| m.find_at(h, at).map(|m| m.range());
                    assert_eq!(found(&ours), found(&theirs), "find_at {p:?} {h:?} {at}");
                    let caps = |m: &Matcher| {
                        m.captures_at(h, at).map(|c| {
                            (0..4)
                                .map(|g| c.get(g).map(|m| m.range()))
                                .collect::<Vec<_>>()
                        })
                    };
                    assert_eq!(caps(&ours), caps(&theirs), "captures_at {p:?} {h:?} {at}");
                }
            }
        }
    }
}
