#!/usr/bin/env python3
"""End-to-end demo: a Llama-architecture model (random weights, nothing
downloaded) generates tokens with its attention KV cache in a tqc bundle's
compressed cache (default k3v4) and, in the same process, in a plain bf16
cache, through tqc's Python binding.

Both runs share one decode loop built from the transformers model's own
modules (embedding, RMSNorm, q/k/v/o projections, RoPE, MLP, lm_head); only
the attention differs:
  bf16  the step's K/V appended to bf16 tensors [B, kv_heads, L, D], then
        torch's scaled_dot_product_attention (GQA through enable_gqa);
  tqc   the step's K/V stored by the bundle's store kernel into the paged
        compressed cache (shuffled block tables), then its decode kernel.
The prompt is prefilled once by the transformers model (bf16 attention over
the raw K/V, as vLLM does for a first chunk); its K/V go into both caches.
Before anything is compared, the loop's bf16 path is checked against the
transformers model's own forward for one step.

The bf16 run generates greedily. Beside it, every bundle's attention runs on
the very same q/k/v, layer by layer (its cache receives the same tokens): the
relative error of that attention output against bf16 SDPA is the compressed
cache's own error, free of any drift. Then each bundle generates on its own:
teacher-forced on the bf16 run's tokens (the logits of both runs then belong
to the same context: top-1 agreement, cosine, KL), and free-running greedy
(the first token where it leaves the bf16 run). A model with random weights
has nearly flat logits (the median gap between its top two logits is printed,
in logit standard deviations) and amplifies any perturbation through its
layers, so a bundle of the bf16 preset runs as the control: the same kernels
over an exact bf16 cache show how far tqc's own rounding alone moves the
logits. Also reported: KV-cache bytes, the decode step time (whole model,
eager, median over the steps) and the attention's time per step (all layers,
CUDA-graph replays at the final length).

  python3 bench/e2e_demo.py --bundles out/k3v4 out/bf16 --tqrt build/runtime \\
      --json bench/results/e2e.json
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import decode_bench  # noqa: E402  (capture, median_us)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bundles", nargs="+", required=True,
                    help="tqc bundle directories (same heads and head_dim); a bf16-preset "
                         "bundle is the control: its logits must equal the bf16 run's")
    ap.add_argument("--tqrt", default=None, help="directory of tqrt.py and libtqrt.so")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--hidden", type=int, default=0,
                    help="hidden size (default: num_q_heads * head_dim of the bundle)")
    ap.add_argument("--intermediate", type=int, default=11008)
    ap.add_argument("--vocab", type=int, default=32000)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--prompt", type=int, default=8192)
    ap.add_argument("--new", type=int, default=256, help="tokens to generate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None)
    return ap.parse_args()


class Model:
    """The decode step of a transformers LlamaForCausalLM, module by module,
    with a pluggable attention (q [B, Hq, D] -> out [B, Hq, D])."""

    def __init__(self, hf):
        from transformers.models.llama import modeling_llama as ml
        self.hf = hf
        self.apply_rope = ml.apply_rotary_pos_emb
        c = hf.config
        self.hq, self.hkv = c.num_attention_heads, c.num_key_value_heads
        self.d = getattr(c, "head_dim", None) or c.hidden_size // c.num_attention_heads

    @torch.no_grad()
    def step(self, tokens, pos, attention):
        """tokens [B] at position pos (same for every row); attention(layer,
        q, k, v) with q [B, Hq, D], k/v [B, Hkv, D]. Returns fp32 logits [B, V]."""
        m = self.hf.model
        B = tokens.shape[0]
        h = m.embed_tokens(tokens[:, None])
        position_ids = torch.full((B, 1), pos, device=tokens.device, dtype=torch.long)
        cos, sin = m.rotary_emb(h, position_ids)
        for i, layer in enumerate(m.layers):
            a = layer.self_attn
            x = layer.input_layernorm(h)
            q = a.q_proj(x).view(B, 1, self.hq, self.d).transpose(1, 2)
            k = a.k_proj(x).view(B, 1, self.hkv, self.d).transpose(1, 2)
            v = a.v_proj(x).view(B, 1, self.hkv, self.d).transpose(1, 2)
            q, k = self.apply_rope(q, k, cos, sin)
            o = attention(i, q[:, :, 0].contiguous(), k[:, :, 0].contiguous(),
                          v[:, :, 0].contiguous())
            h = h + a.o_proj(o.reshape(B, 1, self.hq * self.d))
            h = h + layer.mlp(layer.post_attention_layernorm(h))
        return self.hf.lm_head(m.norm(h))[:, -1].float()


class Bf16Cache:
    def __init__(self, layers, B, hkv, lmax, d, prompt_kv):
        self.k = [torch.zeros(B, hkv, lmax, d, device="cuda", dtype=torch.bfloat16)
                  for _ in range(layers)]
        self.v = [torch.zeros_like(x) for x in self.k]
        P = prompt_kv[0][0].shape[2]
        for i, (k, v) in enumerate(prompt_kv):
            self.k[i][:, :, :P] = k
            self.v[i][:, :, :P] = v
        self.len = P

    def attention(self, i, q, k, v):
        L = self.len
        self.k[i][:, :, L] = k
        self.v[i][:, :, L] = v
        o = F.scaled_dot_product_attention(q[:, :, None], self.k[i][:, :, :L + 1],
                                           self.v[i][:, :, :L + 1], enable_gqa=True)
        return o[:, :, 0]


class TqcCache:
    """One paged compressed cache per layer, pages shuffled across sequences."""

    def __init__(self, tqrt, bundle_dir, layers, B, lmax, prompt_kv, seed):
        self.bundle = tqrt.Bundle.from_dir(bundle_dir)
        bs = self.bundle.block_size
        self.blocks_per_seq = math.ceil(lmax / bs)
        num_blocks = B * self.blocks_per_seq
        g = torch.Generator().manual_seed(seed)
        perm = torch.randperm(num_blocks, generator=g).to(torch.int32)
        self.block_tables = perm.view(B, self.blocks_per_seq).cuda()
        self.caches = [self.bundle.allocate_cache(num_blocks) for _ in range(layers)]
        self.cache_bytes = sum(c.numel() for c in self.caches)
        self.B, self.bs = B, bs
        # The prompt's K/V, in chunks of whole sequences.
        P = prompt_kv[0][0].shape[2]
        chunk_rows = max(1, 16384 // P)
        store_plan = self.bundle.plan(max_batch=1, max_tokens=chunk_rows * P)
        for b0 in range(0, B, chunk_rows):
            rows = range(b0, min(B, b0 + chunk_rows))
            slots = torch.cat([self.slots(b, torch.arange(P, device="cuda")) for b in rows])
            for i, (k, v) in enumerate(prompt_kv):
                kt = k[rows.start:rows.stop].permute(0, 2, 1, 3).reshape(-1, k.shape[1], k.shape[3])
                vt = v[rows.start:rows.stop].permute(0, 2, 1, 3).reshape(-1, v.shape[1], v.shape[3])
                store_plan.store(kt.contiguous(), vt.contiguous(), self.caches[i], slots)
        torch.cuda.synchronize()
        self.plan = self.bundle.plan(max_batch=B, max_tokens=B)
        self.workspace = self.plan.allocate_workspace()
        self.len = P
        self.seq_lens = torch.full((B,), P, device="cuda", dtype=torch.int32)
        self.step_slots = None

    def slots(self, b, t):
        """Cache slots of tokens t of rows b (ints or tensors that broadcast)."""
        return self.block_tables[b, t // self.bs].long() * self.bs + t % self.bs

    def begin_step(self):
        """Slots of token `len` of every row, and the lengths after it."""
        t = torch.full((self.B,), self.len, device="cuda", dtype=torch.long)
        self.step_slots = self.slots(torch.arange(self.B, device="cuda"), t)
        self.seq_lens.fill_(self.len + 1)

    def attention(self, i, q, k, v):
        self.plan.store(k, v, self.caches[i], self.step_slots)
        return self.plan.decode(q, self.caches[i], self.block_tables, self.seq_lens,
                                workspace=self.workspace)


def graph_us(fn, reps=30):
    """Median time of fn as a CUDA-graph replay (decode_bench's capture)."""
    return decode_bench.median_us(decode_bench.capture([fn]), 1, reps)


def flash_attention():
    """The bf16 run's eager SDPA backend: flash (or memory-efficient), which
    take any length without per-shape setup (cuDNN builds a plan per new
    length, which would time plan building, not attention)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION])


def best_sdpa_graph_us(fn):
    """CUDA-graph time of fn with the fastest SDPA backend (as decode_bench)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    best = None
    for backend in (SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
                    SDPBackend.EFFICIENT_ATTENTION):
        try:
            with sdpa_kernel([backend]):
                t = graph_us(fn)
        except RuntimeError:
            continue
        if best is None or t < best[0]:
            best = (t, str(backend).split(".")[-1])
    return best


def timed(fn):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    r = fn()
    end.record()
    end.synchronize()
    return r, start.elapsed_time(end)


def rel_err(x, ref):
    return ((x.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30)).item()


def agreement(logits, ref):
    """Per step: top-1 agreement, mean and min cosine, mean KL(bf16 || tqc)."""
    return ((logits.argmax(-1) == ref.argmax(-1)).float().mean().item(),
            F.cosine_similarity(logits, ref, dim=-1).mean().item(),
            F.cosine_similarity(logits, ref, dim=-1).min().item(),
            F.kl_div(F.log_softmax(logits, -1), F.log_softmax(ref, -1), log_target=True,
                     reduction="none").sum(-1).mean().item())


def generate(model, cache, tokens, P, N, B, teacher=True):
    """N steps through `cache`: teacher-forced on tokens (logits and times
    returned) or free-running greedy from tokens[0] (its tokens returned)."""
    out, ms, free = [], [], [tokens[0]]
    for s in range(N):
        cache.len = P + s
        if hasattr(cache, "begin_step"):
            cache.begin_step()
        tok = tokens[s] if teacher else free[-1]
        logits, t = timed(lambda: model.step(tok, P + s, cache.attention))
        out.append(logits)
        ms.append(t)
        free.append(logits.argmax(-1))
    return out, ms, free


def first_divergence(free, tokens, N, B):
    same = torch.stack(free[1:]) == torch.stack(tokens[1:N + 1])   # [N, B]
    return [(int((~same[:, r]).nonzero()[0]) if (~same[:, r]).any() else N) for r in range(B)]


def main():
    args = parse()
    if args.tqrt:
        sys.path.insert(0, args.tqrt)
    import tqrt
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM

    probe = tqrt.Bundle.from_dir(args.bundles[0])
    hq, hkv, d = probe.num_q_heads, probe.num_kv_heads, probe.head_dim
    for path in args.bundles[1:]:
        o = tqrt.Bundle.from_dir(path)
        if (o.num_q_heads, o.num_kv_heads, o.head_dim) != (hq, hkv, d):
            sys.exit(f"{path}: heads/head_dim differ from {args.bundles[0]}")
    hidden = args.hidden or hq * d
    B, P, N = args.batch, args.prompt, args.new
    lmax = P + N + 1
    torch.manual_seed(args.seed)
    config = LlamaConfig(vocab_size=args.vocab, hidden_size=hidden,
                         intermediate_size=args.intermediate,
                         num_hidden_layers=args.layers, num_attention_heads=hq,
                         num_key_value_heads=hkv, head_dim=d,
                         max_position_embeddings=lmax + 16)
    config._attn_implementation = "sdpa"
    hf = LlamaForCausalLM(config).to(device="cuda", dtype=torch.bfloat16).eval()
    model = Model(hf)
    params = sum(p.numel() for p in hf.parameters())
    print(f"model: Llama architecture, random weights (seed {args.seed}), {args.layers} layers, "
          f"hidden {hidden}, {hq}/{hkv} heads x {d}, {params / 1e9:.2f} B parameters; "
          f"transformers {transformers.__version__}, torch {torch.__version__}")
    print(f"batch {B}, prompt {P} tokens, {N} new tokens; bundles: {' '.join(args.bundles)}")

    # Prefill with the transformers model; its K/V (after RoPE) seed every cache.
    prompt = torch.randint(0, args.vocab, (B, P), device="cuda")
    with torch.no_grad(), flash_attention():
        try:
            out = hf(prompt, use_cache=True, logits_to_keep=1)
        except TypeError:  # transformers before logits_to_keep
            out = hf(prompt, use_cache=True)
    pkv = out.past_key_values
    if hasattr(pkv, "layers"):            # transformers >= 4.56: Cache.layers
        prompt_kv = [(l.keys, l.values) for l in pkv.layers]
    elif hasattr(pkv, "key_cache"):
        prompt_kv = list(zip(pkv.key_cache, pkv.value_cache))
    else:
        prompt_kv = [tuple(x) for x in pkv]
    first = out.logits[:, -1].float().argmax(-1)
    del out
    bf16 = Bf16Cache(args.layers, B, hkv, lmax, d, prompt_kv)
    tqs = [TqcCache(tqrt, path, args.layers, B, lmax, prompt_kv, args.seed)
           for path in args.bundles]

    # The loop's bf16 path against the transformers forward (same SDPA
    # backend), one step.
    with flash_attention():
        ours = model.step(first, P, bf16.attention)
        with torch.no_grad():
            theirs = hf(first[:, None], past_key_values=pkv, use_cache=True,
                        position_ids=torch.full((B, 1), P, device="cuda")).logits[:, -1].float()
    check = (ours - theirs).abs().max().item() / theirs.abs().max().item()
    print(f"check: the loop's bf16 step vs transformers' forward: max |delta| / max |logit| = {check:.2e}")
    if check > 1e-2:
        sys.exit("the decode loop does not reproduce the transformers model")
    del pkv, prompt_kv
    torch.cuda.empty_cache()

    # bf16 greedy run; every bundle's attention runs beside it on the same
    # q/k/v (its cache gets the same tokens), which measures the attention
    # error of the compressed cache alone, layer by layer, step by step.
    att_err = [[] for _ in tqs]

    def shadowed(i, q, k, v):
        o = bf16.attention(i, q, k, v)
        for j, tq in enumerate(tqs):
            att_err[j].append(rel_err(tq.attention(i, q, k, v), o))
        return o

    tokens, bf16_logits, margins = [first], [], []
    with flash_attention():
        for s in range(N):
            bf16.len = P + s
            for tq in tqs:
                tq.len = P + s
                tq.begin_step()
            logits = model.step(tokens[-1], P + s, shadowed)
            bf16_logits.append(logits)
            top2 = logits.topk(2, dim=-1).values
            margins.append(((top2[:, 0] - top2[:, 1]) / logits.std(-1)).median().item())
            tokens.append(logits.argmax(-1))
        generate(model, bf16, tokens, P, min(N, 32), B)          # warm-up
        _, bf16_ms, _ = generate(model, bf16, tokens, P, N, B)   # timed, plain
    bf16.len = P + N - 1
    qs = torch.randn(B, hq, d, device="cuda", dtype=torch.bfloat16)
    ks = torch.randn(B, hkv, d, device="cuda", dtype=torch.bfloat16)
    att_bf16, backend = best_sdpa_graph_us(
        lambda: [bf16.attention(i, qs, ks, ks) for i in range(args.layers)])
    del bf16
    torch.cuda.empty_cache()

    L = P + N
    kv_bf16 = args.layers * B * L * hkv * d * 2 * 2
    results = []
    for j, (path, tq) in enumerate(zip(args.bundles, tqs)):
        generate(model, tq, tokens, P, min(N, 32), B)                     # warm-up
        logits, ms, _ = generate(model, tq, tokens, P, N, B)               # teacher-forced
        stats = [agreement(x, r) for x, r in zip(logits, bf16_logits)]
        _, _, free = generate(model, tq, tokens, P, N, B, teacher=False)   # free-running
        tq.len = P + N - 1
        tq.begin_step()
        att = graph_us(lambda: [tq.attention(i, qs, ks, ks) for i in range(args.layers)])
        b = tq.bundle
        e = sorted(att_err[j])
        results.append(dict(
            path=path, preset=b.preset, layout=b.layout["kind"], plan_source=b.plan_source,
            kv_bytes=args.layers * B * L * hkv * b.layout["bytes_per_token_head"],
            kv_bytes_allocated=tq.cache_bytes,
            attention_rel_err_median=e[len(e) // 2], attention_rel_err_max=e[-1],
            step_ms_median=statistics.median(ms), attention_us_graph=att,
            top1_agreement=statistics.mean(x[0] for x in stats),
            mean_cosine=statistics.mean(x[1] for x in stats),
            min_cosine=min(x[2] for x in stats),
            mean_kl=statistics.mean(x[3] for x in stats),
            free_running_first_divergence=first_divergence(free, tokens, N, B)))
        tqs[j] = None
        del tq
        torch.cuda.empty_cache()

    print(f"\nbf16 run: KV cache {kv_bf16 / 2**20:.1f} MiB at {L} tokens; decode step (whole model, "
          f"eager, median) {statistics.median(bf16_ms):.3f} ms; attention of one step, all "
          f"{args.layers} layers (CUDA graph) {att_bf16:.1f} us ({backend}); top-1 margin of its "
          f"logits: median {statistics.median(margins):.3f} logit std")
    print(f"{'bundle':<16} {'KV MiB':>7} {'x less':>6} {'attn err':>17} {'step ms':>8} "
          f"{'attn us':>8} {'x bf16':>6} {'top-1':>6} {'cos mean':>8} {'cos min':>8} "
          f"{'KL mean':>8}  free-running: first differing token per row")
    for r in results:
        name = f"{r['preset']}/{r['layout']}"
        print(f"{name:<16} {r['kv_bytes'] / 2**20:>7.1f} {kv_bf16 / r['kv_bytes']:>6.2f} "
              f"{r['attention_rel_err_median']:>8.2e}/{r['attention_rel_err_max']:>8.2e} "
              f"{r['step_ms_median']:>8.3f} {r['attention_us_graph']:>8.1f} "
              f"{att_bf16 / r['attention_us_graph']:>6.2f} {r['top1_agreement']:>6.3f} "
              f"{r['mean_cosine']:>8.5f} {r['min_cosine']:>8.5f} {r['mean_kl']:>8.1e}  "
              f"{r['free_running_first_divergence']}")
    print("(attn err: median/max relative error of each layer's attention output against bf16 "
          "SDPA on the same q/k/v; top-1, cos, KL: teacher-forced logits against the bf16 run's)")
    out = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        # TQC_COMMIT names the tree when the copy's git metadata is stale.
        "commit": os.environ.get("TQC_COMMIT") or subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True,
            text=True).stdout.strip() or "?",
        "command": " ".join(sys.argv),
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__, "transformers": transformers.__version__,
        "model": dict(layers=args.layers, hidden=hidden, intermediate=args.intermediate,
                      heads=hq, kv_heads=hkv, head_dim=d, vocab=args.vocab,
                      params=params, weights="random (seed %d)" % args.seed),
        "batch": B, "prompt": P, "new_tokens": N,
        "loop_check_rel_max_delta": check,
        "bf16": dict(kv_bytes=kv_bf16, step_ms_median=statistics.median(bf16_ms),
                     attention_us_graph=att_bf16, sdpa_backend=backend,
                     median_top1_margin_in_std=statistics.median(margins)),
        "bundles": results,
    }
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
