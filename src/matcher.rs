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

use std::ops::Range;

use regex_automata::meta::{self, Regex};
use regex_automata::util::{captures, syntax};
use regex_automata::{Input, Span};

/// A compiled rule; build it once, in a `LazyLock`.
#[derive(Debug)]
pub(crate) struct Matcher {
    re: Regex,
    /// Kept for the test that holds the byte engine to `regex`'s Unicode one.
    #[cfg(test)]
    pattern: Box<str>,
}

impl Matcher {
    /// Compiles `pattern` over bytes, with no literal prefilter. A pattern must keep the shape
    /// the module documentation describes, or its spans may split a character.
    pub(crate) fn new(pattern: &str) -> Result<Matcher, Box<meta::BuildError>> {
        let config = Regex::config().auto_prefilter(false);
        let syntax = syntax::Config::new().unicode(false).utf8(false);
        Regex::builder()
            .configure(config)
            .syntax(syntax)
            .build(pattern)
            .map(|re| Matcher {
                re,
                #[cfg(test)]
                pattern: pattern.into(),
            })
            .map_err(Box::new)
    }

    /// Compiles several patterns into one matcher that says which of them matched
    /// ([`Matcher::find_which_at`]), the way `(a)|(b)|…` would by its groups but without the
    /// slower engines that read groups: at one position the earlier pattern wins, as the earlier
    /// alternative does. Every pattern has the shape [`Matcher::new`] asks for.
    pub(crate) fn new_many(patterns: &[&str]) -> Result<Matcher, Box<meta::BuildError>> {
        let config = Regex::config().auto_prefilter(false);
        let syntax = syntax::Config::new().unicode(false).utf8(false);
        Regex::builder()
            .configure(config)
            .syntax(syntax)
            .build_many(patterns)
            .map(|re| Matcher {
                re,
                // The one-pattern regex the tests hold it to: every pattern an alternative.
                #[cfg(test)]
                pattern: patterns
                    .iter()
                    .map(|p| format!("(?:{p})"))
                    .collect::<Vec<_>>()
                    .join("|")
                    .into(),
            })
            .map_err(Box::new)
    }

    /// The first match starting at or after `start`, and the index of the pattern it is of (0
    /// for a matcher of one pattern).
    pub(crate) fn find_which_at<'h>(
        &self,
        hay: &'h str,
        start: usize,
    ) -> Option<(usize, Match<'h>)> {
        let input = Input::new(hay).range(start..);
        self.re
            .find(input)
            .map(|m| (m.pattern().as_usize(), Match::new(hay, m.span())))
    }

    #[cfg(test)]
    pub(crate) fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Every non-overlapping match, leftmost-first, like `regex::Regex::find_iter`.
    pub(crate) fn find_iter<'r, 'h>(&'r self, hay: &'h str) -> impl Iterator<Item = Match<'h>> + 'r
    where
        'h: 'r,
    {
        self.re
            .find_iter(hay)
            .map(move |m| Match::new(hay, m.span()))
    }

    /// The first match starting at or after `start`, looking behind it for context, like
    /// `regex::Regex::find_at`.
    pub(crate) fn find_at<'h>(&self, hay: &'h str, start: usize) -> Option<Match<'h>> {
        let input = Input::new(hay).range(start..);
        self.re.find(input).map(|m| Match::new(hay, m.span()))
    }

    /// The first match starting at or after `start`, with its groups, like
    /// `regex::Regex::captures_at`.
    pub(crate) fn captures_at<'h>(&self, hay: &'h str, start: usize) -> Option<Captures<'h>> {
        let mut caps = self.re.create_captures();
        self.re
            .search_captures(&Input::new(hay).range(start..), &mut caps);
        caps.is_match().then_some(Captures { hay, caps })
    }

    /// Every non-overlapping match with its groups, like `regex::Regex::captures_iter`.
    pub(crate) fn captures_iter<'r, 'h>(
        &'r self,
        hay: &'h str,
    ) -> impl Iterator<Item = Captures<'h>> + 'r
    where
        'h: 'r,
    {
        self.re
            .captures_iter(hay)
            .map(move |caps| Captures { hay, caps })
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
}
