//! The crate as a harness embeds it: library calls leave the process alone unless asked.
//!
//! Threads and hooks are process-wide, and the other tests of this binary run beside each other,
//! so each check re-runs this test binary on one test alone (`--exact --test-threads=1`) and
//! looks at that process. The response is streamed through a FIFO by a writer thread, which
//! counts the process's threads while the boundary is in the middle of reading it.

use std::io::Write;
use std::path::Path;
use std::process::Command;

use aciproj::{LegacySource, RunContext, ToolBoundary, ToolCall, ToolRequest};

/// Set in the re-run process: which mode the probe runs in.
const PROBE: &str = "ACIPROJ_LIBRARY_PROBE";

/// The threads of this process, and the cores the calling thread may use (Linux).
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").map_or(0, |d| d.count())
}

fn cores_allowed() -> String {
    let status = std::fs::read_to_string("/proc/thread-self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("Cpus_allowed_list"))
        .unwrap_or_default()
        .to_owned()
}

/// A logs response of many batches, so a parallel boundary would start its worker.
fn big_response() -> String {
    let logs: Vec<_> = (0..6000)
        .map(|i| {
            let level = ["INFO", "WARN", "ERROR"][i % 3];
            serde_json::json!({
                "timestamp": format!("2026-11-29 09:{:02}:{:02}", (i / 60) % 60, i % 60),
                "level": level,
                "service": format!("svc-{}", i % 5),
                "message": format!("request {i} from 10.0.{}.{} password=p{i}", i % 200, i % 250),
            })
        })
        .collect();
    serde_json::json!({"success": true, "logs": logs, "total": 6000}).to_string()
}

/// Runs one logs call, the response arriving through a FIFO, and prints what it saw.
fn probe(parallel: bool) {
    let dir = tempfile::tempdir().expect("temp dir");
    let fifo = dir.path().join("response.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let context = RunContext::from_slice(
        br#"{"run_id": "run-lib", "status": "ACTIVE", "authorized_tools": ["*"],
            "now": "2026-11-29T10:00:00+08:00", "timezone": "Asia/Shanghai"}"#,
        Path::new("."),
    )
    .expect("a valid context");
    let mut boundary = ToolBoundary::new(context).parallel(parallel);
    let body = big_response();
    let cores_before = cores_allowed();
    // The writer is the only thread this test adds.
    let baseline = threads() + 1;
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .open(&fifo)
                .expect("open fifo");
            let (head, tail) = body.as_bytes().split_at(body.len() * 3 / 4);
            out.write_all(head).expect("write");
            out.flush().expect("flush");
            // The boundary is now in the middle of the response: give a worker time to start.
            std::thread::sleep(std::time::Duration::from_millis(300));
            let during = threads();
            out.write_all(tail).expect("write");
            during
        })
    };
    let call = ToolCall {
        tool_call_id: "call_lib".into(),
        run_id: None,
        request: ToolRequest::Logs {
            topic: "application-logs".into(),
            query: "timeout".into(),
            lookback_minutes: Some(30),
        },
    };
    let outcome = boundary.execute(&call, LegacySource::File(&fifo));
    let during = writer.join().expect("writer");
    assert_eq!(outcome.exit_code(), 0, "{:?}", outcome.result());
    println!("extra-threads={}", during.saturating_sub(baseline));
    println!("cores-unchanged={}", cores_allowed() == cores_before);
    // Whose hook reports a panic now: the default one names the panic's message.
    let _ = std::panic::catch_unwind(|| panic!("probe-panic-message"));
}

/// Re-runs `test` alone in a new process with the probe mode set; returns stdout and stderr.
fn rerun(test: &str, mode: &str) -> (String, String) {
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(PROBE, mode)
        .output()
        .expect("re-run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

/// A harness runs a logs call of many batches through the crate: no thread is started, the
/// calling thread's cores are untouched, and a panic afterwards still reaches the default hook.
#[cfg(target_os = "linux")]
#[test]
fn a_library_call_starts_no_thread_touches_no_affinity_and_installs_no_hook() {
    match std::env::var(PROBE).as_deref() {
        Ok("serial") => return probe(false),
        Ok("parallel") => return probe(true),
        _ => {}
    }
    let name = "library::a_library_call_starts_no_thread_touches_no_affinity_and_installs_no_hook";
    let (stdout, stderr) = rerun(name, "serial");
    assert!(stdout.contains("extra-threads=0\n"), "{stdout}");
    assert!(stdout.contains("cores-unchanged=true\n"), "{stdout}");
    assert!(stderr.contains("probe-panic-message"), "{stderr}");
    assert!(!stderr.contains("internal error (a bug)"), "{stderr}");

    // The probe has teeth: asked for, the boundary does use a second thread.
    let (stdout, _) = rerun(name, "parallel");
    assert!(!stdout.contains("extra-threads=0\n"), "{stdout}");
    assert!(stdout.contains("cores-unchanged=true\n"), "{stdout}");
}

/// The operator commands are library calls with typed options, and they give what the
/// command line prints.
#[test]
fn operator_calls_run_in_process_and_match_the_command_line() {
    let options = aciproj::ReplayOptions {
        incident: crate::common::fixture("incidents/redis-latency"),
        view: aciproj::View::Harness,
        verify: None,
        report: None,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let report = aciproj::replay_incident(&options, &mut out, &mut err).expect("replays");
    assert!(!report.rows.is_empty() && report.comparison.is_none());
    let cli = crate::common::Aci::new(["replay", "--view", "harness"])
        .arg(&options.incident)
        .run();
    assert_eq!(String::from_utf8(out).unwrap(), cli.stdout);

    let check = aciproj::CheckOptions {
        patterns: vec![
            crate::common::fixture("cases/rag/*.case.json")
                .display()
                .to_string(),
        ],
        update: false,
        junit: None,
    };
    let summary = aciproj::run_check(&check, &mut Vec::new()).expect("writes");
    assert!(summary.failed == 0 && summary.passed > 0, "{summary:?}");

    let missing = aciproj::verify_ledger(Path::new("/nonexistent/aciproj/ledger.jsonl"), None);
    assert!(missing.is_err());
}

/// A harness's own legacy tool (here a stand-in for an HTTP client) behind the boundary: started
/// only for an admitted call, its `finish` outranks its bytes, and a tool that cannot be reached
/// uses nothing up.
#[test]
fn a_harness_tool_is_started_only_for_admitted_calls() {
    use aciproj::boundary::{LegacyResponse, LegacyTool, LiveCall, LiveEnd};
    use aciproj::{ErrorCode, ToolError};

    struct Http {
        starts: usize,
        status: u16,
    }
    struct Body(std::io::Cursor<&'static [u8]>, u16);
    impl std::io::Read for Body {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }
    impl LegacyResponse for Body {
        fn finish(self: Box<Self>) -> LiveEnd {
            match self.1 {
                200 => LiveEnd::default(),
                _ => LiveEnd::failed("HTTP 503"),
            }
        }
    }
    impl LegacyTool for Http {
        fn start<'s>(
            &'s mut self,
            live: &LiveCall<'_>,
        ) -> Result<Box<dyn LegacyResponse + 's>, ToolError> {
            self.starts += 1;
            assert_eq!(live.timeout.as_millis(), 30_000);
            if self.status == 0 {
                return Err(ToolError::new(
                    ErrorCode::LegacyCommandUnavailable,
                    "the legacy tool cannot be reached",
                ));
            }
            let body = br#"{"success":true,"logs":[{"timestamp":"2026-11-29 09:41:07",
                "level":"ERROR","service":"svc","message":"timeout password=hunter2"}]}"#;
            Ok(Box::new(Body(std::io::Cursor::new(body), self.status)))
        }
    }

    let context = RunContext::from_slice(
        br#"{"run_id": "run-1", "status": "ACTIVE", "authorized_tools": ["logs"],
             "now": "2026-11-29T10:00:00+08:00", "timezone": "Asia/Shanghai"}"#,
        Path::new("."),
    )
    .unwrap();
    let mut boundary = ToolBoundary::with_ledger(context, aciproj::LedgerStore::Memory(Vec::new()));
    let call = |id: &str, tool_is_rag: bool| ToolCall {
        tool_call_id: id.into(),
        run_id: None,
        request: if tool_is_rag {
            ToolRequest::Rag { query: "q".into() }
        } else {
            ToolRequest::Logs {
                topic: "app".into(),
                query: "timeout".into(),
                lookback_minutes: None,
            }
        },
    };
    let mut http = Http {
        starts: 0,
        status: 200,
    };
    // Refused (rag is not authorized): never started.
    let refused = boundary.execute(&call("c0", true), LegacySource::Live(&mut http));
    assert_eq!((refused.exit_code(), http.starts), (3, 0));
    let ok = boundary.execute(&call("c1", false), LegacySource::Live(&mut http));
    assert_eq!((ok.exit_code(), http.starts), (0, 1));
    let json = serde_json::to_string(&ok.model_observation()).unwrap();
    assert!(
        json.contains("timeout") && !json.contains("hunter2"),
        "{json}"
    );
    // No process ran: no process fields in the control view.
    assert_eq!(ok.control_view().legacy_exit, None);
    http.status = 503;
    let failed = boundary.execute(&call("c2", false), LegacySource::Live(&mut http));
    assert_eq!(failed.result().unwrap_err().code(), ErrorCode::LegacyFailed);
    assert_eq!(failed.exit_code(), 4);
    http.status = 0;
    let unreachable = boundary.execute(&call("c3", false), LegacySource::Live(&mut http));
    assert_eq!(unreachable.exit_code(), 5);
    assert!(unreachable.ledger_record().is_none());
    http.status = 200;
    let again = boundary.execute(&call("c3", false), LegacySource::Live(&mut http));
    assert_eq!(
        again.exit_code(),
        0,
        "the unreachable call's id stays usable"
    );
    let repeated = boundary.execute(&call("c3", false), LegacySource::Live(&mut http));
    assert_eq!(
        (repeated.exit_code(), http.starts),
        (3, 4),
        "a recorded id is a duplicate"
    );
}
