//===- spec.h - What a KV-cache compression recipe is ----------*- C++ -*-===//
//
// The compression recipe of one cache (what FORMATS.md calls a preset, after
// explicit overrides) as plain data. The compiler lowers it into the tq
// dialect; the host reference numerics and the runtime tests read it directly.
// No MLIR dependency: this builds on the GPU machine too.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_NUMERICS_SPEC_H
#define TQC_NUMERICS_SPEC_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tqc {

// Default seeds. Any value works; they are fixed so that two compilations of
// the same recipe produce the same cache bytes (a cache written through one
// bundle stays readable by a rebuilt one).
constexpr uint64_t kKeyRotationSeed = 0x7d5face06b3a1001ull;
constexpr uint64_t kValueRotationSeed = 0x7d5face06b3a2002ull;
constexpr uint64_t kQjlSeed = 0x7d5face06b3a3003ull;

/// How a vector is rotated before it is quantized.
enum class RotationKind {
  None,               ///< identity
  RandomizedHadamard, ///< D2·H·D1 per round, signs from a seed (native)
  PlainHadamard,      ///< H alone, normalized Sylvester (vLLM layout)
  DenseHaar,          ///< dense random orthogonal matrix (reference only)
};

/// How the (rotated) coordinates become codes.
enum class QuantKind {
  None,     ///< stored as bf16, no compression
  LloydMax, ///< optimal scalar codebook for one coordinate of a unit vector
  Uniform,  ///< per token-head min/max, fp16 scale and zero
  Fp8E4M3,  ///< raw cast to fp8 e4m3, no scale
};

/// Which coordinate density a Lloyd-Max codebook is optimal for.
enum class CodebookDist {
  Beta,     ///< the exact density of a coordinate of a random unit vector
  Gaussian, ///< its N(0, 1/D) approximation (what vLLM / SGLang use)
  Uniform,  ///< evenly spaced levels (not optimal; for comparison)
  Vllm,     ///< vLLM's fp32 Gaussian levels (--layout vllm; D 64/128/256, 3-4 bits)
};

/// Which byte layout the cache uses.
enum class LayoutKind {
  Native, ///< planes chosen by tqc for 16-byte loads (FORMATS.md "Native")
  VLLM,   ///< byte-for-byte vLLM's TurboQuant slot layout
};

struct RotationSpec {
  RotationKind kind = RotationKind::None;
  uint64_t seed = 0;
  int rounds = 1;
};

struct QuantSpec {
  QuantKind kind = QuantKind::None;
  int bits = 16;             ///< bits per coordinate in total (QJL included)
  bool normCorrect = false;  ///< store ‖x‖/‖c[idx]‖ so ‖x̃‖ = ‖x‖
  CodebookDist dist = CodebookDist::Beta;
  bool qjl = false;          ///< TurboQuant_prod: (bits-1)-bit codes + 1-bit sketch
  uint64_t qjlSeed = 0;      ///< seed of the Gaussian sketch matrix S

  /// Bits per coordinate of the codebook indices (bits − 1 with QJL).
  int codeBits() const { return qjl ? bits - 1 : bits; }
};

/// The recipe for one of K or V.
struct TensorSpec {
  RotationSpec rotation;
  QuantSpec quant;
};

/// Everything that determines the cache bytes and the kernels' numerics.
struct CacheSpec {
  std::string preset = "k3v4"; ///< canonical preset name it started from
  int headDim = 128;
  int numQHeads = 32;
  int numKVHeads = 8;
  int blockSize = 16;
  LayoutKind layout = LayoutKind::Native;
  TensorSpec key;
  TensorSpec value;

  int gqaRatio() const { return numQHeads / numKVHeads; }
};

/// One row of FORMATS.md's preset table.
struct PresetInfo {
  const char *name;
  const char *alias; ///< the engine name it is also known as
  const char *key;   ///< human description of the key recipe
  const char *value; ///< human description of the value recipe
};

/// All presets, in FORMATS.md's order.
const std::vector<PresetInfo> &presets();

/// Canonical preset name for `name` (a preset or one of its aliases), or
/// nullopt when it is neither.
std::optional<std::string> canonicalPreset(const std::string &name);

/// Comma-separated list of accepted preset names and aliases, for errors.
std::string acceptedPresets();

/// The recipe of a preset at the given geometry. `name` must be canonical
/// or an alias; returns nullopt otherwise.
std::optional<CacheSpec> presetSpec(const std::string &name, int headDim = 128,
                                    int numQHeads = 32, int numKVHeads = 8,
                                    int blockSize = 16);

/// Sets the cache layout together with the numerics it implies. For
/// LayoutKind::VLLM (FORMATS.md) that is vLLM's: codebook keys are rotated by
/// the plain Hadamard and quantized with vLLM's fp32 levels
/// (CodebookDist::Vllm); their norm is corrected at read and uniform codes
/// come from the unrounded scale (HostCodec and the templates derive those
/// two from the layout). validate() then checks the recipe is one vLLM has.
void useLayout(CacheSpec &spec, LayoutKind layout);

/// Checks that a spec can be compiled. Returns an empty string when it can,
/// otherwise a one-line message naming the bad value and what is accepted.
std::string validate(const CacheSpec &spec);

/// Bytes per token-head FORMATS.md's preset table allows for a preset at
/// this head_dim (the native layout must not exceed it), or nullopt for a
/// recipe that is not a plain preset.
std::optional<int64_t> presetByteBudget(const std::string &preset, int headDim);

// Names used in the IR, the manifest and the CLI.
const char *toString(RotationKind kind);
const char *toString(QuantKind kind);
const char *toString(CodebookDist dist);
const char *toString(LayoutKind kind);
std::optional<RotationKind> parseRotationKind(const std::string &s);
std::optional<QuantKind> parseQuantKind(const std::string &s);
std::optional<CodebookDist> parseCodebookDist(const std::string &s);
std::optional<LayoutKind> parseLayoutKind(const std::string &s);

bool isPowerOfTwo(int64_t x);

} // namespace tqc

#endif // TQC_NUMERICS_SPEC_H
