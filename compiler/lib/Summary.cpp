//===- Summary.cpp - Human-readable report of a compiled module -----------===//

#include "tqc/Compiler/Summary.h"

#include "tqc/Dialect/TQ/TQDialect.h"

#include "llvm/Support/Format.h"

using namespace mlir;

void tqc::printLayoutSummary(ModuleOp module, llvm::raw_ostream &os) {
  auto info = module->getAttrOfType<DictionaryAttr>("tq.spec");
  auto target = module->getAttrOfType<tq::TargetAttr>("tq.target");
  auto layout = module->getAttrOfType<tq::LayoutAttr>("tq.layout");
  if (!info || !layout) {
    os << "(no layout: the module has not been through tq-assign-layout)\n";
    return;
  }
  auto i64 = [&](StringRef name) {
    auto a = info.getAs<IntegerAttr>(name);
    return a ? a.getInt() : int64_t(0);
  };
  auto str = [&](StringRef name) {
    auto a = info.getAs<StringAttr>(name);
    return a ? a.getValue() : StringRef("?");
  };
  int64_t d = i64("head_dim");
  os << "preset " << str("preset") << " for "
     << (target ? target.getArch() : StringRef("?")) << ": head_dim " << d
     << ", " << i64("num_q_heads") << " query / " << i64("num_kv_heads")
     << " KV heads, block size " << i64("block_size") << "\n";

  int64_t bytes = layout.getBytesPerTokenHead();
  double ratio = double(4 * d) / double(bytes);
  os << "cache layout (" << tq::stringifyLayoutKind(layout.getKind())
     << "): uint8[num_blocks, ";
  if (layout.getKind() == tq::LayoutKind::VLLM)
    os << layout.getBlockSize() << ", ";
  os << layout.getNumKvHeads() << ", " << layout.getRegionBytes() << "]\n";
  os << "bytes per token-head: " << bytes << " (bf16: " << 4 * d << ", "
     << llvm::format("%.2f", ratio) << "x smaller)\n";
  os << llvm::format("  %-12s %-9s %6s %8s %13s\n", "field", "dtype",
                     "bytes", "offset", "token_stride");
  for (tq::FieldAttr f : layout.getFieldList())
    os << llvm::format("  %-12s %-9s %6lld %8lld %13lld\n",
                       tq::stringifyFieldKind(f.getKind()).str().c_str(),
                       tq::stringifyFieldDType(f.getDtype()).str().c_str(),
                       (long long)f.getBytes(), (long long)f.getOffset(),
                       (long long)f.getTokenStride());
  os << "address(field, block, pos, head) = block*" << layout.getBlockStride()
     << " + head*" << layout.getHeadStride()
     << " + field.offset + pos*field.token_stride\n";
}
