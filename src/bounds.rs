//! UTF-8 byte budgets.
//!
//! Every bound in aciproj is counted in UTF-8 bytes and every cut lands on a character boundary,
//! so a cut string is always a prefix of the original and always valid UTF-8. Sizes of whole
//! results are measured as the compact JSON serde_json would write, without building the string.

use serde::Serialize;

/// The longest prefix of `s` that is at most `max` bytes and ends on a character boundary, and
/// how many bytes were cut off.
pub fn prefix_within(s: &str, max: usize) -> (&str, usize) {
    if s.len() <= max {
        return (s, 0);
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (&s[..end], s.len() - end)
}

/// Like [`prefix_within`], for redacted text: a cut that would leave the start of a placeholder
/// (`…url=https://<HO`) or of a correlation label (`<IP#1` of `<IP#12>`) backs off to before its
/// `<`, so the reader never sees half a marker.
pub fn redacted_prefix_within(s: &str, max: usize) -> (&str, usize) {
    let (kept, _) = prefix_within(s, max);
    if kept.len() == s.len() {
        return (kept, 0);
    }
    let kept = match kept.rfind('<') {
        Some(open) if is_marker_start(&kept[open + 1..]) => &kept[..open],
        _ => kept,
    };
    (kept, s.len() - kept.len())
}

/// Whether `rest` (what follows a `<`) can be the start of a placeholder (`HOS`, `*`) or a
/// label (`IP#`, `POD#1`): capitals, `_` or `*`, then optionally `#` and digits after a name.
fn is_marker_start(rest: &str) -> bool {
    let b = rest.as_bytes();
    let name = b
        .iter()
        .take_while(|&&c| c.is_ascii_uppercase() || c == b'_' || c == b'*')
        .count();
    match b.get(name) {
        None => true,
        Some(b'#') => name > 0 && b[name + 1..].iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// Cuts `s` in place to at most `max` bytes on a character boundary; returns the bytes removed.
pub fn truncate_to(s: &mut String, max: usize) -> usize {
    let keep = prefix_within(s, max).0.len();
    let removed = s.len() - keep;
    s.truncate(keep);
    removed
}

/// The length of `value` serialized as compact JSON.
pub fn json_len<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut counter = ByteCounter(0);
    // Serializing our own contract types into a counter cannot fail; a failure would mean a map
    // with non-string keys, which the contracts do not have. Count it as unbounded to stay safe.
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => usize::MAX,
    }
}

struct ByteCounter(usize);

impl std::io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The size a JSON array has when its items' sizes are `item_lens`.
pub fn array_len(item_lens: impl IntoIterator<Item = usize>) -> usize {
    let mut total = 2;
    let mut first = true;
    for len in item_lens {
        total += len + usize::from(!first);
        first = false;
    }
    total
}

/// Tallies what bounds removed from one collection or field kind.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
pub struct Dropped {
    /// Whole items removed.
    pub items: u64,
    /// Bytes removed by cutting strings (items removed whole are not counted here).
    pub bytes: u64,
}

impl Dropped {
    /// Whether nothing was removed.
    pub fn is_empty(&self) -> bool {
        self.items == 0 && self.bytes == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_cuts_on_char_boundaries() {
        assert_eq!(prefix_within("abc", 5), ("abc", 0));
        assert_eq!(prefix_within("abc", 2), ("ab", 1));
        // 内 is three bytes: a cut inside it backs off to the boundary before it.
        assert_eq!(prefix_within("a内存", 2), ("a", 6));
        assert_eq!(prefix_within("a内存", 4), ("a内", 3));
        assert_eq!(prefix_within("😀", 3), ("", 4));
    }

    #[test]
    fn redacted_cuts_never_leave_half_a_placeholder() {
        let s = "url=https://<HOST>/v2 token=<SECRET>";
        assert_eq!(redacted_prefix_within(s, 15), ("url=https://", 24));
        assert_eq!(redacted_prefix_within(s, 18), ("url=https://<HOST>", 18));
        assert_eq!(redacted_prefix_within(s, 13), ("url=https://", 24));
        assert_eq!(redacted_prefix_within("a <* b", 4), ("a ", 4));
        // A lone `<` that is not a placeholder's start is ordinary text.
        assert_eq!(redacted_prefix_within("x < y and z", 5), ("x < y", 6));
        assert_eq!(redacted_prefix_within(s, 100), (s, 0));
    }

    #[test]
    fn redacted_cuts_never_leave_half_a_label() {
        let s = "from <IP#12>:443 to <POD#3>";
        for max in 5..=11 {
            assert_eq!(redacted_prefix_within(s, max).0, "from ", "{max}");
        }
        assert_eq!(redacted_prefix_within(s, 12).0, "from <IP#12>");
        assert_eq!(redacted_prefix_within(s, 26).0, "from <IP#12>:443 to ");
        // Not a label's start: digits or `#` without a capital name before them.
        assert_eq!(redacted_prefix_within("a <5 and more", 4).0, "a <5");
        assert_eq!(redacted_prefix_within("a <#5 and more", 5).0, "a <#5");
    }

    #[test]
    fn json_len_matches_serialization() {
        let v = serde_json::json!({"a": "q\"uote\u{1}", "b": [1, 2, "内"]});
        assert_eq!(json_len(&v), serde_json::to_string(&v).unwrap().len());
    }

    #[test]
    fn array_len_counts_commas_and_brackets() {
        assert_eq!(array_len([]), 2);
        assert_eq!(array_len([3]), 5);
        assert_eq!(array_len([3, 4]), 10);
        let v = serde_json::json!(["a", "bc"]);
        assert_eq!(array_len([3, 4]), serde_json::to_string(&v).unwrap().len());
    }
}
