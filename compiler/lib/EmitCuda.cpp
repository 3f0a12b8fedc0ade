//===- EmitCuda.cpp - Instantiate the CUDA templates for one recipe -------===//
//
// Everything that varies per bundle is a compile-time constant of the
// generated translation unit: codebook levels, rotation sign masks, the QJL
// matrix, field offsets and the launch plan. The device code in templates/
// is fixed; NVRTC specializes it.
//
//===----------------------------------------------------------------------===//

#include "tqc/Compiler/EmitCuda.h"
#include "tqc/Compiler/Toolchain.h"

#include "tqc/numerics/rotation.h"
#include "tqc/numerics/sketch.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <string>

namespace tqc {

namespace {

const char *quantMacro(QuantKind k) {
  switch (k) {
  case QuantKind::None: return "TQ_QUANT_NONE";
  case QuantKind::LloydMax: return "TQ_QUANT_LLOYD_MAX";
  case QuantKind::Uniform: return "TQ_QUANT_UNIFORM";
  case QuantKind::Fp8E4M3: return "TQ_QUANT_FP8";
  }
  return "TQ_QUANT_NONE";
}

bool isRotated(const TensorConfig &t) {
  return t.rotation.kind != RotationKind::None;
}

/// A double literal that round-trips exactly.
std::string doubleLiteral(double v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.17g", v);
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

/// A float literal that round-trips exactly through float.
std::string floatLiteral(double v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::format("%.9g", float(v));
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s + "f";
}

/// Sign masks of a rotation, rounds × {D1, D2} × D/32 words (rotation.h):
/// bit j%32 of word j/32 is set where the sign is −1. All zero for a plain
/// Hadamard.
std::vector<uint32_t> signMasks(const RotationSpec &r, int d) {
  std::vector<uint32_t> words;
  if (r.kind == RotationKind::PlainHadamard) {
    words.assign(size_t(2 * d / 32), 0u);
    return words;
  }
  RandomizedHadamard h(d, r.seed, r.rounds);
  for (int i = 0; i < h.rounds(); ++i)
    for (const std::vector<int8_t> *s : {&h.signs1(i), &h.signs2(i)}) {
      std::vector<uint32_t> m = packSignMask(*s);
      words.insert(words.end(), m.begin(), m.end());
    }
  return words;
}

void emitArray(llvm::raw_ostream &os, const char *decl, const char *name,
               const std::vector<std::string> &items, int perLine) {
  os << decl << " " << name << "[" << items.size() << "] = {";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i % perLine == 0)
      os << "\n   ";
    os << " " << items[i] << (i + 1 < items.size() ? "," : "");
  }
  os << "\n};\n";
}

/// A tensor's codebook levels and sign-mask words as the unit spells them,
/// for both the __constant__ arrays and their constant-expression twins.
std::vector<std::string> levelLiterals(const TensorConfig &t) {
  std::vector<std::string> items;
  for (double l : t.levels)
    items.push_back(doubleLiteral(l));
  return items;
}
std::vector<std::string> signWordLiterals(const TensorConfig &t, int d) {
  std::vector<std::string> items;
  for (uint32_t w : signMasks(t.rotation, d)) {
    std::string s;
    llvm::raw_string_ostream(s) << llvm::format("0x%08xu", w);
    items.push_back(s);
  }
  return items;
}

/// `static constexpr TYPE fn(int i)` returning items[i], a select per item:
/// an array's contents as a constant expression, for device code that must
/// not wait on a cold constant-memory load.
void emitSelectFn(llvm::raw_ostream &os, const char *type, const char *fn,
                  const std::vector<std::string> &items) {
  os << "  __host__ __device__ static constexpr " << type << " " << fn
     << "(int i) {\n    return";
  for (size_t i = 0; i + 1 < items.size(); ++i)
    os << " i == " << i << " ? " << items[i] << " :";
  os << " " << items.back() << ";\n  }\n";
}

void emitTensorConstants(llvm::raw_ostream &os, const TensorConfig &t,
                         const char *prefix, int d) {
  // Double levels: the store's cell search and norm correction are then
  // bit-exact with the host numerics (decode converts them to float).
  if (t.quant.kind == QuantKind::LloydMax)
    emitArray(os, "__constant__ double",
              (std::string("tq_") + prefix + "_levels").c_str(),
              levelLiterals(t), 4);
  if (isRotated(t))
    emitArray(os, "__constant__ uint32_t",
              (std::string("tq_") + prefix + "_signs").c_str(),
              signWordLiterals(t, d), 4);
}

void emitTensorSpec(llvm::raw_ostream &os, const TensorConfig &t,
                    const char *name) {
  int rounds = !isRotated(t) ? 0
               : t.rotation.kind == RotationKind::PlainHadamard
                   ? 1
                   : t.rotation.rounds;
  os << "  static constexpr int k" << name << "Quant = "
     << quantMacro(t.quant.kind) << ";\n"
     << "  static constexpr int k" << name << "Bits = " << t.quant.codeBits()
     << ";\n"
     << "  static constexpr bool k" << name << "NormCorrect = "
     << (t.quant.normCorrect ? "true" : "false") << ";\n"
     << "  static constexpr bool k" << name << "Qjl = "
     << (t.quant.qjl ? "true" : "false") << ";\n"
     << "  static constexpr int k" << name << "Rotation = "
     << (isRotated(t) ? "TQ_ROT_HADAMARD" : "TQ_ROT_NONE") << ";\n"
     << "  static constexpr int k" << name << "Rounds = " << rounds << ";\n";
}

/// The TqSpec-derived struct of a decode plan: TqPlan_decode_p0, ...
std::string specName(const PlanConfig &p) { return "TqPlan_" + p.decodeName; }

void emitField(llvm::raw_ostream &os, const Layout &l, FieldKind kind,
               const char *name) {
  const Field *f = l.find(kind);
  os << "  static constexpr int k" << name
     << "Offset = " << (f ? f->offset : -1) << ", k" << name
     << "Stride = " << (f ? f->tokenStride : 0) << ";\n";
}

} // namespace

bool archHasProgrammaticLaunch(const std::string &arch) {
  return cudaArchNumber(arch) >= 90;
}

namespace {

/// Extend CTAs per SM the register allocation must allow: 3 caps the
/// kernel at 168 registers (no spills at head_dim 128 on sm_90); with the
/// 232 it took on its own, 2 CTAs (8 warps) per SM left a third of the issue
/// slots waiting on tile loads (bench/results/2026-11-30-extend-v1-h200).
constexpr int kExtendMinBlocks = 3;

/// The extend plan's spec struct (one for every bucket).
constexpr const char *kExtendSpec = "TqPlan_extend";

/// The integer value of a developer's template knob (TQC_DEVICE_DEFINES)
/// as the generated unit will see it, or `fallback` when it is not set.
int deviceDefineInt(const char *knob, int fallback) {
  std::string error;
  for (const auto &[name, value] : deviceDefinesFromEnv(error))
    if (name == knob)
      return std::atoi(value.c_str());
  return fallback;
}

/// A developer knob's value (deviceDefineInt) where `accepted` holds it;
/// else `instead`, with a warning (once per knob) naming the value, what
/// is wrong with it (`problem`) and what is used (`effect`).
int checkedKnob(const char *knob, int fallback,
                llvm::function_ref<bool(int)> accepted, const char *problem,
                int instead, const char *effect) {
  const int n = deviceDefineInt(knob, fallback);
  if (accepted(n))
    return n;
  static std::set<std::string> warned;
  if (warned.insert(knob).second)
    llvm::errs() << "tqc: warning: " << knob << "=" << n << " " << problem
                 << "; " << effect << "\n";
  return instead;
}

/// Warps of the extend prep kernel, each holding one chunk row at a time
/// (extend.h extendPrep): 4, or the developer knob TQ_EXTEND_PREP_WARPS.
int extendPrepWarps() {
  return checkedKnob(
      "TQ_EXTEND_PREP_WARPS", 4, [](int n) { return n >= 1 && n <= 32; },
      "is outside 1..32", 4, "the extend prep takes 4 warps");
}

/// Chunk rows per extend prep CTA (grid token_tiles): each warp loads
/// this many rows / warps before it uses the first, 2 (developer knob
/// TQ_EXTEND_PREP_ROWS_PER_WARP, 1..4).
int extendPrepTileTokens() {
  return extendPrepWarps() *
         checkedKnob(
             "TQ_EXTEND_PREP_ROWS_PER_WARP", 2,
             [](int n) { return n >= 1 && n <= 4; }, "is outside 1..4", 2,
             "each extend prep warp takes 2 rows");
}

/// Tokens per store CTA: 1 (grid max_tokens), or the developer knob
/// TQ_STORE_TILE_TOKENS (grid token_tiles; store.h then loads the next
/// token's rows while a warp computes the current one). Not yet measured on
/// the H200: a knob until it is.
int storeTileTokens() {
  return checkedKnob(
      "TQ_STORE_TILE_TOKENS", 1, [](int n) { return n >= 1 && n <= 64; },
      "is outside 1..64", 1, "the store takes 1 token per CTA");
}

} // namespace

int64_t decodeRingBytes(const KernelConfig &c, const LaunchConfig &plan) {
  // Predicts TcPlan<Spec>::kRing (decode_tc.h) from the recipe: the
  // tensor-core path with register-prefetched steps, lane slices of whole
  // 16-bit units (6-byte slices of 3-bit codes are read as funnel-shifted
  // words), 16-token pages of the native layout, and the bulk copies of
  // sm_90+. decode.h fails the build of a plan given memory that the
  // template would not use, so that drift is a compile error (the toolchain
  // tier builds a 3-stage plan of every preset). The prediction is
  // conservative the other way: fp8 values and bf16 tensors are left out
  // (their steps mostly exceed the prefetch registers), and a plan left out
  // simply runs as 2 stages. fp8 keys (k8v4) take it up to head_dim 128.
  if (plan.stages < 3 || isAmdArch(c.arch) || cudaArchNumber(c.arch) < 90 ||
      c.layout.kind != LayoutKind::Native || c.blockSize != 16 ||
      c.layout.headStride % 16 || c.layout.blockStride % 16 ||
      c.headDim < 64 || c.headDim > 256 || plan.headsPerCta > 8)
    return 0;
  // 2-bit Lloyd-Max keys take a quad table (decode_tc.h kQuad), which 2-bit
  // values of the same codebook read too (kTcQuadK).
  auto isLloydMax2 = [](const QuantSpec &q) {
    return q.kind == QuantKind::LloydMax && q.codeBits() == 2 && !q.qjl;
  };
  const bool keyQuads =
      isLloydMax2(c.key.quant) && deviceDefineInt("TQ_TC_KEY_QUADS", 0) != 0;
  const bool valuesShareQuads =
      keyQuads && isLloydMax2(c.value.quant) &&
      deviceDefineInt("TQ_TC_VALUE_PLANES", 0) == 0 &&
      c.value.levels == c.key.levels;
  // Pair-table entries of a tensor (0: no table), or -1 when the
  // tensor-core path does not take it.
  auto lutEntries = [](const QuantSpec &q, bool key) -> int {
    const int b = q.codeBits();
    if (key && q.kind == QuantKind::Fp8E4M3)
      return 0; // converted in registers
    if (!key && q.kind == QuantKind::LloydMax && b == 2 && !q.qjl &&
        deviceDefineInt("TQ_TC_VALUE_PLANES", 0) != 0)
      return 0; // two planes of subnormals (decode_tc.h kTcPlanes2)
    if (q.kind == QuantKind::LloydMax && b <= 4 && !q.qjl)
      return 1 << (2 * b);
    if (key)
      return -1; // uniform keys, QJL: the scalar path
    if (q.kind == QuantKind::Uniform && (b <= 4 || b == 8))
      return 0; // in registers (decode_tc.h kTcNarrow / kTcMagic4 / 8);
                // TQ_TC_SUBNORMAL_CODES=false (an A/B knob) gives <= 3-bit
                // codes a table again, which this check does not count
    return -1;
  };
  const int lk = keyQuads ? 256 : lutEntries(c.key.quant, true);
  const int lv = valuesShareQuads ? 0 : lutEntries(c.value.quant, false);
  if (lk < 0 || lv < 0 || (lk + lv) * 128 > 36 * 1024)
    return 0;
  // A lane's slices: keys D/4 coordinates, values D/8, 2-byte aligned
  // (TcTensor's kSliceBytes, kRingShape); the step's raw registers
  // (TcPlan::kRawWords, slices in whole words) within TQ_TC_PREFETCH_WORDS,
  // or TQ_TC_RING_WORDS at head_dim <= 128.
  const int kSlice = c.headDim / 4 * c.key.quant.codeBits() / 8;
  const int vSlice = c.headDim / 8 * c.value.quant.codeBits() / 8;
  auto words = [](int bytes) { return (bytes + 3) / 4; };
  if (kSlice % 2 || vSlice % 2 ||
      2 * words(kSlice) + 4 * words(vSlice) + 6 >
          std::max(deviceDefineInt("TQ_TC_PREFETCH_WORDS", 28),
                   c.headDim <= 128 ? deviceDefineInt("TQ_TC_RING_WORDS", 30)
                                    : 0))
    return 0;
  // Slots of two steps (TcPlan::kRingSlots): stages rounded up to even.
  return (plan.stages + 1) / 2 * 2 * plan.warps * c.layout.headStride;
}

int extendProducerWarps(const KernelConfig &c) {
  if (!c.extendWgmma || !c.extend.present)
    return 0;
  // Measured on the H200 (bench/results/2026-12-03-session20-h200 run2,
  // run3: 4K new tokens over a 28K prefix, grouped units both ways): the
  // producer warpgroup wins where a key unit dequantizes by pair tables
  // or without tables (fp8): k3v4 6246 -> 5711 us, k3v3 6248 -> 5717, k2v2
  // 6130 -> 5538, k8v4 6598 -> 6184. With a table lookup per coordinate
  // (4-bit Lloyd-Max keys when the pair tables stopped at 3 bits) its one
  // warpgroup could not keep up with the consumers (k4v4 6290 -> 7364);
  // on 4-bit pair tables it does (session 21 run1: k4v4 in step 6288,
  // producer 5878). TQ_EXTEND_PRODUCER_WARPS (0 or 4) overrides; the rule
  // follows extend.h's TQ_EXTEND_PAIR_TABLE_BITS (UnitLut: Lloyd-Max codes
  // up to that many bits take pair tables; default 4).
  const int pairTableBits = deviceDefineInt("TQ_EXTEND_PAIR_TABLE_BITS", 4);
  const bool keyLookupPerCoordinate =
      c.key.quant.kind == QuantKind::LloydMax &&
      c.key.quant.codeBits() > pairTableBits;
  return checkedKnob(
      "TQ_EXTEND_PRODUCER_WARPS", keyLookupPerCoordinate ? 0 : 4,
      [](int n) { return n == 0 || n == 4; },
      "is not 0 or 4 (one producer warpgroup)", 0,
      "the extend runs without one");
}

int extendUnitGroup() {
  // Measured (run1, run3 of bench/results/2026-12-03-session20-h200): 4
  // units per thread took the in-step kernel over a 28K prefix from 6714
  // to 6246 us (k3v4), 6755 to 6290 (k4v4). TQ_EXTEND_UNIT_GROUP (1 or 4)
  // overrides.
  return checkedKnob(
      "TQ_EXTEND_UNIT_GROUP", 4, [](int n) { return n == 1 || n == 4; },
      "is not 1 or 4", 4, "the extend groups 4 units");
}

std::vector<KernelEntry> kernelEntries(const KernelConfig &c) {
  const bool programmatic = archHasProgrammaticLaunch(c.arch);
  std::vector<KernelEntry> out;
  for (const char *dtype : {"bf16", "f16"}) {
    auto add = [&](const char *kind, const std::string &irName,
                   const char *args, const LaunchConfig &plan, int index,
                   const char *function, const std::string &spec,
                   const char *warpsMember) {
      KernelEntry e;
      e.kind = kind;
      e.dtype = dtype;
      e.name = irName + "_" + dtype;
      e.symbol = "tq_" + e.name;
      e.args = args;
      e.blockThreads = int(plan.warps * 32);
      e.grid = plan.grid;
      e.plan = index;
      e.function = function;
      e.spec = spec;
      e.warpsMember = warpsMember;
      // decode.h waits for its predecessor (griddepcontrol.wait) first;
      // extend.h's attention before it reads what its predecessor, the
      // prep, wrote (first thing when launched without one); the store
      // and the prep do not wait, so they launch plainly.
      e.programmaticLaunch =
          programmatic && (e.kind == "decode" || e.kind == "extend");
      out.push_back(e);
      return &out.back();
    };
    KernelEntry *store = add("store", "store", "tq_store_args", c.store, -1,
                             "store", "TqSpec", "kStoreWarps");
    if (storeTileTokens() > 1) {
      store->grid = {"token_tiles", "1", "1"};
      store->tileTokens = storeTileTokens();
    }
    for (auto [i, p] : llvm::enumerate(c.plans))
      add("decode", p.decodeName, "tq_decode_args", p.decode, int(i),
          "decode", specName(p), "kWarps")
          ->dynamicSharedBytes = decodeRingBytes(c, p.decode);
    if (c.extend.present) {
      // One tq.kernel extend, two entry points: the chunk into the
      // workspace (and, when asked, the cache) in tiles of rows, then the
      // attention.
      LaunchConfig prep;
      prep.warps = extendPrepWarps();
      prep.grid = {"token_tiles", "1", "1"};
      add("extend_prep", "extend_prep", "tq_extend_args", prep, -1,
          "extendPrep", kExtendSpec, "kExtendPrepWarps")
          ->tileTokens = extendPrepTileTokens();
      KernelEntry *ext = add("extend", "extend", "tq_extend_args", c.extend,
                             -1, "extend", kExtendSpec, "kExtendCtaWarps");
      ext->blockThreads =
          int(c.extend.warps + extendProducerWarps(c)) * 32;
      ext->tileTokens = c.extendTileTokens();
      // Measured on sm_90 only: elsewhere the cap spills (sm_86/89, G = 8).
      // The warpgroup-mma kernel holds a 64 x head_dim fp32 accumulator per
      // warpgroup: two warpgroups take a whole SM, one shares it with a
      // second CTA (whose softmax then overlaps this one's wgmma).
      ext->minBlocks = c.extendWgmma ? (c.extend.warps == 4 ? 2 : 1)
                       : cudaArchNumber(c.arch) >= 90 ? kExtendMinBlocks
                                                      : 0;
      if (c.extendWgmma)
        ext->dynamicSharedBytes = extendWgmmaSharedBytes(c);
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>>
deviceDefinesFromEnv(std::string &error) {
  std::vector<std::pair<std::string, std::string>> out;
  const char *env = std::getenv("TQC_DEVICE_DEFINES");
  if (!env)
    return out;
  auto word = [](char ch, bool value) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' ||
           (value && (ch == '.' || ch == '+' || ch == '-'));
  };
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(env).split(items, ' ', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef item : items) {
    auto [name, value] = item.split('=');
    bool ok = name.starts_with("TQ_") && !value.empty() &&
              llvm::all_of(name, [&](char ch) { return word(ch, false); }) &&
              llvm::all_of(value, [&](char ch) { return word(ch, true); });
    if (!ok) {
      error = "TQC_DEVICE_DEFINES entry '" + item.str() +
              "' is not accepted; accepted: space-separated NAME=VALUE with "
              "NAME a TQ_ identifier and VALUE of letters, digits, _ . + -";
      return {};
    }
    out.push_back({name.str(), value.str()});
  }
  return out;
}

std::string emitCudaSource(const KernelConfig &c, const std::string &version) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const int d = c.headDim;
  os << "// tqc " << version << ": preset " << c.preset << ", head_dim " << d
     << ", " << c.numQHeads << "/" << c.numKVHeads << " heads, block size "
     << c.blockSize << ", " << c.arch << " (generated; do not edit)\n";
  std::string defineError;
  auto defines = deviceDefinesFromEnv(defineError);
  if (!defineError.empty())
    os << "#error \"" << defineError << "\"\n";
  for (const auto &[name, value] : defines)
    os << "#define " << name << " " << value
       << " // TQC_DEVICE_DEFINES (developer override)\n";
  os
     << "#include \"tq/" << (isAmdArch(c.arch) ? "target_hip.h" : "target_cuda.h")
     << "\"\n"
     << "#include \"tq/spec_constants.h\"\n"
     << "#include \"tq/abi.h\"\n\n";

  os << "// Specialization constants.\n";
  emitTensorConstants(os, c.key, "key", d);
  emitTensorConstants(os, c.value, "value", d);
  if (c.key.quant.qjl) {
    std::shared_ptr<const QjlSketch> s = sharedSketch(d, c.key.quant.qjlSeed);
    std::vector<std::string> items;
    items.reserve(s->matrix().size());
    for (float v : s->matrix())
      items.push_back(floatLiteral(v));
    os << "// QJL sketch S (row-major, " << d << "x" << d << ", seed 0x"
       << llvm::format_hex_no_prefix(c.key.quant.qjlSeed, 16) << ").\n";
    emitArray(os, "__device__ const float __align__(16)", "tq_qjl_matrix",
              items, 8);
  }

  os << "\nstruct TqSpec {\n"
     << "  static constexpr int kHeadDim = " << d
     << ", kNumQHeads = " << c.numQHeads << ", kNumKVHeads = " << c.numKVHeads
     << ", kBlockSize = " << c.blockSize << ";\n";
  emitTensorSpec(os, c.key, "Key");
  emitTensorSpec(os, c.value, "Value");
  os << "  // The vLLM layout's encoding rules (FORMATS.md): norm corrected at "
        "read, fp32 store math, uniform codes from the unrounded scale.\n"
     << "  static constexpr bool kVllmNumerics = "
     << (c.layout.kind == LayoutKind::VLLM ? "true" : "false") << ";\n";
  os << "  // Field f of (block, pos, head): block * kBlockStride + head * "
        "kHeadStride + kF_Offset + pos * kF_Stride.\n"
     << "  static constexpr long long kBlockStride = " << c.layout.blockStride
     << ", kHeadStride = " << c.layout.headStride << ";\n";
  emitField(os, c.layout, FieldKind::KeyCodes, "KeyCodes");
  emitField(os, c.layout, FieldKind::KeySigns, "KeySigns");
  emitField(os, c.layout, FieldKind::KeyScale, "KeyScale");
  emitField(os, c.layout, FieldKind::KeyGamma, "KeyGamma");
  emitField(os, c.layout, FieldKind::KeyZero, "KeyZero");
  emitField(os, c.layout, FieldKind::ValueCodes, "ValueCodes");
  emitField(os, c.layout, FieldKind::ValueScale, "ValueScale");
  emitField(os, c.layout, FieldKind::ValueZero, "ValueZero");
  // The store's constants; each decode plan below derives from TqSpec.
  const LaunchConfig &first = c.plans.front().decode;
  os << "  // Launch plan (tq-plan-launch); decode plans override it below.\n"
     << "  static constexpr int kBlockN = " << first.blockN
     << ", kSplits = " << first.splits << ", kWarps = " << first.warps
     << ", kHeadsPerCta = " << first.headsPerCta << ";\n"
     << "  static constexpr int kStages = 2;\n"
     << "  static constexpr long long kDynamicSharedBytes = 0;\n"
     << "  static constexpr int kStoreWarps = " << c.store.warps
     << ", kStoreTileTokens = " << storeTileTokens() << ";\n"
     << "  // SMs the plans are for (tq.sm_count): caps a batch's splits.\n"
     << "  static constexpr int kSmCount = " << c.smCount << ";\n";
  auto accessor = [&](const char *type, const char *fn, bool present,
                      const char *array) {
    os << "  __device__ static const " << type << " *" << fn << "() { return "
       << (present ? array : "nullptr") << "; }\n";
  };
  // Level i of a codebook and word i of the sign masks as constant
  // expressions: the decode fills its pair tables from immediates (a select
  // per level) and takes its query rotation's and final inverse rotation's
  // sign bits from them, so neither waits on a cold constant-memory load
  // (a DRAM round trip on the short-context critical path).
  if (c.key.quant.kind == QuantKind::LloydMax)
    emitSelectFn(os, "double", "keyLevel", levelLiterals(c.key));
  if (c.value.quant.kind == QuantKind::LloydMax)
    emitSelectFn(os, "double", "valueLevel", levelLiterals(c.value));
  if (isRotated(c.key))
    emitSelectFn(os, "uint32_t", "keySignWord", signWordLiterals(c.key, d));
  if (isRotated(c.value))
    emitSelectFn(os, "uint32_t", "valueSignWord", signWordLiterals(c.value, d));
  accessor("double", "keyLevels", c.key.quant.kind == QuantKind::LloydMax,
           "tq_key_levels");
  accessor("double", "valueLevels", c.value.quant.kind == QuantKind::LloydMax,
           "tq_value_levels");
  accessor("uint32_t", "keySigns", isRotated(c.key), "tq_key_signs");
  accessor("uint32_t", "valueSigns", isRotated(c.value), "tq_value_signs");
  accessor("float", "qjlMatrix", c.key.quant.qjl, "tq_qjl_matrix");
  os << "};\n\n";
  for (const PlanConfig &p : c.plans) {
    os << "// Plan " << specName(p) << ": batch buckets";
    for (int64_t b : p.buckets)
      os << " " << b;
    os << ".\nstruct " << specName(p) << " : TqSpec {\n"
       << "  static constexpr int kBlockN = " << p.decode.blockN
       << ", kSplits = " << p.decode.splits << ", kWarps = " << p.decode.warps
       << ", kHeadsPerCta = " << p.decode.headsPerCta << ";\n"
       << "  static constexpr int kStages = " << p.decode.stages << ";\n"
       << "  // The launch's dynamic shared memory (the decode's copy ring).\n"
       << "  static constexpr long long kDynamicSharedBytes = "
       << decodeRingBytes(c, p.decode) << ";\n};\n";
  }
  if (!c.extend.present)
    os << "// extend: not in this bundle (" << c.extendNote << ")\n";
  const int producerWarps = extendProducerWarps(c);
  if (c.extend.present)
    os << "// Extend plan (tq-plan-launch), for every bucket: "
       << c.extendTileTokens() << " chunk tokens x " << c.gqaRatio()
       << " query heads per CTA.\nstruct " << kExtendSpec
       << " : TqSpec {\n  static constexpr int kExtendBlockN = "
       << c.extend.blockN << ", kExtendWarps = " << c.extend.warps
       << ", kExtendPrepWarps = " << extendPrepWarps()
       << ", kExtendPrepTileTokens = " << extendPrepTileTokens() << ";\n"
       << "  // Hopper warpgroup mma (extend_wgmma.h) or warp mma.sync.\n"
       << "  static constexpr bool kExtendWgmma = "
       << (c.extendWgmma ? "true" : "false") << ";\n"
       << "  // Its producer warps (warp specialization) and all its warps.\n"
       << "  static constexpr int kExtendProducerWarps = " << producerWarps
       << ", kExtendCtaWarps = " << c.extend.warps + producerWarps << ";\n"
       << "  // Prefix units per thread (1 where the layout's code words do "
          "not allow 4).\n"
       << "  static constexpr int kExtendUnitGroup = " << extendUnitGroup()
       << ";\n};\n";
  os << "\n#include \"tq/store.h\"\n"
     << "#include \"tq/decode.h\"\n";
  if (c.extend.present)
    os << "#include \"tq/extend.h\"\n";
  os << "\n";

  // Developer knobs (TQC_DEVICE_DEFINES): a register cap for the decode
  // and store kernels, as the resident warps per SM it must allow.
  const int decodeMinWarps = deviceDefineInt("TQ_DECODE_MIN_WARPS_PER_SM", 0);
  const int storeMinWarps = deviceDefineInt("TQ_STORE_MIN_WARPS_PER_SM", 0);
  for (const KernelEntry &e : kernelEntries(c)) {
    const char *type = e.dtype == "bf16" ? "tq::bf16_t" : "tq::f16_t";
    int minBlocks = e.minBlocks;
    if (e.kind == "decode" && decodeMinWarps > 0 && e.plan >= 0)
      minBlocks = decodeMinWarps / int(c.plans[e.plan].decode.warps);
    if (e.kind == "store" && storeMinWarps > 0)
      minBlocks = storeMinWarps / int(c.store.warps);
    os << "extern \"C\" __global__ void __launch_bounds__(" << e.spec
       << "::" << e.warpsMember << " * 32"
       << (minBlocks > 1 ? ", " + std::to_string(minBlocks) : "")
       << ")\n"
       << e.symbol << "(const " << e.args << " a) { tq::" << e.function
       << "<" << e.spec << ", " << type << ">(a); }\n";
  }
  return text;
}

} // namespace tqc
