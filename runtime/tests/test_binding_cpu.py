"""The Python binding without torch or a GPU (label unit).

Run by ctest with PYTHONPATH at the build's copy of tqrt.py, TQRT_LIBRARY at
libtqrt.so, TQRT_LIBCUDA at a missing file (no driver) and TQRT_FIXTURES at
tests/fixtures. Covers: import without torch, loading from a directory and
from bytes, the layout, plans, and runtime errors raised as TqrtError with
the runtime's status and message.
"""
import os
import sys
import unittest

# torch must not be needed here: make any import of it fail loudly.
sys.modules["torch"] = None

import tqrt  # noqa: E402

FIXTURES = os.environ["TQRT_FIXTURES"]


def read(name, mode="rb"):
    with open(os.path.join(FIXTURES, name), mode) as f:
        return f.read()


class BindingTest(unittest.TestCase):
    def test_load_dir_and_layout(self):
        b = tqrt.Bundle.from_dir(FIXTURES)
        self.assertEqual(b.arch, "sm_90")
        self.assertEqual(b.preset, "k3v4")
        self.assertEqual((b.head_dim, b.num_q_heads, b.num_kv_heads, b.block_size),
                         (128, 32, 8, 16))
        self.assertEqual(b.splits, 8)
        self.assertEqual(b.dtypes, ("bf16",))
        self.assertAlmostEqual(b.softmax_scale, 0.08838834764831845, places=7)
        self.assertEqual(b.layout["shape"], (-1, 8, 1888))
        self.assertEqual(b.layout["bytes_per_token_head"], 118)
        self.assertEqual([f["name"] for f in b.fields],
                         ["key_codes", "value_codes", "key_scale", "value_scale", "value_zero"])
        self.assertEqual(b.fields[2], {"name": "key_scale", "dtype": "f16", "bytes": 2,
                                       "offset": 1792, "token_stride": 2})
        self.assertEqual(b.cache_shape(10), (10, 8, 1888))
        self.assertEqual(b.cache_bytes(10), 151040)

    def test_load_bytes(self):
        b = tqrt.Bundle.from_bytes(read("manifest.json", "r"), read("kernels.cubin"),
                                   read("kernels.ptx", "r"))
        self.assertEqual(b.layout["kind"], "native")
        # PTX only.
        b = tqrt.Bundle.from_bytes(read("manifest.json"), None, read("kernels.ptx"))
        self.assertEqual(b.num_kv_heads, 8)

    def test_plan_without_device(self):
        b = tqrt.Bundle.from_dir(FIXTURES)
        p = b.plan(max_batch=4, max_tokens=96)
        self.assertFalse(p.bound)
        self.assertEqual(p.module_source, "none")
        self.assertEqual(p.workspace_bytes, 4 * 4 * 33280)
        self.assertEqual(p.launch_dims("decode")["grid"], (8, 4, 8))
        self.assertEqual(p.launch_dims("store")["grid"], (96, 1, 1))
        self.assertEqual(p.launch_dims("combine")["block"], (128, 1, 1))
        with self.assertRaises(tqrt.TqrtError) as e:
            p.launch_dims("store", "fp16")
        self.assertEqual(e.exception.status, tqrt.Status.UNSUPPORTED_DTYPE)
        del b  # the plan keeps the bundle alive
        self.assertEqual(p.launch_dims("store")["grid"], (96, 1, 1))

    def test_errors_carry_status_and_message(self):
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_dir("/nonexistent/bundle")
        self.assertEqual(e.exception.status, tqrt.Status.BAD_BUNDLE)
        self.assertIn("cannot read '/nonexistent/bundle/manifest.json'", str(e.exception))

        text = read("manifest.json", "r").replace('"schema_version": 1', '"schema_version": 3')
        with self.assertRaises(tqrt.TqrtError) as e:
            tqrt.Bundle.from_bytes(text, read("kernels.cubin"))
        self.assertEqual(e.exception.status, tqrt.Status.UNSUPPORTED_VERSION)
        self.assertIn("schema_version 3 is not supported", e.exception.message)

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
        self.assertEqual(tqrt.library().tqrt_abi_version(), 1)
        self.assertEqual(tqrt.library().tqrt_version().decode(), "0.1.0")


if __name__ == "__main__":
    unittest.main(verbosity=2)
