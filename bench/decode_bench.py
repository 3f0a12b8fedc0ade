#!/usr/bin/env python3
"""Decode benchmark: tqc's bundles against torch's bf16 SDPA, same process.

For every preset bundle given and every (batch B, context L) point it
  1. fills a paged cache with the bundle's own store kernel from random
     bf16 keys/values (shuffled block tables),
  2. checks the decode output against SDPA over the same (uncompressed)
     keys/values (the compressed presets differ by their quantization error:
     the bf16 preset must agree to 2e-2, the others to a cosine >= 0.8; the
     kernels' exact accuracy is the GPU tier's job, tests/gpu),
  3. times decode as CUDA-graph replays with cold L2 (enough replicas of the
     cache, queries and outputs that one replay touches > 4x the 60 MB L2),
     median of >= 50 replays, each run twice,
and times torch.nn.functional.scaled_dot_product_attention (bf16, GQA through
enable_gqa, fastest of its backends) the same way. Prints a table (us, GB/s,
fraction of 4.6 TB/s, speed-up over SDPA) and writes JSON.

  python3 bench/decode_bench.py --bundles DIR/k3v4 DIR/k4v4 ... --json out.json
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import warnings

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore", category=UserWarning)  # SDPA's backend probing

PEAK = 4.6e12          # practical read bandwidth of the H200 (PERFORMANCE.md)
L2_BYTES = 60 << 20


def environment():
    """The GPU, torch, CUDA and driver a result was measured with."""
    return dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__,
                cuda=torch.version.cuda,
                driver=subprocess.run(["nvidia-smi", "--query-gpu=driver_version",
                                       "--format=csv,noheader"], capture_output=True,
                                      text=True).stdout.strip())


def median_us(graph, replicas, reps):
    """Median time of one decode: replay a graph of `replicas` launches."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for _ in range(5):
        graph.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / replicas)
    return statistics.median(times)


def capture(fns):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for f in fns:      # warm-up outside the graph (lazy init)
            f()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for f in fns:
            f()
    torch.cuda.synchronize()
    return g


def slots_of_pages(pages, block):
    """The cache slots of a sequence laid out in `pages` (a block-table row):
    page p's positions 0..block-1 in turn, as an engine's slot_mapping."""
    return (pages.to(torch.int64).repeat_interleave(block) * block
            + torch.arange(block, device=pages.device).repeat(pages.numel()))


def replicas_for(bytes_per_call, cap):
    return max(1, min(cap, math.ceil(4 * L2_BYTES / max(bytes_per_call, 1))))


def sdpa_backends():
    from torch.nn.attention import SDPBackend
    return [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
            SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]


def bench_sdpa(B, L, hq, hkv, d, reps):
    from torch.nn.attention import sdpa_kernel
    kv_bytes = B * L * hkv * d * 2 * 2
    R = replicas_for(kv_bytes, 64)
    ks = [torch.randn(B, hkv, L, d, device="cuda", dtype=torch.bfloat16) for _ in range(R)]
    vs = [torch.randn(B, hkv, L, d, device="cuda", dtype=torch.bfloat16) for _ in range(R)]
    qs = [torch.randn(B, hq, 1, d, device="cuda", dtype=torch.bfloat16) for _ in range(R)]
    best = None
    for backend in sdpa_backends():
        try:
            with sdpa_kernel([backend]):
                outs = [None] * R

                def make(i):
                    def f():
                        outs[i] = F.scaled_dot_product_attention(
                            qs[i], ks[i], vs[i], enable_gqa=True)
                    return f
                g = capture([make(i) for i in range(R)])
                t = min(median_us(g, R, reps), median_us(g, R, reps))
                if best is None or t < best[0]:
                    best = (t, str(backend).split(".")[-1])
                del g
        except Exception:   # a backend that does not take this shape
            continue
    del ks, vs, qs
    torch.cuda.empty_cache()
    return best, kv_bytes


def fill_cache(plan, bundle, cache, tokens_per_row, B, R, hkv, d, gen, block):
    """Stores random tokens of B*R sequences with the store kernel into
    pages of `block` tokens; returns the block tables (one per replica) and
    replica 0's keys/values."""
    blocks_per_seq = math.ceil(tokens_per_row / block)
    total_blocks = blocks_per_seq * B * R
    perm = torch.randperm(total_blocks, device="cuda", generator=gen).to(torch.int32)
    tables = perm.view(R, B, blocks_per_seq)
    chunk = 32768
    keep = min(2, B)
    keep_k, keep_v = [[] for _ in range(keep)], [[] for _ in range(keep)]
    for r in range(R):
        for b in range(B):
            slots_all = slots_of_pages(tables[r, b], block)[:tokens_per_row]
            for s in range(0, tokens_per_row, chunk):
                n = min(chunk, tokens_per_row - s)
                k = torch.randn(n, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                v = torch.randn(n, hkv, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                plan.store(k, v, cache, slots_all[s:s + n].contiguous())
                if r == 0 and b < keep:
                    keep_k[b].append(k)
                    keep_v[b].append(v)
    torch.cuda.synchronize()
    kk = [torch.cat(x) for x in keep_k]
    vv = [torch.cat(x) for x in keep_v]
    return tables, kk, vv


def check(out, q, kk, vv, preset):
    """tqc's output for rows 0..1 vs SDPA over the same uncompressed K/V."""
    worst_cos, worst_rel = 1.0, 0.0
    for b in range(len(kk)):
        k = kk[b].transpose(0, 1).unsqueeze(0).float()   # [1, hkv, L, d]
        v = vv[b].transpose(0, 1).unsqueeze(0).float()
        ref = F.scaled_dot_product_attention(q[b:b + 1].unsqueeze(2).float(), k, v,
                                             enable_gqa=True).squeeze(2)
        o = out[b:b + 1].float()
        cos = F.cosine_similarity(o.flatten(1), ref.flatten(1)).min().item()
        rel = ((o - ref).norm() / ref.norm()).item()
        worst_cos, worst_rel = min(worst_cos, cos), max(worst_rel, rel)
    ok = worst_rel <= 2e-2 if preset == "bf16" else worst_cos >= 0.8
    if not math.isfinite(worst_rel):
        ok = False
    return ok, worst_cos, worst_rel


def plan_for(manifest, batch):
    """The manifest's decode plan for a bucket of `batch` rows: the one with
    the smallest bucket >= batch, else the last (docs/MANIFEST.md)."""
    for plan in manifest["plans"]:
        if any(b >= batch for b in plan["buckets"]):
            return plan
    return manifest["plans"][-1]


def bench_tqc(tqrt, bundle_dir, B, L, reps, gen):
    bundle = tqrt.Bundle.from_dir(bundle_dir)
    info = json.load(open(os.path.join(bundle_dir, "manifest.json")))
    hq, hkv, d = bundle.num_q_heads, bundle.num_kv_heads, bundle.head_dim
    bpth = info["layout"]["bytes_per_token_head"]
    block = info["spec"]["block_size"]
    plan_desc = plan_for(info, B)
    splits = plan_desc["splits"]
    cache_bytes_call = B * L * hkv * bpth
    io_bytes = 2 * B * hq * d * 2 + B * 4 * (1 + math.ceil(L / block))
    ws_bytes = 2 * B * hq * splits * (d + 2) * 4 if splits > 1 else 0
    call_bytes = cache_bytes_call + io_bytes + ws_bytes
    R = replicas_for(call_bytes, 64)
    plan = bundle.plan(max_batch=B, max_tokens=32768)
    blocks_per_seq = math.ceil(L / block)
    cache = bundle.allocate_cache(num_blocks=blocks_per_seq * B * R)
    tables, kk, vv = fill_cache(plan, bundle, cache, L, B, R, hkv, d, gen, block)
    seq_lens = torch.full((B,), L, dtype=torch.int32, device="cuda")
    qs = [torch.randn(B, hq, d, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(R)]
    outs = [torch.empty_like(q) for q in qs]
    wss = [plan.allocate_workspace() for _ in range(R)]
    tabs = [tables[r].contiguous() for r in range(R)]

    plan.decode(qs[0], cache, tabs[0], seq_lens, out=outs[0], workspace=wss[0])
    torch.cuda.synchronize()
    ok, cos, rel = check(outs[0], qs[0], kk, vv, info["spec"]["preset"])  # vllm: same bounds

    def make(i):
        return lambda: plan.decode(qs[i], cache, tabs[i], seq_lens, out=outs[i],
                                   workspace=wss[i])
    g = capture([make(i) for i in range(R)])
    t = min(median_us(g, R, reps), median_us(g, R, reps))
    del g, cache, qs, outs, wss, tabs, tables
    plan.close()
    bundle.close()
    torch.cuda.empty_cache()
    return dict(us=t, bytes=call_bytes, cache_bytes=cache_bytes_call, ok=ok,
                cos=cos, rel=rel, replicas=R, splits=splits,
                block_n=plan_desc["block_n"], block_size=block,
                preset=info["spec"]["preset"] + ("-vllm" if info["layout"]["kind"] == "vllm" else ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundles", nargs="+", required=True, help="bundle directories (D=128, 32/8 heads)")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8, 32, 64])
    ap.add_argument("--context", type=int, nargs="+", default=[1024, 8192, 32768])
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--tqrt", default=None, help="directory of tqrt.py and libtqrt.so")
    args = ap.parse_args()
    if args.tqrt:
        sys.path.insert(0, args.tqrt)
    import tqrt

    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    env = environment()
    results = []
    print(f"# {env}")
    hdr = f"{'preset':<10} {'B':>3} {'L':>6} {'us':>9} {'GB/s':>7} {'%4.6T':>6} {'SDPA us':>9} {'x SDPA':>7}  check"
    print(hdr)
    for B in args.batch:
        for L in args.context:
            first = json.load(open(os.path.join(args.bundles[0], "manifest.json")))["spec"]
            (sdpa_us, backend), sdpa_bytes = bench_sdpa(B, L, first["num_q_heads"],
                                                      first["num_kv_heads"], first["head_dim"],
                                                      args.reps)
            print(f"{'sdpa':<10} {B:>3} {L:>6} {sdpa_us:>9.1f} {sdpa_bytes / sdpa_us / 1e3:>7.0f} "
                  f"{sdpa_bytes / sdpa_us * 1e6 / PEAK:>6.1%} {'':>9} {'':>7}  {backend}")
            for bd in args.bundles:
                r = bench_tqc(tqrt, bd, B, L, args.reps, gen)
                gbs = r["bytes"] / r["us"] / 1e3
                speed = sdpa_us / r["us"]
                print(f"{r['preset']:<10} {B:>3} {L:>6} {r['us']:>9.1f} {gbs:>7.0f} "
                      f"{gbs * 1e9 / PEAK:>6.1%} {sdpa_us:>9.1f} {speed:>6.2f}x  "
                      f"{'ok' if r['ok'] else 'FAIL'} cos {r['cos']:.4f} rel {r['rel']:.3f}"
                      f"  (splits {r['splits']}, pages of {r['block_size']})")
                results.append(dict(B=B, L=L, sdpa_us=sdpa_us, sdpa_backend=backend,
                                    sdpa_bytes=sdpa_bytes, speedup=speed, gbps=gbs, **r))
                sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(env=env, results=results), f, indent=1)
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
