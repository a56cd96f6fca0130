//! Builds, into `OUT_DIR`, what the redaction rules would otherwise build at every start-up:
//! the dense DFAs of their patterns (`prebuilt.dfa`, `prebuilt_index.rs`, read by
//! `src/matcher/prebuilt.rs`) and the keyword automaton of their keywords (`keywords.table`,
//! read by `src/redact/prefilter.rs`). Both come from the rules' own source text
//! (`build/rule_source.rs`), so nothing generated is committed and nothing can be stale.
//!
//! Minimizing the largest DFAs takes seconds, so each pattern's DFAs are kept in `OUT_DIR`
//! under a hash of the pattern and of this build script's own binary: a rebuild after an edit
//! to a rule's examples or code builds only the patterns that changed. Whatever was built or
//! kept, every DFA is read back from the file written and checked with the checked
//! `dense::DFA::from_bytes` before the build goes on; that check is what lets the crate read
//! them unchecked.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use regex_automata::dfa::dense;
use regex_automata::util::syntax;
use sha2::{Digest, Sha256};

#[allow(
    dead_code,
    reason = "the build only builds and writes tables; the crate walks them"
)]
#[path = "src/redact/keytable.rs"]
mod keytable;

#[path = "build/rule_source.rs"]
mod rule_source;

/// A pattern's DFAs are kept when both together serialize to at most this many bytes. They are
/// read unchecked, so a kept DFA costs start-up nothing but the pages a search touches; the cap
/// only bounds the binary. The largest kept, the password phrase's 5 MiB, is searched by most
/// calls that mention a password, and compiling it instead cost the calling thread 1.3M
/// instructions.
const MAX_PREBUILT_BYTES: usize = 8 << 20;

/// A pattern's forward and reverse DFAs, serialized.
type Dfas = (Vec<u8>, Vec<u8>);

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    let source = rule_source::read(&root);
    for file in ["build.rs", "build/rule_source.rs", "src/redact/keytable.rs"] {
        println!("cargo:rerun-if-changed={file}");
    }
    for file in &source.files {
        let file = file.strip_prefix(&root).unwrap_or(file);
        println!("cargo:rerun-if-changed={}", file.display());
    }
    write_dfas(&source.patterns, &out);
    write_keyword_table(&source.catalogue, &out);
}

/// The syntax the crate compiles the rules with (`syntax_config` in src/matcher.rs): over
/// bytes, as that module's documentation explains.
fn syntax_config() -> syntax::Config {
    syntax::Config::new().unicode(false).utf8(false)
}

/// The forward and reverse DFAs of `pattern`, serialized, or `None` when they are too big.
fn build_dfas(pattern: &str) -> Option<Dfas> {
    use regex_automata::dfa::regex::Builder;
    let dense = dense::Config::new()
        .minimize(true)
        .dfa_size_limit(Some(64 << 20))
        .determinize_size_limit(Some(64 << 20));
    let re = Builder::new()
        .syntax(syntax_config())
        .dense(dense)
        .build(pattern)
        .ok()?;
    let (fwd, fwd_pad) = re.forward().to_bytes_little_endian();
    let (rev, rev_pad) = re.reverse().to_bytes_little_endian();
    let (fwd, rev) = (fwd[fwd_pad..].to_vec(), rev[rev_pad..].to_vec());
    (fwd.len() + rev.len() <= MAX_PREBUILT_BYTES).then_some((fwd, rev))
}

/// What this build script is: a kept DFA built by another one (another regex-automata, another
/// configuration) is not reused.
fn this_build_script() -> [u8; 32] {
    let exe = std::env::current_exe().and_then(std::fs::read);
    Sha256::digest(exe.expect("the build script reads itself")).into()
}

/// The DFAs of `pattern`, kept in `cache` from an earlier run or built now. A kept file holds
/// the forward DFA's length (8 bytes), the forward DFA, then the reverse; an empty file says
/// they were too big.
fn dfas(pattern: &str, cache: &Path, script: &[u8; 32]) -> Option<Dfas> {
    let mut h = Sha256::new();
    h.update(script);
    h.update(pattern.as_bytes());
    let name: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let path = cache.join(name);
    if let Ok(kept) = std::fs::read(&path) {
        if kept.is_empty() {
            return None;
        }
        if let Some((len, rest)) = kept.split_first_chunk::<8>() {
            let len = usize::try_from(u64::from_le_bytes(*len)).unwrap_or(usize::MAX);
            if len <= rest.len() {
                let (fwd, rev) = rest.split_at(len);
                return Some((fwd.to_vec(), rev.to_vec()));
            }
        }
    }
    let built = build_dfas(pattern);
    let mut file = Vec::new();
    if let Some((fwd, rev)) = &built {
        file.extend_from_slice(&(fwd.len() as u64).to_le_bytes());
        file.extend_from_slice(fwd);
        file.extend_from_slice(rev);
    }
    std::fs::write(&path, file).expect("keeps the DFAs in OUT_DIR");
    built
}

/// Writes `prebuilt.dfa` and `prebuilt_index.rs` for `patterns`, building the DFAs on every
/// core, and checks every DFA in the file written.
fn write_dfas(patterns: &[String], out: &Path) {
    let cache = out.join("dfa-cache");
    std::fs::create_dir_all(&cache).expect("creates OUT_DIR/dfa-cache");
    let script = this_build_script();
    let built: Vec<Mutex<Option<Dfas>>> = patterns.iter().map(|_| Mutex::new(None)).collect();
    // The longest patterns first: they are the slow ones (the password phrase alone is most of
    // the time), and started last they would leave one core idle at the end.
    let mut order: Vec<usize> = (0..patterns.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(patterns[i].len()));
    let next = AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(patterns.len()) {
            scope.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let dfas = dfas(&patterns[i], &cache, &script);
                    *built[i].lock().expect("no builder panicked") = dfas;
                }
            });
        }
    });

    let mut blob: Vec<u8> = Vec::new();
    let mut entries = Vec::new();
    for (p, dfas) in patterns.iter().zip(built) {
        let (fwd_at, rev_at) = match dfas.into_inner().expect("no builder panicked") {
            Some((fwd, rev)) => {
                let fwd_at = blob.len();
                blob.extend_from_slice(&fwd);
                blob.resize(blob.len().next_multiple_of(8), 0);
                let rev_at = blob.len();
                blob.extend_from_slice(&rev);
                (fwd_at, rev_at)
            }
            None => (blob.len(), blob.len()),
        };
        let end = blob.len();
        blob.resize(blob.len().next_multiple_of(8), 0);
        entries.push((p, fwd_at, rev_at, end));
    }
    let mut index = String::from(
        "// @generated by build.rs from the rules' patterns.\n\
         static INDEX: &[(&str, usize, usize, usize)] = &[\n",
    );
    for (p, fwd_at, rev_at, end) in &entries {
        index.push_str(&format!("    ({p:?}, {fwd_at}, {rev_at}, {end}),\n"));
    }
    index.push_str("];\n");
    let blob_path = out.join("prebuilt.dfa");
    std::fs::write(&blob_path, &blob).expect("writes prebuilt.dfa");
    std::fs::write(out.join("prebuilt_index.rs"), index).expect("writes prebuilt_index.rs");

    // The file as the crate will include it, at an address aligned as its `AlignAs<u32, _>`
    // aligns it, and every DFA at the offsets the index gives.
    let written = std::fs::read(&blob_path).expect("reads prebuilt.dfa back");
    let mut room = vec![0u8; written.len() + 8];
    let at = room.as_ptr().align_offset(8);
    let aligned = &mut room[at..at + written.len()];
    aligned.copy_from_slice(&written);
    for (p, fwd_at, rev_at, end) in entries {
        if fwd_at == end {
            continue;
        }
        for range in [fwd_at..rev_at, rev_at..end] {
            if let Err(e) = dense::DFA::from_bytes(&aligned[range]) {
                panic!("the DFAs built for {p:?} do not read back: {e}");
            }
        }
    }
}

/// Writes `keywords.table`: the keyword tables of the catalogue's rules, in catalogue order.
/// A rule whose keywords were not read counts as having none, so the table's fingerprint is
/// not the catalogue's and a start-up builds its own; a test fails and says why.
fn write_keyword_table(catalogue: &[(String, Option<Vec<String>>)], out: &Path) {
    for (rule, keywords) in catalogue {
        if keywords.is_none() {
            println!("cargo:warning=build.rs cannot read the keywords of {rule}");
        }
    }
    let lists: Vec<Vec<&str>> = catalogue
        .iter()
        .map(|(_, k)| k.iter().flatten().map(String::as_str).collect())
        .collect();
    let lists: Vec<&[&str]> = lists.iter().map(Vec::as_slice).collect();
    let bytes = keytable::build_tables(&lists).write(&lists);
    std::fs::write(out.join("keywords.table"), bytes).expect("writes keywords.table");
}
