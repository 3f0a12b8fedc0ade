#!/usr/bin/env python3
"""Tallies an ncu source-page export (scripts/ncu-source.sh writes one per
report: `ncu -i REP --page source --csv --print-source sass`): executed
instructions per opcode and stall samples per reason, divided by --per (the
warps that ran, e.g. 16384 for a 16K-token store of one warp per token).

  python3 bench/sass_tally.py run3/store-sass.csv.gz --per 16384
  python3 bench/sass_tally.py ncu-source-extend.csv.gz --split-at USETMAXREG
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
    ap.add_argument("--split-at", metavar="OPCODE",
                    help="tally each stretch of the listing that starts at an "
                         "instruction with this opcode apart (USETMAXREG: a "
                         "warp-specialized kernel's roles, where ptxas lays "
                         "each role's code out after its setmaxnreg)")
    args = ap.parse_args()
    hdr, data = rows_of(args.csv)
    executed = hdr.index("Instructions Executed")
    source = hdr.index("Source")
    stalls = [i for i, h in enumerate(hdr) if h.startswith("stall_")]
    # Stretches of the listing: (label, opcode counts, stall counts, total).
    parts = [["(start)", collections.Counter(), collections.Counter(), 0]]
    for r in data:
        n = int(r[executed])
        words = r[source].split()
        if not words:
            continue
        op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        if args.split_at and op.split(".")[0] == args.split_at:
            parts.append([f"{r[0]} {r[source].strip()}", collections.Counter(),
                          collections.Counter(), 0])
        part = parts[-1]
        part[1][op.split(".")[0]] += n
        part[3] += n
        for i in stalls:
            if r[i].strip().isdigit():
                part[2][hdr[i][len("stall_"):]] += int(r[i])
    all_samples = sum(sum(p[2].values()) for p in parts)
    for label, ops, reasons, total in parts:
        if args.split_at:
            print(f"== from {label}")
        print(f"instructions: {total / args.per:.1f} per --per unit")
        print(" ".join(f"{k}:{v / args.per:.0f}" for k, v in ops.most_common(args.top)))
        samples = sum(reasons.values())
        if samples:
            print(f"stall samples: {samples} ({100 * samples / all_samples:.1f} % of all)")
            print(" ".join(f"{k}:{100 * v / samples:.1f}%"
                           for k, v in reasons.most_common(12)))


if __name__ == "__main__":
    main()
