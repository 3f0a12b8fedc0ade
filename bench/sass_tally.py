#!/usr/bin/env python3
"""Tallies an ncu source-page export (scripts/ncu-source.sh writes one per
report: `ncu -i REP --page source --csv --print-source sass`): executed
instructions per opcode and stall samples per reason, divided by --per (the
warps that ran, e.g. 16384 for a 16K-token store of one warp per token).

  python3 bench/sass_tally.py run3/store-sass.csv.gz --per 16384
"""
import argparse
import collections
import csv
import gzip
import io


def rows_of(path):
    raw = gzip.open(path, "rt") if path.endswith(".gz") else open(path)
    with raw as f:
        rows = list(csv.reader(io.StringIO(f.read())))
    # Line 0 names the kernel; line 1 is the header.
    return rows[1], rows[2:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="source-page CSV (.csv or .csv.gz)")
    ap.add_argument("--per", type=float, default=1.0,
                    help="divide instruction counts by this (warps run)")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    hdr, data = rows_of(args.csv)
    executed = hdr.index("Instructions Executed")
    source = hdr.index("Source")
    stalls = [i for i, h in enumerate(hdr) if h.startswith("stall_")]
    ops, reasons = collections.Counter(), collections.Counter()
    total = 0
    for r in data:
        n = int(r[executed])
        words = r[source].split()
        if not words:
            continue
        op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        ops[op.split(".")[0]] += n
        total += n
        for i in stalls:
            if r[i].strip().isdigit():
                reasons[hdr[i][len("stall_"):]] += int(r[i])
    print(f"instructions: {total / args.per:.1f} per --per unit")
    print(" ".join(f"{k}:{v / args.per:.0f}" for k, v in ops.most_common(args.top)))
    samples = sum(reasons.values())
    if samples:
        print(f"stall samples: {samples}")
        print(" ".join(f"{k}:{100 * v / samples:.1f}%"
                       for k, v in reasons.most_common(12)))


if __name__ == "__main__":
    main()
