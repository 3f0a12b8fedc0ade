#!/usr/bin/env python3
"""Store benchmark: tqc's store kernel for a decode step and a prefill chunk.

For every preset bundle given it
  1. stores a 16K-token sequence (random bf16 K/V, shuffled pages) and checks
     it by decoding it against SDPA over the uncompressed K/V (decode_bench's
     check: bf16 to 2e-2, compressed presets a cosine >= 0.8; the store's
     byte-exactness is the GPU tier's job, tests/gpu);
  2. times, as CUDA-graph replays over rotating inputs (cold L2 for the chunk),
     a decode step (one new token per sequence: --step-tokens, default 32
     tokens x the bundle's KV heads, each in a random slot of its own) and a
     prefill chunk (--chunk-tokens, default 16384) as a paged engine lays
     one sequence's chunk out: its pages in random order, its tokens in
     order within a page (slot = page * block_size + position);
  3. times the same chunk with every token in a random slot ("scattered":
     no engine writes a chunk so, but it shows what the cache's write
     pattern costs: a token-head's code bytes then fill no 32-byte sector
     with its neighbours', session 33);
and prints us and the bandwidth used (K/V read + slots + compressed bytes
written) as a fraction of 4.6 TB/s; writes JSON.

  python3 bench/store_bench.py --tqrt build-gpu/runtime --bundles DIR/k3v4 ... --json out.json
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_bench import (PEAK, capture, check, median_us, replicas_for,  # noqa: E402
                          slots_of_pages)


def store_point(plan, bundle, tokens, bpth, block, reps, gen, cap, paged):
    """us per store of `tokens` tokens into pages of `block` tokens, over
    rotating inputs and pages. paged: one sequence's chunk (whole pages in
    random order, tokens in order within each); else every token in a
    random slot (a decode step's tokens, one per sequence)."""
    hkv, d = bundle.num_kv_heads, bundle.head_dim
    io = tokens * hkv * (d * 2 * 2 + bpth) + tokens * 8
    R = replicas_for(io, cap)
    pages = math.ceil(tokens / block)  # per replica
    blocks = pages * R
    cache = bundle.allocate_cache(num_blocks=blocks)
    if paged:
        perm = slots_of_pages(torch.randperm(blocks, device="cuda", generator=gen), block)
        per = pages * block  # a replica's whole pages
    else:
        perm = torch.randperm(blocks * block, device="cuda", generator=gen)
        per = tokens
    ks = [torch.randn(tokens, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
          for _ in range(R)]
    vs = [torch.randn(tokens, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
          for _ in range(R)]
    slots = [perm[r * per:r * per + tokens].contiguous() for r in range(R)]

    def make(i):
        return lambda: plan.store(ks[i], vs[i], cache, slots[i])
    g = capture([make(i) for i in range(R)])
    t = min(median_us(g, R, reps), median_us(g, R, reps))
    del g, cache, ks, vs, slots
    torch.cuda.empty_cache()
    return t, io, R


def bench(tqrt, bundle_dir, step_tokens, chunk_tokens, reps, gen):
    bundle = tqrt.Bundle.from_dir(bundle_dir)
    info = json.load(open(os.path.join(bundle_dir, "manifest.json")))
    hq, hkv, d = bundle.num_q_heads, bundle.num_kv_heads, bundle.head_dim
    bpth = info["layout"]["bytes_per_token_head"]
    block = info["spec"]["block_size"]
    plan = bundle.plan(max_batch=1, max_tokens=chunk_tokens)

    # Correctness: one chunk stored, then decoded against SDPA.
    L = chunk_tokens
    blocks = math.ceil(L / block)
    cache = bundle.allocate_cache(num_blocks=blocks)
    table = torch.randperm(blocks, device="cuda", generator=gen).to(torch.int32)
    slots = slots_of_pages(table, block)[:L].contiguous()
    k = torch.randn(L, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    v = torch.randn(L, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    plan.store(k, v, cache, slots)
    q = torch.randn(1, hq, d, device="cuda", dtype=torch.bfloat16, generator=gen)
    out = torch.empty_like(q)
    plan.decode(q, cache, table.view(1, -1), torch.tensor([L], dtype=torch.int32, device="cuda"),
                out=out, workspace=plan.allocate_workspace())
    torch.cuda.synchronize()
    ok, cos, rel = check(out, q, [k], [v], info["spec"]["preset"])
    del cache, k, v

    # The store grid is the plan's max_tokens: an engine plans the decode
    # step (max_tokens = its batch) apart from prefill chunks.
    step_plan = bundle.plan(max_batch=step_tokens, max_tokens=step_tokens)
    step_us, step_bytes, step_r = store_point(step_plan, bundle, step_tokens, bpth, block, reps,
                                              gen, 256, paged=False)
    step_plan.close()
    chunk_us, chunk_bytes, chunk_r = store_point(plan, bundle, chunk_tokens, bpth, block, reps,
                                                 gen, 16, paged=True)
    scattered_us = store_point(plan, bundle, chunk_tokens, bpth, block, reps, gen, 16,
                               paged=False)[0]
    plan.close()
    bundle.close()
    return dict(preset=info["spec"]["preset"], ok=ok, cos=cos, rel=rel,
                step_tokens=step_tokens, step_us=step_us, step_bytes=step_bytes,
                step_replicas=step_r, chunk_tokens=chunk_tokens, chunk_us=chunk_us,
                chunk_bytes=chunk_bytes, chunk_replicas=chunk_r,
                chunk_frac=chunk_bytes / chunk_us * 1e6 / PEAK,
                chunk_scattered_us=scattered_us)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundles", nargs="+", required=True)
    ap.add_argument("--step-tokens", type=int, default=32)
    ap.add_argument("--chunk-tokens", type=int, default=16384)
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--json")
    ap.add_argument("--tqrt", default=None, help="directory of tqrt.py and libtqrt.so")
    args = ap.parse_args()
    if args.tqrt:
        sys.path.insert(0, args.tqrt)
    import tqrt

    gen = torch.Generator(device="cuda")
    gen.manual_seed(1)
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'preset':<6} {'step tok':>8} {'step us':>8} {'chunk tok':>9} {'chunk us':>9} "
          f"{'GB/s':>6} {'%4.6T':>6} {'scattered us':>12}  check")
    results = []
    for bd in args.bundles:
        r = bench(tqrt, bd, args.step_tokens, args.chunk_tokens, args.reps, gen)
        print(f"{r['preset']:<6} {r['step_tokens']:>8} {r['step_us']:>8.2f} "
              f"{r['chunk_tokens']:>9} {r['chunk_us']:>9.1f} "
              f"{r['chunk_bytes'] / r['chunk_us'] / 1e3:>6.0f} {r['chunk_frac']:>6.1%} "
              f"{r['chunk_scattered_us']:>12.1f}  "
              f"{'ok' if r['ok'] else 'FAIL'} cos {r['cos']:.4f} rel {r['rel']:.3f}")
        results.append(r)
        sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(results=results), f, indent=1)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
