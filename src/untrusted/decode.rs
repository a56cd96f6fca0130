//! Hidden characters and encoded text: the raw tests of the flag catalogue.
//!
//! These run on every scanned string, so each starts with a check that costs one pass over the
//! bytes and rejects almost every log line: the hidden-character tests need a non-ASCII byte,
//! the base64 test a run of at least [`MIN_BASE64`] alphabet bytes, the percent test two
//! `%XX` escapes. Decoded text is scanned by the text rules once (no decoding within decoding):
//! what a model could read out of the string is what counts, not how many layers hid it.

/// Unicode tag characters, and the supplementary variation selectors that "emoji smuggling"
/// uses the same way: invisible, yet tokenized.
fn is_tag(c: char) -> bool {
    matches!(c, '\u{E0000}'..='\u{E007F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Embedding, override and isolate controls: they reorder the text a reader sees.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters that are never shown and split words apart.
fn is_zero_width(c: char) -> bool {
    matches!(
        c,
        '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}'..='\u{2064}' | '\u{180E}' | '\u{FEFF}'
    )
}

/// Whether `c` is never shown: removed before the text rules read a string, so that an
/// invisible character inside a word cannot hide it.
pub(crate) fn is_hidden(c: char) -> bool {
    is_tag(c) || is_bidi(c) || is_zero_width(c) || c == '\u{00AD}'
}

/// `hidden.tag-characters`.
pub(crate) fn has_tag_characters(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(is_tag)
}

/// `hidden.bidi-controls`.
pub(crate) fn has_bidi_controls(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(is_bidi)
}

/// `hidden.zero-width`: a zero-width space, word joiner or invisible operator anywhere; a byte
/// order mark past the start; a joiner or non-joiner beside an ASCII character (between emoji
/// or letters of a script that needs them, they are ordinary text).
pub(crate) fn has_zero_width(text: &str) -> bool {
    if text.is_ascii() {
        return false;
    }
    let mut prev: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let flagged = match c {
            '\u{200C}' | '\u{200D}' => {
                prev.is_some_and(|p| p.is_ascii()) || chars.peek().is_some_and(|n| n.is_ascii())
            }
            '\u{FEFF}' => prev.is_some(),
            c => is_zero_width(c),
        };
        if flagged {
            return true;
        }
        prev = Some(c);
    }
    false
}

/// The shortest base64 run worth decoding: 12 bytes of text.
const MIN_BASE64: usize = 16;

/// The most runs of one string decoded, so a string of many short runs costs little.
const MAX_RUNS: usize = 8;

fn base64_value(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' | b'-' => Some(62),
        b'/' | b'_' => Some(63),
        _ => None,
    }
}

/// Decodes a run of the base64 alphabet (either flavour), ignoring a partial last quantum.
fn decode_base64(run: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(run.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in run {
        let Some(v) = base64_value(b) else { break };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

/// Decoded bytes that read as text: valid UTF-8 (a cut last character aside) and almost all of
/// it printable, so random tokens and hashes are not scanned as if they were words.
fn as_text(bytes: &[u8]) -> Option<&str> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    let total = text.chars().count();
    let printable = text
        .chars()
        .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        .count();
    (total >= 8 && printable * 10 >= total * 9).then_some(text)
}

/// `encoded.base64`: a run of the base64 alphabet whose decoding the text rules flag.
pub(crate) fn base64_flags(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut runs = 0;
    let mut i = 0;
    while i < bytes.len() {
        if base64_value(bytes[i]).is_none() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && base64_value(bytes[i]).is_some() {
            i += 1;
        }
        let run = &bytes[start..i];
        // A run of letters only is a word; base64 of text mixes cases and digits or symbols.
        if run.len() >= MIN_BASE64 && !run.iter().all(u8::is_ascii_lowercase) {
            runs += 1;
            let decoded = decode_base64(run);
            if as_text(&decoded).is_some_and(|t| !super::scan_text(t).is_empty()) {
                return true;
            }
            if runs == MAX_RUNS {
                return false;
            }
        }
    }
    false
}

/// `encoded.percent`: a string with at least two `%XX` escapes whose decoding the text rules
/// flag (`+` read as a space, as in a query).
pub(crate) fn percent_flags(text: &str) -> bool {
    let bytes = text.as_bytes();
    let escapes = memchr::memchr_iter(b'%', bytes)
        .filter(|&at| {
            bytes.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
        })
        .take(2)
        .count();
    // A query's words joined by `+` read as a sentence once decoded, escapes or not.
    let joined = memchr::memchr_iter(b'+', bytes)
        .filter(|&at| {
            at > 0
                && bytes[at - 1].is_ascii_alphanumeric()
                && bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric)
        })
        .take(3)
        .count();
    if escapes < 2 && joined < 3 {
        return false;
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    let decoded = String::from_utf8_lossy(&out);
    !super::scan_text(&decoded).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_either_alphabet_and_ignores_a_partial_quantum() {
        assert_eq!(decode_base64(b"aGVsbG8gd29ybGQ"), b"hello world");
        assert_eq!(decode_base64(b"Pz8_Pz8-"), decode_base64(b"Pz8/Pz8+"));
    }

    #[test]
    fn random_tokens_do_not_read_as_text() {
        assert!(as_text(&decode_base64(b"k3J9xQ2mZ8vL0pT4wR7yB1nC6")).is_none());
        assert!(as_text(b"plain words here").is_some());
    }
}
