//! Token-like values recognised by their shape alone: PEM blocks, vendor tokens with their
//! fixed prefixes (cloud keys, VCS and CI tokens, chat, payment and AI providers), JWTs, and
//! long random runs of hex or base64.
//!
//! A vendor token needs no key in front of it: its prefix is the evidence, and each provider is
//! a rule of its own, gated by that prefix. A long run is redacted only when it looks random
//! (see [`is_token_like`]), so identifiers, paths and words stay.

use std::ops::Range;
use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, always, ex};
use super::super::text::{
    Edit, SECRET, TOKEN, byte_at, byte_before, contains_ci, ends_with_ci, escaped_letter,
    is_placeholder, is_word_byte, next_char, placeholder_after, placeholder_before,
};
use crate::matcher::Matcher;
use crate::redact::prefilter::is_run_byte;

// ---------------------------------------------------------------------------------------------
// PEM blocks: multi-line, so they go first, before any line-oriented rule sees their body.

static PEM_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"-----BEGIN [A-Z0-9 ]{0,40}-----(?s:.*?)(?:-----END [A-Z0-9 ]{0,40}-----|\z)")
        .expect("constant regex")
});

fn pass_pem(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in PEM_RE.find_iter(s) {
        // A block cut short runs to the end of the text; inside a JSON string (escaped line
        // breaks) it ends at the quote that closes the string, which the line needs.
        let end = if m.end() == s.len() && !m.as_str().ends_with("-----") {
            super::stack::escaped_stack_end(s, m.start())
        } else {
            m.end()
        };
        if e.replace(m.start(), end, TOKEN) {
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
    gate: always,
    pass: pass_pem,
    matchers: &[&PEM_RE],
    examples: &[
        ex(
            "key loaded: -----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY----- ok",
            "key loaded: <TOKEN> ok",
        ),
        ex("cert -----BEGIN CERTIFICATE----- MIIB", "cert <TOKEN>"),
        // Cut short inside a JSON line: the block ends where the string does.
        ex(
            r#"{"msg":"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0B","n":1}"#,
            r#"{"msg":"<TOKEN>","n":1}"#,
        ),
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
        let (start, end) = with_dotted_parts(s, m.start(), m.end());
        if before_ok && after_ok && e.replace(start, end, TOKEN) {
            *hits += 1;
            pos = end;
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
        ex("[ASIAY34FZKBOKMUTVV7A] rotated", "[<TOKEN>] rotated"),
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
        // A routable token's suffix after the dot is part of it.
        ex("glpat-Zk3pQ9vX2mL7nB4cR8tY1wE6aaq.l5b574pbp revoked", "<TOKEN> revoked"),
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
    keywords: &["sg.", "shpat_", "shpss_", "shpca_", "shppa_", "atatt3", "dp.", "pmak-", "dapi", "lin_api_", "ntn_", "glc_", "glsa_", "nrak-", "sntrys_", "dop_v1_", "doo_v1_", "key-"],
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

vendor!(
    TELEGRAM_BOT_TOKEN, TELEGRAM_BOT_TOKEN_RE, "token.telegram-bot",
    "A Telegram bot token: the bot id, a colon and 35 base64url bytes starting with A.",
    keywords: &[":a"],
    min_run: 30,
    pattern: r"[0-9]{5,16}:A[A-Za-z0-9_-]{32,35}",
    examples: &[
        ex("bot 4839574813:AAFD39kkdpWt3ywyRZergyOLMaJhac61qcX started", "bot <TOKEN> started"),
        ex("telegram=84269600:Aoibvpgk7k6i5t868cmkdfimw_br4cn-ak5", "telegram=<TOKEN>"),
    ],
    negatives: &["12:Abc", "retry 3:Again later"],
);

vendor!(
    FACEBOOK_APP_TOKEN, FACEBOOK_APP_TOKEN_RE, "token.facebook-app",
    "A Facebook app access token: the app id, a bar (or %7C) and the app secret or client token.",
    keywords: &["|", "%7c"],
    min_run: 27,
    pattern: r"[0-9]{15,16}(?:\||%7[Cc])[0-9A-Za-z_\-]{27,40}",
    examples: &[
        ex("graph call with 1234567890123456|Zx9kQ2mW7vB4nR8tY1pL6sD3fG5 denied", "graph call with <TOKEN> denied"),
        ex("GET /me?fb=123456789012345%7CaB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1g 400", "GET /me?fb=<TOKEN> 400"),
    ],
    negatives: &["order 1234567890123456|shipped", "a|b|c 42"],
);

vendor!(
    AZURE_CLIENT_SECRET, AZURE_CLIENT_SECRET_RE, "token.azure-client-secret",
    "An Azure AD (Entra) client secret: three characters, a digit, Q~ and 31 to 34 more.",
    keywords: &["q~"],
    min_run: 4,
    pattern: r"[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}",
    examples: &[
        ex("client secret aXb7Q~vNbq.EEbM8eQttjiQNV~0C4L2oXrW8wSz rotated", "client secret <TOKEN> rotated"),
        ex("'k3P8Q~J88z2QCkmJI2TW6JH6tJ7aYz7NxWpoiPuj'", "'<TOKEN>'"),
    ],
    negatives: &["Q~ is not a secret", "abc1Q~short"],
);

vendor!(
    MORE_VENDOR_TOKEN, MORE_VENDOR_TOKEN_RE, "token.vendor-prefix",
    "Other provider tokens with a fixed prefix: Vault (hvs., hvb.), DigitalOcean refresh (dor_v1_), GitLab feature flags (glffct-), Sourcegraph (sgp_), Square (sq0atp-, sq0csp-, EAAA), Flutterwave (FLWSECK-, FLWPUBK-), Adobe (p8e-), 42 (s-s4t2…), AWS Bedrock (ABSK…), Cloudflare origin CA (v1.0-…), Mailchimp (…-usN), Mapbox (sk.eyJ), PlanetScale (pscale_), Pulumi (pul-), Doppler, Prefect (pnu_), Readme (rdme_), Shippo, Duffel, Contentful (CFPAT-), Age (AGE-SECRET-KEY-1), Dynatrace (dt0c01.), EasyPost (EZAK), Groq (gsk_), xAI (xai-), Perplexity (pplx-), Replicate (r8_), Google OAuth (ya29., 1//0), NuGet (oy2…), Yandex (t1.…, AQVN), Okta SSWS, the id of an Azure App Configuration credential (…-s0:…).",
    // Mailchimp's key ends in its data centre, `-us` and a digit: `-us` alone is in every
    // `-user`, and opened this rule on one bench message in seventy.
    keywords: &["googleusercontent", "hvs.", "hvb.", "dor_v1_", "glffct-", "sgp_", "sq0atp-", "sq0csp-", "flwseck", "flwpubk", "p8e-", "s-s4t2", "absk", "v1.0-", "-us0", "-us1", "-us2", "-us3", "-us4", "-us5", "-us6", "-us7", "-us8", "-us9", "pscale_", "pul-", "pnu_", "rdme_", "shippo_", "duffel_", "cfpat-", "age-secret-key-1", "dt0c01.", "ezak", "eztk", "gsk_", "xai-", "pplx-", "r8_", "ya29.", "1//0", "oy2", "t1.", "aqvn", "-s0:"],
    min_run: 8,
    pattern: concat!(
        r"hv[sb]\.[A-Za-z0-9_\-]{24,}",
        r"|dor_v1_[a-f0-9]{64}",
        r"|glffct-[A-Za-z0-9_\-]{20}",
        r"|sgp_(?:[a-f0-9]{16}_|local_)?[a-f0-9]{40}",
        r"|[0-9]{6,14}-[a-z0-9]{32}\.apps\.googleusercontent\.com",
        r"|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}",
        r"|FLW(?:SECK|PUBK)_TEST-[a-fA-F0-9]{12,32}(?:-X)?|FLW(?:SECK|PUBK)-[a-fA-F0-9]{12,32}(?:-X)?",
        r"|p8e-[A-Za-z0-9]{32}",
        r"|s-s4t2(?:ud|af)-[a-f0-9]{64}",
        r"|ABSK[A-Za-z0-9+/]{100,}={0,2}",
        r"|v1\.0-[a-f0-9]{24}-[a-f0-9]{146}",
        r"|[0-9a-f]{32}-us[0-9]{1,2}",
        r"|pscale_(?:tkn|oauth|pw)_[A-Za-z0-9=\-_.]{32,64}",
        r"|pul-[a-f0-9]{40}",
        r"|pnu_[A-Za-z0-9]{36}",
        r"|rdme_[a-z0-9]{70}",
        r"|shippo_(?:live|test)_[a-f0-9]{40}",
        r"|duffel_(?:test|live)_[A-Za-z0-9_\-=]{43}",
        r"|CFPAT-[A-Za-z0-9_\-]{43}",
        r"|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}",
        r"|dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}",
        r"|EZ[AT]K[A-Za-z0-9]{54}",
        r"|gsk_[A-Za-z0-9]{52}",
        r"|xai-[A-Za-z0-9]{80}",
        r"|pplx-[A-Za-z0-9]{48}",
        r"|r8_[A-Za-z0-9]{37}",
        r"|ya29\.[A-Za-z0-9_\-]{30,}",
        r"|1//0[A-Za-z0-9_\-]{30,}",
        r"|oy2[a-z0-9]{43}",
        r"|t1\.[A-Z0-9a-z_\-]+={0,2}\.[A-Z0-9a-z_\-]{86}={0,2}",
        r"|AQVN[A-Za-z0-9_\-]{35,38}",
        r"|[A-Za-z0-9]{4}-[A-Za-z][0-9]-s0:[A-Za-z0-9+/]{20}",
    ),
    examples: &[
        ex("vault token hvs.CAESIJ2l3pwyOpsYnoFuTxWNGdPu8Qm7sZFH0z3m now", "vault token <TOKEN> now"),
        ex("MAILCHIMP='a3be61fad37878f768c184632930cf45-us13'", "MAILCHIMP='<TOKEN>'"),
        ex("mailchimp 0123456789abcdef0123456789abcdef-us7 rotated", "mailchimp <TOKEN> rotated"),
        ex("app config id Ab3x-l9-s0:Qw8eRt5yUi2oPa7sDf4g rotated", "app config id <TOKEN> rotated"),
        ex("nuget push pkg.nupkg oy2msfg10cbc2ad6rfymjk12e9b07dvekm62c3qfo973c4", "nuget push pkg.nupkg <TOKEN>"),
    ],
    negatives: &[
        "hvs. is Vault's prefix",
        "v1.0-beta released",
        "order-user-api at us-east-1 rejected checkout-user cart",
    ],
);

/// A Sidekiq Pro/Enterprise gem credential: `hex:hex` after its Bundler key, or as the
/// userinfo of a contribsys.com URL. The pattern holds its keyword, as every gate needs.
static SIDEKIQ_CREDENTIAL_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u:bundle_(?:enterprise|gems)__contribsys__com)[ \t]*[:=][ \t]*['\x22]?([0-9a-f]{8}:[0-9a-f]{8})",
        r"|//([0-9a-f]{8}:[0-9a-f]{8})@(?i-u:gems|enterprise)\.(?i-u:contribsys)\.com",
    ))
    .expect("constant regex")
});

fn pass_sidekiq(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in SIDEKIQ_CREDENTIAL_RE.captures_iter(s) {
        if let Some(v) = caps.get(1).or_else(|| caps.get(2))
            && e.replace(v.start(), v.end(), TOKEN)
        {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static SIDEKIQ_CREDENTIAL: Rule = Rule {
    id: "token.sidekiq",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "A Sidekiq Pro/Enterprise gem credential (hex:hex) for contribsys.com.",
    keywords: &["contribsys"],
    gate: always,
    pass: pass_sidekiq,
    matchers: &[&SIDEKIQ_CREDENTIAL_RE],
    examples: &[
        ex(
            "BUNDLE_ENTERPRISE__CONTRIBSYS__COM: cafebabe:deadbeef",
            "BUNDLE_ENTERPRISE__CONTRIBSYS__COM: <TOKEN>",
        ),
        ex(
            "source https://cafebabe:deadbeef@gems.contribsys.com/",
            "source https://<TOKEN>@<HOST>/",
        ),
    ],
    negatives: &[
        "contribsys gems fetched",
        "ffffffff:ffffffff is no credential",
    ],
};

/// The hash of a password (crypt(3) and its descendants, Kerberos AS-REP/TGS, LDAP `{SSHA}`):
/// as good as the password to anyone who can run a cracker.
static PASSWORD_HASH_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"\$(?:1|2[abxy]?|5|6|7|8|9|y|gy|apr1|md5|sha1|argon2id|argon2i|argon2d|scrypt|pbkdf2(?:-sha256|-sha512)?)\$",
        r"[A-Za-z0-9./+=,$\-]{8,}",
        r"|\$krb5(?:asrep|tgs|pa)\$[^ \t\r\n'\x22]{16,}",
        r"|\{(?i-u:ssha|sha|smd5|md5|crypt|ssha256|ssha512|pbkdf2)\}[A-Za-z0-9+/=.$]{8,}",
    ))
    .expect("constant regex")
});

fn pass_password_hash(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in PASSWORD_HASH_RE.find_iter(s) {
        // A hash has at least two `$`-separated fields after its id (`$2a$12$…`, `$6$salt$…`).
        let text = m.as_str();
        let fields = text.matches('$').count();
        if text.starts_with('$') && fields < 3 && !text.starts_with("$krb5") {
            continue;
        }
        if byte_before(s, m.start()).is_some_and(|b| b.is_ascii_alphanumeric())
            || placeholder_after(s, m.end())
        {
            continue;
        }
        if e.replace(m.start(), m.end(), TOKEN) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PASSWORD_HASH: Rule = Rule {
    id: "token.password-hash",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "A password hash: crypt(3) ($1$, $2a$, $5$, $6$, $y$, $argon2id$, …), Kerberos $krb5asrep$/$krb5tgs$, LDAP {SSHA}.",
    keywords: &[
        "$1$", "$2$", "$2a$", "$2b$", "$2x$", "$2y$", "$5$", "$6$", "$7$", "$8$", "$9$", "$y$",
        "$gy$", "$apr1$", "$md5$", "$sha1$", "$argon2", "$scrypt$", "$pbkdf2", "$krb5", "{ssha",
        "{sha", "{smd5}", "{md5}", "{crypt}", "{pbkdf2}",
    ],
    gate: always,
    pass: pass_password_hash,
    matchers: &[&PASSWORD_HASH_RE],
    examples: &[
        ex(
            "user admin hash $2a$12$5FDZQlr25wy0OiW1ZjoKHtAj1f94udnD8O0w2INYBaITfIdLYZ1jZ set",
            "user admin hash <TOKEN> set",
        ),
        ex(
            "shadow: root:$6$wTT2vNJB$oPC4a7Wk7cRvgm.lN9AJ1bXgJHkC:19000",
            "shadow: root:<TOKEN>:19000",
        ),
    ],
    negatives: &["price $5$ per unit", "costs $1 and $2"],
};

/// The account id inside an AWS ARN (`arn:aws:iam::123456789012:role/x`): the resource name
/// stays, the twelve digits that name the account go.
static ARN_ACCOUNT_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"arn:aws[a-z\-]*:[a-z0-9\-]+:[a-z0-9\-]*:([0-9]{12}):").expect("constant regex")
});

pub(crate) static AWS_ACCOUNT_IN_ARN: Rule = Rule {
    id: "token.aws-account-id",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "The twelve-digit account id inside an AWS ARN; the service and resource stay.",
    keywords: &["arn:aws"],
    gate: |f| f.digit,
    pass: pass_arn_account,
    matchers: &[&ARN_ACCOUNT_RE],
    examples: &[
        ex(
            "AccessDenied on arn:aws:iam::123456789012:role/deploy",
            "AccessDenied on arn:aws:iam::<TOKEN>:role/deploy",
        ),
        ex(
            "arn:aws:kms:us-east-2:610284937152:key/x",
            "arn:aws:kms:us-east-2:<TOKEN>:key/x",
        ),
    ],
    negatives: &[
        "arn:aws:iam::aws:policy/ReadOnlyAccess",
        "arn:aws:sns:us-east-1 topic",
    ],
};

fn pass_arn_account(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in ARN_ACCOUNT_RE.captures_iter(s) {
        if let Some(v) = caps.get(1)
            && e.replace(v.start(), v.end(), TOKEN)
        {
            *hits += 1;
        }
    }
    e.finish()
}

/// Webhook URLs whose path is the credential: Slack, Discord, Microsoft Teams, and the generic
/// `/webhook(s)/<key>` and reset/verify/invite links with a long key in the path.
static WEBHOOK_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/_\-]{8,})",
        r"|discord(?:app)?\.com/api/webhooks/([0-9]{5,}/[A-Za-z0-9_\-]{20,})",
        r"|(?:webhook\.office\.com/webhookb2|outlook\.office(?:365)?\.com/webhook)/([A-Za-z0-9@/_\-]{20,})",
        r"|/(?:webhooks?|hooks?|api/hooks|bot/v2/hook|robot/send)/(?:incoming/)?([A-Za-z0-9_\-]{16,})",
        // IM bots name the key in the query: WeCom's `?key=<uuid>`, DingTalk's `?access_token=`.
        r"|/(?:webhook|robot)/send\?(?:key|access_token)=([A-Za-z0-9_\-]{16,})",
        r"|/(?:reset|reset-password|password-reset|verify|verify-email|confirm|invite|activate|magic-link|unsubscribe|share)/([A-Za-z0-9_\-]{20,})",
    ))
    .expect("constant regex")
});

fn pass_webhook(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in WEBHOOK_RE.captures_iter(s) {
        let Some(v) = (1..=6).find_map(|g| caps.get(g)) else {
            continue;
        };
        // A key: not a plain word (`/hooks/deployment-notifications` is a route).
        let key = v.as_str();
        let word = key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b == b'-' || b == b'_');
        if word || placeholder_after(s, v.end()) {
            continue;
        }
        if e.replace(v.start(), v.end(), TOKEN) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static WEBHOOK_URL: Rule = Rule {
    id: "token.webhook-url",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "The key in the path of a webhook or one-time link: Slack, Discord, Teams, /webhooks/<key>, /reset/<key>.",
    keywords: &[
        "hooks.slack.com",
        "discord",
        "webhook",
        "/hooks/",
        "/reset",
        "/password-reset/",
        "/verify",
        "/confirm/",
        "/invite/",
        "/activate/",
        "/magic-link/",
        "/unsubscribe/",
        "/share/",
        "/hook/",
        "/robot/send",
    ],
    gate: |f| f.max_run >= 8,
    pass: pass_webhook,
    matchers: &[&WEBHOOK_RE],
    examples: &[
        ex(
            "POST https://hooks.slack.com/services/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 200",
            "POST https://<HOST>/services/<TOKEN> 200",
        ),
        ex(
            "discord.com/api/webhooks/1234567890/AbCdEfGhIjKlMnOpQrStUvWxYz_0123 failed",
            "discord.com/api/webhooks/<TOKEN> failed",
        ),
        ex(
            "sent /reset-password/Zk3pQ9vX2mL7nB4cR8tY1wE6 to user",
            "sent /reset-password/<TOKEN> to user",
        ),
        ex(
            "push failed url=/open-apis/bot/v2/hook/3c8f1e2a-9b7d-4c6e-8a5f-1d2e3f4a5b6c code=19021",
            "push failed url=/open-apis/bot/v2/hook/<TOKEN> code=19021",
        ),
        ex(
            "POST /cgi-bin/webhook/send?key=7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d 200",
            "POST /cgi-bin/webhook/send?key=<TOKEN> 200",
        ),
    ],
    negatives: &[
        "GET /hooks/deployment-notifications 200",
        "webhook delivered in 30ms",
    ],
};

// ---------------------------------------------------------------------------------------------
// Long random runs: hex with letters and digits, or base64 whose classes keep switching.

/// What [`long_runs`] finds, as a pattern: the test holds the two to the same matches.
#[cfg(test)]
pub(crate) const LONG_RUN_PATTERN: &str = r"[A-Za-z0-9+/_-]{32,}={0,2}";

/// The matches of [`LONG_RUN_PATTERN`], leftmost-first and greedy as a regex finds them: every
/// maximal run of 32 or more run bytes, with up to two `=` after it. A byte loop, because the
/// rule is open on most long lines and a regex search for a counted repeat cost it about 2.7K
/// instructions a message.
///
/// The loop looks at every 32nd byte only: a run of 32 covers the byte 31 past where it starts,
/// so when that byte is not a run byte, no run long enough starts before it. Where it is one,
/// the run around it is measured both ways. A pod name in a 120-byte line is then about 40
/// bytes looked at instead of 120.
pub(crate) fn long_runs(s: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let bytes = s.as_bytes();
    // Where the search goes on. No run before `at` goes on past it: `at` is 0, or it or the byte
    // before it is not a run byte.
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(&probe) = bytes.get(at + 31) {
            let probe_at = at + 31;
            if !is_run_byte(probe) {
                at = probe_at + 1;
                continue;
            }
            let mut start = probe_at;
            while start > at && is_run_byte(bytes[start - 1]) {
                start -= 1;
            }
            let mut end = probe_at + 1;
            while end < bytes.len() && is_run_byte(bytes[end]) {
                end += 1;
            }
            if end - start < 32 {
                // No run starts inside this one, and the byte at `end` is not a run byte.
                at = end;
                continue;
            }
            let run_end = end;
            while end < bytes.len() && end - run_end < 2 && bytes[end] == b'=' {
                end += 1;
            }
            at = end;
            return Some(start..end);
        }
        None
    })
}

fn pass_long_tokens(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for range in long_runs(s) {
        // Run bytes and `=` are ASCII, so the bounds are character boundaries.
        // In escaped text (`…\te4d2…`) the run starts after the escape's letter.
        let start = range.start + usize::from(escaped_letter(s, range.start));
        let text = &s[start..range.end];
        // `=` is padding only at the end of the token; before a value (`…secret=<SECRET>`) it is
        // a key's separator, which a second run must still find.
        let mut end = range.end;
        if byte_at(s, end).is_some_and(|b| is_word_byte(b) || b == b'<') {
            end = start + text.trim_end_matches('=').len();
        }
        if is_token_like(text) {
            let hex = text.bytes().all(|b| b.is_ascii_hexdigit());
            if hex && !hex_may_grant(s, start) {
                continue;
            }
            if !labelled_as_trace_id(s, start) && !labelled_as_digest(s, start, text) {
                let (start, end) = with_dotted_parts(s, start, end);
                if e.replace(start, end, TOKEN) {
                    *hits += 1;
                }
            }
            continue;
        }
        // A name that carries a token (`app-<64 hex>`, `build_<key>`): the token goes, with
        // the random-looking parts joined to it (`xkeysib-<64 hex>-4bd3xpchfmmn94qk`), and the
        // words stay.
        let mut at = start;
        let mut token: Option<(usize, usize)> = None;
        for seg in name_segments(text) {
            let seg_end = (at + seg.len()).min(end);
            let core = seg.len() >= 32 && is_token_like(seg) && !labelled_as_trace_id(s, at);
            match token {
                Some((from, _)) if core || looks_random(seg) => token = Some((from, seg_end)),
                Some(found) => {
                    replace_token(s, &mut e, found, hits);
                    token = None;
                }
                None if core => {
                    // Random parts just before it go with it.
                    let from = random_parts_before(text, at - start) + start;
                    token = Some((from, seg_end));
                }
                None => {}
            }
            at += seg.len() + 1;
        }
        if let Some(found) = token {
            replace_token(s, &mut e, found, hits);
        }
    }
    e.finish()
}

fn replace_token(s: &str, e: &mut Edit, (start, end): (usize, usize), hits: &mut u32) {
    let (start, end) = with_dotted_parts(s, start, end);
    if e.replace(start, end, TOKEN) {
        *hits += 1;
    }
}

/// Where the random-looking `-`/`_` parts that end just before `at` in `text` begin (`at`
/// itself when there are none).
fn random_parts_before(text: &str, at: usize) -> usize {
    let mut from = at;
    while from > 0 {
        let before = &text[..from - 1];
        let part_start = before.rfind(['-', '_']).map_or(0, |i| i + 1);
        if !looks_random(&before[part_start..]) {
            break;
        }
        from = part_start;
    }
    from
}

/// `start..end`, a token, widened over the random-looking parts joined to it by dots: the
/// routing suffix of a GitLab token (`glpat-….01.l5b574pbp`), the parts of a Mapbox or Dynatrace
/// token around the long one. A word (`.json`, `.example`) or a short part ends it.
fn with_dotted_parts(s: &str, mut start: usize, mut end: usize) -> (usize, usize) {
    let b = s.as_bytes();
    let is_part_byte = |x: u8| x.is_ascii_alphanumeric() || x == b'_' || x == b'-';
    while b.get(end) == Some(&b'.') {
        let part_end = (end + 1..b.len())
            .find(|&i| !is_part_byte(b[i]))
            .unwrap_or(b.len());
        if !looks_random(&s[end + 1..part_end]) {
            break;
        }
        end = part_end;
    }
    while start > 1 && b[start - 1] == b'.' {
        let part_start = (0..start - 1)
            .rev()
            .find(|&i| !is_part_byte(b[i]))
            .map_or(0, |i| i + 1);
        if !looks_random(&s[part_start..start - 1]) {
            break;
        }
        start = part_start;
    }
    (start, end)
}

/// Long hex with letters and digits, or base64-ish text whose character classes keep switching
/// (random data does, `CamelCaseIdentifiers` and `/url/paths` do not), or a run of lower-case
/// letters and digits (or upper-case and digits) that reads as random: few vowels, classes
/// switching often. A run made mostly of words joined by `-` or `_`
/// (`Microsoft-Windows-PlatformUpdate-Package`) is a name, not a token.
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
    if body.starts_with('/')
        || body.contains("//")
        || mostly_words(body)
        || ends_in_uuid(body)
        || is_word_path(body)
    {
        return false;
    }
    let upper = b.iter().any(|x| x.is_ascii_uppercase());
    let lower = b.iter().any(|x| x.is_ascii_lowercase());
    let switches = class_switches(b);
    if upper && lower && digits {
        return switches * 10 >= body.len() * 4;
    }
    // One letter case and digits: random if the classes switch often, vowels are rare and no
    // part of it is a word (`payment-…_default_app-…` is a file name with an id in it).
    digits
        && letters
        && switches * 10 >= body.len() * 3
        && vowel_share(b) < 0.3
        && !has_word_segment(body)
}

/// Whether a `-`/`_`-separated segment is a word: five letters or more, vowels as in words.
fn has_word_segment(body: &str) -> bool {
    name_segments(body).any(|seg| {
        seg.len() >= 5
            && seg.bytes().all(|b| b.is_ascii_alphabetic())
            && vowel_share(seg.as_bytes()) >= 0.28
    })
}

fn class_switches(b: &[u8]) -> usize {
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
    b.windows(2).filter(|w| class(w[0]) != class(w[1])).count()
}

/// The share of vowels among the letters (English text about 0.38, random letters about 0.19).
fn vowel_share(b: &[u8]) -> f64 {
    let letters = b.iter().filter(|x| x.is_ascii_alphabetic()).count();
    let vowels = b
        .iter()
        .filter(|x| matches!(x.to_ascii_lowercase(), b'a' | b'e' | b'i' | b'o' | b'u'))
        .count();
    if letters == 0 {
        return 1.0;
    }
    vowels as f64 / letters as f64
}

/// Whether the run is a UUID, or a prefixed one (`req-3ea4052c-895d-…`): ids the agent
/// correlates on, never credentials (see the module documentation of `redact`).
fn ends_in_uuid(body: &str) -> bool {
    let segs: Vec<&str> = body.rsplitn(6, '-').collect();
    let hex = |seg: &str| seg.bytes().all(|b| b.is_ascii_hexdigit());
    // The first group may follow a label and a `/` (`key/7c1e90ab-…`).
    let first = segs.get(4).is_some_and(|seg| {
        seg.len() >= 8
            && hex(&seg[seg.len() - 8..])
            && (seg.len() == 8 || seg.as_bytes()[seg.len() - 9] == b'/')
    });
    first
        && [12, 4, 4, 4]
            .iter()
            .zip(&segs)
            .all(|(&n, seg)| seg.len() == n && hex(seg))
}

/// Whether a run is a relative path with two or more words among its parts
/// (`xbs/Sources/CoreMedia/CoreMedia-1731`): random base64 has a `/` too, but not words.
fn is_word_path(body: &str) -> bool {
    memchr::memchr(b'/', body.as_bytes()).is_some()
        && body
            .split('/')
            .filter(|seg| {
                seg.len() >= 5
                    && seg.bytes().all(|b| b.is_ascii_alphabetic())
                    && vowel_share(seg.as_bytes()) >= 0.25
            })
            .count()
            >= 2
}

/// Whether `-`/`_`-joined segments are mostly words: letters only, three or more, a vowel.
fn mostly_words(body: &str) -> bool {
    let (mut segs, mut words, mut short) = (0usize, 0usize, true);
    for seg in name_segments(body).filter(|s| !s.is_empty()) {
        segs += 1;
        words += usize::from(
            seg.len() >= 3
                && seg.bytes().all(|b| b.is_ascii_alphabetic())
                && vowel_share(seg.as_bytes()) >= 0.2,
        );
        short &= seg.len() <= 12 && !looks_random(seg);
    }
    // Or many short parts, none random, words among them: a file or package name
    // (`OpenJDK17U-jdk_x64_linux_hotspot_17`), not a key.
    (segs >= 3 && words * 10 >= segs * 6) || (segs >= 5 && short && words >= 2)
}

/// The parts of `s` between its `-` and `_`, as `s.split(['-', '_'])` gives them, found with
/// `memchr2` instead of a character at a time: the long-run rule splits every run it looks at.
pub(crate) fn name_segments(s: &str) -> impl Iterator<Item = &str> {
    let mut from = 0;
    let mut cuts = memchr::memchr2_iter(b'-', b'_', s.as_bytes());
    std::iter::from_fn(move || {
        let start = from;
        if start > s.len() {
            return None;
        }
        // Both separators are ASCII, so every cut is a character boundary.
        let end = cuts.next().unwrap_or(s.len());
        from = end + 1;
        Some(&s[start..end])
    })
}

/// Whether a short value (a user name, an id) looks like a generated key rather than a name:
/// eight or more letters and digits, hex, or with few vowels and switching classes.
pub(crate) fn looks_random(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || !b.iter().all(|x| x.is_ascii_alphanumeric()) {
        return false;
    }
    let digits = b.iter().any(|x| x.is_ascii_digit());
    let letters = b.iter().any(|x| x.is_ascii_alphabetic());
    if !(digits && letters) {
        return false;
    }
    b.iter().all(|x| x.is_ascii_hexdigit()) || (class_switches(b) >= 2 && vowel_share(b) < 0.3)
}

/// Whether `run`, at `start`, is hex named as a content digest: after its algorithm and a colon
/// (`sha256:9f86…`, an image's `@sha256:…`), or after a digest, checksum or commit key
/// (`commit 3f2a…`, `checksum=…`). A digest names public content; it opens nothing.
fn labelled_as_digest(s: &str, start: usize, run: &str) -> bool {
    let before = &s[..start];
    // OpenSSH's fingerprint: `SHA256:` and 43 base64 bytes.
    if run.len() == 43
        && (before.ends_with("SHA256:") || before.ends_with("sha256:"))
        && run
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
    {
        return true;
    }
    // A subresource-integrity value: `sha512-` and the digest's base64.
    if ["sha256-", "sha384-", "sha512-"]
        .iter()
        .any(|p| run.starts_with(p))
    {
        return true;
    }
    // A storage device's world-wide name: `naa.600508b1…`, `eui.0025388…`, `wwn-0x5000…`.
    if ["naa.", "eui.", "wwn-0x"]
        .iter()
        .any(|p| ends_with_ci(before, p))
    {
        return true;
    }
    if !run.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    let digest_length = [32, 40, 56, 64, 96, 128].contains(&run.len());
    // A checksum tool's line: the digest, two blanks (or ` *`) and the file's name.
    let line_start = before.is_empty() || before.ends_with('\n') || before.ends_with("\\n");
    if digest_length
        && line_start
        && (s[start + run.len()..].starts_with("  ") || s[start + run.len()..].starts_with(" *"))
    {
        return true;
    }
    let word = |text: &str| {
        let from = text
            .bytes()
            .rposition(|b| !b.is_ascii_alphanumeric())
            .map_or(0, |i| i + 1);
        text[from + usize::from(escaped_letter(text, from))..].to_ascii_lowercase()
    };
    if let Some(head) = before.strip_suffix(':')
        && digest_length
    {
        let algorithm = word(head);
        if [
            "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "blake2b", "blake3",
        ]
        .contains(&algorithm.as_str())
        {
            return true;
        }
    }
    let head = before.trim_end_matches([' ', '\t', '"', '\'', ':', '=', '\\']);
    // A fingerprint named by its algorithm and a blank: `leaf SHA-256 9f2c…`.
    if [
        "sha-1", "sha-256", "sha-384", "sha-512", "sha1", "sha256", "md5",
    ]
    .iter()
    .any(|a| ends_with_ci(head, a))
        && digest_length
    {
        return true;
    }
    let key = word(head);
    // A public key's fingerprint: `fingerprint=…`, gpg's `using RSA key …`.
    let key_kind = key == "key"
        && [
            "rsa", "dsa", "ecdsa", "eddsa", "ed25519", "pgp", "gpg", "public", "signing",
        ]
        .contains(&word(head[..head.len() - 3].trim_end()).as_str());
    key_kind
        || [
            "digest",
            "checksum",
            "commit",
            "revision",
            "serial",
            "md5",
            "sha1",
            "sha224",
            "sha256",
            "sha384",
            "sha512",
            "blake2b",
            "blake3",
            "sha1sum",
            "sha256sum",
            "md5sum",
            "fingerprint",
            // An HTTP entity tag and a transparency log's entry id name content too.
            "etag",
            "uuid",
        ]
        .contains(&key.as_str())
}

/// Words that, among the last few before a hex run, say it may open something: a credential's
/// (`session`, `sig`, `auth_token`, `X-Amz-Signature`, `JSESSIONID`) or a workload's, whose
/// container and task ids are as much an identity as its name (`container died`, `docker_id`).
/// A word matches when it is one of these or ends in one (`authtoken`, `apikey`).
const HEX_GRANT_WORDS: [&str; 38] = [
    "token",
    "session",
    "sess",
    "sid",
    "sig",
    "signature",
    "sign",
    "nonce",
    "auth",
    "cookie",
    "csrf",
    "xsrf",
    "otp",
    "hmac",
    "secret",
    "password",
    "passwd",
    "pass",
    "pwd",
    "key",
    "ticket",
    "bearer",
    "credential",
    "credentials",
    "cred",
    "creds",
    "login",
    "response",
    "psk",
    "license",
    "container",
    "sandbox",
    "docker",
    "shim",
    "task",
    "pod",
    "instance",
    "cid",
];

/// Whether the hex run at `start` may grant access or name a workload, so that it goes.
/// Long hex is a token unless the words before it say it is an id or a digest: one of
/// [`HEX_ID_WORDS`] among the three words before it (`commit 3f2a…`, `"event_id":"7a1b…"`,
/// `sha256 …`), and no word of [`HEX_GRANT_WORDS`] among the eight before it (split at case
/// changes too; a word may be a plural, and a grant word of five letters or more may sit
/// inside a longer one, as `token` in `wowzatokenhash`). Some places grant whatever the words:
/// a step of a URL's path or a query parameter (capability links), an environment variable,
/// a run alone on its line (a banner prints a generated key under its words), and text
/// written in hex (auditd's `proctitle=`), which may say anything.
fn hex_may_grant(s: &str, start: usize) -> bool {
    let line = &s[super::super::text::line_start(s, start)..start];
    // A run alone on its line is what a banner prints under its words (`use the following
    // password:`), which a line read on its own does not see.
    let after = &s[start..];
    let run_len = after.bytes().take_while(u8::is_ascii_hexdigit).count();
    let rest = &after[run_len..];
    if is_hex_text(&after[..run_len]) {
        return true;
    }
    if line.trim().is_empty()
        && (rest.trim_start_matches([' ', '\t', '\r']).is_empty()
            || rest.starts_with('\n')
            || rest.starts_with("\\n"))
    {
        return true;
    }
    // An environment variable holds configuration, and random hex there is a key whatever the
    // variable's name (`CC_TEST_REPORTER_ID=…`), unless the name says digest (`GIT_COMMIT`).
    let key = line.trim_end_matches([' ', '\t', '"', '\'', ':', '=']);
    let key = &key[key
        .bytes()
        .rposition(|c| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'_'))
        .map_or(0, |i| i + 1)..];
    if key.len() < line.len()
        && key.contains('_')
        && key.starts_with(|c: char| c.is_ascii_uppercase())
        && ![
            "COMMIT", "SHA", "HASH", "DIGEST", "CHECKSUM", "REVISION", "REV", "SUM",
        ]
        .iter()
        .any(|w| key.rsplit('_').next() == Some(w) || key.starts_with(&format!("{w}_")))
    {
        return true;
    }
    if let Some(path) = line.strip_suffix('/') {
        let step = path.rsplit('/').next().unwrap_or("");
        // A commit's or a tree's page names public content.
        return ![
            "commit", "commits", "blob", "tree", "raw", "compare", "objects",
        ]
        .iter()
        .any(|w| step.eq_ignore_ascii_case(w));
    }
    // A URL's query parameter (`?k=…`, `&t=…`) is how capability links pass their keys,
    // unless its name says digest or correlation (`sha=`, `hash=`, `trace_id=`).
    if let Some(name) = line.strip_suffix('=')
        && let Some(at) = name.rfind(['?', '&'])
        && name[..at].contains("://")
    {
        let name = &name[at + 1..];
        return ![
            "sha", "hash", "digest", "checksum", "etag", "commit", "rev", "trace", "span",
            "request",
        ]
        .iter()
        .any(|w| contains_ci(name, w));
    }
    // The words may stand on the lines before (a banner's `use the following password:`).
    let line = &s[..start];
    let mut words = 0;
    let mut named_id = false;
    let mut words_only = true;
    let b = line.as_bytes();
    let mut end = b.len();
    while words < 8 && end > 0 {
        // The word ending at `end`: letters and digits, cut where a small letter meets a capital.
        while end > 0 && !b[end - 1].is_ascii_alphanumeric() {
            end -= 1;
        }
        if end == 0 {
            break;
        }
        let mut from = end - 1;
        while from > 0
            && b[from - 1].is_ascii_alphanumeric()
            && !(b[from - 1].is_ascii_lowercase() && b[from].is_ascii_uppercase())
        {
            from -= 1;
        }
        let word = &line[from..end];
        // The letter of an escape (`\n`) is no word.
        if escaped_letter(line, from) && end - from == 1 {
            end = from - 1;
            continue;
        }
        let singular = word.strip_suffix(['s', 'S']).unwrap_or(word);
        if HEX_GRANT_WORDS.iter().any(|w| {
            ends_with_ci(word, w)
                || ends_with_ci(singular, w)
                || (w.len() >= 5 && contains_ci(word, w))
        }) {
            return true;
        }
        let id_word = HEX_ID_WORDS
            .iter()
            .any(|w| word.eq_ignore_ascii_case(w) || singular.eq_ignore_ascii_case(w));
        if words < 3 && id_word && words_only {
            named_id = true;
        }
        // A value between them names no id of this run (`where id = 10000 <hex>`), nor does
        // a placeholder that stands for one (`id = <NUM> <hex>`).
        let placeholder = from > 0 && b[from - 1] == b'<' && b.get(end) == Some(&b'>');
        if placeholder || (!id_word && word.bytes().any(|b| b.is_ascii_digit())) {
            words_only = false;
        }
        words += 1;
        end = from;
    }
    !named_id
}

/// Words that name a hex run an id or a digest: what the agent correlates on and cites.
const HEX_ID_WORDS: [&str; 49] = [
    "job",
    "run",
    "query",
    "execution",
    "pipeline",
    "id",
    "uuid",
    "guid",
    "oid",
    "commit",
    "sha",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "hash",
    "digest",
    "checksum",
    "sum",
    "rev",
    "revision",
    "trace",
    "traceid",
    "span",
    "spanid",
    "request",
    "req",
    "correlation",
    "event",
    "etag",
    "fingerprint",
    "build",
    "object",
    "cursor",
    "boot",
    "ref",
    "head",
    "tree",
    "blob",
    "merge",
    "parent",
    "image",
    "layer",
    "manifest",
    "chunk",
    "block",
    "snapshot",
    "txid",
    "transaction",
];

/// Whether a hex run is text written in hex: 16 digits or more, a letter among them, an even
/// count, and every byte it spells printable ASCII, a tab, a line break or a NUL (auditd
/// separates arguments with NULs). A digest spells such bytes by chance once in thousands.
fn is_hex_text(run: &str) -> bool {
    let b = run.as_bytes();
    let nibble = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
    b.len() >= 16
        && b.len().is_multiple_of(2)
        && b.iter().any(u8::is_ascii_alphabetic)
        && b.chunks(2).all(|p| {
            let byte = nibble(p[0]) << 4 | nibble(p[1]);
            (0x20..0x7f).contains(&byte) || matches!(byte, 0 | b'\t' | b'\n' | b'\r')
        })
}

/// Whether the value at `start` follows a trace/span/request id key (kept for correlation).
fn labelled_as_trace_id(s: &str, start: usize) -> bool {
    let before = s[..start].trim_end_matches([' ', '\t', '"', '\'', ':', '=', '\\']);
    let key_start = before
        .char_indices()
        .rev()
        .find(|&(_, ch)| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'))
        .map_or(0, |(i, ch)| i + ch.len_utf8());
    let key_start = key_start + usize::from(escaped_letter(before, key_start));
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
    matchers: &[],
    examples: &[
        ex(
            "session 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 expired",
            "session <TOKEN> expired",
        ),
        // Hex where a credential or a workload's id stands: after its words, in a URL's path.
        ex(
            "login ok, sess 4f1c0b9e2a7d4c6e8a5f1d2e3f4a5b6c; CC_TEST_REPORTER_ID: 945dfb58a832d233a3caeb84e3e6d3be",
            "login ok, sess <TOKEN>; CC_TEST_REPORTER_ID: <TOKEN>",
        ),
        ex(
            "GET /share/3b9f0e4c2d91a6e5f3b7c0d8e2a4f6b1 200 and container died 9e3b8f0c21a9d4f7e6b5c3a2d1f0e9b8c7d6a5f4e3b2c1d0f9e8a7b6c5d4e3f2",
            "GET /share/<TOKEN> 200 and container died <TOKEN>",
        ),
        // Hex that spells text may say anything; a grant word may be a plural or inside a key.
        ex(
            "type=PROCTITLE msg=audit(1700000000.5:91): proctitle=2F7573722F62696E2F656E7600707974686F6E330073796E632E7079",
            "type=PROCTITLE msg=audit(1700000000.5:91): proctitle=<TOKEN>",
        ),
        ex(
            "revoked cookies 5d41402abc4b2a76b9719d911017c592 and playtokenhash=7215ee9c7d9dc229d2921a40e899ec5f",
            "revoked cookies <TOKEN> and playtokenhash=<TOKEN>",
        ),
        // An id word names the value right after it, not a run after that value.
        ex(
            "job 4412 5d41402abc4b2a76b9719d911017c592 done",
            "job 4412 <TOKEN> done",
        ),
        ex(
            "GET https://dl.fotoloop.com/f?k=5d41402abc4b2a76b9719d911017c592&sha=7215ee9c7d9dc229d2921a40e899ec5f",
            "GET https://<HOST>/f?k=<TOKEN>&sha=7215ee9c7d9dc229d2921a40e899ec5f",
        ),
        ex(
            "blob dGhpcyBpcyBhIHNlY3JldCBibG9iIDEyMzQ1Njc4OTA= stored",
            "blob <TOKEN> stored",
        ),
        // Random parts joined to the long one by `.`, `-` or `_` are the same token.
        ex(
            "pk.eyJ1IjoiYWJjIiwiYSI6ImNrZ2IxMjM0NTY3ODkwMTIzNDU2Nzg5MCJ9.k37vuioyn8bmfntw1s0t6t",
            "pk.<TOKEN>",
        ),
        ex(
            "key 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 set",
            "key xkeysib-<TOKEN> set",
        ),
    ],
    negatives: &[
        "at /Library/Caches/com.acme.xbs/Sources/MediaKit/MediaKit-1731.15.207/Player.c line 23",
        "traceId=4bf92f3577b34da6a3ce929d0e0e4736 span ok",
        "pulled app@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        "commit 3f2a9c1d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c merged",
        // Hex with no credential's or workload's word before it is an id or a digest.
        "sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 mismatch",
        "{\"event_id\":\"7a1b2c3d4e5f4a6b8c7d9e0f1a2b3c4d\",\"customer_id\":\"c0ffee42d00d4b1e9a7c5e3f1b2d4a6c\"}",
        "_BOOT_ID=4c1e2a9b7d3f4e6a8b0c2d4e6f8a0b1c see github.com/acme/app/commit/3f2a9c1d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c",
        "3b9f0e4c2d91a6e5f3b7c0d8e2a4f6b1c9d3e5a7f0b2c4d6e8a1f3b5c7d9e0a1  release-2.4.1.tar.gz",
        "verified sha256=9e3b8f0c21a9d4f7e6b5c3a2d1f0e9b8c7d6a5f4e3b2c1d0f9e8a7b6c5d4e3f2",
        "serial=033AF1E6A711A9A0BB2864B11D09FAE5 and naa.600508b1001c4d2e3f4a5b6c7d8e9f00",
        // An entity tag, an integrity hash and a log entry's id name public content.
        "304 ETag: \"9b2cf535f27731c974343645a3985328c0ffee42\" cached",
        "\"integrity\": \"sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC\"",
        "entry uuid: 3f2a9c1d4e5b6a7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d index: 12",
        "256 SHA256:Qx7vL2mN8kR4tYb1ZcW7pEoA5sHj3dFgUi6nKxQe0Tw ops@ci (ED25519)",
        "gpg: using RSA key 5F0C2E8A91B34D7766A1C0DE9B2F4A7C3D8E1F06",
        "fetched OpenJDK21U-jre_aarch64_linux_hotspot_21.0.3_9.tar.gz",
        "[instance: b9000564-fe1a-409b-b8cc-1e88b294cd1d] VM Started",
        "[req-3ea4052c-895d-4b64-9e2d-04d64c4d94ab - -] ok",
        "AbstractSingletonProxyFactoryBeanConfigurationLoader failed",
        "/var/lib/kubelet/pods/volumes/kubernetes.io~configmap",
    ],
};

// ---------------------------------------------------------------------------------------------
// Values that look random or hand-made with no key to name them.

/// The words of `s` as a value stands between blanks: every maximal run of bytes that are not
/// blank, with the quotes and brackets around it and the punctuation that ends a sentence
/// after it taken off.
fn bare_words(s: &str) -> impl Iterator<Item = (usize, &str)> + '_ {
    let b = s.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < b.len() && b[at].is_ascii_whitespace() {
            at += 1;
        }
        if at >= b.len() {
            return None;
        }
        let start = at;
        while at < b.len() && !b[at].is_ascii_whitespace() {
            at += 1;
        }
        let word = &s[start..at];
        let lead = word.len()
            - word
                .trim_start_matches(['"', '\'', '(', '[', '{', '<', '«', '`'])
                .len();
        let body = word[lead..]
            .trim_end_matches(['"', '\'', ')', ']', '}', '>', '»', '`', ',', ';', '.', ':']);
        Some((start + lead, body))
    })
}

/// The symbols hand-made passwords mix in (`@`, `$`, `-`, `_`, `.`, `:`, `~` and `/` name
/// hosts, inner classes, paths, packages and words too, so they do not count).
fn is_password_symbol(b: u8) -> bool {
    matches!(b, b'!' | b'#' | b'%' | b'^' | b'&' | b'*' | b'?' | b'+')
}

/// Whether `w` is shaped like a hand-made password: 8 to 40 bytes of letters, digits and
/// symbols, with a digit, two letters and a password symbol inside, and none of the shapes that
/// also mix them: a path, a URL, an address, a reference (`$HOME`, `%APPDATA%`), an assignment or
/// query (`a=1&b=2`), percent-encoding, a version (`2.8.1+build.77`), a placeholder.
fn is_password_shaped(w: &str) -> bool {
    let b = w.as_bytes();
    if !(8..=40).contains(&b.len()) || !b.iter().all(|x| x.is_ascii_graphic()) {
        return false;
    }
    let letters = b.iter().filter(|x| x.is_ascii_alphabetic()).count();
    let digit = b.iter().any(u8::is_ascii_digit);
    // A symbol inside the word, not only closing it (`Done!!`, `item#`).
    let symbol = b[..b.len() - 1].iter().any(|&x| is_password_symbol(x));
    if letters < 2 || !digit || !symbol {
        return false;
    }
    let percent_encoded = b
        .windows(3)
        .any(|x| x[0] == b'%' && x[1].is_ascii_hexdigit() && x[2].is_ascii_hexdigit());
    let digits_first = b
        .iter()
        .position(|x| !x.is_ascii_digit())
        .unwrap_or(b.len());
    let version = (digits_first > 0 && b.get(digits_first) == Some(&b'.'))
        || (b[0] == b'v' && b.get(1).is_some_and(u8::is_ascii_digit));
    // A name and its number after `#` is a numbered thing (`pid#4412`, `order#10023`).
    let numbered = w.split_once('#').is_some_and(|(name, n)| {
        !name.is_empty()
            && name.bytes().all(|x| x.is_ascii_alphabetic() || x == b'_')
            && !n.is_empty()
            && n.bytes().all(|x| x.is_ascii_digit())
    });
    !(w.contains("://")
        || b.iter().any(|&x| {
            matches!(
                x,
                b'/' | b'\\'
                    | b'<'
                    | b'>'
                    | b'='
                    | b'('
                    | b')'
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'"'
                    | b'\''
                    | b','
            )
        })
        || w.starts_with(['$', '%', '#', '&', '*', '+', '~', '?', '!'])
        || percent_encoded
        || version
        || numbered
        || w.contains("++")
        || w.contains("&&")
        || b.iter().filter(|&&x| x == b':').count() >= 2)
}

fn pass_password_shape(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for (start, w) in bare_words(s) {
        if is_password_shaped(w) && !is_placeholder(w) && e.replace(start, start + w.len(), SECRET)
        {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static PASSWORD_SHAPE: Rule = Rule {
    id: "secret.password-shape",
    class: RedactionClass::Secret,
    placeholder: SECRET,
    description: "A word shaped like a hand-made password with no key to name it: 8 to 40 bytes mixing letters, a digit and a symbol such as ! # % ^ & * ? +, that is no path, URL, reference, query, version or encoding.",
    keywords: &["!", "#", "%", "^", "&", "*", "?", "+"],
    gate: |f| f.digit,
    pass: pass_password_shape,
    matchers: &[],
    examples: &[
        ex(
            "sapcontrol -nr 00 -user s4hadm Qu4rtz!Mole9 -function Stop",
            "sapcontrol -nr 00 -user s4hadm <SECRET> -function Stop",
        ),
        ex(
            "new password set: 7y^Kestrel-3",
            "new password set: <SECRET>",
        ),
    ],
    negatives: &[
        "C++17 build of libfoo 2.8.1+build.77 done",
        "GET /search?q=a%20b&page=2 200",
        "echo $HOME2 && ls",
        "Done!!! 42 files in 3s",
        "issue #4412 closed, see PR #77",
        "order#10023 paid by user#77",
        "x+1 > y*2 in step 3",
    ],
};

/// Whether `run`, letters and digits only, reads as random: 16 to 31 bytes with capitals,
/// small letters and digits, the classes switching at least every third byte, and few vowels
/// (base62 keys do; `Log4jContextSelector` and other names do not).
///
/// An id of small letters and digits alone (Docker Swarm's task ids, base36 keys) reads as
/// random at 20 bytes or more when a letter beyond `f` says it is no hex digest, a quarter of it
/// is digits and the classes switch at least every other byte.
fn is_random_run(run: &str) -> bool {
    let b = run.as_bytes();
    let digits = b.iter().filter(|x| x.is_ascii_digit()).count();
    let mixed_case = (16..=31).contains(&b.len())
        && b.iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_lowercase)
        && digits >= 2
        && class_switches(b) * 3 >= b.len()
        && vowel_share(b) < 0.25;
    let base36 = (20..=31).contains(&b.len())
        && b.iter()
            .all(|x| x.is_ascii_lowercase() || x.is_ascii_digit())
        && b.iter().any(|x| (b'g'..=b'z').contains(x))
        && digits * 4 >= b.len()
        && class_switches(b) * 2 >= b.len()
        && vowel_share(b) < 0.2;
    mixed_case || base36
}

fn pass_random_run(s: &str, hits: &mut u32) -> Option<String> {
    let b = s.as_bytes();
    let mut e = Edit::new(s);
    let mut at = 0;
    while at < b.len() {
        if !b[at].is_ascii_alphanumeric() {
            at += 1;
            continue;
        }
        let start = at;
        while at < b.len() && b[at].is_ascii_alphanumeric() {
            at += 1;
        }
        let run = &s[start..at];
        // A run of its own: not a part of a longer token, a name or a path's word.
        let joined =
            |x: Option<u8>| x.is_some_and(|x| matches!(x, b'_' | b'-' | b'.' | b'+' | b'/' | b'='));
        if !joined(byte_before(s, start))
            && !joined(byte_at(s, at))
            && is_random_run(run)
            && !labelled_as_trace_id(s, start)
            && !labelled_as_digest(s, start, run)
            && e.replace(start, at, TOKEN)
        {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static RANDOM_RUN: Rule = Rule {
    id: "token.random-run",
    class: RedactionClass::Token,
    placeholder: TOKEN,
    description: "A run of 16 to 31 letters and digits that reads as random (capitals, small letters and digits switching, few vowels; or 20 or more small letters and digits, no hex), with no key to name it.",
    keywords: &[],
    gate: |f| f.digit && f.max_run >= 16,
    pass: pass_random_run,
    matchers: &[],
    examples: &[
        ex(
            "token_accessor  Qm7Xp2Lk9Vb4Tz8Rw1Ny revoked",
            "token_accessor  <TOKEN> revoked",
        ),
        ex(
            "invite code Zx8Kq2Wm7Rt4Yb9Np3 sent",
            "invite code <TOKEN> sent",
        ),
        ex(
            "task q7v2k9x4m1t8z3b6r0n5w2j8p failed",
            "task <TOKEN> failed",
        ),
    ],
    negatives: &[
        "Log4jContextSelector set to AsyncLoggerContextSelector",
        "traceId=4bf92f3577b34da6a3ce929d0e0e4736 ok",
        "HTTP2ServerConnectionHandler started",
        "build 20261203T142207Z",
        "loaded log4j2configurationfile and utf8mb4unicode520ci",
        "short sha 3f2a9c1d4e5b6a7c8d9e0f1a2b3c merged",
    ],
};
