#!/usr/bin/env python3
"""How good are tuned plans? For every (bucket B, context L) of an exhaustive
timing table (tqc autotune --no-prune writes it as timings.csv; with
--report-lengths, only the report lengths, weight 0, are scored), compare
the time of the plan a tuning database chose for B (tuned once for a
context distribution, so one plan serves every L) with the best fixed plan
measured at that very point. Prints a table and the share of
points within the tolerance (issue 5/9: 3 % on >= 90 % of points).

  python3 bench/tuner_quality.py timings.csv tune.json [--tolerance 0.03]
  python3 bench/tuner_quality.py timings.csv --hindsight

--reference fixed (issue 5/9 item 2's "exhaustive best fixed plan") judges
the tuned plan against one plan per bucket instead of each point's fastest:
the plan with the lowest expected latency over the table's weighted lengths
(the tuner's objective without its 2 % tie rule, every plan timed: an
exhaustive run, `tqc autotune --no-prune --report-lengths 1024,8192,32768`),
scored at the report lengths (weight 0; all lengths if there are none; the
other modes score the same points). The default, --reference point, is the stricter per-point best,
which no single plan reaches where the fastest plan changes with the
length.

--hindsight needs no database: per bucket it picks, from the same table, the
one plan within the tolerance at the most of the bucket's lengths (ties: the
smallest worst ratio), the best any fixed plan could do with the lengths
known in advance, and scores it the same way: the ceiling a tuner can reach
with this kernel.

--what-if free-splits (with --hindsight) scores each plan at each point by
the fastest measured plan that differs from it only in fewer splits: the
ceiling if a plan's unused split CTAs cost nothing and its run-time split
count were the best one for the length. --what-if head-split also lets a
plan with the whole GQA group per CTA run as its half-group plan with up to
twice the splits (a run-time head split). Neither exists in the kernel yet;
they size what building them could buy (docs/NOTES.md, session 10).
--what-if short-half scores a whole-group plan where decode.h's
TQ_SHORT_HALF_HEADS path would take a row (at most 2048 tokens, whole-group
CTAs short of --sm-count) by its measured half-group plan (half the heads
and splits): that path runs the half-group plan's own code (session 12).
"""
import argparse
import csv
import json
import math
import sys


def split_cap(batch, splits, warps, groups, sms, warps_per_sm):
    """decode.h splitCap: the splits that fill warps_per_sm on every SM."""
    s = sms * max(1, warps_per_sm // warps) // (groups * max(batch, 1))
    return max(1, min(splits, s))


def splits_used(length, batch, splits, warps, groups, sms, deep=True):
    """decode.h splitsUsed (default knobs): the splits a row uses; without
    `deep`, only those that fill idle SMs (the half-group path)."""
    if splits == 1:
        return 1
    idle = min(split_cap(batch, splits, warps, groups, sms, 8), -(-length // 128))
    if not deep:
        return max(1, idle)
    deep_ = min(split_cap(batch, splits, warps, groups, sms, 16), -(-length // 512))
    return max(1, idle, deep_)


def short_half(by_plan, plan, batch, length, group, q_heads, sms):
    """decode.h TQ_SHORT_HALF_HEADS: a whole-group plan runs a row of at most
    2048 tokens whose whole-group CTAs would not fill the SMs as its
    half-group plan (half the heads, half the splits), which the grid
    measured as a plan of its own."""
    bn, splits, warps, heads, stages = plan
    groups = q_heads // heads
    if (heads != group or heads % 2 or splits < 2 or length > 2048
            or groups * batch * splits_used(length, batch, splits, warps, groups, sms) >= sms):
        return by_plan[plan]
    # The half-group path takes only the splits that fill idle SMs (no deep
    # splits), as its plan with that many splits does.
    idle = splits_used(length, batch, splits // 2, warps, 2 * groups, sms, deep=False)
    half = (bn, idle, warps, heads // 2, stages)
    return by_plan.get(half, by_plan[plan])


def what_if(by_plan, plan, mode, group):
    """The time `plan` could reach at one point under --what-if `mode`
    (group: the GQA group, the widest heads/CTA measured there)."""
    bn, splits, warps, heads, stages = plan
    options = [(bn, s, warps, heads, stages) for s in range(1, splits + 1)]
    if mode == "head-split" and heads == group and heads % 2 == 0:
        options += [(bn, s, warps, heads // 2, stages) for s in range(1, 2 * splits + 1)]
    return min(by_plan[o] for o in options if o in by_plan)


def fixed_best(times, weight):
    """Per bucket, the plan of lowest expected latency over the weighted
    lengths (sum of weight x us), among plans timed at all of them."""
    best = {}
    for b in sorted({p[0] for p in times}):
        lengths = [l for l, w in weight.items() if w > 0 and (b, l) in times]
        if not lengths:
            sys.exit(f"tuner_quality: bucket {b} has no timings at a weighted length")
        common = set.intersection(*(set(times[(b, l)]) for l in lengths))
        best[b] = min(sorted(common), key=lambda plan: sum(
            weight[l] * times[(b, l)][plan] for l in lengths))
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("timings", help="timings.csv of an exhaustive tqc autotune run")
    ap.add_argument("database", nargs="?",
                    help="the tqc.tuning database whose plans are judged")
    ap.add_argument("--hindsight", action="store_true",
                    help="judge the minimax fixed plan per bucket instead")
    ap.add_argument("--preset", default="k3v4")
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--reference", choices=("point", "fixed"), default="point",
                    help="point: each point's fastest plan; fixed: the bucket's "
                         "plan of lowest expected latency (above)")
    ap.add_argument("--num-q-heads", type=int, default=32,
                    help="query heads of the grid's shape (short-half)")
    ap.add_argument("--sm-count", type=int, default=132,
                    help="SMs of the GPU the grid was timed on (short-half)")
    ap.add_argument("--what-if", choices=("free-splits", "head-split", "short-half"),
                    help="with --hindsight: plans that could also run as "
                         "cheaper measured variants of themselves (above)")
    args = ap.parse_args()
    if args.what_if and not args.hindsight:
        ap.error("--what-if needs --hindsight")
    if args.reference == "fixed" and args.hindsight:
        ap.error("--reference fixed judges a database, not --hindsight")

    key = ("block_n", "splits", "warps", "heads_per_cta", "stages")
    times = {}  # (bucket, length) -> {plan: us}
    weight = {}  # length -> its weight in the tuner's objective
    for row in csv.DictReader(open(args.timings)):
        weight[int(row["length"])] = float(row["weight"])
        us = float(row["us"])
        if row["state"] != "timed" or not math.isfinite(us):
            continue
        point = (int(row["bucket"]), int(row["length"]))
        times.setdefault(point, {})[tuple(int(row[k]) for k in key)] = us
    if args.reference == "fixed":
        reference = fixed_best(times, weight)
    report = {l for l, w in weight.items() if w == 0}
    if report:  # score at the report lengths only
        times = {p: t for p, t in times.items() if p[1] in report}
    # What a plan achieves at each point: its measured time, or under
    # --what-if the best of its variants; "best" stays the measured best.
    view = times
    if args.what_if:
        view = {}
        for p, by_plan in times.items():
            group = max(plan[3] for plan in by_plan)
            if args.what_if == "short-half":
                view[p] = {plan: short_half(by_plan, plan, p[0], p[1], group,
                                            args.num_q_heads, args.sm_count)
                           for plan in by_plan}
            else:
                view[p] = {plan: what_if(by_plan, plan, args.what_if, group)
                           for plan in by_plan}
    tuned = {}
    if args.hindsight:
        for b in sorted({p[0] for p in times}):
            points = [p for p in times if p[0] == b]
            common = set.intersection(*(set(times[p]) for p in points))
            best = {p: min(times[p].values()) for p in points}
            ratios = lambda plan: [view[p][plan] / best[p] for p in points]
            tuned[b] = min(sorted(common), key=lambda plan: (
                -sum(r <= 1 + args.tolerance for r in ratios(plan)),
                max(ratios(plan))))
    elif args.database:
        for e in json.load(open(args.database))["entries"]:
            if e["preset"] == args.preset:
                tuned[e["bucket"]] = tuple(e["plan"][k] for k in key)
    else:
        ap.error("give a tuning database or --hindsight")

    good = total = 0
    print(f"{'B':>4} {'L':>7} {'tuned us':>9} {'best us':>9} {'ratio':>6}  tuned plan -> best plan")
    for (b, length), by_plan in sorted(times.items()):
        if b not in tuned or tuned[b] not in by_plan:
            print(f"{b:>4} {length:>7}  (no timing of the tuned plan)")
            total += 1
            continue
        best_plan = (reference[b] if args.reference == "fixed"
                     else min(by_plan, key=by_plan.get))
        if best_plan not in by_plan:
            print(f"{b:>4} {length:>7}  (no timing of the reference plan {best_plan})")
            total += 1
            continue
        t, best = view[(b, length)][tuned[b]], by_plan[best_plan]
        ok = t <= best * (1 + args.tolerance)
        good += ok
        total += 1
        print(f"{b:>4} {length:>7} {t:>9.2f} {best:>9.2f} {t / best:>6.3f}  "
              f"{tuned[b]} -> {best_plan}{'' if ok else '  (outside tolerance)'}")
    share = good / total if total else 0.0
    what = ("the exhaustive best fixed plan (lowest expected latency, every plan timed)"
            if args.reference == "fixed" else "the best fixed plan at each point")
    print(f"within {args.tolerance:.0%} of {what}: {good}/{total} points ({share:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
