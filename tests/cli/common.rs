//! The one way tests run the real binary: a small builder over `assert_cmd`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// A path under `fixtures/`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// A response path that does not exist: a call that tried to open it would fail with exit 5.
pub const MISSING_RESPONSE: &str = "/nonexistent/aciproj/response.json";

/// A context written to a temporary folder: the bundled active context with `patch` merged in
/// (top-level keys replaced; `null` removes a key).
pub struct TempContext {
    pub dir: tempfile::TempDir,
    pub path: PathBuf,
}

pub fn context_with(patch: Value) -> TempContext {
    let base = std::fs::read_to_string(fixture("contexts/active.json")).unwrap();
    let mut ctx: Value = serde_json::from_str(&base).unwrap();
    for (k, v) in patch.as_object().expect("patch is an object") {
        if v.is_null() {
            ctx.as_object_mut().unwrap().remove(k);
        } else {
            ctx[k] = v.clone();
        }
    }
    raw_context(&serde_json::to_string_pretty(&ctx).unwrap())
}

pub fn raw_context(text: &str) -> TempContext {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("context.json");
    std::fs::write(&path, text).unwrap();
    TempContext { dir, path }
}

/// One invocation of `aciproj`.
pub struct Aci {
    args: Vec<OsString>,
    stdin: Option<Vec<u8>>,
    cwd: Option<PathBuf>,
}

/// What an invocation produced.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    /// Stdout parsed as exactly one JSON document.
    pub fn json(&self) -> Value {
        assert!(
            self.stdout.ends_with('\n'),
            "stdout is newline-terminated: {:?}",
            self.stdout
        );
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is one JSON document ({e}): {}", self.stdout))
    }

    /// The error code of an ERROR envelope.
    pub fn error_code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

impl Aci {
    pub fn new<I, S>(args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self {
            args: args.into_iter().map(Into::into).collect(),
            stdin: None,
            cwd: None,
        }
    }

    /// `aciproj rag --context CONTEXT --call-id ID --query QUERY`.
    pub fn rag(context: impl AsRef<Path>, call_id: &str, query: &str) -> Self {
        let context = context.as_ref().as_os_str().to_owned();
        Self::new([
            "rag".into(),
            "--context".into(),
            context,
            "--call-id".into(),
            call_id.into(),
            "--query".into(),
            query.into(),
        ])
    }

    /// `aciproj logs --context CONTEXT --call-id ID --topic TOPIC --query QUERY`.
    #[allow(dead_code)]
    pub fn logs(context: impl AsRef<Path>, call_id: &str, topic: &str, query: &str) -> Self {
        let context = context.as_ref().as_os_str().to_owned();
        Self::new([
            "logs".into(),
            "--context".into(),
            context,
            "--call-id".into(),
            call_id.into(),
            "--topic".into(),
            topic.into(),
            "--query".into(),
            query.into(),
        ])
    }

    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// The response as a fixture path.
    pub fn response(self, rel: &str) -> Self {
        self.arg(fixture(rel))
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// A copy of this invocation with `extra` arguments appended.
    pub fn clone_with<I: IntoIterator<Item = S>, S: Into<OsString>>(&self, extra: I) -> Self {
        Self {
            args: self
                .args
                .iter()
                .cloned()
                .chain(extra.into_iter().map(Into::into))
                .collect(),
            stdin: self.stdin.clone(),
            cwd: self.cwd.clone(),
        }
    }

    /// Runs in `dir` instead of the repository root.
    pub fn current_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.cwd = Some(dir.as_ref().to_owned());
        self
    }

    pub fn run(self) -> Ran {
        let mut cmd = Command::cargo_bin("aciproj").unwrap();
        cmd.args(&self.args);
        cmd.current_dir(
            self.cwd
                .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR"))),
        );
        cmd.write_stdin(self.stdin.unwrap_or_default());
        let out = cmd.output().unwrap();
        Ran {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// The active context bundled with the fixtures.
pub fn active() -> PathBuf {
    fixture("contexts/active.json")
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The files of a fixture folder, sorted, with their stems (for snapshot names).
pub fn fixture_files(dir: &str) -> Vec<(String, PathBuf)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), p))
        .collect()
}

/// The first 150 messages of the redaction corpus (line breaks as spaces), sent as one Mock log
/// response to `aciproj logs` under bounds that show every entry whole, with `extra` merged
/// into the context; and the same messages, one per line, through `aciproj redact` with
/// `redact_args`. Returns the timeline's messages, the filter's lines and the message count.
pub fn timeline_beside_redact(
    extra: Value,
    redact_args: &[&str],
) -> (Vec<String>, Vec<String>, usize) {
    let corpus = include_str!("../../fixtures/redaction/corpus.jsonl");
    let messages: Vec<String> = corpus
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["line"].as_str().map(|s| s.replace(['\n', '\r'], " ")))
        .filter(|m| !m.trim().is_empty())
        .take(150)
        .collect();
    let logs: Vec<Value> = messages
        .iter()
        .enumerate()
        .map(|(i, m)| {
            serde_json::json!({"timestamp": format!("2026-11-29 09:{:02}:{:02}", i / 60, i % 60),
                   "level": "ERROR", "service": "svc", "message": m})
        })
        .collect();
    let response =
        serde_json::json!({"success": true, "logs": logs, "total": logs.len()}).to_string();
    let mut patch = serde_json::json!({
        "budget": {"max_tool_calls": 20, "max_observation_bytes": 4_000_000},
        "limits": {"logs": {"max_events": 1000, "max_message_bytes": 100_000,
                            "max_total_bytes": 4_000_000}},
        "ledger": null,
    });
    for (k, v) in extra.as_object().expect("extra is an object") {
        patch[k] = v.clone();
    }
    let ctx = context_with(patch);
    let ran = Aci::logs(&ctx.path, "call_r", "application-logs", "all")
        .args(["--lookback-minutes", "600"])
        .stdin(response)
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let timeline = ran.json()["result"]["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap().to_owned())
        .collect();
    let filtered = Aci::new(["redact"])
        .args(redact_args.iter().copied())
        .stdin(messages.join("\n"))
        .run();
    let lines = filtered.stdout.lines().map(str::to_owned).collect();
    (timeline, lines, messages.len())
}

/// Whether this run is CI's (`CI=true`), where a tool a test needs must be there.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skips a test loudly when `what` is missing outside CI; in CI a missing tool fails the test.
/// Returns whether the test may go on.
pub fn needs(present: bool, what: &str, install: &str) -> bool {
    if !present {
        assert!(!in_ci(), "CI=true but {what} is missing: {install}");
        eprintln!("\n*** SKIPPED: {what} is missing, so this test did not run ({install}) ***\n");
    }
    present
}

/// Runs `script` with `python3` and `args` when the Python `module` imports (see [`needs`]);
/// `None` when the test should skip.
pub fn python_with(module: &str, script: &str, args: &[&Path]) -> Option<std::process::Output> {
    let imports = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !needs(
        imports,
        &format!("the Python module {module}"),
        &format!("python3 -m pip install {module}"),
    ) {
        return None;
    }
    Some(
        std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .args(args)
            .output()
            .expect("python3 runs"),
    )
}
