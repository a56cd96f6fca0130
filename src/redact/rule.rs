//! What every redaction rule declares, in one place.
//!
//! A rule is one format family (`credential.cli-flag`, `pid.bracket`, `stack.python`): its
//! stable id, the class it counts under and the placeholder it writes, a one-line description,
//! the keywords that let the prefilter skip it, a byte-level gate, the pass that edits a
//! message, and its own examples (input → exact output of the whole redactor) and negatives
//! (inputs the whole redactor must leave unchanged). Adding a rule is adding one entry to its
//! family's table: the prefilter automaton is built from the rules' keywords, and one generic
//! test runs every rule's examples and negatives (see `catalogue` tests in `mod.rs`).
//!
//! Examples hold through the *whole* redactor, not the rule alone: that is what a user of
//! `aciproj redact` sees, and it keeps a rule honest about how it meets the others.

use std::sync::LazyLock;

use super::RedactionClass;
use super::prefilter::Features;
use crate::matcher::Matcher;

/// One example of a rule: what the whole redactor makes of `input`.
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// A log line the rule applies to.
    pub input: &'static str,
    /// The exact output of the redactor on it.
    pub output: &'static str,
}

/// `ex("in", "out")`: an [`Example`], short enough for a table.
pub(crate) const fn ex(input: &'static str, output: &'static str) -> Example {
    Example { input, output }
}

/// A rule's pass: edits one message, counting each replacement in `hits`; `None` when it found
/// nothing (and then it allocated nothing).
pub(crate) type Pass = fn(&str, &mut u32) -> Option<String>;

/// A byte-level necessary condition of a rule (see [`Features`]).
pub(crate) type Gate = fn(&Features) -> bool;

/// One redaction rule of the catalogue.
pub struct Rule {
    /// Stable id, `family.form` (`credential.cli-flag`); counted per id in the control view.
    pub id: &'static str,
    /// The class its replacements count under.
    pub class: RedactionClass,
    /// The placeholder it writes (`<STR>/<NUM>` for the SQL rules that write either).
    pub placeholder: &'static str,
    /// What it redacts, in one line.
    pub description: &'static str,
    /// ASCII case-insensitive keywords (non-ASCII ones exact): the rule runs only on a message
    /// holding one of them outside a placeholder. Empty: the gate alone decides.
    pub keywords: &'static [&'static str],
    pub(crate) gate: Gate,
    pub(crate) pass: Pass,
    /// The compiled patterns it uses, for warm-up and for the byte/Unicode agreement test.
    pub(crate) matchers: &'static [&'static LazyLock<Matcher>],
    /// Inputs and the exact output of the whole redactor on them.
    pub examples: &'static [Example],
    /// Inputs the whole redactor leaves unchanged.
    pub negatives: &'static [&'static str],
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule").field("id", &self.id).finish()
    }
}

/// The gate of a rule that needs nothing but its keywords.
pub(crate) fn always(_: &Features) -> bool {
    true
}
