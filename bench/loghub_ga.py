#!/usr/bin/env python3
"""Grouping accuracy (GA) and F1 over groups (FGA) of a template miner on Loghub-2k.

Usage: python3 bench/loghub_ga.py --data DIR [--corrected DIR] [--systems A,B] -- CMD ARGS...

For each system, the `Content` column of DIR/<Sys>/<Sys>_2k.log_structured.csv is written
to a temporary file (one message per line) whose path is appended to CMD. CMD must print
exactly one JSON string per input line: the template of the group that line joined.

GA: a line is counted correct when the set of lines in its predicted group equals exactly
the set of lines sharing its ground-truth EventId. FGA (Loghub-2.0): a predicted group is
correct when its line set equals a truth group's; precision = correct / predicted groups,
recall = correct / truth groups, FGA their harmonic mean.

With --corrected (the `data/loghub_2k_corrected` folder of logpai/logparser, Khan et al.
2022), the same output is also scored against `<Sys>_2k.log_structured_corrected.csv` there:
the same lines, with the labelling errors of the original truth fixed. Stdlib only.
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


def group_f1(truth, predicted):
    """F1 over groups: a predicted group counts when it is exactly some truth group."""
    true_groups = collections.defaultdict(set)
    pred_groups = collections.defaultdict(set)
    for i, (t, p) in enumerate(zip(truth, predicted)):
        true_groups[t].add(i)
        pred_groups[p].add(i)
    correct = sum(
        1 for members in pred_groups.values()
        if true_groups[truth[next(iter(members))]] == members
    )
    if correct == 0:
        return 0.0
    precision = correct / len(pred_groups)
    recall = correct / len(true_groups)
    return 2 * precision * recall / (precision + recall)


def read_truth(path, contents):
    """The EventId column of a structured CSV whose Content column must match `contents`."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(contents):
        sys.exit(f"{path}: {len(rows)} rows, expected {len(contents)}")
    return [r["EventId"] for r in rows]


def run_system(data, corrected, system, cmd, show_errors):
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
    scores = [grouping_accuracy(truth, predicted), group_f1(truth, predicted)]
    fixed = truth
    if corrected:
        name = f"{system}_2k.log_structured_corrected.csv"
        fixed = read_truth(os.path.join(corrected, system, name), contents)
        scores += [grouping_accuracy(fixed, predicted), group_f1(fixed, predicted)]
    if show_errors:
        report_errors(system, contents, fixed, predicted)
    return scores, len(set(predicted)), len(set(truth)), elapsed


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
    parser.add_argument("--corrected", help="the data/loghub_2k_corrected directory")
    parser.add_argument("--systems", help="comma-separated subset of systems")
    parser.add_argument("--errors", action="store_true",
                        help="print wrongly grouped events (against the corrected truth if given)")
    parser.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    args = parser.parse_args()
    cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not cmd:
        parser.error("give the command after --")
    systems = args.systems.split(",") if args.systems else SYSTEMS
    heads = ["GA", "FGA"] + (["GA-c", "FGA-c"] if args.corrected else [])
    totals = [0.0] * len(heads)
    print(f"{'system':<12} " + " ".join(f"{h:>6}" for h in heads)
          + f" {'groups':>7} {'truth':>6} {'seconds':>8}")
    for system in systems:
        scores, groups, events, elapsed = run_system(
            args.data, args.corrected, system, cmd, args.errors)
        totals = [t + s for t, s in zip(totals, scores)]
        print(f"{system:<12} " + " ".join(f"{s:6.3f}" for s in scores)
              + f" {groups:7d} {events:6d} {elapsed:8.3f}", flush=True)
    print(f"{'average':<12} " + " ".join(f"{t / len(systems):6.3f}" for t in totals))


if __name__ == "__main__":
    main()
