//! Credentials: a secret value after a key that names it, in every syntax real systems write it
//! (assignments of every language, JSON/YAML, headers, query strings, XML attributes and
//! elements, keys in several languages), after a command-line flag, after an auth scheme, and in
//! connection strings and URLs. The key stays, the value becomes `<SECRET>`.
//!
//! The candidate-key regex is cheap and loose; [`is_secret_key`] decides by the key's words
//! (`db_password`, `x-auth-token`, `accessKey`, `session_id`), so `bypass`, `keyboard` and
//! `monkey` stay. A value that reads as prose (`invalid token: signature mismatch`) stays too.

use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, always, ex};
use super::super::text::{
    Edit, SECRET, byte_at, ends_with_ci, is_placeholder, is_word_byte, next_char,
    placeholder_after, placeholders_at, quoted_end,
};
use crate::matcher::Matcher;

static KV_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?:\\?["'])?"#,
        r"(?:[A-Za-z0-9_.\-]*(?i-u:pass|pwd|pw|psk|secret|token|key|cred|auth|cookie|sig|session|sk|pat",
        r"|kennwort|senha|wachtwoord|haslo|contrase|mdp|clave|losenord|salasana|heslo|parola|sifre|jelszo|lozinka|adgangskode|access[_.\-]?id|account[_.\-]?id",
        r"|sonar[_.\-]login)",
        r"[A-Za-z0-9_.\-]*|密码|口令|令牌|密钥|秘钥|密碼|金鑰|パスワード|비밀번호|пароль|Пароль|ПАРОЛЬ",
        r"|contraseña|Contraseña|hasło|Hasło|mot de passe|Mot de passe|トークン|토큰|токен|Токен",
        r"|lösenord|Lösenord|şifre|Şifre|jelszó|Jelszó|κωδικός|Κωδικός|mật khẩu|Mật khẩu|كلمة المرور|סיסמה|पासवर्ड|รหัสผ่าน)",
        // Every assignment operator of the common languages and config formats; the longer
        // ones first, so `:=` is not read as `:` and a value starting with `=`. A `,` only
        // between two quoted strings (`setProperty("password", "x")`, checked by the pass).
        r#"(?:\\?["'])?\]?[ \t]*"#,
        r"(?::[ \t]*(?:&(?:\x27static[ \t]+)?)?(?:str|string|String|Secret|SecretString|CharSequence|char[ \t]*\*|\[\]byte|Option<String>|Option<&str>|Optional<String>|Any|any)[ \t]*=|[ \t]+(?:&(?:\x27static[ \t]+)?)?(?:str|string|String|Secret|SecretString|CharSequence|char[ \t]*\*|\[\]byte|Option<String>|Option<&str>|Optional<String>|Any|any)[ \t]*=",
        r"|:::=|::=|:=|=>|!==|!=|===|==|\.=|\?=|\+=|\|\|=|%3[Dd]|[:=]|：|,)[ \t]*",
    ))
    .expect("constant regex")
});

/// Words that make a key secret when the key ends with them (`db_password`, `x-auth-token`).
/// Secret words outside ASCII, matched at the end of a key (`db密码`, `Benutzer-Passwort` is
/// ASCII and goes by the suffix list).
const NON_ASCII_SECRET_WORDS: [&str; 25] = [
    "密码",
    "口令",
    "令牌",
    "密钥",
    "秘钥",
    "密碼",
    "金鑰",
    "パスワード",
    "비밀번호",
    "пароль",
    "contraseña",
    "hasło",
    "mot de passe",
    "トークン",
    "토큰",
    "токен",
    "lösenord",
    "şifre",
    "jelszó",
    "κωδικός",
    "mật khẩu",
    "كلمة المرور",
    "סיסמה",
    "पासवर्ड",
    "รหัสผ่าน",
];

const SECRET_WORD_SUFFIXES: [&str; 36] = [
    "passwort",
    "kennwort",
    "senha",
    "wachtwoord",
    "haslo",
    "losenord",
    "salasana",
    "heslo",
    "parola",
    "sifre",
    "jelszo",
    "lozinka",
    "adgangskode",
    "contrasena",
    "mdp",
    "passcode",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "secretkey",
    "privatekey",
    "credential",
    "credentials",
    "cookie",
    "signature",
    "sessionid",
    "authorization",
    // `bindpw`, `rootpw`, `wifi.psk`, PAM's `authtok`.
    "pw",
    "psk",
    "authtok",
    // SNMP's community string is its password.
    "community",
];
/// Words that are secret only as a whole word (`pass` but not `bypass`).
const SECRET_WORDS_EXACT: [&str; 10] = [
    "pass", "auth", "sk", "secrets", "sig", "clave", "otp", "pat", "creds", "accessid",
];

/// Words before `KEY` in an upper-case environment name that make it no secret (`PRIMARY_KEY`).
const NOT_SECRET_BEFORE_KEY: [&str; 9] = [
    "primary",
    "foreign",
    "sort",
    "partition",
    "routing",
    "cache",
    "public",
    "pub",
    "idempotency",
];
/// Two-word keys (`api_key`, `accessKey`, `session_id`).
const SECRET_PAIRS: [(&str, &str); 19] = [
    // An access id pairs with an access key as a key id does in AWS (Sumo Logic's `accessId`).
    ("access", "id"),
    // An Azure storage connection string's `AccountKey`.
    ("account", "key"),
    // SonarQube's `sonar.login` holds a token, not a user name.
    ("sonar", "login"),
    ("tls", "key"),
    ("ssh", "key"),
    ("license", "key"),
    ("deploy", "key"),
    ("consumer", "key"),
    ("api", "key"),
    ("access", "key"),
    ("secret", "key"),
    ("private", "key"),
    ("encryption", "key"),
    ("signing", "key"),
    ("master", "key"),
    ("app", "key"),
    ("auth", "key"),
    ("client", "key"),
    ("session", "id"),
];
/// Words after a secret word that keep the key secret (`password_hash`, `secret_id`).
const SECRET_CONTINUATIONS: [&str; 19] = [
    "base",
    "id",
    "value",
    "hash",
    "str",
    "string",
    "b64",
    "base64",
    "encrypted",
    "enc",
    "plain",
    "plaintext",
    "raw",
    "text",
    "data",
    "md5",
    "digest",
    "hex",
    "header",
];
/// Values that are prose, not secrets, after `token: ` or `secret: ` in a sentence.
const PROSE_VALUES: [&str; 40] = [
    "not",
    "is",
    "was",
    "are",
    "has",
    "invalid",
    "expired",
    "missing",
    "empty",
    "required",
    "null",
    "none",
    "nil",
    "unknown",
    "malformed",
    "failed",
    "failure",
    "denied",
    "mismatch",
    "revoked",
    "incorrect",
    "wrong",
    "rejected",
    "error",
    "timeout",
    "ok",
    "blank",
    "absent",
    "unset",
    "undefined",
    "changed",
    "updated",
    "reset",
    "no",
    "done",
    "refreshed",
    "renewed",
    "rotated",
    "issued",
    "cleared",
];
const AUTH_SCHEMES: [&str; 7] = [
    "bearer",
    "basic",
    "digest",
    "token",
    "negotiate",
    "ntlm",
    "aws4-hmac-sha256",
];

/// How many words a key has (split at `_`, `-`, `.` and camel case: `dbPassword`, `X-API-Key`),
/// and its last three, empty where it has fewer.
pub(crate) fn key_words(key: &str) -> (usize, [&str; 3]) {
    let mut words = LastWords::default();
    let b = key.as_bytes();
    let mut start = None;
    for i in 0..b.len() {
        let ch = b[i];
        if !ch.is_ascii_alphanumeric() {
            if let Some(st) = start.take() {
                words.push(&key[st..i]);
            }
            continue;
        }
        if let Some(st) = start {
            let prev = b[i - 1];
            let camel = prev.is_ascii_lowercase() && ch.is_ascii_uppercase();
            let acronym_end = prev.is_ascii_uppercase()
                && ch.is_ascii_uppercase()
                && b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if camel || (acronym_end && i > st) {
                words.push(&key[st..i]);
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        words.push(&key[st..]);
    }
    (words.n, words.last)
}

/// The last three words of a key as they are split off, and how many there were in all: all
/// that [`is_secret_key`] reads, without a vector per candidate key.
#[derive(Default)]
struct LastWords<'a> {
    n: usize,
    last: [&'a str; 3],
}

impl<'a> LastWords<'a> {
    fn push(&mut self, word: &'a str) {
        self.last.rotate_left(1);
        self.last[2] = word;
        self.n += 1;
    }
}

fn is_secret_word(w: &str) -> bool {
    SECRET_WORDS_EXACT.iter().any(|x| w.eq_ignore_ascii_case(x))
        || SECRET_WORD_SUFFIXES.iter().any(|x| ends_with_ci(w, x))
}

fn is_secret_pair(a: &str, b: &str) -> bool {
    SECRET_PAIRS
        .iter()
        .any(|(x, y)| a.eq_ignore_ascii_case(x) && b.eq_ignore_ascii_case(y))
        || (ends_with_ci(a, "api") && b.eq_ignore_ascii_case("key"))
}

pub(crate) fn is_secret_key(key: &str) -> bool {
    // Only these keys can end in one (`mot de passe` is the one with spaces): no lowercase
    // copy of every candidate key.
    if (!key.is_ascii() || key.contains(' '))
        && (NON_ASCII_SECRET_WORDS.iter().any(|k| key.ends_with(k)) || {
            // One lowercase copy, only when the key as written ends in none.
            let lower = key.to_lowercase();
            NON_ASCII_SECRET_WORDS.iter().any(|k| lower.ends_with(k))
        })
    {
        return true;
    }
    let (n, last) = key_words(key);
    // Word `i` of the `n`, for the last three.
    let w = |i: usize| last[i + 3 - n];
    if n == 0 {
        return false;
    }
    if is_secret_word(w(n - 1)) || (n >= 2 && is_secret_pair(w(n - 2), w(n - 1))) {
        return true;
    }
    // `aws_account_id`, `AWSAccountId`: the account an ARN would name.
    if n >= 3
        && w(n - 3).eq_ignore_ascii_case("aws")
        && w(n - 2).eq_ignore_ascii_case("account")
        && w(n - 1).eq_ignore_ascii_case("id")
    {
        return true;
    }
    // `HEROKU_KEY`, `SENDGRID_KEY`: an upper-case environment name ending in KEY holds a key.
    let env_name = key
        .bytes()
        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    if env_name
        && n >= 2
        && w(n - 1) == "KEY"
        && !NOT_SECRET_BEFORE_KEY
            .iter()
            .any(|x| w(n - 2).eq_ignore_ascii_case(x))
    {
        return true;
    }
    n >= 2
        && SECRET_CONTINUATIONS
            .iter()
            .any(|x| w(n - 1).eq_ignore_ascii_case(x))
        && (is_secret_word(w(n - 2)) || (n >= 3 && is_secret_pair(w(n - 3), w(n - 2))))
}

/// A key whose last word is `key` and whose word before it names no index or id kind
/// (`sdkKey`, `licenseKey` but not `cacheKey`, `routing_key`): its value is a secret when it
/// [looks generated](looks_generated).
fn is_some_key(key: &str) -> bool {
    let (n, last) = key_words(key);
    let w = |i: usize| last[i + 3 - n];
    n >= 2
        && w(n - 1).eq_ignore_ascii_case("key")
        && !NOT_SECRET_BEFORE_KEY
            .iter()
            .chain(&[
                "object",
                "s3",
                "idempotency",
                "dedup",
                "cache",
                "lookup",
                "group",
                "message",
            ])
            .any(|x| w(n - 2).eq_ignore_ascii_case(x))
}

/// Whether a value reads as random: 12 bytes or more of letters, digits and base64's or a
/// URL's symbols, changing between lower case, upper case, digits and symbols at least once
/// every four bytes, with four letters or more of which under 30% are vowels. Chosen words,
/// camel-case names (`getUserById`: 40% vowels) and order numbers (`ORD-2024-0318240`: three
/// letters) do not; what a generator prints (`PMHAUGQtpYRke2ZP`, a base64 key) does.
fn looks_random(v: &str) -> bool {
    let b = v.trim_end_matches('=').as_bytes();
    if b.len() < 12
        || b.len() > 512
        || !b.iter().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'+' | b'/' | b'.' | b'~')
        })
    {
        return false;
    }
    let class = |c: u8| match c {
        b'a'..=b'z' => 0,
        b'A'..=b'Z' => 1,
        b'0'..=b'9' => 2,
        _ => 3,
    };
    let changes = b.windows(2).filter(|p| class(p[0]) != class(p[1])).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let vowels = b
        .iter()
        .filter(|c| matches!(c.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u'))
        .count();
    changes * 4 >= b.len() && letters >= 4 && vowels * 10 < letters * 3
}

/// Whether a value looks generated rather than chosen: 16 bytes or more of letters, digits and
/// `-`/`_` only, with at least three of each letters and digits, switching between them often.
fn looks_generated(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 16
        || !b
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
    {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let switches = b
        .windows(2)
        .filter(|p| p[0].is_ascii_digit() != p[1].is_ascii_digit())
        .count();
    digits >= 3 && letters >= 3 && switches * 4 >= b.len()
}

fn is_cookie_key(key: &str) -> bool {
    ends_with_ci(key, "cookie")
}

/// Characters that end an unquoted value.
fn ends_value(ch: char) -> bool {
    ch.is_whitespace()
        || matches!(
            ch,
            '&' | ';'
                | ','
                | '"'
                | '\''
                | '}'
                | ')'
                | ']'
                | '|'
                | '，'
                | '；'
                | '。'
                | '）'
                | '】'
                | '、'
        )
}

/// Span of an unquoted value starting at `start` (cookies continue across `; name=value`).
///
/// A value never runs into a placeholder: `password=x'y'` in a SQL statement ends at the quote
/// and becomes `<SECRET><STR>` once the SQL rule has run; a second run must end the value where
/// the first did, not take the placeholders and the text after them for a longer value.
fn unquoted_end(s: &str, start: usize, cookie: bool) -> usize {
    let lead = placeholders_at(s, start);
    if lead > start {
        return lead;
    }
    let mut end = start;
    let mut i = start;
    while let Some(ch) = s[i..].chars().next() {
        if ch == '<' && placeholder_after(s, i) {
            break;
        }
        if cookie && ch == ';' {
            // `a=1; b=2`: keep going while another `name=` pair follows.
            let rest = &s[i + 1..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            let name_len = trimmed
                .bytes()
                .take_while(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
                .count();
            if name_len > 0 && trimmed.as_bytes().get(name_len) == Some(&b'=') {
                i = s.len() - trimmed.len();
                end = i;
                continue;
            }
            break;
        }
        if (ends_value(ch) && !joins_value(s, i, ch))
            || (ch == '%' && ["%26", "%20", "%22"].iter().any(|p| s[i..].starts_with(p)))
            || (ch == '\\' && end > start && escapes_an_end(s, i))
        {
            break;
        }
        i += ch.len_utf8();
        end = i;
    }
    end
}

/// Whether a separator inside an unquoted value belongs to it (`Tr0ub4dor&3`, `ab;cd`,
/// `x,y`): `&`, `;` and `,` end a value only where another pair, a blank, a quote or the end
/// follows (`a=1&b=2`, `Password=x;Database=y`, `k=v, next`, `&amp;`).
fn joins_value(s: &str, i: usize, ch: char) -> bool {
    if !matches!(ch, '&' | ';' | ',') {
        return false;
    }
    let rest = &s.as_bytes()[i + 1..];
    let Some(&next) = rest.first() else {
        return false;
    };
    if next.is_ascii_whitespace()
        || matches!(next, b'"' | b'\'' | b'\\' | b'<')
        || rest.starts_with(b"amp;")
    {
        return false;
    }
    let name = rest
        .iter()
        .take_while(|&&b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'[' | b']')
        })
        .count();
    !(name > 0 && matches!(rest.get(name), Some(b'=' | b':')))
}

/// Whether the backslashes from `i` escape what ends a value in escaped text: the quote that
/// closes the string a line was written in (`\"`, `\\\"` when encoded twice), or a line break or
/// tab (`\n`, `\r`, `\t`). A value stops before them; a backslash inside it (`ab\\cd`) stays.
fn escapes_an_end(s: &str, i: usize) -> bool {
    let rest = &s.as_bytes()[i..];
    let run = rest.iter().take_while(|&&b| b == b'\\').count();
    match rest.get(run) {
        Some(b'"') => true,
        Some(b'n' | b'r' | b't') => run % 2 == 1,
        _ => false,
    }
}

/// How a value after a separator is delimited: (content start, content end, resume at).
fn value_span(s: &str, at: usize, cookie: bool) -> Option<(usize, usize, usize, bool)> {
    let b = s.as_bytes();
    match b.get(at) {
        None => None,
        Some(b'\\') if b.get(at + 1) == Some(&b'"') => {
            let open = at + 2;
            let close = s[open..].find("\\\"").map_or(s.len(), |k| open + k);
            Some((open, close, (close + 2).min(s.len()), true))
        }
        Some(&q @ (b'"' | b'\'')) => {
            let mut end = quoted_end(b, at, q);
            let close = if end > at + 1 && b.get(end - 1) == Some(&q) {
                end - 1
            } else {
                // A `'` that never closes, inside a JSON string: the value ends where the
                // string does, not at the end of the line.
                if q == b'\'' {
                    end = memchr::memchr(b'"', &b[at..]).map_or(end, |k| at + k);
                }
                end
            };
            Some((at + 1, close.max(at + 1), end, true))
        }
        Some(_) => {
            let end = unquoted_end(s, at, cookie);
            Some((at, end, end, false))
        }
    }
}

/// If `value` starts with an auth scheme (`Bearer xyz`), the offset of the credential after it.
fn after_auth_scheme(value: &str, any_scheme: bool) -> Option<usize> {
    let (scheme, rest) = value.split_once([' ', '\t'])?;
    // After `Authorization:` the first word is a scheme whatever it is (`Api-Token x`, `SSWS x`).
    let named = any_scheme
        && (2..=32).contains(&scheme.len())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !rest.trim_start().is_empty();
    if !named && !AUTH_SCHEMES.iter().any(|x| scheme.eq_ignore_ascii_case(x)) {
        return None;
    }
    let skipped = rest.len() - rest.trim_start().len();
    Some(scheme.len() + 1 + skipped)
}

/// A Java or Android object printed by its `toString` (`Token{a64f992`,
/// `AppWindowToken{9f4ef63}`, `android.os.BinderProxy@2bd79ce`): a class name and an identity
/// hash, which names an object in memory and opens nothing.
fn is_object_identity(value: &str) -> bool {
    let is_hash = |h: &str| {
        (6..=8).contains(&h.len()) && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    let is_class = |c: &str| {
        c.starts_with(|ch: char| ch.is_ascii_uppercase())
            && c.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
    };
    if let Some((class, hash)) = value.split_once('{') {
        return is_class(class) && is_hash(hash.strip_suffix('}').unwrap_or(hash));
    }
    // `Object.toString`: the class with its package, `@`, the hash.
    value.rsplit_once('@').is_some_and(|(qualified, hash)| {
        qualified.rsplit_once('.').is_some_and(|(package, class)| {
            !package.is_empty()
                && package.split('.').all(|p| {
                    !p.is_empty()
                        && p.bytes()
                            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
                })
                && is_class(class)
        }) && is_hash(hash)
    })
}

/// `invalid token: signature mismatch` is a sentence, not a credential: after `key: ` a lowercase
/// word from a short list, or (for keys weaker than a password) one followed by more words.
fn is_prose_value(s: &str, key: &str, value: &str, value_end: usize) -> bool {
    // MySQL's own `(using password: YES)`.
    if value == "YES" || value == "NO" {
        return true;
    }
    // `rotate_db_password : Ensure password policy is applied`: a capitalized word that a
    // sentence of lowercase words follows.
    // Only after a spaced ` : `, as Ansible's task names have it: after `password: ` a
    // capitalized word is a password (`password: Sunshine is wrong`).
    let spaced_colon = s[..value_end - value.len()].ends_with(" : ");
    let capitalized = spaced_colon
        && value.len() >= 3
        && value.starts_with(|c: char| c.is_ascii_uppercase())
        && value[1..].bytes().all(|b| b.is_ascii_lowercase());
    if capitalized {
        let mut words = s[value_end..].split(' ').skip(1);
        return (0..2).all(|_| {
            words
                .next()
                .is_some_and(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase()))
        });
    }
    if !value.bytes().all(|b| b.is_ascii_lowercase()) {
        return false;
    }
    if PROSE_VALUES.contains(&value) {
        return true;
    }
    let strong = ["password", "passwd", "pwd", "pass", "passphrase"]
        .iter()
        .any(|k| ends_with_ci(key, k))
        || !key.is_ascii();
    let rest = &s[value_end..];
    let next_word = rest
        .strip_prefix(' ')
        .map(|r| {
            r.split(|ch: char| !ch.is_ascii_alphanumeric())
                .next()
                .unwrap_or("")
        })
        .unwrap_or("");
    // Only a plain word continues a sentence: one that ends at a space, the end, or sentence
    // punctuation. The head of an e-mail, a host, a pod or a long token (`r@c.io`, `db.prod.x`,
    // `api-7d8f…`) is not one, because a later rule turns it into a placeholder, and a value
    // kept as prose before it would be redacted on a second pass (`redact` must be idempotent).
    let word_ends = |a: &str| a.is_empty() || a.starts_with(char::is_whitespace);
    let plain_end = |after: &str| {
        word_ends(after)
            || (after.starts_with(['.', ',', ';', '!', '?', ')']) && word_ends(&after[1..]))
    };
    // A non-empty `next_word` sits right after the space that starts `rest`.
    let continues = !next_word.is_empty()
        && next_word.len() < 32
        && next_word.bytes().all(|b| b.is_ascii_lowercase())
        && plain_end(&rest[1 + next_word.len()..]);
    // `passwd: password updated successfully`: the value is the word itself, in a sentence.
    (!strong || is_secret_word(value)) && continues
}

/// Authentication methods and switches in capitals, which name how, not what
/// (`(auth:SIMPLE)`, `auth: KERBEROS`, `password: REQUIRED`).
const METHOD_VALUES: [&str; 16] = [
    "SIMPLE", "KERBEROS", "TOKEN", "DIGEST", "PLAIN", "NONE", "BASIC", "BEARER", "LDAP", "SASL",
    "OAUTH", "OAUTH2", "REQUIRED", "OPTIONAL", "ENABLED", "DISABLED",
];

/// A signature or cipher algorithm's name in capitals (`ECDSA-P256`, `HMAC-SHA256`, `RS256`).
///
/// The name is the family, its size in digits right after it, and short parts after dashes:
/// `HS0HHHHHHHHHH2` is no algorithm, it is a value in capitals.
fn is_algorithm_name(v: &str) -> bool {
    const FAMILIES: [&str; 11] = [
        "ED25519", "ECDSA", "EDDSA", "HMAC", "RSA", "SHA", "AES", "RS", "ES", "PS", "HS",
    ];
    let mut parts = v.split('-');
    let head = parts.next().unwrap_or("");
    let head_ok = FAMILIES.iter().any(|f| {
        head.strip_prefix(f)
            .is_some_and(|size| size.len() <= 4 && size.bytes().all(|b| b.is_ascii_digit()))
    });
    let rest_ok = parts.all(|p| {
        (1..=8).contains(&p.len())
            && p.bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
    });
    v.len() <= 24 && head_ok && rest_ok && v.bytes().any(|b| b.is_ascii_digit())
}

/// A bind parameter's marker where a statement or a format string holds a value's place:
/// `?`, `$1`, `:1`, `:pwd`, `@p0`, `%s`, `%(name)s`, `{}`, `{0}`.
fn is_bind_marker(v: &str) -> bool {
    let ident = |w: &str| {
        !w.is_empty() && w.len() <= 32 && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let digits = |w: &str| !w.is_empty() && w.len() <= 3 && w.bytes().all(|b| b.is_ascii_digit());
    v == "?"
        || v == "%s"
        || v == "{}"
        || v.strip_prefix('$').is_some_and(digits)
        || v.strip_prefix(':').is_some_and(ident)
        || v.strip_prefix('@').is_some_and(ident)
        || (v.strip_prefix('{').and_then(|r| r.strip_suffix('}'))).is_some_and(digits)
        || (v.strip_prefix("%(").and_then(|r| r.strip_suffix(")s"))).is_some_and(ident)
}

/// A value of prose words joined by `-` or `_` (`not-required`, `not_set`): every part one
/// of [`PROSE_VALUES`].
fn is_prose_compound(v: &str) -> bool {
    v.contains(['-', '_'])
        && v.split(['-', '_'])
            .all(|w| PROSE_VALUES.iter().any(|p| w.eq_ignore_ascii_case(p)) || w == "set")
}

fn is_inert_value(v: &str) -> bool {
    // A count of one to three digits (`…_auth:12`); a PIN has four.
    let count = (1..=3).contains(&v.len()) && v.bytes().all(|b| b.is_ascii_digit());
    count
        || v.is_empty()
        || is_placeholder(v)
        || is_bind_marker(v)
        || is_prose_compound(v)
        || METHOD_VALUES.contains(&v)
        || is_algorithm_name(v)
        || v.bytes().all(|b| b == b'*')
        // A counter in parentheses: FreeRADIUS's `Auth: (41) Login incorrect`.
        || v.strip_prefix('(').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        // A tool's own mask, bare: `Secret: REDACTED`.
        || (MASK_WORDS.iter().any(|m| v.eq_ignore_ascii_case(m))
            && v.bytes().all(|b| !b.is_ascii_lowercase()))
        || v.contains("***")
        || [
            "null",
            "none",
            "nil",
            "undefined",
            "true",
            "false",
            "yes",
            "no",
            "on",
            "off",
            "ok",
            "valid",
            "invalid",
            "verified",
            "passed",
            "failed",
            "present",
            "missing",
            "expired",
            "required",
            "enabled",
            "disabled",
            "n/a",
            "{",
            "[",
        ]
        .iter()
        .any(|x| v.eq_ignore_ascii_case(x))
}

/// Whether an unquoted `value`, ending at `end`, names where a secret is rather than holding
/// it: a YAML tag before its argument (`password: !secret mqtt_password`, `!Ref DbPassword`),
/// or a field or variable of code, a dotted path of identifiers that ends a statement or an
/// argument (`let token: &str = claims.sub;`, `auth(password=cfg.db_password)`).
fn is_reference(s: &str, value: &str, end: usize) -> bool {
    let ident = |w: &str| {
        w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let tag = value.strip_prefix('!').is_some_and(|t| {
        ident(t)
            && s[end..].starts_with(' ')
            && s[end + 1..].starts_with(|c: char| c.is_ascii_alphabetic())
    });
    let path = value.trim_end_matches([';', ')', ',']);
    let code = value.len() > path.len() || s[end..].starts_with([';', ')', ',']);
    let field = code && path.split('.').count() >= 2 && path.split('.').all(ident);
    tag || field
}

/// A PowerShell cmdlet's name: `Verb-Noun`, each capitalized (`ConvertTo-SecureString`).
///
/// The verb is one of PowerShell's approved verbs that return a value a secret is built with:
/// a value such as `Qw3rTy-Client` is a password, not a cmdlet (a fuzz find: the quoted word
/// after it was taken for the secret, and the password stayed).
fn is_cmdlet(v: &str) -> bool {
    const VERBS: [&str; 12] = [
        "ConvertTo",
        "ConvertFrom",
        "Get",
        "Read",
        "New",
        "Import",
        "Export",
        "Protect",
        "Unprotect",
        "Select",
        "Invoke",
        "Set",
    ];
    v.split_once('-').is_some_and(|(verb, noun)| {
        VERBS.contains(&verb)
            && noun.len() >= 2
            && noun.starts_with(|c: char| c.is_ascii_uppercase())
            && noun.bytes().all(|b| b.is_ascii_alphanumeric())
    })
}

/// The inside of a quoted argument that follows `at` after blanks (`  'x'`), if one does.
fn quoted_argument(s: &str, at: usize) -> Option<(usize, usize)> {
    let rest = &s[at..];
    let start = at + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
    let quote = s[start..]
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"'))?;
    let end = s[start + 1..].find(quote)? + start + 1;
    (end > start + 1).then_some((start + 1, end))
}

/// Words a tool writes in place of a value it hid (`[REDACTED]`, `(sensitive value)`,
/// `<hidden>`), and the references a template or shell resolves later (`${NPM_TOKEN}`).
const MASK_WORDS: [&str; 14] = [
    "redacted",
    "hidden",
    "masked",
    "filtered",
    "protected",
    "sensitive",
    "sensitive value",
    "removed",
    "omitted",
    "secret",
    "unset",
    "not set",
    "none",
    "empty",
];

/// Whether the value at `at` is a mask the tool already printed or a reference to a value
/// held elsewhere: a bracketed mask word, `${VAR}`, `$(cmd)`, `{{ .Values.x }}`, `%VAR%`.
fn is_mask_at(s: &str, at: usize) -> bool {
    let rest = &s[at..];
    let quoted = rest.trim_start_matches(['"', '\'']);
    if quoted.starts_with("${") || quoted.starts_with("$(") || quoted.starts_with("{{") {
        return true;
    }
    // A lookup of the environment is a reference too: `process.env.API_KEY`,
    // `os.environ["X"]`, `System.getenv("X")`, `ENV.fetch("X")`.
    if [
        "process.env.",
        "os.environ",
        "os.getenv(",
        "System.getenv(",
        "ENV[",
        "ENV.fetch(",
        "env(",
        "getenv(",
        "Deno.env.get(",
        "Environment.GetEnvironmentVariable(",
    ]
    .iter()
    .any(|p| quoted.starts_with(p))
    {
        return true;
    }
    let Some(close) = (match quoted.as_bytes().first() {
        Some(b'[') => Some(']'),
        Some(b'(') => Some(')'),
        Some(b'<') => Some('>'),
        Some(b'%') => Some('%'),
        _ => None,
    }) else {
        return false;
    };
    let Some(end) = quoted[1..].find(close) else {
        return false;
    };
    let word = &quoted[1..1 + end];
    if close == '%' {
        return !word.is_empty() && word.bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
    }
    MASK_WORDS.iter().any(|m| word.eq_ignore_ascii_case(m))
}

/// Whether `v`, the value of `key`, is no credential: [`is_inert_value`], or a small hex
/// number after a session-id key (ZooKeeper's `sessionid: 0x14ede63a5a70002` names a session,
/// it does not open one). After any other key a hex number is what it looks like: the value of
/// `password: 0xdeadbeef` is a password.
fn is_inert_value_of(key: &str, v: &str) -> bool {
    is_inert_value(v)
        || (is_session_id_key(key)
            && v.strip_prefix("0x").is_some_and(|h| {
                (1..=16).contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit())
            }))
}

/// `sessionid`, `session_id`, `SessionId`, `zk.session-id`.
fn is_session_id_key(key: &str) -> bool {
    let (n, last) = key_words(key);
    let w = |i: usize| last[i + 3 - n];
    (n >= 1 && w(n - 1).eq_ignore_ascii_case("sessionid"))
        || (n >= 2
            && w(n - 2).eq_ignore_ascii_case("session")
            && w(n - 1).eq_ignore_ascii_case("id"))
}

/// The key of a [`KV_RE`] match: its leading run of key characters, without the quotes,
/// brackets, declared type and operator after it.
fn key_name(text: &str) -> &str {
    let text = text.trim_start_matches(['"', '\'', '\\']);
    for spaced in ["mot de passe", "Mot de passe"] {
        if text.starts_with(spaced) {
            return &text[..spaced.len()];
        }
    }
    let end = text
        .char_indices()
        .find(|&(_, ch)| {
            !(ch.is_ascii_alphanumeric()
                || matches!(ch, '_' | '.' | '-')
                || (!ch.is_ascii() && ch.is_alphabetic()))
        })
        .map_or(text.len(), |(i, _)| i);
    // `%3D` is an operator, not the key's tail.
    let key = &text[..end];
    key.strip_suffix("%3D")
        .or_else(|| key.strip_suffix("%3d"))
        .unwrap_or(key)
        .trim_end_matches('.')
}

/// `token: password: x`: the whole value (from `at` to `resume`) is itself a secret key and
/// separator, followed by a value of its own, which is the secret. Taking the inner key's name
/// as the value would let that secret through, so the outer key yields to the inner one. A
/// value that merely contains a key (`password=abcpassword:xyz`) or a key with nothing after
/// it (`password=mypassword:`) still goes whole; a cookie's `name=value` pairs go whole too
/// (`Cookie: "password": "x"` is JSON and yields).
fn yields_to_inner_key(s: &str, at: usize, resume: usize, cookie: bool) -> bool {
    // A token-shaped inner key (`token: Q8zX…token: A`), or one whose head is a token
    // (`accessKeyId=LTAI…-token: a`) or holds a number (`-7-ApiKey:` in a SQL statement),
    // becomes `<TOKEN>…` or `-<NUM>-ApiKey` later in this run; the next run must still see it
    // as the key it was, or it would redact it as the value. The key is read from its last
    // placeholder on.
    let key_at = last_placeholder_in_key(s, at);
    if key_at > at {
        let rest = &s[key_at..];
        let sep = rest.trim_start_matches([' ', '\t']);
        if let Some(after) = sep.strip_prefix([':', '=']) {
            let value_at = s.len() - after.trim_start_matches([' ', '\t']).len();
            return value_at >= resume
                && value_span(s, value_at, false).is_some_and(|(start, end, _, _)| start < end);
        }
    }
    KV_RE
        .find_at(s, key_at)
        .filter(|k| k.start() == key_at && k.end() >= resume)
        .filter(|k| is_secret_key(key_name(k.as_str())))
        .filter(|k| !cookie || !k.as_str().trim_end_matches([' ', '\t']).ends_with('='))
        .and_then(|k| value_span(s, k.end(), false))
        .is_some_and(|(start, end, _, _)| start < end)
}

/// Index just past the last placeholder among the key characters that start at `at` (`at` when
/// there is none): `-<NUM>-ApiKey: x` gives the index of `-ApiKey`.
fn last_placeholder_in_key(s: &str, at: usize) -> usize {
    let (mut i, mut key_at) = (at, at);
    loop {
        let p = placeholders_at(s, i);
        if p > i {
            (i, key_at) = (p, p);
        } else if byte_at(s, i).is_some_and(|b| is_word_byte(b) || matches!(b, b'.' | b'-')) {
            i += 1;
        } else {
            return key_at;
        }
    }
}

fn pass_key_values(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while pos < s.len() {
        let Some(m) = KV_RE.find_at(s, pos) else {
            break;
        };
        pos = m.end().max(next_char(s, m.start()));
        let text = m.as_str();
        let key = key_name(text);
        // `${TOKEN:0:4}` and `${PASSWORD:-x}` expand a variable; `--- PASS: TestX` is a Go
        // test's result.
        let before = &s[..m.start()];
        if before.ends_with("${")
            || (before.ends_with("--- ") && ["PASS", "FAIL", "SKIP"].contains(&key))
        {
            continue;
        }
        let secret_key = is_secret_key(key);
        // A bare `key` quoted as a name (`'key' => '…'`, `"key": "…"`) is as weak: its value
        // decides. Unquoted (`?key=`), the token rules read what it holds.
        let bare_key = key.eq_ignore_ascii_case("key") && text.starts_with(['\'', '"']);
        // `sdkKey=sdk-fa46…`: a key of some kind whose value looks generated.
        if !secret_key && !is_some_key(key) && !bare_key {
            continue;
        }
        let spaced = text.ends_with([' ', '\t']);
        let op = text.trim_end_matches([' ', '\t']);
        let colon = op.ends_with([':', '：']);
        // `setProperty("password", "x")` is an argument list; `password, user` is prose and
        // `"kind":"Secret","data"` is JSON.
        let comma = op.ends_with(',');
        if comma
            && (!op[..op.len() - 1].trim_end().ends_with(['"', '\''])
                || !s[..m.start()].trim_end().ends_with('('))
        {
            continue;
        }
        let cookie = is_cookie_key(key);
        // `Authorization: Bearer xyz` with the credential after the scheme.
        let Some((mut vs, mut ve, resume, quoted)) = value_span(s, m.end(), cookie) else {
            continue;
        };
        if yields_to_inner_key(s, m.end(), resume, cookie) {
            continue;
        }
        if !cookie {
            let any_scheme = ends_with_ci(key, "authorization");
            if quoted {
                if let Some(off) = after_auth_scheme(&s[vs..ve], any_scheme) {
                    vs += off;
                }
            } else if let Some(off) = after_auth_scheme(&s[vs..], any_scheme) {
                vs += off;
                ve = unquoted_end(s, vs, false);
            }
        }
        let resume = resume.max(ve);
        let value = &s[vs..ve];
        // A quote that never closes, opening a placeholder: an earlier reading (the escaped
        // one) took the value and ended it; the text after the placeholder is not this value.
        let unclosed_after_placeholder = quoted && ve == s.len() && placeholder_after(s, vs);
        // `PWD=/srv/app` is the shell's working directory.
        let working_dir = matches!(key, "PWD" | "OLDPWD") && value.starts_with('/');
        // `Set-Cookie: SESSIONID=; Max-Age=0` clears a cookie: there is no value.
        let cleared_cookie = cookie
            && value
                .split(';')
                .next()
                .is_some_and(|pair| pair.trim_end().ends_with('='));
        if cleared_cookie {
            pos = pos.max(resume);
            continue;
        }
        // `$pw = ConvertTo-SecureString 'x' -AsPlainText`: the cmdlet's quoted argument is the
        // secret.
        if !quoted
            && is_cmdlet(value)
            && let Some((qs, qe)) = quoted_argument(s, ve)
        {
            if !is_placeholder(&s[qs..qe]) && e.replace(qs, qe, SECRET) {
                *hits += 1;
            }
            pos = pos.max(qe);
            continue;
        }
        // A weak key's value that is no secret is read on for the keys inside it
        // (`appKey: db_password=x`): the search goes on from where the value starts.
        if !secret_key && !looks_generated(value) && !looks_random(value) {
            pos = pos.max(vs);
            continue;
        }
        if is_inert_value_of(key, value)
            || (!quoted && is_reference(s, value, ve))
            || unclosed_after_placeholder
            || working_dir
            || is_mask_at(s, vs)
        {
            // A value kept as it is may hold a key of its own (a placeholder, then
            // `db_password=x` before the quote closes): the search goes on inside it.
            pos = pos.max(if quoted { vs } else { resume });
            continue;
        }
        if comma && !quoted {
            continue;
        }
        // `Credentials = new NetworkCredential(…)`, `auth=HTTPBasicAuth(…)`: a call, whose
        // arguments the call-arguments rule reads.
        let call = value.len() > 1
            && value.ends_with('(')
            && value[..value.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.'));
        let constructor = !quoted && value.eq_ignore_ascii_case("new") && s[ve..].starts_with(' ');
        // Android names window and binder tokens by the object: `token=Token{a64f992 …`.
        let object = ends_with_ci(key, "token") && is_object_identity(value);
        if !quoted && (call || constructor || object) {
            continue;
        }
        if colon && spaced && !quoted && is_prose_value(s, key, value, ve) {
            continue;
        }
        if e.replace(vs, ve, SECRET) {
            *hits += 1;
        }
        pos = pos.max(resume);
    }
    e.finish()
}

static CLI_FLAG_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(
        // Quoted, or up to a space or quote; a backslash before a quote escapes it (the line
        // is JSON or a shell string), so the value ends before it.
        concat!(
            r#"--[A-Za-z0-9-]*(?i-u:password|passwd|token|secret|api-key|apikey)[ \t]+"#,
            r#"(?:"([^"\\\r\n]+)"|'([^'\r\n]+)'|([^ \t\r\n"'\\\-](?:[^ \t\r\n"'\\]|\\[^ \t\r\n"'])*))"#,
        ),
    )
    .expect("constant regex")
});

static AUTH_SCHEME_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"(?-u:\b)(?i-u:bearer|basic)[ \t]+([A-Za-z0-9._~+/=\-]{6,})")
        .expect("constant regex")
});

fn pass_auth_scheme(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in AUTH_SCHEME_RE.captures_iter(s) {
        let (Some(whole), Some(v)) = (caps.get(0), caps.get(1)) else {
            continue;
        };
        // Schemes are ASCII. The rule folds case over ASCII only (`(?i-u:…)`, compiled over
        // bytes), as the keyword gate does; when it folded over Unicode, `baſic` passed the rule
        // but not the gate, and a later round let through by `<TOKEN>` redacted it. This check
        // keeps the two in step should the pattern change again.
        if !s[whole.start()..v.start()].is_ascii() {
            continue;
        }
        // `Bearer token expired`, `basic authentication`, `Bearer realm="x"`: not a credential;
        // nor is the next pair of `token_type=bearer expires_in=3600` (a credential's `=` pads
        // its end).
        let bare = v.as_str().trim_end_matches('=');
        if bare.bytes().all(|b| b.is_ascii_lowercase()) || bare.contains('=') {
            continue;
        }
        if e.replace(v.start(), v.end(), SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

/// Replaces group 1 of every match of `re` (a flag's value) with `<SECRET>`.
fn pass_regex_groups(s: &str, re: &Matcher, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in re.captures_iter(s) {
        // The first group that took part: a rule's alternatives each have their own.
        let v = (1..=3).find_map(|g| caps.get(g));
        let (Some(whole), Some(v)) = (caps.get(0), v) else {
            continue;
        };
        // An ASCII flag only, as the prefilter sees it (see [`pass_auth_scheme`]).
        if !s[whole.start()..v.start()].is_ascii() {
            continue;
        }
        // As a key's value (see [`unquoted_end`]), it never runs into a placeholder. A value that
        // starts with a separator (`--token :x`) is a key/value pair, that rule's to redact:
        // taking the `:` would unmake a key the key/value rule yielded to (`token:--token :x`).
        if placeholders_at(s, v.start()) > v.start() || v.as_str().starts_with([':', '=']) {
            continue;
        }
        let end = v
            .as_str()
            .match_indices('<')
            .map(|(k, _)| v.start() + k)
            .find(|&i| placeholder_after(s, i))
            .unwrap_or(v.end());
        if e.replace(v.start(), end, SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------

static URL_AUTH_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r#"[A-Za-z][A-Za-z0-9+.-]*://[^ \t\r\n/"']*@"#).expect("constant regex")
});

fn pass_url_userinfo(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in URL_AUTH_RE.find_iter(s) {
        let text = m.as_str();
        let Some(scheme_end) = text.find("://") else {
            continue;
        };
        let info_start = scheme_end + 3;
        let info_end = text.len() - 1; // the final `@`
        let Some(info) = text.get(info_start..info_end) else {
            continue;
        };
        let Some(colon) = info.find(':') else {
            continue;
        };
        let pw = &info[colon + 1..];
        if pw.is_empty() || is_placeholder(pw) {
            continue;
        }
        // `https://cafebabe:deadbeef@gems…`: a user that looks random is half of a key pair.
        let user = &info[..colon];
        let user_start = m.start() + info_start;
        if super::tokens::looks_random(user) && e.replace(user_start, user_start + colon, SECRET) {
            *hits += 1;
        }
        let start = m.start() + info_start + colon + 1;
        if e.replace(start, start + pw.len(), SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

// ---------------------------------------------------------------------------------------------
// Key/value secrets: `key=value`, `key: value`, JSON/YAML, headers, connection strings, query

pub(crate) static ASSIGNMENT: Rule = Rule {
    id: "credential.assignment",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A value after a secret key, in any assignment syntax (=, :, :=, =>, .=, ?=, JSON, YAML, headers, query strings, setProperty(\"k\",\"v\")), keys in several languages.",
    keywords: &[
        "pass",
        "cred",
        "pat",
        "pwd",
        "secret",
        "token",
        "key",
        "credential",
        "auth",
        "cookie",
        "sig",
        "session",
        "sk",
        "kennwort",
        "senha",
        "wachtwoord",
        "haslo",
        "contrase",
        "mdp",
        "clave",
        "losenord",
        "salasana",
        "heslo",
        "parola",
        "sifre",
        "jelszo",
        "lozinka",
        "adgangskode",
        "lösenord",
        "Lösenord",
        "şifre",
        "Şifre",
        "jelszó",
        "Jelszó",
        "κωδικός",
        "Κωδικός",
        "mật khẩu",
        "Mật khẩu",
        "كلمة المرور",
        "סיסמה",
        "पासवर्ड",
        "รหัสผ่าน",
        "密码",
        "口令",
        "令牌",
        "密钥",
        "秘钥",
        "密碼",
        "金鑰",
        "パスワード",
        "비밀번호",
        "пароль",
        "Пароль",
        "ПАРОЛЬ",
        "contraseña",
        "Contraseña",
        "hasło",
        "Hasło",
        "mot de passe",
        "Mot de passe",
        "トークン",
        "토큰",
        "токен",
        "Токен",
        "accessid",
        "access_id",
        "access-id",
        "accountid",
        "account_id",
        "sonar",
        "pw",
        "psk",
    ],
    gate: always,
    pass: pass_key_values,
    matchers: &[&KV_RE],
    examples: &[
        // A key inside the value of a weak key is read (a fuzz find).
        ex(
            "cfg tenantKey: db_password=Zq8Zq8Zq8Zq8 x",
            "cfg tenantKey: db_password=<SECRET> x",
        ),
        // Capitals and digits that only start like an algorithm's name are a value.
        ex("db_password=HS0HHHHHHHHH2 set", "db_password=<SECRET> set"),
        ex(
            "lösenord=Vinter!Hav42 användare=lars",
            "lösenord=<SECRET> användare=lars",
        ),
        ex(
            "kullanıcı: ayse şifre: Mavi.Gece77",
            "kullanıcı: ayse şifre: <SECRET>",
        ),
        ex(
            "PS> $pw = ConvertTo-SecureString 'Fjord!77x' -AsPlainText -Force",
            "PS> $pw = ConvertTo-SecureString '<SECRET>' -AsPlainText -Force",
        ),
        // A value keeps the `&`, `;` and `,` it holds; they end it where another pair follows.
        ex(
            "password=Tr0ub4dor&3 user=ops",
            "password=<SECRET> user=ops",
        ),
        ex(
            "login?user=ops&password=x9Kq2&next=/home",
            "login?user=ops&password=<SECRET>&next=/home",
        ),
        ex(
            "init client sdkKey=sdk-7c1e0b9a-42d3-4f6e-b123-9f8e7d6c5b4a stream=true",
            "init client sdkKey=<SECRET> stream=true",
        ),
        ex(
            "login password=hunter2 user=bob",
            "login password=<SECRET> user=bob",
        ),
        // A value in a JSON line ends at an escaped line break: the next key stays.
        ex(
            r#"{"msg":"loaded\npassword=hunter2secret\nuser=bob"}"#,
            r#"{"msg":"loaded\npassword=<SECRET>\nuser=bob"}"#,
        ),
        ex(
            r#"{"clientSecret": "a b c", "u": 1}"#,
            r#"{"clientSecret": "<SECRET>", "u": 1}"#,
        ),
        ex("dbPassword := \"s3cr3t\"", "dbPassword := \"<SECRET>\""),
        ex("'api_key' => 'abc123',", "'api_key' => '<SECRET>',"),
        ex(
            "props.setProperty(\"db.password\", \"Tr0ub4dor\")",
            "props.setProperty(\"db.password\", \"<SECRET>\")",
        ),
        ex(
            "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI",
            "export AWS_SECRET_ACCESS_KEY=<SECRET>",
        ),
        ex(
            "Passwort: geheim123 für admin",
            "Passwort: <SECRET> für admin",
        ),
        ex(
            "?sv=2021&sig=abcDEF%2Bxyz&se=2026",
            "?sv=2021&sig=<SECRET>&se=2026",
        ),
        ex(
            "redirect?token%3Dabc123%26next",
            "redirect?token%3D<SECRET>%26next",
        ),
        ex(
            "auth ok password: 0xdeadbeef user=bob",
            "auth ok password: <SECRET> user=bob",
        ),
        // An access id is half of a key pair; SonarQube's login is a token; an AWS account id
        // is what an ARN's account field holds, which token.aws-account-id takes there.
        ex(
            r#"sumologic.accessId = "su3zntqffNdm4M""#,
            r#"sumologic.accessId = "<SECRET>""#,
        ),
        ex(
            r#"{"msg":"api_token: 'pplx-k3Qw8zR2mT5vX9","n":1}"#,
            r#"{"msg":"api_token: '<SECRET>","n":1}"#,
        ),
        ex(
            "DefaultEndpointsProtocol=https;AccountName=shopstore42;AccountKey=c2hvcA==;",
            "DefaultEndpointsProtocol=https;AccountName=<HOST>;AccountKey=<SECRET>;",
        ),
        ex(
            r#"export SUMOLOGIC_ACCESSID="suR4k9Wq2mXp7Z""#,
            r#"export SUMOLOGIC_ACCESSID="<SECRET>""#,
        ),
        ex(
            r#"SONAR_LOGIN := "sqp_7c41d9e0b2f35a86""#,
            r#"SONAR_LOGIN := "<SECRET>""#,
        ),
        ex(
            r#"AWSAccountId: "610284937152","#,
            r#"AWSAccountId: "<SECRET>","#,
        ),
    ],
    negatives: &[
        // References, not values: a shell expansion, a Go test's result, a YAML tag, a field.
        "echo \"using ${API_TOKEN:0:4}…\"",
        "--- PASS: TestPasswordHash_Argon2id (0.41s)",
        "  password: !secret mqtt_password",
        "   |     let token: &str = claims.sub;",
        "account_id=42 opened",
        // A bind parameter's marker holds a value's place; prose joined by dashes is prose.
        "UPDATE accounts SET api_token=?, pin_hash=:pin WHERE secret_ref = $2",
        "printf(\"password=%s token={}\", ...) with auth_key=@p1",
        "probe: credentials=not-required, secret=not_set",
        // Android's window manager prints objects by class and identity hash.
        "wtoken = AppWindowToken{3c1d9e2 token=Token{8b07f4a ActivityRecord{5e0 u0 t12}}}",
        "Bad activity token: android.os.BinderProxy@5c0e1a9",
        "login=bob sonar=ok",
        "Processed session termination for sessionid: 0x14ed93111f20005",
        "session_id=0x14ed93111f20005 expired",
        "invalid token: signature mismatch.",
        "bypass=true keyboard=us monkey=3",
        "password, username and email are required",
        "token: expired",
        "refreshing token: done",
        "session token: renewed in 12ms",
        // Booleans, masks a tool printed, references resolved elsewhere, a working directory.
        "always-auth=true secret: false",
        "db_password: (sensitive value), api_key: [REDACTED]",
        "token=<hidden> npm_token=${NPM_TOKEN} pass=%DB_PASS%",
        "env: PWD=/srv/app OLDPWD=/",
        r#"{"spring.datasource.password":{"value":"******"}}"#,
        "token_type=bearer expires_in=3600",
        "cacheKey=user-profile-4411 routing_key=orders-created-v1",
        "webhook signature=ok, token: valid",
        "image signature=ECDSA-P256 verified, alg=HS256, cipher=AES-256-GCM",
        "const apiKey: string = process.env.API_KEY;",
        "TASK [rotate_db_password : Ensure password policy is applied]",
        "Set-Cookie: SESSIONID=; Path=/; Max-Age=0; HttpOnly",
        "passwd: password updated successfully",
    ],
};

pub(crate) static CLI_FLAG: Rule = Rule {
    id: "credential.cli-flag",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The value after a long command-line flag naming a secret (--password x, --api-key x, --token x).",
    keywords: &["pass", "token", "secret", "key"],
    gate: |f| f.double_dash,
    pass: |s, hits| pass_regex_groups(s, &CLI_FLAG_RE, hits),
    matchers: &[&CLI_FLAG_RE],
    examples: &[
        ex(
            "--password Tr1cky --user root",
            "--password <SECRET> --user root",
        ),
        ex(
            "vault login --token s.abcdef123",
            "vault login --token <SECRET>",
        ),
        ex(
            "deploy --api-key 'k3y with space' --env prod",
            "deploy --api-key '<SECRET>' --env prod",
        ),
    ],
    negatives: &[
        "--password-stdin used",
        "--token-ttl 60s --user root",
        "--password '' was empty",
    ],
};

/// Tool-specific short flags that carry a password: `mysql -pSECRET`, `sshpass -p x`,
/// `redis-cli -a x`, `curl -u user:pass`.
static CLI_PASSWORD_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // mysql takes its password glued to -p; a spaced -p asks for it, and the next word is
        // the database.
        r"(?-u:\b)(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)(?-u:\b)[^\n|;&]*?[ \t]-p([^ \t\r\n'\x22\-][^ \t\r\n'\x22]*)",
        r"|(?-u:\b)(?:sshpass|(?i-u:psexec|paexec)(?:\.exe)?|mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)(?-u:\b)[^\n|;&]*?[ \t]-p[ \t]+['\x22]?([^ \t\r\n'\x22]+)",
        r"|(?-u:\b)redis-cli(?-u:\b)[^\n|;&]*?[ \t]-a[ \t]+([^ \t\r\n]+)",
        r"|(?-u:\b)(?:ldapsearch|ldapmodify|ldapadd|ldapdelete|ldapwhoami|ldappasswd|ldapcompare)(?-u:\b)[^\n|;&]*?[ \t]-w[ \t]+['\x22]?([^ \t\r\n'\x22]+)",
        r"|(?-u:\b)(?:sqlcmd|bcp|isql|osql)(?-u:\b)[^\n|;&]*?[ \t]-P[ \t]*['\x22]?([^ \t\r\n'\x22]+)",
        // `net use [Z:] \\host\share [password] /user:DOMAIN\name [password]`.
        r"|(?-u:\b)(?i-u:net)[ \t]+(?i-u:use)[ \t]+(?:[A-Za-z]:[ \t]+)?[^ \t\r\n]+[ \t]+(?:([^ \t\r\n/][^ \t\r\n]*)[ \t]+)?/(?i-u:user):[^ \t\r\n]+(?:[ \t]+([^ \t\r\n/][^ \t\r\n]*))?",
        // curl's -u user:password, each part maybe empty or quoted alone; a user that looks
        // random, or has no password after it (`-u sk_live_…:`), is a key and goes too.
        r"|(?-u:\b)(?:curl|wget|http)(?-u:\b)[^\n|;&]*?[ \t](?:-u|--user|--proxy-user)[ \t]*['\x22]?([^ \t\r\n:'\x22]*)['\x22]?:['\x22]?([^ \t\r\n'\x22]*)",
    ))
    .expect("constant regex")
});

/// The group of `CLI_PASSWORD_RE` that holds curl's user.
const CURL_USER_GROUP: usize = 8;

fn pass_cli_password(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in CLI_PASSWORD_RE.captures_iter(s) {
        let password = (1..CURL_USER_GROUP)
            .chain([CURL_USER_GROUP + 1])
            .find_map(|g| caps.get(g))
            .filter(|p| !p.as_str().is_empty());
        let user = caps.get(CURL_USER_GROUP).filter(|user| {
            !user.as_str().is_empty()
                && (password.is_none() || super::tokens::looks_random(user.as_str()))
        });
        for v in user.into_iter().chain(password) {
            if let Some(n) = pass_first_group_at(s, v, &mut e) {
                *hits += n;
            }
        }
    }
    e.finish()
}

pub(crate) static CLI_PASSWORD: Rule = Rule {
    id: "credential.cli-password",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A password in a tool's short flag: mysql -pSECRET, sshpass -p x, redis-cli -a x, curl -u user:pass.",
    keywords: &[
        "mysql",
        "mariadb",
        "sshpass",
        "psexec",
        "paexec",
        "mongo",
        "redis-cli",
        "ldap",
        "sqlcmd",
        "bcp",
        "isql",
        "osql",
        "net",
        "curl",
        "wget",
        "http",
    ],
    // Every form passes its password after a spaced short flag (`-p`, `-a`, `-w`, `-P`, `-u`,
    // `--user`), but `net use`, which has `/user:`.
    gate: |f| f.spaced_dash || f.slash_user,
    pass: pass_cli_password,
    matchers: &[&CLI_PASSWORD_RE],
    examples: &[
        ex(
            "exec mysql -h db -u root -pS3cr3t! orders",
            "exec mysql -h db -u root -p<SECRET> orders",
        ),
        ex(
            "curl -u admin:hunter2 http://localhost:9200",
            "curl -u admin:<SECRET> http://localhost:9200",
        ),
        ex(
            "redis-cli -h cache -a Sup3rS3cret ping",
            "redis-cli -h cache -a <SECRET> ping",
        ),
        ex(
            "PsExec.exe \\\\web01 -u DOMAIN\\ops -p Winter2026! cmd",
            "PsExec.exe \\\\<HOST> -u DOMAIN\\ops -p <SECRET> cmd",
        ),
        ex(
            "ldapsearch -x -D cn=admin -w LdapPw9 -b dc=corp",
            "ldapsearch -x -D cn=admin -w <SECRET> -b dc=corp",
        ),
        ex(
            "curl --user 799fntn7vfpk4zt:nb89vcr2ttrm7nv -X POST",
            "curl --user <SECRET>:<SECRET> -X POST",
        ),
        ex(
            r#"curl -u ":q7RmT42vKs" https://localhost:9200"#,
            r#"curl -u ":<SECRET>" https://localhost:9200"#,
        ),
        // A key as the user, with no password (Stripe's and Elastic's API keys are sent so).
        ex(
            r#"curl -u "q7RmT42vKs!w:" https://localhost:9200"#,
            r#"curl -u "<SECRET>:" https://localhost:9200"#,
        ),
        ex(
            r#"curl -X POST --user "{b5e1f09c-31d4}":"{Wm4pQ8zRt2kV6y}" https://api"#,
            r#"curl -X POST --user "{b5e1f09c-31d4}":"<SECRET>" https://api"#,
        ),
        // No spaced flag here: the `/user:` switch alone opens the rule.
        ex(
            r"net use Z: \\fs01\share Passw0rd! /user:CORP\ops",
            r"net use Z: \\<HOST>\share <SECRET> /user:CORP\ops",
        ),
        ex(
            r"NET USE \\fs01\ipc$ /USER:corp\svc S3cretPw",
            r"NET USE \\<HOST>\ipc$ /USER:corp\svc <SECRET>",
        ),
    ],
    negatives: &[
        "curl -u admin http://localhost",
        "mysql -h db -P 3306 -u root",
    ],
};

/// A secret handed to a command on its standard input: `echo 'pw' | passwd --stdin bob`,
/// `printf '%s' "$x" | docker login --password-stdin`, `chpasswd <<< 'bob:pw'`. The command
/// that reads it is what tells.
static STDIN_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?-u:\b)(?:echo|printf)[ \t]+(?:-[neE]+[ \t]+)?(?:'%s[^'\n]*'[ \t]+|"%s[^"\n]*"[ \t]+)?"#,
        r#"(?:'([^'\n]+)'|"([^"\n]+)"|([^ \t\r\n|'"<>;&]+))[ \t]*\|[ \t]*([^\n|;&]*)"#,
        r#"|(?-u:\b)([A-Za-z][^\n|;&<]*)<<<[ \t]*(?:'([^'\n]+)'|"([^"\n]+)"|([^ \t\r\n;&|]+))"#,
    ))
    .expect("constant regex")
});

/// Whether `command` reads a password from its standard input.
fn reads_password(command: &str) -> bool {
    let lower = command.to_ascii_lowercase();
    [
        "passw",
        "stdin",
        "login",
        "kinit",
        "sudo -s",
        "sudo -ks",
        "cryptsetup",
        "secret",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

fn pass_stdin(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in STDIN_RE.captures_iter(s) {
        let (command, value) = match caps.get(4) {
            Some(command) => (command, (1..=3).find_map(|g| caps.get(g))),
            None => match caps.get(5) {
                Some(command) => (command, (6..=8).find_map(|g| caps.get(g))),
                None => continue,
            },
        };
        let Some(v) = value else { continue };
        if !reads_password(command.as_str()) || v.as_str().starts_with('$') {
            continue;
        }
        // A here-string's `<<<` must be the text's own: `<<` before a placeholder (`<<<NUM>`)
        // is none (a fuzz find; the keyword gate had rightly seen no `<<<`).
        let here = caps.get(5).is_some();
        if here
            && s[..v.start()]
                .trim_end_matches([' ', '\t'])
                .strip_suffix("<<<")
                .is_some_and(|head| placeholder_after(s, head.len() + 2))
        {
            continue;
        }
        // `chpasswd` reads `user:password`.
        let start = match v.as_str().split_once(':') {
            Some((user, _)) if command.as_str().contains("chpasswd") => v.start() + user.len() + 1,
            _ => v.start(),
        };
        if start < v.end()
            && !is_placeholder(&s[start..v.end()])
            && e.replace(start, v.end(), SECRET)
        {
            *hits += 1;
        }
    }
    e.finish()
}

/// Any tool's user and password given as a pair of short flags: `-u cassandra -p x`,
/// `-U sa -P x`, `--user u --password x` after the user, whatever the program.
static USER_PASSWORD_FLAGS_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?:\A|[ \t])-(?:[uU][ \t=]*|-user(?:name)?(?:[ \t]+|=))['"]?[^ \t\r\n'"\-][^ \t\r\n'"]*['"]?[ \t]+"#,
        r#"-(?:[pP][ \t=]*|-pass(?:word)?(?:[ \t]+|=))(?:'([^'\n]+)'|"([^"\n]+)"|([^ \t\r\n'"\-][^ \t\r\n'"]*))"#,
    ))
    .expect("constant regex")
});

fn pass_user_password_flags(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in USER_PASSWORD_FLAGS_RE.captures_iter(s) {
        let Some(v) = (1..=3).find_map(|g| caps.get(g)) else {
            continue;
        };
        // `-u root -P 3306` is a port.
        let value = v.as_str();
        if value.bytes().all(|b| b.is_ascii_digit())
            || is_placeholder(value)
            || value.starts_with('$')
            || is_inert_value(value)
        {
            continue;
        }
        if e.replace(v.start(), v.end(), SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static USER_PASSWORD_FLAGS: Rule = Rule {
    id: "credential.user-password-flags",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A password flag right after a user flag, in any tool's command line: -u user -p x, -U sa -P x, --user u --password x.",
    keywords: &[" -p", " -P", " --pass"],
    gate: |f| f.spaced_dash,
    pass: pass_user_password_flags,
    matchers: &[&USER_PASSWORD_FLAGS_RE],
    examples: &[
        ex(
            "$ cqlsh seed-1 -u cassandra -p Vr8-tundra",
            "$ cqlsh seed-1 -u cassandra -p <SECRET>",
        ),
        ex(
            "influx -U admin -P 'k3ttle&Fog'",
            "influx -U admin -P '<SECRET>'",
        ),
    ],
    negatives: &["mysql -u root -P 3306 -h db", "run -u deploy -p $DEPLOY_PW"],
};

pub(crate) static STDIN: Rule = Rule {
    id: "credential.stdin",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A secret piped or here-string fed to a command that reads a password on its standard input (passwd --stdin, chpasswd, docker login --password-stdin, kinit, sudo -S).",
    keywords: &["echo", "printf", "<<<"],
    gate: always,
    pass: pass_stdin,
    matchers: &[&STDIN_RE],
    examples: &[
        ex(
            "+ echo 'Wq7-ferrous!' | passwd --stdin deploy",
            "+ echo '<SECRET>' | passwd --stdin deploy",
        ),
        ex(
            "run: echo -n s3lkT0pp | docker login -u ci --password-stdin reg.example",
            "run: echo -n <SECRET> | docker login -u ci --password-stdin reg.example",
        ),
        ex(
            "chpasswd <<< 'amara:Gl4ss-Harbor'",
            "chpasswd <<< 'amara:<SECRET>'",
        ),
    ],
    negatives: &[
        "echo 'done' | tee -a build.log",
        "echo \"$REG_PASS\" | docker login --password-stdin",
        "grep ERROR <<< \"$out\"",
    ],
};

pub(crate) static AUTH_HEADER: Rule = Rule {
    id: "credential.auth-scheme",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The credential after an HTTP auth scheme (Bearer, Basic) outside a key.",
    keywords: &["bearer", "basic"],
    gate: always,
    pass: pass_auth_scheme,
    matchers: &[&AUTH_SCHEME_RE],
    examples: &[
        ex(
            "upstream sent Bearer abc.DEF-123xyz",
            "upstream sent Bearer <SECRET>",
        ),
        ex("proxy: basic dXNlcjpwYXNz", "proxy: basic <SECRET>"),
    ],
    negatives: &["Bearer token expired", "basic authentication failed"],
};

pub(crate) static URL_USERINFO: Rule = Rule {
    id: "credential.url-userinfo",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The password of scheme://user:password@host (DSNs of every driver, proxies, git remotes).",
    keywords: &["://"],
    gate: |f| f.at_sign,
    pass: pass_url_userinfo,
    matchers: &[&URL_AUTH_RE],
    examples: &[
        ex(
            "connect mongodb+srv://app:pa55w0rd@cluster0/db",
            "connect mongodb+srv://app:<SECRET>@<HOST>/db",
        ),
        ex(
            "amqp://guest:guest@rabbit:5672/",
            "amqp://guest:<SECRET>@<HOST>:5672/",
        ),
    ],
    negatives: &["see https://example/path@v2", "ssh://git@forge/repo.git"],
};

/// A DSN cut before its `@host` (a truncated log line), or one whose password runs to the end:
/// `postgres://app:s3cret` with nothing after it.
static DSN_CUT_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|",
        r"oracle|clickhouse|cockroachdb|nats|ldaps?|s?ftp|smtps?|jdbc:[a-z]+)://",
        // Not `;`: `jdbc:sqlserver://host:1433;user=…` is a port and parameters.
        r"[^:/@ \t\r\n'\x22]+:([^@/; \t\r\n'\x22]+)(?:[ \t\r\n'\x22]|\z)",
    ))
    .expect("constant regex")
});

fn pass_dsn_cut(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in DSN_CUT_RE.captures_iter(s) {
        // A port is no password (`redis://cache:6379 down`).
        if let Some(v) = caps
            .get(1)
            .filter(|v| !v.as_str().bytes().all(|b| b.is_ascii_digit()))
            && let Some(n) = pass_first_group_at(s, v, &mut e)
        {
            *hits += n;
        }
    }
    e.finish()
}

pub(crate) static DSN_CUT: Rule = Rule {
    id: "credential.dsn",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The password of a database or broker DSN with no @host after it (cut short, or written as user:password alone).",
    // The schemes as the pattern spells them, each right before its `://`.
    keywords: &[
        "postgres://",
        "postgresql://",
        "mysql://",
        "mariadb://",
        "mongodb://",
        "mongodb+srv://",
        "redis://",
        "rediss://",
        "amqp://",
        "amqps://",
        "mssql://",
        "sqlserver://",
        "oracle://",
        "clickhouse://",
        "cockroachdb://",
        "nats://",
        "ldap://",
        "ldaps://",
        "ftp://",
        "sftp://",
        "smtp://",
        "smtps://",
        "jdbc:",
    ],
    gate: always,
    pass: pass_dsn_cut,
    matchers: &[&DSN_CUT_RE],
    examples: &[
        ex("dsn=postgres://app:s3cr3tPW", "dsn=postgres://app:<SECRET>"),
        ex(
            "failed: mysql://root:toor (truncated)",
            "failed: mysql://root:<SECRET> (truncated)",
        ),
    ],
    negatives: &["redis://localhost:6379 down", "see https://docs:8443 now"],
};

/// Oracle's `user/password@host` connect string after the tools that take one.
static ORACLE_CONNECT_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?-u:\b)(?i-u:sqlplus|rman|expdp|impdp|exp|imp|sqlldr|userid)(?-u:\b)[ \t=]+(?:-[A-Za-z]+[ \t]+)*[^ \t\r\n]*?",
        r"[A-Za-z][A-Za-z0-9_$#]*/([^@/ \t\r\n'\x22]+)@",
        r"|(?i-u:jdbc:oracle:[a-z]+):[A-Za-z][A-Za-z0-9_$#]*/([^@/ \t\r\n'\x22]+)@",
    ))
    .expect("constant regex")
});

pub(crate) static ORACLE_CONNECT: Rule = Rule {
    id: "credential.oracle-connect",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The password of an Oracle user/password@service connect string (sqlplus, rman, expdp, userid=).",
    keywords: &[
        "sqlplus",
        "rman",
        "expdp",
        "impdp",
        "exp",
        "imp",
        "sqlldr",
        "userid",
        "jdbc:oracle",
    ],
    gate: |f| f.at_sign,
    pass: |s, hits| pass_first_group(&ORACLE_CONNECT_RE, 2, s, hits),
    matchers: &[&ORACLE_CONNECT_RE],
    examples: &[
        ex(
            "running sqlplus scott/tiger@//db:1521/ORCL",
            "running sqlplus scott/<SECRET>@//db:1521/ORCL",
        ),
        ex(
            "expdp system/Manager1@prod schemas=hr",
            "expdp system/<SECRET>@prod schemas=hr",
        ),
        ex(
            "sqlplus -S -L app/Kp2-wren@ORCLPDB @close.sql",
            "sqlplus -S -L app/<SECRET>@ORCLPDB @close.sql",
        ),
        ex(
            "WARN jdbc:oracle:thin:scott/oraPw_2026@//orahost:1521/ORCLPDB1 refused",
            "WARN jdbc:oracle:thin:scott/<SECRET>@//orahost:1521/ORCLPDB1 refused",
        ),
    ],
    negatives: &["sqlplus / as sysdba", "export done: exp 3/4 @ 10:00"],
};

/// `<add key="ApiKey" value="…"/>`, `<property name="password" value="…"/>`, and
/// `<password>…</password>`: a secret named by an XML attribute or element.
static XML_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?i-u:key|name)[ \t]*=[ \t]*["']([A-Za-z0-9_.:\-]+)["'][ \t]+(?i-u:value)[ \t]*=[ \t]*["']([^"'\n]*)["']"#,
        r"|<([A-Za-z0-9_.:\-]+)>([^<\n]*)</",
        // Java's properties XML: `<entry key="client.secret">…</entry>`.
        r#"|<entry[ \t]+key[ \t]*=[ \t]*["']([A-Za-z0-9_.:\-]+)["'][ \t]*>([^<\n]*)</"#,
        // Pretty-printed: the value alone on the next line (the tag ends its line, as the
        // keyword `>\n` finds it), up to its line's end, the closing
        // tag, or the end of the text (a filter reading a line after the one that opened it).
        r"|<([A-Za-z0-9_.:\-]+)>\r?\n[ \t]*([^<\s](?:[^<\r\n]*[^<\s])?)[ \t]*(?:\r?\n|</|\z)",
    ))
    .expect("constant regex")
});

fn pass_xml(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in XML_RE.captures_iter(s) {
        let pairs = [(1, 2), (3, 4), (5, 6), (7, 8)];
        let Some((key, value)) = pairs
            .iter()
            .find_map(|&(k, v)| Some((caps.get(k)?, caps.get(v)?)))
        else {
            continue;
        };
        // `<SECRET>…</` is a placeholder another rule wrote, not an element.
        if key.start() > 0 && placeholder_after(s, key.start() - 1) {
            continue;
        }
        let name = key.as_str().rsplit(':').next().unwrap_or(key.as_str());
        // A weak key's element (`<transactionKey>`) holds a secret when its value reads random.
        let weak =
            (is_some_key(name) || name.eq_ignore_ascii_case("key")) && looks_random(value.as_str());
        if !(is_secret_key(name) || weak) || is_inert_value_of(name, value.as_str()) {
            continue;
        }
        if e.replace(value.start(), value.end(), SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static XML: Rule = Rule {
    id: "credential.xml",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A secret in XML/config: <add key=\"ApiKey\" value=\"…\"/>, <property name=\"password\" value=\"…\"/>, <password>…</password>.",
    keywords: &["value", "</", ">\n", ">\r\n"],
    gate: always,
    pass: pass_xml,
    matchers: &[&XML_RE],
    examples: &[
        ex(
            r#"<add key="StripeApiKey" value="abc123xyz"/>"#,
            r#"<add key="StripeApiKey" value="<SECRET>"/>"#,
        ),
        ex(
            "<db.password>Pr0dPass</db.password>",
            "<db.password><SECRET></db.password>",
        ),
        ex("<token>0x1F2E3D4C</token>", "<token><SECRET></token>"),
        ex(
            r#"<property name="hibernate.connection.password" value="x1"/>"#,
            r#"<property name="hibernate.connection.password" value="<SECRET>"/>"#,
        ),
        ex(
            r#"<entry key="client.secret">ILiI6s6DcouhN1fHW93RYY7TK</entry>"#,
            r#"<entry key="client.secret"><SECRET></entry>"#,
        ),
        ex(
            "<apiToken>\n    v89w94c6pjkh3zlh7w28j4\n</apiToken>",
            "<apiToken>\n    <SECRET>\n</apiToken>",
        ),
        ex("<password>\n  hunt3r2", "<password>\n  <SECRET>"),
    ],
    negatives: &[
        r#"<add key="Timeout" value="30"/>"#,
        "<user>bob</user>",
        "<description>\n  rotates the api token\n</description>",
    ],
};

/// A long single-dash flag naming a secret (`-Password x`, `-storepass x`, `-passin pass:x`),
/// as PowerShell, keytool, openssl and many Windows tools write it.
static CLI_SINGLE_DASH_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?:\A|[ \t])-(?i-u:password|passwd|pass|storepass|keypass|srcstorepass|deststorepass|",
        r"srckeypass|destkeypass|passin|passout|secret|token|apikey|api-key|accesskey|secretkey|",
        r"clientsecret|securepassword)",
        r#"[ \t]+(?:"([^"\n]*)"|'([^'\n]*)'|([^ \t\r\n"'\-][^ \t\r\n"']*))"#,
    ))
    .expect("constant regex")
});

/// Replaces the first group that matched in each match of `re` (a value, quoted or not), up to
/// a placeholder it runs into.
fn pass_first_group(re: &Matcher, groups: usize, s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in re.captures_iter(s) {
        if let Some(v) = (1..=groups).find_map(|g| caps.get(g))
            && let Some(n) = pass_first_group_at(s, v, &mut e)
        {
            *hits += n;
        }
    }
    e.finish()
}

/// Words that follow a flag's name in prose (`use -Password to set it`), not a value.
const FLAG_PROSE: [&str; 16] = [
    "to", "is", "was", "are", "the", "a", "an", "and", "or", "for", "in", "on", "with", "not",
    "flag", "option",
];

fn pass_single_dash(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in CLI_SINGLE_DASH_RE.captures_iter(s) {
        let Some(v) = (1..=3).find_map(|g| caps.get(g)) else {
            continue;
        };
        if FLAG_PROSE.contains(&v.as_str()) {
            continue;
        }
        if let Some(out) = pass_first_group_at(s, v, &mut e) {
            *hits += out;
        }
    }
    e.finish()
}

/// Replaces `v` (a value) in `e` up to a placeholder it runs into; 1 when it did.
fn pass_first_group_at(s: &str, v: crate::matcher::Match<'_>, e: &mut Edit<'_>) -> Option<u32> {
    if is_inert_value(v.as_str()) || placeholders_at(s, v.start()) > v.start() {
        return None;
    }
    let end = v
        .as_str()
        .match_indices('<')
        .map(|(k, _)| v.start() + k)
        .find(|&i| placeholder_after(s, i))
        .unwrap_or(v.end());
    (end > v.start() && e.replace(v.start(), end, SECRET)).then_some(1)
}

pub(crate) static CLI_SINGLE_DASH: Rule = Rule {
    id: "credential.cli-single-dash",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The value after a single-dash flag naming a secret: -Password x (PowerShell), -storepass x (keytool), -passin pass:x (openssl).",
    keywords: &[
        "-pass",
        "-storepass",
        "-keypass",
        "-srcstorepass",
        "-deststorepass",
        "-srckeypass",
        "-destkeypass",
        "-secret",
        "-token",
        "-apikey",
        "-api-key",
        "-accesskey",
        "-secretkey",
        "-clientsecret",
        "-securepassword",
    ],
    gate: always,
    pass: pass_single_dash,
    matchers: &[&CLI_SINGLE_DASH_RE],
    examples: &[
        ex(
            "Connect-VIServer -Server vc01 -User admin -Password VMware1!",
            "Connect-VIServer -Server <HOST> -User admin -Password <SECRET>",
        ),
        ex(
            "keytool -importcert -storepass changeit2 -noprompt",
            "keytool -importcert -storepass <SECRET> -noprompt",
        ),
        ex("mount -Password 0xdeadbeef1", "mount -Password <SECRET>"),
    ],
    negatives: &["use -Password to set it", "openssl -passin is unset"],
};

/// A secret word, then spaces and a quoted value, with no operator: `password 'x'` (Gradle),
/// `the password is "x"`, `пароль "x"`; and `.netrc`'s `machine h login u password x`.
static SPACED_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // Only password words: `secret "db-creds"` and `token "default-token"` name objects.
        r"(?-u:\b)(?i-u:password|passwd|passphrase|passcode|pwd)",
        r"(?:[ \t]+(?:(?i-u:is|was|of)|(?i-u:for)[ \t]+(?:(?i-u:the)[ \t]+)?(?:(?i-u:user|account)[ \t]+)?",
        r"(?:'[^'\n]*'|\x22[^\x22\n]*\x22|[^ \t\r\n'\x22]+)[ \t]+(?i-u:is)))?",
        r#"[ \t]+(?:"([^"\n]+)"|'([^'\n]+)')"#,
        r#"|(?:пароль|Пароль|密码|パスワード|비밀번호|Passwort|contraseña|senha)[ \t]+(?:"([^"\n]+)"|'([^'\n]+)')"#,
        r#"|(?-u:\b)machine[ \t]+[^ \t\r\n]+[ \t]+login[ \t]+[^ \t\r\n]+[ \t]+password[ \t]+([^ \t\r\n"]+)"#,
        // `Setting secret_token to x`, `changed password to x`.
        r"|(?-u:\b)(?i-u:setting|set|changed|changing|updated|updating)[ \t]+[A-Za-z0-9_.\-]*",
        r"(?i-u:password|passwd|secret|token|api[_-]?key)[A-Za-z0-9_.\-]*[ \t]+(?i-u:to)[ \t]+",
        r#"(?:"([^"\n]+)"|'([^'\n]+)'|([^ \t\r\n"']+))"#,
    ))
    .expect("constant regex")
});

/// A secret key and its value with only blanks between, as config files, device configs,
/// consoles and tables write them: `snmp-server community X`, `password 7 X` (an IOS type
/// digit first), `rcon_password "X"`, `token_accessor   X`, `mot de passe « X »`.
static CONFIG_SPACED_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?:(?m:^)|[ \t\]>#:;,(])",
        r"([A-Za-z0-9_.\-]*(?i-u:pass|password|passwd|passphrase|passcode|pwd|pw|secret|token|community|psk|key|cred|credentials?|accessor|value|passwort|kennwort)|(?i-u:mot de passe))",
        // A table's cells part them with `|` (`wp config list`, a psql result).
        r"(?:[ \t]+|[ \t]*\|[ \t]*)(?:[0-9][ \t]+)?",
        r#"(?:"([^"\n]+)"|'([^'\n]+)'|«[ \t]*([^ \t\r\n]+)[ \t]*»|([^ \t\r\n"'|]+))"#,
    ))
    .expect("constant regex")
});

/// Whether `v`, an unquoted value with no operator before it, looks like a secret rather than
/// the next word of a sentence: six or more bytes mixing letters with digits or symbols.
fn looks_like_secret(v: &str) -> bool {
    // A sentence's closing punctuation is no symbol of the value (`(community edition)`).
    let b = v
        .trim_end_matches([')', ']', '}', '.', ',', ';', ':'])
        .as_bytes();
    let letters = b.iter().any(u8::is_ascii_alphabetic);
    let digits = b.iter().any(u8::is_ascii_digit);
    // A dash or an underscore between letters joins words (`e-mail`, `read_only`).
    let symbols = b.iter().any(|x| {
        x.is_ascii_punctuation() && !matches!(x, b'.' | b',' | b':' | b';' | b'/' | b'-' | b'_')
    });
    b.len() >= 6 && letters && (digits || symbols)
}

fn pass_config_spaced(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in CONFIG_SPACED_RE.captures_iter(s) {
        let (Some(k), Some(v)) = (caps.get(1), (2..=5).find_map(|g| caps.get(g))) else {
            continue;
        };
        // A key's `value` word names the value (`plain-text-password-value`).
        let key = k.as_str();
        // In escaped text a value ends at an escaped line break or tab (`key\n.env:4`).
        let (v_start, v_end) = match ["\\n", "\\r", "\\t"]
            .iter()
            .filter_map(|esc| v.as_str().find(esc))
            .min()
        {
            Some(0) => continue,
            Some(cut) => (v.start(), v.start() + cut),
            None => (v.start(), v.end()),
        };
        let key = ["-value", "_value", ".value"]
            .iter()
            .find_map(|x| key.strip_suffix(x))
            .unwrap_or(key);
        let quoted = caps.get(5).is_none();
        let value = &s[v_start..v_end];
        // Between cells, the value is a cell too: a `|` closes it.
        if s[k.end()..v_start].contains('|') && !s[v_end..].trim_start().starts_with('|') {
            continue;
        }
        // A device's encryption type between key and value (`key 7 0822…`, `secret 5 $1$…`)
        // says the value is the secret, whatever the key's word.
        let typed = s[k.end()..v_start].bytes().any(|b| b.is_ascii_digit());
        let strong = typed
            || key_words(key).0 >= 2
            || [
                "pass",
                "password",
                "passwd",
                "pwd",
                "secret",
                "community",
                "psk",
                "passphrase",
            ]
            .iter()
            .any(|w| ends_with_ci(key, w))
            || !key.is_ascii();
        // A word alone names an object (`secret "db-creds"`, `token "default"`), a password
        // word excepted; a value with a dash first is the next flag (`passwd --stdin`).
        let object_word = key_words(key).0 < 2
            && [
                "secret",
                "token",
                "key",
                "cred",
                "creds",
                "credential",
                "credentials",
                "value",
            ]
            .iter()
            .any(|w| key.eq_ignore_ascii_case(w));
        let ok = key.starts_with(|c: char| c.is_alphabetic())
            && (typed || !object_word)
            && !value.starts_with('-')
            && (is_secret_key(key) || typed && ends_with_ci(key, "key"))
            && !is_inert_value_of(key, value)
            && !is_mask_at(s, v_start)
            && !is_placeholder(value)
            && !placeholders_at(s, v_start).gt(&v_start)
            && (quoted || (strong && looks_like_secret(value)));
        if ok && e.replace(v_start, v_end, SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static CONFIG_SPACED: Rule = Rule {
    id: "credential.config-spaced",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A secret key and its value with only blanks between, as device configs, consoles and tables print them: snmp-server community X, password 7 X, rcon_password \"X\", token_accessor  X, mot de passe « X ».",
    keywords: &[
        "pass",
        "pwd",
        "pw",
        "secret",
        "token",
        "community",
        "psk",
        "key",
        "cred",
        "accessor",
    ],
    gate: always,
    pass: pass_config_spaced,
    matchers: &[&CONFIG_SPACED_RE],
    examples: &[
        ex(
            "radius-server host 10.1.1.9 key 7 0822455D0A165E1E",
            "radius-server host <IP> key 7 <SECRET>",
        ),
        ex(
            "snmp-server community Wq8-Larch42 RO 10",
            "snmp-server community <SECRET> RO 10",
        ),
        ex(
            " username ops privilege 15 password 7 0822455D0A1606181C",
            " username ops privilege 15 password 7 <SECRET>",
        ),
        ex(
            "] sv_password \"amber-Kiln-61\"",
            "] sv_password \"<SECRET>\"",
        ),
        ex(
            "client_token      Qm7Xp2Lk9Vb4Tz8Rw1Ny",
            "client_token      <SECRET>",
        ),
        ex(
            "compte « paie » mot de passe « Lp7?Quai-3 » refusé",
            "compte « paie » mot de passe « <SECRET> » refusé",
        ),
    ],
    negatives: &[
        // Escaped text: the value ends at the escaped line break.
        "the DB_PASSWORD key\\n.env.example:4 UnorderedKey",
        "Server 17.0 (community edition) started",
        "password reset link sent",
        "token refresh in 30s",
        "cache key user-42 evicted",
        "password policy is applied",
        "secret \"db-creds\" mounted",
        "enable secret 5 <SECRET>",
    ],
};

pub(crate) static SPACED: Rule = Rule {
    id: "credential.spaced",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A quoted value after a secret word with no operator (password 'x', the password is \"x\", пароль \"x\"), and .netrc's password field.",
    keywords: &[
        "pass",
        "pwd",
        "пароль",
        "Пароль",
        "密码",
        "パスワード",
        "비밀번호",
        "contraseña",
        "senha",
        "machine",
        "setting",
        "set ",
        "changed",
        "changing",
        "updated",
        "updating",
    ],
    gate: always,
    pass: |s, hits| pass_first_group(&SPACED_RE, 8, s, hits),
    matchers: &[&SPACED_RE],
    examples: &[
        ex(
            "credentials { username 'ci' password 'Gr4dle!' }",
            "credentials { username 'ci' password '<SECRET>' }",
        ),
        ex(
            "The default password is 'marigold7'",
            "The default password is '<SECRET>'",
        ),
        ex(
            "machine api.example.com login deploy password 7f3k9q2m5x",
            "machine <HOST> login deploy password <SECRET>",
        ),
        // In a JSON line the password ends where the string does.
        ex(
            r#"{"msg":"machine git.example.com login ci password pw4Qz9","n":1}"#,
            r#"{"msg":"machine <HOST> login ci password <SECRET>","n":1}"#,
        ),
        ex(
            "Setting secret_token to 69rqTIQ5Lde5a2rplC",
            "Setting secret_token to <SECRET>",
        ),
        // Inside a JSON string, read decoded (see `escaped`).
        ex(
            r#"{"msg":"ran: app --password \"Tr1cky\" --user root"}"#,
            r#"{"msg":"ran: app --password \"<SECRET>\" --user root"}"#,
        ),
    ],
    negatives: &[
        "password reset link sent",
        "failed to mount secret \"db-creds\" in namespace prod",
    ],
};

/// The password argument of the .NET, Java and Python credential constructors:
/// `NetworkCredential("user", "pw")`, `DirectoryEntry("LDAP://…", "user", "pw")`,
/// `HTTPBasicAuth('user', 'pw')`.
static CALL_ARGS_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u:networkcredential|directoryentry|passwordauthentication|usernamepasswordcredentials|",
        r"usernamepasswordauthenticationtoken|httpbasicauth|httpdigestauth|basicauth|setbasicauth|",
        r"basic_auth|simplecredentials|authenticate)[ \t]*\([ \t]*",
        r#"(?:"[^"\n]*"|'[^'\n]*')(?:[ \t]*,[ \t]*(?:"[^"\n]*"|'[^'\n]*'))?[ \t]*,[ \t]*"#,
        r#"(?:"([^"\n]*)"|'([^'\n]*)')"#,
    ))
    .expect("constant regex")
});

pub(crate) static CALL_ARGUMENTS: Rule = Rule {
    id: "credential.call-arguments",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The password argument of a credential constructor: NetworkCredential(\"u\", \"pw\"), DirectoryEntry(path, \"u\", \"pw\"), HTTPBasicAuth('u', 'pw').",
    keywords: &[
        "credential",
        "directoryentry",
        "authentication",
        "basicauth",
        "digestauth",
        "basic_auth",
        "authenticate",
    ],
    gate: |f| f.open_paren,
    pass: |s, hits| pass_first_group(&CALL_ARGS_RE, 2, s, hits),
    matchers: &[&CALL_ARGS_RE],
    examples: &[
        ex(
            "smtp.Credentials = new NetworkCredential(\"ci\", \"m85knptfzkjls93f\");",
            "smtp.Credentials = new NetworkCredential(\"ci\", \"<SECRET>\");",
        ),
        ex(
            "requests.get(url, auth=HTTPBasicAuth('bot', 'Pa55'))",
            "requests.get(url, auth=HTTPBasicAuth('bot', '<SECRET>'))",
        ),
    ],
    negatives: &["NetworkCredential(user) failed", "basicauth disabled (x)"],
};

/// The data of a Kubernetes Secret in one message, on one line or as YAML over several
/// (`kind: Secret … data: key: <base64>`): every base64 value in it, whatever its key.
static K8S_SECRET_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(
        r#"(?-u:\b)[A-Za-z0-9_.\-]+["']?:[ \t]*["']?([A-Za-z0-9+/]{4,}={0,2})["']?(?:[ \t,}\r\n]|\z)"#,
    )
    .expect("constant regex")
});

fn pass_k8s_secret(s: &str, hits: &mut u32) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let compact: String = lower
        .chars()
        .filter(|c| !matches!(c, ' ' | '\t' | '"' | '\''))
        .collect();
    if !compact.contains("kind:secret") {
        return None;
    }
    let data = ["data:", "data\":", "data':"]
        .iter()
        .filter_map(|k| lower.find(k))
        .min()?;
    let mut e = Edit::new(s);
    let mut pos = data;
    while let Some(caps) = K8S_SECRET_RE.captures_at(s, pos) {
        let (Some(whole), Some(v)) = (caps.get(0), caps.get(1)) else {
            break;
        };
        pos = v.end().max(whole.start() + 1);
        let value = v.as_str();
        // Base64 of a secret: a length a multiple of four or `=` padding, and not a plain word.
        let base64 = value.len() >= 8 && (value.len() % 4 == 0 || value.ends_with('='));
        let plain = value.bytes().all(|b| b.is_ascii_lowercase())
            || value.bytes().all(|b| b.is_ascii_digit());
        if base64 && !plain && e.replace(v.start(), v.end(), SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static K8S_SECRET: Rule = Rule {
    id: "credential.k8s-secret",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "Every base64 value in the data of a Kubernetes Secret in one message, whatever its key.",
    // `kind` is rarer in logs than `secret` (every `client_secret=` line), and the pass copies
    // the line to read it: it runs only where both words could stand.
    keywords: &["kind"],
    gate: always,
    pass: pass_k8s_secret,
    matchers: &[&K8S_SECRET_RE],
    examples: &[
        ex(
            "apiVersion: v1 kind: Secret metadata: name: db data: extra: YWRtaW46cGFzc3dvcmQ= user: cm9vdA==",
            "apiVersion: v1 kind: Secret metadata: name: db data: extra: <SECRET> user: <SECRET>",
        ),
        ex(
            "{\"kind\":\"Secret\",\"data\":{\"tls.crt\":\"LS0tLS1CRUdJTg==\"}}",
            "{\"kind\":\"Secret\",\"data\":{\"tls.crt\":\"<SECRET>\"}}",
        ),
        ex(
            "apiVersion: v1\ndata:\n  ca.key: c2VjcmV0LWtleQ==\nkind: Secret\n",
            "apiVersion: v1\ndata:\n  ca.key: <SECRET>\nkind: Secret\n",
        ),
    ],
    negatives: &[
        "kind: ConfigMap data: extra: YWRtaW46cGFzc3dvcmQ=",
        "kind: Secret data: replicas: 3",
    ],
};

/// A credential in a protocol transcript or a monitor's echo, where the command is the key:
/// Redis's `"AUTH" "user" "pw"` (and `AUTH pw`), IMAP's `a001 LOGIN user "pw"`, POP3's and FTP's
/// `PASS pw`; and a config tool's `option 'smtp_pass' has value 'pw'`, where the phrase stands
/// between a secret key and its value. The last argument is the secret.
static PROTOCOL_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?:(?m:^)|[ \t"])(?:AUTH|auth)"?[ \t]+(?:"[^"\n]*"[ \t]+)?"([^"\n]+)""#,
        r#"|(?m:^)[ \t]*[A-Za-z0-9]{1,8}[ \t]+LOGIN[ \t]+(?:"[^"\n]*"|[^ \t\r\n"]+)[ \t]+("[^"\n]*"|[^ \t\r\n"]+)[ \t]*(?m:$)"#,
        r"|(?m:^)[ \t]*(?:PASS|pass)[ \t]+([^ \t\r\n]+)[ \t]*(?m:$)",
        r"|(?m:^)[ \t]*(?:AUTH|auth)[ \t]+([^ \t\r\n]{6,})[ \t]*(?m:$)",
        // SMTP: `AUTH PLAIN <base64>`, and the line after the server's base64 `Password:`.
        r"|(?-u:\b)AUTH[ \t]+PLAIN[ \t]+([A-Za-z0-9+/=]{4,})",
        // A transcript may mark each line's side: `S: 334 …` / `C: <base64>`, `<-` / `->`.
        r"|334[ \t]+(?:UGFzc3dvcmQ6|cGFzc3dvcmQ6)[ \t]*\r?\n[ \t]*(?:[A-Za-z]{1,2}:[ \t]*|(?:<-|->|<<<|>>>|[<>])[ \t]+)?([A-Za-z0-9+/=]{4,})",
        // FreeRADIUS logs a refused login's user and password: `Login incorrect (…): [u/pw]`.
        r"|Login (?:incorrect|OK)[^\[\r\n]*: \[[^/\]\r\n]+/([^\]\r\n]+)\]",
        // An SNMP community, where the tool takes it: IOS's `snmp-server host 10.0.0.9 version
        // 2c COMMUNITY`, net-snmp's `snmpwalk -v2c -c COMMUNITY host`.
        r"|(?m:^)[ \t]*snmp-server host [^ \t\r\n]+(?: (?:traps|informs))?(?: version (?:1|2c))? ([^ \t\r\n]+)",
        r"|(?-u:\b)snmp(?:walk|get|getnext|bulkwalk|bulkget|set|table|trap|inform|df|status|netstat|delta)[ \t][^\r\n]*?[ \t]-c[ \t]*([^ \t\r\n]+)",
        // PowerShell's plain text made a secure string: `ConvertTo-SecureString -AsPlainText "x"`.
        r#"|ConvertTo-SecureString(?:[ \t]+-(?:AsPlainText|Force|String))*[ \t]+["']([^"'\r\n]+)["']"#,
        // FIX's Password (554) and NewPassword (925) fields, between SOH, `|` or `^A`.
        r"|(?:\x01|\||\^A)(?:554|925)=([^\x01|^\r\n]+)",
        // Windows' `net user NAME PASSWORD`: the second word is the password (`*` prompts).
        r"|(?-u:\b)(?i-u:net)[ \t]+(?i-u:user)[ \t]+[^ \t\r\n/]+[ \t]+([^ \t\r\n/*][^ \t\r\n]*)",
        // A password as a command's quoted argument: IBM MQ's `LDAPPWD('x')`, `PASSWORD('x')`.
        r"|(?-u:\b)[A-Z]*(?:PWD|PASSWORD|PASSWD)\('([^'\r\n]+)'\)",
    ))
    .expect("constant regex")
});

/// A password that a sentence or a command's place names, with no operator: what follows
/// `password is`, `password was changed to`, `Generated password for user elastic:`, the
/// `user/password` after `credentials`, and the positional password of the commands that take
/// one (`htpasswd -b FILE USER PASS`, `rabbitmqctl add_user USER PASS`, `mysqladmin … password
/// NEW`, `echo 'user:pass' | chpasswd`, MySQL's `SET PASSWORD FOR u = 'x'`). The sentence forms
/// take a value only when it looks like one (letters with digits or symbols).
static PLACED_PASSWORD_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?-u:\b)(?i-u:password|passwd|passphrase|pwd)(?:[ \t]+(?i-u:was|has been|is now))?(?:[ \t]+(?i-u:changed|set|reset|updated))?[ \t]+(?i-u:is|to)[ \t]*:?[ \t]+([^ \t\r\n\x22'<>]+)",
        r"|(?-u:\b)(?i-u:password|passphrase)[ \t]+(?i-u:for)[ \t]+(?:(?i-u:user|account)[ \t]+)?[^ \t\r\n:]+[ \t]*:[ \t]*([^ \t\r\n\x22']+)",
        r"|(?-u:\b)(?i-u:credentials?|creds)[ \t]*[:=]?[ \t]+[A-Za-z0-9_.@\-]+/([^ \t\r\n\x22']+)",
        // Positional passwords: checked for a flag or a placeholder only.
        r"|(?-u:\b)htpasswd[ \t]+-[A-Za-z]*b[A-Za-z]*[ \t]+(?:-[^ \t\r\n]+[ \t]+)*[^ \t\r\n-][^ \t\r\n]*[ \t]+[^ \t\r\n]+[ \t]+([^ \t\r\n]+)",
        r"|(?-u:\b)rabbitmqctl[ \t]+(?:add_user|change_password|authenticate_user)[ \t]+[^ \t\r\n]+[ \t]+([^ \t\r\n]+)",
        r"|(?-u:\b)mysqladmin[^\r\n]*?[ \t]password[ \t]+([^ \t\r\n]+)",
        r"|(?-u:\b)echo[ \t]+['\x22]?[A-Za-z0-9_.\-]+:([^ \t\r\n'\x22|]+)['\x22]?[ \t]*\|[ \t]*(?:sudo[ \t]+)?chpasswd",
        r"|(?-u:\b)(?i-u:set[ \t]+password)(?:[ \t]+(?i-u:for)[ \t]+[^ \t\r\n=]+)?[ \t]*=[ \t]*(?:(?i-u:password)\()?'([^'\r\n]+)'",
    ))
    .expect("constant regex")
});

static OPTION_VALUE_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r#"(?i-u:option|setting|parameter|variable|property|key)[ \t]+['"`]?([A-Za-z0-9_.\-]+)['"`]?"#,
        r#"[ \t]+(?i-u:has value|is set to|set to|has the value|value is)[ \t]+('[^'\n]*'|"[^"\n]*"|[^ \t\r\n;,]+)"#,
    ))
    .expect("constant regex")
});

/// The SASL mechanisms in IANA's registry that servers list and clients name.
const SASL_MECHANISMS: [&str; 14] = [
    "PLAIN",
    "LOGIN",
    "CRAM-MD5",
    "DIGEST-MD5",
    "XOAUTH2",
    "OAUTHBEARER",
    "GSSAPI",
    "GS2-KRB5",
    "NTLM",
    "EXTERNAL",
    "ANONYMOUS",
    "SCRAM-SHA-1",
    "SCRAM-SHA-256",
    "SCRAM-SHA-512",
];

fn pass_protocol(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in PROTOCOL_RE.captures_iter(s) {
        let Some((group, v)) = (1..caps.group_count()).find_map(|g| caps.get(g).map(|v| (g, v)))
        else {
            continue;
        };
        let text = v.as_str().trim_matches('"');
        // After `AUTH`, a SASL mechanism's name is how, not what: an SMTP server lists them
        // (`250-AUTH PLAIN LOGIN CRAM-MD5`).
        if matches!(group, 4 | 5) && SASL_MECHANISMS.contains(&text) {
            continue;
        }
        // `AUTH LOGIN`, `AUTH PLAIN`, `PASS <SECRET>`: a mechanism or a placeholder.
        if text.is_empty()
            || is_placeholder(text)
            || METHOD_VALUES.contains(&text)
            || ["ok", "OK", "failed", "done"].contains(&text)
        {
            continue;
        }
        // Only a value quoted at both ends keeps its quotes (`PASS "<SECRET>#` is one word,
        // a fuzz find: its inside was a placeholder already, and replacing it counted a hit
        // that changed nothing).
        let quoted =
            v.as_str().len() >= 2 && v.as_str().starts_with('"') && v.as_str().ends_with('"');
        let (vs, ve) = if quoted {
            (v.start() + 1, v.end() - 1)
        } else {
            (v.start(), v.end())
        };
        if !is_placeholder(&s[vs..ve]) && e.replace(vs, ve, SECRET) {
            *hits += 1;
        }
    }
    for caps in PLACED_PASSWORD_RE.captures_iter(s) {
        let Some((group, v)) = (1..caps.group_count()).find_map(|g| caps.get(g).map(|v| (g, v)))
        else {
            continue;
        };
        // A sentence's punctuation closes the value (`password is x7Q!p2, then`).
        let value = v.as_str().trim_end_matches([',', ';', '.', ')', ']']);
        let sentence = group <= 3;
        if is_placeholder(value)
            || value.starts_with('-')
            || (sentence && (!looks_like_secret(value) || PROSE_VALUES.contains(&value)))
        {
            continue;
        }
        if e.replace(v.start(), v.start() + value.len(), SECRET) {
            *hits += 1;
        }
    }
    for caps in OPTION_VALUE_RE.captures_iter(s) {
        let (Some(key), Some(v)) = (caps.get(1), caps.get(2)) else {
            continue;
        };
        if !is_secret_key(key.as_str()) {
            continue;
        }
        let quoted = v.as_str().starts_with(['\'', '"']) && v.as_str().len() >= 2;
        let (vs, ve) = if quoted {
            (v.start() + 1, v.end() - 1)
        } else {
            (v.start(), v.end())
        };
        if !is_inert_value(&s[vs..ve]) && e.replace(vs, ve, SECRET) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PROTOCOL: Rule = Rule {
    id: "credential.protocol",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A credential where a protocol command is its key (Redis `AUTH`, IMAP `LOGIN`, POP3/FTP `PASS`) or a phrase stands between key and value (`option 'smtp_pass' has value 'x'`).",
    keywords: &[
        "auth",
        "login",
        "pass",
        "snmp",
        "securestring",
        "554=",
        "925=",
        "net user",
        "pwd('",
        "password('",
        "passwd('",
        "has value",
        "set to",
        "value is",
        "ugfzc3dvcmq6",
        "pwd",
        "cred",
        "rabbitmqctl",
    ],
    gate: always,
    pass: pass_protocol,
    matchers: &[&PROTOCOL_RE, &PLACED_PASSWORD_RE, &OPTION_VALUE_RE],
    examples: &[
        ex(
            "the new password is Tq8!vmr2 and elastic's password was changed to Zeph9rW",
            "the new password is <SECRET> and elastic's password was changed to <SECRET>",
        ),
        ex(
            "Generated password for user kibana_system: h7Ra=Mq2x, credentials ops/Bw4tQz9",
            "Generated password for user kibana_system: <SECRET>, credentials ops/<SECRET>",
        ),
        ex(
            "$ htpasswd -b /etc/nginx/.htpasswd admin Pl4inPw && rabbitmqctl add_user app Rb7mq2x",
            "$ htpasswd -b /etc/nginx/.htpasswd admin <SECRET> && rabbitmqctl add_user app <SECRET>",
        ),
        ex(
            "echo 'deploy:Dx9vL2q' | sudo chpasswd; SET PASSWORD FOR 'app'@'%' = 'Sq1pw7x'",
            "echo 'deploy:<SECRET>' | sudo chpasswd; SET PASSWORD FOR 'app'@'%' = '<SECRET>'",
        ),
        ex(
            r#"1715332001.118 [0 lua] "AUTH" "default" "Qe7#pLx0!mZ""#,
            r#"1715332001.118 [0 lua] "AUTH" "default" "<SECRET>""#,
        ),
        ex(
            "8=FIX.4.4|9=98|35=A|49=DESK7|56=VENUE|98=0|108=30|553=trader9|554=Wq7#ploV2z|10=210|",
            "8=FIX.4.4|9=98|35=A|49=DESK7|56=VENUE|98=0|108=30|553=trader9|554=<SECRET>|10=210|",
        ),
        ex(
            "C:\\> net user svc_backup Herbst24!Kx /add and DEFINE AUTHINFO(X) LDAPPWD('q9Lw-2bT')",
            "C:\\> net user svc_backup <SECRET> /add and DEFINE AUTHINFO(X) LDAPPWD('<SECRET>')",
        ),
        ex(
            r#"a001 LOGIN "k.ito" "Ume-Kaze#7781""#,
            r#"a001 LOGIN "k.ito" "<SECRET>""#,
        ),
        ex("PASS Lindwurm&Tee42", "PASS <SECRET>"),
        ex(
            "Auth: (41) Login incorrect (pap: Cleartext-Password does not match): [kmoe/Tz7!pwq9] (from client vpn1 port 4)",
            "Auth: (41) Login incorrect (pap: Cleartext-Password does not match): [kmoe/<SECRET>] (from client <HOST> port 4)",
        ),
        ex(
            "snmp-server host 10.20.0.9 version 2c Qh7-Lynx.4 and snmpwalk -v2c -c Rv8mKt2Zq -t 3 sw1",
            "snmp-server host <IP> version 2c <SECRET> and snmpwalk -v2c -c <SECRET> -t 3 sw1",
        ),
        ex(
            "Set-ADAccountPassword -NewPassword (ConvertTo-SecureString -AsPlainText \"Wx7-moor!q\" -Force)",
            "Set-ADAccountPassword -NewPassword (ConvertTo-SecureString -AsPlainText \"<SECRET>\" -Force)",
        ),
        ex(
            "AUTH LOGIN\n334 VXNlcm5hbWU6\nb3BzQGV4YW1wbGUub3Jn\n334 UGFzc3dvcmQ6\nS2Vzc2VsLUJydWNrZS05",
            "AUTH LOGIN\n334 VXNlcm5hbWU6\n<TOKEN>\n334 UGFzc3dvcmQ6\n<SECRET>",
        ),
        ex(
            "C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: YWxlcnRz\nS: 334 UGFzc3dvcmQ6\nC: V2hpbjdlci1mb3gh",
            "C: AUTH LOGIN\nS: 334 VXNlcm5hbWU6\nC: YWxlcnRz\nS: 334 UGFzc3dvcmQ6\nC: <SECRET>",
        ),
        ex(
            "Option 'smtp_pass' has value 'Vi!l-Ch4rt-51'; option 'smtp_tls' has value 'true'",
            "Option 'smtp_pass' has value '<SECRET>'; option 'smtp_tls' has value 'true'",
        ),
    ],
    negatives: &[
        "the password is incorrect; password is required; password was changed to meet policy",
        "credentials ops/readonly applied",
        "AUTH LOGIN",
        "250-AUTH PLAIN LOGIN CRAM-MD5",
        "net user alice /domain and net user bob * /add",
        "user login ok",
        "PASS ok",
        "option 'pool_size' has value '20'",
        "login failed for bob",
    ],
};

/// The Go MySQL driver's DSN, `user:pass@tcp(host:port)/db` (also `unix(/path)`), which no URL
/// scheme announces.
static GO_DSN_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"[A-Za-z0-9_.\-]+:([^@ \t\r\n/\x22']+)@(?:tcp|tcp6|udp|unix)\(")
        .expect("constant regex")
});

pub(crate) static GO_DSN: Rule = Rule {
    id: "credential.go-dsn",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "The password of a Go MySQL driver DSN: `user:pass@tcp(host:port)/db`.",
    keywords: &["@tcp(", "@unix(", "@udp(", "@tcp6("],
    gate: always,
    pass: |s, hits| pass_first_group(&GO_DSN_RE, 1, s, hits),
    matchers: &[&GO_DSN_RE],
    examples: &[
        ex(
            "dsn=\"orders:Zx8#kq2@tcp(mysql-1:3306)/orders?parseTime=true\"",
            "dsn=\"orders:<SECRET>@tcp(mysql-1:3306)/orders?parseTime=true\"",
        ),
        ex(
            "open app:T0p-s3cr3t@unix(/run/mysqld.sock)/app failed",
            "open app:<SECRET>@unix(/run/mysqld.sock)/app failed",
        ),
    ],
    negatives: &["connect tcp(3306) refused", "user@tcp(x) ok"],
};
