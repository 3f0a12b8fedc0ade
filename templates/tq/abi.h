/*===- abi.h - Kernel argument structs shared by kernels and runtime -------===*
 *
 * One definition of every kernel's parameters: the device templates include
 * it (compiled by NVRTC or clang -x hip) and so does the C runtime, so the two
 * sides cannot disagree. Each kernel takes exactly one of these structs by
 * value. Plain C: fixed-width integers only, no padding surprises (every
 * struct is laid out with 8-byte members first, then 4-byte members, and its
 * size is a multiple of 8).
 *
 * Shapes use element strides (not bytes) for the activations; the cache is
 * addressed through the layout constants compiled into the kernel.
 *===----------------------------------------------------------------------===*/
#ifndef TQ_ABI_H
#define TQ_ABI_H

#if defined(__CUDACC_RTC__) || defined(__HIPCC_RTC__) || defined(TQ_DEVICE_COMPILE)
/* NVRTC / device-only builds have no <stdint.h>; the target layer defines
 * the fixed-width types before including this header. */
#else
#include <stdint.h>
#endif

#define TQ_ABI_VERSION 3

/* Store: token t of [num_tokens, num_kv_heads, head_dim] keys / values goes
 * to cache slot slot_mapping[t] = block * block_size + position; a negative
 * slot skips the token. Grid: (max_tokens, 1, 1); CTAs with
 * blockIdx.x >= num_tokens return at once. */
typedef struct tq_store_args {
  const void *key;             /* bf16 or fp16, per the kernel's symbol */
  const void *value;
  uint8_t *cache;              /* the layout's cache tensor */
  const int64_t *slot_mapping; /* [num_tokens] */
  int64_t key_stride_token;    /* elements */
  int64_t key_stride_head;
  int64_t value_stride_token;
  int64_t value_stride_head;
  int32_t num_tokens;          /* <= the plan's max_tokens */
  int32_t reserved;            /* 0 */
} tq_store_args;

/* Decode: one query per sequence. Grid (num_q_heads / heads_per_cta,
 * max_batch, splits). Rows b >= batch do nothing. Sequence b's token t lives
 * in block block_tables[b * block_table_stride + t / block_size] at position
 * t % block_size. seq_lens[b] == 0 yields a zero output row. A sequence that
 * uses one split is written by its CTA directly; with several, each split
 * CTA writes an fp32 partial into `workspace` and takes a ticket, and the
 * last one merges the partials and writes `out` (no second kernel). */
typedef struct tq_decode_args {
  const void *query;           /* [batch, num_q_heads, head_dim], bf16/fp16 */
  const uint8_t *cache;
  const int32_t *block_tables; /* [batch, block_table_stride] */
  const int32_t *seq_lens;     /* [batch] */
  void *out;                   /* [batch, num_q_heads, head_dim], query dtype */
  float *workspace;            /* partials; may be null when splits == 1 */
  int64_t query_stride_batch;  /* elements */
  int64_t query_stride_head;
  int64_t out_stride_batch;
  int64_t out_stride_head;
  int32_t block_table_stride;  /* elements per row of block_tables */
  int32_t batch;               /* rows to process, <= max_batch */
  int32_t max_batch;           /* the plan's bucket: workspace rows */
  float scale;                 /* softmax scale, usually 1/sqrt(head_dim) */
} tq_decode_args;

/* Workspace of a split-KV decode (tq_workspace_floats floats; none with one
 * split), three regions:
 *   ticket     [b * TQ_TICKETS_PER_ROW(num_q_heads) + h]   uint32, h = the
 *              CTA's first query head: how many of the row's splits are done
 *   partial_out[((b * num_q_heads + h) * splits + s) * head_dim + d]
 *   partial_ml [((b * num_q_heads + h) * splits + s) * 2 + {0: max, 1: sum}]
 * each starting right after the previous one (partial_out 16-byte aligned).
 * The max is of log2-domain scores (scale * log2(e) folded in); an empty
 * split stores max = -inf, sum = 0 and zeros.
 * The tickets must be zero before the first decode with a workspace (zero
 * the whole workspace once, e.g. cudaMemset, when allocating it); every
 * decode leaves them zero. Give each plan its own workspace (a plan with
 * another max_batch puts partials where this one keeps tickets), and each
 * stream that runs decodes concurrently its own. A ticket found at or above
 * the split count (most garbage) traps the kernel (CUDA: a launch error;
 * ROCm aborts the process); a small leftover value cannot be told from a
 * ticket and would merge too early, so zeroing is required, not checked. */
#define TQ_TICKETS_PER_ROW(num_q_heads) (((num_q_heads) + 3) / 4 * 4)
#define TQ_WORKSPACE_FLOATS(max_batch, num_q_heads, splits, head_dim)      \
  ((int64_t)(max_batch) *                                                   \
   (TQ_TICKETS_PER_ROW(num_q_heads) +                                       \
    (int64_t)(num_q_heads) * (splits) * ((head_dim) + 2)))

/* Extend (chunked prefill): sequence b's chunk is query rows
 * [cu_seqlens_q[b], cu_seqlens_q[b+1]) of `query` / `out`, after its
 * prefix_lens[b] tokens in the cache (block_tables as in decode). Chunk
 * query i attends to the whole prefix and to chunk tokens 0..i, whose keys
 * and values are rows of `key` / `value` ([total, num_kv_heads, head_dim],
 * the query's dtype). slot_mapping, when not NULL (with a chunk), stores
 * chunk row r into cache slot slot_mapping[r] as the store kernel would
 * (negative: not stored), in the prep, which reads the rows anyway; NULL:
 * the cache is only read (the store kernel writes the chunk separately).
 * key == value == NULL: prefix only (an engine attends to the chunk itself
 * and merges through `lse`). lse, when not NULL, receives per row and query
 * head the natural-log log-sum-exp of the scaled scores (-inf when the row
 * saw no token), at lse[row * num_q_heads + head]. total =
 * cu_seqlens_q[batch] <= max_tokens. Two kernels on one stream: prep
 * (grid (ceil(max_tokens / its tile_tokens), 1, 1); not launched without a
 * chunk) writes the chunk as fp16 rows (rotated where its sequence has a
 * prefix) into `workspace` (TQ_EXTEND_WORKSPACE_BYTES), then extend (grid
 * (ceil(max_tokens / tile_tokens) + max_batch, num_kv_heads, 1): the query
 * tiles of every sequence, each tile_tokens chunk tokens). The chunk's
 * slots must not be prefix slots of any sequence in the batch (the
 * attention may read the prefix while the prep writes). */
typedef struct tq_extend_args {
  const void *query;           /* [total, num_q_heads, head_dim] */
  const void *key;             /* [total, num_kv_heads, head_dim] or NULL */
  const void *value;
  uint8_t *cache;              /* read; written only with slot_mapping */
  const int64_t *slot_mapping; /* [total] or NULL: the chunk's cache slots */
  const int32_t *block_tables; /* [batch, block_table_stride] */
  const int32_t *cu_seqlens_q; /* [batch + 1], cu_seqlens_q[0] = 0 */
  const int32_t *prefix_lens;  /* [batch] */
  void *out;                   /* [total, num_q_heads, head_dim] */
  float *lse;                  /* [total, num_q_heads] or NULL */
  void *workspace;             /* 16-byte aligned; unused without a chunk */
  int64_t query_stride_token;  /* elements */
  int64_t query_stride_head;
  int64_t key_stride_token;
  int64_t key_stride_head;
  int64_t value_stride_token;
  int64_t value_stride_head;
  int64_t out_stride_token;
  int64_t out_stride_head;
  int32_t block_table_stride;
  int32_t batch;               /* <= max_batch */
  int32_t max_batch;
  int32_t max_tokens;          /* the plan's bound on total */
  float scale;
  int32_t reserved;            /* 0 */
} tq_extend_args;

/* Bytes of the extend workspace: the chunk's rotated keys and values as
 * fp16 rows, then one float scale per token-head each. */
#define TQ_EXTEND_WORKSPACE_BYTES(max_tokens, num_kv_heads, head_dim)      \
  ((int64_t)(max_tokens) * (num_kv_heads) * ((head_dim) * 4 + 8))

#endif /* TQ_ABI_H */
