//===- test_util.h - Fixture helpers of the runtime's unit tests -*- C++ -*-===//
#ifndef TQRT_TESTS_TEST_UTIL_H
#define TQRT_TESTS_TEST_UTIL_H

#include "tqrt/tqrt.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace tqrt_test {

inline std::string fixturePath(const std::string &name) {
  return std::string(TQRT_FIXTURES) + "/" + name;
}

inline std::string readFixture(const std::string &name) {
  std::ifstream in(fixturePath(name), std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot read fixture " << name;
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// `text` with the single occurrence of `from` replaced by `to`; fails the
/// test when `from` is missing or ambiguous (so a fixture edit cannot
/// silently turn a negative test into a no-op).
inline std::string edit(const std::string &text, const std::string &from,
                        const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "fixture has no '" << from << "'";
  if (at == std::string::npos)
    return text;
  EXPECT_EQ(text.find(from, at + 1), std::string::npos)
      << "fixture has '" << from << "' more than once";
  return text.substr(0, at) + to + text.substr(at + from.size());
}

/// The fixture manifest as an AMD (gfx942) bundle's.
inline std::string amdManifest() {
  std::string text = edit(readFixture("manifest.json"), "\"arch\": \"sm_90\"",
                          "\"arch\": \"gfx942\"");
  return edit(text, "\"vendor\": \"nvidia\"", "\"vendor\": \"amd\"");
}

/// The fixture's extend kernels for bf16 (symbols not in the fixture's
/// cubin: fine without a device).
inline const char *kExtendKernels =
    "{\"name\": \"extend_prep_bf16\", \"kind\": \"extend_prep\", "
    "\"dtype\": \"bf16\", \"symbol\": \"tq_extend_prep_bf16\", \"plan\": null, "
    "\"args\": \"tq_extend_args\", \"args_bytes\": 176, \"block\": [256, 1, 1], "
    "\"shared_bytes\": 0, \"grid\": [\"max_tokens\", \"1\", \"1\"]},\n"
    "    {\"name\": \"extend_bf16\", \"kind\": \"extend\", \"dtype\": \"bf16\", "
    "\"symbol\": \"tq_extend_bf16\", \"plan\": null, \"args\": \"tq_extend_args\", "
    "\"args_bytes\": 176, \"block\": [128, 1, 1], \"shared_bytes\": 40960, "
    "\"grid\": [\"query_tiles\", \"num_kv_heads\", \"1\"], \"tile_tokens\": 16}";

/// The fixture's "extend" member: 16 chunk tokens per query tile, block_n
/// 64, 4 warps, num_kv_heads 8 * (4 * head_dim 128 + 8) = 4160 workspace
/// bytes per token.
inline const char *kExtendMember =
    "\"extend\": {\"available\": true, \"tile_tokens\": 16, \"block_n\": 64, "
    "\"warps\": 4, \"workspace_bytes_per_token\": 4160}";

/// The fixture manifest as a bundle with extend: the "extend" member after
/// plan_source, and the extend_prep (kernels[3]) and extend (kernels[4])
/// kernels after the others.
inline std::string extendManifest() {
  std::string text = readFixture("manifest.json");
  text = edit(text, "  \"plan_source\": \"defaults\",\n",
              std::string("  \"plan_source\": \"defaults\",\n  ") +
                  kExtendMember + ",\n");
  return edit(text, "\"local_bytes\": 0}\n  ]",
              std::string("\"local_bytes\": 0},\n    ") + kExtendKernels +
                  "\n  ]");
}

/// Every occurrence replaced (at least one).
inline std::string editAll(std::string text, const std::string &from,
                           const std::string &to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "fixture has no '" << from << "'";
  while (at != std::string::npos) {
    text.replace(at, from.size(), to);
    at = text.find(from, at + to.size());
  }
  return text;
}

/// Loads a manifest text with the fixture's fake cubin and PTX.
inline tqrt_status loadText(const std::string &manifest, tqrt_bundle **out) {
  static const std::string image = readFixture("kernels.cubin");
  static const std::string ptx = readFixture("kernels.ptx");
  return tqrt_bundle_load_memory(manifest.data(), manifest.size(),
                                 image.data(), image.size(), ptx.data(),
                                 ptx.size(), out);
}

inline std::string lastError() { return tqrt_last_error(); }

/// Owns a bundle and a plan for a test.
struct Loaded {
  tqrt_bundle *bundle = nullptr;
  tqrt_plan *plan = nullptr;
  ~Loaded() {
    tqrt_plan_destroy(plan);
    tqrt_bundle_destroy(bundle);
  }
};

} // namespace tqrt_test

#define EXPECT_STATUS(expr, status)                                           \
  do {                                                                         \
    tqrt_status s_ = (expr);                                                   \
    EXPECT_EQ(s_, status) << tqrt_status_name(s_) << ": "                      \
                          << tqrt_last_error();                                \
  } while (0)

#define EXPECT_ERROR_HAS(text)                                                 \
  EXPECT_NE(std::string(tqrt_last_error()).find(text), std::string::npos)      \
      << "message: " << tqrt_last_error()

#endif
