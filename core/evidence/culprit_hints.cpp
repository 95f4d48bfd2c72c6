#include "core/evidence/culprit_hints.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "core/build/ptxas.hpp"
#include "core/git/codeowners.hpp"
#include "core/git/handles.hpp"
#include "core/util/fs.hpp"

namespace culprit::evidence {
namespace {

namespace fs = std::filesystem;
using PatchPtr = std::unique_ptr<git_patch, git::Deleter<git_patch, git_patch_free>>;

Result<git::TreePtr> lookup_tree(const git::Repository& repo, const std::string& id) {
  git_oid oid{};
  CULPRIT_TRY(git::git_check(git_oid_fromstr(&oid, id.c_str()), "not a tree id"));
  git_tree* tree = nullptr;
  CULPRIT_TRY(git::git_check(git_tree_lookup(&tree, repo.raw(), &oid),
                             fmt::format("cannot read tree {}", id.substr(0, 12))));
  return git::TreePtr(tree);
}

std::string_view kind_of(git_delta_t status) {
  switch (status) {
  case GIT_DELTA_ADDED:
    return "added";
  case GIT_DELTA_DELETED:
    return "deleted";
  case GIT_DELTA_RENAMED:
    return "renamed";
  case GIT_DELTA_TYPECHANGE:
    return "type_changed";
  default:
    return "modified";
  }
}

EvidenceKernelResources resources_of(const build::PtxasKernel& k) {
  return {k.registers,   k.barriers,     k.spill_store_bytes, k.spill_load_bytes,
          k.stack_bytes, k.shared_bytes, k.constant_bytes};
}

const build::BuildRecord* find_record(const std::optional<build::BuildRecord>& record) {
  return record ? &*record : nullptr;
}

// The per-kernel resource table of the two build logs, when both hold a ptxas report.
void kernel_hints(const build::BuildRecord* parent, const build::BuildRecord* culprit,
                  EvidenceHints& hints) {
  if (parent == nullptr || culprit == nullptr)
    return;
  const auto parent_log = read_file(parent->log);
  const auto culprit_log = read_file(culprit->log);
  if (!parent_log || !culprit_log)
    return;
  const auto before = build::parse_ptxas_log(*parent_log);
  const auto after = build::parse_ptxas_log(*culprit_log);
  if (before.empty() && after.empty())
    return; // not a CUDA build, or built without -Xptxas -v
  if (before.empty() || after.empty()) {
    hints.notes.push_back(fmt::format("only the {}'s build log has a ptxas report",
                                      before.empty() ? "culprit" : "parent"));
    return;
  }
  for (const auto& row : build::diff_ptxas(before, after)) {
    EvidenceKernelChange change;
    change.name = row.name;
    change.arch = row.arch;
    change.change = std::string(to_string(row.change));
    if (row.base)
      change.parent = resources_of(*row.base);
    if (row.head)
      change.culprit = resources_of(*row.head);
    change.description = build::describe_change(row);
    hints.kernels.push_back(std::move(change));
  }
}

struct ArtifactFile {
  std::int64_t bytes = 0;
  fs::path path;
};

std::map<std::string, ArtifactFile> list_artifacts(const fs::path& dir) {
  std::map<std::string, ArtifactFile> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto status = it->symlink_status(ec);
    if (ec || !fs::is_regular_file(status))
      continue;
    const auto size = it->file_size(ec);
    if (!ec)
      files[it->path().lexically_relative(dir).generic_string()] = {static_cast<std::int64_t>(size),
                                                                    it->path()};
  }
  return files;
}

bool is_hex(std::string_view text) {
  return !text.empty() && text.size() <= 16 && std::ranges::all_of(text, [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

bool looks_like_object(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::array<char, 8> magic{};
  in.read(magic.data(), magic.size());
  const std::string_view head(magic.data(), static_cast<std::size_t>(in.gcount()));
  return head.starts_with("\x7f"
                          "ELF") ||
         head.starts_with("!<arch>\n");
}

// Symbol name -> bytes, from `nm -C --size-sort -S`; nullopt when nm cannot say.
Result<std::optional<std::map<std::string, std::int64_t>>>
symbol_sizes(exec::Executor& executor, const fs::path& file, exec::Seconds timeout) {
  exec::ExecRequest request;
  request.command = std::vector<std::string>{"nm", "-C", "--size-sort", "-S", file.string()};
  request.env["LC_ALL"] = "C";
  request.timeout = timeout;
  auto result = executor.run(request);
  if (!result) {
    if (result.error().code == ExitCode::interrupted)
      return std::unexpected(result.error());
    return std::optional<std::map<std::string, std::int64_t>>();
  }
  if (!result->succeeded())
    return std::optional<std::map<std::string, std::int64_t>>();
  std::map<std::string, std::int64_t> sizes;
  std::string_view out = result->out;
  while (!out.empty()) {
    const auto end = out.find('\n');
    const auto line = out.substr(0, end);
    out.remove_prefix(end == std::string_view::npos ? out.size() : end + 1);
    // "<address> <size> <type> <name...>", address and size in hex, the type one letter.
    const auto a = line.find(' ');
    const auto b = a == std::string_view::npos ? a : line.find(' ', a + 1);
    if (b == std::string_view::npos || b + 3 >= line.size() || line[b + 2] != ' ' ||
        !is_hex(line.substr(0, a)) || !is_hex(line.substr(a + 1, b - a - 1)))
      continue;
    const auto bytes =
        std::strtoll(std::string(line.substr(a + 1, b - a - 1)).c_str(), nullptr, 16);
    sizes[std::string(line.substr(b + 3))] += bytes;
  }
  return std::optional(std::move(sizes));
}

std::int64_t magnitude(const EvidenceSizeChange& c) {
  return std::abs(c.culprit_bytes.value_or(0) - c.parent_bytes.value_or(0));
}

void keep_largest(std::vector<EvidenceSizeChange>& changes, std::size_t limit) {
  // Largest change first; ties by name, so that the order never depends on the input's.
  std::ranges::sort(changes, [](const auto& a, const auto& b) {
    return std::tuple(-magnitude(a), a.name, a.artifact) <
           std::tuple(-magnitude(b), b.name, b.artifact);
  });
  if (changes.size() > limit)
    changes.resize(limit);
}

Status binary_hints(const build::BuildCache& cache, const build::BuildRecord* parent,
                    const build::BuildRecord* culprit, const HintSources& sources,
                    EvidenceHints& hints) {
  if (parent == nullptr || culprit == nullptr || !parent->ok || !culprit->ok)
    return {};
  const auto before = list_artifacts(cache.artifact_dir(parent->artifact_id));
  const auto after = list_artifacts(cache.artifact_dir(culprit->artifact_id));
  EvidenceArtifacts artifacts;
  artifacts.identical = parent->artifact_id == culprit->artifact_id;
  artifacts.parent_files = static_cast<int>(before.size());
  artifacts.culprit_files = static_cast<int>(after.size());
  std::vector<std::pair<std::string, std::int64_t>> objects; // differing files both sides have
  for (const auto& [name, file] : before)
    artifacts.parent_bytes += file.bytes;
  for (const auto& [name, file] : after) {
    artifacts.culprit_bytes += file.bytes;
    const auto other = before.find(name);
    std::error_code ec;
    if (other == before.end()) {
      artifacts.changed.push_back({name, "", std::nullopt, file.bytes});
    } else if (!fs::equivalent(other->second.path, file.path, ec)) {
      if (other->second.bytes != file.bytes)
        artifacts.changed.push_back({name, "", other->second.bytes, file.bytes});
      objects.emplace_back(name, file.bytes);
    }
  }
  for (const auto& [name, file] : before)
    if (!after.contains(name))
      artifacts.changed.push_back({name, "", file.bytes, std::nullopt});
  keep_largest(artifacts.changed, sources.max_files);
  hints.artifacts = std::move(artifacts);
  if (sources.executor == nullptr)
    return {};
  std::ranges::sort(objects, [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<EvidenceSizeChange> symbols;
  std::size_t examined = 0;
  for (const auto& [name, bytes] : objects) {
    if (examined == sources.max_objects)
      break;
    const auto& old_file = before.at(name).path;
    const auto& new_file = after.at(name).path;
    if (!looks_like_object(old_file) || !looks_like_object(new_file))
      continue;
    ++examined;
    CULPRIT_TRY_ASSIGN(const auto old_sizes,
                       symbol_sizes(*sources.executor, old_file, sources.nm_timeout));
    CULPRIT_TRY_ASSIGN(const auto new_sizes,
                       symbol_sizes(*sources.executor, new_file, sources.nm_timeout));
    if (!old_sizes || !new_sizes)
      continue;
    for (const auto& [symbol, size] : *new_sizes) {
      const auto old = old_sizes->find(symbol);
      if (old == old_sizes->end())
        symbols.push_back({symbol, name, std::nullopt, size});
      else if (old->second != size)
        symbols.push_back({symbol, name, old->second, size});
    }
    for (const auto& [symbol, size] : *old_sizes)
      if (!new_sizes->contains(symbol))
        symbols.push_back({symbol, name, size, std::nullopt});
  }
  keep_largest(symbols, sources.max_symbols);
  hints.symbols = std::move(symbols);
  return {};
}

} // namespace

Result<EvidenceDiffstat> diffstat(const git::Repository& repo, std::string_view commit,
                                  std::size_t max_files) {
  CULPRIT_TRY_ASSIGN(const auto info, repo.commit_info(commit));
  CULPRIT_TRY_ASSIGN(const auto tree, lookup_tree(repo, info.tree));
  git::TreePtr parent_tree;
  if (!info.parents.empty()) {
    CULPRIT_TRY_ASSIGN(const auto parent, repo.commit_info(info.parents.front()));
    CULPRIT_TRY_ASSIGN(parent_tree, lookup_tree(repo, parent.tree));
  }
  git_diff* raw_diff = nullptr;
  CULPRIT_TRY(git::git_check(
      git_diff_tree_to_tree(&raw_diff, repo.raw(), parent_tree.get(), tree.get(), nullptr),
      "cannot diff the culprit against its parent"));
  const git::DiffPtr diff(raw_diff);
  git_diff_find_options find{};
  git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
  find.flags = GIT_DIFF_FIND_RENAMES;
  CULPRIT_TRY(git::git_check(git_diff_find_similar(diff.get(), &find), "cannot detect renames"));

  EvidenceDiffstat stat;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    git_patch* raw_patch = nullptr;
    CULPRIT_TRY(git::git_check(git_patch_from_diff(&raw_patch, diff.get(), i),
                               "cannot compute the culprit's patch"));
    const PatchPtr patch(raw_patch);
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    EvidenceFileStat file;
    file.path = delta->new_file.path;
    file.old_path = delta->old_file.path;
    file.kind = std::string(kind_of(delta->status));
    file.binary = (delta->flags & GIT_DIFF_FLAG_BINARY) != 0;
    if (patch && !file.binary) {
      std::size_t context = 0;
      std::size_t added = 0;
      std::size_t removed = 0;
      CULPRIT_TRY(git::git_check(git_patch_line_stats(&context, &added, &removed, patch.get()),
                                 "cannot count the culprit's changed lines"));
      file.insertions = static_cast<int>(added);
      file.deletions = static_cast<int>(removed);
    }
    stat.insertions += file.insertions;
    stat.deletions += file.deletions;
    stat.by_file.push_back(std::move(file));
  }
  stat.files = static_cast<int>(stat.by_file.size());
  std::ranges::sort(stat.by_file, [](const auto& a, const auto& b) {
    return std::pair(-(a.insertions + a.deletions), a.path) <
           std::pair(-(b.insertions + b.deletions), b.path);
  });
  if (stat.by_file.size() > max_files)
    stat.by_file.resize(max_files);
  std::ranges::sort(stat.by_file, {}, &EvidenceFileStat::path);
  return stat;
}

Result<EvidenceHints> culprit_hints(const git::Repository& repo, std::string_view culprit,
                                    const HintSources& sources) {
  EvidenceHints hints;
  CULPRIT_TRY_ASSIGN(hints.diffstat, diffstat(repo, culprit, sources.max_files));
  if (sources.cache == nullptr)
    return hints;
  const auto lookup = [&](const std::string& key, std::string_view whose) {
    std::optional<build::BuildRecord> record;
    if (!key.empty())
      record = sources.cache->lookup(key);
    if (!record && !key.empty())
      hints.notes.push_back(fmt::format("the {}'s build is no longer in the build cache", whose));
    return record;
  };
  const auto parent = lookup(sources.parent_build_key, "parent");
  const auto built = lookup(sources.culprit_build_key, "culprit");
  kernel_hints(find_record(parent), find_record(built), hints);
  CULPRIT_TRY(
      binary_hints(*sources.cache, find_record(parent), find_record(built), sources, hints));
  return hints;
}

Status describe_culprits(Evidence& evidence, const git::Repository& repo,
                         const build::BuildCache* cache, exec::Executor* executor) {
  if (!evidence.bisect)
    return {};
  const auto key_of = [&](const std::string& commit) {
    for (const auto& b : evidence.builds)
      if (b.commit == commit)
        return b.key;
    return std::string();
  };
  auto& b = *evidence.bisect;
  b.candidate_subjects.clear();
  for (const auto& candidate : b.candidates) {
    CULPRIT_TRY_ASSIGN(const auto info, repo.commit_info(candidate));
    b.candidate_subjects.push_back(info.subject);
  }
  for (auto& c : evidence.bisect->culprits) {
    CULPRIT_TRY_ASSIGN(const auto info, repo.commit_info(c.commit));
    c.commit = info.id;
    if (c.parent.empty() && !info.parents.empty())
      c.parent = info.parents.front();
    c.subject = info.subject;
    c.author = info.author.name;
    c.email = info.author.email;
    c.date = info.author.iso8601();
    CULPRIT_TRY_ASSIGN(const auto changed, repo.changed_paths(c.commit));
    c.files.clear();
    for (const auto& path : changed)
      c.files.push_back(path.path);
    CULPRIT_TRY_ASSIGN(const auto codeowners, find_codeowners(repo, c.commit));
    c.owners = codeowners ? codeowners->owners.owners_of(c.files) : std::vector<std::string>{};
    HintSources sources;
    sources.cache = cache;
    sources.executor = executor;
    sources.culprit_build_key = key_of(c.commit);
    sources.parent_build_key = c.parent.empty() ? std::string() : key_of(c.parent);
    CULPRIT_TRY_ASSIGN(c.hints, culprit_hints(repo, c.commit, sources));
  }
  return {};
}

} // namespace culprit::evidence
