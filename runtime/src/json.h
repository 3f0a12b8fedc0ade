//===- json.h - A small strict JSON reader for the manifest -----*- C++ -*-===//
//
// Why not nlohmann/json (which the compiler uses to write the manifest): the
// runtime must build on an engine's machine that has a C++ compiler and
// nothing else (the project's GPU machine has no nlohmann-json package), and
// third-party code is not vendored into this repository. The manifest is
// small and plain, so a strict RFC 8259 reader of ~300 lines suffices. It
// rejects everything RFC 8259 does not allow (comments, trailing commas,
// NaN, leading zeros, control characters in strings, invalid UTF-8) and
// duplicate object keys, and every error carries a line and column.
//
//===----------------------------------------------------------------------===//
#ifndef TQRT_SRC_JSON_H
#define TQRT_SRC_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tqrt::json {

enum class Type { Null, Bool, Number, String, Array, Object };

struct Value {
  Type type = Type::Null;
  bool boolean = false;
  double number = 0;
  /// True when the literal has no fraction or exponent and fits int64; then
  /// `integer` holds it exactly (sizes and seeds must not go through double).
  bool isInteger = false;
  int64_t integer = 0;
  std::string string;
  std::vector<Value> items;                            // Array
  std::vector<std::pair<std::string, Value>> members;  // Object, in order
  int line = 0, column = 0;                            // where it starts

  /// The member named `key`, or nullptr (objects only).
  const Value *find(std::string_view key) const;
};

/// Parses one JSON text. Throws tqrt::Error(TQRT_BAD_BUNDLE,
/// "<source>:<line>:<column>: <what>") on malformed input.
Value parse(std::string_view text, const std::string &source);

/// A short description of a value for messages: `"abc"`, `12`, `an object`.
std::string describe(const Value &v);

} // namespace tqrt::json

#endif
