#!/usr/bin/env python3
"""Grouping accuracy (GA) of a template miner on the 16 Loghub-2k systems.

Usage: python3 bench/loghub_ga.py --data DIR [--systems A,B] -- CMD ARGS...

For each system, the `Content` column of DIR/<Sys>/<Sys>_2k.log_structured.csv is written
to a temporary file (one message per line) whose path is appended to CMD. CMD must print
exactly one JSON string per input line: the template of the group that line joined.
A line is counted correct when the set of lines in its predicted group equals exactly the
set of lines sharing its ground-truth EventId. Stdlib only.
"""
import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

SYSTEMS = ["HDFS", "Hadoop", "Spark", "Zookeeper", "BGL", "HPC", "Thunderbird", "Windows",
           "Linux", "Android", "HealthApp", "Apache", "Proxifier", "OpenSSH", "OpenStack", "Mac"]


def grouping_accuracy(truth, predicted):
    """Fraction of lines whose predicted group is exactly their ground-truth group."""
    true_groups = collections.defaultdict(set)
    pred_groups = collections.defaultdict(set)
    for i, (t, p) in enumerate(zip(truth, predicted)):
        true_groups[t].add(i)
        pred_groups[p].add(i)
    correct = 0
    for members in pred_groups.values():
        first = next(iter(members))
        if true_groups[truth[first]] == members:
            correct += len(members)
    return correct / len(truth) if truth else 0.0


def run_system(data, system, cmd, show_errors):
    path = os.path.join(data, system, f"{system}_2k.log_structured.csv")
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    contents = [r["Content"].replace("\r", " ").replace("\n", " ") for r in rows]
    truth = [r["EventId"] for r in rows]
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as tmp:
        tmp.write("\n".join(contents) + "\n")
        tmp_path = tmp.name
    try:
        start = time.perf_counter()
        out = subprocess.run(cmd + [tmp_path], capture_output=True, check=True).stdout
        elapsed = time.perf_counter() - start
    finally:
        os.unlink(tmp_path)
    lines = out.decode("utf-8").splitlines()
    if len(lines) != len(contents):
        sys.exit(f"{system}: expected {len(contents)} output lines, got {len(lines)}")
    predicted = [json.loads(line) for line in lines]
    ga = grouping_accuracy(truth, predicted)
    if show_errors:
        report_errors(system, contents, truth, predicted)
    return ga, len(set(predicted)), len(set(truth)), elapsed


def report_errors(system, contents, truth, predicted):
    """Print, per wrong ground-truth event, how its lines were split or merged."""
    true_groups = collections.defaultdict(list)
    pred_groups = collections.defaultdict(list)
    for i, (t, p) in enumerate(zip(truth, predicted)):
        true_groups[t].append(i)
        pred_groups[p].append(i)
    for event, members in sorted(true_groups.items(), key=lambda kv: -len(kv[1])):
        preds = collections.Counter(predicted[i] for i in members)
        if len(preds) == 1:
            p = next(iter(preds))
            if len(pred_groups[p]) == len(members):
                continue
            others = collections.Counter(truth[i] for i in pred_groups[p] if truth[i] != event)
            print(f"  [{system}] MERGED {event} ({len(members)}) into {p!r} with {dict(others)}")
            print(f"      e.g. {contents[members[0]][:160]!r}")
            for o in list(others)[:2]:
                j = next(i for i in pred_groups[p] if truth[i] == o)
                print(f"      vs   {contents[j][:160]!r}")
        else:
            print(f"  [{system}] SPLIT {event} ({len(members)}) into {len(preds)} groups:")
            for p, n in preds.most_common(4):
                print(f"      {n:5d} {p[:160]!r}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="the data/loghub_2k directory")
    parser.add_argument("--systems", help="comma-separated subset of systems")
    parser.add_argument("--errors", action="store_true", help="print wrongly grouped events")
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    args = parser.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("give the command after --")
    systems = args.systems.split(",") if args.systems else SYSTEMS
    total = 0.0
    print(f"{'system':<12} {'GA':>6} {'groups':>7} {'truth':>6} {'seconds':>8}")
    for system in systems:
        ga, groups, events, elapsed = run_system(args.data, system, cmd, args.errors)
        total += ga
        print(f"{system:<12} {ga:6.3f} {groups:7d} {events:6d} {elapsed:8.3f}", flush=True)
    print(f"{'average':<12} {total / len(systems):6.3f}")


if __name__ == "__main__":
    main()
