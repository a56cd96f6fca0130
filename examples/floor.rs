//! The benchmark floor: read a file and parse it with serde_json into `IgnoredAny`.
//!
//! `cargo run --release --example floor -- FILE`. Whatever aciproj does on top of this is the
//! price of the projection; the bench script reports aciproj's time as a multiple of this one.

use std::io::BufReader;

fn main() {
    let path = std::env::args().nth(1).expect("usage: floor FILE");
    let file = std::fs::File::open(path).expect("cannot open the file");
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(64 * 1024, file));
    let parsed: Result<serde::de::IgnoredAny, _> = serde::Deserialize::deserialize(&mut de);
    if parsed.is_err() {
        std::process::exit(1);
    }
}
