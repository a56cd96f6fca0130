#!/usr/bin/env bash
# Benchmarks aciproj against its floors, side by side, on this machine (SPEC §8, issue 17). Not a
# test: nothing here asserts a speed; it prints each ratio next to its goal.
#
#   bench/run.sh [LOGHUB_2K_DIR]            (ACIPROJ_BIN=path times another aciproj build)
#
# 1. Large response: `aciproj logs` on a generated 1,000,000-entry Mock response against the
#    slice floor (`examples/floor.rs`: the file read whole, `serde_json::from_slice` into
#    `IgnoredAny`), and peak RSS at 1M and 4M entries.
# 2. Typical call: a 100-entry response, aciproj vs the floor process.
# 3. Pattern mining: `aciproj patterns` on the Loghub-2k content repeated 20 times against Drain3
#    with its default configuration (needs LOGHUB_2K_DIR, e.g. data/loghub_2k of
#    logpai/logparser, and `pip install drain3`). The data is research-only: never commit it.
# 4. Line filter: `aciproj redact` on the 1M response's messages (one per line, a message's own
#    line breaks turned into spaces) against `sed -E` with one IPv4 substitution.
#
# Every ratio is the median of aciproj's runs over the median of the baseline's (hyperfine, the
# two commands in one call). Inputs are generated deterministically into $BENCH_DIR (default
# /tmp/aciproj-bench, about 1.5 GB) and kept there for the next run; the script says so at the
# end. BENCH_CLEAN=1 removes that folder when the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tools first, before anything is built or the ~1.5 GB of inputs is generated: a missing
# one is reported with what to install, and nothing is written.
missing=()
need() { # COMMAND WHAT-TO-INSTALL
  command -v "$1" >/dev/null 2>&1 || missing+=("$1: $2")
}
need cargo "a Rust toolchain (https://rustup.rs)"
need hyperfine "hyperfine (cargo install hyperfine, or apt-get install hyperfine)"
need python3 "Python 3 (apt-get install python3)"
need sed "GNU sed (apt-get install sed)"
[ -x /usr/bin/time ] || missing+=("/usr/bin/time: GNU time, for peak RSS (apt-get install time)")
if [ $# -ge 1 ]; then
  [ -d "$1" ] || missing+=("$1: the Loghub-2k folder (data/loghub_2k of logpai/logparser)")
  if ! "${DRAIN3_PYTHON:-python3}" -c 'import drain3' >/dev/null 2>&1; then
    missing+=("drain3 for ${DRAIN3_PYTHON:-python3}: pip install drain3 (or set DRAIN3_PYTHON)")
  fi
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench/run.sh: missing, install first (nothing was generated):" >&2
  printf '  %s\n' "${missing[@]}" >&2
  exit 1
fi

dir=${BENCH_DIR:-/tmp/aciproj-bench}
mkdir -p "$dir"
if [ "${BENCH_CLEAN:-0}" = 1 ]; then
  trap 'rm -rf "$dir"; echo "removed $dir"' EXIT
else
  trap 'echo "inputs and results kept in $dir (about 1.5 GB; rm -rf $dir, or BENCH_CLEAN=1)"' EXIT
fi
cargo build --release -q --bin aciproj --example floor --example gen_mock_logs
bin=${ACIPROJ_BIN:-target/release/aciproj}
floor=target/release/examples/floor
ctx=bench/context.json

for n in 100 1000000 4000000; do
  [ -s "$dir/mock-$n.json" ] || target/release/examples/gen_mock_logs "$n" > "$dir/mock-$n.json"
done
# The 1M response's messages, one per line.
[ -s "$dir/messages-1000000.txt" ] || python3 - "$dir/mock-1000000.json" "$dir/messages-1000000.txt" <<'PY'
import json, sys
logs = json.load(open(sys.argv[1], encoding="utf-8"))["logs"]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.writelines(e["message"].replace("\r", " ").replace("\n", " ") + "\n" for e in logs)
PY

# ratio FILE LABEL GOAL: the median of the second command over the first's (or, with
# "faster", the first's over the second's).
ratio() {
  python3 - "$@" <<'PY'
import json, sys
path, label, goal = sys.argv[1:4]
faster = len(sys.argv) > 4
r = json.load(open(path))["results"]
a, b = r[0]["median"], r[1]["median"]
value = a / b if faster else b / a
shown = f"{value:.1f}x faster" if faster else f"{value:.2f}x"
print(f"RATIO {label}: {shown}  (medians {b:.4f} s vs {a:.4f} s; goal {goal})")
PY
}
peak_kb() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -n 1; }
logs="$bin logs --context $ctx --call-id bench --topic application-logs --query payment"

echo "== large response (1M entries, $(du -h "$dir/mock-1000000.json" | cut -f1))"
hyperfine -N --warmup 1 --runs 5 --export-json "$dir/large.json" \
  "$floor $dir/mock-1000000.json" "$logs $dir/mock-1000000.json"
ratio "$dir/large.json" "logs 1M vs slice floor, wall" "<= 3x"
# shellcheck disable=SC2086
echo "peak RSS 1M entries: $(peak_kb $logs "$dir/mock-1000000.json") KB"
# shellcheck disable=SC2086
echo "peak RSS 4M entries: $(peak_kb $logs "$dir/mock-4000000.json") KB  (goal: <= 65536 KB, flat)"

echo "== typical call (100 entries)"
hyperfine -N --warmup 20 --runs 300 --export-json "$dir/typical.json" \
  "$floor $dir/mock-100.json" "$logs $dir/mock-100.json"
ratio "$dir/typical.json" "logs 100 entries vs floor process, wall" "<= 2x"

echo "== line filter (1M messages, $(du -h "$dir/messages-1000000.txt" | cut -f1))"
# shellcheck disable=SC2016
hyperfine --warmup 1 --runs 5 --export-json "$dir/redact.json" \
  "sed -E 's/[0-9]{1,3}(\.[0-9]{1,3}){3}/<IP>/g' $dir/messages-1000000.txt" \
  "$bin redact $dir/messages-1000000.txt"
ratio "$dir/redact.json" "redact 1M messages vs sed -E (one IPv4 substitution), wall" "<= 1.5x"

if [ $# -ge 1 ]; then
  echo "== pattern mining (Loghub-2k content x20)"
  lines="$dir/loghub-x20.txt"
  # Written once and kept, like the other inputs: timing a file just written measured its
  # write-back (0.58 s instead of 0.15 s for aciproj's first runs).
  [ -s "$lines" ] || python3 - "$1" "$lines" <<'PY'
import csv, glob, sys
rows = []
for path in sorted(glob.glob(f"{sys.argv[1]}/*/*_2k.log_structured.csv")):
    with open(path, newline="", encoding="utf-8") as f:
        rows += [r["Content"] for r in csv.DictReader(f)]
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for _ in range(20):
        out.writelines(r.replace("\n", " ") + "\n" for r in rows)
PY
  head -n "$(( $(wc -l < "$lines") / 20 ))" "$lines" > "$dir/loghub-x1.txt"
  echo "$(wc -l < "$lines") lines"
  py=${DRAIN3_PYTHON:-python3}
  hyperfine -N --warmup 1 --runs 3 --export-json "$dir/patterns.json" \
    "$py bench/drain3_baseline.py $lines" "$bin patterns $lines"
  ratio "$dir/patterns.json" "patterns on Loghub-2k x20 vs Drain3 (default config)" ">= 40x" faster
  # The x20 file repeats every line 20 times, and `patterns` redacts a repeated line only once.
  # The content once (32k lines, some repeats of its own) shows the speed-up without that help.
  hyperfine -N --runs 5 --export-json "$dir/patterns-x1.json" \
    "$py bench/drain3_baseline.py $dir/loghub-x1.txt" "$bin patterns $dir/loghub-x1.txt"
  ratio "$dir/patterns-x1.json" "patterns on Loghub-2k once vs Drain3 (for comparison)" "none" faster
fi
