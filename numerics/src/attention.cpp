//===- attention.cpp - float64 reference attention
//-------------------------===//

#include "tqc/numerics/attention.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <limits>
#include <vector>

namespace tqc {

namespace {

/// scores ← softmax(scores) in place, with the max subtracted first.
void softmax(std::vector<double> &scores) {
  if (scores.empty())
    return;
  const double m = *std::max_element(scores.begin(), scores.end());
  double sum = 0;
  for (double &s : scores) {
    s = std::exp(s - m);
    sum += s;
  }
  for (double &s : scores)
    s /= sum;
}

/// The K and V token-heads of one (sequence, KV head), read once and shared
/// by the GQA group's query heads and the chunk's queries.
struct SequenceHead {
  std::vector<StoredVector> keys, values;
};

SequenceHead readSequenceHead(const HostCodec &codec, const PagedBatch &batch,
                              int seq, int kvHead) {
  const int64_t len = batch.seqLens[seq];
  const int block = codec.spec().blockSize;
  const int32_t *table = batch.blockTable + seq * batch.maxBlocksPerSeq;
  if ((len + block - 1) / block > batch.maxBlocksPerSeq)
    throw std::invalid_argument(
        "sequence " + std::to_string(seq) + " of " + std::to_string(len) +
        " tokens needs more than maxBlocksPerSeq = " +
        std::to_string(batch.maxBlocksPerSeq) + " blocks");
  SequenceHead sh;
  for (int64_t t = 0; t < len; ++t) {
    const int64_t physical = table[t / block], pos = t % block;
    if (physical < 0)
      throw std::invalid_argument(
          "block table of sequence " + std::to_string(seq) +
          " has no block for token " + std::to_string(t));
    sh.keys.push_back(codec.readKey(batch.cache, physical, pos, kvHead));
    sh.values.push_back(codec.readValue(batch.cache, physical, pos, kvHead));
  }
  return sh;
}

/// One query head over the first `visible` tokens of a sequence head.
void attendCompressed(const HostCodec &codec, const SequenceHead &sh,
                      int64_t visible, const double *q, double scale,
                      double *out) {
  const int d = codec.spec().headDim;
  std::fill(out, out + d, 0.0);
  if (visible <= 0)
    return;
  const PreparedQuery pq = codec.key().prepareQuery(q);
  std::vector<double> p(visible);
  for (int64_t t = 0; t < visible; ++t)
    p[t] = scale * codec.key().score(pq, sh.keys[t]);
  softmax(p);
  // Values stay in their rotated domain; one inverse rotation at the end.
  for (int64_t t = 0; t < visible; ++t)
    for (int j = 0; j < d; ++j)
      out[j] += p[t] * sh.values[t].rotated[j];
  codec.value().rotation().applyInverse(out);
}

/// The n queries at rows firstRow.. of query/out: the last n tokens of
/// sequence s, query i attending to tokens [0, len − n + i].
void attendChunk(const HostCodec &codec, const PagedBatch &batch, int s,
                 int64_t firstRow, int64_t n, const double *query,
                 double softmaxScale, double *out) {
  const CacheSpec &spec = codec.spec();
  const int d = spec.headDim, hq = spec.numQHeads, group = spec.gqaRatio();
  const int64_t len = batch.seqLens[s];
  if (n < 0 || n > len)
    throw std::invalid_argument("sequence " + std::to_string(s) + " has " +
                                std::to_string(n) + " queries but " +
                                std::to_string(len) + " tokens");
  if (n == 0)
    return;
  for (int kvHead = 0; kvHead < spec.numKVHeads; ++kvHead) {
    const SequenceHead sh = readSequenceHead(codec, batch, s, kvHead);
    for (int64_t i = 0; i < n; ++i)
      for (int h = kvHead * group; h < (kvHead + 1) * group; ++h) {
        const int64_t row = ((firstRow + i) * hq + h) * d;
        attendCompressed(codec, sh, len - n + i + 1, query + row, softmaxScale,
                         out + row);
      }
  }
}

} // namespace

void referenceExtend(const HostCodec &codec, const PagedBatch &batch,
                     const int32_t *queryStartLoc, const double *query,
                     double softmaxScale, double *out) {
  for (int s = 0; s < batch.numSeqs; ++s)
    attendChunk(codec, batch, s, queryStartLoc[s],
                queryStartLoc[s + 1] - queryStartLoc[s], query, softmaxScale,
                out);
}

void referenceDecode(const HostCodec &codec, const PagedBatch &batch,
                     const double *query, double softmaxScale, double *out) {
  const int64_t row = int64_t(codec.spec().numQHeads) * codec.spec().headDim;
  for (int s = 0; s < batch.numSeqs; ++s) {
    if (batch.seqLens[s] > 0) {
      attendChunk(codec, batch, s, s, 1, query, softmaxScale, out);
    } else { // an empty sequence: nothing to attend to
      std::fill(out + s * row, out + (s + 1) * row, 0.0);
    }
  }
}

void denseAttention(const double *query, const double *keys,
                    const double *values, int64_t numKeys, int headDim,
                    double softmaxScale, double *out) {
  std::fill(out, out + headDim, 0.0);
  if (numKeys <= 0)
    return;
  std::vector<double> p(numKeys);
  for (int64_t t = 0; t < numKeys; ++t)
    p[t] = softmaxScale * dot(query, keys + t * headDim, headDim);
  softmax(p);
  for (int64_t t = 0; t < numKeys; ++t)
    for (int j = 0; j < headDim; ++j)
      out[j] += p[t] * values[t * headDim + j];
}

void referenceExtendChunk(const HostCodec &codec, const PagedBatch &batch,
                          const int32_t *queryStartLoc, const double *query,
                          const double *chunkKeys, const double *chunkValues,
                          double softmaxScale, double *out, double *lse) {
  const CacheSpec &spec = codec.spec();
  const int d = spec.headDim, hq = spec.numQHeads, hkv = spec.numKVHeads,
            group = spec.gqaRatio();
  const double kNegInf = -std::numeric_limits<double>::infinity();
  for (int s = 0; s < batch.numSeqs; ++s) {
    const int64_t prefix = batch.seqLens[s], first = queryStartLoc[s];
    const int64_t n = queryStartLoc[s + 1] - first;
    for (int kvHead = 0; kvHead < hkv; ++kvHead) {
      // The dequantized prefix, then the exact chunk, in token order.
      const int64_t total = prefix + (chunkKeys ? n : 0);
      std::vector<double> keys(total * d), values(total * d);
      for (int64_t t = 0; t < prefix; ++t) {
        const int64_t block =
            batch.blockTable[s * batch.maxBlocksPerSeq + t / spec.blockSize];
        codec.decodeTokenHead(batch.cache, block, t % spec.blockSize, kvHead,
                              &keys[t * d], &values[t * d]);
      }
      for (int64_t i = 0; chunkKeys && i < n; ++i) {
        const int64_t src = ((first + i) * hkv + kvHead) * d;
        std::copy(chunkKeys + src, chunkKeys + src + d,
                  &keys[(prefix + i) * d]);
        std::copy(chunkValues + src, chunkValues + src + d,
                  &values[(prefix + i) * d]);
      }
      for (int64_t i = 0; i < n; ++i) {
        const int64_t visible = prefix + (chunkKeys ? i + 1 : 0);
        for (int h = kvHead * group; h < (kvHead + 1) * group; ++h) {
          const int64_t row = (first + i) * hq + h;
          denseAttention(query + row * d, keys.data(), values.data(), visible,
                         d, softmaxScale, out + row * d);
          if (!lse)
            continue;
          double mx = kNegInf;
          std::vector<double> sc(visible);
          for (int64_t t = 0; t < visible; ++t) {
            sc[t] = softmaxScale * dot(query + row * d, &keys[t * d], d);
            mx = std::max(mx, sc[t]);
          }
          double sum = 0.0;
          for (int64_t t = 0; t < visible; ++t)
            sum += std::exp(sc[t] - mx);
          lse[row] = visible > 0 ? mx + std::log(sum) : kNegInf;
        }
      }
    }
  }
}

} // namespace tqc
