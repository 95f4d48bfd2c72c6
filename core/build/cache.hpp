#pragma once
// The content-addressed build cache of one repository.
//
//   objects/ab/cdef...[.x]   file contents by hash (".x" for executables), written once
//   artifacts/<artifact id>/  a build's artifacts: hard links to objects, symlinks as symlinks
//   builds/<build key>.json   what became of a build key: ok or failed, artifact id, log, time
//   logs/<build key>.log      the build command's output
//
// The artifact id hashes the artifacts' paths, kinds, modes and contents, so builds whose outputs
// are byte-identical share one artifact directory and, later, one measurement. Every entry is
// created under a temporary name and renamed into place, so an interrupted or failed copy (a full
// disk) never leaves a partial entry behind.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/util/error.hpp"

namespace culprit {

struct BuildRecord {
  std::string key;
  std::string commit;
  std::string tree;
  bool ok = false;
  double seconds = 0;
  std::string artifact_id; // empty when the build failed
  std::filesystem::path log;
  std::string message; // why it failed, one line
  std::string created; // ISO 8601 UTC
};

// Where to collect artifacts from: globs relative to the build directory, or starting with
// "{src}/" for in-source builds. A glob holding "**" matches across directories; otherwise "*"
// stops at "/". A glob that matches a directory takes all of it. ".." is refused, and so is a
// path through a symbolic link (committed, or made by the build), which could lead out of the slot;
// links among the artifacts are kept as links, never followed.
struct ArtifactSources {
  std::filesystem::path build_dir;
  std::filesystem::path source_dir;
  std::vector<std::string> globs; // empty: the whole build directory
};

class BuildCache {
public:
  explicit BuildCache(std::filesystem::path root) : m_root(std::move(root)) {}

  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }
  [[nodiscard]] std::filesystem::path log_path(const std::string& key) const;
  [[nodiscard]] std::filesystem::path artifact_dir(const std::string& artifact_id) const;

  // The record of `key`, when there is one whose artifacts are still all there.
  [[nodiscard]] std::optional<BuildRecord> lookup(const std::string& key) const;
  Status record(const BuildRecord& record) const;
  Status forget(const std::string& key) const;

  // Copies the matched files into the object store and links them into an artifact directory.
  // Returns the artifact id. Globs that match nothing are a usage error naming them.
  Result<std::string> store_artifacts(const ArtifactSources& sources) const;

private:
  std::filesystem::path m_root;
};

} // namespace culprit
