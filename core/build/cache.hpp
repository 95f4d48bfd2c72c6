#pragma once
// The content-addressed build cache of one repository.
//
//   objects/ab/cdef...[.x]   file contents by hash (".x" for executables), written once
//   artifacts/<artifact id>/  a build's artifacts: hard links to objects, symlinks as symlinks
//   artifacts/<id>.state      every artifact entry's size, mode, time and inode when assembled
//   builds/<build key>.json   what became of a build key: ok or failed, artifact id, log, time
//   logs/<build key>.log      the build command's output
//
// The artifact id hashes the artifacts' paths, kinds, modes and contents, so builds whose outputs
// are byte-identical share one artifact directory and, later, one measurement. Every entry is
// created under a temporary name and renamed into place, so an interrupted or failed copy (a full
// disk) never leaves a partial entry behind.
//
// Objects are read-only, but a run as root, or one that removes a file of {build}, can still
// change what every artifact of that content holds. So an artifact is checked before it is
// reused (its state against the one kept, and its contents when they differ), a changed one is
// discarded and built again, an object whose content no longer matches its name is replaced,
// and the sampler stops a run that changed its artifacts (measure/sampler.hpp).

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::build {

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

// Removes from the slot, before a build, what store_artifacts would take from `sources` after it:
// what the globs match under the build directory (all of the build directory when there are no
// globs), and the files they match under the source directory that the commit does not track
// (`tracked` says, given a path relative to the source directory). The build must then write
// every artifact anew, so an artifact holds what this commit's build produced and nothing a build
// of another commit left in the slot: make, ninja and CMake rewrite no output they find up to
// date, and remove none that the commit no longer builds, so neither the files' times nor their
// presence tell a leftover from an output. Whatever else the build directory holds (objects,
// dependency files, CMake's cache) persists, and the build stays incremental: only the artifacts
// themselves are made again (a link, a copy). A glob that is refused or matches a link on the way
// removes nothing here; storing the artifacts says why.
Status clear_artifact_outputs(const ArtifactSources& sources,
                              const std::function<bool(const std::filesystem::path&)>& tracked);

class BuildCache {
public:
  explicit BuildCache(std::filesystem::path root) : m_root(std::move(root)) {}

  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }
  [[nodiscard]] std::filesystem::path log_path(const std::string& key) const;
  [[nodiscard]] std::filesystem::path artifact_dir(const std::string& artifact_id) const;

  // The record of `key`, when there is one whose artifacts are still there and intact (a changed
  // artifact is discarded, and the build made again).
  [[nodiscard]] std::optional<BuildRecord> lookup(const std::string& key) const;
  Status record(const BuildRecord& record) const;
  Status forget(const std::string& key) const;

  // Whether an artifact is still what it was built as: intact (its entries' sizes, modes, times
  // and inodes as assembled, or else its contents hashed again to its id), changed (a run wrote
  // into it: a file appended to, removed or added) or missing.
  enum class Check { intact, changed, missing };
  [[nodiscard]] Check check_artifact(const std::string& artifact_id) const;
  // Removes a changed artifact, so that the next build of it assembles it anew.
  Status discard_artifact(const std::string& artifact_id) const;

  // Copies the matched files into the object store and links them into an artifact directory.
  // Returns the artifact id. Globs that match nothing are a usage error naming them.
  Result<std::string> store_artifacts(const ArtifactSources& sources) const;

private:
  [[nodiscard]] std::filesystem::path state_file(const std::string& artifact_id) const;
  std::filesystem::path m_root;
};

} // namespace culprit::build
