// The harness's own JSON writing: every string escaped so that a JSON parser reads it back, and
// every number read back as the same double.

#include <cmath>
#include <limits>
#include <string>

#include <culprit/harness/json.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using culprit::harness::append_json_number;
using culprit::harness::append_json_string;
using culprit::harness::JsonObject;

std::string as_json_string(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

TEST(HarnessJson, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(as_json_string("plain"), "\"plain\"");
  EXPECT_EQ(as_json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(as_json_string("tab\tnew\nline\r"), "\"tab\\tnew\\nline\\r\"");
  EXPECT_EQ(as_json_string(std::string("\x01\x1f\b\f", 4)), "\"\\u0001\\u001f\\b\\f\"");
  EXPECT_EQ(as_json_string(std::string("nul\0in", 6)), "\"nul\\u0000in\"");
}

TEST(HarnessJson, KeepsValidUtf8AndReplacesInvalidBytes) {
  EXPECT_EQ(as_json_string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80"),
            "\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80\"");
  EXPECT_EQ(as_json_string("\xFF"), "\"\xEF\xBF\xBD\"");                 // never valid
  EXPECT_EQ(as_json_string("\xC3"), "\"\xEF\xBF\xBD\"");                 // truncated sequence
  EXPECT_EQ(as_json_string("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\""); // overlong '/'
  EXPECT_EQ(as_json_string("\xED\xA0\x80"),
            "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""); // surrogate
}

TEST(HarnessJson, EveryByteStringReadsBackAsJson) {
  // All single bytes and pairs: whatever a device name or error message holds, the line parses.
  for (int first = 0; first < 256; ++first) {
    for (int second = 0; second < 256; second += 7) {
      const std::string text = {static_cast<char>(first), static_cast<char>(second)};
      const auto parsed = nlohmann::json::parse(as_json_string(text), nullptr, false);
      ASSERT_TRUE(parsed.is_string()) << first << " " << second;
      if (first < 0x80 && second < 0x80) {
        EXPECT_EQ(parsed.get<std::string>(), text);
      }
    }
  }
}

TEST(HarnessJson, NumbersReadBackExactly) {
  for (const double value : {0.0, -0.0, 1.0, 0.1, 1.0 / 3.0, 4.12e-3, 268435456.0, 1e300, 5e-324,
                             std::numeric_limits<double>::max(), 123456789012345678.0}) {
    std::string out;
    append_json_number(out, value);
    const auto parsed = nlohmann::json::parse(out);
    ASSERT_TRUE(parsed.is_number()) << out;
    EXPECT_EQ(parsed.get<double>(), value) << out;
  }
  std::string shortest;
  append_json_number(shortest, 0.1);
  EXPECT_EQ(shortest, "0.1");
}

TEST(HarnessJson, ObjectsAreOneLineWithKeysInOrder) {
  const std::string line = JsonObject()
                               .string_field("type", "case")
                               .integer_field("version", 1)
                               .number_field("flops", 2.5)
                               .bool_field("cold", true)
                               .string_map_field("axes", {{"M", "1"}, {"N", "2"}})
                               .line();
  EXPECT_EQ(line, "{\"type\":\"case\",\"version\":1,\"flops\":2.5,\"cold\":true,"
                  "\"axes\":{\"M\":\"1\",\"N\":\"2\"}}\n");
  EXPECT_EQ(JsonObject().line(), "{}\n");
  EXPECT_TRUE(nlohmann::json::parse(line).is_object());
}

} // namespace
