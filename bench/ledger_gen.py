#!/usr/bin/env python3
"""Writes a hash-chained aciproj ledger of N records, for bench/ledger.sh (issue 29).

    ledger_gen.py OUT N RUNS [RUN_PREFIX]

Records are spread round-robin over RUNS runs named RUN_PREFIX-0 .. (default `other`; with one
run, the run is named RUN_PREFIX itself, so it can be the caller's run), shaped
and chained exactly as the appender writes them (compact JSON, fields in the record's order,
`prev_sha256` the SHA-256 of the previous line), so `aciproj ledger verify` finds them intact.
Deterministic: the same arguments give the same bytes.
"""
import hashlib
import sys


def main():
    out, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    prefix = sys.argv[4] if len(sys.argv) > 4 else "other"
    prev = "0" * 64
    with open(out, "wb") as f:
        for i in range(n):
            run = prefix if runs == 1 else f"{prefix}-{i % runs}"
            fp = hashlib.sha256(f"scope {i}".encode()).hexdigest()
            result = hashlib.sha256(f"result {i}".encode()).hexdigest()
            line = (
                f'{{"run_id":"{run}","tool_call_id":"call_{i}","tool":"rag","status":"READY",'
                f'"stage":null,"code":null,"evidence_status":"EVIDENCE",'
                f'"scope_fingerprint":"{fp}","returned_count":3,"truncated":false,'
                f'"observation_bytes":812,"result_sha256":"{result}","prev_sha256":"{prev}"}}'
            ).encode()
            prev = hashlib.sha256(line).hexdigest()
            f.write(line + b"\n")


if __name__ == "__main__":
    main()
