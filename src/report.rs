//! `replay --report`: one self-contained HTML page an operator reads in a postmortem (SPEC §7).
//!
//! The page answers "what did the agent see, and why did it conclude that?" call by call: what
//! the model was given beside what the harness saw, and, with `--verify`, whether the ledger
//! proves it. It is built from the projection's outputs only (each call's Model Observation and
//! Harness Control View, and the ledger comparison), never from the legacy response, so it can
//! show nothing the boundary withheld.
//!
//! Trade-offs, and why:
//! - **Written by hand, through one escaping writer.** `Html::markup` takes only `&'static
//!   str`, so markup is always a literal of this file; every other string goes through
//!   `Html::text`, which escapes `& < > " '` (safe in text and in quoted attributes alike) and
//!   replaces the characters HTML5 calls parse errors (controls, noncharacters). No attribute is
//!   built from a value: ids, links and classes come from indexes and fixed names (a log level
//!   picks one of five classes; its text is never a class). A template engine would add a
//!   dependency to save very little.
//! - **No script, no external asset, and a Content-Security-Policy that says so**
//!   (`default-src 'none'; style-src 'unsafe-inline'`): even a payload the escaping missed could
//!   load and run nothing. The chart is inline SVG, the style an inline `<style>`.
//! - **Deterministic**: no wall clock, no hash-order iteration, numbers formatted by Rust; the
//!   incident is named by its folder's last component, not the path it was given by.
//! - **Bounded by what the model saw**: a log call's chart plots the timeline events the model
//!   was shown (the patterns' counts cover the rest), so a 200-call incident stays well under
//!   2 MB.

use std::collections::BTreeMap;

use crate::contracts::{
    CallStatus, ControlView, EvidenceStatus, LogsObservation, ModelObservation, RagObservation,
    RelevanceLevel,
};
use crate::error::Stage;
use crate::verify::{CallCheck, LedgerComparison, Verdict};

/// One replayed call as the report shows it: the two views and, with `--verify`, its check.
#[derive(Debug, Clone)]
pub struct ReportCall {
    /// What the model was given.
    pub observation: ModelObservation,
    /// What the harness was given.
    pub control: ControlView,
    /// The call's line of the ledger comparison, when the replay was verified.
    pub check: Option<CallCheck>,
}

/// Everything one report shows.
#[derive(Debug, Clone, Copy)]
pub struct IncidentReport<'a> {
    /// The incident's name (its folder's last component).
    pub incident: &'a str,
    /// The run replayed (the context's run id).
    pub run_id: &'a str,
    /// The calls, in order.
    pub calls: &'a [ReportCall],
    /// The ledger comparison, when the replay was verified.
    pub comparison: Option<&'a LedgerComparison>,
}

/// An HTML document being written: markup only from literals, everything else escaped.
struct Html(String);

impl Html {
    /// Markup from this file: a `&'static str`, so never a value read at run time.
    fn markup(&mut self, literal: &'static str) {
        self.0.push_str(literal);
    }

    /// Text (or a quoted attribute's value), escaped.
    fn text(&mut self, value: &str) {
        escape_into(&mut self.0, value);
    }

    /// A number.
    fn num(&mut self, n: u64) {
        use std::fmt::Write;
        let _ = write!(self.0, "{n}");
    }

    /// A coordinate of the chart, one decimal.
    fn coord(&mut self, v: f64) {
        use std::fmt::Write;
        let _ = write!(self.0, "{v:.1}");
    }

    /// `open`, the escaped `value`, `close`.
    fn el(&mut self, open: &'static str, value: &str, close: &'static str) {
        self.markup(open);
        self.text(value);
        self.markup(close);
    }
}

/// Escapes `value` for HTML text and quoted attributes. Characters that HTML5 reports as parse
/// errors (controls other than tab, line feed and carriage return; noncharacters) are shown as
/// `U+XXXX` instead, so the page validates whatever a log message held.
pub fn escape_into(out: &mut String, value: &str) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || is_noncharacter(c) => {
                use std::fmt::Write;
                let _ = write!(out, "U+{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

fn is_noncharacter(c: char) -> bool {
    let n = u32::from(c);
    (0xFDD0..=0xFDEF).contains(&n) || n & 0xFFFE == 0xFFFE
}

/// The class a log level is drawn with: one of five fixed names, never the level's text.
fn level_class(level: &str) -> (&'static str, usize) {
    match level.trim().to_ascii_uppercase().as_str() {
        "FATAL" | "CRITICAL" | "CRIT" | "ERROR" | "ERR" | "SEVERE" | "PANIC" | "ALERT"
        | "EMERG" => ("lv-error", 0),
        "WARN" | "WARNING" => ("lv-warn", 1),
        "INFO" | "NOTICE" => ("lv-info", 2),
        "DEBUG" | "TRACE" | "FINE" | "VERBOSE" => ("lv-debug", 3),
        _ => ("lv-other", 4),
    }
}

/// The chart's series, in stacking order (bottom first): name and class.
const SERIES: [(&str, &str); 5] = [
    ("error", "lv-error"),
    ("warn", "lv-warn"),
    ("info", "lv-info"),
    ("debug", "lv-debug"),
    ("other", "lv-other"),
];

const STYLE: &str = r#"
:root{--fg:#1d2430;--muted:#5b6472;--line:#d9dee6;--bg:#f5f7fa;--card:#fff;--ok:#17803d;--okbg:#e3f5e9;--bad:#b42318;--badbg:#fde8e6;--warn:#a15c00;--warnbg:#fff3dc;--info:#1f5fbf;--chip:#eef1f5}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Noto Sans CJK SC",sans-serif}
main{max-width:1180px;margin:0 auto;padding:20px 24px 40px}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:16px;margin:0;display:flex;flex-wrap:wrap;gap:8px;align-items:center}
h3{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 8px}
h4{font-size:13px;margin:12px 0 6px}
code,.mono{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono",monospace}
.sub{color:var(--muted);margin:0 0 14px}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px;margin:0 0 14px}
.badge{display:inline-block;padding:6px 12px;border-radius:6px;font-weight:600;margin:0 0 12px}
.badge.ok{background:var(--okbg);color:var(--ok);border:1px solid #9fd8b2}
.badge.bad{background:var(--badbg);color:var(--bad);border:1px solid #f2b0a9}
.badge.none{background:var(--chip);color:var(--muted);border:1px solid var(--line)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.chip{display:inline-block;background:var(--chip);border-radius:10px;padding:0 8px;margin:0 4px 2px 0;font-size:12px}
.st{font-size:12px;font-weight:700;padding:1px 8px;border-radius:10px}
.st.ready{background:var(--okbg);color:var(--ok)}
.st.error{background:var(--badbg);color:var(--bad)}
.tool{font-size:12px;color:#fff;background:#4a5568;border-radius:4px;padding:1px 6px}
.dup{font-size:12px;background:var(--warnbg);color:var(--warn);border-radius:10px;padding:1px 8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
td.nw,th.nw,.nw{white-space:nowrap}
td.ts{white-space:nowrap;font-size:11px}
dd code{overflow-wrap:anywhere}
th{font-size:12px;color:var(--muted);font-weight:600}
td.n,th.n{text-align:right;white-space:nowrap}
.cols{display:grid;grid-template-columns:minmax(0,7fr) minmax(240px,3fr);gap:16px;margin-top:12px}
.cols>section{min-width:0}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:16px}
article.call{content-visibility:auto;contain-intrinsic-size:auto 1400px}
.model{border-right:1px solid var(--line);padding-right:16px}
.scope{margin:8px 0 0;color:var(--muted)}
.scope b{color:var(--fg);font-weight:600}
.ev{border-left:3px solid var(--info);padding:4px 10px;margin:0 0 10px}
.ev .t{font-weight:600}
.ev .crumb,.ev .src{color:var(--muted);font-size:12px;overflow-wrap:anywhere}
.ev blockquote{margin:4px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
.msg{white-space:pre-wrap;overflow-wrap:anywhere}
.err{border-left:3px solid var(--bad);padding:4px 10px}
.verify{margin:12px 0 0;padding:6px 10px;border-radius:6px;font-size:13px}
.verify.ok{background:var(--okbg);color:var(--ok)}
.verify.bad{background:var(--badbg);color:var(--bad)}
.verify.none{background:var(--chip);color:var(--muted)}
.lv{font-weight:600;font-size:12px}
svg.chart{width:100%;max-width:640px;height:auto;display:block}
svg .lv-error{fill:#d64545}svg .lv-warn{fill:#e0a030}svg .lv-info{fill:#4a80d0}svg .lv-debug{fill:#9aa5b4}svg .lv-other{fill:#7d5bbf}
svg .axis{stroke:#aab2bf;stroke-width:1}
svg text{font:10px system-ui,sans-serif;fill:#5b6472}
span.lv-error{color:#b42318}span.lv-warn{color:#a15c00}span.lv-info{color:#1f5fbf}span.lv-debug,span.lv-other{color:#5b6472}
.legend{font-size:12px;color:var(--muted);margin:2px 0 6px}
.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin:0 4px 0 10px;vertical-align:-1px}
.legend i.lv-error{background:#d64545}.legend i.lv-warn{background:#e0a030}.legend i.lv-info{background:#4a80d0}.legend i.lv-debug{background:#9aa5b4}.legend i.lv-other{background:#7d5bbf}
.muted{color:var(--muted)}
footer{color:var(--muted);font-size:12px;margin-top:20px}
@media (max-width:800px){.cols{grid-template-columns:1fr}.model{border-right:0;padding-right:0}}
@media print{body{background:#fff}.card{break-inside:avoid}}
"#;

impl IncidentReport<'_> {
    /// The page, as bytes to write.
    pub fn render(&self) -> String {
        let mut h = Html(String::with_capacity(
            16 * 1024 + self.calls.len() * 8 * 1024,
        ));
        h.markup(
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
             style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta name=\"generator\" content=\"aciproj replay --report\">\n<title>",
        );
        h.el(
            "aciproj incident report: ",
            self.run_id,
            "</title>\n<style>",
        );
        h.markup(STYLE);
        h.markup("</style>\n</head>\n<body>\n<main>\n");
        self.header(&mut h);
        self.overview(&mut h);
        self.redactions(&mut h);
        for (i, call) in self.calls.iter().enumerate() {
            write_call(&mut h, i + 1, call);
        }
        h.markup(
            "<footer>Written by <code>aciproj replay --report</code> from the projection's \
             outputs (each call's model observation and harness control view) and the ledger \
             comparison; the legacy responses themselves are not shown, and redacted values \
             are never listed.</footer>\n</main>\n</body>\n</html>\n",
        );
        h.0
    }

    fn header(&self, h: &mut Html) {
        h.markup("<header class=\"card\">\n");
        h.el("<h1>Incident report: ", self.run_id, "</h1>\n");
        h.el(
            "<p class=\"sub\">Replayed by aciproj from the incident folder <code>",
            self.incident,
            "</code>.</p>\n",
        );
        self.badge(h);
        h.markup("<dl class=\"facts\">\n<dt>Run</dt><dd><code>");
        h.text(self.run_id);
        h.markup("</code></dd>\n<dt>Calls</dt><dd>");
        let ready = self
            .calls
            .iter()
            .filter(|c| c.control.status == CallStatus::Ready)
            .count() as u64;
        h.num(self.calls.len() as u64);
        h.markup(": <span class=\"st ready\">READY ");
        h.num(ready);
        h.markup("</span> <span class=\"st error\">ERROR ");
        h.num(self.calls.len() as u64 - ready);
        h.markup("</span>");
        let mut codes: BTreeMap<&str, u64> = BTreeMap::new();
        for c in self.calls {
            if let Some(e) = &c.control.error {
                *codes.entry(e.code.as_str()).or_default() += 1;
            }
        }
        for (code, n) in &codes {
            h.el(" <span class=\"chip\">", code, " ×");
            h.num(*n);
            h.markup("</span>");
        }
        h.markup("</dd>\n<dt>Tools</dt><dd>");
        let mut tools: BTreeMap<&str, u64> = BTreeMap::new();
        for c in self.calls {
            *tools.entry(c.control.tool.name()).or_default() += 1;
        }
        for (tool, n) in &tools {
            h.el("<span class=\"chip\">", tool, " ×");
            h.num(*n);
            h.markup("</span>");
        }
        h.markup("</dd>\n<dt>Time window</dt><dd>");
        match self.window() {
            Some((start, end)) => {
                h.text(start);
                h.markup(" – ");
                h.text(end);
                h.markup(" <span class=\"muted\">(the log calls' windows)</span>");
            }
            None => h.markup("<span class=\"muted\">no log call was answered</span>"),
        }
        h.markup("</dd>\n</dl>\n</header>\n");
    }

    /// The earliest window start and the latest window end over the answered log calls.
    fn window(&self) -> Option<(&str, &str)> {
        let mut start: Option<(jiff::Timestamp, &str)> = None;
        let mut end: Option<(jiff::Timestamp, &str)> = None;
        for c in self.calls {
            let ModelObservation::Logs(l) = &c.observation else {
                continue;
            };
            if let Ok(t) = l.scope.window_start.parse::<jiff::Timestamp>()
                && start.is_none_or(|(s, _)| t < s)
            {
                start = Some((t, &l.scope.window_start));
            }
            if let Ok(t) = l.scope.window_end.parse::<jiff::Timestamp>()
                && end.is_none_or(|(e, _)| t > e)
            {
                end = Some((t, &l.scope.window_end));
            }
        }
        Some((start?.1, end?.1))
    }

    fn badge(&self, h: &mut Html) {
        let Some(c) = self.comparison else {
            h.markup(
                "<p class=\"badge none\" id=\"verdict\">Not verified: replay with \
                 <code>--verify LEDGER</code> to compare every call with the live ledger</p>\n",
            );
            return;
        };
        let matching = c.calls.iter().filter(|k| k.verdict.matches()).count() as u64;
        let differ = c.calls.len() as u64 - matching + c.unreplayed.len() as u64;
        if c.all_match() {
            h.markup("<p class=\"badge ok\" id=\"verdict\">✔ Verified: all ");
            h.num(c.calls.len() as u64);
            h.markup(" calls match the ledger and its hash chain holds (");
            h.num(c.chain.records);
            h.markup(" records)</p>\n");
            return;
        }
        h.markup("<p class=\"badge bad\" id=\"verdict\">✘ Not proven: ");
        h.num(differ);
        h.markup(" of ");
        h.num(c.calls.len() as u64 + c.unreplayed.len() as u64);
        h.markup(" calls differ from the ledger; ");
        match &c.chain.broken {
            None => {
                h.markup("the chain holds (");
                h.num(c.chain.records);
                h.markup(" records)");
            }
            Some(b) => h.el("the chain is BROKEN: ", &b.to_string(), ""),
        }
        h.markup("</p>\n");
        if !c.unreplayed.is_empty() {
            h.markup("<p>Ledger records of this run that the incident does not hold:</p><ul>");
            for u in &c.unreplayed {
                h.el("<li><code>", &u.call_id, "</code> (ledger line ");
                h.num(u.line);
                h.markup(")</li>");
            }
            h.markup("</ul>\n");
        }
    }

    fn overview(&self, h: &mut Html) {
        h.markup(
            "<section class=\"card\" id=\"overview\">\n<h3>Calls</h3>\n<table>\n<thead><tr>\
             <th class=\"n\">#</th><th>call id</th><th>tool</th><th>status</th><th>code</th>\
             <th>evidence</th><th class=\"n\">returned</th><th class=\"n\">matched</th>\
             <th>truncated</th><th>verification</th></tr></thead>\n<tbody>\n",
        );
        for (i, c) in self.calls.iter().enumerate() {
            let v = &c.control;
            h.markup("<tr><td class=\"n\"><a href=\"#call-");
            h.num(i as u64 + 1);
            h.markup("\">");
            h.num(i as u64 + 1);
            h.markup("</a></td><td><code>");
            h.text(v.tool_call_id.as_deref().unwrap_or("(invalid id)"));
            h.el("</code></td><td>", v.tool.name(), "</td><td>");
            status_chip(h, v.status);
            h.el(
                "</td><td>",
                v.error.as_ref().map_or("", |e| e.code.as_str()),
                "</td><td>",
            );
            h.text(v.evidence_status.map_or("", evidence_name));
            h.markup("</td><td class=\"n\">");
            opt_num(h, v.returned_count);
            h.markup("</td><td class=\"n\">");
            opt_num(h, v.match_count);
            h.el(
                "</td><td>",
                v.truncated.map_or("", |t| if t { "yes" } else { "no" }),
                "</td><td>",
            );
            match &c.check {
                None => h.markup("<span class=\"muted\">not verified</span>"),
                Some(k) if k.verdict.matches() => h.markup("<span class=\"st ready\">match</span>"),
                Some(_) => h.markup("<span class=\"st error\">MISMATCH</span>"),
            }
            h.markup("</td></tr>\n");
        }
        h.markup("</tbody>\n</table>\n</section>\n");
    }

    fn redactions(&self, h: &mut Html) {
        let mut by_rule: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        let mut by_class: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
        for c in self.calls {
            for (map, into) in [
                (&c.control.redactions_by_rule, &mut by_rule),
                (&c.control.redactions, &mut by_class),
            ] {
                for (k, n) in map.iter().filter(|(_, n)| **n > 0) {
                    let e = into.entry(k).or_default();
                    e.0 += n;
                    e.1 += 1;
                }
            }
        }
        h.markup(
            "<section class=\"card\" id=\"redactions\">\n<h3>Redactions over the incident</h3>\n",
        );
        if by_rule.is_empty() && by_class.is_empty() {
            h.markup("<p class=\"muted\">Nothing was redacted in any call.</p>\n</section>\n");
            return;
        }
        h.markup(
            "<p class=\"muted\">What the boundary hid from the model, counted per catalogue rule \
             (<code>aciproj rules</code>) and per class; the values themselves are never \
             shown.</p>\n<div class=\"pair\">\n",
        );
        for (title, map) in [("rule", &by_rule), ("class", &by_class)] {
            h.el(
                "<section><table>\n<thead><tr><th>",
                title,
                "</th><th class=\"n\">redactions</th><th class=\"n\">calls</th></tr></thead>\n<tbody>\n",
            );
            for (k, (n, calls)) in map {
                h.el("<tr><td><code>", k, "</code></td><td class=\"n\">");
                h.num(*n);
                h.markup("</td><td class=\"n\">");
                h.num(*calls);
                h.markup("</td></tr>\n");
            }
            h.markup("</tbody>\n</table></section>\n");
        }
        h.markup("</div>\n</section>\n");
    }
}

fn evidence_name(e: EvidenceStatus) -> &'static str {
    match e {
        EvidenceStatus::Evidence => "EVIDENCE",
        EvidenceStatus::NoEvidence => "NO_EVIDENCE",
    }
}

fn stage_name(s: Stage) -> &'static str {
    match s {
        Stage::Preflight => "preflight",
        Stage::Legacy => "legacy",
        Stage::Projection => "projection",
        Stage::Input => "input",
    }
}

fn relevance_name(r: RelevanceLevel) -> &'static str {
    match r {
        RelevanceLevel::High => "HIGH",
        RelevanceLevel::Medium => "MEDIUM",
        RelevanceLevel::Low => "LOW",
    }
}

fn status_chip(h: &mut Html, status: CallStatus) {
    h.markup(match status {
        CallStatus::Ready => "<span class=\"st ready\">READY</span>",
        CallStatus::Error => "<span class=\"st error\">ERROR</span>",
    });
}

fn opt_num(h: &mut Html, n: Option<u64>) {
    if let Some(n) = n {
        h.num(n);
    }
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

fn write_call(h: &mut Html, n: usize, call: &ReportCall) {
    let v = &call.control;
    h.markup("<article class=\"card call\" id=\"call-");
    h.num(n as u64);
    h.markup("\">\n<h2><span class=\"muted\">#");
    h.num(n as u64);
    h.el(
        "</span> <code>",
        v.tool_call_id.as_deref().unwrap_or("(invalid id)"),
        "</code> ",
    );
    h.el("<span class=\"tool\">", v.tool.name(), "</span> ");
    status_chip(h, v.status);
    if let Some(e) = &v.error {
        h.el(" <code>", e.code.as_str(), "</code>");
    }
    if let Some(d) = &v.duplicate_of {
        h.el(" <span class=\"dup\">same scope as ", d, "</span>");
    }
    h.markup("</h2>\n");
    write_scope(h, call);
    h.markup("<div class=\"cols\">\n<section class=\"model\"><h3>What the model saw</h3>\n");
    match &call.observation {
        ModelObservation::Rag(r) => write_rag(h, r),
        ModelObservation::Logs(l) => write_logs(h, n, l),
        ModelObservation::Error(e) => {
            h.el(
                "<div class=\"err\"><p><b>ERROR</b> <code>",
                e.error.code.as_str(),
                "</code></p><p class=\"msg\">",
            );
            h.text(&e.error.message);
            h.markup("</p></div>\n");
        }
    }
    h.markup("</section>\n<section class=\"harness\"><h3>What the harness saw</h3>\n");
    write_control(h, v);
    h.markup("</section>\n</div>\n");
    write_check(h, call.check.as_ref());
    h.markup("</article>\n");
}

fn write_scope(h: &mut Html, call: &ReportCall) {
    h.markup("<p class=\"scope\">");
    match &call.observation {
        ModelObservation::Logs(l) => {
            h.el("topic <b>", &l.scope.topic, "</b> · query <b>");
            h.text(&l.scope.query);
            h.markup("</b> · window <b>");
            h.text(&l.scope.window_start);
            h.markup("</b> – <b>");
            h.text(&l.scope.window_end);
            h.markup("</b> (");
            h.num(u64::from(l.scope.lookback_minutes));
            h.markup(" min)");
        }
        ModelObservation::Rag(r) => h.el("query <b>", &r.query, "</b>"),
        ModelObservation::Error(_) => match &call.control.scope {
            Some(s) => {
                if let Some(t) = &s.topic {
                    h.el("topic <b>", t, "</b> · ");
                }
                h.el("query <b>", &s.query, "</b>");
                if let Some(m) = s.lookback_minutes {
                    h.markup(" · lookback ");
                    h.num(u64::from(m));
                    h.markup(" min");
                }
                h.markup(" <span class=\"muted\">(normalized)</span>");
            }
            None => h.markup("<span class=\"muted\">no valid scope</span>"),
        },
    }
    h.markup("</p>\n");
}

fn write_rag(h: &mut Html, r: &RagObservation) {
    h.el("<p><b>", evidence_name(r.evidence_status), "</b>");
    if let Some(level) = r.relevance_level {
        h.el(" · relevance <b>", relevance_name(level), "</b>");
    }
    h.el(" · truncated ", yes_no(r.truncated), "</p>\n");
    if r.evidence.is_empty() {
        h.markup("<p class=\"muted\">No evidence.</p>\n");
    }
    for e in &r.evidence {
        h.el("<div class=\"ev\"><div class=\"t\">", &e.title, "</div>");
        h.el("<div class=\"crumb\">", &e.breadcrumb, "</div>");
        h.el("<div class=\"src\"><code>", &e.source, "</code> · ");
        h.el("<code>", &e.document_id, "</code></div>");
        h.el("<blockquote>", &e.excerpt, "</blockquote></div>\n");
    }
}

fn write_logs(h: &mut Html, n: usize, l: &LogsObservation) {
    h.el("<p><b>", evidence_name(l.evidence_status), "</b> · ");
    h.num(l.match_count);
    h.markup(" matched · ");
    h.num(l.timeline.len() as u64);
    h.el(" events shown · truncated ", yes_no(l.truncated), "</p>\n");
    if !l.timeline.is_empty() {
        h.markup("<h4>Timeline</h4>\n");
        write_chart(h, n, l);
    }
    if !l.patterns.is_empty() {
        h.markup(
            "<h4>Patterns</h4>\n<table class=\"patterns\">\n<thead><tr><th>pattern</th>\
             <th>level</th><th class=\"n\">count</th><th>services</th><th>first – last seen</th>\
             </tr></thead>\n<tbody>\n",
        );
        for p in &l.patterns {
            h.el("<tr><td class=\"mono msg\">", &p.pattern, "</td>");
            level_cell(h, &p.level);
            h.markup("<td class=\"n\">");
            h.num(p.count);
            h.markup("</td><td>");
            for (i, s) in p.services.iter().enumerate() {
                h.markup(if i == 0 {
                    "<span class=\"nw\">"
                } else {
                    ", <span class=\"nw\">"
                });
                h.text(s);
                h.markup("</span>");
            }
            h.el("</td><td class=\"mono ts\">", &p.first_seen, "<br>");
            h.el("", &p.last_seen, "</td></tr>\n");
        }
        h.markup("</tbody>\n</table>\n");
    }
    if !l.timeline.is_empty() {
        h.markup(
            "<h4>Events</h4>\n<table class=\"events\">\n<thead><tr><th>time</th><th>level</th>\
             <th>service</th><th>message</th></tr></thead>\n<tbody>\n",
        );
        for e in &l.timeline {
            h.el("<tr><td class=\"mono ts\">", &e.timestamp, "</td>");
            level_cell(h, &e.level);
            h.el("<td class=\"nw\">", &e.service, "</td>");
            h.el("<td class=\"mono msg\">", &e.message, "</td></tr>\n");
        }
        h.markup("</tbody>\n</table>\n");
    }
}

fn level_cell(h: &mut Html, level: &str) {
    h.markup("<td class=\"nw\"><span class=\"lv ");
    h.markup(level_class(level).0);
    h.el("\">", level, "</span></td>");
}

/// Bars of the chart (time buckets across the window).
const BUCKETS: usize = 24;

/// The timeline as stacked bars: events per time bucket, by level.
fn write_chart(h: &mut Html, n: usize, l: &LogsObservation) {
    let stamps: Vec<Option<jiff::Timestamp>> = l
        .timeline
        .iter()
        .map(|e| e.timestamp.parse::<jiff::Timestamp>().ok())
        .collect();
    let placed: Vec<i64> = stamps
        .iter()
        .flatten()
        .map(|t| t.as_millisecond())
        .collect();
    let window = (
        l.scope.window_start.parse::<jiff::Timestamp>().ok(),
        l.scope.window_end.parse::<jiff::Timestamp>().ok(),
    );
    let (lo, hi) = match window {
        (Some(s), Some(e)) if e > s => (s.as_millisecond(), e.as_millisecond()),
        _ => (
            placed.iter().copied().min().unwrap_or(0),
            placed.iter().copied().max().unwrap_or(0),
        ),
    };
    let span = (hi - lo).max(1);
    let mut counts = [[0u64; 5]; BUCKETS];
    for (e, t) in l.timeline.iter().zip(&stamps) {
        let Some(t) = t else { continue };
        let at = (t.as_millisecond() - lo).clamp(0, span);
        let bucket = ((at as i128 * BUCKETS as i128) / (span as i128 + 1)) as usize;
        counts[bucket.min(BUCKETS - 1)][level_class(&e.level).1] += 1;
    }
    let max = counts
        .iter()
        .map(|b| b.iter().sum::<u64>())
        .max()
        .unwrap_or(0)
        .max(1);
    let (x0, x1, y0, y1) = (34.0, 632.0, 8.0, 118.0);
    let width = (x1 - x0) / BUCKETS as f64;
    h.markup("<svg class=\"chart\" id=\"chart-");
    h.num(n as u64);
    h.markup(
        "\" viewBox=\"0 0 640 140\" role=\"img\" aria-label=\"Timeline events per time bucket, \
         by level\" xmlns=\"http://www.w3.org/2000/svg\">",
    );
    h.markup("<line class=\"axis\" x1=\"34\" y1=\"118.5\" x2=\"632\" y2=\"118.5\"/>");
    h.markup("<line class=\"axis\" x1=\"33.5\" y1=\"8\" x2=\"33.5\" y2=\"118\"/>");
    h.markup("<text x=\"29\" y=\"14\" text-anchor=\"end\">");
    h.num(max);
    h.markup("</text><text x=\"29\" y=\"118\" text-anchor=\"end\">0</text>");
    for (i, bucket) in counts.iter().enumerate() {
        let total: u64 = bucket.iter().sum();
        if total == 0 {
            continue;
        }
        let x = x0 + width * i as f64 + 1.0;
        let mut top = y1;
        h.markup("<g class=\"bar\"><title>");
        let parts: Vec<String> = SERIES
            .iter()
            .zip(bucket)
            .filter(|(_, c)| **c > 0)
            .map(|((name, _), c)| format!("{c} {name}"))
            .collect();
        h.text(&parts.join(", "));
        h.markup("</title>");
        for ((_, class), count) in SERIES.iter().zip(bucket) {
            if *count == 0 {
                continue;
            }
            let height = (y1 - y0) * *count as f64 / max as f64;
            top -= height;
            h.markup("<rect class=\"");
            h.markup(class);
            h.markup("\" x=\"");
            h.coord(x);
            h.markup("\" y=\"");
            h.coord(top);
            h.markup("\" width=\"");
            h.coord(width - 2.0);
            h.markup("\" height=\"");
            h.coord(height);
            h.markup("\"/>");
        }
        h.markup("</g>");
    }
    h.markup("<text x=\"34\" y=\"134\">");
    h.text(&l.scope.window_start);
    h.markup("</text><text x=\"632\" y=\"134\" text-anchor=\"end\">");
    h.text(&l.scope.window_end);
    h.markup("</text></svg>\n<p class=\"legend\">");
    let mut totals = [0u64; 5];
    for b in &counts {
        for (t, c) in totals.iter_mut().zip(b) {
            *t += c;
        }
    }
    for ((name, class), total) in SERIES.iter().zip(totals) {
        if total > 0 {
            h.markup("<i class=\"");
            h.markup(class);
            h.el("\"></i>", name, " ");
            h.num(total);
        }
    }
    let unplaced = stamps.iter().filter(|s| s.is_none()).count() as u64;
    if unplaced > 0 {
        h.markup(" · ");
        h.num(unplaced);
        h.markup(" events without a readable time are not drawn");
    }
    h.markup("</p>\n");
}

fn write_control(h: &mut Html, v: &ControlView) {
    h.markup("<dl class=\"facts\">\n<dt>status</dt><dd>");
    status_chip(h, v.status);
    if let Some(e) = &v.error {
        h.el(" <code>", e.code.as_str(), "</code> at ");
        h.markup(stage_name(e.stage));
    }
    h.markup("</dd>\n");
    if let Some(e) = v.evidence_status {
        h.el("<dt>evidence</dt><dd>", evidence_name(e), "</dd>\n");
    }
    if let Some(r) = v.returned_count {
        h.markup("<dt>returned</dt><dd>");
        h.num(r);
        h.markup("</dd>\n");
    }
    if let Some(m) = v.match_count {
        h.markup("<dt>matched</dt><dd>");
        h.num(m);
        h.markup("</dd>\n");
    }
    if let Some(s) = v.skipped_entries.filter(|s| *s > 0) {
        h.markup("<dt>skipped entries</dt><dd>");
        h.num(s);
        h.markup(" <span class=\"muted\">(no usable time or message)</span></dd>\n");
    }
    if let Some(s) = &v.scope {
        h.markup("<dt>scope</dt><dd>");
        if let Some(t) = &s.topic {
            h.el("<code>", t, "</code> · ");
        }
        h.el("<code>", &s.query, "</code>");
        if let Some(m) = s.lookback_minutes {
            h.markup(" · ");
            h.num(u64::from(m));
            h.markup(" min");
        }
        h.markup("</dd>\n");
    }
    if let Some(f) = &v.scope_fingerprint {
        h.el("<dt>fingerprint</dt><dd><code>", f, "</code></dd>\n");
    }
    h.markup("<dt>duplicate of</dt><dd>");
    match &v.duplicate_of {
        Some(d) => h.el("<span class=\"dup\">", d, "</span>"),
        None => h.markup("<span class=\"muted\">none</span>"),
    }
    h.markup("</dd>\n");
    if let Some(r) = v.relevance_level {
        h.el("<dt>relevance</dt><dd>", relevance_name(r), "</dd>\n");
    }
    if let Some(t) = v.truncated {
        h.el("<dt>truncated</dt><dd>", yes_no(t), "");
        for (what, d) in v.truncation.iter().filter(|(_, d)| !d.is_empty()) {
            h.el("<br><span class=\"chip\">", what.name(), ": ");
            h.num(d.items);
            h.markup(" items, ");
            h.num(d.bytes);
            h.markup(" bytes</span>");
        }
        h.markup("</dd>\n");
    }
    for (title, map) in [
        ("redactions by class", &v.redactions),
        ("redactions by rule", &v.redactions_by_rule),
    ] {
        if map.values().any(|n| *n > 0) {
            h.el("<dt>", title, "</dt><dd>");
            for (k, n) in map.iter().filter(|(_, n)| **n > 0) {
                h.el("<span class=\"chip\">", k, " ");
                h.num(*n);
                h.markup("</span>");
            }
            h.markup("</dd>\n");
        }
    }
    if let Some(c) = &v.correlation {
        h.markup("<dt>correlation</dt><dd>");
        for (k, n) in &c.distinct {
            h.el("<span class=\"chip\">", k, " ");
            h.num(*n);
            h.markup(" labelled</span>");
        }
        h.num(c.unlabelled);
        h.markup(" unlabelled</dd>\n");
    }
    h.markup("<dt>bytes</dt><dd>observation ");
    h.num(v.observation_bytes);
    if let Some(r) = v.result_bytes {
        h.markup(" · result ");
        h.num(r);
    }
    h.markup("</dd>\n");
    if let Some(b) = &v.budget {
        h.markup("<dt>budget</dt><dd>calls ");
        h.num(b.tool_calls_used);
        h.markup(" used, ");
        h.num(b.tool_calls_left);
        h.markup(" left<br>bytes ");
        h.num(b.observation_bytes_used);
        h.markup(" used, ");
        h.num(b.observation_bytes_left);
        h.markup(" left</dd>\n");
    }
    h.markup("</dl>\n");
}

fn write_check(h: &mut Html, check: Option<&CallCheck>) {
    let Some(check) = check else {
        h.markup("<p class=\"verify none\">Verification: not verified</p>\n");
        return;
    };
    match &check.verdict {
        Verdict::Match => {
            h.markup("<p class=\"verify ok\">Verification: ✔ matches its ledger record</p>\n")
        }
        Verdict::NotRecorded(code) => h.el(
            "<p class=\"verify ok\">Verification: ✔ refused with <code>",
            code.as_str(),
            "</code> and, as in the live run, not recorded</p>\n",
        ),
        Verdict::MissingFromLedger => h.markup(
            "<p class=\"verify bad\">Verification: ✘ MISMATCH: the ledger has no record of \
             this call</p>\n",
        ),
        Verdict::RecordedButRefused { code, line } => {
            h.el(
                "<p class=\"verify bad\">Verification: ✘ MISMATCH: the replay refused it with \
                 <code>",
                code.as_str(),
                "</code>, but ledger line ",
            );
            h.num(*line);
            h.markup(" records it</p>\n");
        }
        Verdict::Differs(diffs) => {
            h.markup(
                "<div class=\"verify bad\">Verification: ✘ MISMATCH with the ledger record\
                 <table><thead><tr><th>field</th><th>ledger</th><th>replay</th></tr></thead>\
                 <tbody>",
            );
            for d in diffs {
                h.el("<tr><td>", d.field, "</td>");
                h.el("<td><code>", &d.ledger, "</code></td>");
                h.el("<td><code>", &d.replay, "</code></td></tr>");
            }
            h.markup("</tbody></table></div>\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped(s: &str) -> String {
        let mut out = String::new();
        escape_into(&mut out, s);
        out
    }

    #[test]
    fn markup_characters_and_quotes_are_escaped() {
        assert_eq!(
            escaped(r#"</style><img src=x onerror="a('b')">&amp;"#),
            "&lt;/style&gt;&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;amp;"
        );
        assert_eq!(escaped("内存 ok\tline\nnext"), "内存 ok\tline\nnext");
    }

    #[test]
    fn characters_html5_rejects_are_shown_as_code_points() {
        assert_eq!(escaped("a\u{0}b\u{1b}c\u{85}d"), "aU+0000bU+001BcU+0085d");
        assert_eq!(
            escaped("\u{FDD0}\u{FFFE}\u{10FFFF}"),
            "U+FDD0U+FFFEU+10FFFF"
        );
        assert_eq!(escaped("\u{FFFD}\u{FDF0}"), "\u{FFFD}\u{FDF0}");
    }

    #[test]
    fn a_level_picks_a_fixed_class_never_its_text() {
        assert_eq!(level_class(" warning ").0, "lv-warn");
        assert_eq!(level_class("Error").0, "lv-error");
        assert_eq!(level_class("\"><script>").0, "lv-other");
    }
}
