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
