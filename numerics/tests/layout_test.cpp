// Layout math: bytes per token-head against FORMATS.md, plane alignment,
// disjointness, addressing, and spec validation messages.
#include "tqc/numerics/layout.h"
#include "tqc/numerics/spec.h"

#include <gtest/gtest.h>

#include <set>

using namespace tqc;

namespace {

CacheSpec preset(const std::string &name, int d = 128, int block = 16) {
  std::optional<CacheSpec> s = presetSpec(name, d, 32, 8, block);
  EXPECT_TRUE(s.has_value()) << name;
  return *s;
}

} // namespace

TEST(Layout, FormatsTableAtD128) {
  // FORMATS.md's table: the native layout must not need more bytes.
  const std::pair<const char *, int64_t> table[] = {
      {"k8v4", 196}, {"k4v4", 134}, {"k3v4", 118}, {"k3v3", 102},
      {"k4v2", 100}, {"k2v2", 68},  {"bf16", 512}};
  for (auto [name, bytes] : table) {
    Layout l = computeLayout(preset(name));
    EXPECT_EQ(l.bytesPerTokenHead(), bytes) << name;
    EXPECT_EQ(*presetByteBudget(name, 128), bytes) << name;
  }
}

TEST(Layout, NeverAboveBudgetForAnyGeometry) {
  for (const PresetInfo &p : presets())
    for (int d : {16, 32, 64, 128, 256, 512})
      for (int block : {8, 16, 32, 64, 128, 256}) {
        CacheSpec s = preset(p.name, d, block);
        ASSERT_EQ(validate(s), "") << p.name << " D=" << d;
        Layout l = computeLayout(s);
        EXPECT_LE(l.bytesPerTokenHead(), *presetByteBudget(p.name, d))
            << p.name << " D=" << d << " block=" << block;
        EXPECT_EQ(l.checkDisjoint(), "") << p.name;
      }
}

TEST(Layout, NativePlanesAreAlignedAndContiguousPerHead) {
  Layout l = computeLayout(preset("k3v4"));
  ASSERT_EQ(l.kind, LayoutKind::Native);
  // D=128: key codes 48 B, value codes 64 B, three fp16 scalars.
  ASSERT_EQ(l.fields.size(), 5u);
  EXPECT_EQ(l.fields[0].kind, FieldKind::KeyCodes);
  EXPECT_EQ(l.fields[0].offset, 0);
  EXPECT_EQ(l.fields[0].bytes, 48);
  EXPECT_EQ(l.fields[1].kind, FieldKind::ValueCodes);
  EXPECT_EQ(l.fields[1].offset, 48 * 16);
  EXPECT_EQ(l.fields[2].kind, FieldKind::KeyScale);
  EXPECT_EQ(l.fields[2].offset, 48 * 16 + 64 * 16);
  for (const Field &f : l.fields) {
    EXPECT_EQ(f.offset % 16, 0) << toString(f.kind);
    EXPECT_EQ(f.tokenStride, f.bytes);
  }
  EXPECT_EQ(l.regionBytes, 118 * 16);
  EXPECT_EQ(l.headStride, l.regionBytes);
  EXPECT_EQ(l.blockStride, l.regionBytes * 8);
  EXPECT_EQ(l.shape(10), (std::vector<int64_t>{10, 8, 118 * 16}));
}

TEST(Layout, AddressesCoverEachRegionExactlyOnce) {
  // Every byte of every field of every (block, pos, head) maps to a distinct
  // address inside the tensor.
  CacheSpec s = preset("k3v3", 64, 8);
  s.numKVHeads = 2;
  s.numQHeads = 2;
  Layout l = computeLayout(s);
  const int64_t blocks = 3;
  std::set<int64_t> seen;
  int64_t total = 0;
  for (int64_t b = 0; b < blocks; ++b)
    for (int64_t h = 0; h < s.numKVHeads; ++h)
      for (int64_t i = 0; i < s.blockSize; ++i)
        for (const Field &f : l.fields)
          for (int64_t k = 0; k < f.bytes; ++k) {
            int64_t a = l.address(f, b, i, h) + k;
            EXPECT_GE(a, 0);
            EXPECT_LT(a, blocks * l.blockStride);
            seen.insert(a);
            ++total;
          }
  EXPECT_EQ(int64_t(seen.size()), total);
}

TEST(Layout, VllmSlotMatchesFormatsExample) {
  // FORMATS.md: D=128, k3v4: indices 0-47, norm 48, values 50-113,
  // scale 114, zero 116 (118 bytes).
  CacheSpec s = preset("k3v4");
  s.layout = LayoutKind::VLLM;
  Layout l = computeLayout(s);
  EXPECT_EQ(l.bytesPerTokenHead(), 118);
  EXPECT_EQ(l.find(FieldKind::KeyCodes)->offset, 0);
  EXPECT_EQ(l.find(FieldKind::KeyScale)->offset, 48);
  EXPECT_EQ(l.find(FieldKind::ValueCodes)->offset, 50);
  EXPECT_EQ(l.find(FieldKind::ValueScale)->offset, 114);
  EXPECT_EQ(l.find(FieldKind::ValueZero)->offset, 116);
  EXPECT_EQ(l.shape(4), (std::vector<int64_t>{4, 16, 8, 118}));
  EXPECT_EQ(l.find(FieldKind::KeyScale)->tokenStride, 8 * 118);
  EXPECT_EQ(l.checkDisjoint(), "");
}

TEST(Layout, QjlAddsSignsAndGamma) {
  CacheSpec s = preset("k3v4");
  s.key.quant.qjl = true;
  ASSERT_EQ(validate(s), "");
  Layout l = computeLayout(s);
  EXPECT_EQ(l.find(FieldKind::KeyCodes)->bytes, 32); // 2-bit codes
  EXPECT_EQ(l.find(FieldKind::KeySigns)->bytes, 16);
  ASSERT_NE(l.find(FieldKind::KeyGamma), nullptr);
  EXPECT_EQ(l.bytesPerTokenHead(), 32 + 16 + 2 + 2 + 64 + 4);
}

TEST(Layout, OverlapIsDetected) {
  Layout l = computeLayout(preset("k3v4"));
  l.fields[1].offset = l.fields[0].offset + 16;
  std::string e = l.checkDisjoint();
  EXPECT_NE(e.find("key_codes"), std::string::npos) << e;
  EXPECT_NE(e.find("overlap"), std::string::npos) << e;
}

TEST(Spec, AliasesResolve) {
  EXPECT_EQ(*canonicalPreset("turboquant_k3v4_nc"), "k3v4");
  EXPECT_EQ(*canonicalPreset("turboquant_4bit_nc"), "k4v4");
  EXPECT_FALSE(canonicalPreset("k5v5").has_value());
  EXPECT_NE(acceptedPresets().find("k3v4"), std::string::npos);
}

TEST(Spec, ValidationNamesTheBadValue) {
  CacheSpec s = preset("k3v4");
  s.headDim = 96;
  std::string e = validate(s);
  EXPECT_NE(e.find("96"), std::string::npos) << e;
  EXPECT_NE(e.find("power of two"), std::string::npos) << e;

  // Without a rotation, D=96 is fine.
  EXPECT_EQ(validate(preset("k8v4", 96)), "");

  s = preset("k3v4");
  s.key.quant.bits = 0;
  e = validate(s);
  EXPECT_NE(e.find("bits 0"), std::string::npos) << e;
  EXPECT_NE(e.find("1..8"), std::string::npos) << e;

  s = preset("k3v4");
  s.numQHeads = 30;
  e = validate(s);
  EXPECT_NE(e.find("30"), std::string::npos) << e;

  s = preset("k3v4");
  s.blockSize = 12;
  e = validate(s);
  EXPECT_NE(e.find("block_size 12"), std::string::npos) << e;

  s = preset("k3v4");
  s.value.quant.qjl = true;
  EXPECT_NE(validate(s), "");

  s = preset("k8v4");
  s.key.quant.qjl = true;
  e = validate(s);
  EXPECT_NE(e.find("lloyd_max"), std::string::npos) << e;
}
