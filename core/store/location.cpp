#include "core/store/location.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <libpq-fe.h>

#include "core/util/error.hpp"
#include "core/util/text.hpp"

namespace culprit::store {
namespace {

constexpr std::string_view k_url_shape =
    "postgresql://USER@HOST:PORT/DATABASE (a password in ~/.pgpass or PGPASSWORD)";

bool has_scheme(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

// Replaces the value of every password=... parameter of the query.
std::string mask_query(std::string query) {
  std::size_t at = 0;
  while ((at = query.find("password=", at)) != std::string::npos) {
    if (at != 0 && query[at - 1] != '&' && query[at - 1] != '?') {
      at += 9;
      continue;
    }
    const auto value = at + 9;
    const auto end = query.find('&', value);
    query.replace(value, (end == std::string::npos ? query.size() : end) - value, "***");
    at = value + 3;
  }
  return query;
}

} // namespace

std::string Location::describe() const {
  return shared() ? masked_url(url) : cache_dir.string();
}

std::string masked_url(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return mask_query(std::string(url));
  const auto authority = scheme_end + 3;
  const auto path = url.find_first_of("/?", authority);
  const auto host_part = url.substr(
      authority, path == std::string_view::npos ? std::string_view::npos : path - authority);
  std::string out(url.substr(0, authority));
  // The user info ends at the last '@' of the authority (a password may hold '@' unescaped).
  const auto at = host_part.rfind('@');
  if (at != std::string_view::npos) {
    const auto user_info = host_part.substr(0, at);
    const auto colon = user_info.find(':');
    out += colon == std::string_view::npos ? std::string(user_info)
                                           : std::string(user_info.substr(0, colon)) + ":***";
    out += host_part.substr(at);
  } else {
    out += host_part;
  }
  if (path != std::string_view::npos)
    out += mask_query(std::string(url.substr(path)));
  return out;
}

std::string mask_urls_in(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    const auto start = std::min(text.find("postgresql://"), text.find("postgres://"));
    if (start == std::string_view::npos)
      break;
    const auto end = text.find_first_of(" \t\n'\"", start);
    out += text.substr(0, start);
    out += masked_url(text.substr(start, end == std::string_view::npos ? end : end - start));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end);
  }
  out += text;
  return out;
}

Status check_store_url(std::string_view url) {
  if (!has_scheme(url))
    return usage_error("the store URL {} is not a PostgreSQL URL; write {}", masked_url(url),
                       k_url_shape);
  char* message = nullptr;
  const std::string text(url);
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &message);
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(options,
                                                                            PQconninfoFree);
  if (parsed == nullptr) {
    std::string why = message != nullptr ? std::string(trim(message)) : "out of memory";
    PQfreemem(message);
    return usage_error("the store URL {} is malformed ({}); write {}", masked_url(url), why,
                       k_url_shape);
  }
  return {};
}

Result<std::string> choose_store_url(std::optional<std::string_view> flag,
                                     std::optional<std::string_view> recipe) {
  std::string url;
  if (flag)
    url = *flag;
  else if (const char* env = std::getenv(std::string(k_store_env).c_str()); env != nullptr)
    url = env;
  else if (recipe)
    url = *recipe;
  url = std::string(trim(url));
  if (!url.empty())
    CULPRIT_TRY(check_store_url(url));
  return url;
}

} // namespace culprit::store
