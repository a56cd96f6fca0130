//! The benchmark floor: read a file whole and parse it with `serde_json::from_slice` into
//! `IgnoredAny`.
//!
//! `cargo run --release --example floor -- FILE`. This is the least a tool that must look at
//! every byte of a JSON response can do: one read, the fastest serde_json parse, nothing kept.
//! Parsing through `from_reader` instead is about 2.7x slower and would flatter every ratio;
//! the bench script reports aciproj's time as a multiple of this one.

fn main() {
    let path = std::env::args().nth(1).expect("usage: floor FILE");
    let bytes = std::fs::read(path).expect("cannot read the file");
    let parsed: Result<serde::de::IgnoredAny, _> = serde_json::from_slice(&bytes);
    if parsed.is_err() {
        std::process::exit(1);
    }
}
