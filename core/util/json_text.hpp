#pragma once
// The one way culprit writes a JSON document: text that is not UTF-8 (a file name, a benchmark's
// output, a commit of an unusual encoding that slipped through) becomes U+FFFD instead of an
// exception that would lose the document.

#include <string>

#include <nlohmann/json.hpp>

namespace culprit {

inline std::string json_text(const nlohmann::json& document, int indent = -1) {
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace culprit
