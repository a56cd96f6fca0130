//! `aciproj check`: fixture cases run in-process and compared with their expectations (SPEC §7).
//!
//! A case (`*.case.json`) is one call and what it must give. Cases run inside this process, each
//! through its own [`ToolBoundary`] over a fresh in-memory ledger, so a few hundred cases cost
//! milliseconds and no case can see another's records, and the context's own `ledger` file is
//! never touched. The call goes through the same path as the CLI (context → JSON arguments →
//! preflight → read → project → view), so a case's expected output is exactly what `aciproj rag`
//! would print.
//!
//! Failures are reported as a list of JSON-pointer paths with expected and actual values — small
//! and readable in a CI log — rather than a textual diff of two pretty documents. `--update`
//! rewrites only `expect.output`, keeping the file's other fields in their order.
//!
//! Decisions: a pattern that matches no file counts as one failure (a CI job pointed at the wrong
//! folder must not pass with `0 passed, 0 failed`); a case without `expect.output` checks only its
//! exit code and `must_not_contain` (and `--update` fills the output in); `must_not_contain`
//! needles are searched in the compact JSON text as it would be printed.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use globset::GlobBuilder;
use serde_json::Value;

use crate::boundary::arguments::execute_arguments;
use crate::boundary::{CallOutcome, LedgerStore, LegacySource, ToolBoundary};
use crate::context::RunContext;
use crate::error::{ErrorCode, os_reason};
use crate::junit::TestCase;
use crate::render;

// A case file is a contract (`schema case` prints it), so its types live in `contracts`; this
// keeps the paths `check::Case` and its parts public as they were.
pub use crate::contracts::{Case, CaseRequest, Expectation};

/// The largest case file read.
const MAX_CASE_BYTES: u64 = 16 * 1024 * 1024;
/// How many differences are listed per failed case before the rest are only counted.
const MAX_LISTED_DIFFERENCES: usize = 20;
/// How many characters of a value a difference line shows.
const MAX_SHOWN_CHARS: usize = 100;
/// How deep a pattern's folder walk goes (a guard against pathological trees).
const MAX_WALK_DEPTH: usize = 64;

/// What went wrong with a case file before or around its call.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// The file could not be read (missing, a directory, unreadable): the OS's reason.
    #[error("cannot read the case file: {0}")]
    Unreadable(String),
    /// The file is larger than a case can be.
    #[error("the case file is larger than 16 MiB")]
    TooLarge,
    /// The file is not a valid case.
    #[error("not a valid case: {0}")]
    Invalid(String),
    /// `expect.output` could not be rewritten: the OS's reason.
    #[error("cannot rewrite the case file: {0}")]
    Unwritable(String),
}

/// The case files `check` runs when given no pattern.
pub const DEFAULT_CASE_GLOB: &str = "fixtures/**/*.case.json";

/// What `check` should do.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// Glob patterns of case files; empty means [`DEFAULT_CASE_GLOB`].
    pub patterns: Vec<String>,
    /// Rewrite `expect.output` with the actual output.
    pub update: bool,
    /// Also write JUnit XML here: one `testcase` per case, a failed case's diff in its
    /// `failure`.
    pub junit: Option<PathBuf>,
}

/// Why `check` could not finish its report.
#[derive(Debug, thiserror::Error)]
pub enum CheckFailure {
    /// The text report could not be written.
    #[error("cannot write the report: {}", os_reason(.0))]
    Output(#[from] std::io::Error),
    /// The JUnit file could not be written.
    #[error("cannot write the JUnit file {path}: {reason}")]
    Junit {
        /// The JUnit file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
}

/// How many cases passed and failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CheckSummary {
    /// Cases that gave what they expect.
    pub passed: usize,
    /// Cases that did not, could not be read, or patterns that matched nothing.
    pub failed: usize,
}

/// What one case's call produced.
#[derive(Debug, Clone)]
pub struct CaseRun {
    /// The exit code the CLI would return.
    pub exit_code: u8,
    /// The printed document.
    pub output: Value,
    /// The document as the CLI prints it (compact, newline-terminated).
    pub text: String,
    /// What the call gave, whatever the view: READY, or ERROR with its code, its safe message
    /// and the operator diagnostic when there is one (a path and the reason, a position).
    pub gave: Result<(), (ErrorCode, String, Option<String>)>,
}

/// Reads and parses a case file.
pub fn load_case(path: &Path) -> Result<Case, CaseError> {
    let bytes = read_capped(path)?;
    crate::context::parse_strict::<Case>(&bytes, crate::context::Document::Other)
        .map_err(|e| CaseError::Invalid(e.message().to_owned()))
}

fn read_capped(path: &Path) -> Result<Vec<u8>, CaseError> {
    let meta = std::fs::metadata(path).map_err(|e| CaseError::Unreadable(os_reason(&e)))?;
    if meta.is_dir() {
        return Err(CaseError::Unreadable("Is a directory".to_owned()));
    }
    if meta.len() > MAX_CASE_BYTES {
        return Err(CaseError::TooLarge);
    }
    std::fs::read(path).map_err(|e| CaseError::Unreadable(os_reason(&e)))
}

/// Runs a case's call in-process; `base` is the case file's folder.
pub fn run_case(case: &Case, base: &Path) -> Result<CaseRun, CaseError> {
    let request = &case.request;
    let legacy_bytes;
    let response_path;
    let legacy = match (&case.response_file, &case.response) {
        (Some(file), None) => {
            response_path = base.join(file);
            LegacySource::File(&response_path)
        }
        (None, Some(inline)) => {
            legacy_bytes = serde_json::to_vec(inline)
                .map_err(|_| CaseError::Invalid("inline response cannot be serialized".into()))?;
            LegacySource::Bytes(&legacy_bytes)
        }
        _ => {
            return Err(CaseError::Invalid(
                "give exactly one of `response_file` and `response`".into(),
            ));
        }
    };
    let context = match (&case.context_file, &case.context) {
        (Some(file), None) => RunContext::load(&base.join(file)),
        (None, Some(inline)) => {
            let bytes = serde_json::to_vec(inline)
                .map_err(|_| CaseError::Invalid("inline context cannot be serialized".into()))?;
            RunContext::from_slice(&bytes, base)
        }
        _ => {
            return Err(CaseError::Invalid(
                "give exactly one of `context_file` and `context`".into(),
            ));
        }
    };
    let outcome = match context {
        // As the CLI does: a context that cannot be used fails the call before anything else.
        Err(e) => CallOutcome::failed(
            case.tool,
            request.run_id.clone(),
            Some(request.call_id.clone()),
            e,
        ),
        Ok(context) => {
            let mut boundary = ToolBoundary::with_ledger(context, LedgerStore::Memory(Vec::new()));
            execute_arguments(
                &mut boundary,
                case.tool,
                &request.call_id,
                request.run_id.as_deref(),
                &Value::Object(request.arguments.clone()),
                legacy,
            )
        }
    };
    let output = render::document(&outcome, request.view, request.format.unwrap_or_default());
    let text = render::to_text(&output, false);
    let gave = match outcome.result() {
        Ok(_) => Ok(()),
        Err(e) => Err((
            e.code(),
            e.message().to_owned(),
            e.diagnostic().map(str::to_owned),
        )),
    };
    Ok(CaseRun {
        exit_code: outcome.exit_code(),
        output,
        text,
        gave,
    })
}

/// Compares a run with a case's expectation; returns one line per problem, and when there is any,
/// a last line saying what the call actually gave (status, error code and message), so a failure
/// reads as its cause and not only as "exit code: expected 0, actual 3".
pub fn compare(case: &Case, run: &CaseRun) -> Vec<String> {
    let mut problems = differences(case, run);
    if !problems.is_empty() {
        problems.push(match &run.gave {
            Ok(()) => "the call gave: status READY".to_owned(),
            Err((code, message, diagnostic)) => format!(
                "the call gave: status ERROR, code {code}, message {}{}",
                shown(&Value::String(message.clone())),
                diagnostic
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default()
            ),
        });
    }
    problems
}

fn differences(case: &Case, run: &CaseRun) -> Vec<String> {
    let mut problems = Vec::new();
    if case.expect.exit_code != run.exit_code {
        problems.push(format!(
            "exit code: expected {}, actual {}",
            case.expect.exit_code, run.exit_code
        ));
    }
    if let Some(expected) = &case.expect.output {
        let differences = json_diff(expected, &run.output);
        let total = differences.len();
        for d in differences.into_iter().take(MAX_LISTED_DIFFERENCES) {
            problems.push(d.to_string());
        }
        if total > MAX_LISTED_DIFFERENCES {
            problems.push(format!(
                "… and {} more differences",
                total - MAX_LISTED_DIFFERENCES
            ));
        }
    }
    for needle in &case.expect.must_not_contain {
        if run.text.contains(needle.as_str()) {
            problems.push(format!(
                "must_not_contain: the output contains {}",
                shown(&Value::String(needle.clone()))
            ));
        }
    }
    problems
}

/// One difference between an expected and an actual JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// JSON pointer (RFC 6901) of the differing value; empty for the whole document.
    pub pointer: String,
    /// The expected value, absent when the actual document has a value the expected lacks.
    pub expected: Option<Value>,
    /// The actual value, absent when the expected value is missing from the actual document.
    pub actual: Option<Value>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "(document)"
        } else {
            &self.pointer
        };
        match (&self.expected, &self.actual) {
            (Some(e), Some(a)) => write!(f, "{at}: expected {}, actual {}", shown(e), shown(a)),
            (Some(e), None) => write!(f, "{at}: missing, expected {}", shown(e)),
            (None, Some(a)) => write!(f, "{at}: unexpected, actual {}", shown(a)),
            (None, None) => write!(f, "{at}: differs"),
        }
    }
}

/// A value as compact JSON, cut to a readable length.
fn shown(value: &Value) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    match text.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The differences between two JSON documents, in document order (expected keys first, then
/// keys only the actual document has). Object key order is not compared.
pub fn json_diff(expected: &Value, actual: &Value) -> Vec<Difference> {
    let mut out = Vec::new();
    diff_into(&mut String::new(), expected, actual, &mut out);
    out
}

fn diff_into(pointer: &mut String, expected: &Value, actual: &Value, out: &mut Vec<Difference>) {
    let len = pointer.len();
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (key, ev) in e {
                push_token(pointer, key);
                match a.get(key) {
                    Some(av) => diff_into(pointer, ev, av, out),
                    None => out.push(Difference {
                        pointer: pointer.clone(),
                        expected: Some(ev.clone()),
                        actual: None,
                    }),
                }
                pointer.truncate(len);
            }
            for (key, av) in a.iter().filter(|(k, _)| !e.contains_key(k.as_str())) {
                push_token(pointer, key);
                out.push(Difference {
                    pointer: pointer.clone(),
                    expected: None,
                    actual: Some(av.clone()),
                });
                pointer.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for i in 0..e.len().max(a.len()) {
                push_token(pointer, &i.to_string());
                match (e.get(i), a.get(i)) {
                    (Some(ev), Some(av)) => diff_into(pointer, ev, av, out),
                    (ev, av) => out.push(Difference {
                        pointer: pointer.clone(),
                        expected: ev.cloned(),
                        actual: av.cloned(),
                    }),
                }
                pointer.truncate(len);
            }
        }
        (e, a) if e == a => {}
        (e, a) => out.push(Difference {
            pointer: pointer.clone(),
            expected: Some(e.clone()),
            actual: Some(a.clone()),
        }),
    }
}

/// Appends one reference token, escaped as RFC 6901 says (`~` → `~0`, `/` → `~1`).
fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// Expands glob patterns into a sorted, de-duplicated list of paths; a pattern that matches
/// nothing (or is not a valid glob) is returned as a problem instead.
pub fn expand_patterns(patterns: &[String]) -> (Vec<PathBuf>, Vec<String>) {
    let mut files = BTreeSet::new();
    let mut problems = Vec::new();
    for pattern in patterns {
        match expand(pattern) {
            Ok(found) if found.is_empty() => {
                problems.push(format!("no case file matches the pattern {pattern:?}"))
            }
            Ok(found) => files.extend(found),
            Err(e) => problems.push(e),
        }
    }
    (files.into_iter().collect(), problems)
}

fn has_meta(component: &str) -> bool {
    component.contains(['*', '?', '[', ']', '{', '}'])
}

fn expand(pattern: &str) -> Result<Vec<PathBuf>, String> {
    let components: Vec<&str> = pattern.split('/').collect();
    let literal = components.iter().take_while(|c| !has_meta(c)).count();
    if literal == components.len() {
        // A plain path: it is a case file whether or not it exists; reading it tells.
        return Ok(vec![PathBuf::from(pattern)]);
    }
    let matcher = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|_| format!("the pattern {pattern:?} is not a valid glob"))?
        .compile_matcher();
    let prefix = components[..literal].join("/");
    // `/x/**` has the prefix "/x"; `**/x` has none and walks the current folder, naming paths
    // without a leading "./" so that they match the pattern as written.
    let (read_root, shown_root) = match prefix.as_str() {
        "" if pattern.starts_with('/') => (PathBuf::from("/"), PathBuf::from("/")),
        "" => (PathBuf::from("."), PathBuf::new()),
        p => (PathBuf::from(p), PathBuf::from(p)),
    };
    let mut found = Vec::new();
    walk(&read_root, &shown_root, 0, &mut |path| {
        if matcher.is_match(path) {
            found.push(path.to_owned());
        }
    });
    found.sort();
    Ok(found)
}

/// Visits every entry under `dir` (files and folders, not following symbolic links to folders),
/// in sorted order. Unreadable folders are skipped: a case that cannot be found cannot fail.
fn walk(dir: &Path, shown: &Path, depth: usize, visit: &mut dyn FnMut(&Path)) {
    if depth > MAX_WALK_DEPTH {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let shown_path = shown.join(&name);
        visit(&shown_path);
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&dir.join(&name), &shown_path, depth + 1, visit);
        }
    }
}

/// Rewrites `expect.output` of the case file at `path`, keeping every other field and its order.
fn update_output(path: &Path, output: &Value) -> Result<(), CaseError> {
    let bytes = read_capped(path)?;
    let mut doc: Value = serde_json::from_slice(&bytes)
        .map_err(|_| CaseError::Invalid("the case file is no longer valid JSON".into()))?;
    let Some(expect) = doc.get_mut("expect").and_then(Value::as_object_mut) else {
        return Err(CaseError::Invalid("`expect` is not an object".into()));
    };
    expect.insert("output".to_owned(), output.clone());
    let mut text = serde_json::to_string_pretty(&doc)
        .map_err(|_| CaseError::Invalid("the case cannot be serialized".into()))?;
    text.push('\n');
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut temp = tempfile::Builder::new()
        .prefix(".aciproj-case-")
        .tempfile_in(dir)
        .map_err(|e| CaseError::Unwritable(os_reason(&e)))?;
    temp.write_all(text.as_bytes())
        .map_err(|e| CaseError::Unwritable(os_reason(&e)))?;
    temp.persist(path)
        .map_err(|e| CaseError::Unwritable(os_reason(&e.error)))?;
    Ok(())
}

/// Checks one case file; returns its problems (empty when it passed) and whether it was updated.
fn check_file(path: &Path, update: bool) -> (Option<String>, Vec<String>, bool) {
    let case = match load_case(path) {
        Ok(c) => c,
        Err(e) => return (None, vec![e.to_string()], false),
    };
    let base = path.parent().unwrap_or(Path::new(""));
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(&case, base)));
    let run = match ran {
        Ok(Ok(run)) => run,
        Ok(Err(e)) => return (Some(case.name), vec![e.to_string()], false),
        Err(_) => {
            return (
                Some(case.name),
                vec!["the call panicked (a bug in aciproj)".into()],
                false,
            );
        }
    };
    let mut problems = compare(&case, &run);
    let mut updated = false;
    let output_differs = case.expect.output.as_ref() != Some(&run.output);
    if update && output_differs {
        match update_output(path, &run.output) {
            Ok(()) => {
                updated = true;
                // The output now matches by construction; other expectations still count.
                let fresh = Case {
                    expect: Expectation {
                        output: Some(run.output.clone()),
                        ..case.expect.clone()
                    },
                    ..case.clone()
                };
                problems = compare(&fresh, &run);
            }
            Err(e) => problems.push(e.to_string()),
        }
    }
    (Some(case.name), problems, updated)
}

/// Runs every case the patterns match, writes a report to `out`, and ends it with the line
/// `N passed, M failed`; with [`CheckOptions::junit`], also writes the JUnit file (atomically,
/// after the text report).
pub fn run(options: &CheckOptions, out: &mut dyn Write) -> Result<CheckSummary, CheckFailure> {
    let patterns = if options.patterns.is_empty() {
        vec![DEFAULT_CASE_GLOB.to_owned()]
    } else {
        options.patterns.clone()
    };
    let (files, pattern_problems) = expand_patterns(&patterns);
    let mut summary = CheckSummary::default();
    let mut cases = Vec::new();
    for problem in &pattern_problems {
        writeln!(out, "FAIL {problem}")?;
        summary.failed += 1;
        cases.push(TestCase {
            name: problem.clone(),
            file: problem.clone(),
            problems: vec![problem.clone()],
        });
    }
    for path in &files {
        let (name, problems, updated) = check_file(path, options.update);
        let shown = name.as_ref().map(|n| format!(" — {n}")).unwrap_or_default();
        if updated {
            writeln!(out, "updated {}", path.display())?;
        }
        if problems.is_empty() {
            writeln!(out, "ok   {}{shown}", path.display())?;
            summary.passed += 1;
        } else {
            writeln!(out, "FAIL {}{shown}", path.display())?;
            for p in &problems {
                writeln!(out, "       {p}")?;
            }
            summary.failed += 1;
        }
        let file = path.display().to_string();
        cases.push(TestCase {
            name: name.unwrap_or_else(|| file.clone()),
            file,
            problems,
        });
    }
    writeln!(out, "{} passed, {} failed", summary.passed, summary.failed)?;
    if let Some(target) = &options.junit {
        let xml = crate::junit::document("aciproj check", &cases);
        crate::render::write_atomically(target, xml.as_bytes()).map_err(|e| {
            CheckFailure::Junit {
                path: target.clone(),
                reason: os_reason(&e),
            }
        })?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_names_json_pointers_with_both_values() {
        let expected = json!({"a": {"b/c": [1, 2, 3], "m~": "x"}, "gone": true, "same": null});
        let actual = json!({"a": {"b/c": [1, 5], "m~": "x"}, "same": null, "new": "y"});
        let lines: Vec<String> = json_diff(&expected, &actual)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            lines,
            [
                "/a/b~1c/1: expected 2, actual 5",
                "/a/b~1c/2: missing, expected 3",
                "/gone: missing, expected true",
                "/new: unexpected, actual \"y\"",
            ]
        );
    }

    #[test]
    fn diff_of_equal_documents_is_empty_whatever_the_key_order() {
        let a = json!({"x": 1, "y": [{"p": 1, "q": 2}]});
        let b: Value = serde_json::from_str(r#"{"y":[{"q":2,"p":1}],"x":1}"#).unwrap();
        assert!(json_diff(&a, &b).is_empty());
        let whole = json_diff(&json!(1), &json!("1"));
        assert_eq!(whole[0].to_string(), "(document): expected 1, actual \"1\"");
    }

    #[test]
    fn long_values_are_cut_for_display() {
        let long = "内".repeat(500);
        let d = Difference {
            pointer: "/x".into(),
            expected: Some(json!(long)),
            actual: None,
        };
        let text = d.to_string();
        assert!(text.ends_with('…') && text.chars().count() < 140, "{text}");
    }

    #[test]
    fn glob_prefix_is_walked_and_results_sorted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for rel in [
            "b/two.case.json",
            "a/one.case.json",
            "a/deep/three.case.json",
            "a/skip.json",
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "{}").unwrap();
        }
        let pattern = format!("{}/**/*.case.json", root.display());
        let (files, problems) = expand_patterns(&[pattern.clone(), pattern]);
        assert!(problems.is_empty());
        let rel: Vec<_> = files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            rel,
            [
                "a/deep/three.case.json",
                "a/one.case.json",
                "b/two.case.json"
            ]
        );
        // `*` does not cross folders.
        let (files, _) = expand_patterns(&[format!("{}/*/*.case.json", root.display())]);
        assert_eq!(files.len(), 2);
        let (files, problems) = expand_patterns(&[format!("{}/**/*.nothing", root.display())]);
        assert!(files.is_empty());
        assert_eq!(problems.len(), 1);
        let (_, problems) = expand_patterns(&[format!("{}/[unclosed*", root.display())]);
        assert!(problems[0].contains("not a valid glob"), "{problems:?}");
    }
}
