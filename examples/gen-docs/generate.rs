//! Man pages and shell completions, generated from the clap definition in `src/cli.rs`.
//!
//! Shared by the `gen-docs` example (which writes into the repository) and the docs test (which
//! writes into a temporary folder and compares), so the checked-in files can never silently
//! drift from `--help`.

use std::path::Path;

use clap::{Command, CommandFactory};
use clap_complete::Shell;

/// The shells completions are generated for.
pub const SHELLS: [Shell; 5] = [
    Shell::Bash,
    Shell::Zsh,
    Shell::Fish,
    Shell::PowerShell,
    Shell::Elvish,
];

/// Writes `man/*.1` and `completions/*` under `root`.
pub fn generate(root: &Path) -> std::io::Result<()> {
    let man = root.join("man");
    let completions = root.join("completions");
    std::fs::create_dir_all(&man)?;
    std::fs::create_dir_all(&completions)?;
    let mut cmd = aciproj::cli::Cli::command().disable_help_subcommand(true);
    cmd.build();
    write_man_pages(&cmd, &man)?;
    for shell in SHELLS {
        let mut cmd = aciproj::cli::Cli::command();
        clap_complete::generate_to(shell, &mut cmd, "aciproj", &completions)?;
    }
    Ok(())
}

/// One page per command, subcommands included (`aciproj-rag.1`, …).
fn write_man_pages(cmd: &Command, dir: &Path) -> std::io::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_man_pages(sub, dir)?;
    }
    let page = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    page.render_title(&mut out)?;
    page.render_name_section(&mut out)?;
    page.render_synopsis_section(&mut out)?;
    page.render_description_section(&mut out)?;
    page.render_options_section(&mut out)?;
    if cmd.has_subcommands() {
        page.render_subcommands_section(&mut out)?;
    }
    render_exit_status(cmd, &mut out);
    render_examples(cmd, &mut out);
    if cmd.get_version().is_some() {
        page.render_version_section(&mut out)?;
    }
    std::fs::write(dir.join(page.get_filename()), out)
}

/// The `Examples:` block of a command's long after-help (what `--help` prints) as a man
/// `EXAMPLES` section, one command per line, not filled, so it can be copied as shown.
fn render_examples(cmd: &Command, out: &mut Vec<u8>) {
    let Some(after) = cmd.get_after_long_help().map(ToString::to_string) else {
        return;
    };
    let Some((_, examples)) = after.split_once("Examples:\n") else {
        return;
    };
    out.extend_from_slice(b".SH EXAMPLES\n.nf\n");
    for line in examples.lines() {
        let line = line.strip_prefix("  ").unwrap_or(line);
        let mut roff = line.replace('\\', "\\e").replace('-', "\\-");
        if roff.starts_with(['.', '\'']) {
            roff.insert_str(0, "\\&");
        }
        out.extend_from_slice(format!("{roff}\n").as_bytes());
    }
    out.extend_from_slice(b".fi\n");
}

/// The `Exit codes:` block of a command's after-help as a man `EXIT STATUS` section: the help
/// text stays the single source, and each code becomes its own tagged paragraph instead of being
/// filled into one line.
fn render_exit_status(cmd: &Command, out: &mut Vec<u8>) {
    let Some(after) = cmd.get_after_help().map(ToString::to_string) else {
        return;
    };
    // A code's meaning may wrap onto indented lines that start with no code: they are its own.
    let mut codes: Vec<(&str, String)> = Vec::new();
    for line in after
        .lines()
        .skip_while(|l| !l.starts_with("Exit codes:"))
        .skip(1)
    {
        let line = line.trim_start();
        if line.is_empty() {
            break;
        }
        let coded = line
            .split_once(char::is_whitespace)
            .filter(|(code, _)| code.bytes().all(|b| b.is_ascii_digit()));
        match (coded, codes.last_mut()) {
            (Some((code, meaning)), _) => codes.push((code, meaning.trim().to_owned())),
            (None, Some((_, meaning))) => {
                meaning.push(' ');
                meaning.push_str(line);
            }
            (None, None) => {}
        }
    }
    if codes.is_empty() {
        return;
    }
    out.extend_from_slice(b".SH \"EXIT STATUS\"\n");
    for (code, meaning) in codes {
        let meaning = meaning.replace('\\', "\\e").replace('-', "\\-");
        out.extend_from_slice(format!(".TP\n\\fB{code}\\fR\n{meaning}\n").as_bytes());
    }
}
