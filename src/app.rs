//! The command-line application: parsed arguments in, exit code out.
//!
//! This is the edge where files and standard streams are touched. Each subcommand turns its
//! arguments into library calls, writes exactly one JSON document to standard output (or to
//! `-o FILE`, atomically), a one-line diagnostic to standard error when the call failed, and
//! returns the documented exit code. Panics are caught here and reported as `INTERNAL_ERROR`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::boundary::{CallOutcome, LegacySource, ToolBoundary, ToolCall, ToolRequest};
use crate::cli::{
    CallArgs, CheckArgs, Cli, Command, LedgerCommand, LedgerVerifyArgs, OutputArgs, PatternsArgs,
    RedactArgs, ReplayArgs, RulesArgs, SchemaArgs,
};
use crate::context::RunContext;
use crate::error::{ErrorCode, ToolError, exit};
use crate::render;

/// Runs the command, turning a panic into a safe internal error (exit 1).
pub fn run_guarded(cli: Cli) -> u8 {
    // The default hook would print the panic message, which may hold input: keep stderr safe.
    std::panic::set_hook(Box::new(|_| eprintln!("aciproj: internal error (a bug)")));
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(code) => code,
        Err(_) => {
            let body = serde_json::json!({"status": "ERROR", "error": {
                "stage": "projection", "code": ErrorCode::InternalError.as_str(),
                "message": "an unexpected internal error occurred"}});
            println!("{body}");
            exit::INTERNAL
        }
    }
}

/// Runs the command.
pub fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Rag(args) => {
            let request = ToolRequest::Rag { query: args.query };
            tool_call(args.call, request, args.response.as_deref(), &args.output)
        }
        Command::Logs(args) => {
            crate::redact::warm_up_in_background();
            let request = ToolRequest::Logs {
                topic: args.topic,
                query: args.query,
                lookback_minutes: args.lookback_minutes,
            };
            tool_call(args.call, request, args.response.as_deref(), &args.output)
        }
        Command::Patterns(args) => {
            crate::redact::warm_up_in_background();
            patterns_command(&args)
        }
        Command::Redact(args) => {
            crate::redact::warm_up_in_background();
            redact_command(&args)
        }
        Command::Rules(args) => rules_command(&args),
        Command::Check(args) => check(args),
        Command::Replay(args) => replay(args),
        Command::Schema(args) => schema(args),
        Command::Ledger(args) => match args.command {
            LedgerCommand::Verify(args) => ledger_verify(&args),
        },
    }
}

/// `ledger verify`: the report on stdout; 0 intact, 1 broken or head missing, 5 unreadable.
fn ledger_verify(args: &LedgerVerifyArgs) -> u8 {
    let bytes = match crate::boundary::chain::read(&args.ledger) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("aciproj: ledger verify: {e}");
            return exit::INPUT;
        }
    };
    let report = crate::boundary::chain::verify(&bytes, args.head.as_deref());
    let mut stdout = std::io::stdout().lock();
    let written = report.write(&mut stdout).and_then(|()| stdout.flush());
    match written {
        Err(_) => exit::INPUT,
        Ok(()) if report.is_intact() => exit::READY,
        Ok(()) => exit::MISMATCH,
    }
}

/// `check`: 0 when every case passed, 1 otherwise.
fn check(args: CheckArgs) -> u8 {
    let options = crate::check::CheckOptions {
        patterns: args.patterns,
        update: args.update,
    };
    let mut stdout = std::io::stdout().lock();
    match crate::check::run(&options, &mut stdout) {
        Ok(summary) if summary.failed == 0 => exit::READY,
        Ok(_) => exit::CASES_FAILED,
        Err(_) => {
            eprintln!("aciproj: check: cannot write the report");
            exit::CASES_FAILED
        }
    }
}

/// `replay`: 0 when every call was replayed (whatever their statuses) and, with `--verify`,
/// matches the ledger; 1 when one does not; 5 when the incident or the ledger cannot be read.
fn replay(args: ReplayArgs) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let replayed = match &args.verify {
        None => crate::replay::run(&args.incident, args.view, &mut stdout, &mut stderr)
            .map(|_| exit::READY),
        Some(ledger) => {
            crate::replay::run_verified(&args.incident, args.view, ledger, &mut stdout, &mut stderr)
                .map(|c| {
                    if c.all_match() {
                        exit::READY
                    } else {
                        exit::MISMATCH
                    }
                })
        }
    };
    match replayed {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(stderr, "aciproj: replay: {e}");
            exit::INPUT
        }
    }
}

/// `schema`: one schema, pretty, or the list of names.
fn schema(args: SchemaArgs) -> u8 {
    let text = match args.name {
        Some(name) => render::to_text(&crate::schema::schema_value(name), true),
        None => crate::schema::NAMES
            .iter()
            .map(|(_, n)| format!("{n}\n"))
            .collect(),
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::READY,
        Err(_) => exit::INPUT,
    }
}

fn tool_call(
    args: CallArgs,
    request: ToolRequest,
    response: Option<&Path>,
    out: &OutputArgs,
) -> u8 {
    let tool = request.tool();
    let call = ToolCall {
        tool_call_id: args.call_id,
        run_id: args.run_id,
        request,
    };
    let failed = |e: ToolError, context_run: Option<String>| {
        let run = call.run_id.clone().or(context_run);
        CallOutcome::failed(tool, run, Some(call.tool_call_id.clone()), e)
    };
    // The output file is prepared before the call so an unwritable destination fails before a
    // record is appended to the ledger.
    let staged = match out.output.as_deref().map(StagedOutput::create).transpose() {
        Ok(s) => s,
        Err(e) => return deliver(&failed(e, None), out, None),
    };
    let context = match RunContext::load(&args.context) {
        Ok(c) => c,
        Err(e) => return deliver(&failed(e, None), out, staged),
    };
    let mut boundary = ToolBoundary::new(context);
    let legacy = match response {
        None => LegacySource::Stdin,
        Some(p) if p == Path::new("-") => LegacySource::Stdin,
        Some(p) => LegacySource::File(p),
    };
    let outcome = boundary.execute(&call, legacy);
    deliver(&outcome, out, staged)
}

/// Writes the outcome and returns its exit code.
fn deliver(outcome: &CallOutcome, out: &OutputArgs, staged: Option<StagedOutput>) -> u8 {
    let doc = render::document(outcome, out.view, out.format);
    let text = render::to_text(&doc, out.pretty);
    if let Err(e) = outcome.result() {
        eprintln!("aciproj: {}: {}", e.code(), e.message());
    }
    match staged {
        None => {
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .is_err()
            {
                return exit::INPUT;
            }
            outcome.exit_code()
        }
        Some(staged) => match staged.commit(text.as_bytes()) {
            Ok(()) => outcome.exit_code(),
            Err(e) => {
                eprintln!("aciproj: {}: {}", e.code(), e.message());
                exit::INPUT
            }
        },
    }
}

/// An output file written atomically: a temporary file beside the target, renamed into place.
struct StagedOutput {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
}

fn unwritable() -> ToolError {
    ToolError::new(
        ErrorCode::OutputUnwritable,
        "the output file cannot be written",
    )
}

impl StagedOutput {
    fn create(target: &Path) -> Result<Self, ToolError> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if target.is_dir() {
            return Err(unwritable());
        }
        let temp = tempfile::Builder::new()
            .prefix(".aciproj-")
            .tempfile_in(dir)
            .map_err(|_| unwritable())?;
        Ok(Self {
            temp,
            target: target.to_owned(),
        })
    }

    fn commit(mut self, bytes: &[u8]) -> Result<(), ToolError> {
        self.temp.write_all(bytes).map_err(|_| unwritable())?;
        self.temp.as_file().sync_all().map_err(|_| unwritable())?;
        self.temp.persist(&self.target).map_err(|_| unwritable())?;
        Ok(())
    }
}

/// `aciproj patterns`: redact and fold raw log lines, printing JSON lines on stdout.
fn patterns_command(args: &PatternsArgs) -> u8 {
    let input: Box<dyn std::io::Read> = match args.file.as_deref() {
        None => Box::new(std::io::stdin().lock()),
        Some(p) if p == Path::new("-") => Box::new(std::io::stdin().lock()),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(f),
            Err(_) => {
                eprintln!("aciproj: the log file cannot be read");
                return exit::INPUT;
            }
        },
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let written = if args.assign {
        crate::fold::fold_lines(input).and_then(|folded| folded.write_assignments(&mut stdout))
    } else {
        crate::fold::fold_lines(input).and_then(|folded| folded.write_summary(&mut stdout))
    };
    match written.and_then(|()| stdout.flush()) {
        Ok(()) => exit::READY,
        Err(_) => {
            eprintln!("aciproj: the log lines could not be read or the patterns not written");
            exit::INPUT
        }
    }
}

/// `aciproj redact`: the catalogue as a line filter, stdin or FILE to stdout.
fn redact_command(args: &RedactArgs) -> u8 {
    let input: Box<dyn std::io::BufRead> = match args.file.as_deref() {
        None => Box::new(std::io::stdin().lock()),
        Some(p) if p == Path::new("-") => Box::new(std::io::stdin().lock()),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(std::io::BufReader::with_capacity(256 * 1024, f)),
            Err(e) => {
                eprintln!(
                    "aciproj: cannot read the log file {}: {}",
                    p.display(),
                    os_reason(&e)
                );
                return exit::INPUT;
            }
        },
    };
    let stdout = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    let options = crate::filter::FilterOptions { json: args.json };
    match crate::filter::filter_lines(crate::redact::Redactor::shared(), input, stdout, options) {
        Ok(stats) => {
            if args.stats {
                eprintln!("{}", serde_json::to_string(&stats).unwrap_or_default());
            }
            exit::READY
        }
        Err(crate::filter::FilterError::Read(e)) => {
            let name = args.file.as_deref().unwrap_or(Path::new("-")).display();
            eprintln!(
                "aciproj: cannot read the log file {name}: {}",
                os_reason(&e)
            );
            exit::INPUT
        }
        Err(crate::filter::FilterError::Write(e)) => {
            eprintln!("aciproj: cannot write standard output: {}", os_reason(&e));
            exit::INPUT
        }
    }
}

/// The operating system's reason, without the "(os error N)" tail.
fn os_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// `aciproj rules`: the catalogue, as a table or as JSON lines.
fn rules_command(args: &RulesArgs) -> u8 {
    let text = crate::redact::describe_catalogue(args.json);
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::READY,
        Err(_) => exit::INPUT,
    }
}
