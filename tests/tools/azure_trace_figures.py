#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Figures of the Azure LLM inference 2023 sample traces, computed without Headroom.

tests/model/tst_risk.cpp (azureTraces) asserts these figures; this script derives them
from resources/traces/*.csv with the Python standard library only, so anyone can recheck
them:

    python3 tests/tools/azure_trace_figures.py            # both traces in resources/traces
    python3 tests/tools/azure_trace_figures.py FILE.csv   # any trace of the same format

Definitions (one session per row):
- length = ContextTokens + GeneratedTokens;
- mean = sum of lengths / rows;
- pN = the nearest-rank quantile: the ceil(N/100 x rows)-th smallest length;
- max = the largest length;
- share above 4,096 = rows longer than 4,096 tokens / rows;
- mean dropped at 4,096 = sum of (length - 4,096) over rows longer than 4,096 / rows;
- arrival rate = (rows - 1) / (last TIMESTAMP - first TIMESTAMP), in requests per second.
Sums and ratios are exact (integers and fractions) until printed.
"""

import csv
import datetime
import math
import pathlib
import sys
from fractions import Fraction

ROOT = pathlib.Path(__file__).resolve().parents[2]


def seconds(stamp):
    """Seconds since 0001-01-01 of 'yyyy-MM-dd HH:mm:ss[.fffffff]', exact (a Fraction)."""
    whole, _, fraction = stamp.strip().partition(".")
    t = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    base = (t - datetime.datetime(1, 1, 1)) // datetime.timedelta(seconds=1)
    return Fraction(base) + (Fraction(int(fraction), 10 ** len(fraction)) if fraction else 0)


def nearest_rank(sorted_lengths, p):
    """The ceil(p x n)-th smallest of n lengths (p a Fraction in (0, 1])."""
    rank = math.ceil(p * len(sorted_lengths))
    return sorted_lengths[rank - 1]


def figures(path, cap=4096):
    lengths, stamps = [], []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lengths.append(int(row["ContextTokens"]) + int(row["GeneratedTokens"]))
            stamps.append(seconds(row["TIMESTAMP"]))
    n = len(lengths)
    ordered = sorted(lengths)
    above = [length for length in lengths if length > cap]
    return {
        "rows": n,
        "mean": Fraction(sum(lengths), n),
        "p50": nearest_rank(ordered, Fraction(1, 2)),
        "p99": nearest_rank(ordered, Fraction(99, 100)),
        "max": ordered[-1],
        "share above %d" % cap: Fraction(len(above), n),
        "mean dropped at %d" % cap: Fraction(sum(length - cap for length in above), n),
        "arrival rate per s": Fraction(n - 1) / (stamps[-1] - stamps[0]),
    }


def main(argv):
    paths = argv[1:] or sorted(str(p) for p in (ROOT / "resources" / "traces").glob("*.csv"))
    for path in paths:
        print(path)
        for name, value in figures(path).items():
            shown = "%.10f" % value if isinstance(value, Fraction) else str(value)
            print("  %-20s %s" % (name, shown))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
