//===- selfcheck_spec.h - The CacheSpec of a selfcheck configuration ------===//
//
// gen_spec (which writes the generated translation unit) and selfcheck (which
// runs it against numerics) build the spec the same way from the same
// parameters, so the kernel's constants and the host oracle cannot drift.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_SELFCHECK_SPEC_H
#define TQC_SELFCHECK_SPEC_H

#include "tqc/numerics/spec.h"

#include <stdexcept>
#include <string>

namespace selfcheck {

struct Params {
  std::string preset = "k3v4";
  int headDim = 128;
  int numQHeads = 8;
  int numKVHeads = 2;
  int blockSize = 16;
  bool qjl = false;  // TurboQuant_prod keys (--qjl): b-1 code bits + signs
  int rounds = 1;    // rotation rounds of every rotated tensor
};

inline tqc::CacheSpec makeSpec(const Params &p) {
  auto s = tqc::presetSpec(p.preset, p.headDim, p.numQHeads, p.numKVHeads,
                           p.blockSize);
  if (!s)
    throw std::invalid_argument("unknown preset " + p.preset);
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

} // namespace selfcheck

#endif
