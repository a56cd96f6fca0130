//! Kubernetes pod identifiers. Deployment pods end in `-<replicaset hash>-<5 chars>`, DaemonSet
//! and Job pods in `-<5 chars>`, CronJob pods in `-<minute>-<5 chars>`, drawn from Kubernetes'
//! vowel-free alphabet; StatefulSet pods (`kafka-0`) only after a pod keyword.
//!
//! A bare StatefulSet name stays: it is a stable, low-cardinality identity the agent needs
//! ("kafka-0 is the leader") and cannot be told from `retry-1`.

use std::ops::Range;
use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, always, ex};
use super::super::text::{
    Edit, POD, byte_at, byte_before, is_word_byte, placeholder_after, placeholder_before,
};
use super::replace_groups;
use crate::matcher::Matcher;

static POD_SHAPE_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?-[a-z0-9]{5}").expect("constant regex")
});

pub(crate) static POD_CONTEXT_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?:(?i-u:pods?|replicasets?)["']?(?:[ \t]*[=:/][ \t]*|[ \t]+)["']?(?:[a-z0-9][a-z0-9-]*/)?"#,
        // The pod a kubectl command acts on: `kubectl logs -n prod -f mysql-0`.
        r"|(?-u:\b)kubectl(?:[ \t]+(?:-n|--namespace|--context)(?:[ \t]+|=)[^ \t\r\n]+)*[ \t]+(?:logs|exec|attach|port-forward|debug)",
        r"(?:[ \t]+(?:(?:-n|-c|--namespace|--container|--context|--tail|--since|--kubeconfig)(?:[ \t]+|=)[^ \t\r\n]+|-[A-Za-z-]+))*[ \t]+)",
        r"([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)",
    ))
    .expect("constant regex")
});

/// Kubernetes' `SafeEncodeString` alphabet: no vowels, no `0`, `1`, `3`.
fn in_k8s_alphabet(s: &str) -> bool {
    s.bytes()
        .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b))
}

fn looks_generated(seg: &str) -> bool {
    let digit = seg.bytes().any(|b| b.is_ascii_digit());
    let letter = seg.bytes().any(|b| b.is_ascii_lowercase());
    letter && (digit || in_k8s_alphabet(seg))
}

fn is_pod_shape(name: &str) -> bool {
    let segs: Vec<&str> = name.split('-').collect();
    let n = segs.len();
    if n < 2 || segs.iter().any(|s| s.is_empty()) {
        return false;
    }
    let suffix = segs[n - 1];
    if suffix.len() != 5 {
        return false;
    }
    if n >= 3 {
        let hash = segs[n - 2];
        // Behind a generated hash the suffix may be all digits: `44224` is in the alphabet too.
        // So may the hash (`422244422`), whose letters the alphabet only makes likely.
        let suffix_ok = looks_generated(suffix) || in_k8s_alphabet(suffix);
        let hash_ok = looks_generated(hash) || in_k8s_alphabet(hash);
        if (6..=10).contains(&hash.len()) && hash_ok && suffix_ok {
            return true;
        }
        // Two generated parts of five (`jenkins-agent-k7x2q-9fz3m`, a CI agent's template
        // and its instance), each mixing letters and digits.
        if hash.len() == 5 && looks_generated(hash) && looks_generated(suffix) {
            let mixed = |s: &str| {
                s.bytes().any(|b| b.is_ascii_digit()) && s.bytes().any(|b| b.is_ascii_lowercase())
            };
            if mixed(hash) && mixed(suffix) {
                return true;
            }
        }
        // A CronJob's Job is named after its scheduled minute (`backup-28374651-x7k2p`).
        // The minute is Unix minutes, 8 digits from 1987 to 2036: not a date such as 20261130.
        let minute = hash
            .parse::<u32>()
            .is_ok_and(|m| (25_000_000..35_000_000).contains(&m));
        if hash.len() == 8 && minute && suffix.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return true;
        }
    }
    // DaemonSet / Job: the suffix alone, strictly from the Kubernetes alphabet.
    segs[0]
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase())
        && in_k8s_alphabet(suffix)
        && suffix.bytes().any(|b| b.is_ascii_digit())
        && suffix.bytes().any(|b| b.is_ascii_lowercase())
}

/// A name that a controller, an operator or a CI runner generated, read after a pod keyword:
/// a later segment mixes letters and digits (`runner-ak3vxyz-project-4412-concurrent-0-5hq2x0lr`,
/// `spark-etl-3f8a2c8e2b1d4e5f-driver`). A named pod of no generator (`kube-proxy`, `web-v2`)
/// stays.
fn is_generated_name(name: &str) -> bool {
    let mut segs = name.split('-');
    let first = segs.next().unwrap_or("");
    // A last part of five letters or more, all from the Kubernetes alphabet, is generated
    // with no digit too (`daily-extract-jzsztbth`): no word is written without a vowel.
    let last = name.rsplit('-').next().unwrap_or("");
    let vowelless = name.contains('-')
        && (5..=16).contains(&last.len())
        && in_k8s_alphabet(last)
        && last.bytes().any(|b| b.is_ascii_lowercase());
    !first.is_empty()
        && (vowelless
            || segs.any(|seg| {
                seg.len() >= 4
                    && seg
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                    && seg.bytes().any(|b| b.is_ascii_digit())
                    && seg.bytes().any(|b| b.is_ascii_lowercase())
            }))
}

fn is_statefulset_name(name: &str) -> bool {
    match name.rsplit_once('-') {
        Some((base, ordinal)) => {
            !base.is_empty()
                && base.bytes().any(|b| b.is_ascii_lowercase())
                && !ordinal.is_empty()
                && ordinal.len() <= 4
                && ordinal.bytes().all(|b| b.is_ascii_digit())
        }
        None => false,
    }
}

/// The pod name a [`POD_CONTEXT_RE`] match ends with (its group 1), as `start..end`. What comes
/// before the name in a match (the keyword, then `=`, `:`, `/`, spaces, a quote or `ns/`)
/// always ends in a byte the name cannot hold, so the name is the match's longest tail of
/// `[a-z0-9.-]`: found without the slower engines that read groups.
pub(crate) fn pod_context_names(s: &str) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    POD_CONTEXT_RE.find_iter(s).map(move |whole| {
        let text = whole.as_str().as_bytes();
        let tail = text
            .iter()
            .rev()
            .take_while(|&&b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-'
            })
            .count();
        (whole.start(), whole.end() - tail..whole.end())
    })
}

fn pass_pod_context(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for (start, v) in pod_context_names(s) {
        if byte_before(s, start).is_some_and(|b| b.is_ascii_alphanumeric()) {
            continue;
        }
        let name = &s[v.clone()];
        // `pod:ns/<POD>`: the name is the namespace of a pod already replaced (the first run
        // read `ns/` as the namespace, and a second must not take it for the name).
        let namespace = byte_at(s, v.end) == Some(b'/') && placeholder_after(s, v.end + 1);
        let after_ok = !byte_at(s, v.end).is_some_and(is_word_byte)
            && !placeholder_after(s, v.end)
            && !namespace;
        if after_ok
            && (is_statefulset_name(name) || is_pod_shape(name) || is_generated_name(name))
            && e.replace(v.start, v.end, POD)
        {
            *hits += 1;
        }
    }
    e.finish()
}

fn pass_pod_shape(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in POD_SHAPE_RE.find_iter(s) {
        let before_ok = !byte_before(s, m.start())
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
            && !placeholder_before(s, m.start());
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !placeholder_after(s, m.end());
        if before_ok && after_ok && is_pod_shape(m.as_str()) && e.replace(m.start(), m.end(), POD) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static POD_AFTER_KEYWORD: Rule = Rule {
    id: "pod.keyword",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "A pod name after a pod keyword (pod/x, pod=x, pod x), StatefulSet ordinals (kafka-0) included.",
    keywords: &["pod", "replicaset", "kubectl"],
    gate: always,
    pass: pass_pod_context,
    matchers: &[&POD_CONTEXT_RE],
    examples: &[
        ex(
            "Back-off restarting pod/kafka-0 in ns data",
            "Back-off restarting pod/<POD> in ns data",
        ),
        ex(
            "Controlled By:  ReplicaSet/web-5c8xk2v9d",
            "Controlled By:  ReplicaSet/<POD>",
        ),
        ex(
            "$ kubectl logs -n data -f --tail 50 kafka-2 -c broker",
            "$ kubectl logs -n data -f --tail 50 <POD> -c broker",
        ),
        ex(
            "pod=prod/web-7d9f8c6b5-x2k4m OOMKilled",
            "pod=prod/<POD> OOMKilled",
        ),
        // Operators and CI runners name pods their own way; the keyword says what it is.
        ex(
            "waiting for pod ci/runner-q8z2kd-project-77-concurrent-1-a9x3mq7p",
            "waiting for pod ci/<POD>",
        ),
        ex(
            r#"{"msg":"sync failed","pod":"queue-broker-server-3"}"#,
            r#"{"msg":"sync failed","pod":"<POD>"}"#,
        ),
        ex(
            "Pod nightly-report-wxqgmz is in phase Failed",
            "Pod <POD> is in phase Failed",
        ),
    ],
    negatives: &[
        "pod security policy applied",
        "pod batch-scheduler is ready",
        "pods: 3/3 ready",
        "pod kube-proxy is ready",
        "pod web-v2 is ready",
    ],
};

pub(crate) static POD_NAME: Rule = Rule {
    id: "pod.generated-name",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "A Deployment, DaemonSet, Job or CronJob pod name, by its generated suffix.",
    keywords: &[],
    gate: |f| f.pod_suffix,
    pass: pass_pod_shape,
    matchers: &[&POD_SHAPE_RE],
    examples: &[
        ex(
            "payment-service-7d8f9c6b5-x2k4m restarted",
            "<POD> restarted",
        ),
        ex(
            "agent build-agent-q8z4k-m2x7p is online",
            "agent <POD> is online",
        ),
        ex("fluentd-x7k2p on node ready", "<POD> on node ready"),
        ex("job backup-28374651-q8w2z failed", "job <POD> failed"),
        ex(
            "payment-service-7d8f9c6b5-x2k4m: OOMKilled",
            "<POD>: OOMKilled",
        ),
    ],
    negatives: &[
        "order-service timed out",
        "upstream user-service returned 503",
        "order-20261130-bcdfg queued",
        "retry-1 of kafka-0",
    ],
};

/// Whether `seg` is a part a generator wrote: Kubernetes' 5-character suffix (its vowel-free
/// alphabet, a digit and a letter), or 8 to 16 hex digits with a digit and a letter (the hash
/// a Spark or Flink operator puts in its executors' names).
fn is_generated_segment(seg: &str) -> bool {
    let digit = seg.bytes().any(|b| b.is_ascii_digit());
    let letter = seg.bytes().any(|b| b.is_ascii_lowercase());
    let hex = seg.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    digit
        && letter
        && ((seg.len() == 5 && in_k8s_alphabet(seg)) || ((8..=16).contains(&seg.len()) && hex))
}

/// Whether `seg`, a name's last part, reads as generated: 6 to 12 `[a-z0-9]` with a digit and
/// two letters, from Kubernetes' alphabet or with few vowels and switching classes.
fn is_random_tail(seg: &str) -> bool {
    let b = seg.as_bytes();
    let letters = b.iter().filter(|x| x.is_ascii_lowercase()).count();
    let switches = b
        .windows(2)
        .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
        .count();
    let vowels = b.iter().filter(|x| b"aeiou".contains(x)).count();
    (6..=12).contains(&b.len())
        && b.iter().all(|x| x.is_ascii_lowercase() || x.is_ascii_digit())
        && letters >= 2
        && letters < b.len()
        // Nine or ten from Kubernetes' alphabet end a ReplicaSet's name (its pod-template hash):
        // a controller, not an instance (see `is_pod_shape`).
        && !(in_k8s_alphabet(seg) && (9..=10).contains(&b.len()))
        && (in_k8s_alphabet(seg) || (switches >= 2 && vowels * 4 < letters))
}

/// Whether `segs` are exactly a UUID's five groups of hex digits.
fn is_uuid(segs: &[&str]) -> bool {
    segs.len() == 5
        && [8, 4, 4, 4, 12]
            .iter()
            .zip(segs)
            .all(|(&n, seg)| seg.len() == n && seg.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Whether `name` is a workload instance with a generated part inside it: a word first, then
/// after the generated part only words, numbers and further generated parts (Argo's
/// `nightly-x7k2p-fetch-3187442091`, Tekton's `build-r8m2v-pod`, Spark's
/// `etl-2f8c1a9e7b-exec-14`), or the UUID a Kafka consumer's member id ends with.
fn is_workload_name(name: &str) -> bool {
    let segs: Vec<&str> = name.split('-').collect();
    if segs.len() < 2
        || segs.iter().any(|s| s.is_empty())
        || !segs[0].starts_with(|c: char| c.is_ascii_lowercase())
    {
        return false;
    }
    // A random last part after a word ends a runner's or an operator's name
    // (`runner-ak3vxyz`).
    let word_first = segs[0].len() >= 2 && segs[0].bytes().all(|b| b.is_ascii_lowercase());
    let uuid_last = segs.len() >= 5 && is_uuid(&segs[segs.len() - 5..]);
    if word_first && !uuid_last && is_random_tail(segs[segs.len() - 1]) {
        return true;
    }
    if segs.len() < 3 {
        return false;
    }
    let Some(g) = (1..segs.len() - 1).find(|&i| is_generated_segment(segs[i])) else {
        return false;
    };
    let rest = &segs[g + 1..];
    // A word and a UUID alone is a request id (`req-3ea4…`); a consumer's id has its client's
    // name and number before the UUID.
    let uuid_from_g = is_uuid(&segs[g..]);
    if uuid_from_g {
        return g >= 2;
    }
    rest.iter().all(|seg| {
        seg.bytes().all(|b| b.is_ascii_lowercase())
            || seg.bytes().all(|b| b.is_ascii_digit())
            || is_generated_segment(seg)
    })
}

fn pass_workload(s: &str, hits: &mut u32) -> Option<String> {
    let b = s.as_bytes();
    let name_byte = |x: u8| x.is_ascii_lowercase() || x.is_ascii_digit() || x == b'-';
    let mut e = Edit::new(s);
    let mut next = 0;
    for i in memchr::memchr_iter(b'-', b) {
        if i < next || !crate::redact::prefilter::is_infix_at(b, i) {
            continue;
        }
        let start = (0..i)
            .rev()
            .find(|&j| !name_byte(b[j]))
            .map_or(0, |j| j + 1);
        let end = (i..b.len()).find(|&j| !name_byte(b[j])).unwrap_or(b.len());
        next = end;
        // A name of its own: not part of a domain, a path's word or a placeholder's neighbour.
        let edge = |x: Option<u8>| {
            x.is_some_and(|x| x.is_ascii_alphanumeric() || matches!(x, b'.' | b'_'))
        };
        if edge(byte_before(s, start))
            || edge(byte_at(s, end))
            || placeholder_before(s, start)
            || placeholder_after(s, end)
        {
            continue;
        }
        if is_workload_name(&s[start..end]) && e.replace(start, end, POD) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static WORKLOAD: Rule = Rule {
    id: "pod.workload",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "A workload instance whose name holds a generated part before further words and numbers: Argo and Tekton step pods, Spark executors, a Kafka consumer's member id.",
    keywords: &[],
    gate: |f| f.pod_infix,
    pass: pass_workload,
    matchers: &[],
    examples: &[
        ex(
            "job 88 picked by runner-q7x2kd9 on shell executor",
            "job 88 picked by <POD> on shell executor",
        ),
        ex(
            "step etl-nightly-q7b2x-extract-2291834475 OOMKilled",
            "step <POD> OOMKilled",
        ),
        ex(
            "preempting spark-agg-5c1e7a9b2d-exec-3 on pool spot",
            "preempting <POD> on pool spot",
        ),
        ex(
            "Member orders-rater-1-9a7c2e10-5b3d-4c6e-8f1a-2b3c4d5e6f70 left",
            "Member <POD> left",
        ),
    ],
    negatives: &[
        "openssl-3x86 python-3.11 libfoo-abc123d utf-8 iso-8859-1 e2e-tests",
        "image node-exporter-v1-17-2 pulled",
        "file app-2024a-11-29.log rotated",
        "route gw-12345-eu ready",
        "build release-7b2c9-notes.txt",
        "[req-9bc36dd9-91c5-4b4b-993b-429be84c0c3e - -] GET /v2",
    ],
};

/// A row of `kubectl get pods`: the name, then READY as `n/m` and a pod phase or reason, with
/// the namespace before it under `-A`.
static POD_ROW_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?m:^)(?:[a-z0-9][a-z0-9\-]*[ \t]+)?([a-z0-9][a-z0-9.\-]*[a-z0-9])[ \t]+[0-9]+/[0-9]+[ \t]+",
        r"(?:Running|Pending|Completed|Succeeded|Failed|Error|Unknown|CrashLoopBackOff|ContainerCreating",
        r"|PodInitializing|Terminating|ImagePullBackOff|ErrImagePull|OOMKilled|Evicted|Init:[A-Za-z0-9/:]+)[ \t]",
    ))
    .expect("constant regex")
});

fn pass_pod_row(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in POD_ROW_RE.captures_iter(s) {
        if let Some(v) = caps.get(1)
            && e.replace(v.start(), v.end(), POD)
        {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static POD_ROW: Rule = Rule {
    id: "pod.kubectl-row",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "The name in a row of `kubectl get pods` (name, READY n/m, a phase such as Running or CrashLoopBackOff), StatefulSet pods included.",
    keywords: &[
        "running",
        "pending",
        "completed",
        "succeeded",
        "failed",
        "error",
        "unknown",
        "crashloopbackoff",
        "containercreating",
        "podinitializing",
        "terminating",
        "imagepullbackoff",
        "errimagepull",
        "oomkilled",
        "evicted",
        "init:",
    ],
    gate: |f| f.digit,
    pass: pass_pod_row,
    matchers: &[&POD_ROW_RE],
    examples: &[
        ex(
            "ledger-writer-0              1/1     Running            2          12d",
            "<POD>              1/1     Running            2          12d",
        ),
        ex(
            "payments   settle-worker-1   0/1   CrashLoopBackOff   7   3h",
            "payments   <POD>   0/1   CrashLoopBackOff   7   3h",
        ),
    ],
    negatives: &[
        "3 of 4 checks: 2/4 Running now",
        "NAME READY STATUS RESTARTS AGE",
    ],
};

/// A container's id: after a runtime's scheme (`containerd://`, `docker://`, `cri-o://`), in a
/// cgroup scope (`cri-containerd-<id>.scope`, `docker-<id>.scope`), after the word container
/// (`Created container cafa4ad206114:`, `/containers/30e77695a046/start`), and a pod's uid in a
/// cgroup slice (`kubepods-burstable-pod7f1e…slice`). Hex of 12 to 64 digits.
static CONTAINER_ID_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?:docker|containerd|cri-o|crio)://([0-9a-f]{12,64})(?-u:\b)",
        r"|(?:cri-containerd|docker|crio|libpod)-([0-9a-f]{64})\.scope",
        // Also as a key in any syntax: `container_id=8f27…`, `"ContainerId":"0622…"`.
        r#"|(?i-u:containers?)(?:[_.\-]?(?i-u:id))?["']?[ /:=]+["']?([0-9a-f]{12}|[0-9a-f]{64})(?-u:\b)"#,
        // A runtime's own messages: `StartContainer for \"9c4e2b7a1f3d\"`, `container id 9c4e…`.
        r#"|(?i-u:container)[A-Za-z]*[ \t]+(?i-u:for|id)[ \t]+\\?["']?([0-9a-f]{12}|[0-9a-f]{64})(?-u:\b)"#,
        // A Nomad allocation: `alloc 5e2b7c1d-…`, `alloc_id=…`.
        r#"|(?-u:\b)(?i-u:alloc(?:ation)?)(?:[ _]?(?i-u:id))?[ \t=:"']+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?-u:\b)"#,
        r"|-pod([0-9a-f]{8}[_-][0-9a-f]{4}[_-][0-9a-f]{4}[_-][0-9a-f]{4}[_-][0-9a-f]{12})\.slice",
        // The container a runtime's command acts on: `docker exec -it 3f9a1c7e2b84 sh`.
        r"|(?-u:\b)(?:docker|podman|crictl|nerdctl)(?:[ \t]+container)?[ \t]+(?:exec|logs|inspect|stop|start|restart|rm|kill|attach|top|stats|cp|commit|port|pause|unpause|wait)",
        r"(?:[ \t]+-[^ \t\r\n]+)*[ \t]+([0-9a-f]{12}|[0-9a-f]{64})(?-u:\b)",
        // A YARN container: `container_e42_1709012233441_8812_01_000015`.
        r"|(?-u:\b)(container_(?:e[0-9]{1,4}_)?[0-9]{10,13}_[0-9]{4,}_[0-9]{2}_[0-9]{6,})(?-u:\b)",
        // A runtime event names its container after the id: `container die 3f9a… (exitCode=1,
        // image=x, name=shop-db)`.
        r"|(?-u:\b)container (?:create|start|restart|die|died|stop|kill|destroy|pause|unpause|exec_create|exec_start|health_status|oom|attach) [^ \t\r\n]+ \([^)\r\n]*?(?-u:\b)name=([A-Za-z0-9][A-Za-z0-9_.\-]*)",
    ))
    .expect("constant regex")
});

fn pass_container_id(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in CONTAINER_ID_RE.captures_iter(s) {
        let Some(v) = (1..caps.group_count()).find_map(|g| caps.get(g)) else {
            continue;
        };
        // Twelve hex digits that are all digits are a number, not an id.
        if v.as_str().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        if e.replace(v.start(), v.end(), POD) {
            *hits += 1;
        }
    }
    e.finish()
}

/// The container id that opens a row of `docker ps` or `crictl ps`: 12 or 13 hex digits, then
/// the image (a name with `/`, `:` or `@`).
static CONTAINER_ROW_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"(?m:^)([0-9a-f]{12,13})[ \t]{2,}[A-Za-z0-9<][^ \t\r\n]*[/:@][^ \t\r\n]*[ \t]")
        .expect("constant regex")
});

pub(crate) static CONTAINER_ROW: Rule = Rule {
    id: "pod.container-row",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "The container id that opens a row of `docker ps` or `crictl ps`: 12 or 13 hex digits, then an image.",
    keywords: &[],
    gate: |f| f.digit && f.wide_gap,
    // Twelve hex digits that are all digits are a number, not an id.
    pass: |s, hits| {
        let number = |v: &str| v.bytes().all(|b| b.is_ascii_digit());
        replace_groups(&CONTAINER_ROW_RE, s, POD, number, hits)
    },
    matchers: &[&CONTAINER_ROW_RE],
    examples: &[
        ex(
            "4e1f9a0c7b2d   redis:7.2-alpine   \"docker-entrypoint.s…\"   2 days ago   Up 2 days   6379/tcp   cache-1",
            "<POD>   redis:7.2-alpine   \"docker-entrypoint.s…\"   2 days ago   Up 2 days   6379/tcp   cache-1",
        ),
        ex(
            "c0ffee1a2b3c4   ghcr.io/acme/api@sha256:9f86d081   5 minutes ago   Running   api   0",
            "<POD>   ghcr.io/acme/api@sha256:9f86d081   5 minutes ago   Running   api   0",
        ),
    ],
    negatives: &[
        "201612031422   backup/run.sh  done",
        "deadbeefcafe is a word",
    ],
};

pub(crate) static CONTAINER_ID: Rule = Rule {
    id: "pod.container-id",
    class: RedactionClass::Pod,
    placeholder: POD,
    description: "A container id: after a runtime scheme (`containerd://…`), in a cgroup scope, after the word container, and a pod uid in a cgroup slice.",
    keywords: &[
        "://",
        ".scope",
        "container",
        ".slice",
        "alloc",
        "docker",
        "podman",
        "crictl",
        "nerdctl",
    ],
    gate: always,
    pass: pass_container_id,
    matchers: &[&CONTAINER_ID_RE],
    examples: &[
        ex(
            "Container container_e17_1709012233441_0412_01_000003 was preempted.",
            "Container <POD> was preempted.",
        ),
        ex(
            "container die 4f1c0b9e2a7d (exitCode=1, image=postgres:16, name=crm-db)",
            "container die 4f1c0b9e2a7d (exitCode=1, image=postgres:16, name=<POD>)",
        ),
        ex(
            "nomad: alloc 0c9e4b1a-7d2f-4a6e-9b3c-5f8e1d2a7b40 transitioned to failed",
            "nomad: alloc <POD> transitioned to failed",
        ),
        ex(
            "+ docker exec -it 7c2e9d41b0a3 psql; crictl logs --tail=20 0f9e8d7c6b5a",
            "+ docker exec -it <POD> psql; crictl logs --tail=20 <POD>",
        ),
        ex(
            "msg=\"StartContainer for \\\"5d1c9e7a2b4f\\\" returns successfully\"",
            "msg=\"StartContainer for \\\"<POD>\\\" returns successfully\"",
        ),
        ex(
            "containerID=\"containerd://4f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0\"",
            "containerID=\"containerd://<POD>\"",
        ),
        ex(
            "falco: container_id=4c1d9e2f7a3b image=alpine {\"ContainerId\":\"a1b2c3d4e5f6\"}",
            "falco: container_id=<POD> image=alpine {\"ContainerId\":\"<POD>\"}",
        ),
        ex(
            "Created container 4e5f6a7b8c9d: kube-system/calico",
            "Created container <POD>: kube-system/calico",
        ),
        ex(
            "POST /v1.43/containers/9c8b7a6d5e4f/start returned error",
            "POST /v1.43/containers/<POD>/start returned error",
        ),
    ],
    negatives: &[
        "container restarted 3 times",
        "containers: 123456789012 bytes",
        "docker://registry/app:1.2",
    ],
};
