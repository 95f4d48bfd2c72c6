// Writing evidence as JSON (culprit-evidence(5)) by walking the key table of
// core/evidence/keys.hpp; reading it back is core/evidence/read.cpp.
#include "core/evidence/evidence.hpp"

#include "core/evidence/keys.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"

namespace culprit::evidence {
namespace {

using nlohmann::json;
using namespace keys;

template <class T> json value_json(const T& value);

// Whether an `omitted` key holds nothing, so that it is left out.
template <class T> bool is_empty(const T& value) {
  if constexpr (is_optional<T>::value)
    return !value.has_value();
  else if constexpr (requires { value.empty(); })
    return value.empty();
  else if constexpr (std::equality_comparable<T>)
    return value == T{};
  else
    return false; // an object: never omitted
}

template <class T> json null_for_empty_json(const T& value) {
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    json out = json::array();
    for (const auto& element : value)
      out.push_back(element.empty() ? json(nullptr) : json(element));
    return out;
  } else {
    return value_json(value);
  }
}

template <Object S> json object_json(const S& object) {
  json doc = json::object();
  for_each_key<S>([&](const auto& key) {
    const auto& value = object.*key.member;
    if (key.presence == Presence::omitted && is_empty(value))
      return true;
    json* at = &doc;
    auto name = key.name;
    for (auto dot = name.find('.'); dot != std::string_view::npos; dot = name.find('.')) {
      at = &(*at)[std::string(name.substr(0, dot))];
      name.remove_prefix(dot + 1);
    }
    (*at)[std::string(name)] =
        key.spelling == Spelling::null_for_empty ? null_for_empty_json(value) : value_json(value);
    return true;
  });
  return doc;
}

template <class T> json value_json(const T& value) {
  if constexpr (Object<T>) {
    return object_json(value);
  } else if constexpr (is_optional<T>::value) {
    return value ? value_json(*value) : json(nullptr);
  } else if constexpr (is_object_list<T>::value) {
    json out = json::array();
    for (const auto& element : value)
      out.push_back(object_json(element));
    return out;
  } else {
    return json(value);
  }
}

} // namespace

nlohmann::json to_json(const Evidence& e) {
  json doc = object_json(e);
  doc["tool"]["name"] = "culprit";
  doc["host"] = e.host;
  doc["executor"] = e.executor;
  return doc;
}

void add_culprit(std::vector<EvidenceCulprit>& culprits, EvidenceCulprit culprit) {
  const auto same =
      std::ranges::find_if(culprits, [&](const auto& c) { return c.commit == culprit.commit; });
  if (same == culprits.end()) {
    culprits.push_back(std::move(culprit));
    return;
  }
  for (auto& moved : culprit.cases)
    if (std::ranges::none_of(same->cases, [&](const auto& c) { return c.name == moved.name; }))
      same->cases.push_back(std::move(moved));
}

Status save_evidence(const Evidence& evidence, const std::filesystem::path& file) {
  return write_file_atomic(file, json_text(to_json(evidence), 2) + "\n");
}

std::string EvidenceBisect::candidate_line(std::size_t i, std::size_t id_length) const {
  const auto id = candidates.at(i).substr(0, id_length);
  return i < candidate_subjects.size() && !candidate_subjects[i].empty()
             ? id + " " + candidate_subjects[i]
             : id;
}

} // namespace culprit::evidence
