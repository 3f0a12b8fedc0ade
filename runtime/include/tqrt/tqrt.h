/*===- tqrt.h - The tqc runtime: load a bundle, plan, launch --------------===*
 *
 * A C ABI for engines that embed the kernels `tqc` compiles. The runtime
 *   1. loads a bundle (a directory written by `tqc -o DIR`, or the bytes of
 *      the generated `tqc_bundle.h`) and validates its manifest;
 *   2. reports the cache layout, so the engine can allocate the cache;
 *   3. plans a fixed grid for a batch bucket (max_batch, max_tokens): it
 *      takes the bundle's decode launch plan for that bucket (a bundle
 *      carries several: many KV splits for small batches, few for large
 *      ones), and the grid of every kernel and the workspace size depend on
 *      nothing else, so a launch can be captured once in a CUDA graph and
 *      replayed while sequence lengths grow (docs/MANIFEST.md, DESIGN.md
 *      "Fixed-grid rule");
 *   4. launches store and decode (one kernel each; a decode that splits the
 *      KV sequence merges the splits itself) and, when the bundle has it,
 *      extend (chunked prefill: attention of a chunk of new tokens over
 *      each sequence's cached prefix and the chunk itself) on the caller's
 *      stream with the caller's device pointers.
 *
 * A launch never allocates device memory, synchronizes, reads device memory
 * or loads code: everything that could is done by tqrt_plan_create. So a
 * launch is safe inside stream capture.
 *
 * CUDA is reached through the driver API, loaded at run time (dlopen of
 * libcuda.so.1, or the file named by the environment variable TQRT_LIBCUDA);
 * libtqrt does not link libcuda, so it builds and checks its arguments on a
 * machine without a GPU.
 *
 * Errors: every function that can fail returns a tqrt_status; on failure
 * tqrt_last_error() holds a one-line message naming the argument or manifest
 * field and what is accepted. The message is per thread and is cleared at
 * the start of every tqrt_* call that returns a status.
 *
 * Threads: a bundle and a plan may be used from several threads at once
 * (plan creation takes a lock; launches take none). Destroy every plan of a
 * bundle before the bundle.
 *===----------------------------------------------------------------------===*/
#ifndef TQRT_TQRT_H
#define TQRT_TQRT_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define TQRT_API
#elif defined(TQRT_BUILDING)
#define TQRT_API __attribute__((visibility("default")))
#else
#define TQRT_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The manifest schema and kernel ABI this runtime implements. */
#define TQRT_SCHEMA "tqc.bundle"
#define TQRT_SCHEMA_VERSION 2
#define TQRT_VERSION_STRING "0.1.0"

typedef enum tqrt_status {
  TQRT_OK = 0,
  TQRT_INVALID_ARGUMENT = 1,    /* null / misaligned pointer, bad value */
  TQRT_BAD_BUNDLE = 2,          /* unreadable file, malformed JSON, missing or
                                   inconsistent manifest field or kernel */
  TQRT_UNSUPPORTED_VERSION = 3, /* unknown schema, schema_version, abi_version */
  TQRT_ARCH_MISMATCH = 4,       /* no image of the bundle runs on the device */
  TQRT_SHAPE_MISMATCH = 5,      /* strides / sizes disagree with the manifest */
  TQRT_EXCEEDS_PLAN = 6,        /* batch or num_tokens above the plan's bucket */
  TQRT_WORKSPACE_TOO_SMALL = 7,
  TQRT_UNSUPPORTED_DTYPE = 8,   /* the bundle has no kernel for this dtype */
  TQRT_NO_DEVICE = 9,           /* no CUDA driver or no device */
  TQRT_NO_CONTEXT = 10,         /* no current CUDA context, or another one
                                   than the plan's */
  TQRT_CUDA_ERROR = 11,         /* any other driver error (message has it) */
  TQRT_INTERNAL = 12,           /* out of host memory, or a bug */
  TQRT_UNSUPPORTED = 13         /* the bundle lacks the feature asked for
                                   (extend, when the manifest says it is not
                                   available: the message gives its reason) */
} tqrt_status;

/* Activation dtype of a launch: queries, keys, values and outputs. Zero is
 * deliberately not a dtype, so a zero-initialized argument is caught. */
typedef enum tqrt_dtype {
  TQRT_DTYPE_BF16 = 1,
  TQRT_DTYPE_FP16 = 2
} tqrt_dtype;

typedef enum tqrt_kernel_kind {
  TQRT_KERNEL_STORE = 0,
  TQRT_KERNEL_DECODE = 1,
  TQRT_KERNEL_EXTEND_PREP = 2, /* extend's first kernel: rotates the chunk's
                                  keys and values into the workspace */
  TQRT_KERNEL_EXTEND = 3       /* extend's attention kernel */
} tqrt_kernel_kind;

typedef struct tqrt_bundle tqrt_bundle;
typedef struct tqrt_plan tqrt_plan;

/* The message of the calling thread's last failure ("" after a success).
 * Valid until the thread's next tqrt_* call. Never null. */
TQRT_API const char *tqrt_last_error(void);
/* "TQRT_OK", "TQRT_BAD_BUNDLE", ...; "TQRT_UNKNOWN_STATUS" otherwise. */
TQRT_API const char *tqrt_status_name(tqrt_status status);
/* "0.1.0". */
TQRT_API const char *tqrt_version(void);
/* TQ_ABI_VERSION of the abi.h this runtime was built with. */
TQRT_API int tqrt_abi_version(void);

/* ---- Bundles --------------------------------------------------------- */

/* Loads DIR/manifest.json and the files its "target" names: "image" (the
 * cubin) and, when listed, "ptx". Host only: touches no GPU. */
TQRT_API tqrt_status tqrt_bundle_load_dir(const char *dir, tqrt_bundle **out);

/* The same from bytes (e.g. tqc_bundle.h's arrays). The bytes are copied,
 * so the caller may free them on return. A length of 0 means "none" for
 * `image` (a cubin or fatbin) and `ptx`; at least one must be given. A
 * trailing NUL of the manifest or PTX array is ignored. Host only. */
TQRT_API tqrt_status tqrt_bundle_load_memory(const void *manifest,
                                             size_t manifest_len,
                                             const void *image,
                                             size_t image_len,
                                             const void *ptx, size_t ptx_len,
                                             tqrt_bundle **out);

/* Unloads the bundle's modules from every context it was loaded into.
 * Every plan of the bundle must be destroyed first. Null is a no-op. */
TQRT_API void tqrt_bundle_destroy(tqrt_bundle *bundle);

/* What the manifest says about the compile. Strings live as long as the
 * bundle. The decode launch configuration is per plan: num_plans, then
 * tqrt_bundle_get_plan. */
typedef struct tqrt_bundle_info {
  const char *arch;        /* "sm_90" */
  const char *vendor;      /* "nvidia" */
  const char *preset;      /* "k3v4" ("" when the manifest has none) */
  const char *generator;   /* "tqc 0.1.0" ("" when the manifest has none) */
  const char *plan_source; /* how the plans were chosen: "defaults",
                              "options" or a tuning database */
  int32_t schema_version;
  int32_t abi_version;
  int32_t head_dim;
  int32_t num_q_heads;
  int32_t num_kv_heads;
  int32_t block_size;    /* tokens per cache block */
  int32_t num_plans;     /* decode launch plans (>= 1) */
  uint32_t dtypes;       /* bit (1u << tqrt_dtype) set per dtype present */
  float softmax_scale;   /* the manifest's default decode scale */
  int32_t has_image;     /* 1 when a cubin was given */
  int32_t has_ptx;       /* 1 when PTX was given */
  /* Extend (chunked prefill, tqrt_launch_extend). The numbers are the
   * manifest's "extend" member, 0 when has_extend is 0. */
  int32_t has_extend;         /* 1 when the bundle has the extend kernels */
  int32_t extend_tile_tokens; /* chunk tokens per query tile (CTA) */
  int32_t extend_block_n;     /* prefix tokens per KV tile */
  int32_t extend_warps;       /* warps per extend CTA */
  int64_t extend_workspace_bytes_per_token; /* num_kv_heads * (4 * head_dim
                                               + 8) (abi.h) */
  const char *extend_note;    /* why has_extend is 0: the manifest's reason,
                                 or "the bundle predates extend" when it has
                                 no "extend" member; "" when it is 1 */
} tqrt_bundle_info;

TQRT_API tqrt_status tqrt_bundle_get_info(const tqrt_bundle *bundle,
                                          tqrt_bundle_info *info);

/* Decode launch plan `index` (0 .. num_plans-1) of the bundle. Each plan
 * serves a list of batch buckets (max_batch values); the plans are sorted by
 * their first bucket and their buckets are disjoint. tqrt_plan_create takes
 * the plan holding the smallest bucket >= max_batch, or the last plan when
 * max_batch is above every bucket; every plan is correct for every batch,
 * buckets only choose speed. An engine that captures one CUDA graph per
 * bucket creates one tqrt_plan per entry of `buckets`. */
typedef struct tqrt_plan_desc {
  const int32_t *buckets; /* ascending max_batch values; valid for the
                             bundle's life */
  int32_t num_buckets;    /* >= 1 */
  int32_t block_n;        /* KV tokens per tile */
  int32_t splits;         /* KV splits of decode; 1: no workspace */
  int32_t warps;          /* warps per decode CTA */
  int32_t heads_per_cta;  /* query heads per decode CTA (divides the GQA
                             ratio); head_groups = num_q_heads / this */
  int32_t stages;         /* pipeline stages of the decode kernel */
  int64_t workspace_floats_per_batch_row; /* tickets (num_q_heads rounded
                             up to 4) + num_q_heads * splits * (head_dim + 2)
                             (abi.h); 0 when splits == 1 */
} tqrt_plan_desc;

TQRT_API tqrt_status tqrt_bundle_get_plan(const tqrt_bundle *bundle,
                                          int32_t index,
                                          tqrt_plan_desc *plan);

/* The cache tensor an engine allocates: a `dtype` ("uint8") tensor of
 * `rank` dimensions whose first is the engine's choice of num_blocks. */
typedef struct tqrt_layout_info {
  const char *kind;             /* "native" or "vllm" */
  const char *dtype;            /* element type of the cache tensor: "uint8" */
  int64_t shape[4];             /* shape[0] is -1 (num_blocks); unused: 0 */
  int64_t block_stride;         /* bytes between cache blocks */
  int64_t head_stride;          /* bytes between KV heads of a block */
  int64_t region_bytes;         /* one (block, head) region (native) or slot (vllm) */
  int64_t bytes_per_token_head; /* cache bytes per token per KV head */
  int64_t alignment;            /* required alignment of the cache, bytes */
  int32_t rank;                 /* 3 (native) or 4 (vllm) */
  int32_t num_fields;
} tqrt_layout_info;

TQRT_API tqrt_status tqrt_bundle_get_layout(const tqrt_bundle *bundle,
                                            tqrt_layout_info *layout);

/* Field `index` (0 .. num_fields-1) of the layout: field f of position p of
 * block b, KV head h is at byte
 *   b*block_stride + h*head_stride + offset + p*token_stride. */
typedef struct tqrt_field_info {
  const char *name;     /* "key_codes", "key_scale", ... */
  const char *dtype;    /* "u8", "f16", "bf16", "fp8_e4m3" */
  int64_t bytes;        /* per token-head */
  int64_t offset;
  int64_t token_stride;
} tqrt_field_info;

TQRT_API tqrt_status tqrt_bundle_get_field(const tqrt_bundle *bundle,
                                           int32_t index,
                                           tqrt_field_info *field);

/* The cache shape for num_blocks (>= 1) blocks: writes `*rank` extents into
 * shape[0..rank-1] (shape must hold 4). */
TQRT_API tqrt_status tqrt_cache_shape(const tqrt_bundle *bundle,
                                      int64_t num_blocks, int64_t shape[4],
                                      int32_t *rank);
/* num_blocks * block_stride, checked for overflow. */
TQRT_API tqrt_status tqrt_cache_bytes(const tqrt_bundle *bundle,
                                      int64_t num_blocks, uint64_t *bytes);

/* ---- Plans ----------------------------------------------------------- */

/* Plans the fixed grids of every kernel for a bucket of at most max_batch
 * decode rows (or extend sequences) and max_tokens stored tokens (or extend
 * chunk tokens, all sequences together) per launch, and the workspaces
 * decode needs (0 when splits == 1) and extend needs. The decode kernel, its
 * grid (the names `splits` and `head_groups`) and the workspace come from
 * the bundle's plan for max_batch (tqrt_plan_desc says which);
 * tqrt_plan_info.plan_index reports it.
 *
 * Setup work happens here, never in a launch: when a CUDA device is present
 * the bundle's kernels are loaded into the *current* context (once per
 * context, shared by all plans of the bundle): the cubin when its arch runs
 * on the device, else the PTX (JIT-compiled by the driver), else
 * TQRT_ARCH_MISMATCH. The plan is bound to that context; make the context
 * current before creating the plan (cudaSetDevice + cudaFree(0),
 * cuCtxSetCurrent, torch.cuda.set_device + any CUDA op) or this fails with
 * TQRT_NO_CONTEXT.
 *
 * When no CUDA driver can be loaded or the driver sees no device, the plan
 * is still created, unbound: sizes and grids can be queried and launches
 * check their arguments, then return TQRT_NO_DEVICE with the reason. */
TQRT_API tqrt_status tqrt_plan_create(const tqrt_bundle *bundle,
                                      int32_t max_batch, int32_t max_tokens,
                                      tqrt_plan **out);
/* The same with an explicit decode plan instead of the bucket choice:
 * plan_index (0 .. num_plans-1, tqrt_bundle_get_plan) is used whatever
 * max_batch is (every plan is correct for every batch). For tuners that
 * time each plan of a bundle, and engines that choose plans themselves. */
TQRT_API tqrt_status tqrt_plan_create_for(const tqrt_bundle *bundle,
                                          int32_t plan_index,
                                          int32_t max_batch,
                                          int32_t max_tokens,
                                          tqrt_plan **out);
TQRT_API void tqrt_plan_destroy(tqrt_plan *plan);

typedef struct tqrt_plan_info {
  uint64_t workspace_bytes; /* decode's workspace; 0 when splits == 1 */
  int32_t max_batch;
  int32_t max_tokens;
  int32_t plan_index;       /* the bundle's plan used (tqrt_bundle_get_plan) */
  int32_t splits;           /* that plan's KV splits; 1: no workspace */
  int32_t block_n;          /* ... its block_n, warps and heads_per_cta */
  int32_t warps;
  int32_t heads_per_cta;
  int32_t bound;            /* 1: kernels loaded into a context */
  int32_t device;           /* the context's device ordinal, -1 unbound */
  int32_t compute_capability; /* e.g. 90; 0 unbound */
  const char *module_source;  /* "cubin", "ptx" or "none" */
  uint64_t extend_workspace_bytes; /* extend's workspace with a chunk:
                              TQ_EXTEND_WORKSPACE_BYTES(max_tokens,
                              num_kv_heads, head_dim) = max_tokens *
                              extend_workspace_bytes_per_token; 0 when the
                              bundle has no extend */
} tqrt_plan_info;

TQRT_API tqrt_status tqrt_plan_get_info(const tqrt_plan *plan,
                                        tqrt_plan_info *info);

/* The launch configuration the plan uses for one kernel. Returns
 * TQRT_UNSUPPORTED_DTYPE when the bundle has no kernels for `dtype`, and
 * TQRT_UNSUPPORTED (with the manifest's reason) for EXTEND_PREP and EXTEND
 * when the bundle has no extend. Grids: extend_prep (ceil(max_tokens /
 * its manifest tile_tokens), 1, 1);
 * extend (query_tiles, num_kv_heads, 1) with query_tiles =
 * ceil(max_tokens / extend_tile_tokens) + max_batch (every sequence's
 * chunk starts a new tile, so max_batch more tiles than the tokens need). */
typedef struct tqrt_launch_dims {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t dynamic_shared_bytes; /* passed at launch (manifest
                                    "dynamic_shared_bytes", default 0) */
  uint32_t static_shared_bytes;  /* the manifest's "shared_bytes": the
                                    code's own, for information */
  uint32_t programmatic_launch;  /* 1: the kernel waits for its stream
                                    predecessor itself (griddepcontrol.wait),
                                    so it may be launched with programmatic
                                    stream serialization (cudaLaunchKernelEx,
                                    sm_90+); 0: launch it plainly */
  uint32_t reserved;             /* 0 */
} tqrt_launch_dims;

TQRT_API tqrt_status tqrt_plan_get_launch(const tqrt_plan *plan,
                                          tqrt_kernel_kind kind,
                                          tqrt_dtype dtype,
                                          tqrt_launch_dims *dims);

/* ---- Launches -------------------------------------------------------- */
/*
 * Common rules (checked, in this order, before the driver is touched):
 * - device pointers must be non-null (except where a launch says
 *   otherwise); activations (key, value, query, out), the cache and the
 *   workspace 16-byte aligned (the kernels use 16-byte loads), slot_mapping
 *   8-byte, block_tables, seq_lens, cu_seqlens_q, prefix_lens and lse
 *   4-byte;
 * - strides are in elements, head_dim elements of a head are contiguous;
 *   token/batch and head strides must be positive multiples of 8 elements
 *   (so every head vector starts 16-byte aligned) and must not make two head
 *   vectors overlap (TQRT_SHAPE_MISMATCH otherwise);
 * - cache_bytes (the cache tensor's size) must be a positive multiple of the
 *   layout's block_stride (TQRT_SHAPE_MISMATCH otherwise);
 * - an unbound plan (no device) returns TQRT_NO_DEVICE once every argument
 *   check passed;
 * - `stream` is a CUstream (cudaStream_t); null is the legacy default stream.
 * A launch is asynchronous: TQRT_OK means the kernels were enqueued.
 */

/* Store: token t (< num_tokens <= max_tokens) of key/value
 * [num_tokens, num_kv_heads, head_dim] goes to cache slot slot_mapping[t]
 * (= block * block_size + position; negative: skip the token). */
TQRT_API tqrt_status tqrt_launch_store(
    const tqrt_plan *plan, tqrt_dtype dtype, const void *key,
    int64_t key_stride_token, int64_t key_stride_head, const void *value,
    int64_t value_stride_token, int64_t value_stride_head, void *cache,
    int64_t cache_bytes, const int64_t *slot_mapping, int32_t num_tokens,
    void *stream);

/* Decode: one query per sequence. query, out: [batch, num_q_heads,
 * head_dim]; block_tables: [batch, block_table_stride] int32; seq_lens:
 * [batch] int32 (read on the device; 0 gives a zero row). batch <=
 * max_batch. scale: the softmax scale; 0 means the manifest's
 * softmax_scale. workspace: at least the plan's workspace_bytes (may be null
 * with 0 bytes when that is 0), zero-filled once before its first decode
 * (cudaMemset when allocating it): the decode keeps per-row tickets there
 * that it always leaves at zero (templates/tq/abi.h). One workspace per plan
 * and per stream running decodes concurrently. Most garbage in an unzeroed
 * workspace makes the kernel trap (an error on the stream), but not all of
 * it: zeroing is required. One kernel per call. */
TQRT_API tqrt_status tqrt_launch_decode(
    const tqrt_plan *plan, tqrt_dtype dtype, const void *query,
    int64_t query_stride_batch, int64_t query_stride_head, const void *cache,
    int64_t cache_bytes, const int32_t *block_tables,
    int32_t block_table_stride, const int32_t *seq_lens, void *out,
    int64_t out_stride_batch, int64_t out_stride_head, int32_t batch,
    float scale, void *workspace, uint64_t workspace_bytes, void *stream);

/* Extend (chunked prefill), templates/tq/abi.h's tq_extend_args. Sequence
 * b (< batch, 1 <= batch <= max_batch) has prefix_lens[b] tokens in the
 * cache (block_tables as in decode) and a chunk of new tokens: rows
 * [cu_seqlens_q[b], cu_seqlens_q[b+1]) of query / out ([total, num_q_heads,
 * head_dim]) and of key / value ([total, num_kv_heads, head_dim], the
 * query's dtype). Chunk query i attends causally: to the whole prefix and
 * to chunk tokens 0..i. Storing the chunk's keys and values in the cache is
 * a separate tqrt_launch_store (before or after: extend reads the chunk
 * from key / value, not from the cache), or tqrt_launch_extend_store.
 *   key == value == NULL: prefix only (an engine that attends to the chunk
 * itself merges the two through lse); key and value must be both null or
 * both non-null. lse, when not NULL (4-byte aligned), receives per row and
 * query head the natural-log log-sum-exp of the scaled scores (-inf for a
 * row that saw no token) at lse[row * num_q_heads + head].
 *   cu_seqlens_q ([batch + 1], cu_seqlens_q[0] = 0, non-decreasing) and
 * prefix_lens ([batch]) are int32 device arrays, never read on the host, so
 * the runtime cannot check them: total = cu_seqlens_q[batch] <= max_tokens
 * is the caller's contract (the grids cover max_tokens chunk rows; rows
 * beyond are not computed). For the same reason the activations' strides
 * are checked as those of [max_tokens, heads, head_dim] tensors.
 *   scale: the softmax scale, 0 for the manifest's softmax_scale.
 * workspace: with a chunk, at least the plan's extend_workspace_bytes,
 * 16-byte aligned, any contents (the first kernel overwrites what the
 * second reads); one per stream running extends concurrently. Without a
 * chunk it is unused and may be NULL with 0 bytes.
 *   Two kernels on `stream` with a chunk (extend_prep, then extend), one
 * without (extend); plain launches. TQRT_UNSUPPORTED (with the manifest's
 * reason) when the bundle has no extend. */
TQRT_API tqrt_status tqrt_launch_extend(
    const tqrt_plan *plan, tqrt_dtype dtype, const void *query,
    int64_t query_stride_token, int64_t query_stride_head, const void *key,
    int64_t key_stride_token, int64_t key_stride_head, const void *value,
    int64_t value_stride_token, int64_t value_stride_head, const void *cache,
    int64_t cache_bytes, const int32_t *block_tables,
    int32_t block_table_stride, const int32_t *cu_seqlens_q,
    const int32_t *prefix_lens, void *out, int64_t out_stride_token,
    int64_t out_stride_head, float *lse, int32_t batch, float scale,
    void *workspace, uint64_t workspace_bytes, void *stream);

/* Extend that also stores the chunk: tqrt_launch_extend's arguments and
 * rules, and chunk row r (< total) written to cache slot slot_mapping[r]
 * (int64, 8-byte aligned, at least total entries; negative: not stored)
 * with exactly the bytes tqrt_launch_store writes. The prep kernel does it
 * from the rows it reads anyway, so the chunk crosses memory once for both
 * (cheaper than a separate store). key and value must not be NULL. The
 * chunk's slots must not hold any sequence's prefix tokens (the attention
 * may read the prefix while the prep writes). Work enqueued on the stream
 * after the call sees the stored chunk: the attention kernel, launched
 * programmatically behind the prep, waits for the whole prep grid before
 * it reads the chunk, so it cannot complete before the prep has. */
TQRT_API tqrt_status tqrt_launch_extend_store(
    const tqrt_plan *plan, tqrt_dtype dtype, const void *query,
    int64_t query_stride_token, int64_t query_stride_head, const void *key,
    int64_t key_stride_token, int64_t key_stride_head, const void *value,
    int64_t value_stride_token, int64_t value_stride_head, void *cache,
    int64_t cache_bytes, const int64_t *slot_mapping,
    const int32_t *block_tables, int32_t block_table_stride,
    const int32_t *cu_seqlens_q, const int32_t *prefix_lens, void *out,
    int64_t out_stride_token, int64_t out_stride_head, float *lse,
    int32_t batch, float scale, void *workspace, uint64_t workspace_bytes,
    void *stream);

/* ---- Device probe ---------------------------------------------------- */

/* The number of CUDA devices the driver sees; TQRT_NO_DEVICE (with the
 * reason) when the driver cannot be loaded or sees none. For tests and
 * tools deciding whether to run GPU work. */
TQRT_API tqrt_status tqrt_device_count(int32_t *count);

/* What a tool needs to know about device `ordinal` (0 .. count-1), e.g. to
 * key tuning results or size its buffers. Needs no context. */
typedef struct tqrt_device_desc {
  char name[256];              /* "NVIDIA H200" (NUL-terminated) */
  int32_t ordinal;
  int32_t compute_capability;  /* major*10 + minor, e.g. 90 */
  int32_t sm_count;            /* multiprocessors */
  int32_t l2_cache_bytes;      /* e.g. 62914560 on an H200 */
  uint64_t total_memory_bytes;
  int32_t driver_version;      /* cuDriverGetVersion, e.g. 13000 */
} tqrt_device_desc;

/* TQRT_NO_DEVICE (with the reason) when the driver cannot be loaded or
 * sees no device; TQRT_INVALID_ARGUMENT for an ordinal out of range. */
TQRT_API tqrt_status tqrt_device_info(int32_t ordinal, tqrt_device_desc *desc);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TQRT_TQRT_H */
