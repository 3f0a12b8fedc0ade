//===- selfcheck_spec.h - The CacheSpec of a selfcheck configuration ------===//
//
// gen_spec (which writes the generated translation unit) and selfcheck (which
// runs it against numerics) take the same recipe arguments and build the
// spec the same way, so the kernel's constants and the host oracle cannot
// drift (selfcheck also compares the TU's layout constants with numerics').
//
// Recipe arguments: --preset NAME [--qjl] [--rounds N]
//   [--k-quant none|lloyd_max|uniform|fp8_e4m3] [--k-bits B] [--k-rot none|hadamard]
//   [--v-quant ...] [--v-bits B] [--v-rot none|hadamard]
// (the overrides reach recipes no preset has: uniform keys, rotated uniform
// or fp8 tensors, other code widths). Geometry: --head-dim --q-heads
// --kv-heads --block-size.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_SELFCHECK_SPEC_H
#define TQC_SELFCHECK_SPEC_H

#include "tqc/numerics/spec.h"

#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>

namespace selfcheck {

struct TensorOverride {
  std::string quant; // empty: the preset's
  int bits = 0;      // 0: the preset's (or the quantizer's natural width)
  std::string rot;   // empty: the preset's
};

struct Params {
  std::string preset = "k3v4";
  int headDim = 128;
  int numQHeads = 8;
  int numKVHeads = 2;
  int blockSize = 16;
  bool qjl = false; // TurboQuant_prod keys (--qjl): b-1 code bits + signs
  int rounds = 1;   // rotation rounds of every rotated tensor
  TensorOverride key, value;
};

/// Consumes the recipe / geometry argument at argv[i] (advancing i past its
/// value); returns false for an argument it does not know.
inline bool parseArg(Params &p, int argc, char **argv, int &i) {
  const std::string a = argv[i];
  auto next = [&]() -> std::string {
    if (i + 1 >= argc)
      throw std::invalid_argument(a + " needs a value");
    return argv[++i];
  };
  if (a == "--preset") p.preset = next();
  else if (a == "--head-dim") p.headDim = std::atoi(next().c_str());
  else if (a == "--q-heads") p.numQHeads = std::atoi(next().c_str());
  else if (a == "--kv-heads") p.numKVHeads = std::atoi(next().c_str());
  else if (a == "--block-size") p.blockSize = std::atoi(next().c_str());
  else if (a == "--qjl") p.qjl = true;
  else if (a == "--rounds") p.rounds = std::atoi(next().c_str());
  else if (a == "--k-quant") p.key.quant = next();
  else if (a == "--k-bits") p.key.bits = std::atoi(next().c_str());
  else if (a == "--k-rot") p.key.rot = next();
  else if (a == "--v-quant") p.value.quant = next();
  else if (a == "--v-bits") p.value.bits = std::atoi(next().c_str());
  else if (a == "--v-rot") p.value.rot = next();
  else return false;
  return true;
}

inline void applyOverride(tqc::TensorSpec &t, const TensorOverride &o,
                          uint64_t seed) {
  if (!o.quant.empty()) {
    auto k = tqc::parseQuantKind(o.quant);
    if (!k)
      throw std::invalid_argument("unknown quantizer " + o.quant);
    t.quant.kind = *k;
    t.quant.bits = *k == tqc::QuantKind::None     ? 16
                   : *k == tqc::QuantKind::Fp8E4M3 ? 8
                                                   : 4;
    t.quant.normCorrect = *k == tqc::QuantKind::LloydMax;
    if (*k == tqc::QuantKind::LloydMax &&
        t.rotation.kind == tqc::RotationKind::None)
      t.rotation = {tqc::RotationKind::RandomizedHadamard, seed, 1};
  }
  if (o.bits)
    t.quant.bits = o.bits;
  if (o.rot == "none")
    t.rotation = {tqc::RotationKind::None, 0, 1};
  else if (o.rot == "hadamard")
    t.rotation = {tqc::RotationKind::RandomizedHadamard, seed, 1};
  else if (!o.rot.empty())
    throw std::invalid_argument("unknown rotation " + o.rot);
}

inline tqc::CacheSpec makeSpec(const Params &p) {
  auto s = tqc::presetSpec(p.preset, p.headDim, p.numQHeads, p.numKVHeads,
                           p.blockSize);
  if (!s)
    throw std::invalid_argument("unknown preset " + p.preset);
  applyOverride(s->key, p.key, tqc::kKeyRotationSeed);
  applyOverride(s->value, p.value, tqc::kValueRotationSeed);
  if (p.qjl)
    s->key.quant.qjl = true;
  for (tqc::TensorSpec *t : {&s->key, &s->value})
    if (t->rotation.kind != tqc::RotationKind::None)
      t->rotation.rounds = p.rounds;
  const std::string err = tqc::validate(*s);
  if (!err.empty())
    throw std::invalid_argument(err);
  return *s;
}

/// A short label of the recipe, e.g. "k3v4+qjl" or "k4v4[k=uniform4]".
inline std::string label(const Params &p, const tqc::CacheSpec &s) {
  std::string l = p.preset + (p.qjl ? "+qjl" : "");
  auto part = [](const char *n, const TensorOverride &o,
                 const tqc::TensorSpec &t) -> std::string {
    if (o.quant.empty() && !o.bits && o.rot.empty())
      return "";
    const bool packed = t.quant.kind == tqc::QuantKind::LloydMax ||
                        t.quant.kind == tqc::QuantKind::Uniform;
    return std::string(n) + "=" + tqc::toString(t.quant.kind) +
           (packed ? std::to_string(t.quant.bits) : "") +
           (t.rotation.kind != tqc::RotationKind::None ? "/rot" : "");
  };
  const std::string k = part("k", p.key, s.key), v = part("v", p.value, s.value);
  if (!k.empty() || !v.empty())
    l += "[" + k + (k.empty() || v.empty() ? "" : ",") + v + "]";
  return l;
}

} // namespace selfcheck

#endif
