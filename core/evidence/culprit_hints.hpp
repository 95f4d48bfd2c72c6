#pragma once
// What changed with a culprit, as facts a person can check: the diffstat of the commit against
// its first parent (libgit2 patches), the per-kernel ptxas resource table of the culprit's build
// against the parent's (core/ptxas on the two build logs in the build cache), the sizes of the
// two builds' artifacts, and the symbols whose size changed most (nm). Nothing here guesses a
// cause: a fact that cannot be read is left out, and a note says so when that is worth knowing.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/build/cache.hpp"
#include "core/evidence/evidence.hpp"
#include "core/exec/executor.hpp"
#include "core/git/repository.hpp"
#include "core/util/error.hpp"

namespace culprit::evidence {

struct HintSources {
  const build::BuildCache* cache = nullptr; // null: no build facts
  std::string culprit_build_key;            // empty: that build is unknown
  std::string parent_build_key;
  // Runs `nm -C --size-sort -S FILE` (an argument vector, no shell) on the artifacts that differ;
  // null: no symbol sizes. nm missing, failing or timing out, or a file that is not an object,
  // is skipped without a note.
  exec::Executor* executor = nullptr;
  exec::Seconds nm_timeout{20};
  std::size_t max_files = 20;   // file rows kept in the diffstat and the artifact list
  std::size_t max_objects = 4;  // artifacts given to nm, the largest first
  std::size_t max_symbols = 12; // symbol rows kept
};

// The diffstat of `commit` against its first parent (the empty tree for a root commit), with
// renames detected. Totals count every file; by_file keeps the max_files files with the most
// changed lines, in path order.
Result<EvidenceDiffstat> diffstat(const git::Repository& repo, std::string_view commit,
                                  std::size_t max_files = 20);

// Everything above for `culprit` against its first parent. Errors only for what stops culprit
// itself (an unreadable repository, an interrupt); missing facts become notes or are left out.
Result<EvidenceHints> culprit_hints(const git::Repository& repo, std::string_view culprit,
                                    const HintSources& sources);

// Fills in each culprit of evidence.bisect from git and the build cache: parent, subject,
// author, email, date (the author's, ISO 8601), the files it touched, their owners from the
// CODEOWNERS file at the culprit commit, and the hints, with build keys from evidence.builds.
Status describe_culprits(Evidence& evidence, const git::Repository& repo,
                         const build::BuildCache* cache, exec::Executor* executor);

} // namespace culprit::evidence
