//! Process ids: after a pid key (`pid=123`, `[pid 123]`, `进程 123`), in prose (`process 4242
//! exited`, `child 1234`, `worker 77 started`), in the syslog and daemon bracket forms
//! (`sshd[123]`, `name[123/0x7f]`), nginx's `pid#tid:`, and Android logcat's pid and tid
//! columns.

use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, ex};
use super::super::text::{Edit, PID, byte_at, byte_before, is_word_byte};
use crate::matcher::Matcher;

static PID_KEY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u:(?:pp|p|child|main|parent|worker|master|proc|process)[_-]?)?(?i-u:pid)",
        r"[ \t]*[:=#]?[ \t]*[0-9]{1,10}",
        r"|(?i-u:process)[_ -]?(?i-u:id)[ \t]*[:=]?[ \t]*[0-9]{1,10}",
        r"|(?i-u:process)[ \t]+[0-9]{2,10}[ \t]+\(",
        r"|(?-u:\b)(?i-u:process|child|worker|subprocess|daemon)[ \t]+[0-9]{2,10}(?-u:\b)",
        r"|进程(?:号|ID|id|PID)?[ \t]*(?:[:=]|：)?[ \t]*[0-9]{1,10}",
    ))
    .expect("constant regex")
});

static PID_BRACKET_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(
        r"[A-Za-z][A-Za-z0-9_.\-]*(?:\([A-Za-z0-9_.\-]*\))?\[[0-9]{1,7}(?:/0x[0-9A-Fa-f]{1,16})?\]",
    )
    .expect("constant regex")
});

static PID_NGINX_RE: LazyLock<Matcher> =
    LazyLock::new(|| Matcher::new(r"[0-9]{1,7}#[0-9]{1,7}:").expect("constant regex"));

/// Replaces the pid in every match of `re`, one of the three forms above.
fn pass_pid(re: &Matcher, s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in re.find_iter(s) {
        let text = m.as_str();
        let (start, end) = if text.ends_with(']') {
            let Some(open) = text.rfind('[') else {
                continue;
            };
            let inner = &text[open + 1..text.len() - 1];
            let digits = inner.split('/').next().unwrap_or(inner);
            // One digit is a pid only in the syslog form (`launchd[1]:`); `items[3]` is an index.
            if digits.len() < 2 && byte_at(s, m.end()) != Some(b':') {
                continue;
            }
            (m.start() + open + 1, m.end() - 1)
        } else if let Some(body) = text.strip_suffix('(') {
            // `Killed process 31245 (java)`.
            let body = body.trim_end();
            let digits = body.bytes().rev().take_while(u8::is_ascii_digit).count();
            if byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric()) {
                continue;
            }
            (m.start() + body.len() - digits, m.start() + body.len())
        } else if text.ends_with(':') {
            // nginx `12345#12345:` at the start of a field.
            if byte_before(s, m.start()).is_some_and(|b| !matches!(b, b' ' | b'\t')) {
                continue;
            }
            (m.start(), m.end() - 1)
        } else {
            let digits = text.bytes().rev().take_while(u8::is_ascii_digit).count();
            if byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric()) {
                continue;
            }
            if byte_at(s, m.end()).is_some_and(|b| is_word_byte(b) || b == b'.') {
                continue;
            }
            (m.end() - digits, m.end())
        };
        if e.replace(start, end, PID) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PID_FORMS: Rule = Rule {
    id: "pid.keyword",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process id after a pid key (pid=123, [pid 123], process_id: 9, 进程 123), in prose (process 4242 exited, child 1234), a bracket (sshd[123], app[123/0x7f]) or nginx's pid#tid.",
    keywords: &["pid", "process", "进程", "child", "worker", "daemon"],
    gate: |f| f.digit,
    pass: |s, hits| pass_pid(&PID_KEY_RE, s, hits),
    matchers: &[&PID_KEY_RE],
    examples: &[
        ex(
            "worker exited (pid=31245, code 137)",
            "worker exited (pid=<PID>, code 137)",
        ),
        ex(
            "process 4242 exited with status 1",
            "process <PID> exited with status 1",
        ),
    ],
    negatives: &[
        "processed 1500 records",
        "pid file missing",
        "spawned 4 workers",
    ],
};

pub(crate) static PID_BRACKET: Rule = Rule {
    id: "pid.bracket",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process id in brackets after a program name: sshd[123]:, crond(pam_unix)[2915], java[123/0x7f1a].",
    keywords: &[],
    gate: |f| f.bracket_digit,
    pass: |s, hits| pass_pid(&PID_BRACKET_RE, s, hits),
    matchers: &[&PID_BRACKET_RE],
    examples: &[
        ex(
            "sshd[24200]: Failed password",
            "sshd[<PID>]: Failed password",
        ),
        ex("nfsd[4021/0x7f3a] stalled", "nfsd[<PID>] stalled"),
    ],
    negatives: &["items[3] is null", "[2026-11-29] started"],
};

pub(crate) static PID_NGINX: Rule = Rule {
    id: "pid.nginx",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "nginx's pid#tid: prefix (`12345#12345: *1 connect() failed`).",
    keywords: &[],
    gate: |f| f.hash_digit,
    pass: |s, hits| pass_pid(&PID_NGINX_RE, s, hits),
    matchers: &[&PID_NGINX_RE],
    examples: &[
        ex(
            "[error] 31#31: *7 upstream timed out",
            "[error] <PID>: *7 upstream timed out",
        ),
        ex(
            "2026/11/29 [crit] 8#8: open() failed",
            "2026/11/29 [crit] <PID>: open() failed",
        ),
    ],
    negatives: &["issue #42: fixed", "room 3#4 booked"],
};

/// Android logcat's threadtime format: `03-17 16:13:38.811  1702  2395 D Tag: …`.
static LOGCAT_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(
        r"\A[0-9]{2}-[0-9]{2}[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[ \t]+([0-9]{1,7})[ \t]+([0-9]{1,7})[ \t]+[VDIWEFA][ \t]",
    )
    .expect("constant regex")
});

fn pass_logcat(s: &str, hits: &mut u32) -> Option<String> {
    let caps = LOGCAT_RE.captures_at(s, 0)?;
    let mut e = Edit::new(s);
    for g in 1..=2 {
        if let Some(m) = caps.get(g)
            && e.replace(m.start(), m.end(), PID)
        {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PID_LOGCAT: Rule = Rule {
    id: "pid.logcat",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "The pid and tid columns of an Android logcat line.",
    keywords: &[],
    // The header's `16:13:38.811`.
    gate: |f| f.clock,
    pass: pass_logcat,
    matchers: &[&LOGCAT_RE],
    examples: &[
        ex(
            "03-17 16:13:38.811  1702  2395 D WindowManager: printFreezingDisplayLogs",
            "03-17 16:13:38.811  <PID>  <PID> D WindowManager: printFreezingDisplayLogs",
        ),
        ex(
            "12-01 09:00:00.000 17 17 I init: started",
            "12-01 09:00:00.000 <PID> <PID> I init: started",
        ),
    ],
    negatives: &[
        "03-17 16:13:38.811 started 1702 jobs",
        "12-01 09:00:00 17 17 I x",
    ],
};
