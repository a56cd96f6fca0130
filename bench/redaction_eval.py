#!/usr/bin/env python3
"""Redaction evaluation: how much of a known secret, address or word survives `aciproj redact`.

Usage:
  python3 bench/redaction_eval.py [--gitleaks DIR] [--noseyparker DIR] [--loghub DIR]
      [--family F] [--show-leaks N] [--json FILE] -- target/release/aciproj redact

What it measures, and why
-------------------------
The redactor's own tests hold it to examples written here. This harness scores it on material
nobody here wrote, read from local copies of public repositories (each source is optional):

1. Secret samples. The true-positive samples of gitleaks' rules (the `tps` lists in
   `cmd/generate/config/rules/*.go`, regexes from `config/gitleaks.toml`) and the `examples` of
   Nosey Parker's rules (`crates/noseyparker/data/default/builtin/rules/*.yml`). For each sample
   the secret itself is found by applying the rule's own regex (translated from Go / Rust syntax
   to Python `re`) and taking its secret group: gitleaks' `secretGroup`, else the first non-empty
   group, else the whole match (gitleaks' entropy and allowlists are applied to choose among
   matches); for Nosey Parker every non-empty capture group (its rules capture the secret, some
   capture a user name or id beside it). Secrets shorter than 8 bytes are dropped; samples are
   deduplicated per source.
2. Each sample is embedded in several line shapes (plain, a timestamped error line, a JSON log
   line, logfmt, and for multi-line samples the raw lines), every shape is fed through the
   redact command once, and output line i is matched to input line i (the command must be line
   for line).
3. Per line: "whole secret left" (the secret, as it is encoded in that shape, is in the output)
   and "any 8-byte fragment left" (some 8-character window of the secret survives). A window
   counts only if it holds a digit or both upper- and lower-case letters, so a kept
   `-----BEGIN` header, a `password:` key that gitleaks' group includes, or a plain word does
   not; nor does a window that also occurs in the line outside the secret. Reported per source,
   per shape, per family (keywords of the rule id and name), and per leaking rule. Also
   counted: JSON-shape output lines that no longer parse as JSON.
4. Loghub-2k: every raw line of the 16 systems, with an independent oracle written from the log
   formats (not from the redactor's rules): IPv4 dotted quads (octets <= 255, not inside a
   longer dotted token, not after `version`/`v` or in a Windows CBS identity `~~6.1.0.0`, where
   they are versions), IPv6 addresses (validated; a Java-style trailing `:port` dropped; not
   the bare `::`), e-mail addresses (also with `%40` for `@`). Reported: labelled values left; and over-redaction on lines with no label: the
   % of such lines changed at all and the % that lost an ordinary word (a purely alphabetic
   token of 3+ letters present in the input line and absent from the output line; host names
   replaced by a placeholder count here too).

Leaks are the number to drive down; the over-redaction numbers say what that costs the reader.

Nothing from the sources is kept in this file or in the `--json` summary (counts and rule ids
only). `--show-leaks N` prints up to N leaking lines per family (and Loghub examples) to stdout
for local debugging; do not paste them into committed files.

How gitleaks' samples are read: a small evaluator runs each rule function's assignments and its
`utils.Validate(r, tps, ...)` call: Go string literals, `+`, `[]string{}`, `map[...]...{}`
values, `append`, local and package-level variables, `fmt.Sprintf`, base64 encoding, and the
helpers `utils.GenerateSampleSecret(s)` (templates read from gitleaks' own utils package),
`utils.AlphaNumeric`/`Hex`/`Numeric`/..., `secrets.NewSecret(regex)` and `newPlausibleSecret`.
NewSecret makes a random string matching a regex; here it is generated from the same regex
with a PRNG seeded by the rule file and function name, so a run on the same gitleaks commit
gives the same samples. Samples built by any other call are skipped and counted.

Requirements: Python 3.11+. Standard library only, except Nosey Parker's YAML rules, which need
PyYAML (`pip install pyyaml`); without it `--noseyparker` stops with that message.

Fetching the sources (bare mirrors checked out to /tmp, never committed), for example:
  git --git-dir=MIRROR archive HEAD | tar -x -C /tmp/src/gitleaks
  git --git-dir=MIRROR archive HEAD data/loghub_2k | tar -x -C /tmp/src/logparser
"""
import argparse
import base64
import hashlib
import collections
import glob
import ipaddress
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import warnings

try:
    import re._parser as sre_parse  # Python 3.11+
    import re._constants as sre_c
except ImportError:  # pragma: no cover - older layouts
    import sre_parse  # type: ignore
    import sre_constants as sre_c  # type: ignore

# Go and Rust allow `[[` and `--` in classes where Python warns about future set syntax.
warnings.simplefilter("ignore", FutureWarning)

MIN_SECRET_BYTES = 8
WINDOW = 8

# ---------------------------------------------------------------------------------------------
# Families: first match wins, keywords are whole words of the lower-cased rule id + name.
# Vendor families come before "generic" so "Shopify App Secret" is other SaaS, not generic;
# "secret" alone is therefore not a generic keyword.
# ---------------------------------------------------------------------------------------------
FAMILIES = [
    ("private-key", "private keys", [
        "private key", "private", "pem", "ssh", "pgp", "gpg", "age", "wireguard", "pkcs12",
        "putty", "x25519"]),
    ("jwt", "JWT", ["jwt", "json web token"]),
    ("db", "DB/DSN", [
        "postgres", "postgresql", "mysql", "mongodb", "mongo", "jdbc", "redis", "odbc",
        "connection string", "connection uri", "dsn", "planetscale", "clickhouse", "snowflake",
        "mssql", "sqlserver", "database"]),
    ("ai", "AI providers", [
        "openai", "anthropic", "cohere", "huggingface", "hugging face", "perplexity", "groq",
        "privateai", "mistral", "replicate", "deepseek", "gemini", "jina", "xai"]),
    ("vcs-ci", "VCS/CI/registries", [
        "github", "gitlab", "bitbucket", "travis", "travisci", "circleci", "jenkins", "droneci",
        "drone", "codecov", "teamcity", "sourcegraph", "sonar", "sonarqube", "npm", "pypi",
        "rubygems", "nuget", "cratesio", "crates", "clojars", "artifactory", "jfrog",
        "dockerhub", "docker", "octopus", "harness", "gitalk", "devops", "codeclimate",
        "gitter", "stackhawk", "snyk", "dtrack", "dependency track"]),
    ("chat", "chat/webhooks", [
        "slack", "discord", "teams", "msteams", "telegram", "mattermost", "webhook",
        "messagebird", "sendbird", "twilio"]),
    ("payment", "payment", [
        "stripe", "square", "paypal", "braintree", "adyen", "plaid", "flutterwave",
        "gocardless", "coinbase", "kraken", "kucoin", "bittrex", "finicity"]),
    ("cloud", "cloud/infra", [
        "aws", "amazon", "azure", "gcp", "google", "gcs", "s3", "arn", "alibaba",
        "digitalocean", "heroku", "cloudflare", "fastly", "flyio", "netlify", "scalingo",
        "yandex", "openshift", "kubernetes", "hashicorp", "vault", "ibm", "oracle", "linode",
        "doppler", "truenas", "vmware", "viserver"]),
    ("generic", "generic/assignment", [
        "generic", "password", "passwd", "netrc", "curl", "basic authentication", "bearer",
        "sensitive value", "psexec", "pwhash", "hash", "gradle", "phpmailer"]),
]
OTHER = ("other", "other SaaS")
FAMILY_NAMES = dict([(k, n) for k, n, _ in FAMILIES] + [OTHER])


def family_of(rule_id, name=""):
    text = " " + re.sub(r"[^a-z0-9]+", " ", (rule_id + " " + name).lower()) + " "
    for key, _, words in FAMILIES:
        if any(" " + w + " " in text for w in words):
            return key
    return OTHER[0]


# ---------------------------------------------------------------------------------------------
# Regex translation: Go (RE2) and Rust/Hyperscan syntax to Python `re`.
# ---------------------------------------------------------------------------------------------
class Untranslatable(Exception):
    pass


POSIX_CLASSES = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
    "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}


def strip_verbose(p):
    """Rust `(?x)`: drop unescaped whitespace (also inside classes) and `#` line comments;
    `(?#...)` comments (Hyperscan/PCRE) are dropped too."""
    out, i, in_class = [], 0, False
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            nxt = p[i + 1]
            out.append("\\x20" if nxt == " " else "\\" + nxt)
            i += 2
            continue
        if in_class:
            if c == "]" and not (out and out[-1] in ("[", "[^")):
                in_class = False
            if not c.isspace():
                out.append(c)
            i += 1
            continue
        if p.startswith("(?#", i):
            j = p.find(")", i)
            i = len(p) if j < 0 else j + 1
            continue
        if c.isspace():
            i += 1
            continue
        if c == "#":
            j = p.find("\n", i)
            i = len(p) if j < 0 else j + 1
            continue
        if c == "[":
            in_class = True
            if p.startswith("[^", i):
                out.append("[^")
                i += 2
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _clean_flags(flags):
    """Flag letters for Python's scoped group: drop x (handled) and u (no-op here)."""
    if "U" in flags:
        raise Untranslatable("ungreedy flag U")
    on, _, off = flags.partition("-")
    on = "".join(c for c in on if c in "ims")
    off = "".join(c for c in off if c in "ims")
    return on + ("-" + off if off else "")


def _translate_class(p, i, rust):
    """Translate a character class starting at p[i] == '['; return (text, next index)."""
    out = ["["]
    i += 1
    if i < len(p) and p[i] == "^":
        out.append("^")
        i += 1
    first = True
    while i < len(p):
        c = p[i]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if c == "\\" and i + 1 < len(p):
            nxt = p[i + 1]
            if nxt in "pP":
                raise Untranslatable("unicode class \\p")
            if nxt == "x" and i + 2 < len(p) and p[i + 2] == "{":
                j = p.index("}", i)
                out.append("\\U%08x" % int(p[i + 3:j], 16))
                i = j + 1
                continue
            out.append(p[i:i + 2])
            i += 2
            continue
        if c == "[":
            m = re.match(r"\[:(\^?)([a-z]+):\]", p[i:])
            if m:
                if m.group(1) or m.group(2) not in POSIX_CLASSES:
                    raise Untranslatable("negated or unknown POSIX class")
                out.append(POSIX_CLASSES[m.group(2)])
                i += m.end()
                continue
            if rust:
                raise Untranslatable("nested class")
            out.append("\\[")
            i += 1
            continue
        if rust and p[i:i + 2] in ("&&", "~~", "--"):
            raise Untranslatable("class set operation")
        out.append(c)
        i += 1
    raise Untranslatable("unterminated class")


def translate_regex(pattern, dialect):
    """Return a Python regex for a Go ('go') or Rust/Hyperscan ('rust') pattern."""
    rust = dialect == "rust"
    if rust and re.search(r"\(\?[a-zA-Z-]*x[a-zA-Z-]*[):]", pattern):
        pattern = strip_verbose(pattern)
    out = []
    frames = [[]]  # per open group: the scoped flag groups opened by a bare (?flags)
    i = 0
    p = pattern
    while i < len(p):
        c = p[i]
        if c == "\\":
            if i + 1 >= len(p):
                raise Untranslatable("trailing backslash")
            nxt = p[i + 1]
            if nxt == "z":
                out.append("\\Z")
            elif nxt in "pPC":
                raise Untranslatable("\\" + nxt)
            elif nxt == "Q":
                j = p.find("\\E", i + 2)
                j = len(p) if j < 0 else j
                out.append(re.escape(p[i + 2:j]))
                i = j + 2
                continue
            elif nxt == "x" and i + 2 < len(p) and p[i + 2] == "{":
                j = p.index("}", i)
                out.append("\\U%08x" % int(p[i + 3:j], 16))
                i = j + 1
                continue
            else:
                out.append(p[i:i + 2])
            i += 2
            continue
        if c == "[":
            text, i = _translate_class(p, i, rust)
            out.append(text)
            continue
        if c == "(":
            if p.startswith("(?#", i):
                j = p.find(")", i)
                i = len(p) if j < 0 else j + 1
                continue
            m = re.match(r"\(\?([a-zA-Z]*(?:-[a-zA-Z]*)?)([):])", p[i:])
            if m and m.group(1) != "" or (m and m.group(2) == ":"):
                flags = _clean_flags(m.group(1))
                if m.group(2) == ":":
                    out.append("(?%s:" % flags if flags else "(?:")
                    frames.append([])
                elif flags:  # bare (?flags): scope it to the rest of the enclosing group
                    out.append("(?%s:" % flags)
                    frames[-1].append(flags)
                i += m.end()
                continue
            m = re.match(r"\(\?P?<([A-Za-z_][A-Za-z0-9_]*)>", p[i:])
            if m:
                out.append("(?P<%s>" % m.group(1))
                frames.append([])
                i += m.end()
                continue
            frames.append([])
            out.append("(")
            i += 1
            continue
        if c == ")":
            out.append(")" * len(frames[-1]) + ")")
            if len(frames) > 1:
                frames.pop()
            i += 1
            continue
        if c == "|":
            extra = frames[-1]
            out.append(")" * len(extra) + "|" + "".join("(?%s:" % f for f in extra))
            i += 1
            continue
        out.append(c)
        i += 1
    out.append(")" * len(frames[-1]))
    return "".join(out)


def compile_rule(pattern, dialect):
    """Compile a rule regex; returns (compiled or None, reason)."""
    try:
        return re.compile(translate_regex(pattern, dialect), re.ASCII), ""
    except Untranslatable as e:
        return None, "untranslatable: %s" % e
    except (re.error, ValueError, OverflowError) as e:
        return None, "python re: %s" % e


# ---------------------------------------------------------------------------------------------
# Random strings from a regex (gitleaks' secrets.NewSecret), via Python's own regex parser.
# ---------------------------------------------------------------------------------------------
PRINTABLE = [chr(c) for c in range(33, 127)]


def _class_chars(items):
    chars, negate = set(), False
    for op, av in items:
        if op is sre_c.NEGATE:
            negate = True
        elif op is sre_c.LITERAL:
            chars.add(chr(av))
        elif op is sre_c.RANGE:
            chars.update(chr(c) for c in range(av[0], min(av[1], 0x7e) + 1))
        elif op is sre_c.CATEGORY:
            chars.update(ch for ch in PRINTABLE + [" "] if re.match(
                {sre_c.CATEGORY_DIGIT: r"\d", sre_c.CATEGORY_NOT_DIGIT: r"\D",
                 sre_c.CATEGORY_SPACE: r"\s", sre_c.CATEGORY_NOT_SPACE: r"\S",
                 sre_c.CATEGORY_WORD: r"\w", sre_c.CATEGORY_NOT_WORD: r"\W"}.get(av, r"\w"),
                ch, re.ASCII))
    if negate:
        return sorted(set(PRINTABLE) - chars)
    return sorted(chars)


def _generate(parsed, rng, groups):
    out = []
    for op, av in parsed:
        if op is sre_c.LITERAL:
            out.append(chr(av))
        elif op is sre_c.NOT_LITERAL:
            out.append(rng.choice([c for c in PRINTABLE if c != chr(av)]))
        elif op is sre_c.ANY:
            out.append(rng.choice(PRINTABLE))
        elif op is sre_c.IN:
            out.append(rng.choice(_class_chars(av) or PRINTABLE))
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, getattr(sre_c, "POSSESSIVE_REPEAT", None)):
            lo, hi, sub = av
            hi = min(hi, lo + 8) if hi != sre_c.MAXREPEAT else lo + 8
            for _ in range(rng.randint(lo, hi)):
                out.append(_generate(sub, rng, groups))
        elif op is sre_c.SUBPATTERN:
            gid, _, _, sub = av
            text = _generate(sub, rng, groups)
            if gid:
                groups[gid] = text
            out.append(text)
        elif op is sre_c.BRANCH:
            out.append(_generate(rng.choice(av[1]), rng, groups))
        elif op is sre_c.GROUPREF:
            out.append(groups.get(av, ""))
        elif op is getattr(sre_c, "ATOMIC_GROUP", None):
            out.append(_generate(av, rng, groups))
        elif op is sre_c.CATEGORY:
            out.append(rng.choice(_class_chars([(op, av)])))
        # AT (anchors), ASSERT, ASSERT_NOT: generate nothing
    return "".join(out)


def random_from_regex(pattern, rng):
    return _generate(sre_parse.parse(translate_regex(pattern, "go")), rng, {})


# ---------------------------------------------------------------------------------------------
# A small Go evaluator for gitleaks' rule files: string literals, `+`, []string{...},
# map[string]string{...} (values), append, and the sample helpers of its utils package.
# ---------------------------------------------------------------------------------------------
class Unknown:
    """A value this evaluator cannot compute; carries why."""

    def __init__(self, why):
        self.why = why


GO_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v",
              "\\": "\\", "'": "'", '"': '"'}
GO_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+) | (?P<nl>\n) | (?P<lc>//[^\n]*) | (?P<bc>/\*.*?\*/)
  | (?P<raw>`[^`]*`) | (?P<str>"(?:\\.|[^"\\\n])*") | (?P<rune>'(?:\\.|[^'\\\n])+')
  | (?P<num>\d[\w.]*) | (?P<id>[A-Za-z_]\w*)
  | (?P<op>\.\.\.|:=|\+=|==|!=|<=|>=|&&|\|\||<-|\+\+|--|[-+*/%&|^<>=!(){}\[\],;:.])
""", re.X | re.S)


def go_unquote(lit):
    body, out, i = lit[1:-1], [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in GO_ESCAPES:
            out.append(GO_ESCAPES[n])
            i += 2
        elif n == "x":
            out.append(chr(int(body[i + 2:i + 4], 16)))
            i += 4
        elif n == "u":
            out.append(chr(int(body[i + 2:i + 6], 16)))
            i += 6
        elif n == "U":
            out.append(chr(int(body[i + 2:i + 10], 16)))
            i += 10
        else:  # octal
            out.append(chr(int(body[i + 1:i + 4], 8)))
            i += 4
    return "".join(out)


def go_tokens(src):
    """Tokens as (kind, value), with Go's automatic semicolons inserted at line ends."""
    toks, pos = [], 0
    while pos < len(src):
        m = GO_TOKEN.match(src, pos)
        if not m:
            raise ValueError("cannot tokenize Go at %d" % pos)
        pos = m.end()
        kind = m.lastgroup
        text = m.group()
        if kind in ("ws", "lc"):
            continue
        if kind in ("nl", "bc") and ("\n" in text):
            last = toks[-1] if toks else ("op", "")
            if last[0] in ("str", "num", "rune") or (last[0] == "op" and last[1] in (
                    ")", "]", "}", "++", "--")) or (last[0] == "id" and last[1] not in (
                    "func", "if", "for", "else", "switch", "var", "const", "type")):
                toks.append(("op", ";"))
            continue
        if kind == "bc":
            continue
        if kind == "raw":
            toks.append(("str", text[1:-1].replace("\r", "")))
        elif kind == "str":
            toks.append(("str", go_unquote(text)))
        elif kind == "rune":
            toks.append(("rune", go_unquote('"' + text[1:-1] + '"')))
        elif kind == "num":
            toks.append(("num", text))
        else:
            toks.append((kind, text))
    toks.append(("op", ";"))
    return toks


class GoType:
    def __init__(self, name):
        self.name = name


class GoEval:
    """Evaluates the statements of gitleaks' rule functions that build the `tps` samples."""

    def __init__(self, files):
        self.pkg_src = {}  # top-level var name -> tokens of its expression
        self.pkg_val = {}
        self.funcs = []  # (file, name, body tokens)
        self.rng = random.Random(0)
        for path in files:
            with open(path, encoding="utf-8") as f:
                self._scan_file(path, go_tokens(f.read()))

    # -- file structure ---------------------------------------------------------------------
    def _scan_file(self, path, toks):
        i = 0
        while i < len(toks):
            kind, val = toks[i]
            if kind == "id" and val == "func":
                j = i + 1
                if toks[j] == ("op", "("):  # method receiver
                    j = self._skip_group(toks, j)
                name = toks[j][1]
                depth = 0
                while not (toks[j] == ("op", "{") and depth == 0):
                    depth += toks[j] in (("op", "("), ("op", "["))
                    depth -= toks[j] in (("op", ")"), ("op", "]"))
                    j += 1
                end = self._skip_group(toks, j)
                self.funcs.append((path, name, toks[j + 1:end - 1]))
                i = end
            elif kind == "id" and val in ("var", "const"):
                if toks[i + 1] == ("op", "("):
                    end = self._skip_group(toks, i + 1)
                    for stmt in self._statements(toks[i + 2:end - 1]):
                        self._pkg_decl(stmt)
                    i = end
                else:
                    j = i + 1
                    depth = 0
                    while not (toks[j] == ("op", ";") and depth == 0):
                        depth += toks[j] in (("op", "("), ("op", "["), ("op", "{"))
                        depth -= toks[j] in (("op", ")"), ("op", "]"), ("op", "}"))
                        j += 1
                    self._pkg_decl(toks[i + 1:j])
                    i = j + 1
            else:
                i += 1

    def _pkg_decl(self, stmt):
        if stmt and stmt[0][0] == "id" and ("op", "=") in stmt:
            self.pkg_src[stmt[0][1]] = stmt[stmt.index(("op", "=")) + 1:]

    @staticmethod
    def _skip_group(toks, i):
        """toks[i] opens a bracket; return the index after its match."""
        depth = 0
        while True:
            v = toks[i][1] if toks[i][0] == "op" else None
            if v in ("(", "[", "{"):
                depth += 1
            elif v in (")", "]", "}"):
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1

    @staticmethod
    def _statements(toks):
        stmt, depth = [], 0
        for t in toks:
            if t[0] == "op" and t[1] in "([{":
                depth += 1
            elif t[0] == "op" and t[1] in ")]}":
                depth -= 1
            if t == ("op", ";") and depth == 0:
                if stmt:
                    yield stmt
                stmt = []
            else:
                stmt.append(t)
        if stmt:
            yield stmt

    # -- evaluation -------------------------------------------------------------------------
    def lookup(self, name, env):
        if name in env:
            return env[name]
        if name in self.pkg_src:
            if name not in self.pkg_val:
                self.pkg_val[name] = Unknown("recursive " + name)
                self.pkg_val[name] = self.expr(self.pkg_src[name], {})
            return self.pkg_val[name]
        return Unknown("unknown name " + name)

    def expr(self, toks, env):
        saved = getattr(self, "toks", None), getattr(self, "pos", 0), getattr(self, "env", None)
        self.toks, self.pos, self.env = toks, 0, env
        try:
            return self._binary()
        except (IndexError, ValueError, KeyError, TypeError, re.error, Untranslatable) as e:
            return Unknown("cannot evaluate: %s: %s" % (type(e).__name__, e))
        finally:
            self.toks, self.pos, self.env = saved

    def _at(self, op):
        """Is the next token the operator `op` (never a string that spells it)?"""
        return self._peek() == ("op", op)

    def _peek(self):
        return self.toks[self.pos] if self.pos < len(self.toks) else ("eof", "")

    def _next(self):
        t = self._peek()
        self.pos += 1
        return t

    def _binary(self):
        left = self._unary()
        while self._peek() in (("op", "+"), ("op", "-"), ("op", "*")):
            op = self._next()[1]
            right = self._unary()
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                left = left if isinstance(left, Unknown) else right
            elif op == "+":
                left = left + right
            elif op == "-":
                left = left - right
            else:
                left = left * right
        return left

    def _unary(self):
        if self._peek() in (("op", "&"), ("op", "*")):
            self._next()
        return self._primary()

    def _type_name(self):
        """A Go type at the cursor: []T, [N]T, *T, map[K]V, pkg.Name or Name."""
        k, v = self._next()
        if v == "[":
            inner = ""
            while not self._at("]"):
                inner += self._next()[1]
            self._next()
            return "[" + inner + "]" + self._type_name()
        if v == "*":
            return "*" + self._type_name()
        if v == "map":
            self._next()  # [
            key = self._type_name()
            self._next()  # ]
            return "map[" + key + "]" + self._type_name()
        name = v
        while self._at("."):
            self._next()
            name += "." + self._next()[1]
        return name

    def _primary(self):
        k, v = self._next()
        if k == "str" or k == "rune":
            val = v
        elif k == "num":
            val = int(v, 0) if re.fullmatch(r"\d+|0[xX][0-9a-fA-F]+", v) else float(v)
        elif k == "op" and v == "(":
            val = self._binary()
            self._next()  # )
        elif k == "op" and v == "[":  # slice type: []T
            self.pos -= 1
            val = GoType(self._type_name())
        elif k == "id" and v == "map":
            self.pos -= 1
            val = GoType(self._type_name())
        elif k == "id" and v == "func":  # function literal: skip it
            while not self._at("{"):
                self._next()
            self.pos = self._skip_group(self.toks, self.pos)
            val = Unknown("function literal")
        elif k == "id":
            val = ("name", v)
        else:
            raise ValueError("unexpected token %r" % v)
        while True:
            nk, nv = self._peek()
            if nk != "op":
                break
            if nv == ".":
                self._next()
                field = self._next()[1]
                if isinstance(val, tuple) and val[0] == "name":
                    val = ("name", val[1] + "." + field)
                elif isinstance(val, dict):
                    val = val.get(field, Unknown("field " + field))
                else:
                    val = Unknown("selector ." + field)
            elif nv == "(":
                self._next()
                args, spread = self._args()
                val = self.call(val, args, spread)
            elif nv == "[":
                self._next()
                idx = self._binary()
                val = self._resolve(val)
                if self._at(":"):
                    self._next()
                    hi = self._binary() if not self._at("]") else None
                    val = val[idx:hi] if not isinstance(val, Unknown) else val
                else:
                    val = val[idx] if not isinstance(val, Unknown) else val
                self._next()  # ]
            elif nv == "{" and (isinstance(val, GoType) or isinstance(val, tuple)):
                tname = val.name if isinstance(val, GoType) else val[1]
                self._next()
                val = self._composite(tname)
            else:
                break
        return self._resolve(val)

    def _resolve(self, val):
        if isinstance(val, tuple) and val[0] == "name":
            if val[1] in ("nil", "true", "false"):
                return {"nil": None, "true": True, "false": False}[val[1]]
            if "." in val[1]:
                head, _, rest = val[1].partition(".")
                base = self.lookup(head, self.env)
                if isinstance(base, dict):
                    return base.get(rest, Unknown("field " + rest))
                return Unknown("selector " + val[1])
            return self.lookup(val[1], self.env)
        return val

    def _args(self):
        args, spread = [], False
        while not self._at(")"):
            args.append(self._binary())
            if self._at("..."):
                self._next()
                spread = True
            if self._at(","):
                self._next()
            while self._peek() == ("op", ";"):
                self._next()
        self._next()
        return args, spread

    def _composite(self, tname):
        items, keyed = [], {}
        while True:
            while self._peek() in (("op", ";"), ("op", ",")):
                self._next()
            if self._at("}"):
                self._next()
                break
            if self._at("{"):  # untyped nested literal
                self._next()
                value = self._composite("")
            else:
                key = None
                if self._peek()[0] == "id" and self.toks[self.pos + 1] == ("op", ":"):
                    key = self._next()[1]
                    self._next()
                else:
                    value = self._binary()
                    if self._at(":"):
                        self._next()
                        key = value
                    else:
                        items.append(value)
                        continue
                if self._at("{"):
                    self._next()
                    value = self._composite("")
                else:
                    value = self._binary()
                keyed[key] = value
                continue
            items.append(value)
        if tname.startswith("map["):
            return list(keyed.values())  # ValidateWithPaths: path -> sample
        if tname.startswith("[]"):
            return items
        return keyed  # a struct: its keyed fields

    # -- functions --------------------------------------------------------------------------
    def call(self, fn, args, spread):
        name = fn[1] if isinstance(fn, tuple) else None
        if isinstance(fn, GoType):  # conversion such as string(x)
            return args[0] if args else Unknown("conversion")
        if name == "append":
            base = args[0]
            if isinstance(base, Unknown):
                base = [base]
            rest = args[1:]
            if spread and rest:
                last = rest[-1]
                rest = rest[:-1] + (last if isinstance(last, list) else [last])
            return list(base) + rest
        bad = [a for a in args if isinstance(a, Unknown)]
        if bad:
            return bad[0]
        helpers = {
            "utils.Numeric": lambda n: "[0-9]{%s}" % n,
            "utils.Hex": lambda n: "[a-f0-9]{%s}" % n,
            "utils.AlphaNumeric": lambda n: "[a-z0-9]{%s}" % n,
            "utils.AlphaNumericExtendedShort": lambda n: "[a-z0-9_-]{%s}" % n,
            "utils.AlphaNumericExtended": lambda n: "[a-z0-9=_\\-]{%s}" % n,
            "utils.AlphaNumericExtendedLong": lambda n: "[a-z0-9\\/=_\\+\\-]{%s}" % n,
            "utils.Hex8_4_4_4_12":
                lambda: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "utils.GenerateSampleSecret": lambda i, s: '%s_api_token = "%s"' % (i, s),
            "utils.GenerateSampleSecrets": generate_sample_secrets,
            "secrets.NewSecret": lambda r: random_from_regex(r, self.rng),
            "newPlausibleSecret": self._plausible_secret,
            "fmt.Sprintf": go_sprintf,
            "strings.Repeat": lambda s, n: s * n,
            "strings.ToUpper": str.upper,
            "strings.ToLower": str.lower,
            "strings.Join": lambda xs, sep: sep.join(xs),
            "len": len,
            "base64.StdEncoding.EncodeToString": lambda b: b64(b, "std"),
            "base64.RawStdEncoding.EncodeToString": lambda b: b64(b, "std").rstrip("="),
            "base64.URLEncoding.EncodeToString": lambda b: b64(b, "url"),
            "base64.RawURLEncoding.EncodeToString": lambda b: b64(b, "url").rstrip("="),
        }
        if name in helpers:
            return helpers[name](*args)
        return Unknown("call %s" % (name or "expression"))

    def _plausible_secret(self, regex):
        stop = self.lookup("DefaultStopWords", {})
        stop = stop if isinstance(stop, list) else []
        for _ in range(1000):
            s = random_from_regex(regex, self.rng)
            if re.search("[1-9]", s) and not any(w in s.lower() for w in stop
                                                   if isinstance(w, str)):
                return s
        return Unknown("newPlausibleSecret gave up")

    def exec_body(self, body, env):
        """Run a function body's assignments into env; return its return statement's tokens."""
        for stmt in self._statements(body):
            head = stmt[0][1]
            if head == "return":
                return stmt[1:]
            if head in ("if", "for", "switch", "go", "defer"):
                continue
            if head == "var" and stmt[1] == ("op", "("):  # var ( a = x; b = y )
                self.exec_body(stmt[2:-1], env)
                continue
            if head == "var":
                stmt = stmt[1:]
                if ("op", "=") not in stmt:
                    env[stmt[0][1]] = []
                    continue
                stmt = [stmt[0]] + stmt[stmt.index(("op", "=")):]
            k = self._assign_at(stmt)  # a := x | a = x | a.b = x | a += x
            if k is None:
                continue
            op, lhs, val = stmt[k][1], stmt[:k], self.expr(stmt[k + 1:], env)
            names = [t[1] for t in lhs if t[0] == "id"]
            if op == "+=":
                old = env.get(names[0]) if names else None
                val = old + val if isinstance(old, str) and isinstance(val, str) \
                    else Unknown("+= on a value that is not a string")
            if len(lhs) == 1 and names:
                env[names[0]] = val
            elif len(lhs) == 3 and lhs[1] == ("op", ".") and isinstance(env.get(names[0]), dict):
                env[names[0]][names[1]] = val
        return None

    @staticmethod
    def _assign_at(stmt):
        """Index of the statement's top-level `:=`, `=` or `+=`, or None."""
        depth = 0
        for k, t in enumerate(stmt):
            if t[0] != "op":
                continue
            if t[1] in ("(", "[", "{"):
                depth += 1
            elif t[1] in (")", "]", "}"):
                depth -= 1
            elif depth == 0 and t[1] in (":=", "=", "+="):
                return k
        return None

    def run_function(self, path, name, body):
        """Evaluate a rule function; returns (rule_id or None, list of samples/Unknown)."""
        self.rng = random.Random("gitleaks:%s:%s" % (os.path.basename(path), name))
        env = {}
        call = self.exec_body(body, env)
        # return utils.Validate(r, tps, fps) / utils.ValidateWithPaths(r, tps, fps)
        if not call or len(call) < 5 or call[0][1] != "utils" or call[2][1] not in (
                "Validate", "ValidateWithPaths"):
            return None, []
        args = self._split_args(call[4:-1])
        rule = self.expr(args[0], env) if args else None
        tps = self.expr(args[1], env) if len(args) > 1 else []
        rid = rule.get("RuleID") if isinstance(rule, dict) else None
        if isinstance(tps, Unknown) or not isinstance(tps, list):
            tps = [tps if isinstance(tps, Unknown) else Unknown("tps not a list")]
        return (rid if isinstance(rid, str) else None), tps

    @staticmethod
    def _split_args(toks):
        args, cur, depth = [], [], 0
        for t in toks:
            if t[0] == "op" and t[1] in "([{":
                depth += 1
            elif t[0] == "op" and t[1] in ")]}":
                depth -= 1
            if t == ("op", ",") and depth == 0:
                args.append(cur)
                cur = []
            elif t != ("op", ";"):
                cur.append(t)
        if cur:
            args.append(cur)
        return args


# The code shapes of utils.GenerateSampleSecrets ({i} identifier, {I} upper-cased, {s} secret),
# read from gitleaks' own utils package by load_gitleaks (its `samples` map's values).
SAMPLE_TEMPLATES = []


def generate_sample_secrets(identifier, secret):
    if not SAMPLE_TEMPLATES:
        return Unknown("utils.GenerateSampleSecrets templates not found")
    return [t.replace("{i}", identifier).replace("{I}", identifier.upper())
            .replace("{s}", secret) for t in SAMPLE_TEMPLATES]


def load_sample_templates(utils_dir):
    files = [f for f in sorted(glob.glob(os.path.join(utils_dir, "*.go")))
             if not f.endswith("_test.go")]
    ev = GoEval(files)
    for _, name, body in ev.funcs:
        if name == "GenerateSampleSecrets":
            env = {}
            ev.exec_body(body, env)
            got = env.get("samples")
            if isinstance(got, list) and all(isinstance(t, str) for t in got):
                return got
    return []


def b64(text, alphabet):
    raw = text.encode("utf-8", "surrogateescape")
    enc = base64.b64encode(raw) if alphabet == "std" else base64.urlsafe_b64encode(raw)
    return enc.decode("ascii")


def go_sprintf(fmt, *args):
    args = list(args)

    def sub(m):
        if m.group() == "%%":
            return "%"
        return str(args.pop(0))
    return re.sub(r"%[-+# 0-9.]*[sdvq%]", sub, fmt)


# ---------------------------------------------------------------------------------------------
# Loading the sources into samples
# ---------------------------------------------------------------------------------------------
class Sample:
    __slots__ = ("source", "rule_id", "family", "text", "secrets", "np_default")

    def __init__(self, source, rule_id, family, text, secrets, np_default=None):
        self.source, self.rule_id, self.family = source, rule_id, family
        self.text, self.secrets, self.np_default = text, secrets, np_default


def normalize(text):
    return text.replace("\r\n", "\n").replace("\r", "\n")


def shannon(s):
    if not s:
        return 0.0
    counts = collections.Counter(s)
    return -sum(c / len(s) * math.log2(c / len(s)) for c in counts.values())


def compile_allowlists(raw_list, skipped):
    out = []
    for a in raw_list:
        regexes = []
        for r in a.get("regexes", []):
            rx, why = compile_rule(r, "go")
            if rx is None:
                skipped["gitleaks allowlist regex does not compile"] += 1
                continue
            regexes.append(rx)
        out.append({"regexes": regexes, "target": a.get("regexTarget", "secret"),
                    "stopwords": [w.lower() for w in a.get("stopwords", [])],
                    "and": a.get("condition", "OR").upper() == "AND",
                    "has_paths": bool(a.get("paths")) or bool(a.get("commits"))})
    return out


def allowlisted(allowlists, secret, match, line):
    for a in allowlists:
        target = {"secret": secret, "match": match, "line": line}.get(a["target"], secret)
        checks = []
        if a["regexes"]:
            checks.append(any(r.search(target) for r in a["regexes"]))
        if a["stopwords"]:
            checks.append(any(w in secret.lower() for w in a["stopwords"]))
        if a["has_paths"]:
            checks.append(False)
        if checks and (all(checks) if a["and"] else any(checks)):
            return True
    return False


def gitleaks_secrets(rule, text):
    """The secrets gitleaks would report in `text`, per its regex, secret group, entropy and
    allowlists; falls back to the unfiltered matches when the filters drop every match."""
    found, raw = [], []
    for m in rule["regex"].finditer(text):
        if rule["group"] and rule["group"] <= (m.re.groups or 0):
            secret = m.group(rule["group"]) or ""
        else:
            secret = next((g for g in m.groups() if g), m.group())
        if not secret:
            continue
        raw.append(secret)
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end())
        line = text[line_start:len(text) if line_end < 0 else line_end]
        if rule["entropy"] and shannon(secret) <= rule["entropy"]:
            continue
        if rule["id"].startswith("generic") and not re.search(r"\d", secret):
            continue
        if allowlisted(rule["allowlists"], secret, m.group(), line):
            continue
        found.append(secret)
    return found or raw, bool(found)


def load_gitleaks(root, skipped):
    rules_dir = os.path.join(root, "cmd", "generate", "config", "rules")
    toml_path = os.path.join(root, "config", "gitleaks.toml")
    if not (os.path.isdir(rules_dir) and os.path.isfile(toml_path)):
        sys.exit("--gitleaks %s: expected cmd/generate/config/rules and config/gitleaks.toml"
                 % root)
    with open(toml_path, "rb") as f:
        cfg = tomllib.load(f)
    global_al = compile_allowlists([cfg.get("allowlist", {})], skipped)
    rules = {}
    for r in cfg["rules"]:
        if "regex" not in r:
            continue
        rx, why = compile_rule(r["regex"], "go")
        rules[r["id"]] = {"id": r["id"], "regex": rx, "why": why,
                          "group": r.get("secretGroup", 0), "entropy": r.get("entropy", 0),
                          "allowlists": compile_allowlists(r.get("allowlists", []), skipped)
                          + global_al}
    SAMPLE_TEMPLATES[:] = load_sample_templates(os.path.join(root, "cmd", "generate", "config",
                                                             "utils"))
    if not SAMPLE_TEMPLATES:
        skipped["gitleaks note: GenerateSampleSecrets templates not found"] += 1
    ev = GoEval([f for f in sorted(glob.glob(os.path.join(rules_dir, "*.go")))
                 if not f.endswith("_test.go")])
    samples = []
    for path, name, body in ev.funcs:
        rid, tps = ev.run_function(path, name, body)
        if rid is None:
            continue
        rule = rules.get(rid)
        for tp in tps:
            if isinstance(tp, Unknown):
                skipped["gitleaks sample: not evaluated (%s)" % tp.why] += 1
                continue
            if not isinstance(tp, str):
                skipped["gitleaks sample: not a string"] += 1
                continue
            if rule is None:
                skipped["gitleaks sample: rule has no regex in gitleaks.toml (not registered, or path-only)"] += 1
                continue
            if rule["regex"] is None:
                skipped["gitleaks sample: regex does not compile (%s)" % rule["why"]] += 1
                continue
            text = normalize(tp)
            found, filtered = gitleaks_secrets(rule, text)
            if not found:
                skipped["gitleaks sample: regex does not match in Python"] += 1
                continue
            if not filtered:
                skipped["gitleaks note: entropy/allowlist dropped every match (kept raw)"] += 1
            secrets = [("secret", s) for s in dict.fromkeys(found)
                       if len(s.encode()) >= MIN_SECRET_BYTES]
            if not secrets:
                skipped["gitleaks sample: secret shorter than 8 bytes"] += 1
                continue
            samples.append(Sample("gitleaks", rid, family_of(rid), text, secrets))
    return samples


def find_np_rules(root):
    for sub in ("crates/noseyparker/data/default/builtin/rules",
                "crates/noseyparker/data/default/rules", "rules", "."):
        d = os.path.join(root, sub)
        if glob.glob(os.path.join(d, "*.yml")):
            return d
    sys.exit("--noseyparker %s: no rules/*.yml found" % root)


def load_noseyparker(root, skipped):
    try:
        import yaml
    except ImportError:
        sys.exit("--noseyparker needs PyYAML to read the rule files: pip install pyyaml")
    rules_dir = find_np_rules(root)
    default_ids = set()
    ruleset = os.path.join(os.path.dirname(rules_dir), "rulesets", "default.yml")
    if os.path.isfile(ruleset):
        with open(ruleset, encoding="utf-8") as f:
            for rs in yaml.safe_load(f).get("rulesets", []):
                default_ids.update(rs.get("include_rule_ids", []))
    samples = []
    for path in sorted(glob.glob(os.path.join(rules_dir, "*.yml"))):
        with open(path, encoding="utf-8") as f:
            doc = yaml.safe_load(f) or {}
        for r in doc.get("rules", []):
            rid, name = r.get("id", "?"), r.get("name", "")
            examples = r.get("examples") or []
            rx, why = compile_rule(r.get("pattern", ""), "rust")
            if rx is None:
                skipped["noseyparker sample: regex does not compile (%s)" % why] += len(examples)
                continue
            names = {v: k for k, v in rx.groupindex.items()}
            for ex in examples:
                text = normalize(str(ex))
                found = []
                for m in rx.finditer(text):
                    if rx.groups:
                        found += [(names.get(g, "group%d" % g), m.group(g))
                                  for g in range(1, rx.groups + 1) if m.group(g)]
                    elif m.group():
                        found.append(("match", m.group()))
                if not found:
                    skipped["noseyparker sample: regex does not match in Python"] += 1
                    continue
                secrets = [(lab, s) for lab, s in dict.fromkeys(found)
                           if len(s.encode()) >= MIN_SECRET_BYTES]
                if not secrets:
                    skipped["noseyparker sample: secret shorter than 8 bytes"] += 1
                    continue
                samples.append(Sample("noseyparker", rid, family_of(rid, name), text, secrets,
                                      np_default=(rid in default_ids) if default_ids else None))
    return samples


def dedupe(samples, skipped):
    seen, out = set(), []
    for s in samples:
        key = (s.source, s.text)
        if key in seen:
            skipped["%s sample: duplicate" % s.source] += 1
            continue
        seen.add(key)
        out.append(s)
    return out


# ---------------------------------------------------------------------------------------------
# Shapes: how a sample is written into log lines, and how its secret then reads.
# ---------------------------------------------------------------------------------------------
def flat(s):
    return s.replace("\n", " ")


def json_escape(s):
    return json.dumps(s, ensure_ascii=False)[1:-1]


def logfmt_escape(s):
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


# name -> (lines of a sample, encoding of a secret inside those lines, applies to sample?)
SHAPES = {
    "plain": (lambda s: [flat(s)], flat, lambda s: True),
    "error": (lambda s: ["2026-11-29 09:58:01 ERROR [svc] request failed: " + flat(s)], flat,
              lambda s: True),
    "json": (lambda s: ['{"level":"error","msg":"%s"}' % json_escape(s)], json_escape,
             lambda s: True),
    "logfmt": (lambda s: ['level=error msg="%s"' % logfmt_escape(s)], logfmt_escape,
               lambda s: True),
    "multiline": (lambda s: s.split("\n"), lambda x: x, lambda s: "\n" in s),
}


def run_redact(cmd, lines, workdir, tag):
    """Feed lines to the command on stdin; return its output lines, one per input line."""
    path = os.path.join(workdir, tag + ".log")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for line in lines:
            f.write(line + "\n")
    with open(path, "rb") as f:
        proc = subprocess.run(cmd, stdin=f, capture_output=True)
    if proc.returncode != 0:
        sys.exit("%s exited %d on %s: %s" % (" ".join(cmd), proc.returncode, tag,
                                            proc.stderr.decode(errors="replace")[:500]))
    out = proc.stdout.decode("utf-8", errors="replace").split("\n")
    if out and out[-1] == "":
        out.pop()
    if len(out) != len(lines):
        sys.exit("%s: %d input lines but %d output lines (not line for line)"
                 % (tag, len(lines), len(out)))
    return out


def wordish(w):
    """No digit and letters of one case only: `-----BEG`, `PRIVATE `, `password:`."""
    return not re.search(r"\d", w) and not (re.search("[a-z]", w) and re.search("[A-Z]", w))


def score_line(inp, out, enc_secrets):
    """(whole secret left, fragment left, labels leaked) for one sample in one shape."""
    whole, frag, labels = False, False, []
    for label, enc in enc_secrets:
        rest = inp.replace(enc, "\0")
        if enc in out and enc not in rest:
            whole = True
            labels.append(label)
            continue
        for k in range(0, len(enc) - WINDOW + 1):
            w = enc[k:k + WINDOW]
            if "\n" in w or wordish(w) or w in rest:
                continue
            if w in out:
                frag = True
                labels.append(label + "~")
                break
    return whole, frag or whole, labels


def parses_as_json(line):
    """A JSON log line must stay JSON after redaction (a placeholder may not eat a quote)."""
    try:
        json.loads(line)
        return True
    except ValueError:
        return False


def evaluate_secrets(samples, cmd, workdir):
    """Run every shape; return a list of result records (no text kept beyond the output)."""
    results = []
    for shape, (to_lines, enc, applies) in SHAPES.items():
        lines, spans = [], []
        for idx, s in enumerate(samples):
            if not applies(s.text):
                continue
            ls = to_lines(s.text)
            spans.append((idx, len(lines), len(ls)))
            lines.extend(ls)
        if not lines:
            continue
        out = run_redact(cmd, lines, workdir, "secrets-" + shape)
        for idx, start, n in spans:
            s = samples[idx]
            inp = "\n".join(lines[start:start + n])
            got = "\n".join(out[start:start + n])
            whole, frag, labels = score_line(inp, got, [(lab, enc(x)) for lab, x in s.secrets])
            broken = shape == "json" and not parses_as_json(got)
            results.append({"sample": idx, "shape": shape, "whole": whole, "frag": frag,
                            "labels": labels, "broken": broken,
                            "output": got if frag or broken else None})
    return results


# ---------------------------------------------------------------------------------------------
# Loghub: an independent oracle for IPv4, IPv6 and e-mail addresses
# ---------------------------------------------------------------------------------------------
SYSTEMS = ["HDFS", "Hadoop", "Spark", "Zookeeper", "BGL", "HPC", "Thunderbird", "Windows",
           "Linux", "Android", "HealthApp", "Apache", "Proxifier", "OpenSSH", "OpenStack", "Mac"]

# A dotted quad not inside a longer dotted/word token (a trailing sentence dot is allowed).
IPV4 = re.compile(r"(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\w]|\.\d)")
# Version-like contexts: `version=1.2.8.57`, `v1.2.3.4`, and Windows CBS component identities
# (`name~token~arch~~6.1.0.0`), whose last field is a four-part version, not an address.
VERSION_BEFORE = re.compile(r"(?<![A-Za-z])(?:version|ver|rev|build|v)[\s=:]*$|~$", re.I)
# A run of hex digits and colons; see ipv6_in_run.
IPV6_RUN = re.compile(r"(?<![\w.:])[0-9A-Fa-f]*(?::[0-9A-Fa-f]*){2,}(?![\w.])")
EMAIL = re.compile(r"(?<![\w.%+-])[A-Za-z0-9._+-]+(?:@|%40)[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
                   r"\.[A-Za-z]{2,}(?![\w-])")
WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z]{3,}(?![A-Za-z0-9_])")


def ipv6_in_run(run):
    """The IPv6 address a hex-and-colon run spells, or None. Tried: the run itself, without a
    stray leading or trailing colon (`en0+:2607:...`), and without a trailing `:port` (Java
    prints `/0:0:0:0:0:0:0:0:2181`). A bare `::` is left out: in logs it is as often a scope
    operator as the unspecified address."""
    tries = [run]
    if run.startswith(":") and not run.startswith("::"):
        tries.append(run[1:])
    if run.endswith(":") and not run.endswith("::"):
        tries.append(run[:-1])
    tries += [t.rsplit(":", 1)[0] for t in list(tries) if re.search(r":\d{1,5}$", t)]
    for t in tries:
        if t == "::" or (t.count(":") < 7 and "::" not in t):
            continue
        try:
            ipaddress.IPv6Address(t)
        except ValueError:
            continue
        return t
    return None


def oracle_labels(line):
    """[(kind, value)] for one raw log line."""
    labels = []
    for m in IPV4.finditer(line):
        if all(int(g) <= 255 for g in m.groups()) and \
                not VERSION_BEFORE.search(line[max(0, m.start() - 12):m.start()]):
            labels.append(("ipv4", m.group()))
    for m in IPV6_RUN.finditer(line):
        v = ipv6_in_run(m.group())
        if v:
            labels.append(("ipv6", v))
    for m in EMAIL.finditer(line):
        labels.append(("email", m.group()))
    return labels


def find_loghub(root):
    for sub in ("data/loghub_2k", "loghub_2k", "."):
        d = os.path.join(root, sub)
        if os.path.isfile(os.path.join(d, "HDFS", "HDFS_2k.log")):
            return d
    sys.exit("--loghub %s: no <System>/<System>_2k.log found (data/loghub_2k)" % root)


def evaluate_loghub(root, cmd, workdir, show):
    base = find_loghub(root)
    table, examples = {}, {}
    for system in SYSTEMS:
        path = os.path.join(base, system, system + "_2k.log")
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        lines = [ln.rstrip("\r") for ln in lines]
        out = run_redact(cmd, lines, workdir, "loghub-" + system)
        row = {"lines": len(lines), "ipv4": 0, "ipv4_left": 0, "ipv6": 0, "ipv6_left": 0,
               "email": 0, "email_left": 0, "unlabelled": 0, "changed": 0, "lost_word": 0}
        ex = {"left": [], "lost": [], "words": collections.Counter()}
        for inp, got in zip(lines, out):
            labels = oracle_labels(inp)
            for kind, value in labels:
                row[kind] += 1
                if value in got:
                    row[kind + "_left"] += 1
                    if len(ex["left"]) < show:
                        ex["left"].append((kind, value, got))
            if labels:
                continue
            row["unlabelled"] += 1
            if got != inp:
                row["changed"] += 1
                lost = set(WORD.findall(inp)) - set(WORD.findall(got))
                if lost:
                    row["lost_word"] += 1
                    ex["words"].update(lost)
                    if len(ex["lost"]) < show:
                        ex["lost"].append((sorted(lost), inp, got))
        table[system] = row
        examples[system] = ex
    return table, examples


# ---------------------------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------------------------
def pct(n, d):
    return 100.0 * n / d if d else 0.0


def tally(results, samples, key):
    agg = collections.defaultdict(lambda: [0, 0, 0])
    for r in results:
        for k in key(samples[r["sample"]], r):
            a = agg[k]
            a[0] += 1
            a[1] += r["whole"]
            a[2] += r["frag"]
    return {k: {"lines": v[0], "whole_left": v[1], "fragment_left": v[2],
                "whole_pct": round(pct(v[1], v[0]), 2), "fragment_pct": round(pct(v[2], v[0]), 2)}
            for k, v in agg.items()}


def source_keys(s, r):
    keys = [s.source]
    if s.source == "noseyparker" and s.np_default is not None:
        keys.append("noseyparker (%s)" % ("default ruleset" if s.np_default else "other rules"))
    return keys


def print_table(title, header, rows):
    print("\n" + title)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)] if rows else []
    fmt = "  ".join("{:<%d}" % w if i == 0 else "{:>%d}" % w for i, w in enumerate(widths))
    print(fmt.format(*header))
    for row in rows:
        print(fmt.format(*row))


def cell(d):
    return ("%d" % d["lines"], "%.1f%%" % d["whole_pct"], "%.1f%%" % d["fragment_pct"])


def report_secrets(samples, results, summary):
    by_source = tally(results, samples, source_keys)
    by_shape = tally(results, samples, lambda s, r: [(s.source, r["shape"])])
    by_family = tally(results, samples, lambda s, r: [(s.family, s.source)])
    by_rule = tally(results, samples, lambda s, r: [(s.source, s.rule_id)])
    n_samples = collections.Counter(k for s in samples for k in source_keys(s, None))
    summary["secrets"] = {
        "samples": dict(n_samples),
        "by_source": by_source,
        "by_shape": {"%s/%s" % k: v for k, v in by_shape.items()},
        "by_family": {"%s/%s" % k: v for k, v in by_family.items()},
        "by_rule": {"%s/%s" % k: v for k, v in by_rule.items() if v["fragment_left"]},
    }
    print_table("Secret samples: lines whose whole secret / any 8-byte fragment survived",
                ["source", "samples", "lines", "whole left", "fragment left"],
                [(k, n_samples.get(k, ""), *cell(v)) for k, v in sorted(by_source.items())])
    sources = sorted({s.source for s in samples})
    print_table("By shape", ["shape"] + ["%s %s" % (src, c) for src in sources
                                         for c in ("lines", "whole", "frag")],
                [(shape, *[x for src in sources
                           for x in (cell(by_shape[(src, shape)]) if (src, shape) in by_shape
                                     else ("-", "-", "-"))])
                 for shape in SHAPES])
    broken = collections.Counter(samples[r["sample"]].source for r in results if r["broken"])
    summary["secrets"]["json_lines_broken"] = dict(broken)
    print("JSON-shape output lines that no longer parse as JSON: %s" % ", ".join(
        "%s %d/%d" % (src, broken.get(src, 0), by_shape[(src, "json")]["lines"])
        for src in sources if (src, "json") in by_shape))
    fams = [k for k, _, _ in FAMILIES] + [OTHER[0]]
    print_table("By family", ["family"] + ["%s %s" % (src, c) for src in sources
                                           for c in ("lines", "whole", "frag")],
                [(FAMILY_NAMES[f], *[x for src in sources
                                     for x in (cell(by_family[(f, src)])
                                               if (f, src) in by_family else ("-", "-", "-"))])
                 for f in fams if any((f, src) in by_family for src in sources)])
    leaking = sorted(((k, v) for k, v in by_rule.items() if v["fragment_left"]),
                     key=lambda kv: (-kv[1]["fragment_left"], kv[0]))
    groups = collections.defaultdict(collections.Counter)
    for r in results:
        s = samples[r["sample"]]
        groups[(s.source, s.rule_id)].update(lab.rstrip("~") for lab in r["labels"])
    print_table("Leaking rules (%d; top 30 by lines with a fragment left; groups = capture "
                "groups that leaked)" % len(leaking),
                ["source", "rule", "family", "lines", "whole", "frag", "groups"],
                [(src, rid, next(s.family for s in samples if s.rule_id == rid), v["lines"],
                  v["whole_left"], v["fragment_left"],
                  " ".join("%s:%d" % kv for kv in sorted(groups[(src, rid)].items())))
                 for (src, rid), v in leaking[:30]])


def show_broken(samples, results, n):
    """Up to n JSON-shape output lines that redaction left unparseable."""
    rows = [r for r in results if r["broken"]][:n]
    if rows:
        print("\nJSON lines broken by redaction (local debugging only)")
    for r in rows:
        s = samples[r["sample"]]
        print("%s %s: %s" % (s.source, s.rule_id, r["output"][:400]))


def show_leaks(samples, results, n):
    """Up to n leaking lines per family, one rule at a time (round robin), whole leaks first."""
    per_family = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in results:
        if r["frag"]:
            s = samples[r["sample"]]
            per_family[s.family][(s.source, s.rule_id)].append(r)
    print("\nLeaking examples (local debugging only: these lines hold sample secrets)")
    for fam in [k for k, _, _ in FAMILIES] + [OTHER[0]]:
        rules = per_family.get(fam)
        if not rules:
            continue
        print("\n== %s (%d rules leak)" % (FAMILY_NAMES[fam], len(rules)))
        queues = [sorted(v, key=lambda r: (not r["whole"], r["shape"])) for _, v in
                  sorted(rules.items(), key=lambda kv: -len(kv[1]))]
        shown = 0
        while shown < n and any(queues):
            for q in queues:
                if q and shown < n:
                    r = q.pop(0)
                    s = samples[r["sample"]]
                    print("%s %s [%s] %s %s: %s" % (
                        s.source, s.rule_id, r["shape"], "WHOLE" if r["whole"] else "frag",
                        ",".join(r["labels"]), r["output"].replace("\n", "\\n")[:400]))
                    shown += 1


def report_loghub(table, examples, summary, show):
    summary["loghub"] = table
    rows = []
    tot = collections.Counter()
    for system, r in table.items():
        tot.update(r)
        rows.append(loghub_row(system, r))
    rows.append(loghub_row("all", tot))
    print_table("Loghub-2k raw lines: oracle labels left, and over-redaction of unlabelled lines",
                ["system", "lines", "ipv4 left", "ipv6 left", "email left", "unlabelled",
                 "changed", "lost a word"], rows)
    if show:
        print("\nLoghub examples (local debugging only)")
        for system, ex in examples.items():
            if ex["words"]:
                print("%s most often lost words: %s" % (system, ", ".join(
                    "%s %d" % kv for kv in ex["words"].most_common(12))))
            for kind, value, got in ex["left"]:
                print("%s LEFT %s %s: %s" % (system, kind, value, got[:300]))
            for lost, inp, got in ex["lost"]:
                print("%s LOST %s:\n  in : %s\n  out: %s" % (system, ",".join(lost[:6]),
                                                           inp[:300], got[:300]))


def loghub_row(name, r):
    def left(k):
        return "%d/%d" % (r[k + "_left"], r[k])
    return (name, r["lines"], left("ipv4"), left("ipv6"), left("email"), r["unlabelled"],
            "%.1f%%" % pct(r["changed"], r["unlabelled"]),
            "%.1f%%" % pct(r["lost_word"], r["unlabelled"]))


def command_identity(cmd):
    """sha256 and mtime of the command's executable, so a summary names the build it scored."""
    path = cmd[0] if os.path.isfile(cmd[0]) else shutil.which(cmd[0])
    if path is None:
        return {}
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"sha256": digest, "mtime": time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                                     time.gmtime(os.path.getmtime(path)))}


def git_head(path):
    try:
        return subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


# ---------------------------------------------------------------------------------------------
def main(argv):
    k = argv.index("--") if "--" in argv else len(argv)
    own, cmd = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description="Score `aciproj redact` on public rule sets and logs.")
    ap.add_argument("--gitleaks", metavar="DIR", help="a checkout of gitleaks/gitleaks")
    ap.add_argument("--noseyparker", metavar="DIR", help="a checkout of praetorian-inc/noseyparker")
    ap.add_argument("--loghub", metavar="DIR",
                    help="a checkout of logpai/logparser (its data/loghub_2k)")
    ap.add_argument("--family", choices=[k for k, _, _ in FAMILIES] + [OTHER[0]],
                    help="score only the secret samples of this family")
    ap.add_argument("--show-leaks", type=int, default=0, metavar="N",
                    help="print up to N leaking lines per family (and Loghub examples)")
    ap.add_argument("--json", metavar="FILE", help="write the summary numbers as JSON")
    args = ap.parse_args(own)
    if not cmd:
        ap.error("give the redact command after --")
    if not (args.gitleaks or args.noseyparker or args.loghub):
        ap.error("give at least one of --gitleaks, --noseyparker, --loghub")
    started = time.time()
    summary = {"command": cmd, "executable": command_identity(cmd), "sources": {},
               "skipped": {}}
    skipped = collections.Counter()
    samples = []
    if args.gitleaks:
        summary["sources"]["gitleaks"] = {"commit": git_head(args.gitleaks)}
        samples += load_gitleaks(args.gitleaks, skipped)
    if args.noseyparker:
        summary["sources"]["noseyparker"] = {"commit": git_head(args.noseyparker)}
        samples += load_noseyparker(args.noseyparker, skipped)
    samples = dedupe(samples, skipped)
    if args.family:
        samples = [s for s in samples if s.family == args.family]
    with tempfile.TemporaryDirectory(prefix="redaction-eval-") as workdir:
        if samples:
            results = evaluate_secrets(samples, cmd, workdir)
            report_secrets(samples, results, summary)
        if skipped:
            summary["skipped"] = dict(skipped)
            print("\nSkipped or noted (count, reason):")
            for reason, n in sorted(skipped.items()):
                print("  %6d  %s" % (n, reason))
        if samples and args.show_leaks:
            show_leaks(samples, results, args.show_leaks)
            show_broken(samples, results, args.show_leaks)
        if args.loghub:
            summary["sources"]["loghub"] = {"commit": git_head(args.loghub)}
            table, examples = evaluate_loghub(args.loghub, cmd, workdir, args.show_leaks)
            report_loghub(table, examples, summary, args.show_leaks)
    summary["seconds"] = round(time.time() - started, 1)
    after = command_identity(cmd)
    if after != summary["executable"]:
        print("warning: %s changed during the run; scores may mix two builds" % cmd[0])
        summary["executable_changed"] = True
    print("\n%.1f s; %s sha256 %s" % (summary["seconds"], cmd[0],
                                      after.get("sha256", "?")[:16]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
