//! `replay --report`: the HTML incident report, read the way an operator reads it, in a real
//! browser (headless Chromium's rendered DOM), and as an HTML5 parser reads it (html5lib,
//! strict). Planted markup in log messages, services, queries and RAG fields must render as text
//! and create no element; no value the boundary withheld may appear; same incident, same bytes.

use std::path::{Path, PathBuf};

use crate::common::{Aci, Ran, fixture, needs, python_with};
use crate::replay::{PAYMENT_PLANTED, copy_incident, live};

const PAYMENT: &str = "incidents/payment-outage";
const HOSTILE: &str = "incidents/hostile-report";

/// Replays `dir` with `--report` into a temporary file (and `extra` arguments); returns the
/// run and the report's text.
fn report(dir: &Path, extra: &[&std::ffi::OsStr]) -> (Ran, String, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("report.html");
    let ran = Aci::new(["replay"])
        .arg(dir)
        .args(extra.iter().copied())
        .arg("--report")
        .arg(&path)
        .run();
    let html = std::fs::read_to_string(&path).unwrap_or_default();
    (ran, html, out)
}

/// The names of the elements the report's own markup uses: anything else is injected.
const OWN_TAGS: &[&str] = &[
    "html",
    "head",
    "meta",
    "title",
    "style",
    "body",
    "main",
    "header",
    "footer",
    "section",
    "article",
    "nav",
    "h1",
    "h2",
    "h3",
    "h4",
    "p",
    "dl",
    "dt",
    "dd",
    "span",
    "code",
    "b",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "div",
    "blockquote",
    "ul",
    "li",
    "br",
    "svg",
    "g",
    "line",
    "rect",
    "text",
    "i",
];

/// Every tag name opened in `html` (the text after each `<` that starts a name).
fn opened_tags(html: &str) -> Vec<String> {
    html.split('<')
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            (!name.is_empty() && rest.starts_with(|c: char| c.is_ascii_alphabetic()))
                .then(|| name.to_ascii_lowercase())
        })
        .collect()
}

fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .flat_map(|d| ["chromium", "chromium-browser"].map(|n| d.join(n)))
            .find(|p| p.is_file())
    });
    needs(
        found.is_some(),
        "chromium (headless browser)",
        "apt-get install chromium",
    )
    .then(|| found.expect("found"))
}

/// The DOM Chromium builds from `page` (a file:// URL), after any script had a chance to run.
fn dump_dom(browser: &Path, page: &Path) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=2000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("the DOM is UTF-8")
}

#[test]
fn a_verified_bundled_incident_renders_its_calls_badge_and_chart_in_a_browser() {
    let dir = copy_incident(PAYMENT);
    let ledger = live(dir.path());
    let (ran, _, out) = report(dir.path(), &["--verify".as_ref(), ledger.as_os_str()]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // The JSON lines still go to stdout when the report goes to a file.
    assert_eq!(ran.stdout.lines().count(), 10);
    let Some(browser) = chromium() else { return };
    let dom = dump_dom(&browser, &out.path().join("report.html"));
    assert!(
        dom.contains("<title>aciproj incident report: run-20261129-0815</title>"),
        "{dom}"
    );
    assert!(
        dom.contains(
            "<p class=\"badge ok\" id=\"verdict\">✔ Verified: all 10 calls match the ledger and \
             its hash chain holds (7 records)</p>"
        ),
        "the badge: {dom}"
    );
    // Every call, in order, with its status and its own verification.
    let ids = [
        "call_p01", "call_p02", "call_p03", "call_p04", "call_p05", "call_p06", "call_p03",
        "call_p07", "call_p08", "call_p09",
    ];
    let mut at = 0;
    for (n, id) in ids.iter().enumerate() {
        let head = format!("<article class=\"card call\" id=\"call-{}\">", n + 1);
        at += dom[at..]
            .find(&head)
            .unwrap_or_else(|| panic!("{head} after {at}"));
        let body = &dom[at..];
        let end = body.find("</article>").unwrap();
        assert!(body[..end].contains(&format!("<code>{id}</code>")), "{id}");
        assert!(body[..end].contains("Verification: ✔"), "{id}");
    }
    assert!(dom.contains("<code>DUPLICATE_TOOL_CALL</code>"));
    assert!(dom.contains("<span class=\"dup\">same scope as call_p01</span>"));
    // A log call's chart: bars for its 8 events (4 error, 2 warn, 2 info), and its patterns.
    let chart = &dom[dom
        .find("<svg class=\"chart\" id=\"chart-1\"")
        .expect("a chart")..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    assert!(
        chart.matches("<rect class=\"lv-error\"").count() >= 1,
        "{chart}"
    );
    assert!(chart.matches("<rect").count() >= 3, "{chart}");
    assert!(dom.contains("error 4") && dom.contains("warn 2") && dom.contains("info 2"));
    assert!(dom.contains("<table class=\"patterns\">"));
    // A RAG call's evidence: source, title, breadcrumb, excerpt.
    for text in [
        "runbooks/payment/gateway-timeout.md",
        "支付网关超时",
        "支付运维手册 &gt; 网关 &gt; 超时",
        "网关返回 504 说明上游在 30s 内未响应",
    ] {
        assert!(dom.contains(text), "{text}");
    }
    // Redactions over the incident, per rule: counts only.
    let summary = &dom[dom.find("id=\"redactions\"").unwrap()..];
    assert!(summary.contains("<code>credential.assignment</code>"));
}

#[test]
fn the_report_never_shows_what_the_boundary_withheld() {
    let (ran, html, _out) = report(&fixture(PAYMENT), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Raw values of the legacy responses, and the fields the projection drops.
    let withheld = [
        "LTAI5tPayOutage9xK2mQ7v",
        "100.100.0.5",
        "全文正文",
        "payment gateway 504",
        "0.88",
        "retrievalTrace",
        "contextPack",
    ];
    for planted in PAYMENT_PLANTED.iter().chain(&withheld) {
        let escaped = planted.replace('"', "&quot;");
        assert!(
            !html.contains(planted) && !html.contains(&escaped),
            "{planted} is in the report"
        );
    }
    // Without --verify the badge says so, and no call claims a match.
    assert!(html.contains("<p class=\"badge none\" id=\"verdict\">Not verified"));
    assert!(!html.contains("Verification: ✔"));
}

#[test]
fn a_changed_response_turns_the_badge_red_and_names_the_field() {
    let dir = copy_incident(PAYMENT);
    let ledger = live(dir.path());
    let rag = dir.path().join("responses/hikari-pool.json");
    let text = std::fs::read_to_string(&rag).unwrap();
    std::fs::write(&rag, text.replacen("HikariCP", "Hikari", 1)).unwrap();
    let (ran, html, _out) = report(dir.path(), &["--verify".as_ref(), ledger.as_os_str()]);
    assert_eq!(ran.code, 1, "{}", ran.stderr);
    assert!(html.contains("<p class=\"badge bad\" id=\"verdict\">✘ Not proven: 1 of 10 calls"));
    let call = &html[html.find("id=\"call-8\"").unwrap()..];
    let call = &call[..call.find("</article>").unwrap()];
    assert!(call.contains("MISMATCH with the ledger record"), "{call}");
    assert!(call.contains("<tr><td>result_sha256</td>"), "{call}");
}

#[test]
fn planted_markup_renders_as_text_and_runs_nothing() {
    let (ran, html, out) = report(&fixture(HOSTILE), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // Byte level: every element is one the report's own markup uses, and a CSP forbids scripts.
    for tag in opened_tags(&html) {
        assert!(OWN_TAGS.contains(&tag.as_str()), "an injected <{tag}>");
    }
    assert!(html.contains(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'"
    ));
    assert_eq!(html.matches("</style>").count(), 1);
    let head = &html[..html.find("</head>").unwrap()];
    assert_eq!(head.matches("</title>").count(), 1);
    // The other titles are the chart bars' tooltips.
    assert_eq!(
        html.matches("</title>").count(),
        1 + html.matches("<g class=\"bar\">").count()
    );
    assert!(!html.contains("href=\"javascript"));
    // The browser: no planted element exists, no planted script ran, the payloads are text.
    let Some(browser) = chromium() else { return };
    let dom = dump_dom(&browser, &out.path().join("report.html"));
    assert!(
        dom.contains("<title>aciproj incident report: run-20261202-xss</title>"),
        "the title changed: {dom}"
    );
    // In the serialized DOM a text `<` is always `&lt;`, so every `<` opens a real element:
    // each is one of the report's own, and none carries a planted id, handler or link.
    for tag in opened_tags(&dom) {
        assert!(OWN_TAGS.contains(&tag.as_str()), "the DOM holds a <{tag}>");
    }
    for element in dom
        .split('<')
        .skip(1)
        .map(|r| &r[..r.find('>').unwrap_or(r.len())])
    {
        for planted in ["xss-", " on", "javascript:", "data-xss"] {
            assert!(
                !element.contains(planted),
                "an element holds {planted}: <{element}>"
            );
        }
    }
    assert_eq!(dom.matches("<style>").count(), 1);
    for shown in [
        "&lt;script&gt;document.title='XSS-SCRIPT'",
        "&lt;img src=x onerror=\"document.title='XSS-IMG';this.id='xss-img'\"&gt; upstream slow",
        "see &lt;a href=\"javascript:document.title='XSS-LINK'\" id=\"xss-link\"&gt;the runbook",
        "config reloaded &lt;/style&gt;&lt;div id=\"xss-style\"&gt;",
        "&lt;/title&gt;&lt;div id=\"xss-title\"&gt;out of the title",
        "&lt;b id=\"xss-service\"&gt;payment&lt;/b&gt;",
        "&amp;amp;lt;script&amp;amp;gt; stays text",
        "payment &lt;script&gt;document.title='XSS-QUERY'&lt;/script&gt;",
        "&lt;/title&gt;&lt;script&gt;document.title='XSS-TITLE'&lt;/script&gt;&lt;h1 id=\"xss-rag-title\"&gt;",
        "Runbooks &gt; &lt;img src=x onerror=\"document.title='XSS-CRUMB'\" id=\"xss-crumb\"&gt;",
        "javascript:document.title='XSS-SOURCE'",
        "&lt;form id=\"xss-form\" action=\"https://evil.example/\"&gt;",
    ] {
        assert!(dom.contains(shown), "not shown as text: {shown}\n{dom}");
    }
}

/// html5lib's strict parser raises on the first HTML5 parse error.
const VALIDATE: &str = "\
import sys, html5lib
for path in sys.argv[1:]:
    try:
        html5lib.HTMLParser(strict=True).parse(open(path, 'rb').read())
    except Exception as e:
        print(f'{path}: {e!r}')
        sys.exit(1)
";

#[test]
fn reports_validate_as_html5() {
    let dir = copy_incident(PAYMENT);
    let ledger = live(dir.path());
    let (_, _, verified) = report(dir.path(), &["--verify".as_ref(), ledger.as_os_str()]);
    let (_, _, hostile) = report(&fixture(HOSTILE), &[]);
    let (_, _, plain) = report(&fixture("incidents/redis-latency"), &[]);
    let broken = tempfile::tempdir().unwrap();
    let bad = broken.path().join("bad.html");
    std::fs::write(&bad, "<!DOCTYPE html><title>x</title><p></div>").unwrap();
    let Some(control) = python_with("html5lib", VALIDATE, &[&bad]) else {
        return;
    };
    assert!(
        !control.status.success(),
        "the validator finds an error in a broken page"
    );
    let pages: Vec<PathBuf> = [&verified, &hostile, &plain]
        .iter()
        .map(|d| d.path().join("report.html"))
        .collect();
    let args: Vec<&Path> = pages.iter().map(PathBuf::as_path).collect();
    let ran = python_with("html5lib", VALIDATE, &args).expect("checked above");
    assert!(
        ran.status.success(),
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
}

#[test]
fn the_report_is_byte_for_byte_repeatable_however_the_folder_is_named() {
    let (_, first, _a) = report(&fixture(PAYMENT), &[]);
    let (_, second, _b) = report(&fixture(PAYMENT), &[]);
    assert!(first.len() > 10_000);
    assert_eq!(first, second);
    let relative = Aci::new([
        "replay",
        "fixtures/incidents/payment-outage/",
        "--report",
        "-",
    ])
    .run();
    assert_eq!(relative.stdout, first);
}

#[test]
fn a_report_on_stdout_replaces_the_json_lines() {
    let (_, file, _out) = report(&fixture(HOSTILE), &[]);
    let ran = Aci::new(["replay"])
        .arg(fixture(HOSTILE))
        .args(["--report", "-"])
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.starts_with("<!DOCTYPE html>\n"));
    assert_eq!(ran.stdout, file, "stdout holds the report and nothing else");
    assert!(ran.stderr.contains("replayed 2 calls: 2 READY, 0 ERROR"));
}

#[test]
fn an_unwritable_report_is_exit_5_naming_the_path() {
    let ran = Aci::new(["replay"])
        .arg(fixture(HOSTILE))
        .args(["--report", "/nonexistent/aciproj/report.html"])
        .run();
    assert_eq!(ran.code, 5);
    assert!(
        ran.stderr.contains(
            "aciproj: replay: cannot write the report /nonexistent/aciproj/report.html: No such \
             file or directory"
        ),
        "{}",
        ran.stderr
    );
}

/// A 200-call incident (log and RAG calls alternating, each a distinct scope).
fn big_incident() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let context = std::fs::read_to_string(fixture("incidents/payment-outage/context.json"))
        .unwrap()
        .replace("\"max_tool_calls\": 7", "\"max_tool_calls\": 1000")
        .replace(
            "\"max_observation_bytes\": 65536",
            "\"max_observation_bytes\": 100000000",
        );
    std::fs::write(dir.path().join("context.json"), context).unwrap();
    let logs = fixture("incidents/payment-outage/responses/payment-app-logs.json");
    let rag = fixture("incidents/payment-outage/responses/hikari-pool.json");
    let calls: String = (0..200)
        .map(|i| {
            let (tool, args, file) = if i % 2 == 0 {
                (
                    "logs",
                    serde_json::json!({"topic": "application-logs", "query": format!("payment timeout {i}"), "lookback_minutes": 30}),
                    &logs,
                )
            } else {
                ("rag", serde_json::json!({"query": format!("hikari pool {i}")}), &rag)
            };
            let call = serde_json::json!({"tool_call_id": format!("call_{i:03}"), "tool": tool,
                "arguments": args, "response_file": file});
            format!("{call}\n")
        })
        .collect();
    std::fs::write(dir.path().join("calls.jsonl"), calls).unwrap();
    dir
}

#[test]
fn a_200_call_incident_report_stays_under_2_mb() {
    let dir = big_incident();
    let (ran, html, _out) = report(dir.path(), &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert_eq!(html.matches("<article class=\"card call\"").count(), 200);
    assert!(html.contains("<dd>200: <span class=\"st ready\">READY 200</span>"));
    assert!(html.len() < 2 * 1024 * 1024, "{} bytes", html.len());
}
