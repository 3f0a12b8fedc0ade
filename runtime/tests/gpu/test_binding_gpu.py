"""The runtime and its Python binding on a GPU, against the mock bundle.

The mock kernels (mock_kernels.cu) store K/V uncompressed and compute plain
split-KV attention, so the outputs are compared with a float64 reference.
This checks what the runtime does on a device: module loading (cubin, PTX
fallback, arch refusal), the arguments the kernels receive (pointers,
strides, batch, max_batch, scale, workspace, grids), both dtypes, both of
the mock's decode plans (buckets [1, 2]: 4 splits, decode merging its splits;
buckets [4, 8, 16]: one split, decode only) and the choice between them,
the caller's stream, and capture and replay in a CUDA graph while sequence
lengths change; and extend (chunked prefill: its two kernels, with and
without the chunk, lse, tiles, strides, scale, graph replay).

Exit code 77 (ctest's skip) with a message when torch or a GPU is missing.
Environment: TQRT_LIBRARY, TQRT_MOCK_BUNDLE (the build's mock_bundle dir).
"""
import itertools
import json
import os
import sys
import unittest

try:
    import torch
except ImportError:
    print("skipping: PyTorch is not installed")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skipping: no CUDA device visible to PyTorch")
    sys.exit(77)

import tqrt  # noqa: E402

BUNDLE = os.environ["TQRT_MOCK_BUNDLE"]
D, NQ, NKV, BS = 64, 8, 2, 16


def read(name, mode="rb"):
    with open(os.path.join(BUNDLE, name), mode) as f:
        return f.read()


def manifest(**changes):
    m = json.loads(read("manifest.json", "r"))
    for path, value in changes.items():
        node = m
        keys = path.split("__")
        for k in keys[:-1]:
            node = node[k]
        node[keys[-1]] = value
    return m


def reference(q, k_seqs, v_seqs, scale):
    """float64 attention: q [B, NQ, D]; k_seqs[b], v_seqs[b]: [L, NKV, D]."""
    out = torch.zeros(q.shape, dtype=torch.float64, device=q.device)
    for b in range(q.shape[0]):
        k, v = k_seqs[b].double(), v_seqs[b].double()
        if k.shape[0] == 0:
            continue
        k = k.repeat_interleave(NQ // NKV, dim=1)   # [L, NQ, D]
        v = v.repeat_interleave(NQ // NKV, dim=1)
        s = torch.einsum("hd,lhd->hl", q[b].double(), k) * scale
        p = torch.softmax(s, dim=-1)
        out[b] = torch.einsum("hl,lhd->hd", p, v)
    return out


def extend_reference(q, prefix_k, prefix_v, chunk_k, chunk_v, scale):
    """float64 causal extend of one sequence: q [n, NQ, D]; prefix_k/v
    [P, NKV, D]; chunk_k/v [n, NKV, D], or None for the prefix only.
    Returns out [n, NQ, D] and the natural-log lse [n, NQ] (-inf: no token)."""
    n = q.shape[0]
    out = torch.zeros(n, NQ, D, dtype=torch.float64, device=q.device)
    lse = torch.full((n, NQ), float("-inf"), dtype=torch.float64, device=q.device)
    for i in range(n):
        k, v = prefix_k.double(), prefix_v.double()
        if chunk_k is not None:
            k = torch.cat([k, chunk_k[:i + 1].double()])
            v = torch.cat([v, chunk_v[:i + 1].double()])
        if k.shape[0] == 0:
            continue
        k = k.repeat_interleave(NQ // NKV, dim=1)
        v = v.repeat_interleave(NQ // NKV, dim=1)
        s = torch.einsum("hd,lhd->hl", q[i].double(), k) * scale
        lse[i] = torch.logsumexp(s, -1)
        out[i] = torch.einsum("hl,lhd->hd", torch.softmax(s, -1), v)
    return out, lse


class Paged:
    """Sequences of random tokens in a paged cache with shuffled blocks."""

    def __init__(self, bundle, plan, lens, dtype, num_blocks=64, seed=0):
        g = torch.Generator(device="cpu").manual_seed(seed)
        self.lens = list(lens)
        self.cache = bundle.allocate_cache(num_blocks)
        perm = torch.randperm(num_blocks, generator=g).tolist()
        width = max(1, max((n + BS - 1) // BS for n in lens))
        self.tables = torch.zeros(len(lens), width, dtype=torch.int32)
        self.k, self.v = [], []
        slots = []
        for b, n in enumerate(lens):
            for j in range((n + BS - 1) // BS):
                self.tables[b, j] = perm.pop()
            slots += [int(self.tables[b, p // BS]) * BS + p % BS for p in range(n)]
            self.k.append(torch.randn(n, NKV, D, generator=g).to(dtype).cuda())
            self.v.append(torch.randn(n, NKV, D, generator=g).to(dtype).cuda())
        self.tables = self.tables.cuda()
        self.seq_lens = torch.tensor(lens, dtype=torch.int32, device="cuda")
        keys = torch.cat(self.k) if self.k else torch.zeros(0, NKV, D, dtype=dtype, device="cuda")
        values = torch.cat(self.v)
        slots = torch.tensor(slots, dtype=torch.int64, device="cuda")
        # Keys as a slice of a fused QKV tensor: token stride (NQ+2NKV)*D.
        qkv = torch.zeros(keys.shape[0], NQ + 2 * NKV, D, dtype=dtype, device="cuda")
        qkv[:, NQ:NQ + NKV] = keys
        keys = qkv[:, NQ:NQ + NKV]
        # Store in chunks of at most max_tokens, as an engine's bucket does.
        for start in range(0, keys.shape[0], plan.max_tokens):
            end = min(start + plan.max_tokens, keys.shape[0])
            plan.store(keys[start:end], values[start:end], self.cache, slots[start:end])


class GpuTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bundle = tqrt.Bundle.from_dir(BUNDLE)

    def check(self, out, ref, dtype):
        tol = 2e-2 if dtype == torch.bfloat16 else 4e-3
        torch.testing.assert_close(out.double(), ref, atol=tol, rtol=tol)

    def test_cubin_is_used(self):
        plan = self.bundle.plan(max_batch=2, max_tokens=64)
        self.assertTrue(plan.bound)
        self.assertEqual(plan.module_source, "cubin")
        self.assertEqual(plan.compute_capability // 10 * 10, 90)
        self.assertEqual((plan.plan_index, plan.splits), (0, 4))
        self.assertEqual(plan.workspace_bytes, 4 * 2 * 2120)

    def test_plans(self):
        self.assertEqual([(p.buckets, p.splits, p.heads_per_cta) for p in self.bundle.plans],
                         [((1, 2), 4, 2), ((4, 8, 16), 1, 4)])
        for max_batch, index in ((1, 0), (2, 0), (3, 1), (16, 1), (20, 1)):
            with self.subTest(max_batch=max_batch):
                plan = self.bundle.plan(max_batch=max_batch, max_tokens=8)
                self.assertEqual(plan.plan_index, index)
                self.assertEqual(plan.launch_dims("decode")["grid"],
                                 (NQ // plan.heads_per_cta, max_batch, plan.splits))

    def test_decode_both_dtypes_both_plans(self):
        # max_batch 2: plans[0] (4 splits); 6: plans[1] (one split).
        for max_batch, lens in ((2, [37, 0]), (6, [37, 1, 0, 100, 16, 5])):
            for dtype in (torch.bfloat16, torch.float16):
                with self.subTest(max_batch=max_batch, dtype=dtype):
                    plan = self.bundle.plan(max_batch=max_batch, max_tokens=40)
                    self.assertEqual(plan.splits, 4 if max_batch <= 2 else 1)
                    paged = Paged(self.bundle, plan, lens, dtype, seed=1)
                    q = torch.randn(len(lens), NQ, D, device="cuda").to(dtype)
                    ws = plan.allocate_workspace()
                    out = plan.decode(q, paged.cache, paged.tables, paged.seq_lens,
                                      workspace=ws)
                    torch.cuda.synchronize()
                    ref = reference(q, paged.k, paged.v, self.bundle.softmax_scale)
                    self.check(out, ref, dtype)
                    empty = lens.index(0)
                    self.assertEqual(out[empty].abs().max().item(), 0.0)

    def test_strides_scale_and_partial_batch(self):
        dtype = torch.bfloat16
        # Batch below max_batch, on each plan: 1 of 2 rows, 3 of 8.
        for max_batch, lens in ((2, [50]), (8, [20, 50, 3])):
            with self.subTest(max_batch=max_batch):
                plan = self.bundle.plan(max_batch=max_batch, max_tokens=128)
                n = len(lens)
                paged = Paged(self.bundle, plan, lens, dtype, seed=2)
                # Query and out as views with padded strides.
                qbig = torch.randn(n, NQ + 4, D + 16, device="cuda").to(dtype)
                q = qbig[:, 2:2 + NQ, :D]
                obig = torch.full((n, NQ * 2, D + 8), 7.0, dtype=dtype, device="cuda")
                out = obig[:, ::2, :D]
                plan.decode(q, paged.cache, paged.tables, paged.seq_lens, out=out,
                            workspace=plan.allocate_workspace(), scale=0.3)
                torch.cuda.synchronize()
                self.check(out, reference(q, paged.k, paged.v, 0.3), dtype)
                self.assertTrue(torch.all(obig[:, 1::2] == 7.0))  # untouched rows

    def test_single_split_needs_no_workspace(self):
        b = self.bundle
        plan = b.plan(max_batch=3, max_tokens=64)  # bucket 4: plans[1]
        self.assertEqual((plan.plan_index, plan.splits), (1, 1))
        self.assertEqual(plan.workspace_bytes, 0)
        self.assertIsNone(plan.allocate_workspace())
        lens = [33, 64, 0]
        paged = Paged(b, plan, lens, torch.float16, seed=3)
        q = torch.randn(3, NQ, D, device="cuda").half()
        out = plan.decode(q, paged.cache, paged.tables, paged.seq_lens)
        torch.cuda.synchronize()
        self.check(out, reference(q, paged.k, paged.v, b.softmax_scale), torch.float16)

    def test_ptx_fallback(self):
        # An sm_80 cubin does not run on sm_90: the runtime JIT-compiles the
        # compute_80 PTX instead.
        m = manifest(target__arch="sm_80")
        b = tqrt.Bundle.from_bytes(json.dumps(m), read("sm_80.cubin"), read("kernels.ptx"))
        plan = b.plan(max_batch=2, max_tokens=32)
        self.assertEqual(plan.module_source, "ptx")
        paged = Paged(b, plan, [30, 9], torch.bfloat16, seed=4)
        q = torch.randn(2, NQ, D, device="cuda").bfloat16()
        out = plan.decode(q, paged.cache, paged.tables, paged.seq_lens,
                          workspace=plan.allocate_workspace())
        torch.cuda.synchronize()
        self.check(out, reference(q, paged.k, paged.v, b.softmax_scale), torch.bfloat16)

    def test_arch_mismatch(self):
        # Arch-specific code for another GPU and no PTX: refused at plan time.
        m = manifest(target__arch="sm_100a")
        del m["target"]["ptx"]
        b = tqrt.Bundle.from_bytes(json.dumps(m), read("kernels.cubin"))
        with self.assertRaises(tqrt.TqrtError) as e:
            b.plan(max_batch=1, max_tokens=1)
        self.assertEqual(e.exception.status, tqrt.Status.ARCH_MISMATCH)
        self.assertIn("does not run on device", e.exception.message)
        self.assertIn("the cubin is for sm_100a, the bundle has no PTX", e.exception.message)
        # A PTX newer than the device cannot be JIT-compiled either.
        m = manifest(target__arch="sm_100")
        b = tqrt.Bundle.from_bytes(json.dumps(m), read("kernels.cubin"),
                                   read("kernels.ptx", "r").replace(".target sm_80", ".target sm_100"))
        with self.assertRaises(tqrt.TqrtError) as e:
            b.plan(max_batch=1, max_tokens=1)
        self.assertEqual(e.exception.status, tqrt.Status.ARCH_MISMATCH)
        self.assertIn("the PTX is for sm_100", e.exception.message)

    def test_missing_symbol(self):
        m = manifest()
        m["kernels"][0]["symbol"] = "tq_store_nonexistent"
        b = tqrt.Bundle.from_bytes(json.dumps(m), read("kernels.cubin"))
        with self.assertRaises(tqrt.TqrtError) as e:
            b.plan(max_batch=1, max_tokens=1)
        self.assertEqual(e.exception.status, tqrt.Status.BAD_BUNDLE)
        self.assertIn("symbol 'tq_store_nonexistent' is not in the cubin", e.exception.message)

    def test_errors_on_device(self):
        plan = self.bundle.plan(max_batch=2, max_tokens=8)
        paged = Paged(self.bundle, plan, [5, 6], torch.bfloat16, seed=5)
        q = torch.randn(3, NQ, D, device="cuda").bfloat16()
        ws = plan.allocate_workspace()
        tables = torch.zeros(3, 4, dtype=torch.int32, device="cuda")
        lens = torch.zeros(3, dtype=torch.int32, device="cuda")
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.decode(q, paged.cache, tables, lens, workspace=ws)
        self.assertEqual(e.exception.status, tqrt.Status.EXCEEDS_PLAN)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.decode(q[:2], paged.cache, tables, lens, workspace=ws[:-1])
        self.assertEqual(e.exception.status, tqrt.Status.WORKSPACE_TOO_SMALL)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.decode(q[:2].float(), paged.cache, tables, lens, workspace=ws)
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.decode(q[:2], paged.cache[:, :1], tables, lens, workspace=ws)
        self.assertEqual(e.exception.status, tqrt.Status.SHAPE_MISMATCH)
        k = torch.zeros(9, NKV, D, dtype=torch.bfloat16, device="cuda")
        slots = torch.zeros(9, dtype=torch.int64, device="cuda")
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.store(k, k, paged.cache, slots)
        self.assertEqual(e.exception.status, tqrt.Status.EXCEEDS_PLAN)
        # The runtime's own 16-byte check, past the binding's checks.
        kk = torch.zeros(4 * NKV * D + 1, dtype=torch.bfloat16, device="cuda")[1:].view(4, NKV, D)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.store(kk, kk, paged.cache, slots)
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("is not 16-byte aligned", e.exception.message)

    def test_side_stream_and_negative_slots(self):
        plan = self.bundle.plan(max_batch=1, max_tokens=16)
        cache = self.bundle.allocate_cache(4)
        k = torch.randn(16, NKV, D, device="cuda").bfloat16()
        slots = torch.arange(16, dtype=torch.int64, device="cuda")
        slots[5] = -1  # skipped
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            plan.store(k, k, cache, slots)
        s.synchronize()
        region = cache[0, 0, :16 * 2 * D].view(torch.bfloat16).view(16, D)
        self.assertTrue(torch.equal(region[4], k[4, 0]))
        self.assertEqual(region[5].abs().max().item(), 0.0)

    def test_graph_capture_and_replay(self):
        # One captured decode step per bucket replays while lengths grow: the
        # grid, the arguments and the workspace do not depend on sequence
        # lengths. Both buckets capture one decode kernel.
        dtype = torch.bfloat16
        for max_batch, lens in ((2, [200, 0]), (4, [200, 90, 0, 31])):
            with self.subTest(max_batch=max_batch):
                plan = self.bundle.plan(max_batch=max_batch, max_tokens=256)
                paged = Paged(self.bundle, plan, lens, dtype, seed=6)
                q = torch.randn(max_batch, NQ, D, device="cuda").to(dtype)
                out = torch.empty_like(q)
                ws = plan.allocate_workspace()
                seq_lens = torch.zeros(max_batch, dtype=torch.int32, device="cuda")
                plan.decode(q, paged.cache, paged.tables, seq_lens, out=out,
                            workspace=ws)  # warm-up
                torch.cuda.synchronize()
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    plan.decode(q, paged.cache, paged.tables, seq_lens, out=out,
                                workspace=ws)
                for step in (1, 17, 64, 200):
                    cur = [min(step, n) for n in lens]
                    seq_lens.copy_(torch.tensor(cur, dtype=torch.int32))
                    graph.replay()
                    torch.cuda.synchronize()
                    ref = reference(q, [k[:n] for k, n in zip(paged.k, cur)],
                                    [v[:n] for v, n in zip(paged.v, cur)],
                                    self.bundle.softmax_scale)
                    self.check(out, ref, dtype)


    # -- extend ------------------------------------------------------------

    def extend_inputs(self, chunks, dtype, seed):
        g = torch.Generator(device="cpu").manual_seed(seed)
        total = sum(chunks)
        cu = torch.tensor([0] + list(itertools.accumulate(chunks)), dtype=torch.int32,
                          device="cuda")
        q = torch.randn(total, NQ, D, generator=g).to(dtype).cuda()
        k = torch.randn(total, NKV, D, generator=g).to(dtype).cuda()
        v = torch.randn(total, NKV, D, generator=g).to(dtype).cuda()
        return cu, q, k, v

    def check_extend(self, paged, prefixes, cu, q, k, v, out, lse, scale, chunk, dtype):
        for b, p in enumerate(prefixes):
            r0, r1 = int(cu[b]), int(cu[b + 1])
            ref, ref_lse = extend_reference(
                q[r0:r1], paged.k[b][:p], paged.v[b][:p],
                k[r0:r1] if chunk else None, v[r0:r1] if chunk else None, scale)
            self.check(out[r0:r1], ref, dtype)
            if lse is not None:
                torch.testing.assert_close(lse[r0:r1].double(), ref_lse, atol=1e-4, rtol=1e-4)

    def test_extend_both_dtypes_with_and_without_chunk(self):
        b = self.bundle
        self.assertTrue(b.has_extend)
        plan = b.plan(max_batch=4, max_tokens=64)
        self.assertEqual(plan.extend_workspace_bytes, 64 * NKV * (4 * D + 8))
        self.assertEqual(plan.launch_dims("extend")["grid"], (64 // 16 + 4, NKV, 1))
        # Prefixes of every kind (none, a full block, partial); chunks over
        # one tile, none, two tiles.
        prefixes, chunks = [37, 0, 16, 5], [10, 7, 0, 20]
        for dtype in (torch.bfloat16, torch.float16):
            paged = Paged(b, plan, prefixes, dtype, seed=11)
            cu, q, k, v = self.extend_inputs(chunks, dtype, seed=12)
            prefix_lens = torch.tensor(prefixes, dtype=torch.int32, device="cuda")
            ws = plan.allocate_extend_workspace()
            for chunk in (True, False):
                with self.subTest(dtype=dtype, chunk=chunk):
                    # NaN everywhere first: every row must be written.
                    out = torch.full_like(q, float("nan"))
                    lse = torch.full((q.shape[0], NQ), float("nan"), device="cuda")
                    res, res_lse = plan.extend(q, k if chunk else None, v if chunk else None,
                                               paged.cache, paged.tables, cu, prefix_lens,
                                               out=out, lse=lse, workspace=ws if chunk else None)
                    self.assertIs(res, out)
                    self.assertIs(res_lse, lse)
                    torch.cuda.synchronize()
                    self.check_extend(paged, prefixes, cu, q, k, v, out, lse,
                                      b.softmax_scale, chunk, dtype)
            # Without lse, out allocated by the binding.
            out, none = plan.extend(q, k, v, paged.cache, paged.tables, cu, prefix_lens,
                                    workspace=ws)
            self.assertIsNone(none)
            torch.cuda.synchronize()
            self.check_extend(paged, prefixes, cu, q, k, v, out, None, b.softmax_scale,
                              True, dtype)

    def test_extend_strides_scale_and_partial_batch(self):
        dtype = torch.bfloat16
        plan = self.bundle.plan(max_batch=4, max_tokens=40)
        prefixes, chunks = [3, 29, 0], [17, 1, 5]  # 3 of 4 sequences
        paged = Paged(self.bundle, plan, prefixes, dtype, seed=13)
        cu, q0, k0, v0 = self.extend_inputs(chunks + [9], dtype, seed=14)
        n = int(cu[3])
        # Query and out as padded views; key / value as slices of a fused QKV.
        qkv = torch.zeros(n, NQ + 2 * NKV + 2, D, dtype=dtype, device="cuda")
        qkv[:, :NQ] = q0[:n]
        qkv[:, NQ + 1:NQ + 1 + NKV] = k0[:n]
        qkv[:, NQ + 2 + NKV:] = v0[:n]
        q, k, v = qkv[:, :NQ], qkv[:, NQ + 1:NQ + 1 + NKV], qkv[:, NQ + 2 + NKV:]
        obig = torch.full((n, NQ * 2, D + 8), 7.0, dtype=dtype, device="cuda")
        out = obig[:, ::2, :D]
        prefix_lens = torch.tensor(prefixes + [50], dtype=torch.int32, device="cuda")
        plan.extend(q, k, v, paged.cache, paged.tables, cu, prefix_lens, out=out,
                    workspace=plan.allocate_extend_workspace(), scale=0.3, batch=3)
        torch.cuda.synchronize()
        self.check_extend(paged, prefixes, cu, q, k, v, out, None, 0.3, True, dtype)
        self.assertTrue(torch.all(obig[:, 1::2] == 7.0))  # untouched heads

    def test_extend_graph_capture_and_replay(self):
        # One captured extend (two kernels) replays while the chunks and
        # prefixes change: grids and arguments depend on neither.
        dtype = torch.float16
        plan = self.bundle.plan(max_batch=2, max_tokens=48)
        stored = [40, 25]
        paged = Paged(self.bundle, plan, stored, dtype, seed=15)
        _, q, k, v = self.extend_inputs([48], dtype, seed=16)
        cu = torch.zeros(3, dtype=torch.int32, device="cuda")
        prefix_lens = torch.zeros(2, dtype=torch.int32, device="cuda")
        out = torch.zeros_like(q)
        lse = torch.zeros(48, NQ, device="cuda")
        ws = plan.allocate_extend_workspace()
        cu.copy_(torch.tensor([0, 1, 2], dtype=torch.int32))
        plan.extend(q, k, v, paged.cache, paged.tables, cu, prefix_lens, out=out, lse=lse,
                    workspace=ws)  # warm-up
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            plan.extend(q, k, v, paged.cache, paged.tables, cu, prefix_lens, out=out,
                        lse=lse, workspace=ws)
        for prefixes, chunks in (([0, 0], [30, 18]), ([40, 25], [16, 1]), ([7, 25], [48, 0])):
            cu.copy_(torch.tensor([0] + list(itertools.accumulate(chunks)), dtype=torch.int32))
            prefix_lens.copy_(torch.tensor(prefixes, dtype=torch.int32))
            graph.replay()
            torch.cuda.synchronize()
            self.check_extend(paged, prefixes, cu, q, k, v, out, lse,
                              self.bundle.softmax_scale, True, dtype)

    def test_extend_errors_on_device(self):
        plan = self.bundle.plan(max_batch=2, max_tokens=16)
        paged = Paged(self.bundle, plan, [5, 6], torch.bfloat16, seed=17)
        cu, q, k, v = self.extend_inputs([4, 4], torch.bfloat16, seed=18)
        prefix_lens = torch.tensor([5, 6], dtype=torch.int32, device="cuda")
        ws = plan.allocate_extend_workspace()
        self.assertEqual(ws.numel(), 16 * NKV * (4 * D + 8))
        args = (paged.cache, paged.tables, cu, prefix_lens)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.extend(q, k, None, *args, workspace=ws)
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.extend(q, k, v, *args, workspace=ws[:-1])
        self.assertEqual(e.exception.status, tqrt.Status.WORKSPACE_TOO_SMALL)
        self.assertIn("is below the plan's extend_workspace_bytes", e.exception.message)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.extend(q, k, v, *args)  # no workspace with a chunk
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("workspace is null", e.exception.message)
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.extend(q, k, v, *args, workspace=ws, lse=torch.zeros(8, NQ, device="cuda").half())
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        cu3 = torch.tensor([0, 2, 4, 8], dtype=torch.int32, device="cuda")
        with self.assertRaises(tqrt.TqrtError) as e:
            plan.extend(q, k, v, paged.cache, torch.zeros(3, 1, dtype=torch.int32, device="cuda"),
                        cu3, torch.zeros(3, dtype=torch.int32, device="cuda"), workspace=ws)
        self.assertEqual(e.exception.status, tqrt.Status.EXCEEDS_PLAN)
        # A bundle without extend says so.
        m = manifest()
        del m["extend"]
        m["kernels"] = [x for x in m["kernels"] if not x["kind"].startswith("extend")]
        old = tqrt.Bundle.from_bytes(json.dumps(m), read("kernels.cubin"))
        self.assertFalse(old.has_extend)
        with self.assertRaises(tqrt.TqrtError) as e:
            old.plan(max_batch=2, max_tokens=16).extend(q, k, v, *args, workspace=ws)
        self.assertEqual(e.exception.status, tqrt.Status.UNSUPPORTED)
        self.assertIn("the bundle predates extend", e.exception.message)


class RealBundleTest(unittest.TestCase):
    """tqc's own kernels through the runtime, for the bundle directories in
    $TQRT_REAL_BUNDLES (':'-separated; skipped when unset). The cache is
    compressed, so outputs are compared with exact attention over the
    uncompressed tokens loosely (cosine similarity); this checks that the
    runtime drives real kernels correctly, not their accuracy."""

    def test_real_bundles(self):
        dirs = [d for d in os.environ.get("TQRT_REAL_BUNDLES", "").split(":") if d]
        if not dirs:
            self.skipTest("TQRT_REAL_BUNDLES is not set")
        for path in dirs:
            for dtype in (torch.bfloat16, torch.float16):
                with self.subTest(bundle=path, dtype=dtype):
                    self.run_one(path, dtype)

    def run_one(self, path, dtype):
        b = tqrt.Bundle.from_dir(path)
        H, Q, Dh, bs = b.num_kv_heads, b.num_q_heads, b.head_dim, b.block_size
        plan = b.plan(max_batch=4, max_tokens=512)
        g = torch.Generator(device="cpu").manual_seed(7)
        lens = [300, 1, 0, 129]
        num_blocks = 4 * ((max(lens) + bs - 1) // bs) + 3
        cache = b.allocate_cache(num_blocks)
        perm = torch.randperm(num_blocks, generator=g).tolist()
        width = (max(lens) + bs - 1) // bs
        tables = torch.zeros(4, width, dtype=torch.int32)
        ks, vs, slots = [], [], []
        for i, n in enumerate(lens):
            for j in range((n + bs - 1) // bs):
                tables[i, j] = perm.pop()
            slots += [int(tables[i, p // bs]) * bs + p % bs for p in range(n)]
            ks.append(torch.randn(n, H, Dh, generator=g).to(dtype).cuda())
            vs.append(torch.randn(n, H, Dh, generator=g).to(dtype).cuda())
        plan.store(torch.cat(ks), torch.cat(vs), cache,
                   torch.tensor(slots, dtype=torch.int64, device="cuda"))
        q = torch.randn(4, Q, Dh, generator=g).to(dtype).cuda()
        out = plan.decode(q, cache, tables.cuda(),
                          torch.tensor(lens, dtype=torch.int32, device="cuda"),
                          workspace=plan.allocate_workspace())
        torch.cuda.synchronize()
        self.assertTrue(torch.isfinite(out).all().item())
        self.assertEqual(out[2].abs().max().item(), 0.0)
        ratio = Q // H
        for i, n in enumerate(lens):
            if n == 0:
                continue
            k = ks[i].double().repeat_interleave(ratio, dim=1)
            v = vs[i].double().repeat_interleave(ratio, dim=1)
            p = torch.softmax(torch.einsum("hd,lhd->hl", q[i].double(), k) * b.softmax_scale, -1)
            ref = torch.einsum("hl,lhd->hd", p, v)
            cos = torch.nn.functional.cosine_similarity(out[i].double(), ref, dim=-1)
            rel = ((out[i].double() - ref).norm() / ref.norm()).item()
            print(f"  {b.preset} {b.arch} {b.layout['kind']} via {plan.module_source} "
                  f"{dtype} plans[{plan.plan_index}] ({plan.splits} splits): row {i} "
                  f"(length {n}) min cosine {cos.min().item():.4f}, rel. error {rel:.4f}")
            self.assertGreater(cos.min().item(), 0.8)

if __name__ == "__main__":
    unittest.main(verbosity=2)
