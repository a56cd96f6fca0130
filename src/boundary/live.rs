//! A live legacy tool: the boundary itself calls it, and only once preflight admitted the call.
//!
//! The seeds put the legacy tool *behind* the ToolBoundary: a refused call never invokes it. So
//! a live source is not a reader handed to [`ToolBoundary::execute`](super::ToolBoundary::execute)
//! but a [`LegacyTool`] the boundary starts after preflight, reads as it reads a file, and then
//! [finishes](LegacyResponse::finish), which says whether the response counts (a non-zero exit,
//! a timeout, output past its bound turn the call into an `ERROR` whatever the bytes said).
//!
//! [`LegacyCommand`] is the one the command line uses: a program and its arguments, run without
//! a shell, the request's values substituted into single argv elements. On Unix it runs in a
//! process group of its own, read by one `poll(2)` loop on the caller's thread: its standard
//! error is drained as it comes (so it never blocks on a full pipe) and only counted, its
//! standard output is the response, capped at `max_response_bytes`, and the whole group is
//! killed once `legacy_timeout_ms` has passed, whether the command is writing, silent, or has
//! closed its output and lingers. No thread is started and no signal handler installed. Elsewhere
//! a command cannot be started yet (exit 5, says so); the trait is portable.
//!
//! A harness plugs in its own tool (an HTTP client, a pool of warm workers) by implementing
//! [`LegacyTool`]; the boundary's bounds, ledger and views stay the same.

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::time::Duration;

use super::{ToolCall, ToolRequest};
use crate::error::{ErrorCode, Stage, ToolError};

/// What a [`LegacyTool`] is told about the admitted call it serves.
#[derive(Debug, Clone, Copy)]
pub struct LiveCall<'a> {
    /// The call, as preflight admitted it.
    pub call: &'a ToolCall,
    /// The run's id (the context's).
    pub run_id: &'a str,
    /// The lookback the call uses (its own, or the default); `None` for a RAG call.
    pub lookback_minutes: Option<u32>,
    /// How long the tool may take, from the tool's `legacy_timeout_ms`.
    pub timeout: Duration,
    /// The most bytes its response may have (`max_response_bytes`).
    pub max_response_bytes: u64,
}

/// A legacy tool the boundary calls itself, after preflight admitted the call: the extension
/// point for a harness's own transport.
///
/// The boundary calls [`LegacyTool::start`] once per admitted call, reads the response it
/// returns (through the same cap and UTF-8 check as a file), then calls
/// [`LegacyResponse::finish`] exactly once, also when it stopped reading early (a malformed
/// response). An `Err` from `start` means the tool could not be reached at all: the call is not
/// recorded and nothing is used up (use code `LEGACY_COMMAND_UNAVAILABLE` for the caller's own
/// mistake, exit 5). An error from `finish` replaces whatever the bytes gave.
///
/// ```
/// use std::io::Read;
/// use aciproj::boundary::{LegacyResponse, LegacyTool, LiveCall, LiveEnd};
/// use aciproj::{LegacySource, RunContext, ToolBoundary, ToolCall, ToolError, ToolRequest};
///
/// /// Stands in for an HTTP client: the body is the response, a 5xx status a failure.
/// struct Http;
/// struct Body(std::io::Cursor<Vec<u8>>, u16);
/// impl Read for Body {
///     fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> { self.0.read(buf) }
/// }
/// impl LegacyResponse for Body {
///     fn finish(self: Box<Self>) -> LiveEnd {
///         if self.1 >= 500 { LiveEnd::failed("the knowledge service answered 5xx") }
///         else { LiveEnd::default() }
///     }
/// }
/// impl LegacyTool for Http {
///     fn start<'s>(&'s mut self, live: &LiveCall<'_>)
///         -> Result<Box<dyn LegacyResponse + 's>, ToolError> {
///         let ToolRequest::Rag { query } = &live.call.request else { unreachable!() };
///         assert!(!query.is_empty()); // e.g. GET /search?q={query}, within live.timeout
///         let body = br#"{"success":true,"contextPack":{"blocks":[
///             {"documentId":"kb-1","title":"Redis","excerpt":"MEMORY PURGE"}]}}"#;
///         Ok(Box::new(Body(std::io::Cursor::new(body.to_vec()), 200)))
///     }
///     fn describe(&self) -> String { "the knowledge service".into() }
/// }
///
/// let context = RunContext::from_slice(br#"{"run_id": "run-1", "status": "ACTIVE",
///     "authorized_tools": ["*"], "now": "2026-11-29T10:00:00+08:00"}"#,
///     std::path::Path::new(".")).unwrap();
/// let call = ToolCall { tool_call_id: "call_1".into(), run_id: None,
///     request: ToolRequest::Rag { query: "Redis".into() } };
/// let outcome = ToolBoundary::new(context).execute(&call, LegacySource::Live(&mut Http));
/// assert_eq!(outcome.exit_code(), 0);
/// ```
pub trait LegacyTool {
    /// Starts the tool for one admitted call and returns its response as it comes.
    fn start<'s>(
        &'s mut self,
        live: &LiveCall<'_>,
    ) -> Result<Box<dyn LegacyResponse + 's>, ToolError>;

    /// How diagnostics name the tool (the operator's words, never shown to the agent), e.g.
    /// "the legacy command mock-logs".
    fn describe(&self) -> String {
        "the live legacy tool".to_owned()
    }
}

/// A live tool's response: its bytes, then how it ended.
pub trait LegacyResponse: Read {
    /// Called once the boundary has read what it needs: read or discard the rest, wait for the
    /// tool, report how it ended.
    fn finish(self: Box<Self>) -> LiveEnd;
}

/// How a live legacy call ended.
#[derive(Debug, Default)]
pub struct LiveEnd {
    /// Why the response does not count (`LEGACY_TIMEOUT`, `LEGACY_FAILED`, `RESPONSE_TOO_LARGE`
    /// …), when it does not.
    pub error: Option<ToolError>,
    /// The process's exit status as a shell's `$?`, when a process ran (control view).
    pub exit: Option<i32>,
    /// Bytes the process wrote to standard error, when a process ran (control view).
    pub stderr_bytes: Option<u64>,
}

impl LiveEnd {
    /// A tool that answered but failed (`LEGACY_FAILED`); `diagnostic` is for the operator.
    pub fn failed(diagnostic: impl Into<String>) -> Self {
        Self {
            error: Some(legacy_failed().with_diagnostic(diagnostic)),
            ..Self::default()
        }
    }
}

fn legacy_failed() -> ToolError {
    ToolError::new(
        ErrorCode::LegacyFailed,
        "the legacy tool exited with a failure status",
    )
}

#[cfg_attr(not(unix), allow(dead_code))]
fn timed_out() -> ToolError {
    ToolError::new(
        ErrorCode::LegacyTimeout,
        "the legacy tool did not finish within legacy_timeout_ms",
    )
}

#[cfg_attr(not(unix), allow(dead_code))]
fn output_too_large() -> ToolError {
    ToolError::new(
        ErrorCode::ResponseTooLarge,
        "the legacy response is larger than max_response_bytes",
    )
    .at_stage(Stage::Legacy)
}

/// A legacy command line, run without a shell once preflight admitted the call.
///
/// Each argument may hold the placeholders `{query}`, `{topic}`, `{lookback_minutes}`,
/// `{call_id}` and `{run_id}`; each is replaced by the request's value *inside that one argument*
/// (a query holding spaces, quotes, `;` or `$(…)` stays one literal argument, since no shell
/// reads it). Any other brace text is kept as written, and so is a placeholder the call has no
/// value for (`{topic}` in a RAG call). An argument that is not UTF-8 is passed unchanged. The
/// command's standard input is empty, its environment and directory the caller's.
pub struct LegacyCommand<'c> {
    program: OsString,
    args: Vec<OsString>,
    capture: Option<&'c mut dyn Write>,
}

impl std::fmt::Debug for LegacyCommand<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacyCommand")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("capture", &self.capture.is_some())
            .finish()
    }
}

impl<'c> LegacyCommand<'c> {
    /// A command: the program (looked up in `PATH` when it holds no `/`) and its arguments.
    pub fn new<I, S>(program: impl Into<OsString>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            capture: None,
        }
    }

    /// Also writes every byte of standard output the boundary reads (within the bound) to `sink`,
    /// e.g. to keep the response for replay. A sink that fails is left alone for the rest of the
    /// call; the call goes on.
    pub fn capture(mut self, sink: &'c mut dyn Write) -> Self {
        self.capture = Some(sink);
        self
    }

    /// The arguments as the command receives them for `live` (placeholders substituted).
    pub fn args_for(&self, live: &LiveCall<'_>) -> Vec<OsString> {
        let (topic, query) = match &live.call.request {
            ToolRequest::Rag { query } => (None, query.as_str()),
            ToolRequest::Logs { topic, query, .. } => (Some(topic.as_str()), query.as_str()),
        };
        let lookback = live.lookback_minutes.map(|m| m.to_string());
        let value = |name: &str| match name {
            "query" => Some(query),
            "topic" => topic,
            "lookback_minutes" => lookback.as_deref(),
            "call_id" => Some(live.call.tool_call_id.as_str()),
            "run_id" => Some(live.run_id),
            _ => None,
        };
        self.args
            .iter()
            .map(|arg| substitute(arg, &value))
            .collect()
    }
}

/// One pass over `arg`: a `{name}` with a value is replaced, anything else is copied, so a value
/// holding `{query}` is never substituted again.
fn substitute<'v>(arg: &OsStr, value: &impl Fn(&str) -> Option<&'v str>) -> OsString {
    let Some(text) = arg.to_str() else {
        return arg.to_owned();
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let replaced = after.find('}').and_then(|close| {
            let name = &after[1..close];
            value(name).map(|v| (v, close + 1))
        });
        match replaced {
            Some((v, len)) => {
                out.push_str(v);
                rest = &after[len..];
            }
            None => {
                out.push('{');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    OsString::from(out)
}

impl LegacyTool for LegacyCommand<'_> {
    fn start<'s>(
        &'s mut self,
        live: &LiveCall<'_>,
    ) -> Result<Box<dyn LegacyResponse + 's>, ToolError> {
        let args = self.args_for(live);
        #[cfg(unix)]
        {
            let running = unix::Running::spawn(
                &self.program,
                &args,
                live,
                // The sink's own lifetime shortened to this call's.
                self.capture
                    .as_mut()
                    .map(|sink| &mut **sink as &mut dyn Write),
            )
            .map_err(|e| unavailable(&self.program, &crate::error::os_reason(&e)))?;
            Ok(Box::new(running))
        }
        #[cfg(not(unix))]
        {
            let _ = args;
            Err(unavailable(
                &self.program,
                "live legacy commands are supported on Unix only",
            ))
        }
    }

    fn describe(&self) -> String {
        format!("the legacy command {}", self.program.to_string_lossy())
    }
}

fn unavailable(program: &OsStr, reason: &str) -> ToolError {
    ToolError::new(
        ErrorCode::LegacyCommandUnavailable,
        "the legacy command cannot be started",
    )
    .with_diagnostic(format!(
        "cannot start the legacy command {}: {reason}",
        program.to_string_lossy()
    ))
}

#[cfg(unix)]
mod unix {
    //! The command on Unix: its own process group, one `poll(2)` loop over its two pipes.

    use std::ffi::{OsStr, OsString};
    use std::io::{self, Read, Write};
    use std::os::fd::AsFd;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
    use std::time::{Duration, Instant};

    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;

    use super::{LegacyResponse, LiveCall, LiveEnd, output_too_large, timed_out};

    /// Why the boundary ended the command early.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Stopped {
        TimedOut,
        TooLarge,
    }

    /// What one wait on the pipes gave.
    enum Event {
        /// Bytes of standard output, in the caller's buffer.
        Output(usize),
        /// Standard output is at its end.
        OutputEnd,
    }

    pub(super) struct Running<'s> {
        child: Child,
        reaped: Option<ExitStatus>,
        stdout: Option<ChildStdout>,
        stderr: Option<ChildStderr>,
        deadline: Option<Instant>,
        timeout: Duration,
        max: u64,
        read: u64,
        stderr_bytes: u64,
        capture: Option<&'s mut dyn Write>,
        stopped: Option<Stopped>,
        io_error: Option<io::Error>,
    }

    impl<'s> Running<'s> {
        pub(super) fn spawn(
            program: &OsStr,
            args: &[OsString],
            live: &LiveCall<'_>,
            capture: Option<&'s mut dyn Write>,
        ) -> io::Result<Self> {
            let mut child = Command::new(program)
                .args(args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                // A group of its own, so a timeout ends the helpers it started too.
                .process_group(0)
                .spawn()?;
            let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
            Ok(Self {
                child,
                reaped: None,
                stdout,
                stderr,
                deadline: Instant::now().checked_add(live.timeout),
                timeout: live.timeout,
                max: live.max_response_bytes,
                read: 0,
                stderr_bytes: 0,
                capture,
                stopped: None,
                io_error: None,
            })
        }

        /// The time left before the deadline (`None`: it has passed).
        fn left(&self) -> Option<Duration> {
            match self.deadline {
                None => Some(Duration::MAX),
                Some(d) => d
                    .checked_duration_since(Instant::now())
                    .filter(|l| !l.is_zero()),
            }
        }

        /// Kills the whole group and reaps the command.
        fn stop(&mut self, why: Stopped) {
            self.stopped.get_or_insert(why);
            self.kill();
            (self.stdout, self.stderr) = (None, None);
        }

        fn kill(&mut self) {
            if self.reaped.is_some() {
                return;
            }
            // The group is the command's pid, and the command is not reaped yet, so that id
            // cannot have been reused by another process.
            let group = i32::try_from(self.child.id()).ok().map(Pid::from_raw);
            if group.is_none_or(|g| killpg(g, Signal::SIGKILL).is_err()) {
                let _ = self.child.kill();
            }
            self.reaped = self.child.wait().ok();
        }

        /// Waits for output within `wait` (at most the time left), reading and counting standard
        /// error whenever it has bytes. `None`: nothing came on standard output in that time.
        fn pump(&mut self, buf: &mut [u8], wait: Duration) -> io::Result<Option<Event>> {
            let ms = |d: Duration| PollTimeout::try_from(d).unwrap_or(PollTimeout::MAX);
            let started = Instant::now();
            loop {
                let left = wait.saturating_sub(started.elapsed());
                let (out_ready, err_ready) = {
                    let mut fds = Vec::with_capacity(2);
                    let events = PollFlags::POLLIN;
                    if let Some(out) = &self.stdout {
                        fds.push(PollFd::new(out.as_fd(), events));
                    }
                    if let Some(err) = &self.stderr {
                        fds.push(PollFd::new(err.as_fd(), events));
                    }
                    if fds.is_empty() {
                        return Ok(None);
                    }
                    match poll(&mut fds, ms(left)) {
                        Ok(_) => {}
                        Err(nix::errno::Errno::EINTR) => continue,
                        Err(e) => return Err(e.into()),
                    }
                    let ready = |fd: &PollFd<'_>| fd.any().unwrap_or(false);
                    let out = self.stdout.is_some() && ready(&fds[0]);
                    let err = self.stderr.is_some() && ready(&fds[fds.len() - 1]);
                    (out, err)
                };
                if err_ready {
                    self.drain_stderr_once();
                }
                if out_ready {
                    let out = self.stdout.as_mut().expect("polled above");
                    match out.read(buf) {
                        Ok(0) => {
                            self.stdout = None;
                            return Ok(Some(Event::OutputEnd));
                        }
                        Ok(n) => return Ok(Some(Event::Output(n))),
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                if !out_ready && !err_ready {
                    return Ok(None);
                }
            }
        }

        /// One read of standard error, counted and dropped: its content reaches no view.
        fn drain_stderr_once(&mut self) {
            let mut scratch = [0u8; 16 * 1024];
            if let Some(err) = self.stderr.as_mut() {
                match err.read(&mut scratch) {
                    Ok(0) => self.stderr = None,
                    Ok(n) => self.stderr_bytes += n as u64,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => self.stderr = None,
                }
            }
        }

        /// The next bytes of standard output (0 at its end), within the deadline and the bound.
        fn next(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            loop {
                if self.stopped.is_some() {
                    return Err(io::Error::other("the legacy command was stopped"));
                }
                if self.stdout.is_none() {
                    return Ok(0);
                }
                let Some(left) = self.left() else {
                    self.stop(Stopped::TimedOut);
                    continue;
                };
                match self.pump(buf, left)? {
                    None => {}
                    Some(Event::OutputEnd) => return Ok(0),
                    Some(Event::Output(n)) => {
                        self.read += n as u64;
                        if self.read > self.max {
                            self.stop(Stopped::TooLarge);
                            continue;
                        }
                        if let Some(sink) = self.capture.as_mut()
                            && sink.write_all(&buf[..n]).is_err()
                        {
                            self.capture = None;
                        }
                        return Ok(n);
                    }
                }
            }
        }

        /// After standard output ended: drain standard error while the command runs, wait for
        /// it within the deadline.
        fn wait(&mut self) {
            let mut pause = Duration::from_millis(1);
            let mut scratch = [0u8; 0];
            while self.reaped.is_none() {
                match self.child.try_wait() {
                    Ok(Some(status)) => self.reaped = Some(status),
                    Ok(None) => {}
                    Err(e) => {
                        self.io_error = Some(e);
                        self.kill();
                        return;
                    }
                }
                if self.reaped.is_some() {
                    break;
                }
                let Some(left) = self.left() else {
                    self.stop(Stopped::TimedOut);
                    return;
                };
                let wait = pause.min(left);
                if self.stderr.is_some() {
                    // Wakes early when standard error has bytes; those are drained.
                    let _ = self.pump(&mut scratch, wait);
                } else {
                    std::thread::sleep(wait);
                }
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            // What the command left in the pipe before it exited is counted too; a helper that
            // keeps standard error open after it is not waited for.
            while self.stderr.is_some() {
                match self.pump(&mut scratch, Duration::ZERO) {
                    Ok(None) | Err(_) => break,
                    Ok(Some(_)) => {}
                }
            }
            self.stderr = None;
        }
    }

    impl Read for Running<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.next(buf)
        }
    }

    impl LegacyResponse for Running<'_> {
        fn finish(mut self: Box<Self>) -> LiveEnd {
            // The rest of the output still counts against the bound and the deadline (and goes
            // to the capture), so a command's fate does not depend on where a parser stopped.
            let mut scratch = vec![0u8; 64 * 1024];
            while self.stopped.is_none() {
                match self.next(&mut scratch) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) => {
                        if self.stopped.is_none() {
                            self.io_error = Some(e);
                            self.kill();
                        }
                        break;
                    }
                }
            }
            if self.stopped.is_none() && self.io_error.is_none() {
                self.wait();
            }
            let status = self.reaped.map(shell_status);
            let error = match (self.stopped, &self.io_error, status) {
                (Some(Stopped::TimedOut), _, _) => Some(timed_out().with_diagnostic(format!(
                    "the legacy command did not finish within {} ms; its process group was killed",
                    self.timeout.as_millis()
                ))),
                (Some(Stopped::TooLarge), _, _) => {
                    Some(output_too_large().with_diagnostic(format!(
                        "the legacy command wrote more than {} bytes (max_response_bytes); it was \
                         killed",
                        self.max
                    )))
                }
                (None, Some(e), _) => Some(super::legacy_failed().with_diagnostic(format!(
                    "cannot read the legacy command's output: {}",
                    crate::error::os_reason(e)
                ))),
                (None, None, Some(0)) => None,
                (None, None, code) => Some(super::legacy_failed().with_diagnostic(format!(
                    "the legacy command exited with status {} (its standard error, {} bytes, is \
                     not shown)",
                    code.map_or_else(|| "unknown".to_owned(), |c| c.to_string()),
                    self.stderr_bytes
                ))),
            };
            LiveEnd {
                error,
                exit: status,
                stderr_bytes: Some(self.stderr_bytes),
            }
        }
    }

    impl Drop for Running<'_> {
        /// A response dropped unfinished (a panic upstream) leaves no process behind.
        fn drop(&mut self) {
            self.kill();
        }
    }

    /// An exit status as a shell's `$?`: the code, or 128 + the signal that ended it.
    fn shell_status(status: ExitStatus) -> i32 {
        status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(-1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live<'a>(call: &'a ToolCall) -> LiveCall<'a> {
        LiveCall {
            call,
            run_id: "run-1",
            lookback_minutes: Some(30),
            timeout: Duration::from_secs(5),
            max_response_bytes: 1 << 20,
        }
    }

    #[test]
    fn placeholders_are_substituted_once_inside_each_argument() {
        let call = ToolCall {
            tool_call_id: "call_7".into(),
            run_id: None,
            request: ToolRequest::Logs {
                topic: "app {query}".into(),
                query: "a; rm -rf / $(id) {topic}".into(),
                lookback_minutes: None,
            },
        };
        let cmd = LegacyCommand::new(
            "tool",
            [
                "--q={query}",
                "{topic}",
                "{lookback_minutes}m",
                "{call_id}@{run_id}",
                "{other} {",
            ],
        );
        let args = cmd.args_for(&live(&call));
        assert_eq!(
            args,
            [
                "--q=a; rm -rf / $(id) {topic}",
                "app {query}",
                "30m",
                "call_7@run-1",
                "{other} {"
            ]
        );
    }

    #[test]
    fn a_placeholder_without_a_value_stays_as_written() {
        let call = ToolCall {
            tool_call_id: "c".into(),
            run_id: None,
            request: ToolRequest::Rag { query: "q".into() },
        };
        let mut l = live(&call);
        l.lookback_minutes = None;
        let cmd = LegacyCommand::new("tool", ["{topic}/{query}/{lookback_minutes}"]);
        assert_eq!(cmd.args_for(&l), ["{topic}/q/{lookback_minutes}"]);
    }
}
