//! The `aciproj` binary: a thin clap layer over the library.

use std::process::ExitCode;

use clap::Parser;

mod app;

fn main() -> ExitCode {
    let cli = aciproj::cli::Cli::parse();
    ExitCode::from(app::run_guarded(cli))
}
