#include "core/store/location.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
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

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = ascii_lower(c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// %XX decoded where XX is hex, as libpq decodes a URL's parts; anything else kept.
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
        hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Whether a parameter's name holds a secret (password, sslpassword), however it is spelled:
// libpq decodes a URL parameter's name, and a name it does not know still reaches a message.
bool names_secret(std::string_view key) {
  std::string lower;
  for (const char c : percent_decoded(key))
    lower += ascii_lower(c);
  return lower.ends_with("password");
}

// Whether a dbname value is a whole connection string, as libpq reads one holding '=' or a
// scheme: it may carry a password of its own, so it is masked whole.
bool is_nested_connection(std::string_view key, std::string_view value) {
  if (percent_decoded(key) != "dbname")
    return false;
  const auto decoded = percent_decoded(value);
  return decoded.find('=') != std::string::npos || decoded.find("://") != std::string::npos;
}

// The query of a URL (what follows '?') with the value of every secret parameter replaced.
std::string mask_query(std::string_view query) {
  std::string out;
  for (bool first = true; first || !query.empty(); first = false) {
    const auto end = query.find('&');
    const auto parameter = query.substr(0, end);
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
    if (!first)
      out += '&';
    const auto equals = parameter.find('=');
    out += equals != std::string_view::npos &&
                   (names_secret(parameter.substr(0, equals)) ||
                    is_nested_connection(parameter.substr(0, equals), parameter.substr(equals + 1)))
               ? std::string(parameter.substr(0, equals)) + "=***"
               : std::string(parameter);
  }
  return out;
}

// One parameter of libpq's key=value form ("host=db password = 'a b'"), as written: the blanks
// before it, its key, the blanks and '=' after the key, and its value (quoted or bare).
struct ParameterText {
  std::string_view before;
  std::string_view key;
  std::string_view equals;
  std::string_view value;
};

constexpr std::string_view k_parameter_blanks = " \t\n\r\f\v";

// The parameters of `text` as far as it reads as key=value parameters; *rest is what follows.
std::vector<ParameterText> parameter_texts(std::string_view text, std::string_view* rest) {
  std::vector<ParameterText> out;
  std::size_t at = 0;
  const auto blank = [&](std::size_t i) {
    return i < text.size() && k_parameter_blanks.find(text[i]) != std::string_view::npos;
  };
  const auto piece = [&](std::size_t from) { return text.substr(from, at - from); };
  for (;;) {
    ParameterText p;
    const auto start = at;
    while (blank(at))
      ++at;
    p.before = piece(start);
    const auto key_start = at;
    while (at < text.size() && text[at] != '=' && !blank(at))
      ++at;
    p.key = piece(key_start);
    const auto equals_start = at;
    while (blank(at))
      ++at;
    if (p.key.empty() || at >= text.size() || text[at] != '=') {
      *rest = text.substr(start);
      return out;
    }
    ++at;
    while (blank(at))
      ++at;
    p.equals = piece(equals_start);
    const auto value_start = at;
    const bool quoted = at < text.size() && text[at] == '\'';
    for (at += quoted ? 1 : 0; at < text.size() && (quoted ? text[at] != '\'' : !blank(at)); ++at)
      if (text[at] == '\\')
        ++at;
    at = std::min(at + (quoted ? 1 : 0), text.size());
    p.value = piece(value_start);
    out.push_back(p);
  }
}

// libpq's key=value parameters with the value of every secret parameter replaced; what follows
// where the text stops reading as parameters is kept only when it holds no '='.
std::string mask_parameters(std::string_view text) {
  std::string_view rest;
  std::string out;
  for (const auto& p : parameter_texts(text, &rest))
    out += fmt::format("{}{}{}{}", p.before, p.key, p.equals,
                       names_secret(p.key) || is_nested_connection(p.key, p.value)
                           ? std::string_view("***")
                           : p.value);
  if (!rest.empty())
    out += rest.find('=') == std::string_view::npos ? rest : std::string_view(" ...");
  return out;
}

// A URL's authority split as culprit reads it: the user info runs from "://" to the last '@'
// before the query (a password may hold '@' or '/' unencoded, which libpq would misread: the
// URL check refuses those, but a message must not show them either); the host part runs from
// there to the path or the query.
struct Authority {
  std::size_t start = 0;                     // just past "://"
  std::optional<std::string_view> user_info; // before the '@', when there is one
  std::string_view host_part;                // after the '@', up to '/' or '?'
  std::size_t end = std::string_view::npos;  // where the path or query starts
};

Authority authority_of(std::string_view url, std::size_t scheme_end) {
  Authority out;
  out.start = scheme_end + 3;
  const auto query = url.find('?', out.start);
  const auto before_query =
      url.substr(out.start, query == std::string_view::npos ? query : query - out.start);
  auto host_start = out.start;
  if (const auto at = before_query.rfind('@'); at != std::string_view::npos) {
    out.user_info = before_query.substr(0, at);
    host_start = out.start + at + 1;
  }
  out.end = url.find_first_of("/?", host_start);
  out.host_part =
      url.substr(host_start, out.end == std::string_view::npos ? out.end : out.end - host_start);
  return out;
}

// The secrets a store's text holds, as written and as libpq decodes them: the password of the
// URL's user info, the values of its secret parameters; a message from libpq may quote them.
std::vector<std::string> secrets_of(std::string_view url) {
  std::vector<std::string> out;
  const auto add = [&](std::string_view secret) {
    if (!secret.empty()) {
      out.emplace_back(secret);
      out.push_back(percent_decoded(secret));
    }
  };
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    std::string_view rest;
    for (const auto& p : parameter_texts(url, &rest))
      if (names_secret(p.key) || is_nested_connection(p.key, p.value))
        add(trim(p.value, "'"));
    return out;
  }
  if (const auto user_info = authority_of(url, scheme_end).user_info)
    if (const auto colon = user_info->find(':'); colon != std::string_view::npos)
      add(user_info->substr(colon + 1));
  const auto query_at = url.find('?');
  for (auto query = query_at == std::string_view::npos ? std::string_view()
                                                       : url.substr(query_at + 1);
       !query.empty();) {
    const auto end = query.find('&');
    const auto parameter = query.substr(0, end);
    query = end == std::string_view::npos ? std::string_view() : query.substr(end + 1);
    if (const auto equals = parameter.find('=');
        equals != std::string_view::npos &&
        (names_secret(parameter.substr(0, equals)) ||
         is_nested_connection(parameter.substr(0, equals), parameter.substr(equals + 1))))
      add(parameter.substr(equals + 1));
  }
  return out;
}

// A URL part percent-encoded where it holds anything but unreserved characters.
std::string url_encoded(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
        std::string_view("-._~").find(c) != std::string_view::npos)
      out += c;
    else
      out += fmt::format("%{:02X}", u);
  }
  return out;
}

// libpq's key=value parameters written as the URL culprit takes, without their secrets; none
// when the text does not read as parameters, names several hosts, or names no user, host or
// database.
std::optional<std::string> url_of_parameters(std::string_view text) {
  char* message = nullptr;
  const std::string copy(text);
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
      PQconninfoParse(copy.c_str(), &message), PQconninfoFree);
  PQfreemem(message);
  if (options == nullptr)
    return std::nullopt;
  std::string user, host, port, dbname;
  std::vector<std::string> others;
  for (const auto* option = options.get(); option->keyword != nullptr; ++option) {
    if (option->val == nullptr || *option->val == '\0')
      continue;
    const std::string_view keyword = option->keyword;
    const std::string_view value = option->val;
    if (keyword == "user")
      user = url_encoded(value);
    else if (keyword == "host" || keyword == "hostaddr")
      host = value.find(',') != std::string_view::npos ? std::string(",") : url_encoded(value);
    else if (keyword == "port")
      port = value.find(',') != std::string_view::npos ? std::string(",") : url_encoded(value);
    else if (keyword == "dbname" && is_nested_connection(keyword, value))
      return std::nullopt; // a connection string of its own, perhaps with a password
    else if (keyword == "dbname")
      dbname = url_encoded(value);
    else if (!names_secret(keyword))
      others.push_back(fmt::format("{}={}", keyword, url_encoded(value)));
  }
  if (host == "," || port == "," || (user.empty() && host.empty() && dbname.empty()))
    return std::nullopt;
  return fmt::format("postgresql://{}{}{}{}{}/{}{}{}", user, user.empty() ? "" : "@", host,
                     port.empty() ? "" : ":", port, dbname, others.empty() ? "" : "?",
                     fmt::join(others, "&"));
}

} // namespace

std::string without_secrets(std::string text, std::string_view url) {
  for (const auto& secret : secrets_of(url))
    for (auto at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
      text.replace(at, secret.size(), "***");
  return text;
}

std::string Location::describe() const {
  return shared() ? masked_url(url) : cache_dir.string();
}

std::string masked_url(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos)
    return mask_parameters(url);
  const auto authority = authority_of(url, scheme_end);
  std::string out(url.substr(0, authority.start));
  if (const auto& user_info = authority.user_info) {
    const auto colon = user_info->find(':');
    out += colon == std::string_view::npos ? std::string(*user_info)
                                           : std::string(user_info->substr(0, colon)) + ":***";
    out += '@';
  }
  out += authority.host_part;
  const auto path = authority.end;
  if (path == std::string_view::npos)
    return out;
  const auto rest = url.substr(path);
  const auto query = rest.find('?');
  out += rest.substr(0, query);
  if (query != std::string_view::npos)
    out += "?" + mask_query(rest.substr(query + 1));
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
  if (!has_scheme(url)) {
    // libpq takes key=value parameters too; culprit names a store by URL alone, so that every
    // message, log and evidence file can mask its password.
    if (const auto as_url = url_of_parameters(url))
      return usage_error("the store {} is written as libpq's key=value parameters; name it by "
                         "URL: {} (a password in ~/.pgpass or PGPASSWORD)",
                         masked_url(url), *as_url);
    return usage_error("the store URL {} is not a PostgreSQL URL; write {}", masked_url(url),
                       k_url_shape);
  }
  // libpq ends the user info at the first '@' or '/': a password holding either unencoded
  // would be read as part of the host, and a message about that host would show it.
  if (const auto user_info = authority_of(url, url.find("://")).user_info) {
    const auto colon = user_info->find(':');
    if (user_info->find('@') != std::string_view::npos ||
        (colon != std::string_view::npos && user_info->find('/', colon) != std::string_view::npos))
      return usage_error("the store URL {} holds an unencoded '/' or '@' in its user name or "
                         "password; percent-encode them (%2F for '/', %40 for '@')",
                         masked_url(url));
  }
  char* message = nullptr;
  const std::string text(url);
  PQconninfoOption* options = PQconninfoParse(text.c_str(), &message);
  const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> parsed(options,
                                                                            PQconninfoFree);
  if (parsed == nullptr) {
    std::string why = message != nullptr ? std::string(trim(message)) : "out of memory";
    PQfreemem(message);
    return usage_error("the store URL {} is malformed ({}); write {}", masked_url(url),
                       without_secrets(std::move(why), url), k_url_shape);
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
