#!/usr/bin/env bash
# The ledger at scale (issue 29): one `rag` call and `ledger verify` on ledgers of 10k, 100k and
# 1M records, wall time and peak RSS, side by side with the same call on an empty ledger and
# with `sha256sum` of the same file. Not a test: nothing here asserts; it prints the figures and
# the goals (a call <= 50 ms and <= 32 MiB; verify <= 32 MiB and within 2x of sha256sum).
# Times and peak RSS come from bench/measure.py (the child's rusage: what /usr/bin/time -v prints).
#
#   bench/ledger.sh            (ACIPROJ_BIN=path times another build; SIZES="10000 100000")
#
# Two shapes per size: "other runs" (the records spread over size/100 runs that are not the
# caller's; 1000 for 100k) and "one run" (every record is an earlier call of the caller's run).
# For each: the first call (no index yet: it streams the ledger once and builds the index), then
# the median of $CALLS calls that find the index, each with a fresh call id. Inputs go to
# $BENCH_DIR (default /tmp/aciproj-ledger-bench, about 1 GB at 1M records) and are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs GNU time for peak RSS (apt-get install time)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "needs python3" >&2; exit 1; }
if [ -z "${ACIPROJ_BIN:-}" ]; then
  cargo build --release --quiet
  ACIPROJ_BIN=$PWD/target/release/aciproj
fi
BENCH_DIR=${BENCH_DIR:-/tmp/aciproj-ledger-bench}
SIZES=${SIZES:-"10000 100000 1000000"}
CALLS=${CALLS:-15}
RESPONSE=$PWD/fixtures/rag/kafka-consumer-lag.json
mkdir -p "$BENCH_DIR"

# context FILE LEDGER: the caller's run is `bench-run`, with budget for a million calls.
context() {
  cat > "$1" <<JSON
{"run_id": "bench-run", "status": "ACTIVE", "authorized_tools": ["rag"],
 "now": "2026-11-29T10:00:00+08:00", "ledger": "$2",
 "budget": {"max_tool_calls": 10000000, "max_observation_bytes": 100000000000}}
JSON
}

call_id=0
# calls NAME CONTEXT: the first call (builds the index), then $CALLS calls with fresh ids.
calls() {
  local name=$1 ctx=$2 first rest
  first=$(python3 bench/measure.py 1 "$call_id" "$ACIPROJ_BIN" rag --context "$ctx" \
    --call-id "bench_{i}" --query "bench {i}" "$RESPONSE")
  rest=$(python3 bench/measure.py "$CALLS" "$((call_id + 1))" "$ACIPROJ_BIN" rag \
    --context "$ctx" --call-id "bench_{i}" --query "bench {i}" "$RESPONSE")
  call_id=$((call_id + CALLS + 1))
  printf '%-18s first call %s\n%-18s one call   %s\n' "$name" "$first" "" "$rest"
}

verify() {
  local name=$1 ledger=$2
  printf '%-18s verify     %s\n%-18s sha256sum  %s   (%s MB)\n' \
    "" "$(python3 bench/measure.py 3 0 "$ACIPROJ_BIN" ledger verify "$ledger")" \
    "" "$(python3 bench/measure.py 3 0 sha256sum "$ledger")" \
    "$(( $(stat -c %s "$ledger") / 1000000 ))"
}

echo "aciproj: $ACIPROJ_BIN"
echo "goals: a call <= 50 ms and <= 32 MiB; ledger verify <= 32 MiB and <= 2x sha256sum"
echo "each line: median wall (min wall, median user+system CPU) and the largest peak RSS"
dir=$BENCH_DIR/empty
rm -rf "$dir" && mkdir -p "$dir"
context "$dir/context.json" l.jsonl
calls "empty ledger" "$dir/context.json"

for n in $SIZES; do
  for shape in other one; do
    src=$BENCH_DIR/$shape-$n.jsonl
    if [ ! -f "$src" ]; then
      if [ "$shape" = other ]; then
        python3 bench/ledger_gen.py "$src" "$n" $((n / 100 > 0 ? n / 100 : 1)) other
      else
        python3 bench/ledger_gen.py "$src" "$n" 1 bench-run
      fi
    fi
    # A copy per run of the script: the calls append to it and build its index.
    dir=$BENCH_DIR/run-$shape-$n
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$src" "$dir/l.jsonl"
    context "$dir/context.json" l.jsonl
    label="$n, $([ "$shape" = other ] && echo "other runs" || echo "one run")"
    calls "$label" "$dir/context.json"
    verify "$label" "$dir/l.jsonl"
  done
done
