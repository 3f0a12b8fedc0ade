#!/usr/bin/env python3
"""Where and when each decode CTA runs, in back-to-back CUDA-graph replays.

A diagnostic for launch-level effects the profilers do not show (e.g. what a
plan's unused split CTAs cost). It needs a bundle built with the trace knob:

  TQC_DEVICE_DEFINES="TQ_DEBUG_CTA_TRACE=67108864" tqc --arch sm_90 \\
      --preset k3v4 --splits 4 --warps 8 -o /tmp/k3v4-s4
  python3 bench/cta_trace.py run --bundle /tmp/k3v4-s4 --batch 8 --context 1024 \\
      --tqrt build-gpu/runtime > trace.txt
  python3 bench/cta_trace.py analyze trace.txt

The knob's value is the byte offset of the trace in the workspace (decode.h
CtaTrace; plans of one split have no workspace and record nothing). The
workspace each launch gets is --offset bytes plus the records. `run`
captures --launches decodes back to back in one graph (as decode_bench.py
times them), each with its own workspace, replays it once and prints one
line per CTA ("TQTRACE launch x y z smid entry waited exit m0 m1 m2",
globaltimer ns; the marks: the prologue's barrier, every warp past the main
loop, the merge ticket drawn; 0 where not passed). `analyze` prints, per
launch, when its CTAs entered, passed the wait and exited relative to the
launch's first entry, for three kinds of CTA: returned before the wait,
returned after it without work (exit within --idle-ns of the wait), and
worked; how the working CTAs shared SMs; and the median length of their
phases (prologue from the wait, main loop, epilogue to the ticket or the
exit, merge or return after the ticket).
"""
import argparse
import collections
import os
import statistics
import sys


def run(args):
    if args.tqrt:
        sys.path.insert(0, args.tqrt)
    import torch
    import tqrt
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import decode_bench

    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    bundle = tqrt.Bundle.from_dir(args.bundle)
    hq, hkv, d = bundle.num_q_heads, bundle.num_kv_heads, bundle.head_dim
    B, L, R = args.batch, args.context, args.launches
    plan = bundle.plan(max_batch=B, max_tokens=max(L, 1024))
    block = bundle.block_size  # the bundle's page size
    cache = bundle.allocate_cache(num_blocks=-(-L // block) * B * R)
    tables, _, _ = decode_bench.fill_cache(plan, bundle, cache, L, B, R, hkv, d, gen, block)
    seq_lens = torch.full((B,), L, dtype=torch.int32, device="cuda")
    qs = [torch.randn(B, hq, d, device="cuda", dtype=torch.bfloat16, generator=gen)
          for _ in range(R)]
    outs = [torch.empty_like(q) for q in qs]
    grid = (hq // plan.heads_per_cta) * B * plan.splits
    off = args.offset
    # Room for every launch before the traced replay too (the counter runs on).
    words = (off + 64 * ((args.warm + 2) * grid + 1)) // 4
    wss = [torch.zeros(words, dtype=torch.float32, device="cuda") for _ in range(R)]
    tabs = [tables[r].contiguous() for r in range(R)]

    def make(i):
        return lambda: plan.decode(qs[i], cache, tabs[i], seq_lens, out=outs[i],
                                   workspace=wss[i])
    g = decode_bench.capture([make(i) for i in range(R)])
    for _ in range(args.warm):
        g.replay()
    for ws in wss:
        ws[off // 4:].zero_()
    torch.cuda.synchronize()
    g.replay()
    torch.cuda.synchronize()
    print(f"TQTRACE-PLAN splits {plan.splits} warps {plan.warps} heads/CTA "
          f"{plan.heads_per_cta} block_n {plan.block_n} grid {grid} B {B} L {L}")
    for r, ws in enumerate(wss):
        t = ws[off // 4:].view(torch.int64).cpu().tolist()
        n = t[0]
        for k in range(n):
            rec = t[8 * (k + 1):8 * (k + 1) + 8]
            xyz = rec[0]
            print(f"TQTRACE {r} {xyz & 0xffff} {(xyz >> 16) & 0xffff} {xyz >> 32} "
                  + " ".join(str(v) for v in rec[1:]))
    return 0


def analyze(args):
    launches = collections.defaultdict(list)
    for l in open(args.trace):
        if l.startswith("TQTRACE-PLAN"):
            print(l.strip()[len("TQTRACE-PLAN "):])
        p = l.split()
        if len(p) in (9, 12) and p[0] == "TQTRACE": # 12: with phase marks
            v = [int(x) for x in p[1:]] + [0, 0, 0]
            launches[v[0]].append(tuple(v[1:11]))
    if not launches:
        print(f"{args.trace}: no TQTRACE lines (a bundle built without "
              "TQ_DEBUG_CTA_TRACE, or a plan without a workspace)", file=sys.stderr)
        return 1
    prev_end = None
    periods = []
    for k in sorted(launches):
        ls = launches[k]
        t0 = min(r[4] for r in ls)
        kinds = collections.defaultdict(list)
        phases = collections.defaultdict(list)
        for (x, y, z, sm, entry, waited, exit_, m0, m1, m2) in ls:
            kind = ("early" if waited == 0 else
                    "idle" if exit_ - waited <= args.idle_ns else "work")
            kinds[kind].append((entry - t0, (waited - t0) if waited else None,
                                exit_ - t0, sm, exit_ - (waited or entry)))
            if kind == "work" and m0 and m1: # the marks (decode.h CtaTrace)
                phases["prologue"].append(m0 - waited)
                phases["main loop"].append(m1 - m0)
                phases["epilogue"].append((m2 or exit_) - m1)
                if m2:
                    phases["merge"].append(exit_ - m2)
        end = max(r[6] for r in ls)
        line = (f"launch {k}: {len(ls)} CTAs, span {(end - t0) / 1e3:6.2f} us"
                + (f", starts {(t0 - prev_end) / 1e3:+6.2f} us after the previous end,"
                   f" ends {(end - prev_end) / 1e3:6.2f} us after it" if prev_end else ""))
        for kind in ("early", "idle", "work"):
            v = kinds.get(kind, [])
            if not v:
                continue
            ent = sorted(e[0] for e in v)
            ex = sorted(e[2] for e in v)
            wt = sorted(e[1] for e in v if e[1] is not None)
            run_ = sorted(e[4] for e in v)
            line += (f"\n   {kind:5s} {len(v):4d}: entry {ent[0]/1e3:6.2f}..{ent[-1]/1e3:6.2f}"
                     + (f"  wait passed {wt[0]/1e3:6.2f}..{wt[-1]/1e3:6.2f}" if wt else "")
                     + f"  exit {ex[0]/1e3:6.2f}..{ex[-1]/1e3:6.2f}"
                     + f"  run {run_[0]/1e3:5.2f}..{run_[-1]/1e3:5.2f}"
                       f" (median {statistics.median(run_)/1e3:5.2f})")
        if phases:
            line += "\n   working CTAs' phases, median us: " + ", ".join(
                f"{k} {statistics.median(v) / 1e3:.2f}" for k, v in phases.items())
            line += " (merge: the CTAs that drew the last ticket wait for it, the rest return)"
        work = kinds.get("work", [])
        if work:
            sms = collections.Counter(w[3] for w in work)
            shared = [w[4] for w in work if sms[w[3]] > 1]
            alone = [w[4] for w in work if sms[w[3]] == 1]
            line += (f"\n   working CTAs on {len(sms)} SMs, {len(shared)} of them sharing one"
                     + (f" (median run {statistics.median(shared)/1e3:.2f} us"
                        f" vs {statistics.median(alone)/1e3:.2f} alone)" if shared and alone else ""))
        print(line)
        if prev_end:
            periods.append((end - prev_end) / 1e3)
        prev_end = end
    if periods:
        print(f"median time between launch ends {statistics.median(periods):.2f} us "
              f"(what back-to-back timing sees per decode)")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--bundle", required=True)
    r.add_argument("--batch", type=int, default=8)
    r.add_argument("--context", type=int, default=1024)
    r.add_argument("--launches", type=int, default=8)
    r.add_argument("--warm", type=int, default=3, help="replays before the traced one")
    r.add_argument("--offset", type=int, default=64 << 20,
                   help="the bundle's TQ_DEBUG_CTA_TRACE value (bytes)")
    r.add_argument("--tqrt", default=None, help="directory of tqrt.py and libtqrt.so")
    a = sub.add_parser("analyze")
    a.add_argument("trace")
    a.add_argument("--idle-ns", type=int, default=1500,
                   help="a CTA that exits this soon after the wait did no work")
    args = ap.parse_args()
    return run(args) if args.cmd == "run" else analyze(args)


if __name__ == "__main__":
    sys.exit(main())
