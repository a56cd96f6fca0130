//! The command-line application: parsed arguments in, exit code out.
//!
//! This module is the binary's, not the library's: it owns the process (standard streams, the
//! panic hook, a second core for the warm-up and the logs pipeline), which a library call never
//! touches unless asked.
//!
//! This is the edge where files and standard streams are touched. Each subcommand turns its
//! arguments into library calls, writes exactly one JSON document to standard output (or to
//! `-o FILE`, atomically), a one-line diagnostic to standard error when the call failed, and
//! returns the documented exit code. Panics are caught here and reported as `INTERNAL_ERROR`.

use std::io::Write;
use std::path::{Path, PathBuf};

use aciproj::boundary::{
    CallOutcome, LegacyCommand, LegacySource, ToolBoundary, ToolCall, ToolRequest,
};
use aciproj::cli::{
    CallArgs, CheckArgs, Cli, Command, Format, LedgerCommand, LedgerVerifyArgs, LiveArgs,
    OutputArgs, PatternsArgs, RedactArgs, ReplayArgs, RulesArgs, RulesCommand, SchemaArgs,
};
use aciproj::context::RunContext;
use aciproj::error::{ErrorCode, ToolError, exit, os_reason};
use aciproj::render;

/// Runs the command, turning a panic into a safe internal error (exit 1).
///
/// The process is the binary's, so this is where its panic hook is installed: the default hook
/// would print the panic message, which may hold input, so stderr stays safe.
pub fn run_guarded(cli: Cli) -> u8 {
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
fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Rag(args) => {
            let request = ToolRequest::Rag { query: args.query };
            let legacy = Legacy::of(args.response.as_deref(), &args.live);
            tool_call(args.call, request, legacy, &args.output)
        }
        Command::Logs(args) => {
            aciproj::redact::warm_up_in_background();
            let request = ToolRequest::Logs {
                topic: args.topic,
                query: args.query,
                lookback_minutes: args.lookback_minutes,
            };
            let legacy = Legacy::of(args.response.as_deref(), &args.live);
            tool_call(args.call, request, legacy, &args.output)
        }
        Command::Patterns(args) => {
            aciproj::redact::warm_up_in_background();
            patterns_command(&args)
        }
        Command::Redact(args) => {
            aciproj::redact::warm_up_in_background();
            redact_command(&args)
        }
        Command::Rules(args) => rules_command(&args),
        Command::Check(args) => {
            aciproj::redact::warm_up_in_background();
            check(args)
        }
        Command::Replay(args) => {
            aciproj::redact::warm_up_in_background();
            replay(args)
        }
        Command::Schema(args) => schema(args),
        Command::Ledger(args) => match args.command {
            LedgerCommand::Verify(args) => ledger_verify(&args),
        },
        Command::Help(args) => help(&args.command),
    }
}

/// `ledger verify`: the report on stdout; 0 intact, 1 broken or head missing, 5 unreadable.
fn ledger_verify(args: &LedgerVerifyArgs) -> u8 {
    let report = match aciproj::verify_ledger(&args.ledger, args.head.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("aciproj: ledger verify: {e}");
            return exit::INPUT;
        }
    };
    let mut stdout = std::io::stdout().lock();
    let written = report.write(&mut stdout).and_then(|()| stdout.flush());
    match written {
        Err(_) => exit::INPUT,
        Ok(()) if report.is_intact() => exit::READY,
        Ok(()) => exit::MISMATCH,
    }
}

/// `help [COMMAND…]`: the long help of aciproj or of the named subcommand, on stdout.
fn help(path: &[String]) -> u8 {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    cmd.build();
    let mut target = &mut cmd;
    for name in path {
        if target.find_subcommand(name).is_none() {
            return usage_error("help", &format!("no such command: `{name}`"));
        }
        target = target.find_subcommand_mut(name).expect("looked up above");
    }
    match target.print_long_help() {
        Ok(()) => exit::READY,
        Err(_) => exit::INPUT,
    }
}

/// `check`: 0 when every case passed, 1 otherwise; 5 when the JUnit file cannot be written.
fn check(args: CheckArgs) -> u8 {
    let options = aciproj::CheckOptions {
        patterns: args.patterns,
        update: args.update,
        junit: args.junit,
    };
    let mut stdout = std::io::stdout().lock();
    match aciproj::run_check(&options, &mut stdout) {
        Ok(summary) if summary.failed == 0 => exit::READY,
        Ok(_) => exit::CASES_FAILED,
        Err(e @ aciproj::CheckFailure::Junit { .. }) => {
            eprintln!("aciproj: check: {e}");
            exit::INPUT
        }
        Err(e) => {
            eprintln!("aciproj: check: {e}");
            exit::CASES_FAILED
        }
    }
}

/// `replay`: 0 when every call was replayed (whatever their statuses) and, with `--verify`,
/// matches the ledger; 1 when one does not; 5 when the incident or the ledger cannot be read.
fn replay(args: ReplayArgs) -> u8 {
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    let options = aciproj::ReplayOptions {
        incident: args.incident,
        view: args.view,
        verify: args.verify,
        report: args.report,
    };
    let replayed = aciproj::replay_incident(&options, &mut stdout, &mut stderr).map(|report| {
        match report.comparison {
            Some(c) if !c.all_match() => exit::MISMATCH,
            _ => exit::READY,
        }
    });
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
        Some(name) => render::to_text(&aciproj::schema::schema_value(name), true),
        None => aciproj::schema::NAMES
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

/// Whether a path argument names a standard stream.
fn is_stream(path: &Path) -> bool {
    path == Path::new("-")
}

/// A usage error found after parsing (exit 2), printed the way clap prints its own, with the
/// subcommand's usage line.
fn usage_error(subcommand: &str, message: &str) -> u8 {
    use clap::CommandFactory;
    let mut cmd = aciproj::cli::Cli::command();
    cmd.build();
    let kind = clap::error::ErrorKind::ArgumentConflict;
    let e = match cmd.find_subcommand_mut(subcommand) {
        Some(sub) => sub.error(kind, message),
        None => cmd.error(kind, message),
    };
    let _ = e.print();
    exit::USAGE
}

/// Where a tool call's legacy response comes from, as the command line gave it.
enum Legacy<'a> {
    /// A file, or standard input for none or `-`; and a `--capture` given without a command.
    Captured(Option<&'a Path>, bool),
    /// The command after `--`, and where to keep what it returned.
    Live {
        command: &'a [std::ffi::OsString],
        capture: Option<&'a Path>,
    },
}

impl<'a> Legacy<'a> {
    fn of(response: Option<&'a Path>, live: &'a LiveArgs) -> Self {
        match live.command.as_slice() {
            [] => Legacy::Captured(response, live.capture.is_some()),
            command => Legacy::Live {
                command,
                capture: live.capture.as_deref(),
            },
        }
    }

    fn on_stdin(&self) -> bool {
        matches!(self, Legacy::Captured(r, _) if r.is_none_or(is_stream))
    }

    fn stray_capture(&self) -> bool {
        matches!(self, Legacy::Captured(_, true))
    }
}

fn tool_call(args: CallArgs, request: ToolRequest, legacy: Legacy<'_>, out: &OutputArgs) -> u8 {
    if legacy.stray_capture() {
        return usage_error(
            request.tool().name(),
            "`--capture` keeps what a live legacy command returned: give the command after `--`",
        );
    }
    let context_on_stdin = is_stream(&args.context);
    if context_on_stdin && legacy.on_stdin() {
        return usage_error(
            request.tool().name(),
            "`--context -` reads the run context from standard input, so RESPONSE must be a file \
             (or the legacy command follow `--`)",
        );
    }
    if out.format == Format::Mcp && out.view.is_some() {
        return usage_error(
            request.tool().name(),
            "`--format mcp` always carries the model observation and the control view; \
             leave out `--view`",
        );
    }
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
    // The output file (and the capture file) is prepared before the call so an unwritable
    // destination fails before a record is appended to the ledger or the command is started.
    let target = out.output.as_deref().filter(|p| !is_stream(p));
    let staged = match target.map(StagedOutput::create).transpose() {
        Ok(s) => s,
        Err(e) => return deliver(&failed(e, None), out, None),
    };
    let capture_target = match &legacy {
        Legacy::Live { capture, .. } => *capture,
        Legacy::Captured(..) => None,
    };
    let mut capture = match capture_target.map(Capture::create).transpose() {
        Ok(c) => c,
        Err(e) => return deliver(&failed(e, None), out, staged),
    };
    let context = if context_on_stdin {
        // A ledger named by a context on standard input is relative to the current folder.
        RunContext::load_reader(std::io::stdin().lock(), Path::new(""))
    } else {
        RunContext::load(&args.context)
    };
    let context = match context {
        Ok(c) => c,
        Err(e) => return deliver(&failed(e, None), out, staged),
    };
    // The command line owns its process, so a logs call may use the second core.
    let mut boundary = ToolBoundary::new(context).parallel(true);
    let outcome = match legacy {
        Legacy::Captured(Some(p), _) if !is_stream(p) => {
            boundary.execute(&call, LegacySource::File(p))
        }
        Legacy::Captured(..) => boundary.execute(&call, LegacySource::Stdin),
        Legacy::Live { command, .. } => {
            let (program, args) = command.split_first().expect("a live command is not empty");
            let mut command = LegacyCommand::new(program, args);
            if let Some(c) = capture.as_mut() {
                command = command.capture(c);
            }
            boundary.execute(&call, LegacySource::Live(&mut command))
        }
    };
    let kept = capture.map(|c| c.keep(&outcome)).unwrap_or(Ok(()));
    let code = deliver(&outcome, out, staged);
    match kept {
        Ok(()) => code,
        Err(e) => {
            diagnose(&e);
            exit::INPUT
        }
    }
}

/// The `--capture` file: a temporary file (mode 0600) beside the target, renamed into place
/// only when the command's output is its whole answer (it exited 0 within its bounds), so a
/// capture never holds a cut-off response that replay would read as the tool's.
struct Capture {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
    /// The first failed write: the capture is then not kept.
    failed: Option<std::io::Error>,
}

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let written = self.temp.write(buf);
        if let Err(e) = &written {
            self.failed
                .get_or_insert_with(|| std::io::Error::new(e.kind(), os_reason(e)));
        }
        written
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.temp.flush()
    }
}

fn capture_unwritable(target: &Path, reason: &str) -> ToolError {
    ToolError::new(
        ErrorCode::OutputUnwritable,
        "the capture file cannot be written",
    )
    .with_diagnostic(format!(
        "cannot write the capture file {}: {reason}",
        target.display()
    ))
}

impl Capture {
    fn create(target: &Path) -> Result<Self, ToolError> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        if target.is_dir() {
            return Err(capture_unwritable(target, "Is a directory"));
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".aciproj-capture-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // The response may hold secrets the projection redacts: owner only, whatever the
            // umask.
            builder.permissions(std::fs::Permissions::from_mode(0o600));
        }
        let temp = builder
            .tempfile_in(dir)
            .map_err(|e| capture_unwritable(target, &os_reason(&e)))?;
        Ok(Self {
            temp,
            target: target.to_owned(),
            failed: None,
        })
    }

    /// Renames the capture into place when the command's output was its whole answer; otherwise
    /// the temporary file is removed and the target left as it was.
    fn keep(mut self, outcome: &CallOutcome) -> Result<(), ToolError> {
        let control = outcome.control_view();
        let stopped = control.error.is_some_and(|e| {
            matches!(
                e.code,
                ErrorCode::LegacyTimeout
                    | ErrorCode::LegacyFailed
                    | ErrorCode::ResponseTooLarge
                    | ErrorCode::LegacyCommandUnavailable
            )
        });
        if control.legacy_exit != Some(0) || stopped {
            if control.legacy_exit.is_some() {
                eprintln!(
                    "aciproj: the capture file {} was not written: the legacy command's output \
                     is not a whole answer",
                    self.target.display()
                );
            }
            return Ok(());
        }
        let target = self.target.clone();
        let fail = |e: std::io::Error| capture_unwritable(&target, &os_reason(&e));
        if let Some(e) = self.failed.take() {
            return Err(fail(e));
        }
        self.temp.flush().map_err(fail)?;
        self.temp.as_file().sync_all().map_err(fail)?;
        self.temp.persist(&self.target).map_err(|e| fail(e.error))?;
        Ok(())
    }
}

/// The one-line diagnostic of a failed call: the operator's detail (a path and the operating
/// system's reason, a position) when the failing layer had one, else the safe code and message.
fn diagnose(e: &ToolError) {
    match e.diagnostic() {
        Some(d) => eprintln!("aciproj: {d}"),
        None => eprintln!("aciproj: {}: {}", e.code(), e.message()),
    }
}

/// Writes the outcome and returns its exit code.
fn deliver(outcome: &CallOutcome, out: &OutputArgs, staged: Option<StagedOutput>) -> u8 {
    let doc = render::document(outcome, out.view.unwrap_or_default(), out.format);
    let text = render::to_text(&doc, out.pretty);
    if let Err(e) = outcome.result() {
        diagnose(e);
    }
    match staged {
        None => {
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
            {
                eprintln!("aciproj: cannot write standard output: {}", os_reason(&e));
                return exit::INPUT;
            }
            outcome.exit_code()
        }
        Some(staged) => match staged.commit(text.as_bytes()) {
            Ok(()) => outcome.exit_code(),
            Err(e) => {
                diagnose(&e);
                exit::INPUT
            }
        },
    }
}

/// An output file written atomically: a temporary file beside the target, renamed into place.
/// A new file gets the mode the umask gives any new file; an existing file keeps its own.
struct StagedOutput {
    temp: tempfile::NamedTempFile,
    target: PathBuf,
}

fn unwritable(target: &Path, reason: &str) -> ToolError {
    ToolError::new(
        ErrorCode::OutputUnwritable,
        "the output file cannot be written",
    )
    .with_diagnostic(format!(
        "cannot write the output file {}: {reason}",
        target.display()
    ))
}

impl StagedOutput {
    fn create(target: &Path) -> Result<Self, ToolError> {
        let fail = |e: std::io::Error| unwritable(target, &os_reason(&e));
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let existing = match std::fs::metadata(target) {
            Ok(m) if m.is_dir() => return Err(unwritable(target, "Is a directory")),
            Ok(m) => Some(m.permissions()),
            Err(_) => None,
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".aciproj-");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            // Passed to open(2), so the umask applies, as it would to any new file.
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        let temp = builder.tempfile_in(dir).map_err(fail)?;
        if let Some(permissions) = existing {
            // Exactly the target's mode, not masked: replacing the file must not change it.
            temp.as_file().set_permissions(permissions).map_err(fail)?;
        }
        Ok(Self {
            temp,
            target: target.to_owned(),
        })
    }

    fn commit(mut self, bytes: &[u8]) -> Result<(), ToolError> {
        let target = self.target.clone();
        let fail = |e: std::io::Error| unwritable(&target, &os_reason(&e));
        self.temp.write_all(bytes).map_err(fail)?;
        self.temp.as_file().sync_all().map_err(fail)?;
        self.temp.persist(&self.target).map_err(|e| fail(e.error))?;
        Ok(())
    }
}

/// The log file of `patterns` and `redact`, or standard input for none or `-`; a file that
/// cannot be opened is named with the reason on stderr (exit 5).
fn open_log_input(file: Option<&Path>) -> Result<Box<dyn std::io::BufRead>, u8> {
    match file {
        None => Ok(Box::new(std::io::stdin().lock())),
        Some(p) if is_stream(p) => Ok(Box::new(std::io::stdin().lock())),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Ok(Box::new(std::io::BufReader::with_capacity(256 * 1024, f))),
            Err(e) => {
                eprintln!(
                    "aciproj: cannot read the log file {}: {}",
                    p.display(),
                    os_reason(&e)
                );
                Err(exit::INPUT)
            }
        },
    }
}

/// The redactor of `--rules FILE`: built-in rules and the file's, every example checked; a file
/// that does not load is named with the rule and the reason on stderr (exit 5), and nothing is
/// redacted.
/// The redactor a rules file loaded, or the built-in one.
fn redactor_of(loaded: &Option<aciproj::redact::Redactor>) -> &aciproj::redact::Redactor {
    loaded
        .as_ref()
        .unwrap_or_else(|| aciproj::redact::Redactor::shared())
}

fn load_rules(file: Option<&Path>) -> Result<Option<aciproj::redact::Redactor>, u8> {
    match file {
        None => Ok(None),
        Some(path) => match aciproj::redact::Redactor::from_rules_file(path) {
            Ok(redactor) => Ok(Some(redactor)),
            Err(e) => {
                eprintln!("aciproj: {e}");
                Err(exit::INPUT)
            }
        },
    }
}

/// `aciproj patterns`: redact and fold raw log lines, printing JSON lines on stdout.
fn patterns_command(args: &PatternsArgs) -> u8 {
    let loaded = match load_rules(args.rules.as_deref()) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let redactor = redactor_of(&loaded);
    let input = match open_log_input(args.file.as_deref()) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let folded = aciproj::fold::fold_lines_with(redactor, input, true);
    let written = if args.assign {
        folded.and_then(|folded| folded.write_assignments(&mut stdout))
    } else {
        folded.and_then(|folded| folded.write_summary(&mut stdout))
    };
    match written.and_then(|()| stdout.flush()) {
        Ok(()) => exit::READY,
        Err(e) => {
            let what = match args.file.as_deref().filter(|p| !is_stream(p)) {
                Some(p) => format!("the log file {}", p.display()),
                None => "standard input".to_owned(),
            };
            eprintln!(
                "aciproj: cannot read {what} or write the patterns: {}",
                os_reason(&e)
            );
            exit::INPUT
        }
    }
}

/// `aciproj redact`: the catalogue as a line filter, stdin or FILE to stdout.
fn redact_command(args: &RedactArgs) -> u8 {
    let loaded = match load_rules(args.rules.as_deref()) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let redactor = redactor_of(&loaded);
    let input = match open_log_input(args.file.as_deref()) {
        Ok(input) => input,
        Err(code) => return code,
    };
    let stdout = std::io::BufWriter::with_capacity(256 * 1024, std::io::stdout().lock());
    if args.flags {
        let flagged =
            aciproj::untrusted::lines::flag_lines((!args.raw).then_some(redactor), input, stdout);
        return finish_filter(args, flagged.map(|stats| serde_json::to_string(&stats)));
    }
    let options = aciproj::filter::FilterOptions {
        json: args.json,
        correlate: args.correlate,
        // The command line owns its process: a second core may redact.
        parallel: true,
    };
    let filtered = aciproj::filter::filter_lines(redactor, input, stdout, options);
    finish_filter(args, filtered.map(|stats| serde_json::to_string(&stats)))
}

/// The end of `redact`: its stats on stderr when asked, or the diagnostic of what failed.
fn finish_filter(
    args: &RedactArgs,
    outcome: Result<serde_json::Result<String>, aciproj::filter::FilterError>,
) -> u8 {
    match outcome {
        Ok(stats) => {
            if args.stats {
                eprintln!("{}", stats.unwrap_or_default());
            }
            exit::READY
        }
        Err(aciproj::filter::FilterError::Read(e)) => {
            let name = args.file.as_deref().unwrap_or(Path::new("-")).display();
            eprintln!(
                "aciproj: cannot read the log file {name}: {}",
                os_reason(&e)
            );
            exit::INPUT
        }
        Err(aciproj::filter::FilterError::Write(e)) => {
            eprintln!("aciproj: cannot write standard output: {}", os_reason(&e));
            exit::INPUT
        }
    }
}

/// `aciproj rules`: the catalogue, as a table or as JSON lines.
fn rules_command(args: &RulesArgs) -> u8 {
    if let Some(RulesCommand::Check(check)) = &args.command {
        return rules_check(&check.file);
    }
    let loaded = match load_rules(args.rules.as_deref()) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    // Both catalogues: the redaction rules (a rules file's after the built-in ones), then the
    // flag rules.
    let mut text = match loaded.as_ref() {
        Some(r) => aciproj::redact::describe_catalogue_with(r, args.json),
        None => aciproj::redact::describe_catalogue(args.json),
    };
    text.push_str(&aciproj::untrusted::describe_flag_rules(args.json));
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => exit::READY,
        Err(_) => exit::INPUT,
    }
}

/// `aciproj rules check FILE`: one line per failure naming the rule and the example, then a
/// summary; 0 when the file holds, 1 when not, 5 when it cannot be read or parsed.
fn rules_check(file: &Path) -> u8 {
    let failures = match aciproj::redact::check_rules_file(file) {
        Ok(failures) => failures,
        Err(e) => {
            eprintln!("aciproj: {e}");
            return exit::INPUT;
        }
    };
    let mut stdout = std::io::stdout().lock();
    let mut text = String::new();
    for f in &failures {
        text.push_str(&format!("{}: {f}\n", file.display()));
    }
    match failures.len() {
        0 => text.push_str(&format!("{}: ok\n", file.display())),
        1 => text.push_str("1 failure\n"),
        n => text.push_str(&format!("{n} failures\n")),
    }
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(_) => exit::INPUT,
        Ok(()) if failures.is_empty() => exit::READY,
        Ok(()) => exit::CASES_FAILED,
    }
}
