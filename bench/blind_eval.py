#!/usr/bin/env python3
"""Score `aciproj redact` on labelled corpora written by people who never read the rules.

Usage:
  python3 bench/blind_eval.py [--half tune|held|all] [--show N] [--json FILE] \
      CORPUS.jsonl [CORPUS.jsonl ...] -- target/release/aciproj redact

A corpus line is one log record:
  {"id": "a-001", "text": "...", "sensitive": [{"class": "secret", "value": "..."}],
   "keep": ["..."]}
`text` may span several lines; every `value` and `keep` string is an exact substring of it.
Classes: secret, token, host, pod, pid, ip, email, sql, stack.

Why halves
----------
A corpus tells how well redaction generalizes only while nobody tunes on it. Each record falls
into one half by a hash of its id: `tune` is the half a rule author may read (`--show` prints its
leaks) and fix from; `held` is never shown, and its figures are the generalization figure. The
split depends on the id alone, so it is the same on every machine and every run.

What is fed
-----------
Each record is redacted twice:
- as text, line by line, one `redact` process per record (so no record's lines open a context
  for the next one's), the way `kubectl logs | aciproj redact` reads it;
- as one message, the record as the `message` of a JSON log line through `redact --json`, the
  way the log projection reads a multi-line message.
A value counts as leaked in a reading when it occurs in that reading's output as a whole token
(not inside a longer run of letters and digits); a record leaks when either reading leaks.

Figures, per class and overall:
- sensitive records whose main value is left: a labelled value of that class left whole;
- fragment left: some 8-byte window of a value (values of 8 bytes or more) left, that holds a
  digit or a letter of each case and does not occur in the record outside its values;
- benign records intact: records with no labelled value whose text comes out unchanged;
- keep strings left: `keep` substrings still in the output, over every record.
"""

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections import defaultdict

CLASSES = ["secret", "token", "host", "pod", "pid", "ip", "email", "sql", "stack"]


def half_of(record_id):
    return "tune" if hashlib.sha256(record_id.encode()).digest()[0] % 2 == 0 else "held"


def load(paths, half):
    records = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as e:
                    sys.exit(f"{path}:{n}: not JSON: {e}")
                if half != "all" and half_of(r["id"]) != half:
                    continue
                records.append(r)
    return records


def whole(value, out):
    """`value` in `out`, not inside a longer run of letters and digits."""
    left = r"(?<![A-Za-z0-9])" if value[:1].isalnum() else ""
    right = r"(?![A-Za-z0-9])" if value[-1:].isalnum() else ""
    return re.search(left + re.escape(value) + right, out) is not None


def fragment(value, out, outside):
    if len(value) < 8:
        return whole(value, out)
    for i in range(len(value) - 7):
        w = value[i : i + 8]
        mixed = any(c.isdigit() for c in w) or (
            any(c.isupper() for c in w) and any(c.islower() for c in w)
        )
        if mixed and w in out and w not in outside:
            return True
    return False


def run(cmd, data):
    p = subprocess.run(cmd, input=data.encode(), capture_output=True, timeout=60)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()[:400]}")
    return p.stdout.decode("utf-8", "replace")


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: blind_eval.py [options] CORPUS... -- REDACT-COMMAND...")
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--half", choices=["tune", "held", "all"], default="tune")
    ap.add_argument("--show", type=int, default=0, help="print N leaking records (tune half only)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1 :]
    if args.show and args.half != "tune":
        sys.exit("--show prints only the tune half: the held half is never read")
    records = load(args.corpora, args.half)

    # One message per record through --json, all in one process.
    lines = "".join(json.dumps({"message": r["text"]}, ensure_ascii=False) + "\n" for r in records)
    as_json = run(cmd + ["--json"], lines).split("\n")
    per_class = defaultdict(lambda: [0, 0, 0])  # records, whole left, fragment left
    overall = [0, 0, 0]
    benign = [0, 0]
    keep = [0, 0]
    shown = 0
    for r, jline in zip(records, as_json):
        text = r["text"]
        outs = [run(cmd, text + "\n")]
        try:
            outs.append(json.loads(jline)["message"])
        except (json.JSONDecodeError, KeyError, TypeError):
            outs.append(jline)
        both = "\n\x00\n".join(outs)
        values = r.get("sensitive", [])
        outside = text
        for v in values:
            outside = outside.replace(v["value"], "\x00")
        for k in r.get("keep", []):
            keep[0] += 1
            keep[1] += all(k in o for o in outs)
        if not values:
            benign[0] += 1
            intact = all(o.rstrip("\n") == text for o in outs)
            benign[1] += intact
            if not intact and shown < args.show:
                shown += 1
                print(f"--- {r['id']} benign changed\n{text}\n=> {outs[0].rstrip()}\n")
            continue
        leaked_any = frag_any = False
        for cls in CLASSES:
            vs = [v["value"] for v in values if v["class"] == cls]
            if not vs:
                continue
            left = [v for v in vs if whole(v, both)]
            frag = [v for v in vs if fragment(v, both, outside)]
            per_class[cls][0] += 1
            per_class[cls][1] += bool(left)
            per_class[cls][2] += bool(left or frag)
            leaked_any |= bool(left)
            frag_any |= bool(left or frag)
            if left and shown < args.show:
                shown += 1
                print(f"--- {r['id']} {cls} left: {left}\n{text}\n=> {outs[0].rstrip()}\n")
        overall[0] += 1
        overall[1] += leaked_any
        overall[2] += frag_any

    def pct(a, b):
        return f"{100 * a / b:.1f}%" if b else "-"

    print(f"half: {args.half}; records: {len(records)}")
    print(f"{'class':<8} {'records':>8} {'left':>6} {'rate':>7} {'frag':>6} {'rate':>7}")
    for cls in CLASSES:
        n, w, f = per_class[cls]
        print(f"{cls:<8} {n:>8} {w:>6} {pct(w, n):>7} {f:>6} {pct(f, n):>7}")
    n, w, f = overall
    print(f"{'all':<8} {n:>8} {w:>6} {pct(w, n):>7} {f:>6} {pct(f, n):>7}")
    print(f"benign intact: {benign[1]}/{benign[0]} ({pct(benign[1], benign[0])})")
    print(f"keep strings left: {keep[1]}/{keep[0]} ({pct(keep[1], keep[0])})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "half": args.half,
                    "classes": {c: per_class[c] for c in CLASSES},
                    "all": overall,
                    "benign": benign,
                    "keep": keep,
                },
                f,
                indent=1,
            )


if __name__ == "__main__":
    main()
