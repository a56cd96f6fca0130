//! User rules and allowlists (SPEC §5): a rules file changes `logs`, `redact`, `patterns` and
//! `check` exactly as its examples say, `rules check` passes it and names the rule of a broken
//! copy, and a file that does not load is exit 5 everywhere with nothing redacted. Then the
//! invariants, over random user rules from a small grammar: idempotence, gated == ungated, and
//! no planted value of a user rule leaks.

use std::path::Path;

use aciproj::redact::{RedactionCounts, Redactor};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::{Aci, context_with, fixture};

const ACME: &str = "rules/acme-rules.toml";
const BROKEN: &str = "rules/acme-rules-broken.toml";

fn acme() -> String {
    fixture(ACME).display().to_string()
}

/// The acme file's user rules as `rules --rules FILE --json` lists them.
fn acme_rules() -> Vec<Value> {
    let ran = Aci::new(["rules", "--json", "--rules", &acme()]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    ran.stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["id"].as_str().unwrap().starts_with("acme."))
        .collect()
}

fn redact_with_acme(input: &str) -> (String, Value) {
    let ran = Aci::new(["redact", "--stats", "--rules", &acme()])
        .stdin(format!("{input}\n"))
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let stats = serde_json::from_str(ran.stderr.trim()).unwrap();
    (ran.stdout.trim_end_matches('\n').to_owned(), stats)
}

#[test]
fn rules_lists_user_rules_after_the_built_in_ones_and_marks_the_disabled() {
    let ran = Aci::new(["rules", "--json", "--rules", &acme()]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let docs: Vec<Value> = ran
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pid = docs.iter().find(|d| d["id"] == "pid.keyword").unwrap();
    assert_eq!(pid["disabled"], true);
    let user = acme_rules();
    let ids: Vec<_> = user.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["acme.live-key", "acme.internal-host"]);
    assert_eq!(user[0]["placeholder"], "<TOKEN>");
    assert_eq!(user[1]["class"], "host");
    let table = Aci::new(["rules", "--rules", &acme()]).run();
    assert!(table.stdout.contains("acme.live-key"), "{}", table.stdout);
}

#[test]
fn redact_holds_every_example_and_negative_of_the_file() {
    for rule in acme_rules() {
        let id = rule["id"].as_str().unwrap();
        for e in rule["examples"].as_array().unwrap() {
            let (out, stats) = redact_with_acme(e["input"].as_str().unwrap());
            assert_eq!(out, e["output"].as_str().unwrap(), "{id}");
            assert!(stats["by_rule"][id].as_u64().unwrap() >= 1, "{id}: {stats}");
        }
        for n in rule["negatives"].as_array().unwrap() {
            let (out, _) = redact_with_acme(n.as_str().unwrap());
            assert_eq!(out, n.as_str().unwrap(), "{id}");
        }
    }
}

#[test]
fn redact_keeps_allowed_values_and_disabled_rules_off() {
    let line =
        "worker 12 exited on build-0.acme.internal, test key acme_live_000000000000000000000000";
    let (out, stats) = redact_with_acme(line);
    assert_eq!(out, line, "{stats}");
    // Without the file the built-in rules take them.
    let plain = Aci::new(["redact"]).stdin(format!("{line}\n")).run();
    assert_eq!(
        plain.stdout,
        "worker <PID> exited on <HOST>, test key acme_live_000000000000000000000000\n"
    );
    // The allowed value stays even as another rule's value; the rest of the line goes.
    let (out, stats) = redact_with_acme("host=build-0.acme.internal password=hunter2");
    assert_eq!(out, "host=build-0.acme.internal password=<SECRET>");
    assert_eq!(stats["by_class"], json!({"secret": 1}));
}

#[test]
fn redact_stats_count_user_rules_by_id() {
    let (out, stats) =
        redact_with_acme("key acme_live_Q7xL2mR9tZ4vB8nC1kD5fH3j from db1.prod.acme and 10.0.0.7");
    assert_eq!(out, "key <TOKEN> from <HOST> and <IP>");
    assert_eq!(
        stats["by_rule"],
        json!({"ip.v4": 1, "acme.live-key": 1, "acme.internal-host": 1})
    );
    assert_eq!(stats["by_class"], json!({"host": 1, "ip": 1, "token": 1}));
}

#[test]
fn patterns_fold_with_the_user_rules() {
    let input = "connect to db1.prod.acme:5432 failed\nconnect to db2.prod.acme:5432 failed\n";
    let ran = Aci::new(["patterns", "--rules", &acme()])
        .stdin(input)
        .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let first: Value = serde_json::from_str(ran.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(first["pattern"], "connect to <HOST>:<*> failed");
    assert_eq!(first["count"], 2);
    assert!(!ran.stdout.contains("prod.acme"), "{}", ran.stdout);
}

#[test]
fn logs_through_a_context_rules_file_redact_count_and_list_the_disabled() {
    let ran = Aci::logs(
        fixture("contexts/acme.json"),
        "call_acme_t1",
        "app",
        "ledger",
    )
    .args(["--view", "harness"])
    .response("logs/acme.json")
    .run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let control = ran.json();
    assert_eq!(control["redaction_rules_disabled"], json!(["pid.keyword"]));
    assert_eq!(control["redactions_by_rule"]["acme.live-key"], 1);
    assert_eq!(control["redactions_by_rule"]["acme.internal-host"], 2);
    assert!(!ran.stdout.contains("build-0"), "no value is reported back");
    let envelope = Aci::logs(
        fixture("contexts/acme.json"),
        "call_acme_t2",
        "app",
        "ledger",
    )
    .response("logs/acme.json")
    .run();
    let envelope = envelope.json();
    let messages: Vec<&str> = envelope["result"]["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    for m in [
        "auth failed: key <TOKEN> rejected by <HOST>",
        "artifact fetched from build-0.acme.internal",
        "worker 12 exited, restarting",
    ] {
        assert!(messages.contains(&m), "{m} in {messages:?}");
    }
}

#[test]
fn check_runs_the_user_rules_cases() {
    let ran = Aci::new(["check", "fixtures/cases/logs/acme-user-rules*.case.json"]).run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(
        ran.stdout.ends_with("2 passed, 0 failed\n"),
        "{}",
        ran.stdout
    );
}

#[test]
fn rules_check_passes_the_file() {
    let ran = Aci::new(["rules", "check", &acme()]).run();
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
    assert!(ran.stdout.ends_with(": ok\n"), "{}", ran.stdout);
}

#[test]
fn rules_check_fails_the_broken_copy_naming_the_rule_and_the_example() {
    let ran = Aci::new(["rules", "check", &fixture(BROKEN).display().to_string()]).run();
    assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", ran.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("rule acme.internal-host: example 2")
                && l.contains("upstream ledger-7.acme-corp down")),
        "{}",
        ran.stdout
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("rule acme.employee-id: unknown class \"employee\"")),
        "{}",
        ran.stdout
    );
    assert_eq!(lines[2], "2 failures");
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn rules_check_of_an_unreadable_or_unparseable_file_is_exit_5() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.toml").display().to_string();
    let ran = Aci::new(["rules", "check", &missing]).run();
    assert_eq!(ran.code, 5);
    assert!(ran.stderr.contains("missing.toml") && ran.stderr.contains("No such file"));
    let not_toml = write(dir.path(), "bad.toml", "[[rules]\nid = \n");
    let ran = Aci::new(["rules", "check", &not_toml]).run();
    assert_eq!(ran.code, 5);
    assert!(
        ran.stderr.contains("bad.toml") && ran.stderr.contains("line 1"),
        "{}",
        ran.stderr
    );
    let unknown_key = write(dir.path(), "key.toml", "disabel = [\"pid.keyword\"]\n");
    let ran = Aci::new(["rules", "check", &unknown_key]).run();
    assert_eq!(ran.code, 5);
    assert!(
        ran.stderr.contains("unknown field `disabel`"),
        "{}",
        ran.stderr
    );
}

/// A file that does not load refuses the command before anything is redacted: stderr names the
/// file, the rule and the reason.
#[test]
fn a_broken_rules_file_is_exit_5_for_every_command() {
    let broken = fixture(BROKEN).display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let bad_regex = write(
        dir.path(),
        "regex.toml",
        "[[rules]]\nid = \"acme.open\"\nclass = \"token\"\nregex = 'acme_(['\n\
         examples = [{ input = \"a\", output = \"a\" }]\nnegatives = [\"b\"]\n",
    );
    let too_big = write(
        dir.path(),
        "big.toml",
        "[[rules]]\nid = \"acme.big\"\nclass = \"token\"\nregex = '\\w{1000}\\w{1000}\\w{1000}'\n\
         examples = [{ input = \"a\", output = \"a\" }]\nnegatives = [\"b\"]\n",
    );
    let clash = write(
        dir.path(),
        "clash.toml",
        "[[rules]]\nid = \"pid.keyword\"\nclass = \"pid\"\nregex = 'x'\n\
         examples = [{ input = \"x\", output = \"<PID>\" }]\nnegatives = [\"y\"]\n",
    );
    for (file, rule, reason) in [
        (&broken, "acme.employee-id", "unknown class"),
        (&bad_regex, "acme.open", "does not compile"),
        (&too_big, "acme.big", "compiles to more than"),
        (&clash, "pid.keyword", "built-in rule"),
    ] {
        for cmd in [
            vec!["redact", "--rules", file],
            vec!["patterns", "--rules", file],
            vec!["rules", "--rules", file],
        ] {
            let ran = Aci::new(&cmd).stdin("password=hunter2\n").run();
            assert_eq!(ran.code, 5, "{cmd:?}: {}", ran.stderr);
            assert!(
                ran.stdout.is_empty(),
                "{cmd:?}: nothing redacted: {}",
                ran.stdout
            );
            for part in [file.as_str(), rule, reason] {
                assert!(
                    ran.stderr.contains(part),
                    "{cmd:?}: {part} in {}",
                    ran.stderr
                );
            }
        }
    }
}

#[test]
fn a_context_whose_rules_file_does_not_load_is_exit_5_for_logs_and_rag() {
    let ctx = context_with(json!({"redaction": {"rules_file": fixture(BROKEN)}}));
    let logs = Aci::logs(&ctx.path, "call_b1", "app", "ledger")
        .response("logs/acme.json")
        .run();
    assert_eq!(logs.code, 5, "{}", logs.stderr);
    assert!(logs.stderr.contains("acme.employee-id"), "{}", logs.stderr);
    assert!(!logs.stdout.contains("acme_live_"), "{}", logs.stdout);
    let rag = Aci::rag(&ctx.path, "call_b2", "redis")
        .response("rag/first-call.json")
        .run();
    assert_eq!(rag.code, 5, "{}", rag.stderr);
    // Relative to the context file: a name beside it that is not there.
    let missing = context_with(json!({"redaction": {"rules_file": "acme-rules.toml"}}));
    let ran = Aci::logs(&missing.path, "call_b3", "app", "ledger")
        .response("logs/acme.json")
        .run();
    assert_eq!(ran.code, 5);
    let beside = missing.dir.path().join("acme-rules.toml");
    assert!(
        ran.stderr.contains(&beside.display().to_string()),
        "{}",
        ran.stderr
    );
}

/// A user rule of the grammar: a prefix, a charset and a length.
#[derive(Clone, Debug)]
struct Grammar {
    prefix: String,
    charset: &'static str,
    len: usize,
}

impl Grammar {
    fn regex(&self) -> String {
        format!("\\b{}[{}]{{{}}}\\b", self.prefix, self.charset, self.len)
    }

    fn chars(&self) -> Vec<char> {
        let mut out = Vec::new();
        let b: Vec<char> = self.charset.chars().collect();
        let mut i = 0;
        while i < b.len() {
            if i + 2 < b.len() && b[i + 1] == '-' {
                out.extend(b[i]..=b[i + 2]);
                i += 3;
            } else {
                out.push(b[i]);
                i += 1;
            }
        }
        out
    }

    /// A value of the rule: the prefix and `len` characters picked by `seed`.
    fn value(&self, seed: &[u8]) -> String {
        let chars = self.chars();
        let mut v = self.prefix.clone();
        for k in 0..self.len {
            let s = seed.get(k % seed.len().max(1)).copied().unwrap_or(7) as usize;
            v.push(chars[(s + k * 31) % chars.len()]);
        }
        v
    }
}

fn grammar() -> impl Strategy<Value = Grammar> {
    (
        "[a-z]{3,6}_",
        prop::sample::select(vec!["A-Za-z0-9", "a-f0-9", "A-Z2-7", "a-z0-9"]),
        12usize..32,
    )
        .prop_map(|(prefix, charset, len)| Grammar {
            prefix,
            charset,
            len,
        })
}

fn rules_file(rules: &[Grammar]) -> String {
    let mut text = String::new();
    for (i, g) in rules.iter().enumerate() {
        let v = g.value(b"example");
        text.push_str(&format!(
            "[[rules]]\nid = \"gen.r{i}\"\nclass = \"token\"\nregex = '{}'\nkeywords = [\"{}\"]\n\
             examples = [{{ input = \"seen {v} once\", output = \"seen <TOKEN> once\" }}]\n\
             negatives = [\"the {} prefix\"]\n\n",
            g.regex(),
            g.prefix,
            g.prefix,
        ));
    }
    text
}

/// Pieces of a message: words, separators and secrets of the built-in classes.
fn filler() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        " ",
        ", ",
        " key=",
        " \"",
        "\" ",
        "login failed",
        " password=hunter2 ",
        " from 10.0.0.7:6379 ",
        " db1.example.com ",
        " pid=4312 ",
        " token: ",
        " at com.acme.Pay(Pay.java:12) ",
        " SELECT * FROM t WHERE id = 7 ",
        " worker 12 ",
        " (",
        ") ",
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn random_user_rules_stay_idempotent_gated_and_leak_nothing(
        rules in prop::collection::vec(grammar(), 1..5),
        pieces in prop::collection::vec((filler(), 0usize..6, prop::collection::vec(any::<u8>(), 1..8)), 1..12),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gen.toml");
        std::fs::write(&path, rules_file(&rules)).unwrap();
        let redactor = Redactor::from_rules_file(&path).map_err(|e| e.to_string());
        prop_assert!(redactor.is_ok(), "{:?}\n{}", redactor.err(), rules_file(&rules));
        let redactor = redactor.unwrap();
        let mut message = String::new();
        let mut planted = Vec::new();
        for (piece, pick, seed) in &pieces {
            message.push_str(piece);
            if let Some(g) = rules.get(*pick) {
                let v = g.value(seed);
                message.push(' ');
                message.push_str(&v);
                message.push(' ');
                planted.push(v);
            }
        }
        let mut counts = RedactionCounts::default();
        let out = redactor.redact(&message, &mut counts).into_owned();
        let mut open = RedactionCounts::default();
        let ungated = redactor.redact_ungated(&message, &mut open).into_owned();
        prop_assert_eq!(&ungated, &out, "gated == ungated on {:?}", message);
        prop_assert_eq!(&open, &counts, "counts gated == ungated on {:?}", message);
        let again = redactor.redact(&out, &mut RedactionCounts::default()).into_owned();
        prop_assert_eq!(&again, &out, "idempotent on {:?}", message);
        for v in &planted {
            prop_assert!(!out.contains(v.as_str()), "{} leaked from {:?}: {:?}", v, message, out);
        }
    }
}
