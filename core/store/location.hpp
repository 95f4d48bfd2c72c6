#pragma once
// Where the results live: the embedded SQLite files in the repository's cache dir (the default),
// or a PostgreSQL server that a team shares, named by a postgresql:// URL. Artifacts and build
// logs stay in the local cache dir either way: only results are shared.
//
// The URL comes from --store, else the CULPRIT_STORE environment variable (for CI secrets), else
// the recipe's [store] url. Its password never reaches a message, a log or an evidence file:
// what culprit prints is masked_url().

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/util/error.hpp"

namespace culprit::store {

// The environment variable that names the store when --store does not.
inline constexpr std::string_view k_store_env = "CULPRIT_STORE";

struct Location {
  std::filesystem::path cache_dir; // the repository's cache dir: always there
  std::string url;                 // postgresql://...; empty for the SQLite files in cache_dir
  [[nodiscard]] bool shared() const { return !url.empty(); }
  // The store as messages and evidence name it: the SQLite directory, or the masked URL.
  [[nodiscard]] std::string describe() const;
};

// Checks a store URL: postgresql:// or postgres://, and what libpq can parse. A usage error
// (without the password) that says what a URL looks like otherwise.
Status check_store_url(std::string_view url);

// The URL with its password replaced by "***", in the user info (user:secret@host) and in a
// password= parameter alike.
std::string masked_url(std::string_view url);

// `text` (a message of libpq's about the store `url`) with every secret the URL holds replaced,
// as written and as libpq decodes it.
std::string without_secrets(std::string text, std::string_view url);

// `text` with every postgresql:// or postgres:// URL in it masked (an argument such as
// --store=postgresql://ci:secret@db/perf, kept in evidence as the command line).
std::string mask_urls_in(std::string_view text);

// The store URL in effect: `flag` when given, else $CULPRIT_STORE, else the recipe's; none for
// the SQLite default. Checked with check_store_url.
Result<std::string> choose_store_url(std::optional<std::string_view> flag,
                                     std::optional<std::string_view> recipe);

} // namespace culprit::store
