#!/usr/bin/env python3
"""One decode launch of a bundle, for a profiler (ncu) to look at.

Fills a paged cache for B sequences of L tokens with the bundle's store
kernel (bench/decode_bench.py's fill_cache: shuffled pages, random bf16
K/V), checks one decode against SDPA over the same K/V, then launches decode
--launches more times; profile the last ones, e.g.

  ncu --kernel-name regex:decode --launch-skip 3 --launch-count 1 \\
      --section SpeedOfLight --section Occupancy --section WarpStateStats \\
      python3 bench/profile_decode.py --bundle out/k3v4 --batch 32 --context 32768

Each decode kernel runs on a cold L2 as far as one cache's size allows (the
cache of B·L tokens is far beyond the 60 MB L2 at the lengths that matter).
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench  # noqa: E402  (fill_cache, check)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--context", type=int, default=32768)
    ap.add_argument("--launches", type=int, default=4)
    ap.add_argument("--tqrt", default=None, help="directory of tqrt.py and libtqrt.so")
    args = ap.parse_args()
    if args.tqrt:
        sys.path.insert(0, args.tqrt)
    import tqrt

    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    bundle = tqrt.Bundle.from_dir(args.bundle)
    hq, hkv, d = bundle.num_q_heads, bundle.num_kv_heads, bundle.head_dim
    B, L = args.batch, args.context
    plan = bundle.plan(max_batch=B, max_tokens=32768)
    block = bundle.block_size  # the bundle's page size (decode_bench's fill_cache pages)
    cache = bundle.allocate_cache(num_blocks=-(-L // block) * B)
    tables, kk, vv = decode_bench.fill_cache(plan, bundle, cache, L, B, 1, hkv, d, gen, block)
    seq_lens = torch.full((B,), L, dtype=torch.int32, device="cuda")
    q = torch.randn(B, hq, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    out = torch.empty_like(q)
    ws = plan.allocate_workspace()
    table = tables[0].contiguous()
    plan.decode(q, cache, table, seq_lens, out=out, workspace=ws)
    torch.cuda.synchronize()
    ok, cos, rel = decode_bench.check(out, q, kk, vv, bundle.preset)
    print(f"{args.bundle}: B={B} L={L} plan {plan.plan_index} (splits {plan.splits}, "
          f"block_n {plan.block_n}, warps {plan.warps}, heads/CTA {plan.heads_per_cta}); "
          f"check {'ok' if ok else 'FAIL'} cos {cos:.4f}")
    for _ in range(args.launches):
        plan.decode(q, cache, table, seq_lens, out=out, workspace=ws)
    torch.cuda.synchronize()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
