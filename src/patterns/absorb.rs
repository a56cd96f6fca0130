//! Absorbing a template into a more general one that it is an instance of.
//!
//! Why: an event with two or more parameters that is rare in the input shows a value the miner
//! never saw vary (a name of three words, a reason seen once) in a few lines, and those lines
//! keep a template of their own beside the general one that the event's other lines made:
//! `rule <*> matched <*> events for <*>` and `rule kiln matched <*> events for Ada Moe Lind`.
//! `align` and `spans` compare templates that differ in runs of values or in one span; this
//! asks the plainer question: does the general template *match* the specific one, reading each
//! of its `<*>` as any one token or as a run of plain words?
//!
//! What it does, over the finished templates: for two templates with the same leading word, the
//! specific one is read as the general one when every constant token of the general one is the
//! specific one's token there, and every `<*>` of the general one stands for one token of any
//! kind or for two to [`MAX_RUN`] plain words (letters only, maybe ending in punctuation). A
//! token holding a mask inside it (`#<*>`, `'<*>'`) matches a token with its prefix and suffix.
//! A `<*>` also stands for a run that punctuation binds into one value, whatever it holds: a
//! phrase that one quote opens and closes, a comma-separated list, a path with spaces from a
//! token opening with `/` to a file name or a directory (`"damaged on arrival"`, `cvv_retry,
//! ip_proxy`, `/srv/Acquirer Uploads/batch report.csv`).
//! A template of at most [`RARE_LINES`] messages next to a general one of [`RARE_RATIO`] times
//! as many may also hold one value inside such a run (`by Ada <*>` for `by <*>`): a rare line of
//! a common event, where a second event would repeat.
//!
//! Why constants stay apart: the general template's words must all be there, in order, so
//! `cache hit for <*>` never takes `cache miss for <*>`; a run with a value in it is never read
//! as one `<*>` (`for invalid user <*> from` is not `for <*> from`) unless the line is rare as
//! above; and a `<*>` that ends the
//! message after fewer than three words takes one token only (after a short header, the rest
//! of a message is as often another event as a value: `[instance: <*>] <*>`). Trade-off: an
//! event whose constant word sits where another event of the same words has a parameter is read
//! as that event. Work is bounded: [`MAX_GENERAL`] general templates per leading word are tried,
//! each match costs the product of the two lengths.

use std::collections::HashMap;

use super::spans::Merged;
use super::{WILDCARD, has_placeholder, is_symbol, is_value_only};

/// General templates (those with a `<*>`) tried per leading word.
const MAX_GENERAL: usize = 64;
/// The most plain words one `<*>` stands for.
const MAX_RUN: usize = 8;
/// A template of at most this many messages, next to one of [`RARE_RATIO`] times as many, may
/// be read as it with one value inside a run of words: a rare line, not a second event.
const RARE_LINES: u64 = 2;
const RARE_RATIO: u64 = 8;
/// Distinct leading words of one rest that make the leading word a value: three, so that a
/// pair (`GET`/`POST`, `Accepted`/`Failed`) stays two events.
const LEADING_VARIANTS: usize = 3;
/// Words before a trailing `<*>` for it to stand for more than one token.
const HEADER_WORDS: usize = 3;

/// Reads every template that is an instance of a more general one (same leading word) as that one.
pub(super) fn merge(texts: &[Box<str>], lines: &[u64]) -> Merged {
    let count = |k: usize| lines.get(k).copied().unwrap_or(0);
    let texts = &leading_values(texts);
    let tokens: Vec<Vec<&str>> = texts
        .iter()
        .map(|t| t.split(' ').filter(|x| !x.is_empty()).collect())
        .collect();
    let mut by_key: HashMap<&str, Vec<u32>> = HashMap::new();
    for (k, t) in tokens.iter().enumerate() {
        if t.iter().any(|x| x.contains(WILDCARD)) {
            let key = t.first().copied().unwrap_or("");
            let list = by_key.entry(key).or_default();
            if list.len() < MAX_GENERAL {
                list.push(k as u32);
            }
        }
    }
    let mut into: Vec<u32> = (0..texts.len() as u32).collect();
    for (k, s) in tokens.iter().enumerate() {
        let Some(&first) = s.first() else { continue };
        if first.contains(WILDCARD) {
            continue;
        }
        let Some(list) = by_key.get(first) else {
            continue;
        };
        // The most general match: the one with the fewest constant tokens.
        let mut best: Option<(usize, u32)> = None;
        for &g in list {
            let gt = &tokens[g as usize];
            // A rare line next to a common template may hold one value inside a run of words.
            let mixed = count(k) <= RARE_LINES && count(g as usize) >= RARE_RATIO * count(k).max(1);
            if g as usize == k || gt == s || !instance(gt, s, mixed) {
                continue;
            }
            let constants = gt.iter().filter(|x| !x.contains(WILDCARD)).count();
            if best.is_none_or(|(c, _)| constants < c) {
                best = Some((constants, g));
            }
        }
        if let Some((_, g)) = best {
            into[k] = g;
        }
    }
    let resolve = |mut r: u32| {
        // The relation is a strict order on texts, so chains end; the bound only guards it.
        for _ in 0..texts.len() {
            if into[r as usize] == r {
                break;
            }
            r = into[r as usize];
        }
        r
    };
    let mut out: Vec<Box<str>> = Vec::new();
    let mut slot: HashMap<u32, u32> = HashMap::new();
    let of = (0..texts.len() as u32)
        .map(|k| {
            let r = resolve(k);
            *slot.entry(r).or_insert_with(|| {
                out.push(texts[r as usize].clone());
                out.len() as u32 - 1
            })
        })
        .collect();
    Merged { texts: out, of }
}

/// Templates that are equal but for their leading word, when at least [`LEADING_VARIANTS`]
/// symbols (`GET`, `PUT`, `DELETE`; see [`is_symbol`]) lead the same rest and that rest holds
/// a parameter, lead with `<*>`: the leading word is then a value the program names (a method,
/// a level). Words of prose stay: `wait (command <*>)` and `boot (command <*>)` are two events.
fn leading_values(texts: &[Box<str>]) -> Vec<Box<str>> {
    fn rest(t: &str) -> Option<(&str, &str)> {
        let (first, rest) = t.split_once(' ')?;
        // The rest must keep a constant: a template of `<*>` alone says nothing.
        let constant = rest.split(' ').any(|t| !is_value_only(t));
        (is_symbol(first) && rest.contains(WILDCARD) && constant).then_some((first, rest))
    }
    let mut leads: HashMap<&str, Vec<&str>> = HashMap::new();
    for t in texts {
        if let Some((first, r)) = rest(t) {
            let list = leads.entry(r).or_default();
            if !list.contains(&first) {
                list.push(first);
            }
        }
    }
    texts
        .iter()
        .map(|t| match rest(t) {
            Some((_, r)) if leads.get(r).is_some_and(|l| l.len() >= LEADING_VARIANTS) => {
                // A run of `<*>` prints as one, as everywhere else.
                if r.split(' ').next() == Some(WILDCARD) {
                    r.into()
                } else {
                    format!("{WILDCARD} {r}").into()
                }
            }
            _ => t.clone(),
        })
        .collect()
}

/// A word of prose or a name: letters, maybe ending in punctuation (`Lind,`).
fn plain(t: &str) -> bool {
    let core = t.trim_end_matches([',', '.', ';', ':', '!', '?']);
    !core.is_empty() && core.bytes().all(|b| b.is_ascii_alphabetic() || b >= 0x80)
}

/// A general token against a specific one: equal, or a masked token whose fixed parts frame it.
fn token_matches(g: &str, s: &str) -> bool {
    if g == s || g == WILDCARD {
        return true;
    }
    let Some(k) = g.find(WILDCARD) else {
        return false;
    };
    let (head, rest) = (&g[..k], &g[k + WILDCARD.len()..]);
    let tail = rest.rsplit(WILDCARD).next().unwrap_or(rest);
    s.len() > head.len() + tail.len() && s.starts_with(head) && s.ends_with(tail)
}

/// Punctuation a value ends with when a clause or a list goes on after it (`draft.png:`).
const TRAILING: [char; 5] = [',', ';', ':', '.', ')'];

/// Whether a run of two or more tokens is one value by its punctuation, whatever words it
/// holds: a phrase that one quote opens and the same quote closes (`"damaged on arrival"`), a
/// list whose items but the last end in a comma (`cvv_retry, bin_blacklist`), or a path with
/// spaces, from a token that opens with `/` to one that ends in a file name or a directory
/// (`/srv/Acquirer Uploads/batch report.csv`). A redactor's placeholder never joins one: it
/// is a value of its own kind. The punctuation, not the words, says where the value ends, so a
/// constant word after it still has to match the general template's.
fn is_bound_run(run: &[&str]) -> bool {
    let (Some(&first), Some(&last)) = (run.first(), run.last()) else {
        return false;
    };
    if run.len() < 2 || run.iter().any(|t| has_placeholder(t)) {
        return false;
    }
    let inner = &run[1..run.len() - 1];
    let closed = last.trim_end_matches(TRAILING);
    let quoted = ['"', '\''].into_iter().any(|q| {
        first.starts_with(q)
            && first.len() > 1
            && !first[1..].contains(q)
            && closed.ends_with(q)
            && !closed[..closed.len() - 1].contains(q)
            && inner.iter().all(|t| !t.contains(q))
    });
    let listed = run[..run.len() - 1].iter().all(|t| t.ends_with(','))
        && !last.contains(',')
        && run.iter().all(|t| t.len() > 1);
    // A file name's extension or a directory's slash ends a path.
    let ends_path = closed.get(1..).is_some_and(|t| t.contains(['.', '/']));
    let path = first.starts_with('/')
        && first[1..].contains('/')
        && ends_path
        && inner.iter().all(|t| !t.starts_with('/'));
    quoted || listed || path
}

/// Whether `g`, each `<*>` read as one token or a run of plain words, matches `s` whole.
fn instance(g: &[&str], s: &[&str], mixed: bool) -> bool {
    let (n, m) = (g.len(), s.len());
    if n > m || n == 0 {
        return false;
    }
    // ok[i][j]: g[i..] matches s[j..].
    let w = m + 1;
    let mut ok = vec![false; (n + 1) * w];
    ok[n * w + m] = true;
    for i in (0..n).rev() {
        let header = g[..i].iter().filter(|x| plain(x)).count();
        let short_tail = i + 1 == n && header < HEADER_WORDS;
        let longest = if g[i] != WILDCARD || short_tail {
            1
        } else {
            MAX_RUN
        };
        for j in (0..m).rev() {
            if !token_matches(g[i], s[j]) {
                continue;
            }
            if ok[(i + 1) * w + j + 1] {
                ok[i * w + j] = true;
                continue;
            }
            // A run that punctuation binds into one value: a quoted phrase, a list, a path.
            let bound =
                (j + 2..=m.min(j + longest)).any(|e| ok[(i + 1) * w + e] && is_bound_run(&s[j..e]));
            if bound {
                ok[i * w + j] = true;
                continue;
            }
            // A run of plain words from s[j] on.
            let mut e = j + 1;
            let mut odd = usize::from(!plain(s[j]));
            while e < m && e - j < longest {
                odd += usize::from(!plain(s[e]));
                if odd > usize::from(mixed) || has_placeholder(s[e]) || has_placeholder(s[j]) {
                    break;
                }
                e += 1;
                if ok[(i + 1) * w + e] {
                    ok[i * w + j] = true;
                    break;
                }
            }
        }
    }
    ok[0]
}

#[cfg(test)]
mod tests {
    use super::super::templates_of as templates;

    #[test]
    fn a_rare_line_of_a_two_parameter_event_joins_its_general_template() {
        const NAMES: [&str; 6] = ["Ada", "Bo", "Cy", "Dag", "Eir", "Finn"];
        let crews = ["tarn", "fell", "gill", "beck", "howe", "scar"];
        let mut lines: Vec<String> = crews
            .iter()
            .enumerate()
            .map(|(k, c)| format!("shift {c} logged {k} tickets for {}", NAMES[k]))
            .collect();
        lines.push("shift knott logged 9 tickets for Ada Moe Lind".into());
        lines.push("shift knott logged 4 tickets for Edda Vos".into());
        let t = templates(&lines);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "shift <*> logged <*> tickets for <*>");
    }

    #[test]
    fn a_quoted_phrase_a_list_or_a_path_with_spaces_is_one_value_of_a_general_slot() {
        let names = ["ada", "bo", "cy", "dee", "eli", "fay"];
        let reasons = ["late", "lost", "broken", "unwanted", "duplicate", "fraud"];
        let mut lines: Vec<String> = (0..6)
            .map(|k| format!("refund {k} asked by {} reason {}", names[k], reasons[k]))
            .collect();
        lines.push("refund 7 asked by ada reason \"damaged on arrival\"".into());
        lines.push("refund 8 asked by bo reason geo_check, cvv_retry, ip_proxy".into());
        lines.push("refund 9 asked by cy reason /srv/Acquirer Uploads/batch report.csv".into());
        let t = templates(&lines);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "refund <*> asked by <*> reason <*>");
        // A phrase that its quote does not close, and a constant after one, are not one value.
        let mut apart = lines[..6].to_vec();
        apart.push("refund 7 asked by ada reason \"late\" twice".into());
        apart.push("refund 8 asked by \"bo and cy\" again reason late".into());
        let t = templates(&apart);
        assert_ne!(t[6], t[0]);
        assert_ne!(t[7], t[0]);
    }

    #[test]
    fn a_rare_line_may_hold_a_value_among_the_words_of_a_common_one() {
        let names = ["ada", "bo", "cy", "dee", "eli", "fay", "gus", "hal"];
        let mut lines: Vec<String> = (0..16)
            .map(|k| format!("build {k} pushed by {} to stage", names[k % 8]))
            .collect();
        // Three lines of a word and a value there are an event of their own…
        let mut apart = lines.clone();
        for k in 0..3 {
            apart.push(format!("build {k} pushed by robot {k} to stage"));
        }
        let t = templates(&apart);
        assert_eq!(t[0], "build <*> pushed by <*> to stage");
        assert_eq!(t[16], "build <*> pushed by robot <*> to stage");
        // …one line is a rare instance of the common event.
        lines.push("build 17 pushed by ada 2nd to stage".into());
        let t = templates(&lines);
        assert!(t.iter().all(|x| *x == t[0]), "{t:?}");
    }

    #[test]
    fn three_symbols_leading_one_rest_are_values_two_or_prose_words_are_not() {
        let mut lines: Vec<String> = ["FETCH", "STORE", "PURGE"]
            .iter()
            .enumerate()
            .map(|(k, m)| format!("{m} /bins/{k} answered {k}00 after {k} ms"))
            .collect();
        lines.extend(["OPEN slot 3 by 4", "SHUT slot 5 by 6"].map(String::from));
        lines.extend(["rinse (cycle 4)", "spin (cycle 5)", "drain (cycle 6)"].map(String::from));
        let t = templates(&lines);
        assert!(t[..3].iter().all(|x| *x == t[0]), "{t:?}");
        assert_eq!(t[0], "<*> /bins/<*> answered <*> after <*>");
        assert_ne!(t[3], t[4]);
        assert_ne!(t[5], t[6]);
        assert_ne!(t[6], t[7]);
    }

    #[test]
    fn a_constant_or_a_run_with_a_value_is_not_absorbed() {
        let users = ["ada", "bo", "cy", "dee", "eli", "fay"];
        let mut lines: Vec<String> = users
            .iter()
            .enumerate()
            .map(|(k, u)| format!("denied key for {u} from 10.0.0.{k} port {k}"))
            .collect();
        lines.push("denied key for unknown account 7 from 10.0.0.9 port 3".into());
        lines.push("allowed key for ada from 10.0.0.9 port 3".into());
        let t = templates(&lines);
        assert_eq!(t[0], "denied key for <*> from <*> port <*>");
        assert_ne!(t[6], t[0]);
        assert_ne!(t[7], t[0]);
        // After a short header a trailing `<*>` stands for one token only.
        let mut lines: Vec<String> = (0..6).map(|k| format!("vm {k}: node{k}")).collect();
        lines.push("vm 7: disk detached".into());
        let t = templates(&lines);
        assert_ne!(t[6], t[0]);
    }
}
