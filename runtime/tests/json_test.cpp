//===- json_test.cpp - The strict JSON reader (internals) ----------------===//
#include "error.h"
#include "json.h"

#include <gtest/gtest.h>

using namespace tqrt;

namespace {

json::Value parse(const std::string &text) { return json::parse(text, "t.json"); }

TEST(Json, Values) {
  json::Value v = parse(" {\"a\": [1, -2.5e1, true, false, null, \"s\"], \"b\": {}}\n");
  ASSERT_EQ(v.type, json::Type::Object);
  ASSERT_EQ(v.members.size(), 2u);
  const json::Value *a = v.find("a");
  ASSERT_TRUE(a);
  ASSERT_EQ(a->items.size(), 6u);
  EXPECT_TRUE(a->items[0].isInteger);
  EXPECT_EQ(a->items[0].integer, 1);
  EXPECT_FALSE(a->items[1].isInteger);
  EXPECT_DOUBLE_EQ(a->items[1].number, -25.0);
  EXPECT_TRUE(a->items[2].boolean);
  EXPECT_EQ(a->items[3].type, json::Type::Bool);
  EXPECT_EQ(a->items[4].type, json::Type::Null);
  EXPECT_EQ(a->items[5].string, "s");
  EXPECT_EQ(v.find("b")->type, json::Type::Object);
  EXPECT_EQ(v.find("c"), nullptr);
  EXPECT_EQ(a->line, 1);
  EXPECT_EQ(a->column, 8);
}

TEST(Json, IntegersStayExact) {
  json::Value v = parse("[9007199254740993, -9223372036854775808, 9223372036854775808, 1.0]");
  EXPECT_TRUE(v.items[0].isInteger);
  EXPECT_EQ(v.items[0].integer, 9007199254740993LL); // not representable as a double
  EXPECT_TRUE(v.items[1].isInteger);
  EXPECT_EQ(v.items[1].integer, INT64_MIN);
  EXPECT_FALSE(v.items[2].isInteger); // beyond int64: a double only
  EXPECT_FALSE(v.items[3].isInteger); // 1.0 is not an integer literal
}

TEST(Json, Strings) {
  json::Value v = parse("\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00\xC3\xA9\"");
  EXPECT_EQ(v.string, "a\"b\\c/d\n\t\xC3\xA9\xF0\x9F\x98\x80\xC3\xA9");
}

TEST(Json, ByteOrderMarkIsTolerated) {
  EXPECT_EQ(parse("\xEF\xBB\xBF{}").type, json::Type::Object);
}

TEST(Json, ColumnsCountCharacters) {
  try {
    parse("{\"\xC3\xA9\xC3\xA9\": x}");
    FAIL() << "accepted";
  } catch (const Error &e) {
    EXPECT_EQ(e.message.rfind("t.json:1:8: unexpected character 'x'", 0), 0u)
        << e.message;
  }
}

TEST(Json, Describe) {
  EXPECT_EQ(json::describe(parse("12")), "12");
  EXPECT_EQ(json::describe(parse("0.5")), "0.5");
  EXPECT_EQ(json::describe(parse("\"x\"")), "\"x\"");
  EXPECT_EQ(json::describe(parse("[]")), "an array");
  EXPECT_EQ(json::describe(parse("{}")), "an object");
  EXPECT_EQ(json::describe(parse("null")), "null");
}

} // namespace
