//! The rule families, one module each; every rule is one `Rule` entry with its examples and
//! negatives beside it.

pub(crate) mod credentials;
pub(crate) mod kubernetes;
pub(crate) mod network;
pub(crate) mod process;
pub(crate) mod sql;
pub(crate) mod stack;
pub(crate) mod tokens;
