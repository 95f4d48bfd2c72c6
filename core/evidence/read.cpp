// Reading evidence back (culprit-evidence(5)) by walking the key table of core/evidence/keys.hpp:
// every key typed and named in its errors, then the invariants of core/evidence/check.cpp. The
// writer is core/evidence/evidence.cpp.
#include "core/evidence/evidence.hpp"

#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <utility>

#include "core/evidence/keys.hpp"
#include "core/evidence/raw_parts.hpp"
#include "core/util/escape.hpp"
#include "core/util/fs.hpp"

namespace culprit::evidence {
namespace {

using nlohmann::json;
using namespace keys;

std::string key_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

// The value at a dotted key of `node`; nullptr when it or an object on its way is absent.
const json* find_key(const json& node, std::string_view name) {
  const json* at = &node;
  for (;;) {
    const auto dot = name.find('.');
    const auto part = name.substr(0, dot);
    if (!at->is_object())
      return nullptr;
    const auto it = at->find(part);
    if (it == at->end())
      return nullptr;
    at = &*it;
    if (dot == std::string_view::npos)
      return at;
    name.remove_prefix(dot + 1);
  }
}

template <class T> Status read_value(const json& node, const std::string& path, T& out);

// A whole number that fits T. nlohmann's own conversion casts whatever number it finds (1e30 into
// an int is undefined behaviour), and takes true for 1; a fraction would be cut.
template <std::integral T> Status read_integer(const json& node, const std::string& path, T& out) {
  const auto refuse = [&] {
    return usage_error("'{}' in the evidence is {}, not a whole number from {} to {}; it was "
                       "damaged or edited: render the file culprit wrote",
                       path, excerpt(node.dump()), std::numeric_limits<T>::min(),
                       std::numeric_limits<T>::max());
  };
  if (node.is_number_unsigned()) {
    const auto value = node.get<std::uint64_t>();
    if (!std::in_range<T>(value))
      return refuse();
    out = static_cast<T>(value);
  } else if (node.is_number_integer()) {
    const auto value = node.get<std::int64_t>();
    if (!std::in_range<T>(value))
      return refuse();
    out = static_cast<T>(value);
  } else if (node.is_number_float()) {
    // Compared as doubles: the bounds of 64-bit types round up to the next power of two, which is
    // out of range itself, hence the strict upper bound.
    const auto value = node.get<double>();
    if (!std::isfinite(value) || value != std::trunc(value) ||
        value < static_cast<double>(std::numeric_limits<T>::min()) ||
        value >= std::ldexp(1.0, std::numeric_limits<T>::digits))
      return refuse();
    out = static_cast<T>(value);
  } else {
    return usage_error("'{}' in the evidence has the wrong type ({})", path, node.type_name());
  }
  return {};
}

// A list of strings whose nulls read as empty strings (a run in no block).
template <class T> Status read_null_for_empty(const json& node, const std::string& path, T& out) {
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!node.is_array())
      return usage_error("'{}' in the evidence has the wrong type ({})", path, node.type_name());
    out.clear();
    for (const auto& element : node) {
      if (!element.is_null() && !element.is_string())
        return usage_error("'{}' in the evidence holds a {}, not a block name or null", path,
                           element.type_name());
      out.push_back(element.is_null() ? std::string() : element.get<std::string>());
    }
    return {};
  } else {
    return read_value(node, path, out);
  }
}

template <Object S> Status read_object(const json& node, const std::string& path, S& out) {
  if (!node.is_object())
    return usage_error("'{}' in the evidence must be an object", path);
  Status status;
  for_each_key<S>([&](const auto& key) {
    const auto* value = find_key(node, key.name);
    const auto where = key_path(path, key.name);
    if (value == nullptr || value->is_null()) {
      if (key.presence == Presence::required)
        status = usage_error("the evidence lacks '{}'; it was not written by this version of "
                             "culprit, or it was edited",
                             where);
    } else if (key.spelling == Spelling::null_for_empty) {
      status = read_null_for_empty(*value, where, out.*key.member);
    } else {
      status = read_value(*value, where, out.*key.member);
    }
    return status.has_value();
  });
  return status;
}

template <class T> Status read_value(const json& node, const std::string& path, T& out) {
  if constexpr (Object<T>) {
    return read_object(node, path, out);
  } else if constexpr (is_optional<T>::value) {
    typename T::value_type value{};
    CULPRIT_TRY(read_value(node, path, value));
    out = std::move(value);
    return {};
  } else if constexpr (is_object_list<T>::value) {
    if (!node.is_array())
      return usage_error("'{}' in the evidence must be an array", path);
    out.clear();
    for (std::size_t i = 0; i < node.size(); ++i) {
      typename T::value_type element{};
      CULPRIT_TRY(read_object(node[i], fmt::format("{}[{}]", path, i), element));
      out.push_back(std::move(element));
    }
    return {};
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return read_integer(node, path, out);
  } else {
    try {
      out = node.template get<T>();
    } catch (const json::exception&) {
      return usage_error("'{}' in the evidence has the wrong type ({})", path, node.type_name());
    }
    return {};
  }
}

} // namespace

Result<Evidence> evidence_from_json(const nlohmann::json& doc) {
  if (!doc.is_object())
    return usage_error("the evidence is not a JSON object; give a file that culprit wrote with "
                       "--json");
  // The schema first: a document of another schema is named as such, not by a key it lacks.
  const auto* schema = find_key(doc, "schema");
  if (schema == nullptr || !schema->is_string())
    return usage_error("the evidence has no 'schema' string; give a file that culprit wrote with "
                       "--json");
  if (*schema != k_evidence_schema)
    return usage_error("the evidence has schema '{}', and this culprit reads '{}'; render it with "
                       "the culprit that wrote it",
                       schema->get<std::string>(), k_evidence_schema);
  Evidence e;
  CULPRIT_TRY(read_object(doc, "", e));
  CULPRIT_TRY(check_raw_parts(doc, e.kind));
  if (const auto it = doc.find("host"); it != doc.end() && it->is_object())
    e.host = *it;
  if (const auto it = doc.find("executor"); it != doc.end() && it->is_object())
    e.executor = *it;
  CULPRIT_TRY(check_evidence(e));
  return e;
}

Result<json> load_evidence_json(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    return usage_error("no evidence file at {}; give the path that --json wrote", file.string());
  auto text = read_file(file);
  if (!text)
    return usage_error("{}", text.error().message);
  json doc;
  try {
    doc = json::parse(*text);
  } catch (const json::parse_error& e) {
    return usage_error("{} is not JSON (at byte {}); give a file that culprit wrote with --json",
                       file.string(), e.byte);
  }
  return doc;
}

Result<Evidence> load_evidence(const std::filesystem::path& file) {
  CULPRIT_TRY_ASSIGN(const auto doc, load_evidence_json(file));
  return evidence_from_json(doc);
}

} // namespace culprit::evidence
