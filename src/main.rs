//! The `aciproj` binary: a thin clap layer over the library.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = aciproj::cli::Cli::parse();
    ExitCode::from(aciproj::app::run_guarded(cli))
}
