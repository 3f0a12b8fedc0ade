//===- attention.h - float64 reference attention ---------------*- C++ -*-===//
//
// The reference the GPU kernels are tested against: softmax attention in
// float64 over a paged, compressed cache, read through block tables. It
// computes the way the kernels do (ALGORITHM.md §4) — rotate each query once
// (and sketch it for QJL keys), score keys in the rotated domain, accumulate
// values in the value rotation's domain and un-rotate the output once — so
// that, by orthogonality, it equals dense attention over the dequantized
// vectors (HostCodec::decodeTokenHead) up to rounding. For QJL keys the
// dequantized key is x̃_mse + γ·√(π/2)/D·Sᵀz, whose inner products are the
// TurboQuant_prod score estimator.
//
// Shapes (row-major, float64):
//   query / out: [numQueries][numQHeads][headDim]
//   blockTable:  int32 [numSeqs][maxBlocksPerSeq]; token t of sequence s is
//                at physical block blockTable[s][t / blockSize], position
//                t mod blockSize
//   seqLens:     int32 [numSeqs], total tokens in the cache per sequence
// GQA: query head h reads KV head h / (numQHeads / numKVHeads).
// A query with no keys to attend to outputs zeros (never NaN).
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_ATTENTION_H
#define TQC_NUMERICS_ATTENTION_H

#include "tqc/numerics/cache.h"

#include <cstdint>

namespace tqc {

/// A batch of sequences in a paged cache.
struct PagedBatch {
  const uint8_t *cache = nullptr;
  const int32_t *blockTable = nullptr;
  int64_t maxBlocksPerSeq = 0;
  const int32_t *seqLens = nullptr;
  int numSeqs = 0;
};

/// Decode: one query per sequence (numQueries = numSeqs) attending to all
/// seqLens[s] tokens. Scores are softmaxScale·⟨q, k̃⟩.
void referenceDecode(const HostCodec &codec, const PagedBatch &batch,
                     const double *query, double softmaxScale, double *out);

/// Extend (causal): sequence s has a chunk of n_s = queryStartLoc[s+1] −
/// queryStartLoc[s] queries (rows queryStartLoc[s] .. of query/out), the
/// last n_s of its L_s = seqLens[s] tokens, already in the cache; query i of
/// the chunk attends to tokens [0, L_s − n_s + i]. Requires n_s ≤ L_s.
void referenceExtend(const HostCodec &codec, const PagedBatch &batch,
                     const int32_t *queryStartLoc, const double *query,
                     double softmaxScale, double *out);

/// Extend over a compressed prefix and an exact chunk (the extend kernel's
/// contract, templates/tq/abi.h): sequence s has batch.seqLens[s] prefix
/// tokens in the cache and a chunk of n_s = queryStartLoc[s+1] −
/// queryStartLoc[s] queries whose own keys and values are the same rows of
/// chunkKeys / chunkValues ([rows][numKVHeads][headDim], exact); chunk
/// query i attends to the dequantized prefix and chunk tokens 0..i, or to
/// the prefix alone when chunkKeys is null. lse, when not null, receives
/// per (row, query head) the natural-log log-sum-exp of the scaled scores
/// (−inf for a row with nothing to attend to, whose output is zeros).
void referenceExtendChunk(const HostCodec &codec, const PagedBatch &batch,
                          const int32_t *queryStartLoc, const double *query,
                          const double *chunkKeys, const double *chunkValues,
                          double softmaxScale, double *out, double *lse);

/// One query head over explicit keys/values ([numKeys][headDim] each):
/// out = Σ_t softmax(scale·⟨q, k_t⟩)_t v_t; zeros when numKeys = 0.
void denseAttention(const double *query, const double *keys,
                    const double *values, int64_t numKeys, int headDim,
                    double softmaxScale, double *out);

} // namespace tqc

#endif // TQC_NUMERICS_ATTENTION_H
