//! The redaction rules' regex type: `regex`'s own engine, built with a configuration tuned for a
//! short-lived process.
//!
//! `regex::Regex` always extracts literal prefilters, and for a case-insensitive keyword rule
//! (`(?i-u:bearer|basic)`, `host|node` behind a word) that extraction, and the Aho-Corasick
//! automaton built from it, cost more than the rest of the compile. A rule runs only on a
//! message the keyword scan already flagged, a few hundred bytes where a prefilter has little
//! to skip, so the rules are built without one. Measured with callgrind on the bench inputs
//! (`bench/run.sh`): a 100-entry call went from 28.6M to 21.4M instructions, a 20,000-entry
//! response from 821M to 835M.
//!
//! [`Matcher`] wraps `regex_automata::meta::Regex` (the engine behind `regex::Regex`) and offers
//! the small part of the `regex` API the rules use, with the same leftmost-first semantics, so a
//! rule reads the same either way; a test holds the two to the same answers.

use std::ops::Range;

use regex_automata::meta::{self, Regex};
use regex_automata::util::captures;
use regex_automata::{Input, Span};

/// A compiled rule; build it once, in a `LazyLock`.
#[derive(Debug)]
pub(crate) struct Matcher {
    re: Regex,
}

impl Matcher {
    /// Compiles `pattern` with `regex`'s syntax and defaults, less the literal prefilter.
    pub(crate) fn new(pattern: &str) -> Result<Matcher, Box<meta::BuildError>> {
        let config = Regex::config().auto_prefilter(false);
        Regex::builder()
            .configure(config)
            .build(pattern)
            .map(|re| Matcher { re })
            .map_err(Box::new)
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
        // The engine reports spans of a UTF-8 haystack on character boundaries (`utf8_empty`
        // is on by default), so this slice exists; `get` keeps a broken promise from panicking.
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
