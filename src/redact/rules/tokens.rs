//! Token-like values recognised by their shape alone: PEM blocks, vendor tokens with their
//! fixed prefixes (cloud keys, VCS and CI tokens, chat, payment and AI providers), JWTs, and
//! long random runs of hex or base64.
//!
//! A vendor token needs no key in front of it: its prefix is the evidence, and each provider is
//! a rule of its own, gated by that prefix. A long run is redacted only when it looks random
//! (see [`is_token_like`]), so identifiers, paths and words stay.

use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, ex};
use super::super::text::{
    Edit, TOKEN, byte_at, byte_before, is_word_byte, next_char, placeholder_after,
    placeholder_before,
};
use crate::matcher::Matcher;

// ---------------------------------------------------------------------------------------------
// PEM blocks: multi-line, so they go first, before any line-oriented rule sees their body.

static PEM_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"-----BEGIN [A-Z0-9 ]{0,40}-----(?s:.*?)(?:-----END [A-Z0-9 ]{0,40}-----|\z)")
        .expect("constant regex")
});

fn pass_pem(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in PEM_RE.find_iter(s) {
        if e.replace(m.start(), m.end(), TOKEN) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PEM_BLOCK: Rule = Rule {
    id: "token.pem-block",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "A PEM block (private key, certificate) from its BEGIN line to its END line.",
    keywords: &["-----begin"],
    gate: super::super::rule::always,
    pass: pass_pem,
    matchers: &[&PEM_RE],
    examples: &[
        ex(
            "key loaded: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- ok",
            "key loaded: <TOKEN> ok",
        ),
        ex("cert -----BEGIN CERTIFICATE----- MIIB", "cert <TOKEN>"),
    ],
    negatives: &["-----BEGIN is how a PEM header starts", "-----"],
};

// ---------------------------------------------------------------------------------------------
// Vendor tokens: a fixed prefix, then the provider's alphabet and length.

/// Replaces every match of `re` that stands apart from the letters and digits around it.
fn pass_bare(re: &Matcher, s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while pos < s.len() {
        let Some(m) = re.find_at(s, pos) else {
            break;
        };
        let before_ok = !byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric())
            && !placeholder_before(s, m.start());
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| b.is_ascii_alphanumeric())
            && !placeholder_after(s, m.end());
        if before_ok && after_ok && e.replace(m.start(), m.end(), TOKEN) {
            *hits += 1;
            pos = m.end();
        } else {
            pos = next_char(s, m.start());
        }
    }
    e.finish()
}

/// One vendor-token rule: its pattern, its prefix keywords, and a gate on the longest run of
/// token bytes (`[A-Za-z0-9+/_-]`) its shortest match holds.
macro_rules! vendor {
    (
        $name:ident, $re:ident, $id:literal, $desc:literal,
        keywords: $kw:expr, min_run: $run:literal, pattern: $pat:expr,
        examples: $examples:expr, negatives: $negatives:expr $(,)?
    ) => {
        static $re: LazyLock<Matcher> =
            LazyLock::new(|| Matcher::new($pat).expect("constant regex"));
        pub(crate) static $name: Rule = Rule {
            id: $id,
            class: RedactionClass::Token,
            placeholder: TOKEN,
            description: $desc,
            keywords: $kw,
            gate: |f| f.max_run >= $run,
            pass: |s, hits| pass_bare(&$re, s, hits),
            matchers: &[&$re],
            examples: $examples,
            negatives: $negatives,
        };
    };
}

vendor!(
    AWS_ACCESS_KEY, AWS_ACCESS_KEY_RE, "token.aws-access-key",
    "An AWS access key id (AKIA…, ASIA… and the other IAM prefixes).",
    keywords: &["akia", "asia", "agpa", "aida", "aroa", "anpa", "anva", "aipa", "a3t"],
    min_run: 20,
    pattern: r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16}",
    examples: &[
        ex("using key AKIAIOSFODNN7EXAMPLE for s3", "using key <TOKEN> for s3"),
        ex("creds=ASIAY34FZKBOKMUTVV7A,", "creds=<TOKEN>,"),
    ],
    negatives: &["AKIA is the prefix of an access key", "AKIAIOSFODNN7EXAMPLEX1"],
);

vendor!(
    ALIBABA_ACCESS_KEY, ALIBABA_ACCESS_KEY_RE, "token.alibaba-access-key",
    "An Alibaba Cloud AccessKey id (LTAI…).",
    keywords: &["ltai"],
    min_run: 16,
    pattern: r"LTAI[A-Za-z0-9]{12,30}",
    examples: &[
        ex("oss client LTAI5tQ8zXnKpL3mW9vRbYc2 ready", "oss client <TOKEN> ready"),
        ex("[LTAI4Gabcdefghijklmn]", "[<TOKEN>]"),
    ],
    negatives: &["LTAI prefix expected", "LTAIshort1"],
);

vendor!(
    GITHUB_TOKEN, GITHUB_TOKEN_RE, "token.github",
    "A GitHub token: classic (ghp_, gho_, ghu_, ghs_, ghr_) or fine-grained (github_pat_).",
    keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
    min_run: 34,
    pattern: r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}",
    examples: &[
        ex(
            "git clone with ghp_1A2b3C4d5E6f7G8h9I0jK1l2M3n4O5p6Q7r8 failed",
            "git clone with <TOKEN> failed",
        ),
        ex(
            "GH=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
            "GH=<TOKEN>",
        ),
    ],
    negatives: &["ghp_ tokens are classic PATs", "ghp_short123"],
);

vendor!(
    GITLAB_TOKEN, GITLAB_TOKEN_RE, "token.gitlab",
    "A GitLab token: personal, project, deploy, runner, pipeline-trigger or feed (glpat-, gldt-, glrt-, glptt-, glft-, glsoat-, GR1348941).",
    keywords: &["glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glsoat-", "glcbt-", "glimt-", "glagent-", "gloas-", "gr1348941"],
    min_run: 20,
    pattern: r"(?:glpat|gldt|glrt|glptt|glft|glsoat|glcbt|glimt|glagent|gloas)-[A-Za-z0-9_\-]{20,}|GR1348941[A-Za-z0-9_\-]{20,}",
    examples: &[
        ex("token glpat-xYz12AbC34dEf56GhI78jK rejected", "token <TOKEN> rejected"),
        ex("runner registered with glrt-2CR8_eVxiioB1QmzPZwa", "runner registered with <TOKEN>"),
    ],
    negatives: &["glpat- is GitLab's prefix", "glpat-short"],
);

vendor!(
    SLACK_TOKEN, SLACK_TOKEN_RE, "token.slack",
    "A Slack token (xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-, xapp-).",
    keywords: &["xox", "xapp-"],
    min_run: 15,
    pattern: r"xox[abposre](?:\.[A-Za-z0-9-]+|-[A-Za-z0-9-]{10,})|xapp-[0-9]-[A-Za-z0-9-]{10,}",
    examples: &[
        ex("slack auth xoxb-1234567890-abcdefghij ok", "slack auth <TOKEN> ok"),
        ex("app token xapp-1-A0123BCDE45-1234567890123-abcdef", "app token <TOKEN>"),
    ],
    negatives: &["xoxb- tokens are bot tokens", "xoxb-short"],
);

vendor!(
    STRIPE_KEY, STRIPE_KEY_RE, "token.stripe",
    "A Stripe secret, restricted or publishable key (sk_live_, rk_test_, pk_live_, whsec_).",
    keywords: &["k_live_", "k_test_", "whsec_"],
    min_run: 18,
    pattern: r"[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}|whsec_[A-Za-z0-9]{24,}",
    examples: &[
        ex("charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc", "charge with <TOKEN>"),
        ex("key=rk_test_51Habcdefghijkl", "key=<TOKEN>"),
    ],
    negatives: &["sk_live_ keys move money", "sk_test_short"],
);

vendor!(
    GOOGLE_API_KEY, GOOGLE_API_KEY_RE, "token.google-api-key",
    "A Google API key (AIza…) or OAuth client secret (GOCSPX-…).",
    keywords: &["aiza", "gocspx-"],
    min_run: 34,
    pattern: r"AIza[A-Za-z0-9_-]{30,40}|GOCSPX-[A-Za-z0-9_-]{28}",
    examples: &[
        ex(
            "maps call AIzaSyDaGmWKa4JsXZ-HjGw7ISLn_3namBGewQe denied",
            "maps call <TOKEN> denied",
        ),
        ex("client 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 set", "client <TOKEN> set"),
    ],
    negatives: &["AIza is Google's key prefix", "AIzaShort"],
);

vendor!(
    OPENAI_KEY, OPENAI_KEY_RE, "token.openai",
    "An OpenAI API key (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…).",
    keywords: &["sk-"],
    min_run: 23,
    pattern: r"sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,}",
    examples: &[
        ex(
            "openai 401 for sk-proj-abcDEF1234567890ghiJKLmnoPQRstuVWX",
            "openai 401 for <TOKEN>",
        ),
        ex("using sk-1234567890abcdefABCDEF1234567890abcdef", "using <TOKEN>"),
    ],
    negatives: &["task-runner sk-level", "disk-usage-report-generator-daily-job"],
);

vendor!(
    ANTHROPIC_KEY, ANTHROPIC_KEY_RE, "token.anthropic",
    "An Anthropic API or admin key (sk-ant-api03-…, sk-ant-admin01-…).",
    keywords: &["sk-ant-"],
    min_run: 30,
    pattern: r"sk-ant-(?:api|admin|oat|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}",
    examples: &[
        ex(
            "claude call with sk-ant-api03-AbCdEf0123456789_GhIjKlMnOpQrStUvWxYz-AA failed",
            "claude call with <TOKEN> failed",
        ),
        ex("key sk-ant-admin01-abcdefghijklmnopqrstuvwx", "key <TOKEN>"),
    ],
    negatives: &["sk-ant- is the prefix", "sk-ant-api03-short"],
);

vendor!(
    HUGGINGFACE_TOKEN, HUGGINGFACE_TOKEN_RE, "token.huggingface",
    "A Hugging Face access token (hf_…, api_org_…).",
    keywords: &["hf_", "api_org_"],
    min_run: 34,
    pattern: r"hf_[A-Za-z]{34}|api_org_[A-Za-z]{34}",
    examples: &[
        ex("pull model with hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "pull model with <TOKEN>"),
        ex("(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)", "(<TOKEN>)"),
    ],
    negatives: &["hf_transfer enabled", "hf_hub_download"],
);

vendor!(
    PACKAGE_REGISTRY_TOKEN, PACKAGE_REGISTRY_TOKEN_RE, "token.package-registry",
    "A package registry token: npm (npm_…), PyPI (pypi-AgEIcHlwaS5vcmc…), RubyGems (rubygems_…), crates.io (cio…), Docker Hub (dckr_pat_…).",
    keywords: &["npm_", "pypi-ageicHlwaS5vcmc", "rubygems_", "dckr_pat_", "cio"],
    min_run: 25,
    pattern: r"npm_[A-Za-z0-9]{36}|pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}|rubygems_[a-f0-9]{48}|dckr_pat_[A-Za-z0-9_-]{27}|cio[A-Za-z0-9]{32}",
    examples: &[
        ex("publish with npm_abcdefghijklmnopqrstuvwxyz0123456789 ok", "publish with <TOKEN> ok"),
        ex("docker login dckr_pat_abcdefghijklmnopqrstuvwxyz0", "docker login <TOKEN>"),
    ],
    negatives: &["npm_config_cache set", "npm_lifecycle_event=test"],
);

vendor!(
    SAAS_TOKEN, SAAS_TOKEN_RE, "token.saas",
    "A SaaS API token with a fixed prefix: SendGrid (SG.…), Shopify (shpat_…), Atlassian (ATATT3…), Doppler (dp.pt.…), Postman (PMAK-…), Databricks (dapi…), Linear (lin_api_…), Notion (secret_…/ntn_…), Grafana (glc_/glsa_), New Relic (NRAK-…), Sentry (sntrys_…), DigitalOcean (dop_v1_…), Mailgun (key-…).",
    keywords: &["sg.", "shpat_", "shpss_", "shpca_", "shppa_", "atatt3", "dp.pt.", "dp.st.", "pmak-", "dapi", "lin_api_", "ntn_", "glc_", "glsa_", "nrak-", "sntrys_", "dop_v1_", "doo_v1_", "key-"],
    min_run: 20,
    pattern: concat!(
        r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
        r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}",
        r"|ATATT3[A-Za-z0-9_=\-]{100,}",
        r"|dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}",
        r"|PMAK-[a-f0-9]{24}-[a-f0-9]{34}",
        r"|dapi[a-f0-9]{32}(?:-[0-9])?",
        r"|lin_api_[A-Za-z0-9]{40}",
        r"|ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3}",
        r"|glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}",
        r"|NRAK-[A-Z0-9]{27}",
        r"|sntrys_eyJ[A-Za-z0-9+/=_-]{40,}",
        r"|do[op]_v1_[a-f0-9]{64}",
        r"|key-[a-f0-9]{32}",
    ),
    examples: &[
        ex(
            "mail via 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 failed",
            "mail via <TOKEN> failed",
        ),
        ex("shopify shpat_0123456789abcdef0123456789abcdef 403", "shopify <TOKEN> 403"),
    ],
    negatives: &["SG.1 is a section number", "key-value store warmed up"],
);

vendor!(
    JWT, JWT_RE, "token.jwt",
    "A JSON Web Token (three base64url parts, the first starting eyJ).",
    keywords: &["eyj"],
    min_run: 11,
    pattern: r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
    examples: &[
        ex(
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlX2hlcmU expired",
            "jwt <TOKEN> expired",
        ),
        ex("auth eyJhbGciOiJI.eyJzdWIi.sig ok", "auth <TOKEN> ok"),
    ],
    negatives: &["eyJ is base64 for {\"", "eyJhbGciOiJI only"],
);

// ---------------------------------------------------------------------------------------------
// Long random runs: hex with letters and digits, or base64 whose classes keep switching.

static LONG_RUN_RE: LazyLock<Matcher> =
    LazyLock::new(|| Matcher::new(r"[A-Za-z0-9+/_-]{32,}={0,2}").expect("constant regex"));

fn pass_long_tokens(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in LONG_RUN_RE.find_iter(s) {
        // `=` is padding only at the end of the token; before a value (`…secret=<SECRET>`) it is
        // a key's separator, which a second run must still find.
        let mut end = m.end();
        if byte_at(s, end).is_some_and(|b| is_word_byte(b) || b == b'<') {
            end = m.start() + m.as_str().trim_end_matches('=').len();
        }
        if is_token_like(m.as_str())
            && !labelled_as_trace_id(s, m.start())
            && e.replace(m.start(), end, TOKEN)
        {
            *hits += 1;
        }
    }
    e.finish()
}

/// Long hex with letters and digits, or base64-ish text whose character classes keep switching
/// (random data does, `CamelCaseIdentifiers` and `/url/paths` do not).
fn is_token_like(run: &str) -> bool {
    let body = run.trim_end_matches('=');
    if body.len() < 32 {
        return false;
    }
    let b = body.as_bytes();
    let hex = b.iter().all(|x| x.is_ascii_hexdigit());
    let digits = b.iter().any(|x| x.is_ascii_digit());
    let letters = b.iter().any(|x| x.is_ascii_alphabetic());
    if hex {
        return digits && letters;
    }
    let upper = b.iter().any(|x| x.is_ascii_uppercase());
    let lower = b.iter().any(|x| x.is_ascii_lowercase());
    if !(upper && lower && digits) || body.starts_with('/') || body.contains("//") {
        return false;
    }
    let class = |x: u8| {
        if x.is_ascii_uppercase() {
            0
        } else if x.is_ascii_lowercase() {
            1
        } else if x.is_ascii_digit() {
            2
        } else {
            3
        }
    };
    let switches = b.windows(2).filter(|w| class(w[0]) != class(w[1])).count();
    switches * 10 >= body.len() * 4
}

/// Whether the value at `start` follows a trace/span/request id key (kept for correlation).
fn labelled_as_trace_id(s: &str, start: usize) -> bool {
    let before = s[..start].trim_end_matches([' ', '\t', '"', '\'', ':', '=']);
    let key_start = before
        .char_indices()
        .rev()
        .find(|&(_, ch)| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'))
        .map_or(0, |(i, ch)| i + ch.len_utf8());
    // A label that is the tail of a token-like run (`…e670traceId=`) goes with that run, and a
    // second run would see `<TOKEN>=`, no label: it labels nothing in the first either.
    let run_start = before
        .bytes()
        .rposition(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-')))
        .map_or(0, |i| i + 1);
    if is_token_like(&before[run_start..]) {
        return false;
    }
    let key: String = before[key_start..]
        .chars()
        .filter(|ch| ch.is_ascii_alphanumeric())
        .map(|ch| ch.to_ascii_lowercase())
        .collect();
    [
        "traceid",
        "spanid",
        "requestid",
        "reqid",
        "correlationid",
        "traceparent",
    ]
    .iter()
    .any(|k| key.ends_with(k))
}

pub(crate) static LONG_RUN: Rule = Rule {
    id: "token.long-run",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "A run of 32+ hex or base64 bytes that looks random (not a trace/span/request id).",
    keywords: &[],
    gate: |f| f.max_run >= 32,
    pass: pass_long_tokens,
    matchers: &[&LONG_RUN_RE],
    examples: &[
        ex(
            "sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch",
            "sha <TOKEN> mismatch",
        ),
        ex(
            "blob dGhpcyBpcyBhIHNlY3JldCBibG9iIDEyMzQ1Njc4OTA= stored",
            "blob <TOKEN> stored",
        ),
    ],
    negatives: &[
        "traceId=4bf92f3577b34da6a3ce929d0e0e4736 span ok",
        "AbstractSingletonProxyFactoryBeanConfigurationLoader failed",
        "/var/lib/kubelet/pods/volumes/kubernetes.io~configmap",
    ],
};
