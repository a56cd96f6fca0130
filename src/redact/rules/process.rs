//! Process ids: after a pid key (`pid=123`, `[pid 123]`, `进程 123`), in prose (`process 4242
//! exited`, `child 1234`, `worker 77 started`), in the syslog and daemon bracket forms
//! (`sshd[123]`, `name[123/0x7f]`), nginx's `pid#tid:`, and Android logcat's pid and tid
//! columns.

use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, ex};
use super::super::text::{Edit, PID, byte_at, byte_before, escaped_letter, is_word_byte};
use super::replace_groups;
use crate::matcher::Matcher;

static PID_KEY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u:(?:pp|p|child|main|parent|worker|master|proc|process)[_ -]?)?(?i-u:pid)",
        r"[ \t]*[:=#]?[ \t]*[0-9]{1,10}",
        r"|(?i-u:process|thread)[_ -]?(?i-u:id)[ \t]*[:=]?[ \t]*[0-9]{1,10}",
        // Prose that names the id: `pid is 4412`, `PID of the server: 4412`, `process with id
        // 4412`.
        r"|(?-u:\b)(?i-u:pid)(?:[ \t]+(?i-u:of)(?:[ \t]+(?i-u:the))?[ \t]+[A-Za-z][A-Za-z0-9_\-]*)?(?:[ \t]+(?i-u:is)|[ \t]*:)[ \t]+[0-9]{2,10}",
        r"|(?-u:\b)(?i-u:process)[ \t]+(?i-u:with)[ \t]+(?i-u:id|pid)[ \t]+[0-9]{2,10}",
        r"|(?i-u:process)[ \t]+[0-9]{2,10}[ \t]+\(",
        // The prose forms also with the id bracketed: `worker [4412] started`.
        r"|(?-u:\b)(?i-u:process|proc|child|worker|subprocess|daemon|prozess|processus|proceso|processo|proces)[ \t]+[0-9]{2,10}(?-u:\b)",
        r"|(?:процесс|Процесс|プロセス)[ \t]*[0-9]{2,10}",
        // A crash report's `Process: Name [2291]`, `Parent Process: launchd [1]`.
        r"|(?-u:\b)(?i-u:process):[ \t]+[^\[\r\n]{1,80}\[[0-9]{1,7}\]",
        r"|(?-u:\b)(?i-u:process|child|worker|subprocess|daemon|thread)[ \t]+\[[0-9]{2,20}\]",
        r"|进程(?:号|ID|id|PID)?[ \t]*(?:[:=]|：)?[ \t]*[0-9]{1,10}",
        // Thread ids beside them: `[pid 19822:tid 140233871611648]`, `(LWP 90213)`,
        // `(thread 18233, …)`.
        // Spark's `(TID 42)` is a task, not a thread: `tid` is lower-case only.
        r"|(?-u:\b)(?:tid|LWP|lwp|[Tt]hread)[ \t]*[:=#]?[ \t]*[0-9]{2,20}",
    ))
    .expect("constant regex")
});

static PID_BRACKET_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(
        r"[A-Za-z][A-Za-z0-9_.\-]*(?:\([A-Za-z0-9_.\-]*\))?\[[0-9]{1,7}(?:[/:](?:0x[0-9A-Fa-f]{1,16}|[0-9]{1,10}))?\]",
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
            let digits = inner.split(['/', ':']).next().unwrap_or(inner);
            // `SQLSTATE[23000]` is an error class, not a process.
            if text[..open].eq_ignore_ascii_case("sqlstate") {
                continue;
            }
            // One digit is a pid only in the syslog form (`kdmflush[7]:`); `items[3]` is an
            // index. PID 1 is init on every machine (`systemd[1]:`): it tells nothing.
            if (digits.len() < 2 && byte_at(s, m.end()) != Some(b':')) || digits == "1" {
                continue;
            }
            // .NET's console logger names its category and event id: `info: Microsoft.Hosting.
            // Lifetime[14]`.
            let line_start = s[..m.start()]
                .rfind('\n')
                .map_or(0, |i| i + 1)
                .max(s[..m.start()].rfind("\\n").map_or(0, |i| i + 2));
            // logrus's text format counts seconds since start: `WARN[0000]`.
            let level = &text[usize::from(escaped_letter(s, m.start()))..open];
            if digits.len() == 4
                && ["INFO", "WARN", "ERRO", "DEBU", "FATA", "PANI", "TRAC"].contains(&level)
            {
                continue;
            }
            if ["info: ", "warn: ", "fail: ", "crit: ", "dbug: ", "trce: "]
                .iter()
                .any(|p| s[line_start..m.start()].trim_start() == *p)
            {
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
            // `pid 12.5` is a number; a sentence may end after one (`by process 61047.`).
            let decimal = byte_at(s, m.end()) == Some(b'.')
                && byte_at(s, m.end() + 1).is_some_and(|b| b.is_ascii_digit());
            if byte_at(s, m.end()).is_some_and(is_word_byte) || decimal {
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
    keywords: &[
        "pid",
        "process",
        "proc",
        "进程",
        "child",
        "worker",
        "daemon",
        "tid",
        "lwp",
        "thread",
        "prozess",
        "proceso",
        "processo",
        "proces",
        "процесс",
        "Процесс",
        "プロセス",
    ],
    gate: |f| f.digit,
    pass: |s, hits| pass_pid(&PID_KEY_RE, s, hits),
    matchers: &[&PID_KEY_RE],
    examples: &[
        ex(
            "server started, pid is 4412; PID of the server: 4413; process with id 4414; OS thread id 5521",
            "server started, pid is <PID>; PID of the server: <PID>; process with id <PID>; OS thread id <PID>",
        ),
        ex(
            "Prozess 4412 beendet, processus 5120 relancé",
            "Prozess <PID> beendet, processus <PID> relancé",
        ),
        ex(
            "worker exited (pid=31245, code 137)",
            "worker exited (pid=<PID>, code 137)",
        ),
        ex(
            "process 4242 exited with status 1",
            "process <PID> exited with status 1",
        ),
        ex(
            "[pid 5120:tid 139871234567] AH0001 denied; blocked by process 5127.",
            "[pid <PID>:tid <PID>] AH0001 denied; blocked by process <PID>.",
        ),
        ex(
            "[New Thread 0x7f12 (LWP 7781)]",
            "[New Thread 0x7f12 (LWP <PID>)]",
        ),
        ex(
            "worker [4412] started; thread [140302155527992] waiting",
            "worker [<PID>] started; thread [<PID>] waiting",
        ),
    ],
    negatives: &[
        "processed 1500 records",
        "pid file missing",
        "spawned 4 workers",
        "thread 1 of 4 idle",
        "process 2.5 GB in memory",
        "Running task 0.0 in stage 1.0 (TID 42)",
        "worker [3] of [8] ready",
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
        ex("Fieldbook[4187:1220931] synced", "Fieldbook[<PID>] synced"),
    ],
    negatives: &[
        "items[3] is null",
        "[2026-11-29] started",
        "SQLSTATE[23000]: Integrity constraint violation",
        "systemd[1]: Started Daily apt upgrade.",
        "info: Microsoft.Hosting.Lifetime[14]",
        "WARN[0000] The \"DB_PASSWORD\" variable is not set.",
    ],
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

/// The process ids a runtime prints in its own frame of a line: the sanitizers' and Valgrind's
/// `==48211==` line prefix, an Erlang/Elixir pid `<0.812.0>` (node, process, serial), and the
/// `[pid:tid:MMDD/hhmmss` head of Chromium, Electron and CEF logs.
static RUNTIME_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?m:^)[ \t]*==([0-9]{1,7})==",
        // Node 0 is the local one; a remote node's number is large. `<1.2.0>` is a version.
        r"|(<(?:0|[1-9][0-9]{2,5})\.[0-9]{1,7}\.[0-9]{1,5}>)",
        r"|(?m:^)\[([0-9]{1,7}):(?:([0-9]{1,10}):)?[0-9]{4}/[0-9]{6}",
        // Redis's `pid:role` head (`1183:M 03 Dec 2024 …`), ClickHouse's `[ tid ] {query}`,
        // SAP HANA's `[pid]{connection}[…]`, and a daemon's `name(pid):` (`auth-worker(4411):`).
        r"|(?m:^)([0-9]{1,7}):[MCSX][ \t]+[0-9]{1,2}[ \t]+[A-Z][a-z]{2}[ \t]",
        r"|\[ ([0-9]{1,10}) \][ \t]+(?:\{[^}\n]*\}[ \t]+)?<[A-Z][a-z]+>",
        r"|(?m:^)\[([0-9]{1,7})\]\{-?[0-9]{1,10}\}\[",
        // No dot in the name: `x.cpp(12): error C2065` is MSVC's diagnostic, its line.
        r"|(?:(?m:^)|[ \t:\[])[A-Za-z][A-Za-z0-9_\-]*[ ]?\(([0-9]{2,7})\):[ \t]",
        // IBM i's qualified job name, `number/user/job`: `482913/QUSER/QZDASOINIT`.
        r"|(?-u:\b)([0-9]{6})/[A-Z#$@][A-Z0-9_#$@]{0,9}/[A-Z#$@][A-Z0-9_#$@]{0,9}(?-u:\b)",
    ))
    .expect("constant regex")
});

fn pass_runtime(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in RUNTIME_RE.captures_iter(s) {
        for group in (1..=10).filter_map(|i| caps.get(i)) {
            // An Erlang pid is a word of its own: `<0.812.0>`, not `v<1.2.3>`; Elixir
            // inspects one as `#PID<0.812.0>`.
            let erlang = group.as_str().starts_with('<');
            let inspected = s[..group.start()].ends_with("#PID");
            if erlang
                && ((byte_before(s, group.start()).is_some_and(is_word_byte) && !inspected)
                    || byte_at(s, group.end()).is_some_and(is_word_byte))
            {
                continue;
            }
            if e.replace(group.start(), group.end(), PID) {
                *hits += 1;
            }
        }
    }
    e.finish()
}

pub(crate) static PID_RUNTIME: Rule = Rule {
    id: "pid.runtime",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A pid in a runtime's own line frame: `==48211==` (AddressSanitizer, Valgrind), an Erlang pid `<0.812.0>`, Chromium's `[pid:tid:MMDD/hhmmss…]` head.",
    keywords: &[
        "==",
        ".0>",
        ":error:",
        ":info:",
        ":warning:",
        ":fatal:",
        ":verbose",
        ":m ",
        ":c ",
        ":s ",
        ":x ",
        " ] ",
        "]{",
        "):",
        "/q",
    ],
    gate: |f| f.digit,
    pass: pass_runtime,
    matchers: &[&RUNTIME_RE],
    examples: &[
        ex(
            "Job 482913/QUSER/QZDASOINIT started on 03/12/26",
            "Job <PID>/QUSER/QZDASOINIT started on 03/12/26",
        ),
        ex(
            "==48211==ERROR: AddressSanitizer: heap-use-after-free",
            "==<PID>==ERROR: AddressSanitizer: heap-use-after-free",
        ),
        ex(
            "** (EXIT from <0.812.0>) shell process exited",
            "** (EXIT from <PID>) shell process exited",
        ),
        ex(
            "[51207:775:0310/142233.118:ERROR:gpu_init.cc(457)] Passthrough",
            "[<PID>:<PID>:0310/142233.118:ERROR:gpu_init.cc(457)] Passthrough",
        ),
        ex(
            "2290:M 11 Jun 2026 08:00:01.117 * Ready to accept connections",
            "<PID>:M 11 Jun 2026 08:00:01.117 * Ready to accept connections",
        ),
        ex(
            "dovecot: auth-worker(7716): Error: sql: Password mismatch",
            "dovecot: auth-worker(<PID>): Error: sql: Password mismatch",
        ),
    ],
    negatives: &[
        "if a == 3 then",
        "requires <1.2.0> of the API",
        "[2026:11:29/10] saved",
        "retry(3): giving up",
        "C:\\src\\grid.cpp(120): error C2065: 'w': undeclared identifier",
    ],
};

/// Android logcat's threadtime format: `03-17 16:13:38.811  1702  2395 D Tag: …`.
static LOGCAT_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(
        concat!(
            r"(?m:^)[0-9]{2}-[0-9]{2}[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[ \t]+([0-9]{1,7})[ \t]+([0-9]{1,7})[ \t]+[VDIWEFA][ \t]",
            // Android Studio's `pid-tid/package L/Tag:` after the date and time.
            r"|(?m:^)[0-9]{2,4}-[0-9]{2}(?:-[0-9]{2})?[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}[ \t]+([0-9]{1,7})-([0-9]{1,7})/(?:<HOST>|[A-Za-z?][A-Za-z0-9_.:?]*)[ \t]+[VDIWEFA]/",
        ),
    )
    .expect("constant regex")
});

fn pass_logcat(s: &str, hits: &mut u32) -> Option<String> {
    replace_groups(&LOGCAT_RE, s, PID, |_| false, hits)
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
        ex(
            "crash\n12-01 09:00:00.000  812  840 E AndroidRuntime: boom",
            "crash\n12-01 09:00:00.000  <PID>  <PID> E AndroidRuntime: boom",
        ),
        ex(
            "2026-12-03 10:01:02.345 4410-4471/org.sample.notes.debug W/Sync: retry",
            "2026-12-03 10:01:02.345 <PID>-<PID>/org.sample.notes.debug W/Sync: retry",
        ),
    ],
    negatives: &[
        "03-17 16:13:38.811 started 1702 jobs",
        "12-01 09:00:00 started 17 jobs",
    ],
};

/// A log line's header: the id a daemon writes between its timestamp and its level or source
/// (`UTC [38211] ERROR:`, `08:20:17.004411   61127 setup.go:225]`, `10:45:12Z 88 [Note]`,
/// `][3187][debug]`, `T13:15:02.1 #4122]  INFO`), after the level in Spring's `INFO 48213 ---`,
/// at the start of a line in brackets (`[31337] Puma`), and in logcat's brief form
/// (`I/flutter (21877):`). What marks it is where it stands, not a key.
static HEADER_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"[0-9]:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?",
        r"(?:[ \t]+[A-Z]{3,5})?(?:\]\[|\][ \t]+|[ \t]+)[\[(#]?([0-9]{1,10})(?:[:/]([0-9]{1,10}))?[\])]?",
        r"(?:[ \t]+([0-9]{1,10}))?[ \t]*:?[ \t]*",
        r"(?:(?i:trace|debug|info|notice|warn|warning|error|err|fatal|crit|critical|alert|emerg|log|detail|statement|hint|context|note|system)(?-u:\b)",
        // glog's and klog's `file.go:12]`, the file path-qualified too; MySQL's general log's
        // commands after the connection's thread id.
        r"|---|\[|[A-Za-z0-9_.\-/]+\.[a-z]{1,4}:[0-9]+(?:\]|[ \t])|[A-Za-z0-9_]+@[A-Za-z0-9_]+[ \t]|[VDIWEFA][ \t]",
        r"|(?:Query|Connect|Quit|Init DB|Execute|Prepare|Close stmt)[ \t])",
        // A bracketed id before the fields of a prefix: `UTC [48122] app=orders user=x LOG:`.
        r"|[0-9]:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})?(?:[ \t]+[A-Z]{3,5})?[ \t]+\[([0-9]{2,10})\][ \t]+[a-z_]+=",
        r"|(?i:trace|debug|info|warn|error|fatal)[ \t]+([0-9]{1,10})[ \t]+---",
        r"|(?m:^)\[([0-9]{2,10})\][ \t]",
        r"|(?m:^)[VDIWEFA]/[A-Za-z0-9_.$\-]+[ \t]*\([ \t]*([0-9]{1,10})\):",
        r"|\][ \t]+\(([0-9]{2,10})\)[ \t]*:",
        // Apache's `[pid 30211:tid 140182773016320]`, pstree's `sshd(1204)───bash(9913)`,
        // systemd's CGroup tree `└─1187 /usr/bin/redis-server`.
        r"|\[pid [0-9]+:tid ([0-9]{1,20})\]",
        r"|(?:─|┬|├|└|(?m:^)[ \t]*)\{?[A-Za-z][A-Za-z0-9_.:\-]*\}?\(([0-9]{1,10})\)(?:─|┬|$)",
        r"|(?:├─|└─)([0-9]{1,10})[ \t]+[/A-Za-z]",
        // PostgreSQL's `%m [%p] ` prefix before a severity in any language (`MSK [33643]
        // ВАЖНО:`, `CET [8812] ERREUR:`); a level and the id bracketed side by side
        // (`[INFO][1943]`, `[1943][INFO]`).
        r"|[0-9]:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?[ \t]+[A-Z]{3,5}[ \t]+\[([0-9]{2,10})\][ \t]+[^ \t\r\n:\[\]]{2,40}:",
        r"|\[(?i:trace|debug|info|notice|warn|warning|error|fatal|crit|critical)\]\[([0-9]{2,10})\]",
        r"|\[([0-9]{2,10})\]\[(?i:trace|debug|info|notice|warn|warning|error|fatal|crit|critical)\]",
        // RFC 5424's PROCID, after its priority, version, timestamp, host and app name:
        // `<134>1 2024-12-04T20:33:12Z fw01 sshd 43808 ID47 […]`.
        r"|(?m:^)<[0-9]{1,3}>1 [^ \t\r\n]+ [^ \t\r\n]+ [^ \t\r\n]+ ([0-9]{1,10}) ",
        // GLib's `(gedit:39855): Gtk-WARNING **:`; pino-pretty's `(api/21453 on host-7)`.
        r"|(?m:^)\([A-Za-z][A-Za-z0-9_.\-]*:([0-9]{2,10})\):[ \t]",
        r"|\([A-Za-z0-9_.@\-]+/([0-9]{1,10}) on [^ \t\r\n()]+\)",
        // Django's verbose formatter: `%(levelname)s %(asctime)s %(module)s %(process)d
        // %(thread)d`.
        r"|(?m:^)(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}[.,][0-9]{3} [A-Za-z_][A-Za-z0-9_]* ([0-9]{1,10}) ([0-9]{5,20}) ",
        // A thread id in hex after the time: WebSphere's `CEST] 000001a3 SystemErr`, Ceph's
        // `+0000 7f3b2c1fe640 -1 osd.14`; Veeam's `] <67> Info`; SQL Server's `.18 spid63`;
        // a bracketed tag and id (`[LOGON] [2316]`, netlogon).
        r"|[0-9]:[0-9]{2}:[0-9]{2}:[0-9]{3} [A-Z]{2,5}\] ([0-9a-f]{8}) ",
        r"|[0-9]:[0-9]{2}:[0-9]{2}(?:[.,][0-9]{1,9})?(?:Z|[+-][0-9]{2}:?[0-9]{2})? ([0-9a-f]{12,16}) +-?[0-9]{1,2} ",
        r"|[0-9]:[0-9]{2}:[0-9]{2}\] <([0-9]{1,6})> ",
        r"|[0-9]:[0-9]{2}:[0-9]{2}\.[0-9]{2} spid([0-9]{1,6})s?[ \t]",
        r"|\[[A-Z]{3,12}\] \[([0-9]{2,10})\] ",
        // MySQL's slow log: `# User@Host: app[app] @ db [10.0.0.5]  Id: 4471`.
        r"|# User@Host: [^\r\n]* Id: +([0-9]{1,10})",
        // The kernel's OOM task dump: `[ 1832.11] [    846]     0   846    12288 …`, pid and tgid.
        r"|(?m:^)\[[ \t]*[0-9]+\.[0-9]+\] \[[ \t]*([0-9]{1,10})\][ \t]+[0-9]+[ \t]+([0-9]{1,10})[ \t]+[0-9]+",
        // A pid and a hex thread id before a date (Commvault's `4412  1a2c  03/14 22:14:11`).
        r"|(?m:^)([0-9]{2,10})[ \t]+([0-9a-f]{2,8})[ \t]+[0-9]{2}/[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} ",
    ))
    .expect("constant regex")
});

fn pass_header(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in HEADER_RE.captures_iter(s) {
        for g in 1..caps.group_count() {
            let Some(m) = caps.get(g) else {
                continue;
            };
            // `[Sat May 11 11:25:01.118822 2024]`: a year after the time, not an id; a
            // bracketed `[2062]` is one.
            let year = m.as_str().len() == 4
                && !byte_before(s, m.start()).is_some_and(|b| matches!(b, b'[' | b'(' | b'#'))
                && m.as_str()
                    .parse::<u32>()
                    .is_ok_and(|y| (1970..=2100).contains(&y));
            // A table's row is no header: Get-WinEvent's `22:01:33      7017 Warning      Group`
            // is an event id, wide gaps on both sides of its level.
            let all = caps.get(0).map_or(m.end(), |a| a.end());
            let table = g <= 3 && s[..m.start()].ends_with("    ") && s[all..].starts_with("   ");
            // PID 1 is a container's main process on every machine: it tells nothing.
            if !year && !table && m.as_str() != "1" && e.replace(m.start(), m.end(), PID) {
                *hits += 1;
            }
        }
    }
    e.finish()
}

pub(crate) static PID_HEADER: Rule = Rule {
    id: "pid.header",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "The process or thread id of a daemon's line header: between its timestamp and level or source (`UTC [38211] ERROR:`, glog's `61127 setup.go:225]`), after Spring's level (`INFO 48213 ---`), a leading `[31337]`, logcat's `I/tag (21877):`.",
    keywords: &[],
    gate: |f| f.digit,
    pass: pass_header,
    matchers: &[&HEADER_RE],
    examples: &[
        ex(
            "I1203 14:22:07.118231    4411 k8s.io/client-go/tools/cache/reflector.go:539] watch closed",
            "I1203 14:22:07.118231    <PID> k8s.io/client-go/tools/cache/reflector.go:539] watch closed",
        ),
        ex(
            "W261203 09:14:02.551201 2207 kv/store.go:771 ⋮ [n2] slow raft ready",
            "W261203 09:14:02.551201 <PID> kv/store.go:771 ⋮ [n2] slow raft ready",
        ),
        ex(
            "2026-12-03 09:00:01.100 CET [61733] db=shop user=api LOG:  connection received",
            "2026-12-03 09:00:01.100 CET [<PID>] db=shop user=api LOG:  connection received",
        ),
        ex(
            "2026-12-03T10:00:00.123456Z\t   19231 Query\tSELECT 1",
            "2026-12-03T10:00:00.123456Z\t   <PID> Query\tSELECT 1",
        ),
        ex(
            "2026-11-29 09:58:01.442 UTC [38211] ERROR:  deadlock detected",
            "2026-11-29 09:58:01.442 UTC [<PID>] ERROR:  deadlock detected",
        ),
        ex(
            "I1129 09:58:01.004411   61127 reflector.go:325] watch closed",
            "I1129 09:58:01.004411   <PID> reflector.go:325] watch closed",
        ),
        ex(
            "2026-11-29 09:58:01.481  INFO 48213 --- [main] o.s.Boot : Started",
            "2026-11-29 09:58:01.481  INFO <PID> --- [main] o.s.Boot : Started",
        ),
        ex(
            "[2026-11-29 09:58:01.812][3187][debug][router] decoding",
            "[2026-11-29 09:58:01.812][<PID>][debug][router] decoding",
        ),
        ex(
            "I, [2026-11-29T09:58:01.118611 #4122]  INFO -- : sent",
            "I, [2026-11-29T09:58:01.118611 #<PID>]  INFO -- : sent",
        ),
        ex(
            "[31337] * Puma version: 6.4.2",
            "[<PID>] * Puma version: 6.4.2",
        ),
        ex(
            "I/flutter (21877): screen shown",
            "I/flutter (<PID>): screen shown",
        ),
        ex(
            "systemd(1)─┬─sshd(1204)───bash(9913)",
            "systemd(1)─┬─sshd(<PID>)───bash(<PID>)",
        ),
        ex(
            "  └─1187 /usr/bin/redis-server",
            "  └─<PID> /usr/bin/redis-server",
        ),
        ex(
            "2026-11-29T09:58:01.118221Z 88 [Note] Aborted connection",
            "2026-11-29T09:58:01.118221Z <PID> [Note] Aborted connection",
        ),
        ex(
            "2026-11-29 09:58:01.442 CET [2041] ERREUR:  la relation « x » n'existe pas",
            "2026-11-29 09:58:01.442 CET [<PID>] ERREUR:  la relation « x » n'existe pas",
        ),
        ex(
            "2026-11-29 09:58:01.442 [WARN][7712] routes.go 88: stale route",
            "2026-11-29 09:58:01.442 [WARN][<PID>] routes.go 88: stale route",
        ),
        ex(
            "<30>1 2026-11-29T09:58:01Z edge7 nginx 55120 - - upstream timed out",
            "<30>1 2026-11-29T09:58:01Z <HOST> nginx <PID> - - upstream timed out",
        ),
        ex(
            "(nautilus:41822): GLib-CRITICAL **: 09:58:01.442: g_source_remove failed",
            "(nautilus:<PID>): GLib-CRITICAL **: 09:58:01.442: g_source_remove failed",
        ),
        ex(
            "[09:58:01.442] WARN (billing/3318 on ip-10-0-3-7): retry scheduled",
            "[09:58:01.442] WARN (billing/<PID> on <HOST>): retry scheduled",
        ),
        ex(
            "WARNING 2026-11-29 09:58:01,442 views 7781 139872204519168 slow request",
            "WARNING 2026-11-29 09:58:01,442 views <PID> <PID> slow request",
        ),
        ex(
            "[11/29/26 09:58:01:442 CET] 0000004e SystemOut     O payment posted",
            "[11/29/26 09:58:01:442 CET] <PID> SystemOut     O payment posted",
        ),
        ex(
            "2026-11-29T09:58:01.442+0000 7f2a1c3fe640  0 osd.3 812 tick",
            "2026-11-29T09:58:01.442+0000 <PID>  0 osd.3 812 tick",
        ),
        ex(
            "[29.11.2026 09:58:01] <42> Info     [JobSession] started",
            "[29.11.2026 09:58:01] <<PID>> Info     [JobSession] started",
        ),
        ex(
            "2026-11-29 09:58:01.44 spid58      Starting up database 'erp'.",
            "2026-11-29 09:58:01.44 spid<PID>      Starting up database 'erp'.",
        ),
        ex(
            "11/29 09:58:01 [SESSION] [4120] CORP: NetrLogonSamLogon",
            "11/29 09:58:01 [SESSION] [<PID>] CORP: NetrLogonSamLogon",
        ),
        ex(
            "# User@Host: shop[shop] @ localhost []  Id:  9127",
            "# User@Host: shop[shop] @ localhost []  Id:  <PID>",
        ),
        ex(
            "[1832291.114400] [   4407]   101  4407     2531     98    53248        0             0 dnsmasq",
            "[1832291.114400] [   <PID>]   101  <PID>     2531     98    53248        0             0 dnsmasq",
        ),
        ex(
            "5120  2b7c  11/29 09:58:01 88412 JobSvr phase failed",
            "<PID>  <PID>  11/29 09:58:01 88412 JobSvr phase failed",
        ),
    ],
    negatives: &[
        "at 10:00:05 12 errors were logged",
        "2026-11-29 09:58:01 200 GET /health",
        "[2026-11-29] started",
        "took 10:00:05 1 step",
        "09:12:00.412 [main] INFO started",
        "[Sat May 11 11:25:01.118822 2026] [core:error] boom",
        "(docs/2024 on wiki) renamed",
        "[INFO][main] started 4 workers",
        "I1129 09:58:01.004411       1 leaderelection.go:250] lease acquired",
    ],
};

/// The process tools whose bare numeric arguments are process ids (`kill -9 4242`, `gdb -p
/// 2290`, `jcmd 41872 GC.heap_info`, `taskkill /PID 1234 /F`).
static TOOL_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?-u:\b)(?:kill|pkill|killall|jcmd|jstack|jmap|jinfo|jstat|jhsdb|gcore|pstack|strace|ltrace",
        r"|gdb|lldb|py-spy|rbspy|renice|taskset|prlimit|pmap|pidstat|nsenter|pwdx|pidof|perf|lsof|ionice|dotnet-dump|dotnet-trace|dotnet-counters|dotnet-gcdump",
        r"|(?i:taskkill)|(?i:Stop-Process)|(?i:Get-Process)|procdump|async-profiler|profiler\.sh)",
        r"(?:[ \t]+[^ \t\r\n;|&<>]+)+",
    ))
    .expect("constant regex")
});

/// Options whose value is a number that is not a process id.
const NOT_PID_OPTIONS: [&str; 14] = [
    "-n",
    "-s",
    "-c",
    "-t",
    "-i",
    "-d",
    "-F",
    "-m",
    "-r",
    "-o",
    "--interval",
    "--duration",
    "--timeout",
    "--rate",
];

fn pass_tool_args(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in TOOL_RE.find_iter(s) {
        let mut prev = "";
        let mut at = m.start();
        for word in m.as_str().split([' ', '\t']) {
            let start = at;
            at += word.len() + 1;
            if word.is_empty() {
                continue;
            }
            if word == "--" {
                break;
            }
            let digits = word.bytes().all(|b| b.is_ascii_digit());
            if digits
                && (2..=10).contains(&word.len())
                && !NOT_PID_OPTIONS.contains(&prev)
                && e.replace(start, start + word.len(), PID)
            {
                *hits += 1;
            }
            prev = word;
        }
    }
    e.finish()
}

/// A process id beside a machine's name and a colon, as cluster runtimes print their ranks:
/// Open MPI's `[node07:39212]` head, NCCL's and Horovod's `host:pid:tid`, and a number after
/// `<HOST>:` too large to be a port.
static HOST_PID_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?m:^)[ \t]*\[(?:<HOST>|[A-Za-z][A-Za-z0-9_.\-]*):([0-9]{2,7})(?::[0-9]{1,3})?\][ \t:]",
        // Two numbers after a name with no dot, the first of three digits or more: a clock
        // (`T10:22:31`) has two, a source location (`main.go:12:5`) a dot.
        r"|(?:<HOST>|(?-u:\b)[A-Za-z][A-Za-z0-9\-]*):([0-9]{3,7}):([0-9]{1,7})(?:[ \t\]]|\z)",
        r"|<HOST>:([0-9]{6,7})(?-u:\b)",
        // A `pid:thread` pair in brackets, as Python's `%(process)d:%(thread)d` prints it: the
        // thread's ident is long, so no clock or ratio (`[10:30]`) is one.
        r"|\[([0-9]{2,7}):([0-9]{5,20})\]",
    ))
    .expect("constant regex")
});

fn pass_host_pid(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in HOST_PID_RE.captures_iter(s) {
        let Some(whole) = caps.get(0) else { continue };
        // The last part of a dotted name or a path is a file (`main.go:120:5`).
        if byte_before(s, whole.start()).is_some_and(|b| matches!(b, b'.' | b'/' | b'\\')) {
            continue;
        }
        for m in (1..caps.group_count()).filter_map(|g| caps.get(g)) {
            if e.replace(m.start(), m.end(), PID) {
                *hits += 1;
            }
        }
    }
    e.finish()
}

pub(crate) static PID_HOST: Rule = Rule {
    id: "pid.host-colon",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process id beside a machine or a thread and a colon: Open MPI's `[node07:39212]` head, NCCL's `host:pid:tid`, Python's `[pid:thread]`, a number after a host too large for a port.",
    keywords: &[],
    gate: |f| f.colon_number,
    pass: pass_host_pid,
    matchers: &[&HOST_PID_RE],
    examples: &[
        ex(
            "[cn412:51877] *** Process received signal ***",
            "[cn412:<PID>] *** Process received signal ***",
        ),
        ex(
            "[gpu-n3:20114] Failing at address: 0x10",
            "[gpu-n3:<PID>] Failing at address: 0x10",
        ),
        ex(
            "trainer-2:31337:31390 [1] NCCL WARN timeout",
            "trainer-2:<PID>:<PID> [1] NCCL WARN timeout",
        ),
        ex(
            "rank 4 on <HOST>:1048577 lost",
            "rank 4 on <HOST>:<PID> lost",
        ),
        ex(
            "2026-12-03 10:00:01,002 [30117:139904412776256] INFO sync: done",
            "2026-12-03 10:00:01,002 [<PID>:<PID>] INFO sync: done",
        ),
    ],
    negatives: &[
        "listening on <HOST>:8443 and [dbmain:5432]",
        "at T10:22:31 in main.go:120:5 and 2026-12-03T10:22:31Z",
        "ab:12:34 and a:1:2",
        "window [10:30] and ratio [3:14159]",
    ],
};

/// Process and thread ids a runtime names beside a process word: in parentheses
/// (`thread (0x1f4c)`, `ThreadId(02)`, `New worker (48219) forked`), in a process name's
/// bracket (`[MainProcess:7712]`, `[ThreadPoolExecutor-0_3:1402…]`), and every id of a list
/// after a plural or group key (`PIDs: 301442 301455`, `PGID: 301442`).
static PID_PAIRED_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?-u:\b)(?:[Tt]hread|THREAD|ThreadId|[Tt]hread[Ii]d|[Ww]orker|[Pp]rocess|[Cc]hild|LWP)[ \t]?\([ \t]*",
        r"(0x[0-9A-Fa-f]{1,16}|\$[0-9A-Fa-f]{1,16}|[0-9]{1,10}(?:\.[0-9]{1,6})?)[ \t]*\)",
        r"|\[[A-Za-z][A-Za-z0-9_\-]*(?:Process|Thread|Worker|Executor)[A-Za-z0-9_\-]*:([0-9]{2,20})\]",
        r"|(?-u:\b)(?i-u:pids|pgid|pgrp|tids)[ \t]*[:=][ \t]*([0-9]{2,10}(?:(?:[ \t]*,[ \t]*|[ \t]+)[0-9]{2,10})*)",
        // A `/proc/N/` path, and the kernel's hung task (`task java:1234 blocked for …`).
        r"|/proc/([0-9]{2,7})/",
        r"|(?-u:\b)task [^ \t\r\n]+:([0-9]{2,7}) blocked for more than",
        // gdb's `Thread 3 (Thread 0x7f3a… (LWP 4242))`, a server's `process ID is 412`, an
        // ESXi world's `cpu12:2097681)`, an Oracle trace file's `ORCL_ora_18822.trc`.
        r"|(?-u:\b)Thread (0x[0-9A-Fa-f]{6,16}) \(LWP",
        r"|(?-u:\b)(?i:process id) is ([0-9]{2,10})",
        r"|(?-u:\b)cpu[0-9]{1,4}:([0-9]{2,10})\)",
        r"|_ora_([0-9]{2,10})\.tr[cm](?-u:\b)",
        // GLib's `(nautilus:4412): GLib-WARNING **`: the program and its pid in parentheses.
        r"|\((?:[A-Za-z][A-Za-z0-9_\-]*):([0-9]{2,10})\):[ \t]",
        // pino-pretty's `(47431 on web-3)`: the pid, then the host it runs on.
        r"|\(([0-9]{2,10}) on [A-Za-z0-9<][^ \t\r\n()]*[0-9.\->][^ \t\r\n()]*\)",
        // A line's own `[pid - thread]` head (Suricata's `[29203 - Suricata-Main]`).
        r"|(?m:^)\[([0-9]{2,10}) - [A-Za-z][A-Za-z0-9_#.\-]*\]",
        // A signal's target: `kill(4412, SIGTERM)`, `Killing 4412 with SIGKILL`, `sent SIGKILL
        // to session 52938`, `Sending SIGTERM (15) to 4412`.
        r"|(?-u:\b)(?i-u:kill(?:ing|ed)?)[ \t]*\(?[ \t]*(?:(?i-u:process|pid)[ \t]+)?([0-9]{2,10})(?:[ \t]*,[ \t]*|[ \t]+(?:(?i-u:with)[ \t]+)?)SIG[A-Z0-9]+",
        r"|(?-u:\b)SIG[A-Z0-9]+(?:[ \t]+\([0-9]{1,2}\))?[ \t]+(?i-u:to)[ \t]+(?:(?i-u:process|pid|session|child|group)[ \t]+)?([0-9]{2,10})(?-u:\b)",
        // A program and its pid: `task 4412 (python3)`, `Stopping java (4412)`, `the daemon
        // (4412) exited`, `pid/tid 4412/5521`.
        r"|(?-u:\b)(?i-u:task)[ \t]+([0-9]{2,10})[ \t]+\([A-Za-z]",
        r"|(?-u:\b)(?i-u:stopping|starting|restarting|killing|reloading)[ \t]+[A-Za-z][A-Za-z0-9_.\-]*[ \t]+\(([0-9]{2,10})\)",
        r"|\(([0-9]{2,10})\)[ \t]+(?i-u:exited|died|terminated|crashed|was killed|received signal|stopped|started|forked|spawned)",
        r"|(?-u:\b)(?i-u:pid/tid)[ \t:=]*(?:<PID>|[0-9]{2,10})/([0-9]{2,10})",
    ))
    .expect("constant regex")
});

fn pass_paired(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in PID_PAIRED_RE.captures_iter(s) {
        let Some(m) = (1..caps.group_count()).find_map(|g| caps.get(g)) else {
            continue;
        };
        // `worker(3)` with one digit is a count or an index, and PID 1 is init.
        if m.as_str().len() < 2 {
            continue;
        }
        let mut at = m.start();
        for id in m.as_str().split([' ', '\t', ',']) {
            if !id.is_empty() && id != "1" && e.replace(at, at + id.len(), PID) {
                *hits += 1;
            }
            at += id.len() + 1;
        }
    }
    e.finish()
}

pub(crate) static PID_PAIRED: Rule = Rule {
    id: "pid.paired",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process or thread id in parentheses after a process word (`thread (0x1f4c)`, `ThreadId(02)`, `worker (48219)`), in a process name's bracket (`[MainProcess:7712]`), every id of a `PIDs:` or `PGID:` list, a `/proc/N/` path, the kernel's hung task.",
    keywords: &[
        "thread",
        "worker",
        "process",
        "child",
        "lwp",
        "pids",
        "pgid",
        "pgrp",
        "tids",
        "/proc/",
        "blocked for more than",
        "cpu",
        "_ora_",
        " on ",
        " - ",
        "):",
        "kill",
        "sig",
        "task",
        "stopping",
        "starting",
        "restarting",
        "reloading",
        "exited",
        "died",
        "terminated",
        "crashed",
        "was killed",
        "received signal",
        "stopped",
        "started",
        "forked",
        "spawned",
        "pid/tid",
    ],
    gate: |f| f.digit,
    pass: pass_paired,
    matchers: &[&PID_PAIRED_RE],
    examples: &[
        ex(
            "** (nautilus:4412): CRITICAL **: 10:00:01.118: assertion failed",
            "** (nautilus:<PID>): CRITICAL **: 10:00:01.118: assertion failed",
        ),
        ex(
            "UI thread (0x2b0c) blocked for 4s",
            "UI thread (<PID>) blocked for 4s",
        ),
        ex(
            "WARN ThreadId(07) proxy: connect failed",
            "WARN ThreadId(<PID>) proxy: connect failed",
        ),
        ex(
            "[NOTICE] New worker (40112) forked",
            "[NOTICE] New worker (<PID>) forked",
        ),
        ex(
            "Thread 2 (Thread 0x7f1c2a3fe640 (LWP 5521)) and Process(7120.4) User(mqm)",
            "Thread 2 (Thread <PID> (LWP <PID>)) and Process(<PID>) User(mqm)",
        ),
        ex(
            "Server process ID is 6120. cpu7:2099417)ScsiDeviceIO: failed",
            "Server process ID is <PID>. cpu7:<PID>)ScsiDeviceIO: failed",
        ),
        ex(
            "[10:11:12.345] ERROR (40112 on <HOST>): connect refused",
            "[10:11:12.345] ERROR (<PID> on <HOST>): connect refused",
        ),
        ex(
            "kill(4412, SIGTERM) failed; Killing 4413 with SIGKILL; sent SIGKILL to session 5120",
            "kill(<PID>, SIGTERM) failed; Killing <PID> with SIGKILL; sent SIGKILL to session <PID>",
        ),
        ex(
            "task 7741 (python3) blocked; Stopping java (4412); the daemon (5120) exited",
            "task <PID> (python3) blocked; Stopping java (<PID>); the daemon (<PID>) exited",
        ),
        ex(
            "[5120 - W#01] 2026-03-01 10:00:01 Info: engine started",
            "[<PID> - W#01] 2026-03-01 10:00:01 Info: engine started",
        ),
        ex(
            "Errors in file /u01/diag/rdbms/fin/FIN1/trace/FIN1_ora_40211.trc:",
            "Errors in file /u01/diag/rdbms/fin/FIN1/trace/FIN1_ora_<PID>.trc:",
        ),
        ex(
            "12:00:01 [SpawnProcess-2:55120] [Dummy-4:140011223344] job ok",
            "12:00:01 [SpawnProcess-2:<PID>] [Dummy-4:140011223344] job ok",
        ),
        ex(
            "session PGID: 70021; PIDs: 70021 70034, 70035",
            "session PGID: <PID>; PIDs: <PID> <PID>, <PID>",
        ),
        ex(
            "read /proc/30412/smaps; INFO: task jbd2/sda1-8:412 blocked for more than 120 seconds.",
            "read /proc/<PID>/smaps; INFO: task jbd2/sda1-8:<PID> blocked for more than 120 seconds.",
        ),
    ],
    negatives: &[
        "failed at (main.c:42): bad fd and (step:3): skipped",
        "worker(3) of 8 idle; thread (main) waiting",
        "sold (25 on sale) today",
        "killed 12 jobs; retried (3) started; task 12 of 40 done",
        "ThreadPoolExecutor(max_workers=4) started",
        "process (1) exited",
        "/proc/self/status and /proc/sys/vm/swappiness",
    ],
};

/// A process table's row known by its columns' shapes, with no header line above it: `ps aux`
/// (user, pid, %cpu, %mem, vsz, rss), `ps -ef` (uid, pid, ppid, c, stime, tty, time), `top`
/// (pid, user, pr, ni, virt, res, shr, state), `lsof` (command, pid, user, fd), Windows'
/// `tasklist` (image, pid, session, memory). Each has aligned columns: two blanks or a tab.
static PROCESS_ROW_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?m:^)[ \t]*[a-z_][a-z0-9_.+\-]*[ \t]+([0-9]{1,7})[ \t]+[0-9]{1,3}\.[0-9][ \t]+[0-9]{1,3}\.[0-9][ \t]+[0-9]+[ \t]+[0-9]+[ \t]",
        r"|(?m:^)[ \t]*[a-z_][a-z0-9_.+\-]*[ \t]+([0-9]{1,7})[ \t]+([0-9]{1,7})[ \t]+[0-9]{1,3}[ \t]+[0-9A-Za-z:]+[ \t]+[^ \t\r\n]+[ \t]+[0-9]{1,3}:[0-9]{2}:[0-9]{2}[ \t]",
        r"|(?m:^)[ \t]*([0-9]{1,7})[ \t]+[a-z_][a-z0-9_.+\-]*[ \t]+(?:-?[0-9]{1,2}|rt)[ \t]+-?[0-9]{1,2}[ \t]+[0-9.]+[kmgtp]?[ \t]+[0-9.]+[kmgtp]?[ \t]+[0-9.]+[kmgtp]?[ \t]+[RSDZTIX][ \t]",
        r"|(?m:^)[A-Za-z0-9_.\-:/]+[ \t]+([0-9]{1,7})[ \t]+[a-z_][a-z0-9_.\-]*[ \t]+(?:cwd|rtd|txt|mem|DEL|[0-9]{1,5}[rwu])[ \t]",
        r"|(?m:^)[^ \t\r\n]+\.exe[ \t]+([0-9]{1,7})[ \t]+(?:Console|Services|RDP-Tcp#[0-9]+)[ \t]+[0-9]+[ \t]+[0-9,.]+ K",
    ))
    .expect("constant regex")
});

pub(crate) static PID_PROCESS_ROW: Rule = Rule {
    id: "pid.process-row",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process table's row known by its columns' shapes with no header above it (ps aux, ps -ef, top, lsof, tasklist).",
    keywords: &[],
    gate: |f| f.digit && f.wide_gap,
    // PID 1 is init on every machine: it tells nothing.
    pass: |s, hits| replace_groups(&PROCESS_ROW_RE, s, PID, |id| id == "1", hits),
    matchers: &[&PROCESS_ROW_RE],
    examples: &[
        ex(
            "www-data  30412  1.2  0.8 412332 65120 ?        S    09:12   0:03 php-fpm: pool www",
            "www-data  <PID>  1.2  0.8 412332 65120 ?        S    09:12   0:03 php-fpm: pool www",
        ),
        ex(
            "redis      8812     1  0 Dec02 ?        00:12:41 /usr/bin/redis-server *:6379",
            "redis      <PID>     1  0 Dec02 ?        00:12:41 /usr/bin/redis-server *:6379",
        ),
        ex(
            "  30412 mysql     20   0 2451232 412332  12044 S   3.0   5.1  12:41.02 mysqld",
            "  <PID> mysql     20   0 2451232 412332  12044 S   3.0   5.1  12:41.02 mysqld",
        ),
        ex(
            "nginx     30412 www-data  6u  IPv4 0x1  0t0  TCP *:80 (LISTEN)",
            "nginx     <PID> www-data  6u  IPv4 0x1  0t0  TCP *:80 (LISTEN)",
        ),
        ex(
            "svchost.exe                   1204 Services                   0     12,044 K",
            "svchost.exe                   <PID> Services                   0     12,044 K",
        ),
    ],
    negatives: &["12 2.5 3.1 files in 3 dirs", "user  12  0.5  1.5 dirs"],
};

pub(crate) static PID_TOOL_ARGS: Rule = Rule {
    id: "pid.tool-args",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process id handed to a process tool: kill, jcmd, jstack, gdb -p, strace -p, py-spy, taskkill /PID and their kin.",
    keywords: &[
        "kill",
        "jcmd",
        "jstack",
        "jmap",
        "jinfo",
        "jstat",
        "jhsdb",
        "gcore",
        "pstack",
        "strace",
        "ltrace",
        "gdb",
        "lldb",
        "py-spy",
        "rbspy",
        "renice",
        "taskset",
        "prlimit",
        "pmap",
        "pidstat",
        "nsenter",
        "pwdx",
        "pidof",
        "perf",
        "stop-process",
        "get-process",
        "procdump",
        "profiler",
        "lsof",
        "ionice",
        "dotnet-",
    ],
    gate: |f| f.digit,
    pass: pass_tool_args,
    matchers: &[&TOOL_RE],
    examples: &[
        ex("$ kill -9 22418 22419", "$ kill -9 <PID> <PID>"),
        ex(
            "lsof -p 3318 | wc -l; dotnet-dump collect -p 3320",
            "lsof -p <PID> | wc -l; dotnet-dump collect -p <PID>",
        ),
        ex("gdb -p 2290 -batch -ex bt", "gdb -p <PID> -batch -ex bt"),
        ex("jcmd 41872 GC.heap_info", "jcmd <PID> GC.heap_info"),
        ex("jstack -l 31877 > dump.txt", "jstack -l <PID> > dump.txt"),
        ex(
            "perf record -F 99 -p 3311 -- sleep 30",
            "perf record -F 99 -p <PID> -- sleep 30",
        ),
    ],
    negatives: &[
        "killed 12 jobs in 30 s",
        "renice -n 10 done",
        "skill level 42",
    ],
};

/// A key that names a process or thread id, whatever its syntax (`"_PID":"20441"`, `spid="73"`,
/// `mpid=77120`, `Process ID: 0x1f4c`, `nid=0x5b2f`, `"tid":"2cyw"`): the key's last word is
/// what tells.
static KEY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?i-u:[A-Za-z_]*(?:pid|tid|lwp|nid|eduid|osthread|process[_ ]?id|thread[_ ]?id|prozess-?id|进程 ?id|proc))["']?[ \t]*(?:=>|[:=]|：)[ \t]*["']?"#,
        r"(0x[0-9A-Fa-f]{1,16}|[0-9]{1,20}|[0-9A-F]{4,16}|[a-z0-9]{3,8})(?-u:\b)",
        // A Windows event's XML field: `<Data Name="CallerProcessId">0x2a8</Data>`.
        r#"|Name=["'][A-Za-z]*(?:Process|Thread)I[dD]["']>(0x[0-9A-Fa-f]{1,16}|[0-9]{2,10})<"#,
    ))
    .expect("constant regex")
});

fn pass_key(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in KEY_RE.captures_iter(s) {
        if let Some(v) = caps.get(2) {
            if e.replace(v.start(), v.end(), PID) {
                *hits += 1;
            }
            continue;
        }
        let (Some(all), Some(v)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        if byte_before(s, all.start()).is_some_and(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let key =
            s[all.start()..v.start()].trim_end_matches([':', '=', '>', '"', '\'', ' ', '\t', '：']);
        let lower = key.to_ascii_lowercase();
        let last = lower.rsplit(['_', '-', '.', ' ']).next().unwrap_or(&lower);
        // A camel-case key's last word: Android's `sysTid=`, 1C's `OSThread=`.
        let camel = key
            .rfind(|c: char| c.is_ascii_uppercase())
            .filter(|&i| i > 0)
            .map(|i| key[i..].to_ascii_lowercase());
        let last = match camel.as_deref() {
            Some("tid") => "tid",
            _ if lower.ends_with("osthread") => "tid",
            // `RawProcessId`, `ParentProcessId`, `TargetThreadId`: the words before tell whose.
            _ if lower.ends_with("processid") => "processid",
            _ if lower.ends_with("threadid") => "threadid",
            _ => last,
        };
        let value = v.as_str();
        let numeric = (value.bytes().all(|b| b.is_ascii_digit()) && value.len() <= 10)
            || value.starts_with("0x")
            // AIX's `PID: 2040E05A`: upper-case hex with a digit and a letter.
            || (value.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_lowercase())
                && value.bytes().any(|b| b.is_ascii_digit())
                && value.bytes().any(|b| b.is_ascii_alphabetic()));
        // A thread id of glibc is a pointer in decimal (`TID : 140212442998528`).
        let long_tid = value.len() > 10 && value.bytes().all(|b| b.is_ascii_digit());
        let ok = match last {
            "pid" | "ppid" | "spid" | "mpid" | "pgid" | "lwp" | "processid" | "threadid"
            | "eduid" => numeric,
            // `proc=4412`, but not `nproc=16` (a count of processors).
            "proc" => numeric && lower == "proc",
            "id" => {
                lower.ends_with("process id")
                    || lower.ends_with("prozess-id")
                    || lower.ends_with("进程 id")
                    || lower.ends_with("进程id")
                    || lower.ends_with("thread id")
                    || lower.ends_with("process_id")
                    || lower.ends_with("thread_id")
            }
            "tid" => numeric || long_tid || value.bytes().any(|b| b.is_ascii_digit()),
            "nid" => value.starts_with("0x"),
            _ => false,
        } && (numeric || last == "tid");
        if ok && e.replace(v.start(), v.end(), PID) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PID_KEY: Rule = Rule {
    id: "pid.key",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process or thread id after a key whose last word names one, in any syntax: `\"_PID\":\"20441\"`, `spid=\"73\"`, `mpid=77120`, `Process ID: 0x1f4c`, a thread dump's `nid=0x5b2f`.",
    keywords: &[
        "pid", "tid", "lwp", "nid", "eduid", "process", "prozess", "进程", "thread",
    ],
    gate: |f| f.digit,
    pass: pass_key,
    matchers: &[&KEY_RE],
    examples: &[
        ex(
            r#"{"_PID":"20441","_COMM":"kubelet"}"#,
            r#"{"_PID":"<PID>","_COMM":"kubelet"}"#,
        ),
        ex(
            r#"<process spid="73" status="suspended">"#,
            r#"<process spid="<PID>" status="suspended">"#,
        ),
        ex("login ok, mpid=77120, TLS", "login ok, mpid=<PID>, TLS"),
        ex("New Process ID:\t\t0x2a10", "New Process ID:\t\t<PID>"),
        ex(
            "\"exec-17\" #58 daemon tid=0x00007f3a2c1e4800 nid=0x5b2f waiting",
            "\"exec-17\" #58 daemon tid=<PID> nid=<PID> waiting",
        ),
        ex(
            "pid=8841 tid=ow3k5 class=Mailer",
            "pid=<PID> tid=<PID> class=Mailer",
        ),
        ex(
            "  | sysTid=7302 nice=0 cgrp=default",
            "  | sysTid=<PID> nice=0 cgrp=default",
        ),
        ex(
            "EXCP,1,process=rphost,OSThread=9921,t:clientID=5",
            "EXCP,1,process=rphost,OSThread=<PID>,t:clientID=5",
        ),
        // Windows' event fields in other languages; a glibc thread id in decimal; AIX's hex.
        ex(
            "Prozess-ID:\t0x1d8 Aufrufprozess-ID:\t0x3c8",
            "Prozess-ID:\t<PID> Aufrufprozess-ID:\t<PID>",
        ),
        ex("调用方进程 ID:\t0x2f0", "调用方进程 ID:\t<PID>"),
        ex(
            "PID     : 77120    TID : 139872204519168  PROC : db2sysc 0",
            "PID     : <PID>    TID : <PID>  PROC : db2sysc 0",
        ),
        ex("PID:            3A07E1", "PID:            <PID>"),
        ex(
            "proc=4412 exited; {:pid => 5120}; nproc=16",
            "proc=<PID> exited; {:pid => <PID>}; nproc=16",
        ),
        ex(
            r#"{"ParentProcessId":"4412","TargetThreadId":"7720"}"#,
            r#"{"ParentProcessId":"<PID>","TargetThreadId":"<PID>"}"#,
        ),
        ex(
            "<Data Name=\"ProcessId\">0x1f4</Data><Data Name=\"ProcessName\">lsass.exe</Data>",
            "<Data Name=\"ProcessId\"><PID></Data><Data Name=\"ProcessName\">lsass.exe</Data>",
        ),
    ],
    negatives: &[
        "rapid: 100 requests",
        "valid=true",
        "uid=1000 gid=1000",
        "guid: 7",
    ],
};
