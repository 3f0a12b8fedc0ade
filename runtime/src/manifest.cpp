//===- manifest.cpp - Reading and validating manifest.json ---------------===//
//
// The contract is docs/MANIFEST.md (schema version 2). Unknown members are
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

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

namespace tqrt {

using json::Type;
using json::Value;

namespace {

const char *const kGridNames[kNumGridNames] = {
    "max_batch", "max_tokens", "num_q_heads", "num_kv_heads", "head_groups",
    "splits", "query_tiles", "token_tiles"};

// Indexed by tqrt_kernel_kind.
const char *const kKindNames[kNumKinds] = {"store", "decode", "extend_prep",
                                           "extend"};
const char *const kArgsNames[kNumKinds] = {"tq_store_args", "tq_decode_args",
                                           "tq_extend_args", "tq_extend_args"};
const size_t kArgsSizes[kNumKinds] = {
    sizeof(tq_store_args), sizeof(tq_decode_args), sizeof(tq_extend_args),
    sizeof(tq_extend_args)};

bool isExtendKind(int kind) {
  return kind == TQRT_KERNEL_EXTEND_PREP || kind == TQRT_KERNEL_EXTEND;
}
const char *article(int kind) { return isExtendKind(kind) ? "an " : "a "; }
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

// "extend": {"available": true, "tile_tokens", "block_n", "warps",
// "workspace_bytes_per_token"} or {"available": false, "reason"}; absent in
// bundles written before extend existed (not available then).
void readExtend(const Reader &r, const Value &root, Manifest &m) {
  ExtendDesc &e = m.extend;
  const Value *x = root.find("extend");
  if (!x) {
    e.note = "the bundle predates extend";
    return;
  }
  const char *shape = "an object {\"available\": true, \"tile_tokens\", "
                      "\"block_n\", \"warps\", "
                      "\"workspace_bytes_per_token\"} or {\"available\": "
                      "false, \"reason\"}";
  if (x->type != Type::Object)
    r.bad(*x, "extend", shape);
  const Value &av = r.member(*x, "extend", "available", "true or false");
  if (av.type != Type::Bool)
    r.bad(av, "extend.available", "true or false");
  if (!av.boolean) {
    e.note = r.string(*x, "extend", "reason");
    return;
  }
  e.available = true;
  e.tileTokens =
      static_cast<int>(r.integer(*x, "extend", "tile_tokens", 1, kMaxI32));
  e.blockN = static_cast<int>(r.integer(*x, "extend", "block_n", 1, kMaxI32));
  e.warps = static_cast<int>(r.integer(*x, "extend", "warps", 1, 32));
  const Value &wv = r.member(*x, "extend", "workspace_bytes_per_token",
                             "a positive integer");
  e.workspaceBytesPerToken =
      r.integer(wv, "extend.workspace_bytes_per_token", 1, kMaxI64 / 2);
  const int64_t expected =
      TQ_EXTEND_WORKSPACE_BYTES(1, m.numKVHeads, m.headDim);
  if (e.workspaceBytesPerToken != expected)
    r.inconsistent(wv, "'extend.workspace_bytes_per_token' is " +
                           std::to_string(e.workspaceBytesPerToken) +
                           " but num_kv_heads * (4 * head_dim + 8) "
                           "(TQ_EXTEND_WORKSPACE_BYTES, templates/tq/abi.h) "
                           "is " + std::to_string(m.numKVHeads) + " * (4 * " +
                           std::to_string(m.headDim) + " + 8) = " +
                           std::to_string(expected));
}

// The dtype index of a kernel's "dtype" or a key of a plan's decode object: "bf16", or "fp16" / "f16" ("f16" is the spelling of the
// kernels' symbols and of layout field dtypes, "fp16" that of the runtime's
// API: both are taken). -1 for anything else.
int parseDtype(const std::string &s) {
  if (s == "bf16")
    return 0;
  if (s == "fp16" || s == "f16")
    return 1;
  return -1;
}

std::string planPath(size_t i) { return "plans[" + std::to_string(i) + "]"; }

/// What plans[i].decode names, per kind and dtype index,
/// kept for the cross-checks with kernels[] (the JSON values outlive them).
struct PlanKernelNames {
  const Value *name[kNumKinds][kNumDtypes] = {};
  std::string key[kNumKinds][kNumDtypes]; // the dtype as the manifest spells it
};

// plans[i].decode: an object from dtype to a kernels[].name.
void readKernelMap(const Reader &r, const Value &map, const std::string &path,
                   int kind, PlanKernelNames &names) {
  if (map.type != Type::Object)
    r.bad(map, path, "an object from dtype (\"bf16\", \"f16\") to a kernel name");
  for (const auto &[key, v] : map.members) {
    const int dt = parseDtype(key);
    const std::string p = path + "." + key;
    if (dt < 0)
      r.inconsistent(v, "'" + p + "': unknown dtype \"" + key +
                            "\" (a plan's kernels are keyed by \"bf16\" or "
                            "\"f16\" / \"fp16\")");
    if (names.name[kind][dt])
      r.inconsistent(v, "'" + path + "' names two " + kDtypeNames[dt] +
                            " kernels ('" + names.key[kind][dt] + "' and '" +
                            key + "')");
    if (v.type != Type::String || v.string.empty())
      r.bad(v, p, "a kernel name (a non-empty string)");
    names.name[kind][dt] = &v;
    names.key[kind][dt] = key;
  }
}

std::vector<PlanKernelNames> readPlans(const Reader &r, const Value &root,
                                       Manifest &m) {
  const Value &ps = r.array(root, "", "plans", "a non-empty array of plans");
  if (ps.items.empty())
    r.bad(ps, "plans", "a non-empty array of plans");
  std::vector<PlanKernelNames> names(ps.items.size());
  const int ratio = m.numQHeads / m.numKVHeads;
  for (size_t i = 0; i < ps.items.size(); ++i) {
    const Value &p = ps.items[i];
    const std::string path = planPath(i);
    if (p.type != Type::Object)
      r.bad(p, path, "an object");
    PlanDesc d;
    const char *bucketsText = "a non-empty array of ascending positive integers";
    const Value &bs = r.array(p, path, "buckets", bucketsText);
    if (bs.items.empty())
      r.bad(bs, path + ".buckets", bucketsText);
    for (size_t j = 0; j < bs.items.size(); ++j) {
      const Value &b = bs.items[j];
      const std::string bp = path + ".buckets[" + std::to_string(j) + "]";
      const int32_t v = static_cast<int32_t>(r.integer(b, bp, 1, kMaxI32));
      if (!d.buckets.empty() && v <= d.buckets.back())
        r.inconsistent(b, "'" + path + ".buckets' must be ascending: '" + bp +
                              "' (" + std::to_string(v) + ") follows " +
                              std::to_string(d.buckets.back()));
      d.buckets.push_back(v);
    }
    d.blockN = static_cast<int>(r.integer(p, path, "block_n", 1, kMaxI32));
    d.splits = static_cast<int>(r.integer(p, path, "splits", 1, 65535));
    d.warps = static_cast<int>(r.integer(p, path, "warps", 1, 32));
    d.headsPerCta =
        static_cast<int>(r.integer(p, path, "heads_per_cta", 1, 65535));
    d.stages = static_cast<int>(r.integer(p, path, "stages", 1, 64));
    // A CTA's heads share one KV head (the templates' GQA grouping).
    if (ratio % d.headsPerCta != 0)
      r.inconsistent(*p.find("heads_per_cta"),
                     "'" + path + ".heads_per_cta' (" +
                         std::to_string(d.headsPerCta) +
                         ") does not divide the GQA ratio num_q_heads / "
                         "num_kv_heads (" + std::to_string(ratio) + ")");

    const int64_t expected =
        TQ_WORKSPACE_FLOATS(1, m.numQHeads, d.splits, m.headDim);
    const Value &wv = r.member(p, path, "workspace_floats_per_batch_row",
                               "a non-negative integer");
    const int64_t w = r.integer(wv, path + ".workspace_floats_per_batch_row",
                                0, kMaxI64 / 2);
    if (w != expected && !(d.splits == 1 && w == 0))
      r.inconsistent(wv, "'" + path + ".workspace_floats_per_batch_row' is " +
                             std::to_string(w) +
                             " but tickets + num_q_heads * splits * "
                             "(head_dim + 2) is " +
                             std::to_string(TQ_TICKETS_PER_ROW(m.numQHeads)) +
                             " + " + std::to_string(m.numQHeads) + " * " +
                             std::to_string(d.splits) + " * " +
                             std::to_string(m.headDim + 2) + " = " +
                             std::to_string(expected) +
                             (d.splits == 1 ? " (or 0 with one split)" : ""));
    d.floatsPerBatchRow = d.splits > 1 ? expected : 0;

    const Value &dec = r.member(p, path, "decode",
                                "an object from dtype to a kernel name");
    readKernelMap(r, dec, path + ".decode", TQRT_KERNEL_DECODE, names[i]);
    // abi_version 1 bundles had a combine kernel per split plan; from 2 on
    // the decode merges its own splits.
    if (const Value *comb = p.find("combine"); comb && comb->type != Type::Null)
      r.inconsistent(*comb, "'" + path + ".combine' names a combine kernel, "
                            "but decode merges its own splits (abi_version "
                            "2 on): it must be null or absent");
    m.plans.push_back(std::move(d));
  }

  // Plans sorted by their first bucket, each bucket in one plan only (so a
  // max_batch has exactly one plan).
  for (size_t i = 1; i < m.plans.size(); ++i)
    if (m.plans[i].buckets[0] <= m.plans[i - 1].buckets[0])
      r.inconsistent(*ps.items[i].find("buckets"),
                     "'plans' must be sorted by their first bucket: " +
                         planPath(i) + " starts at " +
                         std::to_string(m.plans[i].buckets[0]) + ", after " +
                         planPath(i - 1) + " at " +
                         std::to_string(m.plans[i - 1].buckets[0]));
  struct Entry {
    int32_t bucket;
    size_t plan;
    const Value *value;
  };
  std::vector<Entry> all;
  for (size_t i = 0; i < m.plans.size(); ++i)
    for (size_t j = 0; j < m.plans[i].buckets.size(); ++j)
      all.push_back({m.plans[i].buckets[j], i,
                     &ps.items[i].find("buckets")->items[j]});
  std::sort(all.begin(), all.end(), [](const Entry &a, const Entry &b) {
    return a.bucket != b.bucket ? a.bucket < b.bucket : a.plan < b.plan;
  });
  for (size_t k = 1; k < all.size(); ++k)
    if (all[k].bucket == all[k - 1].bucket)
      r.inconsistent(*all[k].value,
                     "bucket " + std::to_string(all[k].bucket) +
                         " is in both " + planPath(all[k - 1].plan) + " and " +
                         planPath(all[k].plan) +
                         "; the plans' buckets must be disjoint");

  m.planSource = r.string(root, "", "plan_source");
  return names;
}

void readKernels(const Reader &r, const Value &root, Manifest &m,
                 const std::vector<PlanKernelNames> &names) {
  const Value &ks = r.array(root, "", "kernels", "an array of kernels");
  std::map<std::string, size_t> seen; // name -> position in kernels[]
  for (size_t i = 0; i < ks.items.size(); ++i) {
    const Value &k = ks.items[i];
    std::string path = "kernels[" + std::to_string(i) + "]";
    if (k.type != Type::Object)
      r.bad(k, path, "an object");
    KernelDesc d;
    d.name = r.string(k, path, "name");
    // Plans name their kernels, so names must be unique.
    if (auto [it, fresh] = seen.emplace(d.name, i); !fresh)
      r.inconsistent(*k.find("name"),
                     "'" + path + ".name' \"" + d.name +
                         "\" is also the name of kernels[" +
                         std::to_string(it->second) +
                         "]; kernel names must be unique");
    std::string kind = r.string(k, path, "kind");
    d.kind = -1;
    for (int j = 0; j < kNumKinds; ++j)
      if (kind == kKindNames[j])
        d.kind = j;
    if (d.kind < 0)
      continue; // a kind a later runtime launches: not ours
    // An extend kernel in a bundle whose "extend" says it has none: the
    // manifest contradicts itself.
    if (isExtendKind(d.kind) && !m.extend.available)
      r.inconsistent(k, "'" + path + "' (" + d.name + ") is an " + kind +
                            " kernel, but the manifest's 'extend' says the "
                            "bundle has no extend (" + m.extend.note + ")");
    const Value &dt = r.member(k, path, "dtype", "\"bf16\" or \"fp16\"");
    d.dtype = dt.type == Type::String ? parseDtype(dt.string) : -1;
    if (d.dtype < 0)
      r.bad(dt, path + ".dtype", "\"bf16\" or \"fp16\"");
    d.symbol = r.string(k, path, "symbol");
    d.args = r.string(k, path, "args");
    if (d.args != kArgsNames[d.kind])
      r.bad(*k.find("args"), path + ".args",
            std::string("\"") + kArgsNames[d.kind] + "\" for " +
                article(d.kind) + kind + " kernel");
    d.argsBytes = r.integer(k, path, "args_bytes", 1, 4096);
    if (d.argsBytes != static_cast<int64_t>(kArgsSizes[d.kind]))
      r.inconsistent(*k.find("args_bytes"),
                     "'" + path + ".args_bytes' is " +
                         std::to_string(d.argsBytes) + " but this runtime's " +
                         kArgsNames[d.kind] + " (templates/tq/abi.h) is " +
                         std::to_string(kArgsSizes[d.kind]) + " bytes");
    const bool planned = d.kind == TQRT_KERNEL_DECODE;
    const std::string planText =
        planned ? "an index into 'plans' for a decode kernel"
                : "null for " + std::string(article(d.kind)) + kind +
                      " kernel";
    const Value &planV = r.member(k, path, "plan", planText.c_str());
    if (!planned) {
      if (planV.type != Type::Null)
        r.bad(planV, path + ".plan", planText);
    } else {
      d.plan = static_cast<int>(
          r.integer(planV, path + ".plan", 0,
                    static_cast<int64_t>(m.plans.size()) - 1));
    }
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
    // tqc writes nvJitLink's static shared memory here (informational);
    // launches pass dynamic_shared_bytes (absent: 0; a decode plan's copy
    // ring), never this number.
    d.staticSharedBytes = static_cast<uint32_t>(
        r.integer(k, path, "shared_bytes", 0, 1 << 30));
    if (const Value *dyn = k.find("dynamic_shared_bytes"))
      d.dynamicSharedBytes = static_cast<uint32_t>(
          r.integer(*dyn, path + ".dynamic_shared_bytes", 0, 1 << 30));
    // Optional, default false: the kernel waits for its predecessor in the
    // stream with griddepcontrol.wait before reading anything it wrote, so
    // it may be launched with programmatic stream serialization (sm_90+).
    if (const Value *pl = k.find("programmatic_launch")) {
      if (pl->type != Type::Bool)
        r.bad(*pl, path + ".programmatic_launch", "true or false");
      if (pl->boolean && (!m.arch.nvidia || m.arch.number < 90))
        r.inconsistent(*pl, "'" + path + ".programmatic_launch' is true but "
                       "arch " + m.arch.text + " has no programmatic launch "
                       "(NVIDIA sm_90 and newer)");
      d.programmaticLaunch = pl->boolean;
    }
    if (const Value *tt = k.find("tile_tokens"))
      d.tileTokens = static_cast<int>(
          r.integer(*tt, path + ".tile_tokens", 1, kMaxI32));
    if (d.kind == TQRT_KERNEL_EXTEND && d.tileTokens > 0 &&
        d.tileTokens != m.extend.tileTokens)
      r.inconsistent(*k.find("tile_tokens"),
                     "'" + path + ".tile_tokens' is " +
                         std::to_string(d.tileTokens) +
                         " but 'extend.tile_tokens' is " +
                         std::to_string(m.extend.tileTokens));
    const Value &grid = r.array(k, path, "grid", "an array of 3 strings");
    if (grid.items.size() != 3)
      r.bad(grid, path + ".grid", "an array of 3 extents such as \"max_batch\"");
    for (int j = 0; j < 3; ++j) {
      const Value &g = grid.items[j];
      std::string gp = path + ".grid[" + std::to_string(j) + "]";
      if (g.type != Type::String)
        r.bad(g, gp, "a string such as \"max_batch\" or \"num_q_heads*2\"");
      d.grid[j] = parseGridExpr(g.string, position(m.source, g) + ": '" + gp + "'");
      // splits and head_groups are a plan's values; only decode has a plan.
      if (!planned)
        for (GridName n : d.grid[j].names)
          if (n == GridName::Splits || n == GridName::HeadGroups)
            r.inconsistent(g, "'" + gp + "' uses \"" +
                                  kGridNames[static_cast<int>(n)] +
                                  "\", a plan's value; " +
                                  article(d.kind) + kind +
                                  " kernel has no plan (its extents "
                                  "may use max_batch, max_tokens, "
                                  "num_q_heads, num_kv_heads, query_tiles, "
                                  "token_tiles and integer literals)");
      // query_tiles and token_tiles are the kernel's own: they need the
      // kernel's tile_tokens.
      struct Tiled {
        GridName name;
        const char *formula, *tile;
      };
      static const Tiled kTiled[] = {
          {GridName::QueryTiles, "ceil(max_tokens / tile_tokens) + max_batch",
           "chunk tokens per query tile"},
          {GridName::TokenTiles, "ceil(max_tokens / tile_tokens)",
           "tokens per CTA"}};
      for (GridName n : d.grid[j].names)
        for (const Tiled &t : kTiled)
          if (n == t.name && d.tileTokens == 0)
            r.inconsistent(g, "'" + gp + "' of kernel '" + d.name +
                                  "' uses \"" +
                                  kGridNames[static_cast<int>(n)] + "\" (" +
                                  t.formula + "), but '" + path +
                                  ".tile_tokens' is missing (a positive "
                                  "integer: " + t.tile + ")");
    }

    const int index = static_cast<int>(m.kernels.size());
    if (!planned) {
      int &slot = m.kernelOf[d.kind][d.dtype];
      if (slot >= 0)
        r.inconsistent(k, "'" + path + "' is a second " + kind +
                              " kernel for " + kDtypeNames[d.dtype] +
                              " (the first is '" + m.kernels[slot].name +
                              "')");
      slot = index;
    } else {
      // The kernel's plan must name it for its kind and dtype.
      PlanDesc &p = m.plans[d.plan];
      const std::string plan = planPath(d.plan);
      const std::string what = "'" + path + "' (" + d.name + ") is a " + kind +
                               " kernel of " + plan + " for " +
                               kDtypeNames[d.dtype];
      const Value *named = names[d.plan].name[d.kind][d.dtype];
      if (!named)
        r.inconsistent(k, what + ", but '" + plan + "." + kind + "' has no " +
                              kDtypeNames[d.dtype] + " entry");
      if (named->string != d.name)
        r.inconsistent(k, what + ", but '" + plan + "." + kind + "." +
                              names[d.plan].key[d.kind][d.dtype] +
                              "' names \"" + named->string + "\"");
      // Names are unique, so no second kernel can match the same entry.
      p.decode[d.dtype] = index;
    }
    m.kernels.push_back(std::move(d));
  }

  // Every dtype the bundle mentions needs the complete set: a store kernel,
  // and in every plan a decode kernel.
  // When extend is available, the extend_prep and extend kernels too.
  bool any = false;
  for (int dt = 0; dt < kNumDtypes; ++dt) {
    const bool stored = m.kernelOf[TQRT_KERNEL_STORE][dt] >= 0;
    bool planNamed = false;
    for (const PlanKernelNames &n : names)
      planNamed |= n.name[TQRT_KERNEL_DECODE][dt] != nullptr;
    int extendKernel = -1;
    for (int kind : {int(TQRT_KERNEL_EXTEND_PREP), int(TQRT_KERNEL_EXTEND)})
      if (m.kernelOf[kind][dt] >= 0)
        extendKernel = m.kernelOf[kind][dt];
    if (!stored && !planNamed && extendKernel < 0)
      continue;
    any = true;
    if (!stored && planNamed)
      fail(TQRT_BAD_BUNDLE, m.source + ": 'kernels' has no store kernel for " +
                                kDtypeNames[dt] + " (the plans name " +
                                kDtypeNames[dt] + " kernels)");
    if (!stored)
      fail(TQRT_BAD_BUNDLE, m.source + ": 'kernels' has no store kernel for " +
                                kDtypeNames[dt] + " (kernel '" +
                                m.kernels[extendKernel].name + "' is an " +
                                kKindNames[m.kernels[extendKernel].kind] +
                                " kernel for " + kDtypeNames[dt] + ")");
    for (size_t i = 0; i < m.plans.size(); ++i) {
      for (int kind : {int(TQRT_KERNEL_DECODE)}) {
        const std::string mapPath = planPath(i) + "." + kKindNames[kind];
        const Value *named = names[i].name[kind][dt];
        if (!named)
          fail(TQRT_BAD_BUNDLE,
               m.source + ": '" + mapPath + "' has no " + kDtypeNames[dt] +
                   " kernel; every plan needs a decode kernel for each dtype "
                   "the bundle stores");
        if (m.plans[i].kernel(kind, dt) < 0)
          r.inconsistent(*named, "'" + mapPath + "." + names[i].key[kind][dt] +
                                     "' names \"" + named->string +
                                     "\", which is not a " + kKindNames[kind] +
                                     " kernel of " + planPath(i) +
                                     " in 'kernels'");
      }
    }
    if (m.extend.available)
      for (int kind : {int(TQRT_KERNEL_EXTEND_PREP), int(TQRT_KERNEL_EXTEND)})
        if (m.kernelOf[kind][dt] < 0)
          fail(TQRT_BAD_BUNDLE,
               m.source + ": 'kernels' has no " + kKindNames[kind] +
                   " kernel for " + kDtypeNames[dt] +
                   "; 'extend.available' is true, so every dtype the bundle "
                   "stores needs its extend_prep and extend kernels");
  }
  if (!any)
    fail(TQRT_BAD_BUNDLE, m.source + ": 'kernels' has no store or decode "
                                     "kernel");
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

int choosePlan(const std::vector<PlanDesc> &plans, int64_t maxBatch) {
  int best = -1;
  int64_t bestBucket = 0;
  for (size_t i = 0; i < plans.size(); ++i)
    for (int32_t b : plans[i].buckets)
      if (b >= maxBatch && (best < 0 || b < bestBucket)) {
        best = static_cast<int>(i);
        bestBucket = b;
      }
  // Above every bucket: the last plan (every plan is correct for any batch;
  // buckets only choose speed).
  return best >= 0 ? best : static_cast<int>(plans.size()) - 1;
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
  readExtend(r, root, m);
  readLayout(r, root, m);
  std::vector<PlanKernelNames> names = readPlans(r, root, m);
  readKernels(r, root, m, names);
  return m;
}

} // namespace tqrt
