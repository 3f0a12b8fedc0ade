"""The Python binding without torch or a GPU (label unit).

Run by ctest with PYTHONPATH at the build's copy of tqrt.py, TQRT_LIBRARY at
libtqrt.so, TQRT_LIBCUDA at a missing file (no driver), TQRT_FIXTURES at
tests/fixtures and TQRT_MOCK_MANIFEST at tests/gpu/mock_manifest.json.
Covers: import without torch, loading from a directory and from bytes, the
layout, the bundle's decode plans and the plan a bucket gets, extend's
manifest facts, grids and workspace (and the signatures of
tqrt_launch_extend and tqrt_launch_extend_store),
and runtime errors raised as TqrtError with the runtime's status and message.
"""
import ctypes
import os
import sys
import unittest

# torch must not be needed here: make any import of it fail loudly.
sys.modules["torch"] = None

import tqrt  # noqa: E402

FIXTURES = os.environ["TQRT_FIXTURES"]
MOCK_MANIFEST = os.environ.get("TQRT_MOCK_MANIFEST")


def read(name, mode="rb"):
    with open(os.path.join(FIXTURES, name), mode) as f:
        return f.read()


# The fixture with extend, as runtime/tests/test_util.h's extendManifest().
EXTEND_MEMBER = ('"extend": {"available": true, "tile_tokens": 16, "block_n": 64, '
                 '"warps": 4, "workspace_bytes_per_token": 4160}')
EXTEND_KERNELS = (
    '{"name": "extend_prep_bf16", "kind": "extend_prep", "dtype": "bf16", '
    '"symbol": "tq_extend_prep_bf16", "plan": null, "args": "tq_extend_args", '
    '"args_bytes": 176, "block": [256, 1, 1], "shared_bytes": 0, '
    '"grid": ["max_tokens", "1", "1"]},\n'
    '    {"name": "extend_bf16", "kind": "extend", "dtype": "bf16", '
    '"symbol": "tq_extend_bf16", "plan": null, "args": "tq_extend_args", '
    '"args_bytes": 176, "block": [128, 1, 1], "shared_bytes": 40960, '
    '"grid": ["query_tiles", "num_kv_heads", "1"], "tile_tokens": 16}')


def replace_once(text, old, new):
    assert text.count(old) == 1, f"fixture has {text.count(old)} of {old!r}"
    return text.replace(old, new)


def extend_manifest():
    text = read("manifest.json", "r")
    text = replace_once(text, '  "plan_source": "defaults",\n',
                        '  "plan_source": "defaults",\n  ' + EXTEND_MEMBER + ',\n')
    return replace_once(text, '"local_bytes": 0}\n  ]',
                        '"local_bytes": 0},\n    ' + EXTEND_KERNELS + '\n  ]')


class BindingTest(unittest.TestCase):
    def test_load_dir_and_layout(self):
        b = tqrt.Bundle.from_dir(FIXTURES)
        self.assertEqual(b.arch, "sm_90")
        self.assertEqual(b.preset, "k3v4")
        self.assertEqual((b.head_dim, b.num_q_heads, b.num_kv_heads, b.block_size),
                         (128, 32, 8, 16))
        self.assertEqual(b.dtypes, ("bf16",))
        self.assertEqual(b.plan_source, "defaults")
        self.assertAlmostEqual(b.softmax_scale, 0.08838834764831845, places=7)
        self.assertEqual(b.layout["shape"], (-1, 8, 1888))
        self.assertEqual(b.layout["bytes_per_token_head"], 118)
        self.assertEqual([f["name"] for f in b.fields],
                         ["key_codes", "value_codes", "key_scale", "value_scale", "value_zero"])
        self.assertEqual(b.fields[2], {"name": "key_scale", "dtype": "f16", "bytes": 2,
                                       "offset": 1792, "token_stride": 2})
        self.assertEqual(b.cache_shape(10), (10, 8, 1888))
        self.assertEqual(b.cache_bytes(10), 151040)

    def test_plans(self):
        b = tqrt.Bundle.from_dir(FIXTURES)
        self.assertEqual(len(b.plans), 2)
        p0, p1 = b.plans
        self.assertIsInstance(p0, tqrt.PlanDesc)
        self.assertEqual(p0, tqrt.PlanDesc(
            index=0, buckets=(1, 2), block_n=64, splits=4, warps=4, heads_per_cta=4,
            stages=2, workspace_floats_per_batch_row=32 + 32 * 4 * 130))
        self.assertEqual(p1, tqrt.PlanDesc(
            index=1, buckets=(4, 8, 16), block_n=128, splits=1, warps=8, heads_per_cta=2,
            stages=3, workspace_floats_per_batch_row=0))
        # Below, inside, between and above the buckets.
        for max_batch, index in ((1, 0), (2, 0), (3, 1), (4, 1), (5, 1), (16, 1),
                                 (17, 1), (1000, 1)):
            with self.subTest(max_batch=max_batch):
                p = b.plan(max_batch=max_batch, max_tokens=8)
                self.assertEqual(p.plan_index, index)
                desc = b.plans[index]
                self.assertEqual((p.splits, p.block_n, p.warps, p.heads_per_cta),
                                 (desc.splits, desc.block_n, desc.warps, desc.heads_per_cta))
                self.assertEqual(p.workspace_bytes,
                                 4 * max_batch * desc.workspace_floats_per_batch_row)
        text = read("manifest.json", "r").replace("[1, 2]", "[2, 3]")
        self.assertEqual(tqrt.Bundle.from_bytes(text, read("kernels.cubin"))
                         .plan(max_batch=1, max_tokens=1).plan_index, 0)

    def test_plan_by_index(self):
        # tqrt_plan_create_for: the plan given, whatever the bucket.
        b = tqrt.Bundle.from_dir(FIXTURES)
        p = b.plan(max_batch=16, max_tokens=8, plan_index=0)
        self.assertEqual((p.plan_index, p.splits), (0, 4))
        self.assertEqual(p.workspace_bytes, 4 * 16 * b.plans[0].workspace_floats_per_batch_row)
        self.assertEqual(b.plan(max_batch=1, max_tokens=8, plan_index=1).plan_index, 1)
        with self.assertRaises(tqrt.TqrtError) as e:
            b.plan(max_batch=1, max_tokens=8, plan_index=2)
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("plan_index 2 is outside [0, 2)", e.exception.message)

    def test_mock_manifest(self):
        # The GPU tests' mock bundle: checked here, where the GPU tests skip.
        if not MOCK_MANIFEST:
            self.skipTest("TQRT_MOCK_MANIFEST is not set")
        with open(MOCK_MANIFEST) as f:
            b = tqrt.Bundle.from_bytes(f.read(), read("kernels.cubin"), read("kernels.ptx"))
        self.assertEqual(b.dtypes, ("bf16", "fp16"))
        self.assertEqual([(p.buckets, p.splits, p.heads_per_cta) for p in b.plans],
                         [((1, 2), 4, 2), ((4, 8, 16), 1, 4)])
        p = b.plan(max_batch=2, max_tokens=8)
        self.assertEqual(p.launch_dims("decode", "fp16")["grid"], (4, 2, 4))
        self.assertEqual(p.workspace_bytes, 4 * 2 * 2120)
        p = b.plan(max_batch=3, max_tokens=8)
        self.assertEqual(p.launch_dims("decode", "bf16")["grid"], (2, 3, 1))
        self.assertEqual(p.workspace_bytes, 0)
        # Its mock extend kernels: 2 KV heads * (4 * 64 + 8) bytes per token.
        self.assertTrue(b.has_extend)
        self.assertEqual(p.extend_workspace_bytes, 8 * 528)
        self.assertEqual(p.launch_dims("extend", "fp16")["grid"], (1 + 3, 2, 1))
        self.assertEqual(p.launch_dims("extend_prep", "bf16")["grid"], (8, 1, 1))

    def test_load_bytes(self):
        b = tqrt.Bundle.from_bytes(read("manifest.json", "r"), read("kernels.cubin"),
                                   read("kernels.ptx", "r"))
        self.assertEqual(b.layout["kind"], "native")
        # PTX only.
        b = tqrt.Bundle.from_bytes(read("manifest.json"), None, read("kernels.ptx"))
        self.assertEqual(b.num_kv_heads, 8)

    def test_plan_without_device(self):
        b = tqrt.Bundle.from_dir(FIXTURES)
        p = b.plan(max_batch=2, max_tokens=96)
        self.assertFalse(p.bound)
        self.assertEqual(p.module_source, "none")
        self.assertEqual((p.plan_index, p.splits), (0, 4))
        self.assertEqual(p.workspace_bytes, 4 * 2 * 16672)
        self.assertEqual(p.launch_dims("decode")["grid"], (8, 2, 4))
        self.assertEqual(p.launch_dims("store")["grid"], (96, 1, 1))
        self.assertFalse(p.launch_dims("store")["programmatic_launch"])
        with self.assertRaises(tqrt.TqrtError) as e:
            p.launch_dims("store", "fp16")
        self.assertEqual(e.exception.status, tqrt.Status.UNSUPPORTED_DTYPE)
        p1 = b.plan(max_batch=8, max_tokens=96)
        self.assertEqual(p1.launch_dims("decode")["grid"], (16, 8, 1))
        self.assertEqual(p1.workspace_bytes, 0)
        del b  # the plan keeps the bundle alive
        self.assertEqual(p.launch_dims("store")["grid"], (96, 1, 1))

    def test_errors_carry_status_and_message(self):
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_dir("/nonexistent/bundle")
        self.assertEqual(e.exception.status, tqrt.Status.BAD_BUNDLE)
        self.assertIn("cannot read '/nonexistent/bundle/manifest.json'", str(e.exception))

        # A schema-1 bundle (one plan, before per-bucket plans).
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_bytes(read("manifest_v1.json"), read("kernels.cubin"))
        self.assertEqual(e.exception.status, tqrt.Status.UNSUPPORTED_VERSION)
        self.assertIn("schema_version 1 is not supported (this runtime reads "
                      "schema_version 2)", e.exception.message)

        text = read("manifest.json", "r").replace("[4, 8, 16]", "[2, 8, 16]")
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_bytes(text, read("kernels.cubin"))
        self.assertEqual(e.exception.status, tqrt.Status.BAD_BUNDLE)
        self.assertIn("bucket 2 is in both plans[0] and plans[1]", e.exception.message)

        text = read("manifest.json", "r").replace('"splits"]', '"seq_len"]')
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_bytes(text, read("kernels.cubin"))
        self.assertEqual(e.exception.status, tqrt.Status.BAD_BUNDLE)
        self.assertIn('unknown name "seq_len"', e.exception.message)

        b = tqrt.Bundle.from_dir(FIXTURES)
        with self.assertRaises(tqrt.TqrtError) as e:
            b.plan(max_batch=0, max_tokens=1)
        self.assertEqual(e.exception.status, tqrt.Status.INVALID_ARGUMENT)
        with self.assertRaises(tqrt.TqrtError) as e:
            b.cache_shape(0)
        self.assertIn("num_blocks is 0", e.exception.message)

    def test_extend(self):
        b = tqrt.Bundle.from_bytes(extend_manifest(), read("kernels.cubin"))
        self.assertTrue(b.has_extend)
        self.assertEqual(b.extend, {"tile_tokens": 16, "block_n": 64, "warps": 4,
                                    "workspace_bytes_per_token": 8 * (4 * 128 + 8)})
        self.assertEqual(b.extend_note, "")
        p = b.plan(max_batch=4, max_tokens=100)
        self.assertEqual(p.extend_workspace_bytes, 100 * 4160)
        dims = p.launch_dims("extend")
        self.assertEqual(dims["grid"], (7 + 4, 8, 1))  # ceil(100 / 16) + max_batch
        self.assertEqual(dims["block"], (128, 1, 1))
        self.assertFalse(dims["programmatic_launch"])
        self.assertEqual(p.launch_dims("extend_prep")["grid"], (100, 1, 1))
        self.assertEqual(p.launch_dims("extend_prep", "bf16")["block"], (256, 1, 1))
        # The decode side is the same as without extend.
        self.assertEqual(p.launch_dims("decode")["grid"], (16, 4, 1))
        with self.assertRaises(ImportError):
            p.allocate_extend_workspace()  # needs torch
        with self.assertRaises(ImportError):
            p.extend(None, None, None, None, None, None, None)

        # tqrt_launch_extend through ctypes with fake (aligned, never read)
        # addresses: the signature carries every argument to the checks.
        lib = tqrt.library()
        A = 1 << 20

        def launch(key=A + 4096, value=A + 8192, workspace=A + 65536,
                   workspace_bytes=16 * 4160, batch=2, lse=A + 40960):
            return lib.tqrt_launch_extend(
                q._h, 1, A, 32 * 128, 128, key, 8 * 128, 128, value, 8 * 128, 128,
                A + 12288, 10 * 15104, A + 16384, 64, A + 20480, A + 24576,
                A + 28672, 32 * 128, 128, lse, batch, 0.0, workspace,
                workspace_bytes, None)

        q = b.plan(max_batch=2, max_tokens=16)
        self.assertEqual(launch(), tqrt.Status.NO_DEVICE)
        self.assertIn("tqrt_launch_extend: no CUDA device",
                      lib.tqrt_last_error().decode())
        self.assertEqual(launch(key=None, value=None, workspace=None, workspace_bytes=0,
                                lse=None), tqrt.Status.NO_DEVICE)
        self.assertEqual(launch(workspace_bytes=16 * 4160 - 1),
                         tqrt.Status.WORKSPACE_TOO_SMALL)
        self.assertIn("workspace_bytes 66559 is below the plan's extend_workspace_bytes "
                      "66560", lib.tqrt_last_error().decode())
        self.assertEqual(launch(key=None), tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("key is null but value is not", lib.tqrt_last_error().decode())
        self.assertEqual(launch(batch=3), tqrt.Status.EXCEEDS_PLAN)
        self.assertIn("batch 3 is above the plan's max_batch 2",
                      lib.tqrt_last_error().decode())
        self.assertEqual(launch(lse=A + 2), tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("is not 4-byte aligned", lib.tqrt_last_error().decode())

        # tqrt_launch_extend_store: the slot mapping after cache_bytes.
        def launch_store(slots=A + 45056, key=A + 4096):
            return lib.tqrt_launch_extend_store(
                q._h, 1, A, 32 * 128, 128, key, 8 * 128, 128, A + 8192, 8 * 128, 128,
                A + 12288, 10 * 15104, slots, A + 16384, 64, A + 20480, A + 24576,
                A + 28672, 32 * 128, 128, A + 40960, 2, 0.0, A + 65536, 16 * 4160, None)

        self.assertEqual(launch_store(), tqrt.Status.NO_DEVICE)
        self.assertIn("tqrt_launch_extend_store: no CUDA device",
                      lib.tqrt_last_error().decode())
        self.assertEqual(launch_store(slots=None), tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("slot_mapping is null", lib.tqrt_last_error().decode())
        self.assertEqual(launch_store(slots=A + 45060), tqrt.Status.INVALID_ARGUMENT)
        self.assertIn("is not 8-byte aligned", lib.tqrt_last_error().decode())

    def test_no_extend(self):
        # A bundle from before extend: has_extend False and why; no workspace.
        b = tqrt.Bundle.from_dir(FIXTURES)
        self.assertFalse(b.has_extend)
        self.assertIsNone(b.extend)
        self.assertEqual(b.extend_note, "the bundle predates extend")
        p = b.plan(max_batch=2, max_tokens=16)
        self.assertEqual(p.extend_workspace_bytes, 0)
        self.assertIsNone(p.allocate_extend_workspace())
        for kind in ("extend", "extend_prep"):
            with self.assertRaises(tqrt.TqrtError) as e:
                p.launch_dims(kind)
            self.assertEqual(e.exception.status, tqrt.Status.UNSUPPORTED)
            self.assertIn("the bundle has no extend kernels: the bundle predates extend",
                          e.exception.message)
        # And one that says it has none, with its reason.
        text = replace_once(read("manifest.json", "r"), '  "plan_source": "defaults",\n',
                            '  "plan_source": "defaults",\n  "extend": {"available": '
                            'false, "reason": "no extend for this preset"},\n')
        b = tqrt.Bundle.from_bytes(text, read("kernels.cubin"))
        self.assertEqual((b.has_extend, b.extend_note),
                         (False, "no extend for this preset"))
        self.assertEqual(tqrt.Status.UNSUPPORTED, 13)
        self.assertEqual(tqrt.library().tqrt_status_name(13).decode(), "TQRT_UNSUPPORTED")
        # Its manifest errors surface like any other.
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_bytes(extend_manifest().replace(
                '"workspace_bytes_per_token": 4160', '"workspace_bytes_per_token": 4096'),
                read("kernels.cubin"))
        self.assertEqual(e.exception.status, tqrt.Status.BAD_BUNDLE)
        self.assertIn("'extend.workspace_bytes_per_token' is 4096 but", e.exception.message)

    def test_no_device(self):
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.device_count()
        self.assertEqual(e.exception.status, tqrt.Status.NO_DEVICE)
        self.assertIn("/nonexistent/libcuda.so.1", e.exception.message)

    def test_torch_is_needed_for_tensors(self):
        b = tqrt.Bundle.from_dir(FIXTURES)
        with self.assertRaises(ImportError) as e:
            b.allocate_cache(4)
        self.assertIn("needs PyTorch", str(e.exception))

    def test_abi_version(self):
        self.assertEqual(tqrt.library().tqrt_abi_version(), 3)
        self.assertEqual(tqrt.library().tqrt_version().decode(), "0.1.0")


if __name__ == "__main__":
    unittest.main(verbosity=2)
