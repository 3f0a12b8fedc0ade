//===- json.cpp - A small strict JSON reader for the manifest ------------===//
#include "json.h"

#include "error.h"

#include <charconv>
#include <cstdio>

namespace tqrt::json {

const Value *Value::find(std::string_view key) const {
  for (const auto &m : members)
    if (m.first == key)
      return &m.second;
  return nullptr;
}

namespace {

// Nesting deeper than this is rejected rather than risking the stack; a
// manifest nests four levels.
constexpr int kMaxDepth = 64;

class Parser {
public:
  Parser(std::string_view text, const std::string &source)
      : text_(text), source_(source) {}

  Value parseDocument() {
    // A UTF-8 byte order mark is tolerated (RFC 8259 §8.1 lets parsers
    // ignore it); editors on some systems add one.
    if (text_.substr(0, 3) == "\xEF\xBB\xBF")
      advance(3);
    skipSpace();
    Value v = parseValue(0);
    skipSpace();
    if (pos_ != text_.size())
      error("unexpected " + here() + " after the JSON value");
    return v;
  }

private:
  std::string_view text_;
  const std::string &source_;
  size_t pos_ = 0;
  int line_ = 1, column_ = 1;

  [[noreturn]] void errorAt(int line, int column, const std::string &what) {
    fail(TQRT_BAD_BUNDLE, source_ + ":" + std::to_string(line) + ":" +
                              std::to_string(column) + ": " + what);
  }
  [[noreturn]] void error(const std::string &what) {
    errorAt(line_, column_, what);
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  void advance(size_t n = 1) {
    for (size_t i = 0; i < n && pos_ < text_.size(); ++i) {
      if (text_[pos_] == '\n') {
        ++line_;
        column_ = 1;
      } else if ((static_cast<unsigned char>(text_[pos_]) & 0xC0) != 0x80) {
        ++column_; // count characters, not UTF-8 continuation bytes
      }
      ++pos_;
    }
  }

  // What the cursor is at, for messages.
  std::string here() const {
    if (atEnd())
      return "end of input";
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    char buf[32];
    if (c >= 0x20 && c < 0x7F)
      std::snprintf(buf, sizeof buf, "character '%c'", c);
    else
      std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
    return buf;
  }

  void skipSpace() {
    while (!atEnd()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
        break;
      advance();
    }
  }

  void expectWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      error("unexpected " + here() + " (expected a JSON value)");
    advance(word.size());
  }

  Value parseValue(int depth) {
    if (depth > kMaxDepth)
      error("nesting deeper than " + std::to_string(kMaxDepth) + " levels");
    Value v;
    v.line = line_;
    v.column = column_;
    switch (peek()) {
    case '{':
      parseObject(v, depth);
      break;
    case '[':
      parseArray(v, depth);
      break;
    case '"':
      v.type = Type::String;
      v.string = parseString();
      break;
    case 't':
      expectWord("true");
      v.type = Type::Bool;
      v.boolean = true;
      break;
    case 'f':
      expectWord("false");
      v.type = Type::Bool;
      break;
    case 'n':
      expectWord("null");
      break;
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
        parseNumber(v);
        break;
      }
      error("unexpected " + here() + " (expected a JSON value)");
    }
    return v;
  }

  void parseObject(Value &v, int depth) {
    v.type = Type::Object;
    advance(); // '{'
    skipSpace();
    if (peek() == '}') {
      advance();
      return;
    }
    for (;;) {
      skipSpace();
      if (peek() != '"')
        error("unexpected " + here() + " (expected a member name in quotes)");
      int keyLine = line_, keyColumn = column_;
      std::string key = parseString();
      if (v.find(key))
        errorAt(keyLine, keyColumn, "duplicate member \"" + key + "\"");
      skipSpace();
      if (peek() != ':')
        error("unexpected " + here() + " (expected ':' after \"" + key +
              "\")");
      advance();
      skipSpace();
      Value member = parseValue(depth + 1);
      v.members.emplace_back(std::move(key), std::move(member));
      skipSpace();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == '}') {
        advance();
        return;
      }
      error("unexpected " + here() + " (expected ',' or '}' in an object)");
    }
  }

  void parseArray(Value &v, int depth) {
    v.type = Type::Array;
    advance(); // '['
    skipSpace();
    if (peek() == ']') {
      advance();
      return;
    }
    for (;;) {
      skipSpace();
      v.items.push_back(parseValue(depth + 1));
      skipSpace();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == ']') {
        advance();
        return;
      }
      error("unexpected " + here() + " (expected ',' or ']' in an array)");
    }
  }

  unsigned parseHex4() {
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      unsigned d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        error("unexpected " + here() + " in a \\u escape (expected 4 hex digits)");
      value = value * 16 + d;
      advance();
    }
    return value;
  }

  static void appendUtf8(std::string &out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // Copies one UTF-8 encoded character, rejecting malformed, overlong and
  // surrogate encodings.
  void copyUtf8(std::string &out) {
    unsigned char c = static_cast<unsigned char>(text_[pos_]);
    int n;
    unsigned cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      error("invalid UTF-8 " + here() + " in a string");
    }
    for (int i = 1; i <= n; ++i) {
      if (pos_ + i >= text_.size() ||
          (static_cast<unsigned char>(text_[pos_ + i]) & 0xC0) != 0x80)
        error("invalid UTF-8 sequence in a string");
      cp = (cp << 6) | (static_cast<unsigned char>(text_[pos_ + i]) & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      error("invalid UTF-8 sequence in a string");
    out.append(text_.substr(pos_, n + 1));
    advance(n + 1);
  }

  std::string parseString() {
    int startLine = line_, startColumn = column_;
    advance(); // '"'
    std::string out;
    for (;;) {
      if (atEnd())
        errorAt(startLine, startColumn, "unterminated string");
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        advance();
        return out;
      }
      if (c < 0x20)
        error("control character (byte 0x" +
              std::string(1, "0123456789ABCDEF"[c >> 4]) +
              std::string(1, "0123456789ABCDEF"[c & 15]) +
              ") in a string; write it as an escape");
      if (c >= 0x80) {
        copyUtf8(out);
        continue;
      }
      if (c != '\\') {
        out += static_cast<char>(c);
        advance();
        continue;
      }
      advance(); // '\\'
      char e = peek();
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': {
        advance();
        unsigned cp = parseHex4();
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          // A high surrogate must be followed by an escaped low surrogate.
          if (peek() != '\\' || pos_ + 1 >= text_.size() ||
              text_[pos_ + 1] != 'u')
            error("unpaired UTF-16 surrogate in a \\u escape");
          advance(2);
          unsigned low = parseHex4();
          if (low < 0xDC00 || low > 0xDFFF)
            error("unpaired UTF-16 surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          error("unpaired UTF-16 surrogate in a \\u escape");
        }
        appendUtf8(out, cp);
        continue; // parseHex4 advanced past the digits
      }
      default:
        error("unknown escape '\\" + std::string(1, e ? e : '?') +
              "' (accepted: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
      }
      advance();
    }
  }

  void parseNumber(Value &v) {
    size_t start = pos_;
    bool integral = true;
    if (peek() == '-')
      advance();
    if (peek() == '0') {
      advance();
      if (peek() >= '0' && peek() <= '9')
        error("leading zero in a number");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        advance();
    } else {
      error("unexpected " + here() + " in a number (expected a digit)");
    }
    if (peek() == '.') {
      integral = false;
      advance();
      if (!(peek() >= '0' && peek() <= '9'))
        error("unexpected " + here() + " after '.' (expected a digit)");
      while (peek() >= '0' && peek() <= '9')
        advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      if (!(peek() >= '0' && peek() <= '9'))
        error("unexpected " + here() + " in an exponent (expected a digit)");
      while (peek() >= '0' && peek() <= '9')
        advance();
    }
    const char *first = text_.data() + start;
    const char *last = text_.data() + pos_;
    v.type = Type::Number;
    // from_chars is locale independent (strtod would read "0,5" under a
    // German LC_NUMERIC set by the host application).
    if (integral) {
      auto r = std::from_chars(first, last, v.integer);
      v.isInteger = r.ec == std::errc() && r.ptr == last;
    }
    auto r = std::from_chars(first, last, v.number);
    if (r.ec == std::errc::result_out_of_range)
      errorAt(v.line, v.column,
              "number " + std::string(first, last) + " is out of range");
    if (r.ec != std::errc() || r.ptr != last)
      errorAt(v.line, v.column, "malformed number " + std::string(first, last));
  }
};

} // namespace

Value parse(std::string_view text, const std::string &source) {
  return Parser(text, source).parseDocument();
}

std::string describe(const Value &v) {
  switch (v.type) {
  case Type::Null:
    return "null";
  case Type::Bool:
    return v.boolean ? "true" : "false";
  case Type::Number: {
    if (v.isInteger)
      return std::to_string(v.integer);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v.number);
    return buf;
  }
  case Type::String: {
    std::string s = v.string.size() > 40 ? v.string.substr(0, 40) + "..."
                                          : v.string;
    return "\"" + s + "\"";
  }
  case Type::Array:
    return "an array";
  case Type::Object:
    return "an object";
  }
  return "?";
}

} // namespace tqrt::json
