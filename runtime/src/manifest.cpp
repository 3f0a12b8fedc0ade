//===- manifest.cpp - Reading and validating manifest.json ---------------===//
//
// The contract is docs/MANIFEST.md (schema version 1). Unknown members are
// ignored (the compiler may add information, e.g. register counts), and so
// are kernels of a kind this runtime does not launch; everything the runtime
// uses is required and cross-checked against the rest of the manifest and
// against abi.h, so a bundle that would launch wrongly is refused at load.
//
//===----------------------------------------------------------------------===//
#include "manifest.h"

#include "error.h"
#include "json.h"
#include "tq/abi.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace tqrt {

using json::Type;
using json::Value;

namespace {

const char *const kGridNames[kNumGridNames] = {
    "max_batch", "max_tokens", "num_q_heads", "num_kv_heads", "head_groups",
    "splits"};

const char *const kKindNames[kNumKinds] = {"store", "decode", "combine"};
const char *const kArgsNames[kNumKinds] = {"tq_store_args", "tq_decode_args",
                                           "tq_decode_args"};
const size_t kArgsSizes[kNumKinds] = {sizeof(tq_store_args),
                                      sizeof(tq_decode_args),
                                      sizeof(tq_decode_args)};
const char *const kDtypeNames[kNumDtypes] = {"bf16", "fp16"};

std::string position(const std::string &source, const Value &v) {
  return source + ":" + std::to_string(v.line) + ":" +
         std::to_string(v.column);
}

// Field access with the dotted path in every message.
class Reader {
public:
  explicit Reader(const std::string &source) : source_(source) {}

  [[noreturn]] void bad(const Value &v, const std::string &path,
                        const std::string &expected) const {
    fail(TQRT_BAD_BUNDLE, position(source_, v) + ": '" + path + "' must be " +
                              expected + ", got " + json::describe(v));
  }
  [[noreturn]] void inconsistent(const Value &v, const std::string &what) const {
    fail(TQRT_BAD_BUNDLE, position(source_, v) + ": " + what);
  }

  const Value &member(const Value &obj, const std::string &path,
                      const char *key, const char *expected) const {
    const Value *m = obj.find(key);
    if (!m)
      fail(TQRT_BAD_BUNDLE, source_ + ": missing field '" + join(path, key) +
                                "' (" + expected + ")");
    return *m;
  }

  const Value &object(const Value &obj, const std::string &path,
                      const char *key) const {
    const Value &v = member(obj, path, key, "an object");
    if (v.type != Type::Object)
      bad(v, join(path, key), "an object");
    return v;
  }

  const Value &array(const Value &obj, const std::string &path,
                     const char *key, const char *expected) const {
    const Value &v = member(obj, path, key, expected);
    if (v.type != Type::Array)
      bad(v, join(path, key), expected);
    return v;
  }

  std::string string(const Value &obj, const std::string &path,
                     const char *key) const {
    const Value &v = member(obj, path, key, "a string");
    if (v.type != Type::String || v.string.empty())
      bad(v, join(path, key), "a non-empty string");
    return v.string;
  }

  std::string optionalString(const Value &obj, const std::string &path,
                             const char *key) const {
    const Value *v = obj.find(key);
    if (!v)
      return {};
    if (v->type != Type::String)
      bad(*v, join(path, key), "a string");
    return v->string;
  }

  int64_t integer(const Value &v, const std::string &path, int64_t min,
                  int64_t max) const {
    if (v.type != Type::Number || !v.isInteger || v.integer < min ||
        v.integer > max)
      bad(v, path, rangeText(min, max));
    return v.integer;
  }

  int64_t integer(const Value &obj, const std::string &path, const char *key,
                  int64_t min, int64_t max) const {
    std::string expected = rangeText(min, max);
    return integer(member(obj, path, key, expected.c_str()), join(path, key),
                   min, max);
  }

  double number(const Value &obj, const std::string &path,
                const char *key) const {
    const Value &v = member(obj, path, key, "a number");
    if (v.type != Type::Number)
      bad(v, join(path, key), "a number");
    return v.number;
  }

  static std::string join(const std::string &path, const char *key) {
    return path.empty() ? std::string(key) : path + "." + key;
  }

private:
  const std::string &source_;

  static std::string rangeText(int64_t min, int64_t max) {
    // Limits far beyond any real value only guard arithmetic; not worth
    // printing.
    if (min == 1 && max >= std::numeric_limits<int32_t>::max())
      return "a positive integer";
    if (min == 0 && max >= std::numeric_limits<int32_t>::max())
      return "a non-negative integer";
    return "an integer in [" + std::to_string(min) + ", " +
           std::to_string(max) + "]";
  }
};

constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxI32 = std::numeric_limits<int32_t>::max();

// A file name inside the bundle directory: no directories, so a manifest
// cannot make the loader read files elsewhere.
bool plainFileName(const std::string &s) {
  return !s.empty() && s.find('/') == std::string::npos &&
         s.find('\\') == std::string::npos && s != "." && s != "..";
}

void readVersions(const Reader &r, const Value &root, Manifest &m) {
  // Checked before anything else: a newer schema may have other fields, and
  // "unsupported version" is the useful message then, not "missing field".
  const Value &schema = r.member(root, "", "schema", "\"" TQRT_SCHEMA "\"");
  if (schema.type != Type::String)
    r.bad(schema, "schema", "the string \"" TQRT_SCHEMA "\"");
  if (schema.string != TQRT_SCHEMA)
    fail(TQRT_UNSUPPORTED_VERSION,
         position(m.source, schema) + ": unknown schema \"" + schema.string +
             "\" (this runtime reads \"" TQRT_SCHEMA "\")");
  const Value &sv = r.member(root, "", "schema_version", "an integer");
  if (sv.type != Type::Number || !sv.isInteger)
    r.bad(sv, "schema_version", "an integer");
  if (sv.integer != TQRT_SCHEMA_VERSION)
    fail(TQRT_UNSUPPORTED_VERSION,
         position(m.source, sv) + ": schema_version " +
             std::to_string(sv.integer) + " is not supported (this runtime "
             "reads schema_version " + std::to_string(TQRT_SCHEMA_VERSION) +
             ")");
  const Value &av = r.member(root, "", "abi_version", "an integer");
  if (av.type != Type::Number || !av.isInteger)
    r.bad(av, "abi_version", "an integer");
  if (av.integer != TQ_ABI_VERSION)
    fail(TQRT_UNSUPPORTED_VERSION,
         position(m.source, av) + ": abi_version " +
             std::to_string(av.integer) + " is not supported (this runtime "
             "was built with abi.h version " + std::to_string(TQ_ABI_VERSION) +
             ")");
  m.schemaVersion = static_cast<int>(sv.integer);
  m.abiVersion = static_cast<int>(av.integer);
}

void readGenerator(const Reader &r, const Value &root, Manifest &m) {
  const Value *g = root.find("generator");
  if (!g)
    return;
  if (g->type != Type::Object)
    r.bad(*g, "generator", "an object");
  if (const Value *t = g->find("tqc"); t && t->type == Type::String)
    m.generator = "tqc " + t->string;
}

void readTarget(const Reader &r, const Value &root, Manifest &m) {
  const Value &t = r.object(root, "", "target");
  const Value &archV = r.member(t, "target", "arch", "a string");
  if (archV.type != Type::String || !parseArch(archV.string, m.arch) ||
      archV.string.rfind("compute_", 0) == 0)
    r.bad(archV, "target.arch",
          "an arch such as \"sm_90\", \"sm_90a\", \"sm_100a\" or \"gfx942\"");
  m.vendor = r.string(t, "target", "vendor");
  const char *expectedVendor = m.arch.nvidia ? "nvidia" : "amd";
  if (m.vendor != expectedVendor)
    r.inconsistent(*t.find("vendor"),
                   "'target.vendor' is \"" + m.vendor + "\" but arch " +
                       m.arch.text + " is " + expectedVendor + "'s");
  m.imageFile = r.string(t, "target", "image");
  if (!plainFileName(m.imageFile))
    r.bad(*t.find("image"), "target.image",
          "a file name inside the bundle directory");
  m.ptxFile = r.optionalString(t, "target", "ptx");
  if (t.find("ptx") && !plainFileName(m.ptxFile))
    r.bad(*t.find("ptx"), "target.ptx",
          "a file name inside the bundle directory");
}

void readSpec(const Reader &r, const Value &root, Manifest &m) {
  const Value &s = r.object(root, "", "spec");
  m.preset = r.optionalString(s, "spec", "preset");
  m.headDim = static_cast<int>(r.integer(s, "spec", "head_dim", 1, 4096));
  m.numQHeads = static_cast<int>(r.integer(s, "spec", "num_q_heads", 1, 65535));
  m.numKVHeads =
      static_cast<int>(r.integer(s, "spec", "num_kv_heads", 1, 65535));
  m.blockSize = static_cast<int>(r.integer(s, "spec", "block_size", 1, 65536));
  if (m.numQHeads % m.numKVHeads != 0)
    r.inconsistent(*s.find("num_q_heads"),
                   "'spec.num_q_heads' (" + std::to_string(m.numQHeads) +
                       ") is not a multiple of 'spec.num_kv_heads' (" +
                       std::to_string(m.numKVHeads) + ")");
  if (const Value *g = s.find("gqa_ratio")) {
    int64_t ratio = r.integer(*g, "spec.gqa_ratio", 1, 65535);
    if (ratio != m.numQHeads / m.numKVHeads)
      r.inconsistent(*g, "'spec.gqa_ratio' is " + std::to_string(ratio) +
                             " but num_q_heads / num_kv_heads is " +
                             std::to_string(m.numQHeads / m.numKVHeads));
  }
  double scale = r.number(s, "spec", "softmax_scale");
  if (!(scale > 0) || !std::isfinite(scale) || scale > 3.0e38)
    r.bad(*s.find("softmax_scale"), "spec.softmax_scale",
          "a positive finite number");
  m.softmaxScale = static_cast<float>(scale);
}

void readLayout(const Reader &r, const Value &root, Manifest &m) {
  const Value &l = r.object(root, "", "layout");
  const Value &kindV = r.member(l, "layout", "kind", "\"native\" or \"vllm\"");
  if (kindV.type != Type::String ||
      (kindV.string != "native" && kindV.string != "vllm"))
    r.bad(kindV, "layout.kind", "\"native\" or \"vllm\"");
  m.layoutKind = kindV.string;
  const Value &dtypeV = r.member(l, "layout", "dtype", "\"uint8\"");
  if (dtypeV.type != Type::String || dtypeV.string != "uint8")
    r.bad(dtypeV, "layout.dtype", "\"uint8\"");
  m.layoutDtype = dtypeV.string;

  const bool native = m.layoutKind == "native";
  const char *shapeText =
      native ? "[\"num_blocks\", num_kv_heads, region_bytes]"
             : "[\"num_blocks\", block_size, num_kv_heads, slot_bytes]";
  const Value &shape = r.array(l, "layout", "shape", shapeText);
  const size_t rank = native ? 3 : 4;
  if (shape.items.size() != rank)
    r.bad(shape, "layout.shape",
          std::string("an array of ") + std::to_string(rank) + " for a " +
              m.layoutKind + " layout: " + shapeText);
  if (shape.items[0].type != Type::String ||
      shape.items[0].string != "num_blocks")
    r.bad(shape.items[0], "layout.shape[0]", "\"num_blocks\"");
  m.shape.assign(1, -1);
  for (size_t i = 1; i < rank; ++i)
    m.shape.push_back(r.integer(shape.items[i],
                                "layout.shape[" + std::to_string(i) + "]", 1,
                                kMaxI32));

  m.blockStride = r.integer(l, "layout", "block_stride", 1, kMaxI64 / 2);
  m.headStride = r.integer(l, "layout", "head_stride", 1, kMaxI64 / 2);
  m.regionBytes = r.integer(l, "layout", "region_bytes", 1, kMaxI64 / 2);
  m.bytesPerTokenHead =
      r.integer(l, "layout", "bytes_per_token_head", 1, kMaxI64 / 2);
  m.alignment = r.integer(l, "layout", "alignment", 1, 4096);
  if (m.alignment & (m.alignment - 1))
    r.bad(*l.find("alignment"), "layout.alignment", "a power of two");

  // The shape must be the geometry the spec and strides describe.
  const int64_t slotOrRegion = m.shape[rank - 1];
  bool shapeOk = native ? (m.shape[1] == m.numKVHeads)
                        : (m.shape[1] == m.blockSize &&
                           m.shape[2] == m.numKVHeads);
  if (!shapeOk)
    r.inconsistent(shape, std::string("'layout.shape' disagrees with spec "
                                      "(num_kv_heads ") +
                              std::to_string(m.numKVHeads) + ", block_size " +
                              std::to_string(m.blockSize) + "); expected " +
                              shapeText);
  int64_t product = 1;
  for (size_t i = 1; i < rank; ++i)
    product *= m.shape[i]; // each <= 2^31 and rank <= 4: products of 3 fit
  if (product != m.blockStride)
    r.inconsistent(*l.find("block_stride"),
                   "'layout.block_stride' is " + std::to_string(m.blockStride) +
                       " but the shape's block holds " +
                       std::to_string(product) + " bytes");
  if (slotOrRegion != m.regionBytes)
    r.inconsistent(*l.find("region_bytes"),
                   "'layout.region_bytes' is " + std::to_string(m.regionBytes) +
                       " but the shape's last extent is " +
                       std::to_string(slotOrRegion));
  if (m.headStride != m.regionBytes)
    r.inconsistent(*l.find("head_stride"),
                   "'layout.head_stride' is " + std::to_string(m.headStride) +
                       " but a " + m.layoutKind + " layout's is region_bytes (" +
                       std::to_string(m.regionBytes) + ")");
  const int64_t perBlockHead = int64_t(m.blockSize) * m.numKVHeads;
  if (m.blockStride % perBlockHead != 0 ||
      m.blockStride / perBlockHead != m.bytesPerTokenHead)
    r.inconsistent(*l.find("bytes_per_token_head"),
                   "'layout.bytes_per_token_head' is " +
                       std::to_string(m.bytesPerTokenHead) +
                       " but block_stride / (block_size * num_kv_heads) is " +
                       std::to_string(m.blockStride) + " / " +
                       std::to_string(perBlockHead));
  if (m.blockStride % m.alignment != 0)
    r.inconsistent(*l.find("block_stride"),
                   "'layout.block_stride' (" + std::to_string(m.blockStride) +
                       ") is not a multiple of 'layout.alignment' (" +
                       std::to_string(m.alignment) + ")");

  const Value &fields = r.array(l, "layout", "fields", "an array of fields");
  if (fields.items.empty())
    r.bad(fields, "layout.fields", "a non-empty array of fields");
  for (size_t i = 0; i < fields.items.size(); ++i) {
    const Value &f = fields.items[i];
    std::string path = "layout.fields[" + std::to_string(i) + "]";
    if (f.type != Type::Object)
      r.bad(f, path, "an object");
    FieldDesc d;
    d.name = r.string(f, path, "name");
    d.dtype = r.string(f, path, "dtype");
    d.bytes = r.integer(f, path, "bytes", 1, kMaxI32);
    d.offset = r.integer(f, path, "offset", 0, kMaxI32);
    d.tokenStride = r.integer(f, path, "token_stride", 0, kMaxI32);
    // The last byte this field touches in a block (largest head, position).
    int64_t end = (m.numKVHeads - 1) * m.headStride + d.offset +
                  (m.blockSize - 1) * d.tokenStride + d.bytes;
    if (end > m.blockStride)
      r.inconsistent(f, "field '" + d.name + "' (" + path + ") reaches byte " +
                            std::to_string(end) + " of a " +
                            std::to_string(m.blockStride) + "-byte block");
    m.fields.push_back(std::move(d));
  }
}

void readPlan(const Reader &r, const Value &root, Manifest &m) {
  const Value &p = r.object(root, "", "plan");
  m.splits = static_cast<int>(r.integer(p, "plan", "splits", 1, 65535));
  m.headsPerCta =
      static_cast<int>(r.integer(p, "plan", "heads_per_cta", 1, 65535));
  m.blockN = static_cast<int>(r.integer(p, "plan", "block_n", 1, kMaxI32));
  m.warps = static_cast<int>(r.integer(p, "plan", "warps", 1, 32));
  if (m.numQHeads % m.headsPerCta != 0)
    r.inconsistent(*p.find("heads_per_cta"),
                   "'plan.heads_per_cta' (" + std::to_string(m.headsPerCta) +
                       ") does not divide num_q_heads (" +
                       std::to_string(m.numQHeads) + ")");

  const Value &w = r.object(root, "", "workspace");
  int64_t expected =
      TQ_WORKSPACE_FLOATS(1, m.numQHeads, m.splits, m.headDim);
  const Value &fv = r.member(w, "workspace", "floats_per_batch_row",
                             "a non-negative integer");
  m.floatsPerBatchRow = r.integer(fv, "workspace.floats_per_batch_row", 0,
                                  kMaxI64 / 2);
  if (m.floatsPerBatchRow != expected && !(m.splits == 1 && m.floatsPerBatchRow == 0))
    r.inconsistent(fv, "'workspace.floats_per_batch_row' is " +
                           std::to_string(m.floatsPerBatchRow) +
                           " but num_q_heads * splits * (head_dim + 2) is " +
                           std::to_string(expected));
  m.floatsPerBatchRow = expected;
}

void readKernels(const Reader &r, const Value &root, Manifest &m) {
  for (auto &row : m.kernelIndex)
    for (int &i : row)
      i = -1;
  const Value &ks = r.array(root, "", "kernels", "an array of kernels");
  for (size_t i = 0; i < ks.items.size(); ++i) {
    const Value &k = ks.items[i];
    std::string path = "kernels[" + std::to_string(i) + "]";
    if (k.type != Type::Object)
      r.bad(k, path, "an object");
    KernelDesc d;
    d.name = r.string(k, path, "name");
    std::string kind = r.string(k, path, "kind");
    d.kind = -1;
    for (int j = 0; j < kNumKinds; ++j)
      if (kind == kKindNames[j])
        d.kind = j;
    if (d.kind < 0)
      continue; // a kind a later runtime launches (e.g. extend): not ours
    const Value &dt = r.member(k, path, "dtype", "\"bf16\" or \"fp16\"");
    d.dtype = -1;
    if (dt.type == Type::String) {
      if (dt.string == "bf16")
        d.dtype = 0;
      // "f16" is the spelling of the kernels' symbols and of layout field
      // dtypes (numerics/), "fp16" that of the runtime's API: take both.
      else if (dt.string == "fp16" || dt.string == "f16")
        d.dtype = 1;
    }
    if (d.dtype < 0)
      r.bad(dt, path + ".dtype", "\"bf16\" or \"fp16\"");
    d.symbol = r.string(k, path, "symbol");
    d.args = r.string(k, path, "args");
    if (d.args != kArgsNames[d.kind])
      r.bad(*k.find("args"), path + ".args",
            std::string("\"") + kArgsNames[d.kind] + "\" for a " + kind +
                " kernel");
    d.argsBytes = r.integer(k, path, "args_bytes", 1, 4096);
    if (d.argsBytes != static_cast<int64_t>(kArgsSizes[d.kind]))
      r.inconsistent(*k.find("args_bytes"),
                     "'" + path + ".args_bytes' is " +
                         std::to_string(d.argsBytes) + " but this runtime's " +
                         kArgsNames[d.kind] + " (templates/tq/abi.h) is " +
                         std::to_string(kArgsSizes[d.kind]) + " bytes");
    const Value &block = r.array(k, path, "block", "an array of 3 integers");
    if (block.items.size() != 3)
      r.bad(block, path + ".block", "an array of 3 positive integers");
    int64_t threads = 1;
    for (int j = 0; j < 3; ++j) {
      d.block[j] = static_cast<uint32_t>(
          r.integer(block.items[j], path + ".block[" + std::to_string(j) + "]",
                    1, 1024));
      threads *= d.block[j];
    }
    if (threads > 1024)
      r.inconsistent(block, "'" + path + ".block' has " +
                                std::to_string(threads) +
                                " threads; a CUDA block has at most 1024");
    // tqc writes nvJitLink's static shared memory here; the templates use
    // no dynamic shared memory, so launches pass dynamic_shared_bytes
    // (absent: 0), never this number.
    d.staticSharedBytes = static_cast<uint32_t>(
        r.integer(k, path, "shared_bytes", 0, 1 << 30));
    if (const Value *dyn = k.find("dynamic_shared_bytes"))
      d.dynamicSharedBytes = static_cast<uint32_t>(
          r.integer(*dyn, path + ".dynamic_shared_bytes", 0, 1 << 30));
    const Value &grid = r.array(k, path, "grid", "an array of 3 strings");
    if (grid.items.size() != 3)
      r.bad(grid, path + ".grid", "an array of 3 extents such as \"max_batch\"");
    for (int j = 0; j < 3; ++j) {
      const Value &g = grid.items[j];
      std::string gp = path + ".grid[" + std::to_string(j) + "]";
      if (g.type != Type::String)
        r.bad(g, gp, "a string such as \"max_batch\" or \"num_q_heads*2\"");
      d.grid[j] = parseGridExpr(g.string, position(m.source, g) + ": '" + gp + "'");
    }
    int &slot = m.kernelIndex[d.kind][d.dtype];
    if (slot >= 0)
      r.inconsistent(k, "'" + path + "' is a second " + kind + " kernel for " +
                            kDtypeNames[d.dtype] + " (the first is '" +
                            m.kernels[slot].name + "')");
    slot = static_cast<int>(m.kernels.size());
    m.kernels.push_back(std::move(d));
  }

  // Every dtype with any kernel needs the complete set.
  bool any = false;
  for (int dt = 0; dt < kNumDtypes; ++dt) {
    bool present = false;
    for (int kind = 0; kind < kNumKinds; ++kind)
      present |= m.kernelIndex[kind][dt] >= 0;
    if (!present)
      continue;
    any = true;
    for (int kind = 0; kind < kNumKinds; ++kind) {
      bool wanted = kind != TQRT_KERNEL_COMBINE || m.splits > 1;
      bool have = m.kernelIndex[kind][dt] >= 0;
      if (wanted && !have)
        fail(TQRT_BAD_BUNDLE,
             m.source + ": 'kernels' has no " + kKindNames[kind] +
                 " kernel for " + kDtypeNames[dt] +
                 (kind == TQRT_KERNEL_COMBINE
                      ? " (plan.splits is " + std::to_string(m.splits) +
                            ", so decode writes partials that combine reduces)"
                      : std::string()));
      if (!wanted && have)
        fail(TQRT_BAD_BUNDLE,
             m.source + ": 'kernels' has a combine kernel for " +
                 kDtypeNames[dt] +
                 " but plan.splits is 1 (decode writes the output itself)");
    }
  }
  if (!any)
    fail(TQRT_BAD_BUNDLE, m.source + ": 'kernels' has no store, decode or "
                                     "combine kernel");
}

} // namespace

const char *kindName(int kind) {
  return kind >= 0 && kind < kNumKinds ? kKindNames[kind] : "?";
}
const char *dtypeName(int dtypeIndex) {
  return dtypeIndex >= 0 && dtypeIndex < kNumDtypes ? kDtypeNames[dtypeIndex]
                                                    : "?";
}

GridExpr parseGridExpr(std::string_view text, const std::string &where) {
  GridExpr e;
  e.text = std::string(text);
  auto accepted = [] {
    std::string s;
    for (const char *n : kGridNames)
      s += std::string(s.empty() ? "" : ", ") + n;
    return s;
  };
  if (text.empty())
    fail(TQRT_BAD_BUNDLE, where + " is empty; a grid extent is a '*'-joined "
                                  "product of positive integers and " +
                              accepted());
  size_t start = 0;
  for (;;) {
    size_t star = text.find('*', start);
    std::string_view factor = text.substr(
        start, star == std::string_view::npos ? std::string_view::npos
                                              : star - start);
    // Spaces around factors are tolerated ("max_batch * 2").
    while (!factor.empty() && factor.front() == ' ')
      factor.remove_prefix(1);
    while (!factor.empty() && factor.back() == ' ')
      factor.remove_suffix(1);
    if (factor.empty())
      fail(TQRT_BAD_BUNDLE, where + ": \"" + e.text + "\" has an empty factor");
    if (factor[0] >= '0' && factor[0] <= '9') {
      int64_t value = 0;
      for (char c : factor) {
        if (c < '0' || c > '9' || value > (int64_t(1) << 31))
          fail(TQRT_BAD_BUNDLE, where + ": \"" + std::string(factor) +
                                    "\" in \"" + e.text +
                                    "\" is not an integer below 2^31");
        value = value * 10 + (c - '0');
      }
      if (value == 0 || value > (int64_t(1) << 31))
        fail(TQRT_BAD_BUNDLE, where + ": literal " + std::string(factor) +
                                  " in \"" + e.text + "\" must be in [1, 2^31)");
      e.literal *= value;
      if (e.literal > (int64_t(1) << 31))
        fail(TQRT_BAD_BUNDLE, where + ": \"" + e.text + "\" exceeds 2^31");
    } else {
      int found = -1;
      for (int i = 0; i < kNumGridNames; ++i)
        if (factor == kGridNames[i])
          found = i;
      if (found < 0)
        fail(TQRT_BAD_BUNDLE,
             where + ": unknown name \"" + std::string(factor) + "\" in \"" +
                 e.text + "\" (a grid extent may use " + accepted() +
                 " and integer literals; never a sequence length)");
      e.names.push_back(static_cast<GridName>(found));
    }
    if (star == std::string_view::npos)
      break;
    start = star + 1;
  }
  return e;
}

bool parseArch(std::string_view text, Arch &arch) {
  arch = Arch();
  arch.text = std::string(text);
  std::string_view rest;
  if (text.rfind("sm_", 0) == 0)
    rest = text.substr(3);
  else if (text.rfind("compute_", 0) == 0)
    rest = text.substr(8);
  else if (text.rfind("gfx", 0) == 0 && text.size() > 3) {
    for (char c : text.substr(3))
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
        return false;
    arch.nvidia = false;
    return true;
  } else
    return false;
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    arch.suffix = rest.back();
    rest.remove_suffix(1);
  }
  if (rest.size() < 2 || rest.size() > 3 || rest[0] == '0')
    return false;
  int n = 0;
  for (char c : rest) {
    if (c < '0' || c > '9')
      return false;
    n = n * 10 + (c - '0');
  }
  arch.number = n;
  return true;
}

bool archRunsOn(const Arch &arch, int cc, bool binary) {
  if (!arch.nvidia)
    return false;
  const int major = arch.number / 10, ccMajor = cc / 10;
  // Arch-specific code ('a': wgmma, setmaxnreg, ...) runs on exactly that
  // compute capability, cubin or PTX.
  if (arch.suffix == 'a')
    return cc == arch.number;
  // Family-specific ('f') code runs on later minors of the same major.
  if (arch.suffix == 'f')
    return ccMajor == major && cc >= arch.number;
  // A cubin runs on its major's later minors; PTX JIT-compiles for any
  // later device.
  if (binary)
    return ccMajor == major && cc >= arch.number;
  return cc >= arch.number;
}

Manifest readManifest(std::string_view text, const std::string &source) {
  Manifest m;
  m.source = source;
  Value root = json::parse(text, source);
  Reader r(m.source);
  if (root.type != Type::Object)
    r.bad(root, "(top level)", "an object");
  readVersions(r, root, m);
  readGenerator(r, root, m);
  readTarget(r, root, m);
  readSpec(r, root, m);
  readLayout(r, root, m);
  readPlan(r, root, m);
  readKernels(r, root, m);
  return m;
}

} // namespace tqrt
