//! Network identities: e-mail addresses, host names, IPv4 and IPv6 addresses. Ports stay
//! (`<IP>:6379`): a port says which service failed and reveals nothing.
//!
//! A host name must end in a public suffix the rules know (every generic TLD in common use, the
//! internal suffixes `.internal`, `.svc`, `.local`, …), or have three labels or more under a
//! country code (`ahn.zaq.ne.jp`, `x.tiscali.co.uk`), so `com.foo.Bar`, `Bar.java`,
//! `order.created` and `spring.redis.host` stay. Node names that spell an address or a cloud
//! pool (`ip-10-0-0-1`, `gke-…-pool-…`, `aks-…-vmss…`) and the syslog header's host field are
//! hosts too.

use std::sync::LazyLock;

use super::super::RedactionClass;
use super::super::rule::{Rule, always, ex};
use super::super::text::{
    EMAIL, Edit, HOST, IP, apply_spans, byte_at, byte_before, ends_with_ci, escaped_letter,
    is_word_byte, line_start, next_char, placeholder_after, placeholder_before,
};
use crate::matcher::Matcher;

// ---------------------------------------------------------------------------------------------
// E-mail addresses.

static EMAIL_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?",
        r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}"
    ))
    .expect("constant regex")
});

fn pass_email(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in EMAIL_RE.find_iter(s) {
        // `a@b.internal9f86…` is not an address ending at `internal`.
        let after_ok = !byte_at(s, m.end()).is_some_and(|b| is_word_byte(b) || b == b'-')
            && !placeholder_after(s, m.end());
        if after_ok && e.replace(m.start(), m.end(), EMAIL) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static EMAIL_ADDRESS: Rule = Rule {
    id: "email.address",
    class: RedactionClass::Email,
    placeholder: EMAIL,
    description: "An e-mail address.",
    keywords: &[],
    gate: |f| f.at_sign,
    pass: pass_email,
    matchers: &[&EMAIL_RE],
    examples: &[
        ex(
            "reset sent to alice.w+shop@example.co.uk",
            "reset sent to <EMAIL>",
        ),
        ex("from=<ops@corp.example.com> ok", "from=<<EMAIL>> ok"),
    ],
    negatives: &["@here deploy done", "user@localhost"],
};

// ---------------------------------------------------------------------------------------------
// Host names.

/// Whether a host candidate stands apart: not inside a longer name, path or placeholder.
fn host_apart(s: &str, start: usize, end: usize) -> bool {
    let before_ok = !byte_before(s, start)
        .is_some_and(|b| is_word_byte(b) || b == b'-' || b == b'.')
        && !placeholder_before(s, start);
    let after_ok = match byte_at(s, end) {
        Some(b) if is_word_byte(b) || b == b'-' => false,
        Some(b'.') => {
            !byte_at(s, end + 1).is_some_and(is_word_byte) && !placeholder_after(s, end + 1)
        }
        _ => !placeholder_after(s, end),
    };
    // In escaped text (`…\tghcr.io/app`) the name starts after the escape's letter.
    let name = &s[start + usize::from(escaped_letter(s, start))..end];
    before_ok
        && after_ok
        && !is_public_host(name)
        && (!is_registered_domain(name) || names_endpoint(s, start, end))
        && !is_package_name(name)
        && !(in_path(s, start) && name.split('.').count() == 2 && !is_internal_name(name))
        && !is_facility_level(name)
        && (!names_public_content(s, start) || is_internal_name(name))
}

/// Whether a name is a domain as a registry sells it, with no machine's label before it: a
/// name and a generic TLD (`fotoloop.com`), or a name under a country's second level
/// (`nordwind.co.uk`). It names an organisation and its public site, not a machine behind the
/// boundary (`db01.fotoloop.com` is one); a name that says it is internal (`nas.lan`,
/// `corp.local`) stays a host.
fn is_registered_domain(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    let labels: Vec<&str> = name.split('.').collect();
    let public_tld = |tld: &str| {
        (tld.len() == 2 && tld.bytes().all(|b| b.is_ascii_alphabetic()))
            || PUBLIC_TLDS.iter().any(|t| tld.eq_ignore_ascii_case(t))
    };
    let registered = match labels[..] {
        [name, tld] => !name.is_empty() && public_tld(tld),
        [_, sld, cc] => cc.len() == 2 && COUNTRY_SLDS.iter().any(|x| sld.eq_ignore_ascii_case(x)),
        _ => false,
    };
    registered && !is_internal_name(name)
}

/// Whether the name at `start..end` is a service's endpoint rather than a site: a port after
/// it (`acme.com:5432`) or a login before it (`deploy@acme.com:`), as a machine is addressed.
fn names_endpoint(s: &str, start: usize, end: usize) -> bool {
    let b = s.as_bytes();
    // In the authority of a URL of another scheme than the web's (`mongodb://u:p@a.com,b.com`,
    // `LDAP://EXAMPLE.COM`): the machine a client connects to.
    let word_start = s[..start]
        .rfind(|c: char| c.is_whitespace() || c == '"' || c == '\'')
        .map_or(0, |i| i + 1);
    let in_other_url = s[word_start..start]
        .find("://")
        .is_some_and(|i| !is_web_url(s, word_start + i + 3));
    in_other_url
        || (b.get(end) == Some(&b':') && b.get(end + 1).is_some_and(u8::is_ascii_digit))
        || byte_before(s, start) == Some(b'@')
        // A percent-encoded address (`mia%40fotoloop.com`): the name read starts at the `40`.
        || (byte_before(s, start) == Some(b'%') && s[start..].starts_with("40"))
}

/// Whether the URL whose host starts at `start` is a web page's (`http`, `https`, `ws`, `wss`):
/// a registered domain there is a site; under any other scheme (`mongodb://`, `ldap://`) it is
/// the machine a client connects to.
fn is_web_url(s: &str, start: usize) -> bool {
    // The userinfo, if any, is between the scheme and the host.
    let Some(scheme_end) = s[..start].rfind("://") else {
        return false;
    };
    let scheme = s[..scheme_end]
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '+'))
        .next()
        .unwrap_or("");
    ["http", "https", "ws", "wss"]
        .iter()
        .any(|w| scheme.eq_ignore_ascii_case(w))
}

/// The generic top-level domains [`HOST_RE`] knows that anyone can register under.
const PUBLIC_TLDS: [&str; 24] = [
    "com",
    "net",
    "org",
    "info",
    "biz",
    "app",
    "dev",
    "tech",
    "cloud",
    "online",
    "site",
    "shop",
    "store",
    "space",
    "zone",
    "asia",
    "top",
    "xyz",
    "digital",
    "systems",
    "solutions",
    "website",
    "agency",
    "studio",
];

/// Whether a name says it is inside a network: an internal label anywhere or an internal
/// suffix (`wiki.corp.internal`, `db.svc.cluster.local`, `nas.home.arpa`).
fn is_internal_name(name: &str) -> bool {
    name.split('.').any(|l| {
        INTERNAL_LABELS
            .iter()
            .chain(&[
                "intern",
                "home",
                "localdomain",
                "svc",
                "consul",
                "cluster",
                "arpa",
            ])
            .any(|i| l.eq_ignore_ascii_case(i))
    })
}

/// Whether the name at `start` is a step of a path (`/Applications/Shop.app`,
/// `lib/net.io/x`): after one `/` that no `/` or `:` goes before, as a URL's host has.
fn in_path(s: &str, start: usize) -> bool {
    let b = s.as_bytes();
    start >= 2
        && b[start - 1] == b'/'
        && !matches!(b[start - 2], b'/' | b':' | b'"' | b'\'' | b'(' | b'[')
        && !b[start - 2].is_ascii_whitespace()
}

/// Whether the name at `start` stands where a tool names public content rather than a
/// machine: an XML namespace (`xmlns:junos="http://xml.juniper.net/…"`), a link it tells the
/// reader to open (`see https://…`, `visit: https://…`, `docs at https://…`), an API group
/// (`"controllerGroup":"postgres-operator.crunchydata.com"`, `apiVersion: cert-manager.io/v1`).
fn names_public_content(s: &str, start: usize) -> bool {
    let head = &s[line_start(s, start)..start];
    let Some(url) = head.strip_suffix("://").and_then(|h| {
        h.trim_end_matches(|c: char| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            .strip_suffix(['"', '\'', '(', '[', '<', ' ', '\t', '='])
            .map(|h| h.trim_end_matches([' ', '\t', '=', ':', '"', '\'', '(', '[', '<']))
    }) else {
        // Not a URL: an API group's key right before the name.
        let key = head.trim_end_matches([' ', '\t', '"', '\'', ':', '=', '\\']);
        let lower = key.to_ascii_lowercase();
        return lower.ends_with("group") || lower.ends_with("apiversion");
    };
    let lower = url.to_ascii_lowercase();
    let word = lower
        .rsplit(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    lower.contains("xmlns")
        || lower.ends_with("schemalocation")
        || [
            "see",
            "visit",
            "at",
            "docs",
            "documentation",
            "details",
            "info",
            "help",
            "refer",
        ]
        .contains(&word)
            && lower.split_whitespace().count() <= 12
}

/// Domains whose names one label deep are a public vendor's own services, never a customer's
/// machine: package mirrors, registries, vendors' APIs and support sites, the API groups and
/// label prefixes of Kubernetes and its add-ons (`node.kubernetes.io/unreachable`,
/// `nvidia.com/gpu`, `cert-manager.io`). Deeper names are tenants' and the vendor's own
/// machines (`bucket.s3.amazonaws.com`, see [`is_public_host`]). Domains that give tenants a
/// name of their own one label deep (`acme.slack.com`, `x.github.io`, `acme.okta.com`) and the
/// documentation domains (`example.com`) are not here: their names stay hosts.
const PUBLIC_DOMAINS: [&str; 76] = [
    "agent.datadoghq.com",
    "agent.datadoghq.eu",
    "alpinelinux.org",
    "amazonaws.com",
    "apache.org",
    "api.letsencrypt.org",
    "apple.com",
    "archlinux.org",
    "aws.amazon.com",
    "azure.com",
    "bitbucket.org",
    "canonical.com",
    "centos.org",
    "cert-manager.io",
    "cloudflare.com",
    "coreos.com",
    "crates.io",
    "curl.se",
    "debian.org",
    "docker.com",
    "docker.io",
    "fedoraproject.org",
    "gcr.io",
    "ghcr.io",
    "github.com",
    "githubusercontent.com",
    "gitlab.com",
    "gnu.org",
    "go.dev",
    "golang.org",
    "jenkins.io",
    "ocaml.org",
    "google.com",
    "googleapis.com",
    "gradle.org",
    "gstatic.com",
    "hashicorp.com",
    "iana.org",
    "ietf.org",
    "istio.io",
    "jetstack.io",
    "jsdelivr.net",
    "k8s.io",
    "kernel.org",
    "kubernetes.io",
    "launchpad.net",
    "letsencrypt.org",
    "maven.org",
    "microsoft.com",
    "microsoftonline.com",
    "mozilla.org",
    "mysql.com",
    "nodejs.org",
    "npmjs.com",
    "npmjs.org",
    "nvidia.com",
    "openssl.org",
    "oracle.com",
    "postgresql.org",
    "pypi.org",
    "python.org",
    "pythonhosted.org",
    "quay.io",
    "redhat.com",
    "rubygems.org",
    "rust-lang.org",
    "schema.org",
    "sentry.io",
    "stackoverflow.com",
    "stripe.com",
    "terraform.io",
    "ubuntu.com",
    "unpkg.com",
    "w3.org",
    "wikipedia.org",
    "windows.net",
];

/// Domains that publish projects' web sites (`openzfs.github.io`): every name under one is a
/// public page, never a machine behind the boundary.
const PUBLIC_HOSTING: [&str; 5] = [
    ".github.io",
    ".gitlab.io",
    ".readthedocs.io",
    ".readthedocs.org",
    ".pages.dev",
];

/// Whether `label` is an AWS region (`eu-central-1`, `us-gov-west-1`).
fn is_aws_region(label: &str) -> bool {
    let parts: Vec<&str> = label.split('-').collect();
    (3..=4).contains(&parts.len())
        && parts[0].len() == 2
        && parts[0].bytes().all(|b| b.is_ascii_lowercase())
        && parts[parts.len() - 1].bytes().all(|b| b.is_ascii_digit())
        && parts[1..parts.len() - 1]
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase()))
}

/// Labels that mark a vendor's own machines under its public domain
/// (`MSRA-SA-41.fareast.corp.microsoft.com` is a host at Microsoft).
const INTERNAL_LABELS: [&str; 8] = [
    "corp", "internal", "intra", "intranet", "lan", "local", "prod", "staging",
];

/// Whether a host name is a public vendor's service (`deb.debian.org`, `support.google.com`):
/// one of [`PUBLIC_DOMAINS`] or a name under one, label by label (`notdebian.org` is not),
/// with at most one label before it and that none of [`INTERNAL_LABELS`]: deeper names are
/// the vendor's own machines or a tenant's resources (`x.fareast.corp.microsoft.com`,
/// `bucket.storage.googleapis.com`, `res.openai.azure.com`), which stay hosts.
pub(crate) fn is_public_host(name: &str) -> bool {
    let name = name.trim_end_matches('.');
    let count = name.split('.').count();
    let internal = || {
        name.split('.')
            .any(|l| INTERNAL_LABELS.iter().any(|i| l.eq_ignore_ascii_case(i)))
    };
    // A `www.` name is a public web site, and so is one under a public hosting domain; an AWS
    // service's regional endpoint (`iot.eu-central-1.amazonaws.com`) is AWS's.
    if count >= 3
        && ((count == 3
            && name
                .get(..4)
                .is_some_and(|w| w.eq_ignore_ascii_case("www.")))
            || PUBLIC_HOSTING
                .iter()
                .any(|d| ends_with_ci(name, d) && name.len() > d.len()))
        && !internal()
    {
        return true;
    }
    if count == 4
        && ends_with_ci(name, ".amazonaws.com")
        && name.split('.').nth(1).is_some_and(is_aws_region)
    {
        return true;
    }
    let bytes = name.as_bytes();
    PUBLIC_DOMAINS.iter().any(|d| {
        let d = d.as_bytes();
        if bytes.len() < d.len() || !bytes[bytes.len() - d.len()..].eq_ignore_ascii_case(d) {
            return false;
        }
        if bytes.len() == d.len() {
            return true;
        }
        let Some(head) = name[..name.len() - d.len()].strip_suffix('.') else {
            return false;
        };
        let labels: Vec<&str> = head.split('.').collect();
        labels.len() <= 1
            && !labels
                .iter()
                .any(|l| INTERNAL_LABELS.iter().any(|i| l.eq_ignore_ascii_case(i)))
    })
}

/// A reverse-DNS package or bundle name (`com.tencent.mm`, `org.apache.hadoop.io`): it starts
/// with a top-level domain, which no host name does, and has three labels or more.
fn is_package_name(name: &str) -> bool {
    let mut labels = name.split('.');
    let first = labels.next().unwrap_or("");
    [
        "com", "org", "net", "io", "cn", "edu", "gov", "nl", "de", "uk", "fr", "jp", "ch", "se",
        "dk", "fi", "be", "at", "au", "ca", "br", "ru", "it", "es", "pl", "cz", "kr", "nz", "eu",
    ]
    .iter()
    .any(|tld| first.eq_ignore_ascii_case(tld))
        && labels.count() >= 2
}

fn pass_host_names(re: &Matcher, s: &str, hits: &mut u32) -> Option<String> {
    let spans = re
        .find_iter(s)
        .filter(|m| host_apart(s, m.start(), m.end()))
        .map(|m| (m.start(), m.end()))
        .collect();
    apply_spans(s, spans, HOST, hits)
}

static HOST_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // ASCII only (`-u`): host names are ASCII, and Unicode case folding would add `ſ`, `K`.
        r"(?i-u)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*\.",
        r"(?:solutions|localdomain|internal|intranet|intern|website|systems|digital|consul|online|agency|studio|cloud|intra|local|store|space|arpa|corp|home|info|tech|farm|shop|site|zone|asia|app|biz|com|dev|edu|gov|int|lan|mil|net|org|svc|top|xyz|ai|cn|co|de|eu|hk|io|jp|ru|sg|tw|uk)",
    ))
    .expect("constant regex")
});

pub(crate) static FQDN: Rule = Rule {
    id: "host.fqdn",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "A host name under a generic TLD or an internal suffix (.com, .io, .dev, .internal, .svc, .local, …).",
    keywords: &[
        ".solutions",
        ".website",
        ".systems",
        ".digital",
        ".online",
        ".agency",
        ".studio",
        ".store",
        ".space",
        ".farm",
        ".shop",
        ".site",
        ".zone",
        ".asia",
        ".eu",
        ".ai",
        ".app",
        ".arpa",
        ".biz",
        ".cloud",
        ".cn",
        ".co",
        ".com",
        ".consul",
        ".corp",
        ".de",
        ".dev",
        ".edu",
        ".gov",
        ".hk",
        ".home",
        ".info",
        ".int",
        ".internal",
        ".intern",
        ".intra",
        ".intranet",
        ".io",
        ".jp",
        ".lan",
        ".local",
        ".localdomain",
        ".mil",
        ".net",
        ".org",
        ".ru",
        ".sg",
        ".svc",
        ".tech",
        ".top",
        ".tw",
        ".uk",
        ".xyz",
    ],
    gate: always,
    pass: |s, hits| pass_host_names(&HOST_RE, s, hits),
    matchers: &[&HOST_RE],
    examples: &[
        ex(
            "connect to db-primary.prod.internal timed out",
            "connect to <HOST> timed out",
        ),
        ex(
            "GET https://api.payments.example.com/v1/charge 502",
            "GET https://<HOST>/v1/charge 502",
        ),
        ex("resolve redis.cache.svc.cluster.local", "resolve <HOST>"),
        ex(
            "bind to wls-ms2.erp.werk.intern failed",
            "bind to <HOST> failed",
        ),
        ex(
            "push to registry.example.io/app:1 done",
            "push to <HOST>/app:1 done",
        ),
        // A public vendor's domain only when the name ends in it label by label.
        ex(
            "mirror debian.org.mirror-7.corp and cdn.notdebian.org down",
            "mirror <HOST> and <HOST> down",
        ),
        ex(
            "resolved build-07.eu.corp.microsoft.com and a.b.c.google.com",
            "resolved <HOST> and <HOST>",
        ),
        // A registered domain with a port, or in a URL of another scheme than the web's, is a
        // service a client connects to.
        ex(
            "connect fotoloop.com:5432 refused",
            "connect <HOST>:5432 refused",
        ),
        ex(
            "replicas mongodb://app:<SECRET>@example1.com,example2.com/db",
            "replicas mongodb://app:<SECRET>@<HOST>,<HOST>/db",
        ),
        ex(
            "GET /dav/users/mia%40fotoloop.com/ 404",
            "GET /dav/users/mia%<HOST>/ 404",
        ),
    ],
    negatives: &[
        // A registered domain names an organisation, not a machine.
        "fetched https://nordwind-logistik.de/ and see fotoloop.com or kvarnby.co.uk",
        // Public content, not machines: a web site, project pages, an AWS regional endpoint, an,
        // XML namespace, a link to open, an API group, a path's step, a bundle id, a facility.,
        "CN = www.digicert.com, endpoint=iot.eu-central-1.amazonaws.com",
        "see: https://openzfs.github.io/openzfs-docs/msg/ZFS-8000-4J",
        "<rpc-reply xmlns:junos=\"http://xml.juniper.net/junos/22.4R0/junos\">",
        "\"controllerGroup\":\"kustomize.toolkit.fluxcd.io\"",
        "signed /Users/runner/Build/Products/Shop.app for nl.fietsdeel.app",
        "Jun 11 15:12:04 2024 authpriv.info dropbear: auth succeeded",
        // Public vendors' names tell nothing about the machines behind the boundary.
        "Get:2 http://security.debian.org/debian-security bookworm-security InRelease [48.0 kB]",
        "resources: {limits: {nvidia.com/gpu: 1}} apiGroup cert-manager.io",
        "docs at https://learn.microsoft.com/en-us/troubleshoot for error 0x80070005",
        "com.shop.order.OrderService started",
        "read proc.ioports table",
        "loaded logback.xml and Bar.java",
        "topic order.created.v1 lag 15",
        "taint node.kubernetes.io/unreachable",
        // Reverse-DNS package names start with a top-level domain; host names do not.
        "class org.apache.hadoop.io.Text loaded",
    ],
};

/// Three labels or more under a country code: `ahn.zaq.ne.jp`, `82-76-1-5.tiscali.co.uk`.
static HOST_COUNTRY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u)[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?){1,}\.",
        r"(?:ac|ad|ae|af|ag|ai|al|am|ao|aq|ar|as|at|au|aw|ax|az|ba|bb|bd|be|bf|bg|bh|bi|bj|bm|bn|bo|br|bs|bt|bw|by|bz|ca|cc|cd|cf|cg|ch|ci|ck|cl|cm|cn|co|cr|cu|cv|cw|cx|cy|cz|de|dj|dk|dm|do|dz|ec|ee|eg|er|es|et|eu|fi|fj|fk|fm|fo|fr|ga|gd|ge|gf|gg|gh|gi|gl|gm|gn|gp|gq|gr|gs|gt|gu|gw|gy|hk|hm|hn|hr|ht|hu|id|ie|il|im|in|io|iq|ir|is|it|je|jm|jo|jp|ke|kg|kh|ki|km|kn|kp|kr|kw|ky|kz|la|lb|lc|li|lk|lr|ls|lt|lu|lv|ly|ma|mc|md|me|mg|mh|mk|ml|mm|mn|mo|mp|mq|mr|ms|mt|mu|mv|mw|mx|my|mz|na|nc|ne|nf|ng|ni|nl|no|np|nr|nu|nz|om|pa|pe|pf|pg|ph|pk|pl|pm|pn|pr|ps|pt|pw|py|qa|re|ro|rs|ru|rw|sa|sb|sc|sd|se|sg|sh|si|sk|sl|sm|sn|so|sr|ss|st|su|sv|sx|sy|sz|tc|td|tf|tg|th|tj|tk|tl|tm|tn|to|tr|tt|tv|tw|tz|ua|ug|uk|us|uy|uz|va|vc|ve|vg|vi|vn|vu|wf|ws|ye|yt|za|zm|zw)",
    ))
    .expect("constant regex")
});

/// Country codes that are also words, file extensions or property suffixes (`mapred.tip.id`,
/// `deploy.sh`, `index.md`): a name under one is a host only below a registry's second level
/// (`wsi.edu.pl`, `x.co.in`).
const AMBIGUOUS_CC: [&str; 30] = [
    "id", "in", "is", "it", "at", "to", "by", "be", "do", "me", "my", "no", "so", "us", "as", "am",
    "sh", "py", "pl", "rs", "md", "ms", "mk", "cc", "ps", "ml", "mo", "ai", "im", "io",
];

/// The second-level labels registries sell under a country code.
const COUNTRY_SLDS: [&str; 16] = [
    "com", "net", "org", "edu", "gov", "ac", "co", "or", "ne", "go", "mil", "nic", "gob", "gv",
    "lg", "ad",
];

fn pass_country_hosts(s: &str, hits: &mut u32) -> Option<String> {
    let spans = HOST_COUNTRY_RE
        .find_iter(s)
        .filter(|m| host_apart(s, m.start(), m.end()))
        .filter(|m| {
            let labels: Vec<&str> = m.as_str().rsplit('.').collect();
            let tld = labels[0].to_ascii_lowercase();
            // A label with a digit or a dash is a machine's (`cp-1.slowvm1.utah.cloudlab.us`),
            // not a property's (`mapreduce.task.attempt.id`).
            let machine = labels[1..]
                .iter()
                .any(|l| l.bytes().any(|b| b.is_ascii_digit() || b == b'-'));
            !AMBIGUOUS_CC.contains(&tld.as_str())
                || machine
                || labels
                    .get(1)
                    .is_some_and(|sld| COUNTRY_SLDS.iter().any(|x| sld.eq_ignore_ascii_case(x)))
        })
        .map(|m| (m.start(), m.end()))
        .collect();
    apply_spans(s, spans, HOST, hits)
}

pub(crate) static COUNTRY: Rule = Rule {
    id: "host.country",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "A host name of three labels or more under a country-code TLD (x.co.uk, a.b.ne.jp, shop.example.de).",
    keywords: &[
        ".ac", ".ad", ".ae", ".af", ".ag", ".ai", ".al", ".am", ".ao", ".aq", ".ar", ".as", ".at",
        ".au", ".aw", ".ax", ".az", ".ba", ".bb", ".bd", ".be", ".bf", ".bg", ".bh", ".bi", ".bj",
        ".bm", ".bn", ".bo", ".br", ".bs", ".bt", ".bw", ".by", ".bz", ".ca", ".cc", ".cd", ".cf",
        ".cg", ".ch", ".ci", ".ck", ".cl", ".cm", ".cn", ".co", ".cr", ".cu", ".cv", ".cw", ".cx",
        ".cy", ".cz", ".de", ".dj", ".dk", ".dm", ".do", ".dz", ".ec", ".ee", ".eg", ".er", ".es",
        ".et", ".eu", ".fi", ".fj", ".fk", ".fm", ".fo", ".fr", ".ga", ".gd", ".ge", ".gf", ".gg",
        ".gh", ".gi", ".gl", ".gm", ".gn", ".gp", ".gq", ".gr", ".gs", ".gt", ".gu", ".gw", ".gy",
        ".hk", ".hm", ".hn", ".hr", ".ht", ".hu", ".id", ".ie", ".il", ".im", ".in", ".io", ".iq",
        ".ir", ".is", ".it", ".je", ".jm", ".jo", ".jp", ".ke", ".kg", ".kh", ".ki", ".km", ".kn",
        ".kp", ".kr", ".kw", ".ky", ".kz", ".la", ".lb", ".lc", ".li", ".lk", ".lr", ".ls", ".lt",
        ".lu", ".lv", ".ly", ".ma", ".mc", ".md", ".me", ".mg", ".mh", ".mk", ".ml", ".mm", ".mn",
        ".mo", ".mp", ".mq", ".mr", ".ms", ".mt", ".mu", ".mv", ".mw", ".mx", ".my", ".mz", ".na",
        ".nc", ".ne", ".nf", ".ng", ".ni", ".nl", ".no", ".np", ".nr", ".nu", ".nz", ".om", ".pa",
        ".pe", ".pf", ".pg", ".ph", ".pk", ".pl", ".pm", ".pn", ".pr", ".ps", ".pt", ".pw", ".py",
        ".qa", ".re", ".ro", ".rs", ".ru", ".rw", ".sa", ".sb", ".sc", ".sd", ".se", ".sg", ".sh",
        ".si", ".sk", ".sl", ".sm", ".sn", ".so", ".sr", ".ss", ".st", ".su", ".sv", ".sx", ".sy",
        ".sz", ".tc", ".td", ".tf", ".tg", ".th", ".tj", ".tk", ".tl", ".tm", ".tn", ".to", ".tr",
        ".tt", ".tv", ".tw", ".tz", ".ua", ".ug", ".uk", ".us", ".uy", ".uz", ".va", ".vc", ".ve",
        ".vg", ".vi", ".vn", ".vu", ".wf", ".ws", ".ye", ".yt", ".za", ".zm", ".zw",
    ],
    gate: always,
    pass: pass_country_hosts,
    matchers: &[&HOST_COUNTRY_RE],
    examples: &[
        ex("resolve smtp.wanadoo.fr failed", "resolve <HOST> failed"),
        ex("lookup smtp.uni-wien.ac.at failed", "lookup <HOST> failed"),
        ex("rhost=biblioteka.wsi.edu.pl", "rhost=<HOST>"),
        ex(
            "resolve smtp.wanadoo.fr, then retry",
            "resolve <HOST>, then retry",
        ),
    ],
    negatives: &[
        "run deploy.sh and main.py",
        "unpacked kernel.common.tar",
        "see README.md",
        "mapred.tip.id is deprecated",
        "START u0 cmp=com.acme.mm/.ui.LauncherUI",
    ],
};

static HOST_KEY_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // An Azure storage connection string's AccountName is its host's first label.
        // A key may spell its `name` out (`Workstation Name:`, `computer name :`).
        r#"(?i-u:[a-z0-9_]*(?:host|hostname|node|nodename|node_name|rhost|server|accountname|devname|machine|computer|workstation|fqdn|data source|relay|broker)(?:[ _.]?(?:name|identifier))?)["']?[ \t]*[=:][ \t]*["']?"#,
        r"(?:[A-Za-z][A-Za-z0-9_\-]*\\)?([A-Za-z0-9][A-Za-z0-9_.\-]*)",
        // A row of `kubectl get nodes`: the name, then its status and roles.
        r"|(?m:^)([a-z0-9][a-z0-9.\-]*[a-z0-9])[ \t]+(?:Ready|NotReady|Unknown)(?:,SchedulingDisabled)?[ \t]+(?:<none>|[a-z][a-z0-9,\-/.]*)[ \t]+[0-9]+[smhdy]",
        // The same keys as XML elements: `<hostname>fw01</hostname>`.
        r"|<(?i-u:host|hostname|server|servername|node|nodename|computer|computername|machine|machinename)>([A-Za-z0-9][A-Za-z0-9_.\-]*)</",
        // The key as a word before its value, in prose and config files: `hostname web-03`,
        // `on host db07.corp`, `server app-12 is DOWN`.
        // SMTP's greeting names the client: `EHLO ci-runner-12`.
        r"|(?-u:\b)(?i-u:host|hostname|server|node|machine|computer|workstation|client|peer|ehlo|helo|lhlo)[ \t]+",
        r"([A-Za-z][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*)(?:[ \t,;:)\]]|\z)",
        // A machine account: `CORP\WS-0442$`.
        r"|(?-u:\b)[A-Za-z][A-Za-z0-9_\-]*\\([A-Za-z0-9][A-Za-z0-9\-]{1,14})\$",
    ))
    .expect("constant regex")
});

/// Whether a key (with its operator and quotes after it) ends in a word of its own that names
/// a machine: `rhost`, `dst_host`, `devname`, `hostIdentifier`, but not `observer`, whose
/// `server` is inside a longer word.
fn key_ends_in_host_word(key: &str) -> bool {
    let key = key.trim_end_matches(['"', '\'', ' ', '\t', '=', ':', '>']);
    let key = key.strip_suffix("Identifier").unwrap_or(key);
    let key = key.strip_suffix("Name").unwrap_or(key);
    let start = key
        .char_indices()
        .rev()
        .find(|&(i, c)| {
            !c.is_ascii_alphanumeric()
                || (c.is_ascii_uppercase() && key[..i].ends_with(|p: char| p.is_ascii_lowercase()))
        })
        .map_or(0, |(i, c)| {
            if c.is_ascii_uppercase() {
                i
            } else {
                i + c.len_utf8()
            }
        });
    let word = key[start..].to_ascii_lowercase();
    let word = word
        .strip_suffix("identifier")
        .or_else(|| word.strip_suffix("name"))
        .unwrap_or(&word);
    matches!(
        word.trim_end_matches(['_', '.', '-', ' ']),
        "host"
            | "rhost"
            | "lhost"
            | "node"
            | "server"
            | "devname"
            | "dev"
            | "machine"
            | "computer"
            | "workstation"
            | "fqdn"
            | "relay"
            | "broker"
            | "accountname"
            | "account"
    )
}

fn pass_host_key(s: &str, hits: &mut u32) -> Option<String> {
    let mut spans = Vec::new();
    for caps in HOST_KEY_RE.captures_iter(s) {
        let (Some(whole), Some(v)) = (caps.get(0), (1..=5).find_map(|g| caps.get(g))) else {
            continue;
        };
        let val = v.as_str().trim_end_matches('.');
        // An iSCSI or device name (`iqn.2003-01.org.linux-iscsi.stor01:sn.4f1e`) names a
        // target, not a machine.
        if ["iqn.", "eui.", "naa."].iter().any(|p| val.starts_with(p)) {
            continue;
        }
        // `peer fe80::1ff:…`: an IPv6 address's first group, which the IP rules take.
        if val.len() <= 4
            && val.bytes().all(|b| b.is_ascii_hexdigit())
            && byte_at(s, v.start() + val.len()) == Some(b':')
        {
            continue;
        }
        let has_digit = val.bytes().any(|b| b.is_ascii_digit());
        let has_alpha = val.bytes().any(|b| b.is_ascii_alphabetic());
        // `mssql/server:2022-latest` is an image's tag, not a server.
        let before_ok =
            !byte_before(s, whole.start()).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'/');
        // `node: v20.11.1` is a version, not a node.
        let version = val
            .trim_start_matches(['v', 'V'])
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'.');
        // A node table's first column is a node whatever its name (`master`).
        let node_row = caps.get(2).is_some();
        // Under a key, words joined by a dash or a dot name a machine (`devname="FGT-VPN-ams"`,
        // `broker=core-mosquitto`, `rhost=zummit.com`); a product's token (`Server:
        // Microsoft-IIS/10.0`) is none.
        let joined = (caps.get(1).is_some() || caps.get(3).is_some())
            && key_ends_in_host_word(&s[whole.start()..v.start()])
            && val.trim_matches(['-', '.']).contains(['-', '.'])
            && byte_at(s, v.start() + val.len()) != Some(b'/');
        if before_ok
            && (has_digit || node_row || joined)
            && has_alpha
            && !version
            && !val.eq_ignore_ascii_case("localhost")
            && !is_public_host(val)
        {
            spans.push((v.start(), v.start() + val.len()));
        }
    }
    apply_spans(s, spans, HOST, hits)
}

pub(crate) static HOST_KEY: Rule = Rule {
    id: "host.key",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "The value of a host or node key (host=db01, nodeName: worker-3a, devname=\"fw-02\", an Azure AccountName, `hostname web-03`) that holds letters and digits.",
    keywords: &[
        // A machine account: `CORP\WS-0442$`.
        "$",
        "host",
        "node",
        "server",
        "accountname",
        "devname",
        "machine",
        "computer",
        "workstation",
        "fqdn",
        "data source",
        "ready",
        "notready",
        "relay",
        "ehlo",
        "helo",
        "lhlo",
        "client",
        "peer",
    ],
    gate: always,
    pass: pass_host_key,
    matchers: &[&HOST_KEY_RE],
    examples: &[
        ex(
            "ocp-infra-2   Ready    infra,worker   91d   v1.27.8",
            "<HOST>   Ready    infra,worker   91d   v1.27.8",
        ),
        ex("db_host=db01 port=5432", "db_host=<HOST> port=5432"),
        ex(
            "{\"hostIdentifier\":\"lab-printer\",\"broker\":\"edge-relay\"}",
            "{\"hostIdentifier\":\"<HOST>\",\"broker\":\"<HOST>\"}",
        ),
        ex("ruser= rhost=kvarnby.se", "ruser= rhost=<HOST>"),
        ex(
            "<- 250 ok; -> EHLO build-box3; relay=mail-gw2[<IP>]:25",
            "<- 250 ok; -> EHLO <HOST>; relay=<HOST>[<IP>]:25",
        ),
        ex("\"nodeName\": \"worker3a\"", "\"nodeName\": \"<HOST>\""),
        ex(
            "storage AccountName=shopstore42 ready",
            "storage AccountName=<HOST> ready",
        ),
        ex(
            "set hostname fw-edge02; server app-12 is DOWN",
            "set hostname <HOST>; server <HOST> is DOWN",
        ),
        ex(
            "Login OK: [ana] (from client ap-floor3 port 0)",
            "Login OK: [ana] (from client <HOST> port 0)",
        ),
        ex(
            "Workstation Name:\tWS-FIN-0112 Source Port: 51544",
            "Workstation Name:\t<HOST> Source Port: 51544",
        ),
        ex(
            "t:applicationName=1CV8C,t:computerName=ACC-PC-112,Usr=x",
            "t:applicationName=1CV8C,t:computerName=<HOST>,Usr=x",
        ),
        ex(
            "MachineName          : CORP\\VDA-0217 and requester CORP\\LT-0442$",
            "MachineName          : CORP\\<HOST> and requester CORP\\<HOST>$",
        ),
        ex(
            "<system><hostname>edge-fw02</hostname></system>",
            "<system><hostname><HOST></hostname></system>",
        ),
    ],
    negatives: &[
        "host=localhost",
        "Server: Microsoft-IIS/10.0",
        "node: ready",
        "server is DOWN after 3 checks",
        "upgraded node v20 to node v22",
        "machine x86_64 detected",
    ],
};

// Node names that spell an address with dashes (AWS's `ip-10-0-0-1`, the `node-10-24-8-17` many
// clusters use), and the managed pools' generated names (GKE, AKS).
static CLOUD_NODE_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?:ip|node)-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}-[0-9]{1,3}",
        r"|gke-[a-z0-9-]+-[0-9a-f]{8}-[a-z0-9]{4}",
        r"|aks-[a-z0-9]+-[0-9]{8}-vmss[0-9a-z]{6}",
        // An EC2 instance id names the machine: `i-0a1b2c3d4e5f67890`, `i-1a2b3c4d`.
        r"|i-[0-9a-f]{17}|i-[0-9a-f]{8}",
    ))
    .expect("constant regex")
});

fn pass_cloud_node(s: &str, hits: &mut u32) -> Option<String> {
    let spans = CLOUD_NODE_RE
        .find_iter(s)
        .filter_map(|m| {
            let mut start = m.start();
            // A name that ends in an instance's id names that instance: a CI agent's
            // `bk-agent-linux-large-i-05ff5e6fedae45fcd`, taken whole.
            if m.as_str().len() == 19 && m.as_str().starts_with("i-") {
                let b = s.as_bytes();
                while start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'-') {
                    start -= 1;
                }
            }
            let apart = !byte_before(s, start).is_some_and(|b| is_word_byte(b) || b == b'-')
                && !placeholder_before(s, start)
                && !byte_at(s, m.end()).is_some_and(|b| is_word_byte(b) || b == b'-')
                && !placeholder_after(s, m.end());
            apart.then_some((start, m.end()))
        })
        .collect();
    apply_spans(s, spans, HOST, hits)
}

pub(crate) static CLOUD_NODE: Rule = Rule {
    id: "host.cloud-node",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "A cloud node name: ip-10-0-1-23, node-10-24-8-17, gke-…-pool-<hash>-<id>, aks-<pool>-<id>-vmss<n>, an EC2 instance id i-0c8e….",
    keywords: &["ip-", "node-", "gke-", "aks-", "i-"],
    gate: always,
    pass: pass_cloud_node,
    matchers: &[&CLOUD_NODE_RE],
    examples: &[
        ex(
            "kubelet on ip-10-0-1-23 NotReady",
            "kubelet on <HOST> NotReady",
        ),
        ex(
            "evicted from gke-prod-default-pool-1a2b3c4d-x7k9",
            "evicted from <HOST>",
        ),
        ex("aks-nodepool1-12345678-vmss000003 Ready", "<HOST> Ready"),
        ex(
            "agent ci-linux-large-i-05ff5e6fedae45fcd connected",
            "agent <HOST> connected",
        ),
        ex(
            "Instance i-0c8e1f2a3b4d5e6f7 is unhealthy",
            "Instance <HOST> is unhealthy",
        ),
    ],
    negatives: &["ip-address missing", "node-exporter restarted"],
};

/// The host field of a syslog header: BSD (`Jun 14 15:16:01 combo sshd[123]:`) and RFC 5424
/// (`<34>1 2026-11-29T10:00:00Z web01 app 123 - -`).
static SYSLOG_HOST_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        // BSD: a header anywhere a field starts (Thunderbird's lines carry one after their own).
        // A host may be one a dataset already anonymised (`#8#`); `user@host` names the host
        // whatever follows, a bare host needs the program after it.
        r"(?:\A|[ \t]|(?-u:\b))(?:<[0-9]{1,3}>)?(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ \t]+",
        r"[0-9]{1,2}[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}[ \t]+",
        r"(?:[A-Za-z0-9_.\-]+@((?:[A-Za-z0-9][A-Za-z0-9_.\-]*|#[0-9]+#)(?:/(?:[A-Za-z0-9][A-Za-z0-9_.\-]*|#[0-9]+#))?)[ \t]",
        r"|((?:[A-Za-z0-9][A-Za-z0-9_.\-]*|#[0-9]+#)(?:/(?:[A-Za-z0-9][A-Za-z0-9_.\-]*|#[0-9]+#))?)[ \t]+",
        // The program: `sshd[123]:`, `crond(pam_unix)[2915]:`, macOS's `sandboxd[129] ([31211]):`,
        // `syslogd 1.4.1:`.
        // A name of two or three words needs its pid (`Microsoft Word[14463]:`).
        r"(?:[A-Za-z0-9_./\-]+(?:[ \t][A-Za-z0-9_./\-]+){1,2}\[[0-9]+\]",
        r"|[A-Za-z0-9_./\-]+(?:\([A-Za-z0-9_.:\-]*\))?(?:\[[0-9]+\])?)",
        r"(?:[ \t]+\([^()\n]*\)|[ \t]+[0-9][0-9.]*|[ \t]+<[A-Z][a-z]+>)?:(?:[ \t]|\z)",
        // RFC 3164's HOSTNAME needs no tag after it: a name with a digit or a dash, then the
        // message (`fw-edge-02 1,2024/05/14,…`).
        r"|([A-Za-z][A-Za-z0-9_.]*[0-9\-][A-Za-z0-9_.\-]*)[ \t]+[^ \t\r\n:])",
        // RFC 5424: `<PRI>VERSION TIMESTAMP HOST APP`.
        r"|\A<[0-9]{1,3}>[0-9][ \t]+[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?[ \t]+",
        r"([A-Za-z0-9][A-Za-z0-9_.\-]*)[ \t]+[^ \t\r\n]+",
        // Thunderbird's and BGL's own header: `- 1131566461 2005.11.09 dn228 …`.
        r"|\A[A-Z_\-]*[ \t]+[0-9]{10}[ \t]+[0-9]{4}\.[0-9]{2}\.[0-9]{2}[ \t]+([A-Za-z][A-Za-z0-9_\-]*|#[0-9]+#)[ \t]",
        // rsyslog's high-precision and journald's `short-iso` header: an ISO time, the host,
        // then a program with its pid and a colon (`2024-05-02T10:12:00.119412+00:00 ldap-2
        // slapd[1360]:`); the pid tells a syslog header from an app's `time LEVEL logger:`.
        r"|(?m:^)(?:<[0-9]{1,3}>)?[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?[ \t]+",
        r"([A-Za-z0-9][A-Za-z0-9_.\-]*)[ \t]+[A-Za-z0-9_./\-]+(?:\([A-Za-z0-9_.:\-]*\))?\[(?:[0-9]+|<PID>)\]:(?:[ \t]|\z)",
    ))
    .expect("constant regex")
});

fn pass_syslog_host(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in SYSLOG_HOST_RE.captures_iter(s) {
        let Some(host) = (1..=6).find_map(|g| caps.get(g)) else {
            continue;
        };
        // An app's own header has its level where a syslog header has its host.
        let level = [
            "trace", "debug", "info", "notice", "warn", "warning", "error", "err", "fatal", "crit",
            "critical", "alert", "emerg", "severe", "fine",
        ]
        .iter()
        .any(|l| host.as_str().eq_ignore_ascii_case(l));
        if host.as_str().eq_ignore_ascii_case("localhost")
            || is_facility_level(host.as_str())
            || (caps.get(6).is_some() && level)
        {
            continue;
        }
        if e.replace(host.start(), host.end(), HOST) {
            *hits += 1;
        }
    }
    e.finish()
}

/// Whether `name` is a syslog facility and severity (`authpriv.info`, `local7.warn`), as
/// OpenWrt's `logread` and busybox print them where a header's host would stand.
fn is_facility_level(name: &str) -> bool {
    let Some((facility, level)) = name.split_once('.') else {
        return false;
    };
    let facility = facility.to_ascii_lowercase();
    let local = facility
        .strip_prefix("local")
        .is_some_and(|n| n.len() == 1 && n.bytes().all(|b| (b'0'..=b'7').contains(&b)));
    (local
        || [
            "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
            "authpriv", "ftp",
        ]
        .contains(&facility.as_str()))
        && [
            "emerg", "alert", "crit", "err", "warn", "warning", "notice", "info", "debug",
        ]
        .contains(&level.to_ascii_lowercase().as_str())
}

pub(crate) static SYSLOG_HOST: Rule = Rule {
    id: "host.syslog",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "The host field of a BSD or RFC 5424 syslog header.",
    keywords: &[],
    // The BSD and RFC 5424 headers hold a clock time; Thunderbird's a dotted date.
    gate: |f| f.clock || f.dotted_date,
    pass: pass_syslog_host,
    matchers: &[&SYSLOG_HOST_RE],
    examples: &[
        ex(
            "2026-05-02T10:12:00.119412+00:00 dir-east-1 slapd[1360]: conn=2210 op=3",
            "2026-05-02T10:12:00.119412+00:00 <HOST> slapd[<PID>]: conn=2210 op=3",
        ),
        ex(
            "Jun 14 15:16:01 combo sshd(pam_unix)[19939]: check pass",
            "Jun 14 15:16:01 <HOST> sshd(pam_unix)[<PID>]: check pass",
        ),
        ex(
            "<34>1 2026-11-29T10:00:00Z web01 app - - - started",
            "<34>1 2026-11-29T10:00:00Z <HOST> app - - - started",
        ),
        ex(
            "Jul  1 09:29:02 calvisitor-10-105-160-95 sandboxd[129] ([31211]): deny",
            "Jul  1 09:29:02 <HOST> sandboxd[<PID>] ([31211]): deny",
        ),
        ex(
            "- 1131566461 2005.11.09 dn228 Nov 9 12:01:01 dn228/dn228 crond[2915]: ok",
            "- 1131566461 2005.11.09 <HOST> Nov 9 12:01:01 <HOST> crond[<PID>]: ok",
        ),
        ex(
            "- 1131567043 2005.11.09 tbird-admin1 Nov 9 12:10:43 local@tbird-admin1 scsi0 : ok",
            "- 1131567043 2005.11.09 <HOST> Nov 9 12:10:43 local@<HOST> scsi0 : ok",
        ),
        ex(
            "Jul  4 23:22:09 calvisitor-10-105-162-105 Microsoft Word[14463]: Cocoa error",
            "Jul  4 23:22:09 <HOST> Microsoft Word[<PID>]: Cocoa error",
        ),
    ],
    negatives: &[
        "2026-05-02 10:12:00 INFO main: started in 3s",
        "Jun 14 15:16:01 is when it began",
        "10:00:00 - - started",
        // Colons but no clock: the header's time is what opens the rule.
        "probe failed: HTTP 503: retrying",
    ],
};

// ---------------------------------------------------------------------------------------------
// IP addresses.

static IPV4_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}").expect("constant regex")
});

static IPV6_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(r"\[?(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:\.[0-9]{1,3}){0,3}(?:%[A-Za-z0-9_.\-]+)?\]?")
        .expect("constant regex")
});

fn pass_ipv4(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for m in IPV4_RE.find_iter(s) {
        let before_ok = !byte_before(s, m.start()).is_some_and(|b| is_word_byte(b) || b == b'.')
            && !placeholder_before(s, m.start());
        let after_ok = !placeholder_after(s, m.end())
            && match byte_at(s, m.end()) {
                Some(b) if is_word_byte(b) => false,
                Some(b'.') => !byte_at(s, m.end() + 1).is_some_and(|b| b.is_ascii_digit()),
                _ => true,
            };
        let octets_ok = m
            .as_str()
            .split('.')
            .all(|o| o.parse::<u16>().is_ok_and(|n| n <= 255));
        if before_ok
            && after_ok
            && octets_ok
            && !is_version_context(&s[..m.start()])
            && e.replace(m.start(), m.end(), IP)
        {
            *hits += 1;
        }
    }
    e.finish()
}

/// Whether a dotted quad after `before` is a version: after the word `version` (`wcp.dll
/// version 0.0.0.6`, `Version=4.0.0.0` in a .NET assembly name) or a Windows component
/// identity's `~~` (`~amd64~~6.1.7601.0`).
fn is_version_context(before: &str) -> bool {
    let b = before.trim_end_matches([' ', '=', ':']);
    let word = b
        .rsplit(|c: char| !c.is_ascii_alphanumeric())
        .next()
        .unwrap_or("");
    // A device's or a driver's release is a dotted quad too: `Firmware 2.4.1.7`, `BIOS
    // 1.22.0.3`, `driver 31.0.101.4502`.
    const VERSION_WORDS: [&str; 10] = [
        "firmware", "fw", "bios", "bmc", "driver", "release", "build", "rev", "revision", "ver",
    ];
    ends_with_ci(b, "version")
        || VERSION_WORDS.iter().any(|w| word.eq_ignore_ascii_case(w))
        || before.ends_with("~~")
}

fn pass_ipv6(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    let mut pos = 0;
    while let Some(m) = IPV6_RE.find_at(s, pos) {
        // A rejected candidate's zone (`::%0.0.3.1-0::`) is searched again: it can hold an
        // address, which a second run would find once the IPv4 rule has broken the zone up.
        pos = match m.as_str().find('%') {
            Some(k) if k > 0 => m.start() + k,
            _ => m.end().max(next_char(s, m.start())),
        };
        let mut start = m.start();
        let mut text = m.as_str();
        // Brackets belong to the address only in pairs (`[::1]:443`).
        let open = text.starts_with('[');
        let close = text.ends_with(']');
        if open && !close {
            text = &text[1..];
            start += 1;
        } else if close && !open {
            text = &text[..text.len() - 1];
        }
        let inner = text.trim_start_matches('[').trim_end_matches(']');
        let addr = inner.split('%').next().unwrap_or(inner);
        // Six or more groups of two hex digits are a MAC address or a key's fingerprint
        // (`7C:4A:1E:92:…`), never an address's groups.
        if addr.split(':').count() >= 6 && addr.split(':').all(|g| g.len() == 2) {
            continue;
        }
        let (valid, trimmed) = if addr.parse::<std::net::Ipv6Addr>().is_ok() {
            (true, 0)
        } else if !open
            && !inner.contains('%')
            && byte_at(s, start + text.len()) != Some(b'%')
            && addr.ends_with(':')
            && !addr.ends_with("::")
        {
            // `::1: connection refused`: one trailing colon is punctuation; not before a zone
            // (`::8ae2:%7a`, and `::8ae2:%<IP>` once the zone's address is replaced).
            let t = &addr[..addr.len() - 1];
            (
                t.parse::<std::net::Ipv6Addr>().is_ok(),
                addr.len() - t.len(),
            )
        } else {
            (false, 0)
        };
        // `en0:2607:f140:…` (macOS configd): a candidate that took the interface's last digit
        // as its first group is refused; the address may start after its first colon.
        let retry = |pos: usize| match m.as_str().find(':') {
            Some(k) => pos.min(m.start() + k + 1).max(next_char(s, m.start())),
            None => pos,
        };
        if !valid || !addr.bytes().any(|b| b.is_ascii_hexdigit()) {
            pos = retry(pos);
            continue;
        }
        let end = start + text.len() - trimmed;
        // A full eight-group address cannot be part of a longer one, so a colon before it
        // (`en0+:2607:…`) separates a label.
        let full = !addr.contains("::") && addr.split(':').count() == 8;
        let before_ok = !byte_before(s, start)
            .is_some_and(|b| is_word_byte(b) || b == b'.' || (b == b':' && !full))
            && !placeholder_before(s, start);
        let after_ok = !byte_at(s, end).is_some_and(is_word_byte) && !placeholder_after(s, end);
        if before_ok && after_ok && e.replace(start, end, IP) {
            *hits += 1;
            pos = pos.max(m.end());
        } else if !before_ok {
            pos = retry(pos);
        }
    }
    e.finish()
}

pub(crate) static IPV6: Rule = Rule {
    id: "ip.v6",
    class: RedactionClass::Ip,
    placeholder: IP,
    description: "An IPv6 address, bracketed or with a zone (the port stays).",
    keywords: &[],
    // Every IPv6 address has `::` or at least six colons; clock times have two.
    gate: |f| f.double_colon || f.colons >= 6,
    pass: pass_ipv6,
    matchers: &[&IPV6_RE],
    examples: &[
        ex(
            "connect [2001:db8::1]:443 refused",
            "connect <IP>:443 refused",
        ),
        ex("peer fe80::1ff:fe23:4567:890a%eth0 up", "peer <IP> up"),
        ex(
            "v6(en0+:2607:f140:6000:8:c6b3:1ff:fecd:467f) v6(en0:2607:f140:6000:8:c6b3:1ff:fecd:4680)",
            "v6(en0+:<IP>) v6(en0:<IP>)",
        ),
    ],
    negatives: &[
        "at 10:00:00 UTC",
        "std::vector::push_back",
        "mac 00:1a:2b:3c:4d:5e seen",
    ],
};

pub(crate) static IPV4: Rule = Rule {
    id: "ip.v4",
    class: RedactionClass::Ip,
    placeholder: IP,
    description: "An IPv4 address (the port stays); dotted versions with a part over 255 stay.",
    keywords: &[],
    gate: |f| f.digit_dots >= 3,
    pass: pass_ipv4,
    matchers: &[&IPV4_RE],
    examples: &[
        ex(
            "upstream 10.0.3.17:6379 timed out",
            "upstream <IP>:6379 timed out",
        ),
        ex("client=192.168.1.20, retry", "client=<IP>, retry"),
        ex(
            "peer version 2 at 10.1.2.3 dropped",
            "peer version 2 at <IP> dropped",
        ),
    ],
    negatives: &[
        "Windows 6.1.7601.23505 updated",
        "Loaded wcp.dll version 0.0.0.6 from the store",
        "Dell System Firmware 2.4.1.7 staged; BIOS 1.22.0.3, driver 31.0.101.4502",
        "System.Runtime, Version=4.0.0.0, Culture=neutral",
        "Package_for_KB3121255~amd64~~6.1.1.0 applicable",
        "version 1.2.3 released",
        "took 1.5.2.999ms",
    ],
};

/// Object-storage bucket names, which name an organisation's data as a host name does:
/// path-style S3 and GCS URLs, `s3://` and `gs://` URIs, and S3 ARNs.
static BUCKET_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?i-u:s3[.\-](?:[a-z0-9\-]+\.)?amazonaws\.com|s3\.amazonaws\.com|storage\.googleapis\.com|",
        r"storage\.cloud\.google\.com)/([a-z0-9][a-z0-9._\-]{2,62})",
        r"|(?-u:\b)(?:s3|gs|s3a|s3n)://([a-z0-9][a-z0-9._\-]{2,62})",
        r"|arn:aws[a-z\-]*:s3:::([A-Za-z0-9][A-Za-z0-9._\-]{2,62})",
    ))
    .expect("constant regex")
});

fn pass_bucket(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in BUCKET_RE.captures_iter(s) {
        let Some(v) = (1..=3).find_map(|g| caps.get(g)) else {
            continue;
        };
        if placeholder_after(s, v.end()) {
            continue;
        }
        if e.replace(v.start(), v.end(), HOST) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static BUCKET: Rule = Rule {
    id: "host.bucket",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "An object-storage bucket name: path-style S3 and GCS URLs, s3:// and gs:// URIs, S3 ARNs.",
    keywords: &[
        "amazonaws.com/",
        "storage.googleapis.com/",
        "storage.cloud.google.com/",
        "s3://",
        "gs://",
        "s3a://",
        "s3n://",
        "arn:aws",
    ],
    gate: always,
    pass: pass_bucket,
    matchers: &[&BUCKET_RE],
    examples: &[
        ex(
            "GET https://s3.amazonaws.com/acme-payroll-exports/2026/11.csv 403",
            "GET https://s3.amazonaws.com/<HOST>/2026/11.csv 403",
        ),
        ex(
            "copy gs://acme-ml-models/v3 failed; policy arn:aws:s3:::my_corporate_bucket/*",
            "copy gs://<HOST>/v3 failed; policy arn:aws:s3:::<HOST>/*",
        ),
    ],
    negatives: &["s3 upload done in 3s", "see the gs:// scheme docs"],
};

/// A host named by where it stands rather than by its top-level domain: after a URL's scheme
/// (and userinfo), whatever its suffix (`ldaps://ldap.corp.example.no:636`,
/// `https://u:<SECRET>@mirror.int.example.in/`), and in a shell prompt (`ops@bastion-02:~$`).
static HOST_PLACE_RE: LazyLock<Matcher> = LazyLock::new(|| {
    Matcher::new(concat!(
        r"(?-u:\b)[a-z][a-z0-9+.\-]*://(?:[^/@ \t\r\n\x22']*@)?",
        r"([A-Za-z0-9][A-Za-z0-9\-]*(?:\.[A-Za-z0-9\-]+)*)(?:[:/ \t\r\n\x22'?#]|\z)",
        r"|(?m:^)[a-z_][a-z0-9_\-]*@([A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9]):(?:~|/[^/])",
        // Bracketed prompts (`[root@web01 ~]#`, RouterOS's `[admin@MikroTik-HQ] >`) and
        // Junos's `noc@mx-edge-01> `.
        r"|(?m:^)\[[A-Za-z_][A-Za-z0-9_.\-]*@([A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9])(?:[ \t][^\]\r\n]*)?\][ \t]*[>#$%]",
        r"|(?m:^)[a-z_][a-z0-9_\-]*@([A-Za-z0-9][A-Za-z0-9.\-]*[A-Za-z0-9])[>#%][ \t]",
        // A login on a machine with no domain, as ssh and scp take it: `deploy@bastion2:/tmp`.
        r"|(?-u:\b)[a-z_][a-z0-9_\-]*@([A-Za-z][A-Za-z0-9\-]*[0-9][A-Za-z0-9\-]*)(?:[:/> \t\r\n]|\z)",
        // Ansible's host in a task result and in the recap: `ok: [web-03]`, `web-03 : ok=12`.
        r"|(?m:^)(?:ok|changed|fatal|failed|skipping|unreachable|included|rescued|ignored): \[([A-Za-z0-9][A-Za-z0-9_.\-]*)\]",
        r"|(?m:^)([A-Za-z0-9][A-Za-z0-9_.\-]*)[ \t]+:[ \t]+ok=[0-9]+[ \t]+changed=",
        // A DHCP client's name after its MAC address (ISC's `from 3c:52:82:1a:9f:00 (ws-12)
        // via`, dnsmasq's and RouterOS's name ending the line).
        r"|(?i-u:dhcp)[^\r\n]*?(?i-u:[0-9a-f]{2}(?::[0-9a-f]{2}){5})[ \t]+\(?([A-Za-z][A-Za-z0-9\-]{1,62})\)?(?:[ \t]+via|[ \t]*(?m:$))",
        // A name in DNS's wire form, as Windows' DNS debug log prints it: `(6)db-03(4)corp(0)`.
        r"|\([0-9]{1,2}\)([A-Za-z0-9\-]+(?:\([0-9]{1,2}\)[A-Za-z0-9\-]+)+)\(0\)",
        // Elasticsearch's and OpenSearch's node, bracketed after the level and the logger:
        // `[2024-03-12T15:08:11,482][WARN ][o.e.c.r.a.DiskThresholdMonitor] [es-data-07]`.
        r"|\]\[[A-Z]{4,5}[ \t]*\]\[[^\]\r\n]+\][ \t]+\[([A-Za-z0-9][A-Za-z0-9_.\-]*)\]",
    ))
    .expect("constant regex")
});

fn pass_host_place(s: &str, hits: &mut u32) -> Option<String> {
    let mut e = Edit::new(s);
    for caps in HOST_PLACE_RE.captures_iter(s) {
        let Some(h) = (1..=10).find_map(|g| caps.get(g)) else {
            continue;
        };
        let name = h.as_str();
        // A name of one label after a scheme is a machine when a port follows it
        // (`jdbc:postgresql://pg-analytics:5432`) or it has a digit or a dash
        // (`amqp://rabbit-2/`); a word alone may be a path's first step (`rtmp://live/cam`),
        // and a container runtime's id is the pod rules' (`docker://4f1c…`).
        if caps.get(1).is_some() && !name.contains('.') {
            let port = s.as_bytes().get(h.end()) == Some(&b':')
                && s.as_bytes()
                    .get(h.end() + 1)
                    .is_some_and(u8::is_ascii_digit);
            let scheme = s[..h.start()].rsplit_once("://").map_or("", |(before, _)| {
                before
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                    .next()
                    .unwrap_or("")
            });
            let runtime = ["docker", "containerd", "cri-o", "file"]
                .iter()
                .any(|r| scheme.eq_ignore_ascii_case(r));
            if runtime || !(port || name.bytes().any(|b| b.is_ascii_digit() || b == b'-')) {
                continue;
            }
        }
        // An address is the IP rules' (`http://10.0.0.1/`); a name with no letter is no host.
        // Ansible names groups too (`ok: [webservers]`): a host there has a digit, a dash or
        // a dot.
        let ansible = caps
            .get(6)
            .or_else(|| caps.get(7))
            .or_else(|| caps.get(10))
            .is_some();
        if ansible
            && !name
                .bytes()
                .any(|b| b.is_ascii_digit() || b == b'-' || b == b'.')
        {
            continue;
        }
        // `actions/checkout@v4`, `app@sha256:` name a version and a digest.
        let version = name
            .strip_prefix(['v', 'V'])
            .is_some_and(|r| r.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
        let digest = ["sha1", "sha256", "sha384", "sha512", "md5"]
            .contains(&name.to_ascii_lowercase().as_str());
        if name.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            || !name.bytes().any(|b| b.is_ascii_alphabetic())
            || name.eq_ignore_ascii_case("localhost")
            || version
            || digest
            || is_public_host(name)
            || (caps.get(1).is_some()
                && is_web_url(s, h.start())
                && is_registered_domain(name)
                && !names_endpoint(s, h.start(), h.end()))
            || (names_public_content(s, h.start()) && !is_internal_name(name))
        {
            continue;
        }
        if e.replace(h.start(), h.end(), HOST) {
            *hits += 1;
        }
    }
    e.finish()
}

pub(crate) static HOST_PLACE: Rule = Rule {
    id: "host.place",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "A host named by where it stands: after a URL's scheme and userinfo whatever its suffix, and in a shell prompt (`ops@bastion-02:~$`).",
    keywords: &[
        "://",
        "@",
        "dhcp",
        "(0)",
        "ok: [",
        "changed: [",
        "fatal: [",
        "failed: [",
        "skipping: [",
        "unreachable: [",
        "included: [",
        "rescued: [",
        "ignored: [",
        ": ok=",
        "][",
    ],
    gate: always,
    pass: pass_host_place,
    matchers: &[&HOST_PLACE_RE],
    examples: &[
        ex(
            "uri=ldaps://ldap.corp.halden.no:636 result=0",
            "uri=ldaps://<HOST>:636 result=0",
        ),
        // A name of one label is a machine with a port or a digit or dash.
        ex(
            "url jdbc:postgresql://warehouse:5432/dwh and amqp://rabbit-2/",
            "url jdbc:postgresql://<HOST>:5432/dwh and amqp://<HOST>/",
        ),
        ex("ops@bastion-02:~$ uptime", "ops@<HOST>:~$ uptime"),
        ex(
            "[root@web01 ~]# systemctl restart nginx",
            "[root@<HOST> ~]# systemctl restart nginx",
        ),
        ex(
            "noc@mx-edge-01> show bgp summary",
            "noc@<HOST>> show bgp summary",
        ),
        ex(
            "scp dump.tgz ops@vault3:/srv/",
            "scp dump.tgz ops@<HOST>:/srv/",
        ),
        ex(
            "fatal: [db-replica-2]: UNREACHABLE! => {\"changed\": false}",
            "fatal: [<HOST>]: UNREACHABLE! => {\"changed\": false}",
        ),
        ex(
            "Subject: Cron <root@mon03> /usr/local/bin/poll.sh",
            "Subject: Cron <root@<HOST>> /usr/local/bin/poll.sh",
        ),
        ex(
            "dhcpd[812]: DHCPACK on 10.4.0.17 to 3c:52:82:1a:9f:00 (lab-printer) via eth1",
            "dhcpd[<PID>]: DHCPACK on <IP> to 3c:52:82:1a:9f:00 (<HOST>) via eth1",
        ),
        ex(
            "dnsmasq-dhcp[611]: DHCPACK(br-lan) 10.0.0.9 a4:c1:38:2f:11:90 garage-sensor",
            "dnsmasq-dhcp[<PID>]: DHCPACK(br-lan) <IP> a4:c1:38:2f:11:90 <HOST>",
        ),
        ex(
            "UDP Rcv 10.1.2.3 9b3f Q [0001 D NOERROR] A (6)fin-db(4)corp(5)local(0)",
            "UDP Rcv <IP> 9b3f Q [0001 D NOERROR] A (6)<HOST>(0)",
        ),
        ex(
            "[2026-02-01T10:00:00,001][INFO ][o.e.n.Node               ] [search-hot-2] started",
            "[2026-02-01T10:00:00,001][INFO ][o.e.n.Node               ] [<HOST>] started",
        ),
    ],
    negatives: &[
        // A web site's registered domain is no machine.
        "GET https://fotoloop.com/pricing 200",
        "play rtmp://live/cam from file://nas-1/share",
        "see file:///tmp/report.txt",
        "user@:~$ ls",
        // A JS frame, not a prompt: the scheme's `//` follows the colon.
        "onclick@http://path/to/file",
        "uses: actions/checkout@v4 and cache@v3",
        "ok: [webservers] => {\"changed\": false}",
    ],
};

// ---------------------------------------------------------------------------------------------
// Machines of a fleet, known by how they are numbered.

/// Words after which a name is where something runs or goes: `JOB 12 ON cn-0107`,
/// `From DC01 to DC03`, `via gw-east-2`.
const HOST_SLOT_WORDS: [&str; 5] = ["on", "from", "to", "at", "via"];

/// Whether `name` (`[A-Za-z0-9-]`, no `_`) reads as one machine of a fleet: a role and its
/// number. `padded`: its number is zero-padded (`07`, `0107`), as fleets number machines so
/// that they sort; in a host slot, a number at its end after a dash or a letter does
/// (`risk-grid-n7`, `msra-sa-41`).
fn is_fleet_name(name: &str, in_slot: bool) -> bool {
    let b = name.as_bytes();
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits == b.len() || b.iter().filter(|c| c.is_ascii_alphabetic()).count() < 2
    {
        return false;
    }
    let segments: Vec<&str> = name.split('-').collect();
    let last = segments[segments.len() - 1];
    let lower = !b.iter().any(u8::is_ascii_uppercase);
    let upper = !b.iter().any(u8::is_ascii_lowercase);
    // Numbered things that are no machines: `CVE-2024-0001` (a number before the last), camel
    // case (`SteamUser021`), a hash or uuid's hex, an error code (`ORA-00942`, `TNS-12541`),
    // a region (`us-east-1`).
    let inner_number = segments[..segments.len() - 1]
        .iter()
        .any(|s| s.is_empty() || s.bytes().all(|c| c.is_ascii_digit()));
    let camel = b
        .windows(2)
        .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase());
    let hashy = segments
        .iter()
        .any(|s| s.len() >= 8 && s.bytes().all(|c| c.is_ascii_hexdigit()));
    let number = &b[b.len() - digits..];
    let padded = number[0] == b'0' && (2..=4).contains(&digits);
    // In a host slot a short zero-padded number is a machine's (`from WS-0231`); an error code
    // has five digits or none padded (`ORA-00942`, `TNS-12541`).
    let code = upper
        && segments.len() == 2
        && last.bytes().all(|c| c.is_ascii_digit())
        && !(in_slot && padded);
    let region = segments.len() == 3
        && segments[0].len() == 2
        && last.len() == 1
        && segments[..2]
            .iter()
            .all(|s| s.bytes().all(|c| c.is_ascii_lowercase()));
    if inner_number || camel || hashy || code || region {
        return false;
    }
    if padded && (lower || upper && segments.len() >= 2) {
        return true;
    }
    // In a host slot: an upper-case or mixed-case name (`NBDC03`, `Build-Agent07`; outside a
    // slot a mixed-case name is a component, `Interconnect-1N00`), or a dashed name whose last
    // part holds letters and its number (`risk-grid-n7`), or that has three parts and a number
    // of two digits (`msra-sa-41`). `utf-8` and `sha-256` have two parts; `mysql-replica-2` is
    // a replica's role.
    let last_alpha = last.bytes().any(|c| c.is_ascii_alphabetic());
    in_slot && (padded || segments.len() >= 2 && last_alpha || segments.len() >= 3 && digits >= 2)
}

/// Whether a host list's bracket opens at `at`: `[03-04]`, `[0101-0104,0107]`, numbers of two
/// digits or more in ranges or lists, at least one range or comma.
fn is_hostlist_at(b: &[u8], at: usize) -> bool {
    let Some(len) = b[at + 1..].iter().take(64).position(|&c| c == b']') else {
        return false;
    };
    let inside = &b[at + 1..at + 1 + len];
    let parts: Vec<&[u8]> = inside.split(|&c| c == b',' || c == b'-').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| p.len() >= 2 && p.iter().all(u8::is_ascii_digit))
}

/// A machine name an installer generated: a capital word, a dash and seven to eleven capitals
/// and digits that mix both (`DESKTOP-7H2K9QF`, `EC2AMAZ-4N1RC3K`, `MININT-FNANLI5`).
fn is_generated_machine_name(name: &str) -> bool {
    let Some((head, tail)) = name.split_once('-') else {
        return false;
    };
    (3..=8).contains(&head.len())
        && head
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && head.bytes().any(|c| c.is_ascii_uppercase())
        && (7..=11).contains(&tail.len())
        && tail
            .bytes()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && tail.bytes().filter(u8::is_ascii_digit).count() >= 1
        && tail.bytes().filter(u8::is_ascii_uppercase).count() >= 3
}

/// Whether the name at `start` stands in a host slot: right after `@`, or after one of
/// [`HOST_SLOT_WORDS`] and blanks.
fn in_host_slot(s: &str, start: usize) -> bool {
    let before = &s.as_bytes()[..start];
    if before.last() == Some(&b'@') {
        return true;
    }
    let word_end = before.len() - before.iter().rev().take_while(|&&c| c == b' ').count();
    if word_end == before.len() {
        return false;
    }
    let word = &before[..word_end];
    let len = word
        .iter()
        .rev()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let w = &word[word_end - len..];
    (word_end == len || !is_word_byte(word[word_end - len - 1]))
        && HOST_SLOT_WORDS
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k.as_bytes()))
}

fn pass_fleet_hosts(s: &str, hits: &mut u32) -> Option<String> {
    let b = s.as_bytes();
    let name_byte = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'_';
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !name_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && name_byte(b[i]) {
            i += 1;
        }
        let name = &s[start..i];
        // Part of a path, a dotted name, a placeholder or a call: `/srv/db01/`, `part01.gz`,
        // `<HOST>`, `run01(`.
        // The second half of a compound name is none either: `R62-M1-NA-C:J04-U01`. A UNC
        // path's first part is its server (`\\FS01\share`), and a name before a backslash
        // is a machine with its instance or share (`EXCH-MBX03\Default`).
        let unc = start >= 2 && &b[start - 2..start] == b"\\\\";
        let apart_before = (unc
            || !byte_before(s, start).is_some_and(|c| b"./\\<=$%#".contains(&c)))
            && !(byte_before(s, start) == Some(b':')
                && start >= 2
                && b[start - 2].is_ascii_alphanumeric());
        let apart_after = match byte_at(s, i) {
            Some(b'.') => !byte_at(s, i + 1).is_some_and(is_word_byte),
            Some(b'[') => is_hostlist_at(b, i),
            Some(c) => !b"(/>".contains(&c),
            None => true,
        };
        if name.contains('_')
            || !b[i - 1].is_ascii_digit()
            || !apart_before
            || !apart_after
            || !b[start].is_ascii_alphabetic()
        {
            continue;
        }
        if is_fleet_name(name, unc || in_host_slot(s, start)) {
            spans.push((start, i));
        }
    }
    // Slurm's and pdsh's compressed host lists (`gpu-a[03-04]`, `cn[0101-0104,0107]`), and the
    // names Windows and cloud images generate (`DESKTOP-7H2K9QF`, `WIN-8F2KJ3M4N5P`).
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_alphabetic() || i > 0 && (name_byte(b[i - 1]) || b[i - 1] == b'.') {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'-') {
            i += 1;
        }
        if byte_at(s, i) == Some(b'[') && is_hostlist_at(b, i) {
            let close = i + b[i..].iter().position(|&c| c == b']').unwrap_or(0);
            spans.push((start, close + 1));
        } else if is_generated_machine_name(&s[start..i])
            && !byte_at(s, i).is_some_and(|c| {
                c == b'_' || c == b'.' && byte_at(s, i + 1).is_some_and(is_word_byte)
            })
        {
            spans.push((start, i));
        }
    }
    apply_spans(s, spans, HOST, hits)
}

pub(crate) static FLEET_HOST: Rule = Rule {
    id: "host.fleet",
    class: RedactionClass::Host,
    placeholder: HOST,
    description: "A machine of a fleet with no domain, by how fleets number machines: a role and a zero-padded number (`cn-0107`, `node07`, `EXCH-MBX03`), a name that ends in its number after on, from, to, at, via or `@`, a host list (`node[01-04]`), a generated name (`DESKTOP-7H2K9QF`).",
    keywords: &[],
    gate: |f| f.digit,
    pass: pass_fleet_hosts,
    matchers: &[],
    examples: &[
        ex(
            "step 3 ran on gpu-b200-004 for 2h",
            "step 3 ran on <HOST> for 2h",
        ),
        ex(
            "replica lag 4s from STOR-ARRAY02 to worker07",
            "replica lag 4s from <HOST> to <HOST>",
        ),
        ex(
            "sync From LDAPDC01 to LDAPDC04 failed",
            "sync From <HOST> to <HOST> failed",
        ),
        ex(
            "job 77 held at Queue@sched-main2",
            "job 77 held at Queue@<HOST>",
        ),
        ex("rsync to bkp-store-k9 done", "rsync to <HOST> done"),
        ex(
            "JOB 88 ON node[017-018] held; copy \\\\FILESRV02\\exports from STOR02\\vol1 for WS-0231",
            "JOB 88 ON <HOST> held; copy \\\\<HOST>\\exports from <HOST>\\vol1 for WS-0231",
        ),
        ex(
            "<Data Name='WorkstationName'>WKS-OPS-0417</Data> from DESKTOP-7H2K9QF",
            "<Data Name='WorkstationName'><HOST></Data> from <HOST>",
        ),
    ],
    negatives: &[
        "converted to utf-8 and sha-256 from ISO-8859-1",
        "ORA-00942 at line 3; see CVE-2024-0001",
        "deployed to us-east-1 on 2024-05-02",
        "wrote part-00000 and part01.csv to /data/out01/",
        "table USR02 and job SU01 read, SteamUser021 joined",
        "listening on eth0, port 8080, at 10:02",
        "id a208479c-c0e3-4730-a5a0-d75e8afd0252 done",
        "WFLYCTL0013: Operation failed",
        "Interconnect-1N00 switch error at R12-M1-N3-C:J08-U01",
        "replication lag on mysql-replica-2 is 35s",
        "items[0-3] and SHA-256 and ISO-8859-1 and AES-256-GCM and TLSV1-3",
    ],
};
