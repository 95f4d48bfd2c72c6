// The parts of an evidence document kept as JSON rather than read into the Evidence struct: the
// host fingerprint, and a triage document's own keys (change_points, findings, regressions,
// search). Their renderers read them as they are, so their types are checked here, when the
// document is read: a damaged or edited value is a usage error that names its path, like every
// key of the key table, never a renderer's exception or a silent "0 cases".
#include "core/evidence/raw_parts.hpp"

#include <initializer_list>
#include <string_view>
#include <utility>

#include "core/util/escape.hpp"

namespace culprit::evidence {
namespace {

using nlohmann::json;

enum class Kind : std::uint8_t { string, text_or_null, number, count, boolean, array, object };

bool is_kind(const json& node, Kind kind) {
  switch (kind) {
  case Kind::string:
    return node.is_string();
  case Kind::text_or_null:
    return node.is_string() || node.is_null();
  case Kind::number:
    return node.is_number();
  case Kind::count:
    return node.is_number_unsigned() || (node.is_number_integer() && node.get<std::int64_t>() >= 0);
  case Kind::boolean:
    return node.is_boolean();
  case Kind::array:
    return node.is_array();
  case Kind::object:
    return node.is_object();
  }
  return false;
}

std::string_view kind_name(Kind kind) {
  switch (kind) {
  case Kind::string:
    return "a string";
  case Kind::text_or_null:
    return "a string or null";
  case Kind::number:
    return "a number";
  case Kind::count:
    return "a whole number of at least 0";
  case Kind::boolean:
    return "true or false";
  case Kind::array:
    return "an array";
  case Kind::object:
    return "an object";
  }
  return "something else";
}

std::string member_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

Status wrong(const std::string& path, const json& node, Kind kind) {
  return usage_error("'{}' in the evidence is {}, not {}; it was damaged or edited: render the "
                     "file culprit wrote",
                     path, excerpt(node.dump()), kind_name(kind));
}

// The keys of an object that are there: each of its kind (absent keys are fine: an older
// document lacks the newer ones).
Status check_keys(const json& object, const std::string& path,
                  std::initializer_list<std::pair<const char*, Kind>> keys) {
  if (!object.is_object())
    return wrong(path, object, Kind::object);
  for (const auto& [key, kind] : keys) {
    const auto it = object.find(key);
    if (it != object.end() && !is_kind(*it, kind))
      return wrong(member_path(path, key), *it, kind);
  }
  return {};
}

// Each element of the array at `key` of `object` (when there) checked by `each`.
template <class Each>
Status check_each(const json& object, const std::string& path, const char* key, Each each) {
  const auto it = object.find(key);
  if (it == object.end())
    return {};
  const auto at = member_path(path, key);
  if (!it->is_array())
    return wrong(at, *it, Kind::array);
  for (std::size_t i = 0; i < it->size(); ++i)
    CULPRIT_TRY(each((*it)[i], fmt::format("{}[{}]", at, i)));
  return {};
}

Status check_interval(const json& c, const std::string& path) {
  const auto it = c.find("ci");
  if (it == c.end())
    return {};
  if (!it->is_array() || it->size() != 2 || !(*it)[0].is_number() || !(*it)[1].is_number())
    return usage_error("'{}.ci' in the evidence is {}, not two numbers; it was damaged or edited: "
                       "render the file culprit wrote",
                       path, excerpt(it->dump()));
  return {};
}

Status check_culprit(const json& culprit, const std::string& path) {
  CULPRIT_TRY(
      check_keys(culprit, path,
                 {{"commit", Kind::string}, {"subject", Kind::string}, {"cases", Kind::array}}));
  return check_each(culprit, path, "cases", [](const json& c, const std::string& at) -> Status {
    CULPRIT_TRY(check_keys(
        c, at, {{"case", Kind::string}, {"name", Kind::string}, {"ratio", Kind::number}}));
    return check_interval(c, at);
  });
}

Status check_finding(const json& finding, const std::string& path) {
  CULPRIT_TRY(check_keys(finding, path,
                         {{"kind", Kind::string},
                          {"commit", Kind::string},
                          {"subject", Kind::string},
                          {"author", Kind::string},
                          {"cases", Kind::array},
                          {"bisect", Kind::object}}));
  const auto bisect = finding.find("bisect");
  if (bisect == finding.end())
    return {};
  const auto at = member_path(path, "bisect");
  CULPRIT_TRY(check_keys(*bisect, at, {{"culprits", Kind::array}}));
  return check_each(*bisect, at, "culprits", check_culprit);
}

Status check_change(const json& change, const std::string& path) {
  CULPRIT_TRY(check_keys(change, path,
                         {{"case", Kind::string},
                          {"metric", Kind::string},
                          {"before", Kind::string},
                          {"after", Kind::string},
                          {"ratio", Kind::number},
                          {"kind", Kind::string},
                          {"status", Kind::string},
                          {"note", Kind::string}}));
  return {};
}

Status check_record(const json& record, const std::string& path) {
  return check_keys(record, path,
                    {{"id", Kind::string},
                     {"culprit", Kind::string},
                     {"subject", Kind::string},
                     {"fixed_by", Kind::string},
                     {"state", Kind::string},
                     {"cases", Kind::count},
                     {"before", Kind::string},
                     {"after", Kind::string},
                     {"new", Kind::boolean}});
}

Status check_triage_keys(const json& doc) {
  CULPRIT_TRY(check_keys(doc, "",
                         {{"change_points", Kind::array},
                          {"findings", Kind::array},
                          {"regressions", Kind::object},
                          {"search", Kind::object}}));
  CULPRIT_TRY(check_each(doc, "", "change_points", check_change));
  CULPRIT_TRY(check_each(doc, "", "findings", check_finding));
  if (const auto r = doc.find("regressions"); r != doc.end())
    for (const char* list : {"recorded", "seen", "unbisected", "fixed", "went_away"})
      CULPRIT_TRY(check_each(*r, "regressions", list, check_record));
  if (const auto s = doc.find("search"); s != doc.end())
    CULPRIT_TRY(check_keys(*s, "search",
                           {{"points", Kind::count},
                            {"searched", Kind::count},
                            {"since", Kind::text_or_null},
                            {"whole_because", Kind::string}}));
  return {};
}

} // namespace

Status check_raw_parts(const json& doc, std::string_view kind) {
  if (const auto host = doc.find("host"); host != doc.end() && host->is_object()) {
    CULPRIT_TRY(check_keys(*host, "host",
                           {{"hostname", Kind::text_or_null},
                            {"cpu", Kind::text_or_null},
                            {"os", Kind::text_or_null},
                            {"cores", Kind::count},
                            {"gpus", Kind::array}}));
    CULPRIT_TRY(check_each(*host, "host", "gpus", [](const json& gpu, const std::string& at) {
      return check_keys(
          gpu, at,
          {{"name", Kind::string}, {"uuid", Kind::string}, {"driver_version", Kind::string}});
    }));
  }
  if (kind == "triage")
    CULPRIT_TRY(check_triage_keys(doc));
  return {};
}

} // namespace culprit::evidence
