//! Regenerates the man pages (`man/`) and shell completions (`completions/`) from the clap
//! definition: `cargo run --example gen-docs` from the repository root, or
//! `cargo run --example gen-docs -- OUT_DIR` to write elsewhere.

mod generate;

use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let root = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    generate::generate(&root)?;
    eprintln!(
        "wrote {}/man and {}/completions",
        root.display(),
        root.display()
    );
    Ok(())
}
