#include "core/build/cache.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <vector>

#include <fnmatch.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "core/git/hash.hpp"
#include "core/util/clock.hpp"
#include "core/util/fs.hpp"
#include "core/util/json_text.hpp"
#include "core/util/tree_state.hpp"

namespace culprit::build {
namespace {

namespace fs = std::filesystem;

struct Entry {
  enum class Kind { file, executable, symlink };
  Kind kind = Kind::file;
  fs::path source;    // where it is now
  std::string hash;   // content hash (files)
  std::string target; // link target (symlinks)
};

using Manifest = std::map<std::string, Entry>; // artifact-relative path -> entry

bool has_dot_dot(std::string_view glob) {
  const fs::path path(glob);
  return std::any_of(path.begin(), path.end(), [](const fs::path& part) { return part == ".."; });
}

Status add_path(Manifest& manifest, const fs::path& base, const fs::path& absolute) {
  std::error_code ec;
  const auto status = fs::symlink_status(absolute, ec);
  const auto relative = absolute.lexically_relative(base).generic_string();
  if (ec || relative.empty() || relative.starts_with(".."))
    return infra_error("artifact {} lies outside {}", absolute.string(), base.string());
  if (fs::is_directory(status)) {
    for (auto it = fs::recursive_directory_iterator(absolute, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (!it->is_directory(ec) || it->is_symlink(ec))
        CULPRIT_TRY(add_path(manifest, base, it->path()));
    }
    if (ec)
      return infra_error("cannot read {}: {}", absolute.string(), ec.message());
    return {};
  }
  Entry entry;
  entry.source = absolute;
  if (fs::is_symlink(status)) {
    entry.kind = Entry::Kind::symlink;
    entry.target = fs::read_symlink(absolute, ec).string();
  } else if (fs::is_regular_file(status)) {
    entry.kind = (status.permissions() & fs::perms::owner_exec) != fs::perms::none
                     ? Entry::Kind::executable
                     : Entry::Kind::file;
  } else {
    return {}; // sockets, fifos and devices are not artifacts
  }
  if (const auto [it, inserted] = manifest.emplace(relative, entry);
      !inserted && it->second.source != absolute)
    return usage_error("two artifacts would both be {}: {} and {}; make the globs disjoint",
                       relative, it->second.source.string(), absolute.string());
  return {};
}

// The first directory on the way from `base` to `base / relative` that is a symbolic link: a link
// committed to the tree, or made by the build, would lead the copy out of the slot.
std::optional<fs::path> link_on_the_way(const fs::path& base, const fs::path& relative) {
  fs::path at = base;
  std::error_code ec;
  for (auto part = relative.begin(); part != relative.end(); ++part) {
    if (std::next(part) == relative.end())
      break; // the artifact itself may be a link: it is kept as one, never followed
    at /= *part;
    if (fs::is_symlink(fs::symlink_status(at, ec)))
      return at.lexically_relative(base);
  }
  return std::nullopt;
}

// What `glob` matches under `base`: files, links and directories, none reached through a link.
Result<std::vector<fs::path>> matched_paths(const fs::path& base, std::string_view glob) {
  const bool any_depth = glob.find("**") != std::string_view::npos;
  const std::string pattern(glob);
  std::vector<fs::path> matched;
  std::error_code ec;
  if (pattern.find_first_of("*?[") == std::string::npos) {
    if (const auto link = link_on_the_way(base, pattern))
      return usage_error("artifact '{}' leads outside {} through the symbolic link {}; culprit "
                         "follows no link out of the build: list the link itself, or files that "
                         "lie inside",
                         glob, base.string(), link->generic_string());
    if (fs::exists(fs::symlink_status(base / pattern, ec)))
      matched.push_back(base / pattern);
    return matched;
  }
  for (auto it = fs::recursive_directory_iterator(base, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto relative = it->path().lexically_relative(base).generic_string();
    const int flags = any_depth ? 0 : FNM_PATHNAME;
    if (fnmatch(pattern.c_str(), relative.c_str(), flags) == 0) {
      matched.push_back(it->path());
      if (it->is_directory(ec) && !it->is_symlink(ec))
        it.disable_recursion_pending();
    }
  }
  return matched;
}

Status match_glob(Manifest& manifest, const fs::path& base, std::string_view glob) {
  CULPRIT_TRY_ASSIGN(const auto matched, matched_paths(base, glob));
  if (matched.empty())
    return usage_error("artifact glob '{}' matched nothing in {}; fix [build] artifacts or the "
                       "build command",
                       glob, base.string());
  for (const auto& path : matched)
    CULPRIT_TRY(add_path(manifest, base, path));
  return {};
}

Result<Manifest> collect(const ArtifactSources& sources) {
  Manifest manifest;
  std::error_code ec;
  if (sources.globs.empty()) {
    if (!fs::is_directory(sources.build_dir, ec) || fs::is_empty(sources.build_dir, ec))
      return usage_error("the build left nothing in {}; write outputs to {{build}} or set "
                         "[build] artifacts",
                         sources.build_dir.string());
    CULPRIT_TRY(add_path(manifest, sources.build_dir, sources.build_dir));
    return manifest;
  }
  for (const auto& glob : sources.globs) {
    if (has_dot_dot(glob) || glob.starts_with("/"))
      return usage_error("artifact glob '{}' must stay inside the build or source directory "
                         "(no '..', no absolute paths)",
                         glob);
    constexpr std::string_view k_src_prefix = "{src}/";
    if (glob.starts_with(k_src_prefix))
      CULPRIT_TRY(match_glob(manifest, sources.source_dir, glob.substr(k_src_prefix.size())));
    else
      CULPRIT_TRY(match_glob(manifest, sources.build_dir, glob));
  }
  return manifest;
}

// Copies `source` into the object store unless its content is there already.
Status store_object(const fs::path& objects, Entry& entry) {
  CULPRIT_TRY_ASSIGN(entry.hash, git::hash_file(entry.source));
  const bool executable = entry.kind == Entry::Kind::executable;
  const auto object =
      objects / entry.hash.substr(0, 2) / (entry.hash.substr(2) + (executable ? ".x" : ""));
  std::error_code ec;
  if (fs::exists(object, ec)) {
    // An object is written once, but a run that wrote into its artifacts (as root, which the
    // read-only modes do not stop) changed it: it is replaced, never linked again as it is.
    const auto held = git::hash_file(object);
    if (held && *held == entry.hash)
      return {};
    fs::remove(object, ec);
  }
  fs::create_directories(object.parent_path(), ec);
  // Unique per process and per call: two builds in one process (the build pool's threads) may
  // store the same content at once.
  static std::atomic<std::uint64_t> s_copies{0};
  const auto temp = object.parent_path() / (".tmp-" + entry.hash + "-" + std::to_string(getpid()) +
                                            "-" + std::to_string(s_copies++));
  fs::copy_file(entry.source, temp, fs::copy_options::overwrite_existing, ec);
  if (!ec)
    fs::permissions(temp, executable ? fs::perms(0555) : fs::perms(0444), ec);
  if (!ec)
    fs::rename(temp, object, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return infra_error("cannot copy artifact {} into the build cache: {}; free some disk space "
                       "or pass --cache-dir on another disk",
                       entry.source.string(), ec.message());
  }
  return {};
}

std::string object_kind(Entry::Kind kind) {
  return kind == Entry::Kind::executable ? "executable"
                                         : (kind == Entry::Kind::file ? "file" : "symlink");
}

// The artifact id of what `dir` holds now: the hash of its listing, as store_artifacts makes it.
Result<std::string> artifact_id_of(const fs::path& dir) {
  Manifest manifest;
  CULPRIT_TRY(add_path(manifest, dir, dir));
  nlohmann::json listing = nlohmann::json::array();
  for (auto& [path, entry] : manifest) {
    if (entry.kind == Entry::Kind::symlink) {
      listing.push_back({path, "symlink", entry.target});
      continue;
    }
    CULPRIT_TRY_ASSIGN(entry.hash, git::hash_file(entry.source));
    listing.push_back({path, object_kind(entry.kind), entry.hash});
  }
  return git::hash_bytes(json_text(listing));
}

// Removes a directory tree whose directories a run may have made read-only.
void remove_tree(const fs::path& dir) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(dir, ec);
}

} // namespace

fs::path BuildCache::state_file(const std::string& artifact_id) const {
  return m_root / "artifacts" / (artifact_id + ".state");
}

BuildCache::Check BuildCache::check_artifact(const std::string& artifact_id) const {
  const auto dir = artifact_dir(artifact_id);
  const auto now = tree_state(dir);
  if (!now)
    return Check::missing;
  // The state kept when the artifact was assembled: equal, and nothing was written since.
  if (const auto kept = read_file(state_file(artifact_id))) {
    const auto state = tree_state_from_text(*kept);
    if (state && !first_difference(*state, *now))
      return Check::intact;
  }
  // Touched, or from before states were kept: the contents decide, and the state is kept anew.
  const auto id = artifact_id_of(dir);
  if (!id || *id != artifact_id)
    return Check::changed;
  // Kept for the next check, which is then cheap again; one that cannot be kept only costs the
  // next check its hashing.
  [[maybe_unused]] const auto kept = write_file_atomic(state_file(artifact_id), to_text(*now));
  return Check::intact;
}

Status BuildCache::discard_artifact(const std::string& artifact_id) const {
  std::error_code ec;
  fs::remove(state_file(artifact_id), ec);
  remove_tree(artifact_dir(artifact_id));
  if (fs::exists(artifact_dir(artifact_id), ec))
    return infra_error("cannot remove the changed artifacts {}; remove them by hand",
                       artifact_dir(artifact_id).string());
  return {};
}

fs::path BuildCache::log_path(const std::string& key) const {
  return m_root / "logs" / (key + ".log");
}

fs::path BuildCache::artifact_dir(const std::string& artifact_id) const {
  return m_root / "artifacts" / artifact_id;
}

std::optional<BuildRecord> BuildCache::lookup(const std::string& key) const {
  auto text = read_file(m_root / "builds" / (key + ".json"));
  if (!text)
    return std::nullopt;
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.is_object())
    return std::nullopt;
  BuildRecord record;
  try {
    record.key = json.at("key").get<std::string>();
    record.commit = json.at("commit").get<std::string>();
    record.tree = json.value("tree", "");
    record.ok = json.at("ok").get<bool>();
    record.seconds = json.value("seconds", 0.0);
    record.artifact_id = json.value("artifact_id", "");
    record.log = json.value("log", "");
    record.message = json.value("message", "");
    record.created = json.value("created", "");
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  if (record.ok) {
    // Artifacts cleaned away, or changed since the build (a run that wrote into {build}): the
    // build is made again rather than measured as it is now.
    const auto check = check_artifact(record.artifact_id);
    // A changed artifact that cannot be removed now is removed when the build stores it again.
    if (check == Check::changed && !discard_artifact(record.artifact_id))
      return std::nullopt;
    if (check != Check::intact)
      return std::nullopt;
  }
  return record;
}

Status BuildCache::record(const BuildRecord& record) const {
  CULPRIT_TRY(ensure_writable_dir(m_root / "builds", "cache directory"));
  const nlohmann::json json = {
      {"key", record.key},
      {"commit", record.commit},
      {"tree", record.tree},
      {"ok", record.ok},
      {"seconds", record.seconds},
      {"artifact_id", record.artifact_id},
      {"log", record.log.string()},
      {"message", record.message},
      {"created", record.created.empty() ? utc_now_iso8601() : record.created}};
  return write_file_atomic(m_root / "builds" / (record.key + ".json"), json_text(json, 2) + "\n");
}

Status BuildCache::forget(const std::string& key) const {
  std::error_code ec;
  fs::remove(m_root / "builds" / (key + ".json"), ec);
  if (ec)
    return infra_error("cannot forget build {}: {}", key, ec.message());
  return {};
}

Result<std::string> BuildCache::store_artifacts(const ArtifactSources& sources) const {
  CULPRIT_TRY_ASSIGN(auto manifest, collect(sources));
  const auto objects = m_root / "objects";
  nlohmann::json listing = nlohmann::json::array();
  for (auto& [path, entry] : manifest) {
    if (entry.kind == Entry::Kind::symlink) {
      listing.push_back({path, "symlink", entry.target});
      continue;
    }
    CULPRIT_TRY(store_object(objects, entry));
    listing.push_back({path, object_kind(entry.kind), entry.hash});
  }
  std::string artifact_id = git::hash_bytes(json_text(listing));
  const auto final_dir = artifact_dir(artifact_id);
  std::error_code ec;
  switch (check_artifact(artifact_id)) {
  case Check::intact:
    return artifact_id;
  case Check::changed:
    CULPRIT_TRY(discard_artifact(artifact_id));
    break;
  case Check::missing:
    break;
  }

  CULPRIT_TRY(ensure_writable_dir(m_root / "artifacts", "cache directory"));
  std::string temp = (m_root / "artifacts" / ".tmp-XXXXXX").string();
  if (mkdtemp(temp.data()) == nullptr)
    return infra_error("cannot create a directory in {}", (m_root / "artifacts").string());
  fs::permissions(temp, fs::perms(0755), ec);
  auto cleanup = [&] {
    std::error_code ignored;
    fs::remove_all(temp, ignored);
  };
  for (const auto& [path, entry] : manifest) {
    const auto destination = fs::path(temp) / path;
    fs::create_directories(destination.parent_path(), ec);
    if (!ec && entry.kind == Entry::Kind::symlink) {
      fs::create_symlink(entry.target, destination, ec);
    } else if (!ec) {
      const auto object =
          objects / entry.hash.substr(0, 2) /
          (entry.hash.substr(2) + (entry.kind == Entry::Kind::executable ? ".x" : ""));
      fs::create_hard_link(object, destination, ec);
      if (ec) { // another file system, or links not allowed: copy instead
        ec.clear();
        fs::copy_file(object, destination, ec);
      }
    }
    if (ec) {
      cleanup();
      return infra_error("cannot assemble the artifacts in the build cache: {}; free some disk "
                         "space or pass --cache-dir on another disk",
                         ec.message());
    }
  }
  const auto assembled = tree_state(temp);
  fs::rename(temp, final_dir, ec);
  if (ec) {
    cleanup(); // another process assembled the same artifacts first
    if (!fs::is_directory(final_dir))
      return infra_error("cannot store artifacts in {}: {}", final_dir.string(), ec.message());
    return artifact_id;
  }
  // A rename keeps every entry's inode and times: the state of the assembly is the artifact's.
  if (assembled)
    CULPRIT_TRY(write_file_atomic(state_file(artifact_id), to_text(*assembled)));
  return artifact_id;
}

Status clear_artifact_outputs(const ArtifactSources& sources,
                              const std::function<bool(const fs::path&)>& tracked) {
  std::error_code ec;
  const auto remove = [&](const fs::path& path) -> Status {
    if (fs::is_symlink(fs::symlink_status(path, ec)) || !fs::is_directory(path, ec))
      fs::remove(path, ec);
    else
      remove_tree(path);
    if (fs::exists(fs::symlink_status(path, ec)))
      return infra_error("cannot remove {} before the build; remove it by hand, or the slot "
                         "{} with it",
                         path.string(), sources.build_dir.parent_path().string());
    return {};
  };
  if (sources.globs.empty()) {
    for (auto it = fs::directory_iterator(sources.build_dir, ec);
         !ec && it != fs::directory_iterator(); it.increment(ec))
      CULPRIT_TRY(remove(it->path()));
    return {};
  }
  constexpr std::string_view k_src_prefix = "{src}/";
  for (const auto& glob : sources.globs) {
    if (has_dot_dot(glob) || glob.starts_with("/"))
      continue; // refused after the build, with the reason
    const bool in_source = glob.starts_with(k_src_prefix);
    const auto& base = in_source ? sources.source_dir : sources.build_dir;
    auto matched = matched_paths(base, in_source ? glob.substr(k_src_prefix.size()) : glob);
    if (!matched)
      continue; // likewise
    for (const auto& path : *matched) {
      if (!in_source) {
        CULPRIT_TRY(remove(path));
        continue;
      }
      // In the sources, only what the commit does not track: the checkout made the rest.
      Manifest files;
      if (!add_path(files, base, path))
        continue;
      for (const auto& [relative, entry] : files)
        if (!tracked(relative))
          CULPRIT_TRY(remove(entry.source));
    }
  }
  return {};
}

} // namespace culprit::build
