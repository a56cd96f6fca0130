//! Man pages and completions stay in step with the clap definition; every flag says what it does
//! and its default.

use std::collections::BTreeMap;
use std::path::Path;

use clap::CommandFactory;

use crate::common::root;

#[path = "../../examples/gen-docs/generate.rs"]
mod generate;

const REGENERATE: &str = "run `cargo run --example gen-docs` and commit man/ and completions/";

/// Every file under `dir`, by name.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .map(|e| e.unwrap())
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn checked_in_man_pages_and_completions_are_current() {
    let fresh = tempfile::tempdir().unwrap();
    generate::generate(fresh.path()).unwrap();
    for folder in ["man", "completions"] {
        let expected = files(&fresh.path().join(folder));
        let actual = files(&root().join(folder));
        assert!(!expected.is_empty(), "{folder}: nothing generated");
        let expected_names: Vec<_> = expected.keys().collect();
        let actual_names: Vec<_> = actual.keys().collect();
        assert_eq!(
            actual_names, expected_names,
            "{folder}/ holds other files than the generator writes: {REGENERATE}"
        );
        for (name, bytes) in &expected {
            assert!(
                actual.get(name) == Some(bytes),
                "{folder}/{name} is stale: {REGENERATE}"
            );
        }
    }
}

#[test]
fn there_is_a_man_page_per_subcommand_and_completions_per_shell() {
    let man = files(&root().join("man"));
    let cmd = aciproj::cli::Cli::command();
    assert!(man.contains_key("aciproj.1"));
    for sub in cmd.get_subcommands() {
        let page = format!("aciproj-{}.1", sub.get_name());
        let text = String::from_utf8(man[&page].clone()).unwrap();
        assert!(text.contains(".SH \"EXIT STATUS\""), "{page}");
    }
    let rag = String::from_utf8(man["aciproj-rag.1"].clone()).unwrap();
    for code in 0..=5 {
        assert!(
            rag.contains(&format!(".TP\n\\fB{code}\\fR\n")),
            "exit {code}"
        );
    }
    let completions = files(&root().join("completions"));
    for name in [
        "aciproj.bash",
        "_aciproj",
        "aciproj.fish",
        "_aciproj.ps1",
        "aciproj.elv",
    ] {
        let text = String::from_utf8(completions[name].clone()).unwrap();
        // Subcommands and flags complete in every shell.
        for word in ["replay", "update", "view", "schema"] {
            assert!(text.contains(word), "{name}: {word}");
        }
        // Shells that complete values offer the views and the schema names too.
        if name == "aciproj.bash" || name == "_aciproj" {
            assert!(
                text.contains("incident-call") && text.contains("harness"),
                "{name}"
            );
        }
    }
}

#[test]
fn every_flag_says_what_it_does_and_its_default() {
    fn visit(cmd: &clap::Command, path: &str) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            let help = arg
                .get_long_help()
                .or_else(|| arg.get_help())
                .map(ToString::to_string)
                .unwrap_or_default();
            assert!(help.len() > 10, "{path} {id}: no help text");
            let states_default = !arg.get_default_values().is_empty()
                || help.contains("[default:")
                || arg.is_required_set();
            assert!(
                states_default,
                "{path} {id}: help does not state the default"
            );
        }
        for sub in cmd.get_subcommands() {
            visit(sub, &format!("{path} {}", sub.get_name()));
        }
    }
    let mut cmd = aciproj::cli::Cli::command();
    cmd.build();
    visit(&cmd, "aciproj");
}

/// The "prove an incident" walkthrough in docs/ledger.md runs as written and prints what the
/// page says it prints (hashes shortened to their first four digits, as on the page).
#[test]
fn the_ledger_walkthrough_runs_as_written() {
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: the walkthrough needs jq");
        return;
    }
    let page = std::fs::read_to_string(root().join("docs/ledger.md")).unwrap();
    let section = &page[page.find("## Prove an incident").expect("the section")..];
    let block = |fence: &str| {
        let start = section.find(fence).expect("the block") + fence.len();
        let len = section[start..].find("\n```\n").expect("its end");
        section[start..start + len + 1].to_owned()
    };
    let (script, expected) = (block("```sh\n"), block("```text\n"));
    let bin = assert_cmd::cargo::cargo_bin("aciproj");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("bash")
        .args(["-e", "-c", &script])
        .env("PATH", path)
        .current_dir(root())
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hash = regex::Regex::new("([0-9a-f]{4})[0-9a-f]{60}").unwrap();
    assert_eq!(hash.replace_all(&stdout, "$1…"), expected);
}

#[test]
fn man_pages_have_examples_and_a_description_beyond_the_name() {
    let man = files(&root().join("man"));
    let cmd = aciproj::cli::Cli::command();
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let page = format!("aciproj-{}.1", sub.get_name());
        let text = String::from_utf8(man[&page].clone()).unwrap();
        let examples = text
            .split_once(".SH EXAMPLES\n.nf\n")
            .and_then(|(_, rest)| rest.split_once(".fi\n"))
            .map(|(block, _)| block)
            .unwrap_or_else(|| panic!("{page}: no EXAMPLES section"));
        assert!(
            examples.contains(&format!("aciproj {}", sub.get_name())),
            "{page}: {examples}"
        );
        let description = text
            .split_once(".SH DESCRIPTION\n")
            .and_then(|(_, rest)| rest.split_once(".SH "))
            .map(|(d, _)| d)
            .unwrap();
        let about = sub.get_about().unwrap().to_string().replace('-', "\\-");
        assert!(
            description.contains(".PP") && description.len() > about.len() + 80,
            "{page}: DESCRIPTION only repeats NAME: {description}"
        );
    }
}

#[test]
fn value_flags_that_are_not_paths_do_not_complete_file_names() {
    let completions = files(&root().join("completions"));
    let zsh = String::from_utf8(completions["_aciproj"].clone()).unwrap();
    let bash = String::from_utf8(completions["aciproj.bash"].clone()).unwrap();
    for flag in ["--lookback-minutes", "--call-id", "--query", "--topic"] {
        let line = zsh
            .lines()
            .find(|l| l.starts_with(&format!("'{flag}=")))
            .unwrap_or_else(|| panic!("zsh: {flag}"));
        assert!(
            !line.ends_with("_files' \\") && !line.ends_with("_default' \\"),
            "zsh {flag}: {line}"
        );
        let case = bash
            .split(&format!("                {flag})\n"))
            .nth(1)
            .and_then(|rest| rest.split(";;").next())
            .unwrap_or_else(|| panic!("bash: {flag}"));
        assert!(!case.contains("compgen -f"), "bash {flag}: {case}");
    }
    // Paths still complete as paths.
    assert!(zsh.contains("RUN.json:_files"));
    assert!(
        zsh.contains("calls.jsonl (one call per line):_files -/"),
        "replay completes folders"
    );
}

#[test]
fn help_of_help_works_and_help_names_any_command() {
    let ran = crate::common::Aci::new(["help", "--help"]).run();
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(ran.stdout.contains("Usage: aciproj help"), "{}", ran.stdout);
    let via_help = crate::common::Aci::new(["help", "rag"]).run();
    let via_flag = crate::common::Aci::new(["rag", "--help"]).run();
    assert_eq!(via_help.code, 0);
    assert_eq!(via_help.stdout, via_flag.stdout);
    assert!(via_help.stdout.contains("Examples:\n  aciproj rag"));
    let unknown = crate::common::Aci::new(["help", "nope"]).run();
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("no such command"),
        "{}",
        unknown.stderr
    );
}

/// `bench/run.sh` says what to install before it builds or generates anything.
#[cfg(unix)]
#[test]
fn bench_script_checks_its_tools_before_generating_inputs() {
    let bin = tempfile::tempdir().unwrap();
    // Only what the script needs to start (`dirname`): no cargo, no hyperfine.
    let dirname = ["/usr/bin/dirname", "/bin/dirname"]
        .iter()
        .map(Path::new)
        .find(|p| p.exists())
        .expect("dirname is installed");
    std::os::unix::fs::symlink(dirname, bin.path().join("dirname")).unwrap();
    let bench_dir = tempfile::tempdir().unwrap();
    let inputs = bench_dir.path().join("inputs");
    // `bash` by absolute path: the PATH above has none.
    let out = std::process::Command::new("/bin/bash")
        .arg("bench/run.sh")
        .env("PATH", bin.path())
        .env("BENCH_DIR", &inputs)
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("hyperfine: hyperfine (cargo install hyperfine"),
        "{stderr}"
    );
    assert!(stderr.contains("cargo: a Rust toolchain"), "{stderr}");
    assert!(
        !inputs.exists(),
        "nothing generated before the tools were found"
    );
}
