//! The rules' DFAs, built at build time and read in place from the binary.
//!
//! The build script (`build.rs`) reads the rules' source, and for each pattern given to
//! `Matcher::new` there whose DFAs are small enough writes its forward and reverse dense DFAs
//! (minimized, little-endian, as regex-automata serializes them) to `prebuilt.dfa` in
//! `OUT_DIR`, and `prebuilt_index.rs` beside it says where each starts, keyed by the pattern's
//! text. A pattern the build script could not read is simply not found, and gets compiled at
//! start-up. Nothing here is committed, so nothing here can be stale.

use regex_automata::dfa::{dense, regex::Regex};

/// Bytes aligned for the `u32` transition tables the DFAs are read as.
#[repr(C)]
struct AlignAs<A, B: ?Sized> {
    _align: [A; 0],
    bytes: B,
}

static BLOB: &AlignAs<u32, [u8]> = &AlignAs {
    _align: [],
    bytes: *include_bytes!(concat!(env!("OUT_DIR"), "/prebuilt.dfa")),
};

// `INDEX`: per distinct pattern the build script read, (pattern, forward start, reverse start,
// end) in `BLOB`; the three equal when its DFAs were too big to keep.
include!(concat!(env!("OUT_DIR"), "/prebuilt_index.rs"));

/// The stored pattern equal to `pattern`, and its DFAs, if they were built ahead of time.
pub(super) fn find(pattern: &str) -> Option<(&'static str, Regex<dense::DFA<&'static [u32]>>)> {
    let &(stored, fwd, rev, end) = INDEX.iter().find(|entry| entry.0 == pattern)?;
    let forward = read(BLOB.bytes.get(fwd..rev)?)?;
    let reverse = read(BLOB.bytes.get(rev..end)?)?;
    Some((stored, Regex::builder().build_from_dfas(forward, reverse)))
}

/// Reads one DFA in place without checking its transitions, so that start-up neither spends
/// about 0.55 µs a KiB on the check nor touches pages of the DFAs a call never searches. The
/// header still is checked: bytes from another regex-automata format, version or endianness
/// are refused, and the pattern is compiled.
#[allow(unsafe_code)]
fn read(bytes: &'static [u8]) -> Option<dense::DFA<&'static [u32]>> {
    if bytes.is_empty() {
        return None;
    }
    // SAFETY: `bytes` is a slice of `BLOB`, which is `include_bytes!` of `prebuilt.dfa` in this
    // build's `OUT_DIR`, and `INDEX` the offsets written beside it. The build script of this
    // same build wrote both, from `to_bytes_little_endian` of DFAs that the regex-automata
    // Cargo.lock pins built, then read the file back and ran every DFA, at exactly the offsets
    // it wrote into `INDEX`, through the checked `dense::DFA::from_bytes`, and fails the build
    // if one is invalid. So every slice read here was checked, in this build, as these bytes.
    let (dfa, _) = unsafe { dense::DFA::from_bytes_unchecked(bytes) }.ok()?;
    Some(dfa)
}

/// A pattern's forward and reverse DFAs as stored.
#[cfg(test)]
type Stored = (&'static [u8], &'static [u8]);

/// Every stored entry, for the tests.
#[cfg(test)]
pub(super) fn entries() -> impl Iterator<Item = (&'static str, Option<Stored>)> {
    INDEX.iter().map(|&(p, fwd, rev, end)| {
        let dfas = (fwd != end).then(|| (&BLOB.bytes[fwd..rev], &BLOB.bytes[rev..end]));
        (p, dfas)
    })
}
