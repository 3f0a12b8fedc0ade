"""tqrt: Python binding of the tqc runtime (libtqrt.so), through ctypes.

    import torch, tqrt
    bundle = tqrt.Bundle.from_dir("out/k3v4-sm_90")        # or Bundle.from_bytes(...)
    cache = bundle.allocate_cache(num_blocks=4096)           # uint8, the manifest's layout
    bundle.plans                                             # decode launch plans (PlanDesc)
    plan = bundle.plan(max_batch=32, max_tokens=512)         # one per batch bucket
    plan.plan_index, plan.splits                             # the bundle's plan it uses
    workspace = plan.allocate_workspace()                    # None when splits == 1
    plan.store(key, value, cache, slot_mapping)              # [T, kv_heads, D] bf16/fp16
    out = plan.decode(query, cache, block_tables, seq_lens, workspace=workspace)
    if bundle.has_extend:                                    # else bundle.extend_note says why
        ext_ws = plan.allocate_extend_workspace()            # once per plan (and stream)
        out, _ = plan.extend(query, key, value, cache, block_tables,   # chunked prefill
                             cu_seqlens_q, prefix_lens, workspace=ext_ws)

Launches go to torch.cuda.current_stream() of the tensors' device and are
asynchronous; they never allocate (when `out` is given), synchronize or read
device memory, so they can be captured in a torch.cuda.CUDAGraph.

torch is imported lazily: loading a bundle, reading its layout and planning
work without it (e.g. on a machine without a GPU). Every failure raises
TqrtError with the runtime's status and message.

The library is found through $TQRT_LIBRARY, else next to this file (the
build copies tqrt.py beside libtqrt.so), else on the system's search path.
"""

import ctypes
import ctypes.util
import dataclasses
import enum
import os

__all__ = ["Bundle", "Plan", "PlanDesc", "Status", "TqrtError", "device_count",
           "library"]


class Status(enum.IntEnum):
    OK = 0
    INVALID_ARGUMENT = 1
    BAD_BUNDLE = 2
    UNSUPPORTED_VERSION = 3
    ARCH_MISMATCH = 4
    SHAPE_MISMATCH = 5
    EXCEEDS_PLAN = 6
    WORKSPACE_TOO_SMALL = 7
    UNSUPPORTED_DTYPE = 8
    NO_DEVICE = 9
    NO_CONTEXT = 10
    CUDA_ERROR = 11
    INTERNAL = 12
    UNSUPPORTED = 13


class TqrtError(RuntimeError):
    """A runtime failure: `status` (a Status) and the runtime's message."""

    def __init__(self, status, message):
        try:
            status = Status(status)
        except ValueError:
            pass
        super().__init__(f"{getattr(status, 'name', status)}: {message}")
        self.status = status
        self.message = message


_DTYPE_BF16 = 1
_DTYPE_FP16 = 2
_KINDS = {"store": 0, "decode": 1, "extend_prep": 2, "extend": 3}


# Mirrors of the structs in include/tqrt/tqrt.h (same order and types).
class _BundleInfo(ctypes.Structure):
    _fields_ = [
        ("arch", ctypes.c_char_p), ("vendor", ctypes.c_char_p),
        ("preset", ctypes.c_char_p), ("generator", ctypes.c_char_p),
        ("plan_source", ctypes.c_char_p),
        ("schema_version", ctypes.c_int32), ("abi_version", ctypes.c_int32),
        ("head_dim", ctypes.c_int32), ("num_q_heads", ctypes.c_int32),
        ("num_kv_heads", ctypes.c_int32), ("block_size", ctypes.c_int32),
        ("num_plans", ctypes.c_int32),
        ("dtypes", ctypes.c_uint32), ("softmax_scale", ctypes.c_float),
        ("has_image", ctypes.c_int32), ("has_ptx", ctypes.c_int32),
        ("has_extend", ctypes.c_int32), ("extend_tile_tokens", ctypes.c_int32),
        ("extend_block_n", ctypes.c_int32), ("extend_warps", ctypes.c_int32),
        ("extend_workspace_bytes_per_token", ctypes.c_int64),
        ("extend_note", ctypes.c_char_p),
    ]


class _PlanDesc(ctypes.Structure):
    _fields_ = [
        ("buckets", ctypes.POINTER(ctypes.c_int32)), ("num_buckets", ctypes.c_int32),
        ("block_n", ctypes.c_int32), ("splits", ctypes.c_int32),
        ("warps", ctypes.c_int32), ("heads_per_cta", ctypes.c_int32),
        ("stages", ctypes.c_int32),
        ("workspace_floats_per_batch_row", ctypes.c_int64),
    ]


class _LayoutInfo(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_char_p), ("dtype", ctypes.c_char_p),
        ("shape", ctypes.c_int64 * 4),
        ("block_stride", ctypes.c_int64), ("head_stride", ctypes.c_int64),
        ("region_bytes", ctypes.c_int64), ("bytes_per_token_head", ctypes.c_int64),
        ("alignment", ctypes.c_int64),
        ("rank", ctypes.c_int32), ("num_fields", ctypes.c_int32),
    ]


class _FieldInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p), ("dtype", ctypes.c_char_p),
        ("bytes", ctypes.c_int64), ("offset", ctypes.c_int64),
        ("token_stride", ctypes.c_int64),
    ]


class _PlanInfo(ctypes.Structure):
    _fields_ = [
        ("workspace_bytes", ctypes.c_uint64),
        ("max_batch", ctypes.c_int32), ("max_tokens", ctypes.c_int32),
        ("plan_index", ctypes.c_int32), ("splits", ctypes.c_int32),
        ("block_n", ctypes.c_int32), ("warps", ctypes.c_int32),
        ("heads_per_cta", ctypes.c_int32),
        ("bound", ctypes.c_int32), ("device", ctypes.c_int32),
        ("compute_capability", ctypes.c_int32),
        ("module_source", ctypes.c_char_p),
        ("extend_workspace_bytes", ctypes.c_uint64),
    ]


class _LaunchDims(ctypes.Structure):
    _fields_ = [
        ("grid", ctypes.c_uint32 * 3), ("block", ctypes.c_uint32 * 3),
        ("dynamic_shared_bytes", ctypes.c_uint32),
        ("static_shared_bytes", ctypes.c_uint32),
        ("programmatic_launch", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


_lib = None


def _find_library():
    env = os.environ.get("TQRT_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "libtqrt.so"),
                      os.path.join(here, "..", "lib", "libtqrt.so")):
        if os.path.exists(candidate):
            return candidate
    found = ctypes.util.find_library("tqrt")
    if found:
        return found
    raise OSError("libtqrt.so was not found: set TQRT_LIBRARY to its path, or "
                  "put tqrt.py next to it (the CMake build does)")


def library():
    """The loaded libtqrt (ctypes.CDLL), loading it on first use."""
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(_find_library())
    P, I32, I64, U64, S = (ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64,
                           ctypes.c_uint64, ctypes.c_size_t)
    status = ctypes.c_int
    sig = {
        "tqrt_last_error": (ctypes.c_char_p, []),
        "tqrt_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        "tqrt_version": (ctypes.c_char_p, []),
        "tqrt_abi_version": (ctypes.c_int, []),
        "tqrt_bundle_load_dir": (status, [ctypes.c_char_p, ctypes.POINTER(P)]),
        "tqrt_bundle_load_memory": (status, [P, S, P, S, P, S, ctypes.POINTER(P)]),
        "tqrt_bundle_destroy": (None, [P]),
        "tqrt_bundle_get_info": (status, [P, ctypes.POINTER(_BundleInfo)]),
        "tqrt_bundle_get_plan": (status, [P, I32, ctypes.POINTER(_PlanDesc)]),
        "tqrt_bundle_get_layout": (status, [P, ctypes.POINTER(_LayoutInfo)]),
        "tqrt_bundle_get_field": (status, [P, I32, ctypes.POINTER(_FieldInfo)]),
        "tqrt_cache_shape": (status, [P, I64, ctypes.POINTER(I64), ctypes.POINTER(I32)]),
        "tqrt_cache_bytes": (status, [P, I64, ctypes.POINTER(U64)]),
        "tqrt_plan_create": (status, [P, I32, I32, ctypes.POINTER(P)]),
        "tqrt_plan_create_for": (status, [P, I32, I32, I32, ctypes.POINTER(P)]),
        "tqrt_plan_destroy": (None, [P]),
        "tqrt_plan_get_info": (status, [P, ctypes.POINTER(_PlanInfo)]),
        "tqrt_plan_get_launch": (status, [P, ctypes.c_int, ctypes.c_int,
                                          ctypes.POINTER(_LaunchDims)]),
        "tqrt_launch_store": (status, [P, ctypes.c_int, P, I64, I64, P, I64, I64,
                                       P, I64, P, I32, P]),
        "tqrt_launch_decode": (status, [P, ctypes.c_int, P, I64, I64, P, I64, P,
                                        I32, P, P, I64, I64, I32, ctypes.c_float,
                                        P, U64, P]),
        "tqrt_launch_extend": (status, [P, ctypes.c_int, P, I64, I64, P, I64, I64,
                                        P, I64, I64, P, I64, P, I32, P, P, P, I64,
                                        I64, P, I32, ctypes.c_float, P, U64, P]),
        "tqrt_launch_extend_store": (status, [P, ctypes.c_int, P, I64, I64, P, I64,
                                              I64, P, I64, I64, P, I64, P, P, I32, P,
                                              P, P, I64, I64, P, I32, ctypes.c_float,
                                              P, U64, P]),
        "tqrt_device_count": (status, [ctypes.POINTER(I32)]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    _lib = lib
    return lib


def _check(status):
    if status != 0:
        # The message is per OS thread; ctypes runs the call and this read on
        # the calling thread.
        raise TqrtError(status, library().tqrt_last_error().decode(errors="replace"))


def _str(b):
    return b.decode() if b is not None else None


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("tqrt: this needs PyTorch (import torch failed)") from e
    return torch


def _device_index(torch, device):
    device = torch.device(device)
    if device.type != "cuda":
        raise ValueError(f"tqrt: device must be a CUDA device, got {device}")
    return device.index if device.index is not None else torch.cuda.current_device()


@dataclasses.dataclass(frozen=True)
class PlanDesc:
    """One of a bundle's decode launch plans (tqrt_plan_desc): the launch
    configuration serving `buckets` (ascending max_batch values). A plan for
    max_batch B uses the plan of the smallest bucket >= B, or the last plan
    when B is above every bucket."""
    index: int
    buckets: tuple
    block_n: int
    splits: int           # KV splits of decode; 1: no workspace
    warps: int
    heads_per_cta: int
    stages: int
    workspace_floats_per_batch_row: int  # 0 when splits == 1


class Bundle:
    """A loaded bundle: the manifest's facts, its cache layout, its decode
    launch plans (`plans`), and plans for batch buckets (`plan()`).
    has_extend: whether it has the extend (chunked prefill) kernels; then
    `extend` is {'tile_tokens', 'block_n', 'warps',
    'workspace_bytes_per_token'}, else None and `extend_note` says why."""

    def __init__(self, handle):
        self._h = ctypes.c_void_p(handle)
        lib = library()
        info = _BundleInfo()
        _check(lib.tqrt_bundle_get_info(self._h, ctypes.byref(info)))
        layout = _LayoutInfo()
        _check(lib.tqrt_bundle_get_layout(self._h, ctypes.byref(layout)))
        self.arch = _str(info.arch)
        self.vendor = _str(info.vendor)
        self.preset = _str(info.preset)
        self.generator = _str(info.generator)
        self.head_dim = info.head_dim
        self.num_q_heads = info.num_q_heads
        self.num_kv_heads = info.num_kv_heads
        self.block_size = info.block_size
        self.plan_source = _str(info.plan_source)
        self.softmax_scale = info.softmax_scale
        self.has_extend = bool(info.has_extend)
        self.extend_note = _str(info.extend_note)
        self.extend = {
            "tile_tokens": info.extend_tile_tokens,
            "block_n": info.extend_block_n,
            "warps": info.extend_warps,
            "workspace_bytes_per_token": info.extend_workspace_bytes_per_token,
        } if self.has_extend else None
        self.dtypes = tuple(name for bit, name in ((_DTYPE_BF16, "bf16"), (_DTYPE_FP16, "fp16"))
                            if info.dtypes & (1 << bit))
        self.layout = {
            "kind": _str(layout.kind), "dtype": _str(layout.dtype),
            "shape": tuple(layout.shape[i] for i in range(layout.rank)),
            "block_stride": layout.block_stride, "head_stride": layout.head_stride,
            "region_bytes": layout.region_bytes,
            "bytes_per_token_head": layout.bytes_per_token_head,
            "alignment": layout.alignment,
        }
        plans = []
        for i in range(info.num_plans):
            d = _PlanDesc()
            _check(lib.tqrt_bundle_get_plan(self._h, i, ctypes.byref(d)))
            plans.append(PlanDesc(
                index=i, buckets=tuple(d.buckets[j] for j in range(d.num_buckets)),
                block_n=d.block_n, splits=d.splits, warps=d.warps,
                heads_per_cta=d.heads_per_cta, stages=d.stages,
                workspace_floats_per_batch_row=d.workspace_floats_per_batch_row))
        self.plans = tuple(plans)
        self.fields = []
        for i in range(layout.num_fields):
            f = _FieldInfo()
            _check(lib.tqrt_bundle_get_field(self._h, i, ctypes.byref(f)))
            self.fields.append({"name": _str(f.name), "dtype": _str(f.dtype),
                                "bytes": f.bytes, "offset": f.offset,
                                "token_stride": f.token_stride})

    @classmethod
    def from_dir(cls, path):
        h = ctypes.c_void_p()
        _check(library().tqrt_bundle_load_dir(os.fsencode(path), ctypes.byref(h)))
        return cls(h.value)

    @classmethod
    def from_bytes(cls, manifest, image=None, ptx=None):
        """manifest: str or bytes; image: the cubin's bytes; ptx: str or bytes."""
        if isinstance(manifest, str):
            manifest = manifest.encode()
        if isinstance(ptx, str):
            ptx = ptx.encode()
        image = image or b""
        ptx = ptx or b""
        h = ctypes.c_void_p()
        # ctypes passes bytes objects as pointers to their buffers; the
        # runtime copies them before returning.
        _check(library().tqrt_bundle_load_memory(
            manifest, len(manifest), image or None, len(image),
            ptx or None, len(ptx), ctypes.byref(h)))
        return cls(h.value)

    def close(self):
        if getattr(self, "_h", None) and self._h.value:
            library().tqrt_bundle_destroy(self._h)
            self._h = ctypes.c_void_p()

    def __del__(self):
        # Plans keep their bundle alive, so this runs after the last plan.
        try:
            self.close()
        except Exception:
            pass

    def cache_shape(self, num_blocks):
        shape = (ctypes.c_int64 * 4)()
        rank = ctypes.c_int32()
        _check(library().tqrt_cache_shape(self._h, num_blocks, shape, ctypes.byref(rank)))
        return tuple(shape[i] for i in range(rank.value))

    def cache_bytes(self, num_blocks):
        n = ctypes.c_uint64()
        _check(library().tqrt_cache_bytes(self._h, num_blocks, ctypes.byref(n)))
        return n.value

    def allocate_cache(self, num_blocks, device="cuda", zero=True):
        """A uint8 cache tensor of the manifest's layout for num_blocks blocks."""
        torch = _torch()
        shape = self.cache_shape(num_blocks)
        make = torch.zeros if zero else torch.empty
        return make(shape, dtype=torch.uint8, device=device)

    def plan(self, max_batch, max_tokens, device=None, plan_index=None):
        """A fixed-grid plan for at most max_batch decode rows and max_tokens
        stored tokens per launch, with the bundle's decode plan for max_batch
        (Plan.plan_index), or bundle.plans[plan_index] when given. With
        PyTorch and a GPU, the kernels are loaded on `device` (default: the
        current CUDA device)."""
        lib = library()

        def create(h):
            if plan_index is None:
                return lib.tqrt_plan_create(self._h, max_batch, max_tokens,
                                            ctypes.byref(h))
            return lib.tqrt_plan_create_for(self._h, plan_index, max_batch,
                                            max_tokens, ctypes.byref(h))

        index = None
        try:
            import torch
        except ImportError:
            torch = None
        h = ctypes.c_void_p()
        if torch is not None and torch.cuda.is_available():
            index = _device_index(torch, device if device is not None else "cuda")
            with torch.cuda.device(index):
                # Any CUDA call creates the device's primary context and
                # makes it current on this thread, where the runtime loads
                # the kernels.
                torch.empty(1, device=f"cuda:{index}")
                _check(create(h))
        else:
            _check(create(h))
        return Plan(self, h.value, index)


class Plan:
    """A plan for one batch bucket: launch store / decode / extend with torch
    tensors. plan_index, splits, block_n, warps, heads_per_cta: the bundle's
    decode plan it uses (bundle.plans[plan_index]). extend_workspace_bytes:
    what extend with a chunk needs (0 when the bundle has no extend)."""

    def __init__(self, bundle, handle, device_index):
        self.bundle = bundle  # keeps the bundle alive while the plan lives
        self._h = ctypes.c_void_p(handle)
        info = _PlanInfo()
        _check(library().tqrt_plan_get_info(self._h, ctypes.byref(info)))
        self.max_batch = info.max_batch
        self.max_tokens = info.max_tokens
        self.plan_index = info.plan_index
        self.splits = info.splits
        self.block_n = info.block_n
        self.warps = info.warps
        self.heads_per_cta = info.heads_per_cta
        self.workspace_bytes = info.workspace_bytes
        self.extend_workspace_bytes = info.extend_workspace_bytes
        self.bound = bool(info.bound)
        self.device = info.device if info.bound else device_index
        self.compute_capability = info.compute_capability
        self.module_source = _str(info.module_source)

    def close(self):
        if getattr(self, "_h", None) and self._h.value:
            library().tqrt_plan_destroy(self._h)
            self._h = ctypes.c_void_p()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def launch_dims(self, kind, dtype="bf16"):
        """{'grid': (x, y, z), 'block': (x, y, z), 'dynamic_shared_bytes': n,
        'static_shared_bytes': n, 'programmatic_launch': bool}."""
        d = _LaunchDims()
        _check(library().tqrt_plan_get_launch(self._h, _KINDS[kind],
                                              _dtype_code_of_name(dtype), ctypes.byref(d)))
        return {"grid": tuple(d.grid), "block": tuple(d.block),
                "dynamic_shared_bytes": d.dynamic_shared_bytes,
                "static_shared_bytes": d.static_shared_bytes,
                "programmatic_launch": bool(d.programmatic_launch)}

    def allocate_workspace(self, device=None):
        """The decode workspace (float32, zero-filled as abi.h requires: the
        decode keeps its split tickets there), or None when the plan needs
        none. Allocate it once and reuse it for every decode of the plan."""
        if self.workspace_bytes == 0:
            return None
        torch = _torch()
        device = device if device is not None else f"cuda:{self.device or 0}"
        return torch.zeros((self.workspace_bytes + 3) // 4, dtype=torch.float32,
                           device=device)

    def allocate_extend_workspace(self, device=None):
        """The extend workspace (uint8, extend_workspace_bytes; its contents
        do not matter: extend's first kernel writes what the second reads),
        or None when the bundle has no extend. Allocate it once per plan and
        per stream running extends concurrently."""
        if self.extend_workspace_bytes == 0:
            return None
        torch = _torch()
        device = device if device is not None else f"cuda:{self.device or 0}"
        return torch.empty(self.extend_workspace_bytes, dtype=torch.uint8, device=device)

    # -- launches --------------------------------------------------------

    def store(self, key, value, cache, slot_mapping, num_tokens=None, stream=None):
        """Writes key/value [T, num_kv_heads, head_dim] (bf16 or fp16, last
        dimension contiguous) to cache slots slot_mapping[t] (int64; < 0
        skips). num_tokens defaults to T."""
        torch = _torch()
        b = self.bundle
        dtype = _dtype_code(torch, key, "key")
        device = self._device_of(torch, key, "key")
        _expect(value.dtype == key.dtype, f"value is {value.dtype}, key is {key.dtype}")
        for name, t in (("key", key), ("value", value)):
            self._check_kv(t, name, "[num_tokens, num_kv_heads, head_dim]")
        _expect(value.shape[0] == key.shape[0],
                f"key has {key.shape[0]} tokens, value {value.shape[0]}")
        n = key.shape[0] if num_tokens is None else int(num_tokens)
        _expect(n <= key.shape[0], f"num_tokens {n} is above the {key.shape[0]} tokens of key")
        self._check_cache(torch, cache, device)
        self._check_slot_mapping(torch, slot_mapping, n, device)
        self._same_device(value, device, "value")
        stream = self._stream(torch, device, stream)
        _check(library().tqrt_launch_store(
            self._h, dtype, key.data_ptr(), key.stride(0), key.stride(1),
            value.data_ptr(), value.stride(0), value.stride(1),
            cache.data_ptr(), cache.numel(), slot_mapping.data_ptr(), n, stream))

    def _check_slot_mapping(self, torch, slot_mapping, n, device):
        """slot_mapping for n rows (store, extend): int64, contiguous 1-D, at
        least n entries, on `device`."""
        _expect(slot_mapping.dtype == torch.int64, f"slot_mapping must be int64, "
                f"got {slot_mapping.dtype}")
        _expect(slot_mapping.dim() == 1 and slot_mapping.shape[0] >= n and
                (slot_mapping.shape[0] <= 1 or slot_mapping.stride(0) == 1),
                f"slot_mapping must be a contiguous 1-D tensor of at least {n} "
                f"entries, got shape {tuple(slot_mapping.shape)}")
        self._same_device(slot_mapping, device, "slot_mapping")

    def _check_kv(self, t, name, shape):
        """A key or value tensor [rows, num_kv_heads, head_dim] (`shape`
        names the rows in errors), last dimension contiguous."""
        b = self.bundle
        _expect_shape(t, name, (None, b.num_kv_heads, b.head_dim), shape)
        _expect(t.stride(-1) == 1, f"{name}'s last dimension must be contiguous "
                f"(stride {t.stride(-1)})")

    def _query_of(self, torch, query, shape):
        """The launch dtype and device of a query tensor [rows, num_q_heads,
        head_dim] (`shape` names the rows in errors), checked."""
        b = self.bundle
        dtype = _dtype_code(torch, query, "query")
        device = self._device_of(torch, query, "query")
        _expect_shape(query, "query", (None, b.num_q_heads, b.head_dim), shape)
        _expect(query.stride(-1) == 1, "query's last dimension must be contiguous")
        return dtype, device

    def decode(self, query, cache, block_tables, seq_lens, out=None, workspace=None,
               scale=0.0, batch=None, stream=None):
        """Attention of query [batch, num_q_heads, head_dim] over each
        sequence's cached tokens. block_tables: int32 [>= batch, W] (last
        dimension contiguous); seq_lens: int32 [>= batch]. Returns `out`
        (allocated like query when not given; pass it for graph capture).
        scale 0 means the manifest's softmax_scale."""
        torch = _torch()
        b = self.bundle
        dtype, device = self._query_of(torch, query, "[batch, num_q_heads, head_dim]")
        rows = query.shape[0] if batch is None else int(batch)
        _expect(rows <= query.shape[0], f"batch {rows} is above query's {query.shape[0]} rows")
        if out is None:
            out = torch.empty(query.shape, dtype=query.dtype, device=query.device)
        _expect(out.dtype == query.dtype, f"out is {out.dtype}, query is {query.dtype}")
        _expect_shape(out, "out", (None, b.num_q_heads, b.head_dim),
                      "[batch, num_q_heads, head_dim]")
        _expect(out.shape[0] >= rows and out.stride(-1) == 1,
                f"out must hold {rows} rows with a contiguous last dimension")
        self._check_cache(torch, cache, device)
        _check_block_tables(torch, block_tables, rows)
        _expect(seq_lens.dtype == torch.int32 and seq_lens.dim() == 1 and
                seq_lens.shape[0] >= rows and (seq_lens.shape[0] <= 1 or seq_lens.stride(0) == 1),
                f"seq_lens must be a contiguous 1-D int32 tensor of >= {rows} entries")
        for name, t in (("out", out), ("block_tables", block_tables), ("seq_lens", seq_lens)):
            self._same_device(t, device, name)
        ws_ptr, ws_bytes = None, 0
        if workspace is not None:
            self._same_device(workspace, device, "workspace")
            _expect(workspace.is_contiguous(), "workspace must be contiguous")
            ws_ptr, ws_bytes = workspace.data_ptr(), workspace.numel() * workspace.element_size()
        stride_bt = block_tables.stride(0) if block_tables.shape[0] > 1 else max(block_tables.shape[1], 1)
        stream = self._stream(torch, device, stream)
        _check(library().tqrt_launch_decode(
            self._h, dtype, query.data_ptr(), query.stride(0), query.stride(1),
            cache.data_ptr(), cache.numel(), block_tables.data_ptr(), stride_bt,
            seq_lens.data_ptr(), out.data_ptr(), out.stride(0), out.stride(1),
            rows, float(scale), ws_ptr, ws_bytes, stream))
        return out

    def extend(self, query, key, value, cache, block_tables, cu_seqlens_q, prefix_lens,
               out=None, lse=None, workspace=None, scale=0.0, batch=None, stream=None,
               slot_mapping=None):
        """Chunked prefill: sequence b's chunk is rows cu_seqlens_q[b] ..
        cu_seqlens_q[b+1]-1 of query [total, num_q_heads, head_dim] (bf16 or
        fp16, last dimension contiguous); each row attends to the sequence's
        prefix_lens[b] cached tokens and causally to the chunk's keys and
        values key / value [total, num_kv_heads, head_dim] (query's dtype),
        or to the prefix only when both are None. block_tables: int32
        [>= batch, W]; cu_seqlens_q: int32 [>= batch + 1] (starting at 0);
        prefix_lens: int32 [>= batch]. total = cu_seqlens_q[batch] must be
        <= max_tokens (on the device: not checked). batch defaults to
        len(cu_seqlens_q) - 1. lse: None, or float32 [total, num_q_heads]
        (contiguous) receiving each row's log-sum-exp. workspace: with a
        chunk, allocate_extend_workspace()'s tensor (or any contiguous
        tensor of >= extend_workspace_bytes). Returns (out, lse); `out` is
        allocated like query when not given (pass it for graph capture).
        scale 0 means the manifest's softmax_scale. slot_mapping: None, or
        int64 [>= total] (contiguous): the chunk's rows are also stored in
        the cache, row r at slot slot_mapping[r] (< 0 skips it), byte for
        byte as store() would, by the kernel that reads them anyway
        (tqrt_launch_extend_store); its slots must hold no prefix token."""
        torch = _torch()
        b = self.bundle
        dtype, device = self._query_of(torch, query, "[total, num_q_heads, head_dim]")
        _expect((key is None) == (value is None),
                "key and value must be both tensors (attend to the chunk too) or "
                "both None (the prefix only)")
        if key is not None:
            for name, t in (("key", key), ("value", value)):
                _expect(t.dtype == query.dtype, f"{name} is {t.dtype}, query is {query.dtype}")
                self._check_kv(t, name, "[total, num_kv_heads, head_dim]")
                _expect(t.shape[0] == query.shape[0],
                        f"{name} has {t.shape[0]} tokens, query {query.shape[0]}")
                self._same_device(t, device, name)
        if out is None:
            out = torch.empty(query.shape, dtype=query.dtype, device=query.device)
        _expect(out.dtype == query.dtype, f"out is {out.dtype}, query is {query.dtype}")
        _expect_shape(out, "out", (None, b.num_q_heads, b.head_dim),
                      "[total, num_q_heads, head_dim]")
        _expect(out.shape[0] >= query.shape[0] and out.stride(-1) == 1,
                f"out must hold {query.shape[0]} rows with a contiguous last dimension")
        self._check_cache(torch, cache, device)
        _expect(cu_seqlens_q.dtype == torch.int32 and cu_seqlens_q.dim() == 1 and
                cu_seqlens_q.shape[0] >= 2 and cu_seqlens_q.stride(0) == 1,
                f"cu_seqlens_q must be a contiguous 1-D int32 tensor of >= 2 entries, "
                f"got {cu_seqlens_q.dtype} {tuple(cu_seqlens_q.shape)}")
        rows = cu_seqlens_q.shape[0] - 1 if batch is None else int(batch)
        _expect(rows + 1 <= cu_seqlens_q.shape[0],
                f"batch {rows} needs {rows + 1} entries of cu_seqlens_q, it has "
                f"{cu_seqlens_q.shape[0]}")
        _check_block_tables(torch, block_tables, rows)
        _expect(prefix_lens.dtype == torch.int32 and prefix_lens.dim() == 1 and
                prefix_lens.shape[0] >= rows and
                (prefix_lens.shape[0] <= 1 or prefix_lens.stride(0) == 1),
                f"prefix_lens must be a contiguous 1-D int32 tensor of >= {rows} entries")
        if lse is not None:
            _expect(lse.dtype == torch.float32 and lse.dim() == 2 and
                    lse.shape[0] >= query.shape[0] and lse.shape[1] == b.num_q_heads and
                    lse.is_contiguous(),
                    f"lse must be a contiguous float32 [>= {query.shape[0]}, "
                    f"{b.num_q_heads}] tensor, got {lse.dtype} {tuple(lse.shape)}")
            self._same_device(lse, device, "lse")
        for name, t in (("out", out), ("block_tables", block_tables),
                        ("cu_seqlens_q", cu_seqlens_q), ("prefix_lens", prefix_lens)):
            self._same_device(t, device, name)
        ws_ptr, ws_bytes = None, 0
        if workspace is not None:
            self._same_device(workspace, device, "workspace")
            _expect(workspace.is_contiguous(), "workspace must be contiguous")
            ws_ptr, ws_bytes = workspace.data_ptr(), workspace.numel() * workspace.element_size()
        chunk = key is not None
        if slot_mapping is not None:
            _expect(chunk, "slot_mapping stores the chunk, but key and value are None")
            self._check_slot_mapping(torch, slot_mapping, query.shape[0], device)
        stride_bt = block_tables.stride(0) if block_tables.shape[0] > 1 else max(block_tables.shape[1], 1)
        stream = self._stream(torch, device, stream)
        head = (self._h, dtype, query.data_ptr(), query.stride(0), query.stride(1),
                key.data_ptr() if chunk else None, key.stride(0) if chunk else 0,
                key.stride(1) if chunk else 0,
                value.data_ptr() if chunk else None, value.stride(0) if chunk else 0,
                value.stride(1) if chunk else 0, cache.data_ptr(), cache.numel())
        tail = (block_tables.data_ptr(), stride_bt,
                cu_seqlens_q.data_ptr(), prefix_lens.data_ptr(),
                out.data_ptr(), out.stride(0), out.stride(1),
                lse.data_ptr() if lse is not None else None,
                rows, float(scale), ws_ptr, ws_bytes, stream)
        if slot_mapping is None:
            _check(library().tqrt_launch_extend(*head, *tail))
        else:
            _check(library().tqrt_launch_extend_store(*head, slot_mapping.data_ptr(), *tail))
        return out, lse

    # -- helpers ---------------------------------------------------------

    def _device_of(self, torch, t, name):
        _expect(t.is_cuda, f"{name} must be a CUDA tensor, got device {t.device}")
        index = t.device.index
        if self.bound and index != self.device:
            raise TqrtError(Status.NO_CONTEXT,
                            f"{name} is on cuda:{index} but the plan was created "
                            f"on cuda:{self.device}; create a plan per device")
        # The plan's context must be current on this thread for the launch.
        if torch.cuda.current_device() != index:
            torch.cuda.set_device(index)
        return index

    @staticmethod
    def _same_device(t, index, name):
        _expect(t.is_cuda and t.device.index == index,
                f"{name} is on {t.device}, expected cuda:{index}")

    def _check_cache(self, torch, cache, index):
        shape = self.bundle.layout["shape"]
        _expect(cache.dtype == torch.uint8, f"cache must be uint8, got {cache.dtype}")
        _expect(cache.dim() == len(shape) and tuple(cache.shape[1:]) == tuple(shape[1:]),
                f"cache has shape {tuple(cache.shape)}; the layout is "
                f"{('num_blocks',) + tuple(shape[1:])}", Status.SHAPE_MISMATCH)
        _expect(cache.is_contiguous(), "cache must be contiguous")
        self._same_device(cache, index, "cache")

    @staticmethod
    def _stream(torch, index, stream):
        if stream is None:
            stream = torch.cuda.current_stream(index)
        return ctypes.c_void_p(stream.cuda_stream if hasattr(stream, "cuda_stream")
                               else int(stream))


def _dtype_code_of_name(name):
    codes = {"bf16": _DTYPE_BF16, "bfloat16": _DTYPE_BF16,
             "fp16": _DTYPE_FP16, "f16": _DTYPE_FP16, "float16": _DTYPE_FP16}
    if name not in codes:
        raise ValueError(f"tqrt: dtype {name!r} is not bf16 or fp16")
    return codes[name]


def _dtype_code(torch, t, name):
    if t.dtype == torch.bfloat16:
        return _DTYPE_BF16
    if t.dtype == torch.float16:
        return _DTYPE_FP16
    raise TqrtError(Status.INVALID_ARGUMENT,
                    f"{name} must be torch.bfloat16 or torch.float16, got {t.dtype}")


def _expect(ok, message, status=Status.INVALID_ARGUMENT):
    if not ok:
        raise TqrtError(status, message)


def _check_block_tables(torch, block_tables, rows):
    """block_tables: 2-D int32, >= rows rows, last dimension contiguous."""
    _expect(block_tables.dtype == torch.int32 and block_tables.dim() == 2,
            f"block_tables must be a 2-D int32 tensor, got {block_tables.dtype} "
            f"{tuple(block_tables.shape)}")
    _expect(block_tables.shape[0] >= rows and
            (block_tables.shape[1] <= 1 or block_tables.stride(1) == 1),
            f"block_tables must have >= {rows} rows and a contiguous last dimension")


def _expect_shape(t, name, dims, text):
    ok = t.dim() == len(dims) and all(d is None or t.shape[i] == d for i, d in enumerate(dims))
    _expect(ok, f"{name} has shape {tuple(t.shape)}; expected {text} = "
            f"{tuple('*' if d is None else d for d in dims)}", Status.SHAPE_MISMATCH)


def device_count():
    """CUDA devices the driver sees; raises TqrtError(NO_DEVICE) when none."""
    n = ctypes.c_int32()
    _check(library().tqrt_device_count(ctypes.byref(n)))
    return n.value
