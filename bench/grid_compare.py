#!/usr/bin/env python3
"""Compare two exhaustive timing tables (timings.csv of `tqc autotune
--no-prune --context-hist ...`, e.g. before and after a kernel change): per
(bucket B, context L), the best plan's time in each and the geometric mean,
over the plans both timed, of new/old (below 1: the plans got faster).

  python3 bench/grid_compare.py OLD/timings.csv NEW/timings.csv
"""
import argparse
import csv
import math
from collections import defaultdict


def load(path):
    key = ("block_n", "splits", "warps", "heads_per_cta", "stages")
    t = defaultdict(dict)  # (bucket, length) -> {plan: us}
    for row in csv.DictReader(open(path)):
        us = float(row["us"])
        if row["state"] == "timed" and math.isfinite(us):
            point = (int(row["bucket"]), int(row["length"]))
            t[point][tuple(int(row[k]) for k in key)] = us
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    args = ap.parse_args()
    old, new = load(args.old), load(args.new)
    print(f"{'B':>4} {'L':>7} {'best old us':>12} {'best new us':>12} "
          f"{'geomean new/old':>16} {'plans':>6}")
    for point in sorted(set(old) & set(new)):
        common = set(old[point]) & set(new[point])
        if not common:
            continue
        g = math.exp(sum(math.log(new[point][p] / old[point][p])
                         for p in common) / len(common))
        print(f"{point[0]:>4} {point[1]:>7} {min(old[point].values()):>12.2f} "
              f"{min(new[point].values()):>12.2f} {g:>16.3f} {len(common):>6}")


if __name__ == "__main__":
    main()
