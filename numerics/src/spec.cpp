//===- spec.cpp - Presets, aliases and spec validation --------------------===//

#include "tqc/numerics/spec.h"

#include <sstream>

namespace tqc {

namespace {


TensorSpec lloydMax(int bits, bool nc, uint64_t seed) {
  TensorSpec t;
  t.rotation = {RotationKind::RandomizedHadamard, seed, 1};
  t.quant.kind = QuantKind::LloydMax;
  t.quant.bits = bits;
  t.quant.normCorrect = nc;
  t.quant.dist = CodebookDist::Beta;
  return t;
}

TensorSpec uniform(int bits) {
  TensorSpec t;
  t.quant.kind = QuantKind::Uniform;
  t.quant.bits = bits;
  return t;
}

TensorSpec fp8() {
  TensorSpec t;
  t.quant.kind = QuantKind::Fp8E4M3;
  t.quant.bits = 8;
  return t;
}

TensorSpec none() {
  TensorSpec t;
  t.quant.kind = QuantKind::None;
  t.quant.bits = 16;
  return t;
}

struct PresetDef {
  PresetInfo info;
  TensorSpec (*key)();
  TensorSpec (*value)();
};

const std::vector<PresetDef> &presetDefs() {
  static const std::vector<PresetDef> defs = {
      {{"k8v4", "turboquant_k8v4", "fp8 e4m3 (no rotation)",
        "4-bit uniform min/max"},
       [] { return fp8(); },
       [] { return uniform(4); }},
      {{"k4v4", "turboquant_4bit_nc",
        "rotation + 4-bit Lloyd-Max, norm-corrected, fp16 norm",
        "4-bit uniform min/max"},
       [] { return lloydMax(4, true, kKeyRotationSeed); },
       [] { return uniform(4); }},
      {{"k3v4", "turboquant_k3v4_nc",
        "rotation + 3-bit Lloyd-Max, norm-corrected, fp16 norm",
        "4-bit uniform min/max"},
       [] { return lloydMax(3, true, kKeyRotationSeed); },
       [] { return uniform(4); }},
      {{"k3v3", "turboquant_3bit_nc",
        "rotation + 3-bit Lloyd-Max, norm-corrected", "3-bit uniform min/max"},
       [] { return lloydMax(3, true, kKeyRotationSeed); },
       [] { return uniform(3); }},
      {{"k4v2", "turboquant_k4v2",
        "rotation + 4-bit Lloyd-Max, norm-corrected",
        "rotation + 2-bit Lloyd-Max, norm-corrected"},
       [] { return lloydMax(4, true, kKeyRotationSeed); },
       [] { return lloydMax(2, true, kValueRotationSeed); }},
      {{"k2v2", "turboquant_2bit", "rotation + 2-bit Lloyd-Max",
        "rotation + 2-bit Lloyd-Max"},
       [] { return lloydMax(2, false, kKeyRotationSeed); },
       [] { return lloydMax(2, false, kValueRotationSeed); }},
      {{"bf16", "bf16", "none (bf16)", "none (bf16)"},
       [] { return none(); },
       [] { return none(); }},
  };
  return defs;
}

} // namespace

const std::vector<PresetInfo> &presets() {
  static const std::vector<PresetInfo> infos = [] {
    std::vector<PresetInfo> v;
    for (const PresetDef &d : presetDefs())
      v.push_back(d.info);
    return v;
  }();
  return infos;
}

std::optional<std::string> canonicalPreset(const std::string &name) {
  for (const PresetDef &d : presetDefs())
    if (name == d.info.name || name == d.info.alias)
      return std::string(d.info.name);
  return std::nullopt;
}

std::string acceptedPresets() {
  std::ostringstream os;
  bool first = true;
  for (const PresetDef &d : presetDefs()) {
    os << (first ? "" : ", ") << d.info.name;
    first = false;
  }
  for (const PresetDef &d : presetDefs())
    if (std::string(d.info.alias) != d.info.name)
      os << ", " << d.info.alias;
  return os.str();
}

std::optional<CacheSpec> presetSpec(const std::string &name, int headDim,
                                    int numQHeads, int numKVHeads,
                                    int blockSize) {
  std::optional<std::string> canon = canonicalPreset(name);
  if (!canon)
    return std::nullopt;
  for (const PresetDef &d : presetDefs()) {
    if (*canon != d.info.name)
      continue;
    CacheSpec s;
    s.preset = *canon;
    s.headDim = headDim;
    s.numQHeads = numQHeads;
    s.numKVHeads = numKVHeads;
    s.blockSize = blockSize;
    s.key = d.key();
    s.value = d.value();
    s.key.quant.qjlSeed = kQjlSeed;
    return s;
  }
  return std::nullopt;
}

std::optional<int64_t> presetByteBudget(const std::string &preset,
                                        int headDim) {
  // FORMATS.md's table, per token-head: code bytes plus fp16 metadata.
  const int64_t d = headDim;
  auto codes = [&](int bits) { return (d * bits + 7) / 8; };
  if (preset == "k8v4")
    return d + codes(4) + 4;
  if (preset == "k4v4")
    return codes(4) + 2 + codes(4) + 4;
  if (preset == "k3v4")
    return codes(3) + 2 + codes(4) + 4;
  if (preset == "k3v3")
    return codes(3) + 2 + codes(3) + 4;
  if (preset == "k4v2")
    return codes(4) + 2 + codes(2) + 2;
  if (preset == "k2v2")
    return codes(2) + 2 + codes(2) + 2;
  if (preset == "bf16")
    return 4 * d;
  return std::nullopt;
}

bool isPowerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

namespace {

std::string validateTensor(const char *which, const TensorSpec &t, int d) {
  std::ostringstream os;
  const QuantSpec &q = t.quant;
  switch (q.kind) {
  case QuantKind::LloydMax:
  case QuantKind::Uniform:
    if (q.bits < 1 || q.bits > 8) {
      os << which << " bits " << q.bits << " is out of range; accepted: 1..8";
      return os.str();
    }
    break;
  case QuantKind::Fp8E4M3:
    if (q.bits != 8) {
      os << which << " bits " << q.bits << " does not fit fp8_e4m3; accepted: 8";
      return os.str();
    }
    break;
  case QuantKind::None:
    if (q.bits != 16) {
      os << which << " bits " << q.bits << " does not fit an uncompressed "
         << which << "; accepted: 16";
      return os.str();
    }
    break;
  }
  if (q.qjl) {
    if (q.kind != QuantKind::LloydMax) {
      os << "qjl needs a lloyd_max " << which << ", not "
         << toString(q.kind);
      return os.str();
    }
    if (q.bits < 2) {
      os << which << " bits " << q.bits
         << " leaves no codebook bits next to the QJL sign bit; accepted with "
            "qjl: 2..8";
      return os.str();
    }
  }
  if (q.kind == QuantKind::LloydMax && t.rotation.kind == RotationKind::None) {
    os << "lloyd_max " << which
       << " needs a rotation (its codebook assumes rotated coordinates); "
          "accepted rotations: randomized_hadamard, plain_hadamard, dense";
    return os.str();
  }
  if ((t.rotation.kind == RotationKind::RandomizedHadamard ||
       t.rotation.kind == RotationKind::PlainHadamard) &&
      !isPowerOfTwo(d)) {
    os << "head_dim " << d << " cannot take a Hadamard rotation of the "
       << which << "; accepted: a power of two (16, 32, 64, 128, 256, 512)";
    return os.str();
  }
  if (t.rotation.kind != RotationKind::None &&
      (t.rotation.rounds < 1 || t.rotation.rounds > 4)) {
    os << "rotation rounds " << t.rotation.rounds
       << " is out of range; accepted: 1..4";
    return os.str();
  }
  return {};
}

} // namespace

void useLayout(CacheSpec &s, LayoutKind layout) {
  s.layout = layout;
  if (layout != LayoutKind::VLLM)
    return;
  for (TensorSpec *t : {&s.key, &s.value})
    if (t->quant.kind == QuantKind::LloydMax) {
      // Rounds stay as given: validate() rejects anything but one.
      t->rotation.kind = RotationKind::PlainHadamard;
      t->rotation.seed = 0;
      t->quant.dist = CodebookDist::Vllm;
    }
}

namespace {

/// FORMATS.md's vLLM layout holds vLLM's four TurboQuant recipes only.
std::string validateVllm(const CacheSpec &s) {
  constexpr const char *kAccepted =
      "; the vllm layout holds vLLM's TurboQuant formats (presets k8v4, "
      "k4v4, k3v4, k3v3)";
  std::ostringstream os;
  if (s.headDim != 64 && s.headDim != 128 && s.headDim != 256) {
    os << "head_dim " << s.headDim
       << " has no vLLM TurboQuant codebook; accepted with --layout vllm: 64, "
          "128, 256";
    return os.str();
  }
  const QuantSpec &k = s.key.quant;
  const bool fp8Key = k.kind == QuantKind::Fp8E4M3 &&
                      s.key.rotation.kind == RotationKind::None;
  const bool mseKey = k.kind == QuantKind::LloydMax && !k.qjl &&
                      (k.bits == 3 || k.bits == 4) && k.normCorrect &&
                      s.key.rotation.kind == RotationKind::PlainHadamard &&
                      s.key.rotation.rounds == 1 &&
                      k.dist == CodebookDist::Vllm;
  if (!fp8Key && !mseKey) {
    os << "key " << toString(k.kind) << " " << k.bits << "-bit"
       << (k.qjl ? " with qjl" : "")
       << (k.kind == QuantKind::LloydMax && !k.normCorrect
               ? " without norm correction"
               : "")
       << (s.key.rotation.rounds != 1 ? " with several rotation rounds" : "")
       << " is not a vLLM key format; accepted: fp8_e4m3, or 3-/4-bit "
          "norm-corrected lloyd_max with one plain Hadamard"
       << kAccepted;
    return os.str();
  }
  const QuantSpec &v = s.value.quant;
  if (v.kind != QuantKind::Uniform || (v.bits != 3 && v.bits != 4) ||
      s.value.rotation.kind != RotationKind::None) {
    os << "value " << toString(v.kind) << " " << v.bits
       << "-bit is not a vLLM value format; accepted: 3-/4-bit uniform"
       << kAccepted;
    return os.str();
  }
  return {};
}

} // namespace

std::string validate(const CacheSpec &s) {
  std::ostringstream os;
  if (s.headDim < 16 || s.headDim > 512 || s.headDim % 16 != 0) {
    os << "head_dim " << s.headDim
       << " is not supported; accepted: a multiple of 16 in 16..512";
    return os.str();
  }
  if (s.numKVHeads < 1 || s.numKVHeads > 1024) {
    os << "num_kv_heads " << s.numKVHeads << " is out of range; accepted: 1..1024";
    return os.str();
  }
  if (s.numQHeads < 1 || s.numQHeads > 4096) {
    os << "num_q_heads " << s.numQHeads << " is out of range; accepted: 1..4096";
    return os.str();
  }
  if (s.numQHeads % s.numKVHeads != 0) {
    os << "num_q_heads " << s.numQHeads << " is not a multiple of num_kv_heads "
       << s.numKVHeads << "; accepted: GQA groups of equal size";
    return os.str();
  }
  if (s.gqaRatio() > 64) {
    os << "GQA ratio " << s.gqaRatio() << " (num_q_heads / num_kv_heads) is "
       << "out of range; accepted: 1..64";
    return os.str();
  }
  if (!isPowerOfTwo(s.blockSize) || s.blockSize < 8 || s.blockSize > 256) {
    os << "block_size " << s.blockSize
       << " is not supported; accepted: 8, 16, 32, 64, 128, 256";
    return os.str();
  }
  if (s.value.quant.qjl) {
    return "qjl applies to keys only (it makes inner products unbiased); the "
           "value must not set it";
  }
  std::string e = validateTensor("key", s.key, s.headDim);
  if (e.empty())
    e = validateTensor("value", s.value, s.headDim);
  if (e.empty() && s.layout == LayoutKind::VLLM)
    e = validateVllm(s);
  return e;
}

const char *toString(RotationKind kind) {
  switch (kind) {
  case RotationKind::None: return "none";
  case RotationKind::RandomizedHadamard: return "randomized_hadamard";
  case RotationKind::PlainHadamard: return "plain_hadamard";
  case RotationKind::DenseHaar: return "dense";
  }
  return "?";
}

const char *toString(QuantKind kind) {
  switch (kind) {
  case QuantKind::None: return "none";
  case QuantKind::LloydMax: return "lloyd_max";
  case QuantKind::Uniform: return "uniform";
  case QuantKind::Fp8E4M3: return "fp8_e4m3";
  }
  return "?";
}

const char *toString(CodebookDist dist) {
  switch (dist) {
  case CodebookDist::Beta: return "beta";
  case CodebookDist::Gaussian: return "gaussian";
  case CodebookDist::Uniform: return "uniform";
  case CodebookDist::Vllm: return "vllm";
  }
  return "?";
}

const char *toString(LayoutKind kind) {
  return kind == LayoutKind::Native ? "native" : "vllm";
}

std::optional<RotationKind> parseRotationKind(const std::string &s) {
  for (RotationKind k :
       {RotationKind::None, RotationKind::RandomizedHadamard,
        RotationKind::PlainHadamard, RotationKind::DenseHaar})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

std::optional<QuantKind> parseQuantKind(const std::string &s) {
  for (QuantKind k : {QuantKind::None, QuantKind::LloydMax, QuantKind::Uniform,
                      QuantKind::Fp8E4M3})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

std::optional<CodebookDist> parseCodebookDist(const std::string &s) {
  for (CodebookDist k :
       {CodebookDist::Beta, CodebookDist::Gaussian, CodebookDist::Uniform,
        CodebookDist::Vllm})
    if (s == toString(k))
      return k;
  return std::nullopt;
}

std::optional<LayoutKind> parseLayoutKind(const std::string &s) {
  if (s == "native")
    return LayoutKind::Native;
  if (s == "vllm")
    return LayoutKind::VLLM;
  return std::nullopt;
}

} // namespace tqc
