//! The README is for a newcomer, and every example in it works: each `console` block is run
//! (`$ ` lines are commands, the lines after them the output they must print) and each command
//! in a `sh` block is either run or one of the few setup steps a test cannot take.

use std::path::Path;

use crate::common::root;

/// Setup steps shown in `sh` blocks that a test cannot or must not take (they build, install
/// or rewrite the repository), by prefix.
const NOT_RUN: &[&str] = &[
    "cargo test",
    "cargo install --path .",
    "cargo run --example gen-docs",
    "man -l ",
    "source completions/",
];

/// One fenced block: its info string, the line it starts on (1-based) and its lines.
struct Block {
    info: String,
    line: usize,
    lines: Vec<String>,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => {
                open = Some(Block {
                    info: info.trim().to_owned(),
                    line: i + 1,
                    lines: Vec::new(),
                })
            }
            (Some(_), Some(_)) => out.extend(open.take()),
            (Some(b), None) => b.lines.push(line.to_owned()),
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "README: an unclosed code block");
    out
}

/// A console block as (line, command, expected output) triples; a command continues on the
/// next line while it ends with `\`.
fn sessions(block: &Block) -> Vec<(usize, String, String)> {
    let mut out: Vec<(usize, String, String)> = Vec::new();
    let mut lines = block.lines.iter().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let Some(cmd) = line.strip_prefix("$ ") else {
            let last = out.last_mut().unwrap_or_else(|| {
                panic!("README:{}: output before any command", block.line + 1 + i)
            });
            last.2.push_str(line);
            last.2.push('\n');
            continue;
        };
        let mut cmd = cmd.to_owned();
        while cmd.ends_with('\\') {
            let (_, next) = lines.next().expect("a continued command goes on");
            cmd.push('\n');
            cmd.push_str(next);
        }
        out.push((block.line + 1 + i, cmd, String::new()));
    }
    out
}

/// Runs a README command line with `aciproj` (the binary under test) on the PATH, in the
/// repository root; `cargo run -q --` stands for `aciproj`.
fn run(cmd: &str) -> std::process::Output {
    let cmd = cmd.replace("cargo run -q -- ", "aciproj ");
    let bin = Path::new(env!("CARGO_BIN_EXE_aciproj")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .arg("-c")
        .arg(&cmd)
        .env("PATH", path)
        .current_dir(root())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

#[test]
fn every_readme_example_runs_and_prints_what_the_readme_shows() {
    let text = readme();
    let mut ran = 0;
    for block in blocks(&text) {
        match block.info.as_str() {
            "console" => {
                for (line, cmd, expected) in sessions(&block) {
                    let out = run(&cmd);
                    let stdout = String::from_utf8_lossy(&out.stdout);
                    assert_eq!(
                        stdout,
                        expected,
                        "README.md:{line}: `{cmd}` prints otherwise (stderr: {})",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    ran += 1;
                }
            }
            "sh" => {
                for (i, line) in block.lines.iter().enumerate() {
                    let cmd = line.split(" #").next().unwrap_or_default().trim_end();
                    if cmd.is_empty() || cmd.starts_with('#') {
                        continue;
                    }
                    if NOT_RUN.iter().any(|p| cmd.starts_with(p)) {
                        continue;
                    }
                    let at = block.line + 1 + i;
                    assert!(
                        cmd.starts_with("cargo run -q -- ") || cmd.starts_with("aciproj "),
                        "README.md:{at}: `{cmd}` is neither run by this test nor a known setup \
                         step; show it in a console block with its output"
                    );
                    let out = run(cmd);
                    assert!(
                        out.status.success(),
                        "README.md:{at}: `{cmd}` failed: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    ran += 1;
                }
            }
            _ => {}
        }
    }
    assert!(ran >= 12, "only {ran} README examples were run");
}

#[test]
fn the_readme_opens_with_the_newcomer_commands_and_a_first_call() {
    let text = readme();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        &lines[..5],
        [
            "# aciproj",
            "",
            "```sh",
            "cargo run -q -- check 'fixtures/**/*.case.json'",
            "cargo test",
        ]
    );
    // A first working call in the first screen: a context that authorizes tools, a rag or
    // logs command and its output, all within 60 lines.
    let first_screen = lines[..60].join("\n");
    assert!(
        first_screen.contains("\"authorized_tools\""),
        "{first_screen}"
    );
    let call = blocks(&first_screen)
        .into_iter()
        .filter(|b| b.info == "console")
        .flat_map(|b| sessions(&b))
        .find(|(_, cmd, out)| {
            (cmd.starts_with("aciproj rag") || cmd.starts_with("aciproj logs"))
                && out.contains("\"READY\"")
        });
    assert!(
        call.is_some(),
        "no working rag/logs call in the first 60 lines"
    );
    assert!(lines.len() <= 462, "README has {} lines", lines.len());
    // A clone has nothing outside the repository to point to.
    assert!(
        !text.contains("../"),
        "README refers to a file outside the repository"
    );
    let cargo = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let msrv = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = "))
        .expect("Cargo.toml states rust-version")
        .trim_matches('"');
    assert!(
        text.contains(&format!("Rust {msrv} or later")),
        "README states the minimum Rust version {msrv}"
    );
    for doc in [
        "docs/performance.md",
        "docs/fuzzing.md",
        "docs/decisions.md",
    ] {
        assert!(text.contains(&format!("({doc}")), "README links {doc}");
        assert!(root().join(doc).is_file(), "{doc} exists");
    }
}
