#!/usr/bin/env python3
"""Feeds every line of a file to Drain3 with its default configuration: the pattern-mining
baseline for `bench/run.sh`. Prints the number of clusters so the work cannot be skipped."""
import sys

from drain3 import TemplateMiner

miner = TemplateMiner()
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        miner.add_log_message(line.rstrip("\n"))
print(len(miner.drain.clusters))
