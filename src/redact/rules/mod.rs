//! The rule families, one module each; every rule is one `Rule` entry with its examples and
//! negatives beside it.

pub(crate) mod credentials;
pub(crate) mod kubernetes;
pub(crate) mod network;
pub(crate) mod process;
pub(crate) mod sql;
pub(crate) mod stack;
pub(crate) mod tables;
pub(crate) mod tokens;

use super::text::Edit;
use crate::matcher::Matcher;

/// Replaces every capture group of every match of `re` with `placeholder`, but the groups whose
/// text `keep` holds (PID 1, a number that is no id): the pass of the rules whose pattern says
/// all there is to say.
pub(crate) fn replace_groups(
    re: &Matcher,
    s: &str,
    placeholder: &str,
    keep: fn(&str) -> bool,
    hits: &mut u32,
) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in re.captures_iter(s) {
        for m in (1..caps.group_count()).filter_map(|g| caps.get(g)) {
            if !keep(m.as_str()) && e.replace(m.start(), m.end(), placeholder) {
                *hits += 1;
            }
        }
    }
    e.finish()
}
