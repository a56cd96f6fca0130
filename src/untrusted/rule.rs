//! What every flag rule declares, in the shape of a redaction rule (`redact::rule`).
//!
//! A flag rule is one mechanism by which text addresses the model (`override.disregard`,
//! `exfil.markdown`, `hidden.tag-characters`): its stable id, a one-line description, the
//! keywords that let the prefilter skip it, how it decides, and its own examples (texts the
//! whole scanner must flag with this id) and negatives (texts the whole scanner must leave
//! unflagged). One generic test runs every rule's examples and negatives, so a rule cannot claim
//! what it does not do, and its negatives are the operational imperatives it must let through.

/// How a rule decides on one string (already normalized when it holds non-ASCII text).
#[derive(Clone, Copy)]
pub(crate) enum Test {
    /// Fires when any of these patterns (case-insensitive, Unicode) matches.
    Patterns(&'static [&'static str]),
    /// Fires when the function says so on the normalized string.
    Normalized(fn(&str) -> bool),
    /// Fires when the function says so; it reads the raw, unnormalized string.
    Raw(fn(&str) -> bool),
}

/// One flag rule of the catalogue.
pub struct FlagRule {
    /// Stable id, `family.form`; counted per id in the control view's `untrusted.by_rule`.
    pub id: &'static str,
    /// What it flags, in one line.
    pub description: &'static str,
    /// ASCII case-insensitive keywords (non-ASCII ones exact): the patterns run only on a
    /// string holding one of them. Empty: the rule's own test always runs (it must be cheap).
    pub keywords: &'static [&'static str],
    pub(crate) test: Test,
    /// Texts the whole scanner flags with this rule's id.
    pub examples: &'static [&'static str],
    /// Texts the whole scanner flags with no rule at all.
    pub negatives: &'static [&'static str],
}

impl std::fmt::Debug for FlagRule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlagRule").field("id", &self.id).finish()
    }
}
