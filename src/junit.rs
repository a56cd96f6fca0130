//! JUnit XML for `check --junit FILE` (SPEC §7): what CI systems (GitLab, Jenkins, GitHub test
//! reporters) read to show test results.
//!
//! The de-facto format has no formal standard; this writes the subset every consumer reads:
//! `testsuites` > one `testsuite` > one `testcase` per case, named by the case's `name` (its
//! file as `classname` and `file`), and for a failed case a `failure` whose `message` is the first
//! problem and whose text is the whole readable diff `check` prints. There is no `time` nor
//! `timestamp`: the report is deterministic (same cases, same bytes), and consumers treat a
//! missing time as zero. Text that XML 1.0 cannot hold (controls, noncharacters) is written as
//! `U+XXXX`, so a case's odd name never makes the file unreadable.

/// One test case: a case file, or a pattern that matched nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestCase {
    /// The case's `name` (or, when it has none, what stands for it: the file, the pattern).
    pub name: String,
    /// The case file (or the pattern).
    pub file: String,
    /// The problems of a failed case, one per line of the diff; empty when it passed.
    pub problems: Vec<String>,
}

/// Escapes `value` for XML text and double-quoted attributes.
fn escape_into(out: &mut String, value: &str, attribute: bool) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // An attribute's line breaks and tabs would be normalized to spaces by the reader.
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() || matches!(u32::from(c), 0xFFFE | 0xFFFF) => {
                use std::fmt::Write;
                let _ = write!(out, "U+{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
}

fn attr(out: &mut String, name: &str, value: &str) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    escape_into(out, value, true);
    out.push('"');
}

/// The JUnit XML document of one suite named `suite`.
pub fn document(suite: &str, cases: &[TestCase]) -> String {
    let tests = cases.len().to_string();
    let failures = cases
        .iter()
        .filter(|c| !c.problems.is_empty())
        .count()
        .to_string();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    for (name, value) in [
        ("name", suite),
        ("tests", &tests),
        ("failures", &failures),
        ("errors", "0"),
    ] {
        attr(&mut out, name, value);
    }
    out.push_str(">\n  <testsuite");
    for (name, value) in [
        ("name", suite),
        ("tests", &tests),
        ("failures", &failures),
        ("errors", "0"),
        ("skipped", "0"),
    ] {
        attr(&mut out, name, value);
    }
    out.push_str(">\n");
    for case in cases {
        out.push_str("    <testcase");
        attr(&mut out, "name", &case.name);
        attr(&mut out, "classname", &case.file);
        attr(&mut out, "file", &case.file);
        match case.problems.first() {
            None => out.push_str("/>\n"),
            Some(first) => {
                out.push_str(">\n      <failure");
                attr(&mut out, "message", first);
                attr(&mut out, "type", "mismatch");
                out.push('>');
                escape_into(&mut out, &case.problems.join("\n"), false);
                out.push_str("</failure>\n    </testcase>\n");
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_diffs_are_escaped_and_failures_counted() {
        let cases = [
            TestCase {
                name: "ok".into(),
                file: "a.case.json".into(),
                problems: vec![],
            },
            TestCase {
                name: "rag: <b>&\"'\u{1b}".into(),
                file: "b.case.json".into(),
                problems: vec!["/x: expected 1, actual \"<2>\"".into(), "line\ttwo".into()],
            },
        ];
        let xml = document("aciproj check", &cases);
        assert!(xml.contains("tests=\"2\" failures=\"1\""), "{xml}");
        assert!(
            xml.contains("<testcase name=\"ok\" classname=\"a.case.json\" file=\"a.case.json\"/>")
        );
        assert!(
            xml.contains("name=\"rag: &lt;b&gt;&amp;&quot;&apos;U+001B\""),
            "{xml}"
        );
        assert!(xml.contains("message=\"/x: expected 1, actual &quot;&lt;2&gt;&quot;\""));
        assert!(xml.contains(">/x: expected 1, actual &quot;&lt;2&gt;&quot;\nline\ttwo</failure>"));
    }
}
