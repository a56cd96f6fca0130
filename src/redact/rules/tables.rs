//! Tables: what a column holds is said once, by its header (`PID`, `CONTAINER ID`, `POD`,
//! `NODE`), and every row under it holds one of those. ps, top, lsof, ss and netstat print
//! process ids that way; docker, crictl, podman, kubectl and Argo print container ids, pod
//! sandboxes, pods and nodes. The rules read a header and the rows under it in one message;
//! `aciproj redact` reads each row of a stream under the last header it saw (see `lines`).
//!
//! A table may also be delimited rather than aligned: a CSV or tab-separated export with its
//! header line (`Timestamp,Host,ProcessId,Message`), or a W3C extended log's `#Fields:`
//! directive (IIS, Windows Firewall, Exchange tracking). Its column names are read as keys are,
//! word by word (`ProcessId`, `process_id`, `s-computername`, `Thread ID`), and each row's cell
//! at a named column's place is a value of that column's kind.

use super::super::RedactionClass;
use super::super::rule::{Rule, always, ex};
use super::super::text::{Edit, HOST, PID, POD};

/// What the cells of a column are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Column {
    /// A process or thread id (`PID`, `TID`, `PPID`, `LWP`, `SPID`, `PGID`, `Thread`, MySQL's
    /// processlist `Id`, netstat's `PID/Program name`).
    Pid,
    /// A container, a pod sandbox or a pod (`CONTAINER ID`, `POD ID`, `POD`, `PODNAME`, docker's
    /// `NAMES`).
    Pod,
    /// A node or host (`NODE`, `HOST`, `HOSTNAME`).
    Host,
}

/// The kind of column a header word names.
fn column_kind(word: &str) -> Option<Column> {
    match word {
        "PID" | "TID" | "PPID" | "LWP" | "SPID" | "PGID" | "Id" | "Thread" => Some(Column::Pid),
        w if w.starts_with("PID/") => Some(Column::Pid),
        "CONTAINER" | "POD" | "PODNAME" | "NAMES" => Some(Column::Pod),
        "NODE" | "HOST" | "HOSTNAME" => Some(Column::Host),
        _ => None,
    }
}

/// The columns of `line` when it is a table's header, with the span of each header word (in
/// characters, see [`cells`])
/// and what its cells are: at least three columns, nearly every one capitalized, one of them
/// a kind [`column_kind`] knows (`Id` only beside a `Command` column, `Thread` only beside a
/// `PID` one).
pub(crate) fn header_columns(line: &str) -> Vec<(usize, usize, Column)> {
    let mut cols = Vec::new();
    let mut words = 0;
    let mut capitalized = 0;
    let (mut command, mut pid) = (false, false);
    for (_, start, word) in cells(line) {
        words += 1;
        capitalized += usize::from(word.starts_with(|c: char| c.is_ascii_uppercase() || c == '%'));
        command |= word.eq_ignore_ascii_case("command");
        pid |= word == "PID";
        if let Some(kind) = column_kind(word) {
            cols.push((start, start + word.chars().count(), kind, word));
        }
    }
    let cols = cols
        .into_iter()
        .filter(|&(_, _, _, word)| match word {
            "Id" => command,
            "Thread" => pid,
            _ => true,
        })
        .map(|(s, e, kind, _)| (s, e, kind))
        .collect();
    // A header names its columns, nearly every one capitalized; prose is not one.
    if words < 3 || capitalized * 4 < words * 3 {
        Vec::new()
    } else {
        cols
    }
}

/// A delimited table's header: what separates its cells, how many there are, and each column
/// a kind is named for, by its index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fields {
    delimiter: u8,
    count: usize,
    columns: Vec<(usize, Column)>,
}

/// The kind of a delimited table's column from its name, read word by word as a key is
/// (`ProcessId`, `process_id`, `Thread ID`, `s-computername`, `container_name`).
fn field_kind(name: &str) -> Option<Column> {
    // The key classifier's own split: at case changes and at every byte no letter or digit.
    let (n, words) = super::credentials::key_words(name);
    let last = words[2].to_ascii_lowercase();
    let before = (n >= 2).then(|| words[1].to_ascii_lowercase());
    let (before, last) = (before.as_deref(), last.as_str());
    if n == 0 {
        return None;
    }
    let id = matches!(last, "id" | "number" | "num" | "no" | "name");
    match (before, last) {
        (_, "pid" | "tid" | "ppid" | "lwp" | "spid" | "pgid" | "processid" | "threadid") => {
            Some(Column::Pid)
        }
        (Some("process" | "thread" | "proc"), _) if id && last != "name" => Some(Column::Pid),
        (
            _,
            "host" | "hostname" | "computer" | "computername" | "machine" | "machinename" | "node"
            | "nodename" | "server" | "servername" | "workstation",
        ) => Some(Column::Host),
        (Some("host" | "computer" | "machine" | "node" | "server"), "name") => Some(Column::Host),
        (_, "pod" | "podname" | "container" | "containername" | "containerid") => Some(Column::Pod),
        (Some("pod" | "container"), _) if id => Some(Column::Pod),
        _ => None,
    }
}

/// The cells of a delimited line with where each starts (a byte offset), quotes around a cell
/// taken off and a delimiter inside double quotes kept in its cell (CSV's quoting); a W3C
/// header's `#Fields:` directive is no cell.
fn delimited_cells(line: &str, delimiter: u8) -> Vec<(usize, &str)> {
    let b = line.as_bytes();
    let mut cells = Vec::new();
    let mut at = line
        .strip_prefix("#Fields:")
        .map_or(0, |_| "#Fields:".len());
    while at <= b.len() {
        let mut end = at;
        let mut quoted = false;
        while end < b.len() && (quoted || b[end] != delimiter) {
            quoted ^= b[end] == b'"';
            end += 1;
        }
        let raw = &line[at..end];
        let lead = raw.len() - raw.trim_start_matches([' ', '"']).len();
        let cell = raw.trim_matches([' ', '"']);
        if !(delimiter == b' ' && cell.is_empty()) {
            cells.push((at + lead, cell));
        }
        at = end + 1;
    }
    cells
}

/// The header of a delimited table, if `line` is one: a W3C `#Fields:` directive, or three
/// cells or more split at `,`, `;` or a tab, every one a name (letters first, no more than
/// four words) and one of them naming a kind [`field_kind`] knows.
pub(crate) fn delimited_header(line: &str) -> Option<Fields> {
    let line = line.trim_end();
    let delimiter = if line.starts_with("#Fields:") {
        b' '
    } else {
        *[b'\t', b',', b';']
            .iter()
            .find(|&&d| memchr::memchr(d, line.as_bytes()).is_some())?
    };
    let cells = delimited_cells(line, delimiter);
    if cells.len() < 3 {
        return None;
    }
    let mut columns = Vec::new();
    for (i, &(_, cell)) in cells.iter().enumerate() {
        let name = cell.len() <= 40
            && cell.starts_with(|c: char| c.is_ascii_alphabetic())
            && cell.split(' ').count() <= 4
            && cell
                .bytes()
                .all(|c| c.is_ascii_alphanumeric() || b" _-./()#".contains(&c));
        if !name {
            return None;
        }
        if let Some(kind) = field_kind(cell) {
            columns.push((i, kind));
        }
    }
    (!columns.is_empty()).then_some(Fields {
        delimiter,
        count: cells.len(),
        columns,
    })
}

/// In a row of a delimited table, the value of `kind` in each column of that kind; a row with
/// another number of cells than the header is not one of its rows.
fn delimited_row(
    row: &str,
    fields: &Fields,
    kind: Column,
    placeholder: &str,
    e: &mut Edit<'_>,
    offset: usize,
    hits: &mut u32,
) {
    let cells = delimited_cells(row, fields.delimiter);
    if cells.len() != fields.count {
        return;
    }
    for &(i, k) in &fields.columns {
        let (at, cell) = cells[i];
        if k == kind
            && let Some(len) = value_len(cell, kind)
            && e.replace(offset + at, offset + at + len, placeholder)
        {
            *hits += 1;
        }
    }
}

/// The cells of a table line, split at spaces, tabs and `|`, with where each starts: its byte
/// offset and its column (in characters, as a terminal aligns them: `…` and `├───` are one
/// column each and three bytes).
fn cells(line: &str) -> impl Iterator<Item = (usize, usize, &str)> {
    line.split([' ', '\t', '|'])
        .scan((0, 0), |(at, col), cell| {
            let start = (*at, *col);
            *at += cell.len() + 1;
            *col += cell.chars().count() + 1;
            Some((start.0, start.1, cell))
        })
        .filter(|(_, _, cell)| !cell.is_empty() && !cell.bytes().all(|b| b == b'+' || b == b'-'))
}

/// The part of `cell` that is a value of `kind`, as a length from its start, or `None`.
/// - an id: its digits (`2211`, the `1194` of `1194/redis-server`), or `0x` and hex;
/// - a container or pod: a name or id with a digit (`c93f2265f8b0`, `billing-db-1`);
/// - a host: a name with a letter and a digit, dot or dash (`ip-10-0-3-7`, `worker-a.lan`).
fn value_len(cell: &str, kind: Column) -> Option<usize> {
    let b = cell.as_bytes();
    let name = |b: &[u8]| {
        b.first().is_some_and(u8::is_ascii_alphanumeric)
            && b.iter()
                .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
    };
    match kind {
        Column::Pid => {
            if let Some(hex) = cell.strip_prefix("0x") {
                return (!hex.is_empty() && hex.bytes().all(|c| c.is_ascii_hexdigit()))
                    .then_some(cell.len());
            }
            let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
            (digits > 0 && (digits == b.len() || b[digits] == b'/')).then_some(digits)
        }
        Column::Pod => (b.len() >= 3
            && name(b)
            && b.iter().any(u8::is_ascii_digit)
            && b.iter().any(u8::is_ascii_alphabetic))
        .then_some(b.len()),
        Column::Host => (name(b)
            && b.iter().any(u8::is_ascii_alphabetic)
            && b.iter()
                .any(|&c| c.is_ascii_digit() || c == b'.' || c == b'-'))
        .then_some(b.len()),
    }
}

/// In a row under a header, the value of `kind` in each column of that kind: an id cell that
/// overlaps its column's span (ps right-aligns numbers), a name cell that starts where its
/// column does (docker and kubectl align names left).
fn table_row(
    row: &str,
    cols: &[(usize, usize, Column)],
    kind: Column,
    placeholder: &str,
    e: &mut Edit<'_>,
    offset: usize,
    hits: &mut u32,
) {
    for (at, start, cell) in cells(row) {
        let end = start + cell.chars().count();
        let under = cols.iter().any(|&(cs, ce, k)| {
            k == kind
                && match kind {
                    Column::Pid => start < ce + 2 && end + 2 > cs,
                    _ => start + 1 >= cs && start <= cs + 1,
                }
        });
        if !under {
            continue;
        }
        if let Some(len) = value_len(cell, kind)
            && e.replace(offset + at, offset + at + len, placeholder)
        {
            *hits += 1;
        }
    }
}

/// Every row's values of `kind`, each row read under the header above it; a blank line ends a
/// table.
fn pass_table(s: &str, kind: Column, placeholder: &str, hits: &mut u32) -> Option<String> {
    // A table is a header and a row under it: a message of one line holds none.
    memchr::memchr(b'\n', s.as_bytes())?;
    // An aligned header names its column in capitals: most messages hold none.
    let words: &[&str] = match kind {
        Column::Pid => &["PID", "TID", "LWP", "Id"],
        Column::Pod => &["CONTAINER", "POD", "NAMES"],
        Column::Host => &["NODE", "HOST"],
    };
    let aligned = words
        .iter()
        .any(|w| memchr::memmem::find(s.as_bytes(), w.as_bytes()).is_some());
    let mut e = Edit::new(s);
    let mut cols: Vec<(usize, usize, Column)> = Vec::new();
    let mut fields: Option<Fields> = None;
    let mut offset = 0;
    for line in s.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        let header = if aligned {
            header_columns(text)
        } else {
            Vec::new()
        };
        if !header.is_empty() {
            cols = header;
            fields = None;
        } else if let Some(found) = delimited_header(text) {
            fields = Some(found);
            cols.clear();
        } else if text.trim().is_empty() {
            cols.clear();
            fields = None;
        } else if let Some(f) = &fields {
            delimited_row(text, f, kind, placeholder, &mut e, offset, hits);
        } else if cols.iter().any(|c| c.2 == kind) {
            table_row(text, &cols, kind, placeholder, &mut e, offset, hits);
        }
        offset += line.len();
    }
    e.finish()
}

pub(crate) static PID_TABLE: Rule = Rule {
    id: "pid.table",
    class: RedactionClass::Pid,
    placeholder: PID,
    description: "A process or thread id in a table's PID, TID, PPID, LWP, Thread or `PID/Program name` column (ps, top, lsof, ss, netstat, `log show`, MySQL's processlist `Id`), or a delimited table's column named so (CSV/TSV exports, W3C `#Fields:` logs: `ProcessId`, `thread_id`); `aciproj redact` reads each row under its header.",
    keywords: &["pid", "tid", "lwp", "id", "process", "thread"],
    gate: |f| f.digit,
    pass: |s, hits| pass_table(s, Column::Pid, PID, hits),
    matchers: &[],
    examples: &[
        ex(
            "COMMAND     PID   TID USER\nhaproxy    2211       root\njava      41827 41902 app",
            "COMMAND     PID   TID USER\nhaproxy    <PID>       root\njava      <PID> <PID> app",
        ),
        ex(
            "Proto Local Address   State       PID/Program name\ntcp   0.0.0.0:6379    LISTEN      1194/redis-server",
            "Proto Local Address   State       PID/Program name\ntcp   <IP>:6379    LISTEN      <PID>/redis-server",
        ),
        ex(
            "Timestamp           Thread     Type      PID\n2026-11-29 09:58:01 0x3a41f2   Default   881",
            "Timestamp           Thread     Type      PID\n2026-11-29 09:58:01 <PID>   Default   <PID>",
        ),
        ex(
            "Time,ProcessId,ThreadId,Message\n09:58:01.114,4412,7720,cache flushed",
            "Time,ProcessId,ThreadId,Message\n09:58:01.114,<PID>,<PID>,cache flushed",
        ),
        ex(
            "#Fields: date time action protocol path pid\n2026-11-02 10:14:07 ALLOW TCP SEND 4412",
            "#Fields: date time action protocol path pid\n2026-11-02 10:14:07 ALLOW TCP SEND <PID>",
        ),
    ],
    negatives: &[
        "NAME   READY   STATUS\napi    1/1     Running",
        "PID file written\n1234 bytes",
        "Thread     State     Count\nmain       RUNNABLE  12",
        "ProcessName,Count,Status\nnginx,12,ok",
        "pid, tid, and lwp are numbers\n4412 files",
    ],
};

pub(crate) static POD_TABLE: Rule = Rule {
    id: "pod.table",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "A container id, pod sandbox id or pod in a table's CONTAINER (ID), POD (ID), PODNAME or NAMES column (docker ps, crictl ps, podman, Argo), or a delimited table's `pod_name`, `container_id` column; `aciproj redact` reads each row under its header.",
    keywords: &["container", "pod", "names"],
    gate: |f| f.digit,
    pass: |s, hits| pass_table(s, Column::Pod, POD, hits),
    matchers: &[],
    examples: &[
        ex(
            "CONTAINER ID   IMAGE          STATUS        NAMES\n4f1c0b9e2a7d   redis:7.2      Up 2 hours    shop-cache-1",
            "CONTAINER ID   IMAGE          STATUS        NAMES\n<POD>   redis:7.2      Up 2 hours    <POD>",
        ),
        ex(
            "CONTAINER       IMAGE           STATE     NAME       POD ID          POD\n7d2e91c04ab3    5c1f8e2d9a0b    Running   exporter   a04f7c3e11d2    exporter-x8k2p",
            "CONTAINER       IMAGE           STATE     NAME       POD ID          POD\n<POD>    5c1f8e2d9a0b    Running   exporter   <POD>    <POD>",
        ),
        ex(
            "namespace\tpod_name\tcontainer_id\trestarts\nbilling\tinvoice-api-0\t3f9a1c2e7b4d\t2",
            "namespace\tpod_name\tcontainer_id\trestarts\nbilling\t<POD>\t<POD>\t2",
        ),
    ],
    negatives: &[
        "REPOSITORY   TAG     IMAGE ID       SIZE\nredis        7.2     66c9b79ac75f   117MB",
        "CONTAINER    STATUS    NAMES\nweb          Up        frontend",
        "container,image,status\nweb,nginx:1.25,running",
    ],
};

pub(crate) static HOST_TABLE: Rule = Rule {
    id: "host.table",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "A node or host in a table's NODE, HOST or HOSTNAME column (kubectl get pods -o wide, nomad, fleet inventories), or a delimited table's `ComputerName`, `hostname`, `server` column (event exports, W3C `s-computername`); `aciproj redact` reads each row under its header.",
    keywords: &[
        "node",
        "host",
        "computer",
        "machine",
        "server",
        "workstation",
    ],
    gate: always,
    pass: |s, hits| pass_table(s, Column::Host, HOST, hits),
    matchers: &[],
    examples: &[
        ex(
            "NAME        READY   STATUS    NODE            NOMINATED NODE\napi-0       1/1     Running   worker-b        <none>",
            "NAME        READY   STATUS    NODE            NOMINATED NODE\n<POD>       1/1     Running   <HOST>        <none>",
        ),
        ex(
            "HOST         STATUS    UPTIME\nlb-edge-2    up        41d",
            "HOST         STATUS    UPTIME\n<HOST>    up        41d",
        ),
        ex(
            "Timestamp;ComputerName;EventID;Message\n2026-11-02T10:14:07;WKS-0412;4624;logon",
            "Timestamp;ComputerName;EventID;Message\n2026-11-02T10:14:07;<HOST>;4624;logon",
        ),
    ],
    negatives: &[
        "NODE   STATUS   AGE\nprimary   Ready   3d",
        "host status: up, node count: 3",
        "Host,Status,Uptime\nprimary,up,41d",
    ],
};
