#!/usr/bin/env python3
"""Runs a command N times and prints its wall time, CPU time and peak RSS, for bench/ledger.sh.

    measure.py RUNS START CMD [ARG ...]

Every `{i}` in an argument becomes the run's number (START, START + 1, ...), so each call can
have a fresh call id. Wall time is measured around the process; CPU time (user + system) comes
from the kernel's rusage of the child, at microsecond resolution; peak RSS from GNU time
(`/usr/bin/time -f %M`, the "Maximum resident set size" of `-v`), which runs the command: a
child forked from Python would report Python's own pages. Prints one line: median and minimum
wall, median CPU, largest peak RSS. A run that exits other than 0 stops the script.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    runs, start, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    walls, cpus, rss = [], [], 0
    report = tempfile.NamedTemporaryFile(mode="r")
    for i in range(start, start + runs):
        args = ["/usr/bin/time", "-f", "%M", "-o", report.name]
        args += [a.replace("{i}", str(i)) for a in cmd]
        t0 = time.perf_counter()
        child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        walls.append((time.perf_counter() - t0) * 1000)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"measure.py: {' '.join(args)} exited {os.waitstatus_to_exitcode(status)}")
        cpus.append((usage.ru_utime + usage.ru_stime) * 1000)
        report.seek(0)
        rss = max(rss, int(report.read().split()[-1]))
    print(
        f"{statistics.median(walls):7.1f} ms (min {min(walls):6.1f}, cpu {statistics.median(cpus):6.1f})"
        f" {rss / 1024:5.1f} MiB"
    )


if __name__ == "__main__":
    main()
