//===- ExpandPreset.cpp - tq.spec -> explicit stage graphs -----------------===//
//
// A preset is shorthand. This pass writes out what it means, stage by stage,
// so that every later decision works on explicit IR:
//   store:  K, V -> [rotate] -> [normalize] -> quantize -> [pack] -> cache
//   decode: attention whose body reads each field back and reconstructs the
//           token's K and V (unpack, dequantize, un-rotate).
//
//===----------------------------------------------------------------------===//

#include "tqc/Dialect/TQ/TQPasses.h"
#include "tqc/Dialect/TQ/TQSpec.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include "tqc/numerics/codebook.h"

#include <cmath>

namespace mlir::tq {
#define GEN_PASS_DEF_TQEXPANDPRESET
#include "tqc/Dialect/TQ/TQPasses.h.inc"
} // namespace mlir::tq

using namespace mlir;
using namespace mlir::tq;

namespace {

/// Builds the store and decode graphs of one resolved spec.
class GraphBuilder {
public:
  GraphBuilder(OpBuilder &b, Location loc, const tqc::CacheSpec &spec)
      : b(b), loc(loc), spec(spec), ctx(b.getContext()) {
    d = spec.headDim;
    f32 = b.getF32Type();
    inputType = VectorType::get({d}, b.getBF16Type());
    f32Vec = VectorType::get({d}, f32);
    cacheType = CacheType::get(ctx, d, spec.numKVHeads, spec.blockSize);
  }

  void buildStore() {
    auto fnType = FunctionType::get(
        ctx, {inputType, inputType, cacheType, b.getIndexType()}, {});
    auto fn = func::FuncOp::create(b, loc, "store", fnType);
    Block *entry = fn.addEntryBlock();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(entry);
    Value cache = entry->getArgument(2), slot = entry->getArgument(3);
    storeTensor(spec.key, /*isKey=*/true, entry->getArgument(0), cache, slot);
    storeTensor(spec.value, /*isKey=*/false, entry->getArgument(1), cache,
                slot);
    func::ReturnOp::create(b, loc);
  }

  /// @decode (one query over the cache) or @extend (a chunk's queries over
  /// the cache's prefix and, causally, the chunk itself): the same body,
  /// which reads one cached token's key and value.
  void buildAttention(AttentionMode mode) {
    auto fnType = FunctionType::get(ctx, {inputType, cacheType}, {f32Vec});
    auto fn = func::FuncOp::create(
        b, loc, mode == AttentionMode::Decode ? "decode" : "extend", fnType);
    Block *entry = fn.addEntryBlock();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(entry);
    auto attn = AttentionOp::create(
        b, loc, f32Vec, mode, entry->getArgument(0), entry->getArgument(1),
        spec.numQHeads, spec.numKVHeads,
        llvm::APFloat(1.0 / std::sqrt(double(d))));
    Block *body = b.createBlock(&attn.getBody(), {}, {b.getIndexType()},
                                {loc});
    b.setInsertionPointToStart(body);
    Value cache = entry->getArgument(1), pos = body->getArgument(0);
    Value k = loadTensor(spec.key, /*isKey=*/true, cache, pos);
    Value v = loadTensor(spec.value, /*isKey=*/false, cache, pos);
    YieldOp::create(b, loc, k, Value(), v, Value(), Value());
    b.setInsertionPointAfter(attn);
    func::ReturnOp::create(b, loc, attn.getResult());
  }

private:
  FieldKind codesField(bool isKey) {
    return isKey ? FieldKind::KeyCodes : FieldKind::ValueCodes;
  }
  FieldKind scaleField(bool isKey) {
    return isKey ? FieldKind::KeyScale : FieldKind::ValueScale;
  }
  FieldKind zeroField(bool isKey) {
    return isKey ? FieldKind::KeyZero : FieldKind::ValueZero;
  }

  bool isPacked(const tqc::QuantSpec &q) {
    return q.kind == tqc::QuantKind::LloydMax ||
           q.kind == tqc::QuantKind::Uniform;
  }
  VectorType bytesType(int64_t count, int bits) {
    return VectorType::get({tqc::packedBytes(count, bits)}, b.getI8Type());
  }

  void write(FieldKind field, Value v, Value cache, Value slot) {
    CacheWriteOp::create(b, loc, field, v, cache, slot);
  }
  Value read(FieldKind field, Type t, Value cache, Value pos) {
    return CacheReadOp::create(b, loc, t, field, cache, pos);
  }

  void storeTensor(const tqc::TensorSpec &t, bool isKey, Value x, Value cache,
                   Value slot) {
    const tqc::QuantSpec &q = t.quant;
    QuantizerAttr quant = quantizerAttr(q);
    VectorType codesType = VectorType::get({d}, codeElementType(quant));
    Value xf = t.rotation.kind != tqc::RotationKind::None
                   ? Value(RotateOp::create(b, loc, f32Vec, x,
                                            toRotationAttr(ctx, t.rotation),
                                            /*inverse=*/false))
                   : Value(arith::ExtFOp::create(b, loc, f32Vec, x));
    switch (q.kind) {
    case tqc::QuantKind::None:
    case tqc::QuantKind::Fp8E4M3: {
      auto qo = QuantizeOp::create(b, loc, codesType, TypeRange{}, xf,
                                   Value(), quant);
      write(codesField(isKey), qo.getCodes(), cache, slot);
      return;
    }
    case tqc::QuantKind::Uniform: {
      auto qo = QuantizeOp::create(b, loc, codesType, SmallVector<Type>(2, f32), xf,
                                   Value(), quant);
      write(codesField(isKey),
            PackOp::create(b, loc, bytesType(d, q.bits), qo.getCodes()),
            cache, slot);
      write(scaleField(isKey), qo.getParams()[0], cache, slot);
      write(zeroField(isKey), qo.getParams()[1], cache, slot);
      return;
    }
    case tqc::QuantKind::LloydMax: {
      auto norm = NormalizeOp::create(b, loc, f32, f32Vec, xf);
      auto qo = QuantizeOp::create(b, loc, codesType, SmallVector<Type>(1, f32),
                                   norm.getUnit(), norm.getNorm(), quant);
      write(codesField(isKey),
            PackOp::create(b, loc, bytesType(d, q.codeBits()),
                           qo.getCodes()),
            cache, slot);
      write(scaleField(isKey), qo.getParams()[0], cache, slot);
      if (q.qjl) {
        // The sketch sees the residual of the (b-1)-bit reconstruction in
        // the original domain (numerics/quantize.h): the decode kernel
        // projects the unrotated query with S once per query, so no key is
        // ever un-rotated.
        QuantizerAttr mse = quantizerAttr(withoutQjl(q));
        Value approx = DequantizeOp::create(
            b, loc, f32Vec, qo.getCodes(), Value(),
            ValueRange{qo.getParams()[0]}, mse);
        Value input = arith::ExtFOp::create(b, loc, f32Vec, x);
        if (t.rotation.kind != tqc::RotationKind::None)
          approx = RotateOp::create(b, loc, f32Vec, approx,
                                    toRotationAttr(ctx, t.rotation),
                                    /*inverse=*/true);
        auto sketch = QjlOp::create(
            b, loc, VectorType::get({d}, b.getI1Type()), f32, input, approx,
            b.getI64IntegerAttr(int64_t(q.qjlSeed)));
        write(FieldKind::KeySigns,
              PackOp::create(b, loc, bytesType(d, 1), sketch.getSigns()),
              cache, slot);
        write(FieldKind::KeyGamma, sketch.getGamma(), cache, slot);
      }
      return;
    }
    }
  }

  /// The quantizer attribute, with the Lloyd-Max levels computed by the host
  /// numerics for this head_dim (the kernels bake in exactly these).
  QuantizerAttr quantizerAttr(const tqc::QuantSpec &q) {
    if (q.kind != tqc::QuantKind::LloydMax)
      return toQuantizerAttr(ctx, q);
    std::shared_ptr<const tqc::Codebook> book =
        tqc::sharedCodebook(int(d), q.codeBits(), q.dist);
    return toQuantizerAttr(ctx, q, book->levels);
  }

  static tqc::QuantSpec withoutQjl(tqc::QuantSpec q) {
    q.bits = q.codeBits();
    q.qjl = false;
    return q;
  }

  Value loadTensor(const tqc::TensorSpec &t, bool isKey, Value cache,
                   Value pos) {
    const tqc::QuantSpec &q = t.quant;
    QuantizerAttr quant = quantizerAttr(q);
    VectorType codesType = VectorType::get({d}, codeElementType(quant));
    Value codes, signs;
    SmallVector<Value> params;
    if (isPacked(q)) {
      Value bytes =
          read(codesField(isKey), bytesType(d, quant.getCodeBits()), cache, pos);
      codes = UnpackOp::create(b, loc, codesType, bytes);
      params.push_back(read(scaleField(isKey), f32, cache, pos));
      if (q.kind == tqc::QuantKind::Uniform)
        params.push_back(read(zeroField(isKey), f32, cache, pos));
      if (q.qjl) {
        Value bytes1 = read(FieldKind::KeySigns, bytesType(d, 1), cache, pos);
        signs = UnpackOp::create(b, loc, VectorType::get({d}, b.getI1Type()),
                                 bytes1);
        params.push_back(read(FieldKind::KeyGamma, f32, cache, pos));
      }
    } else {
      codes = read(codesField(isKey), codesType, cache, pos);
    }
    Value x =
        DequantizeOp::create(b, loc, f32Vec, codes, signs, params, quant);
    if (t.rotation.kind != tqc::RotationKind::None)
      x = RotateOp::create(b, loc, f32Vec, x, toRotationAttr(ctx, t.rotation),
                           /*inverse=*/true);
    return x;
  }

  OpBuilder &b;
  Location loc;
  const tqc::CacheSpec &spec;
  MLIRContext *ctx;
  int64_t d;
  Type f32;
  VectorType inputType, f32Vec;
  CacheType cacheType;
};

struct ExpandPresetPass
    : public tq::impl::TQExpandPresetBase<ExpandPresetPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SpecOp> specs(module.getOps<SpecOp>());
    if (specs.empty())
      return;
    if (specs.size() > 1) {
      specs[1].emitOpError() << "is the second tq.spec in the module; a "
                                "module compiles one cache recipe";
      return signalPassFailure();
    }
    SpecOp specOp = specs.front();
    FailureOr<tqc::CacheSpec> spec = resolveSpec(specOp);
    if (failed(spec))
      return signalPassFailure();

    OpBuilder b(specOp);
    GraphBuilder graphs(b, specOp.getLoc(), *spec);
    graphs.buildStore();
    graphs.buildAttention(AttentionMode::Decode);
    graphs.buildAttention(AttentionMode::Extend);

    // What the manifest and later passes need to know about the request.
    MLIRContext *ctx = module.getContext();
    NamedAttrList info;
    info.append("preset", b.getStringAttr(spec->preset));
    info.append("head_dim", b.getI64IntegerAttr(spec->headDim));
    info.append("num_q_heads", b.getI64IntegerAttr(spec->numQHeads));
    info.append("num_kv_heads", b.getI64IntegerAttr(spec->numKVHeads));
    info.append("block_size", b.getI64IntegerAttr(spec->blockSize));
    info.append("layout", b.getStringAttr(tqc::toString(spec->layout)));
    module->setAttr("tq.spec", DictionaryAttr::get(ctx, info));
    specOp.erase();
  }
};

} // namespace
