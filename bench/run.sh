#!/usr/bin/env bash
# Benchmarks aciproj against its floors, side by side, on this machine (SPEC §8, issue
# "Performance"). Not a test: nothing here asserts a speed.
#
#   bench/run.sh [LOGHUB_2K_DIR]
#
# 1. Large response: `aciproj logs` on a generated 1,000,000-entry Mock response against the
#    floor (read + serde_json into IgnoredAny), and peak RSS at 1M and 4M entries.
# 2. Typical call: a 100-entry response, aciproj vs the floor process (hyperfine).
# 3. Pattern mining: `aciproj patterns` on the Loghub-2k content repeated 20 times against Drain3
#    with its default configuration (needs LOGHUB_2K_DIR, e.g. data/loghub_2k of
#    logpai/logparser, and `pip install drain3`). The data is research-only: never commit it.
#
# Inputs are generated deterministically into $BENCH_DIR (default /tmp/aciproj-bench).
set -euo pipefail
cd "$(dirname "$0")/.."

# The tools first, before anything is built or the ~1.4 GB of inputs is generated: a missing
# one is reported with what to install, and nothing is written.
missing=()
need() { # COMMAND WHAT-TO-INSTALL
  command -v "$1" >/dev/null 2>&1 || missing+=("$1: $2")
}
need cargo "a Rust toolchain (https://rustup.rs)"
need hyperfine "hyperfine (cargo install hyperfine, or apt-get install hyperfine)"
need python3 "Python 3 (apt-get install python3)"
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
cargo build --release -q --bin aciproj --example floor --example gen_mock_logs
bin=target/release/aciproj
floor=target/release/examples/floor
ctx=bench/context.json

for n in 100 1000000 4000000; do
  [ -s "$dir/mock-$n.json" ] || target/release/examples/gen_mock_logs "$n" > "$dir/mock-$n.json"
done

peak_kb() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -n 1; }
logs=("$bin" logs --context "$ctx" --call-id bench --topic application-logs --query payment)

echo "== large response (1M entries, $(du -h "$dir/mock-1000000.json" | cut -f1))"
hyperfine --warmup 1 --runs 5 --export-json "$dir/large.json" \
  "$floor $dir/mock-1000000.json" \
  "$bin logs --context $ctx --call-id bench --topic application-logs --query payment $dir/mock-1000000.json"
python3 - "$dir/large.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"ratio aciproj/floor: {r[1]['mean'] / r[0]['mean']:.2f}x  (target <= 4x)")
PY
echo "peak RSS 1M entries: $(peak_kb "${logs[@]}" "$dir/mock-1000000.json") KB"
echo "peak RSS 4M entries: $(peak_kb "${logs[@]}" "$dir/mock-4000000.json") KB  (target: <= 64 MiB, not above 1M)"

echo "== typical call (100 entries)"
hyperfine -N --warmup 20 --runs 200 --export-json "$dir/typical.json" \
  "$floor $dir/mock-100.json" \
  "$bin logs --context $ctx --call-id bench --topic application-logs --query payment $dir/mock-100.json"
python3 - "$dir/typical.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"ratio aciproj/floor: {r[1]['mean'] / r[0]['mean']:.2f}x  (target <= 5x)")
PY

if [ $# -ge 1 ]; then
  echo "== pattern mining (Loghub-2k content x20)"
  lines="$dir/loghub-x20.txt"
  python3 - "$1" "$lines" <<'PY'
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
  versus_drain3() { # RUNS FILE LABEL
    hyperfine --runs "$1" --export-json "$dir/patterns.json" \
      "$py bench/drain3_baseline.py $2" "$bin patterns $2"
    python3 - "$dir/patterns.json" "$3" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"speed-up aciproj over Drain3, {sys.argv[2]}: {r[0]['mean'] / r[1]['mean']:.1f}x")
PY
  }
  versus_drain3 3 "$lines" "content x20 (target >= 20x)"
  # The x20 file repeats every line 20 times, and `patterns` redacts a repeated line only once.
  # The content once (32k lines, some repeats of its own) shows the speed-up without that help.
  versus_drain3 5 "$dir/loghub-x1.txt" "content once (for comparison)"
fi
