#include "core/git/checkout.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include <git2/odb.h>
#include <git2/sys/repository.h>
#include <sys/stat.h>

#include "core/git/library.hpp"
#include "core/util/fs.hpp"

namespace culprit::git {
namespace {

// Opened as a bare repository: nothing here looks at the user's working tree.
Result<RepositoryPtr> open_private(const std::filesystem::path& repository_dir) {
  GitLibrary::ensure();
  git_repository* raw = nullptr;
  CULPRIT_TRY(git_check(
      git_repository_open_ext(&raw, repository_dir.c_str(),
                              GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE, nullptr),
      fmt::format("cannot open the repository at {}", repository_dir.string())));
  return RepositoryPtr(raw);
}

Result<TreePtr> lookup_tree(git_repository* repo, const std::string& tree_id) {
  git_oid oid{};
  if (git_oid_fromstr(&oid, tree_id.c_str()) < 0)
    return infra_error("'{}' is not a tree id", tree_id);
  git_tree* tree = nullptr;
  CULPRIT_TRY(
      git_check(git_tree_lookup(&tree, repo, &oid), fmt::format("cannot read tree {}", tree_id)));
  return TreePtr(tree);
}

struct Progress {
  CheckoutStats stats;
};

int on_notify(git_checkout_notify_t why, const char* /*path*/, const git_diff_file* /*baseline*/,
              const git_diff_file* target, const git_diff_file* /*workdir*/, void* payload) {
  auto* progress = static_cast<Progress*>(payload);
  if (why == GIT_CHECKOUT_NOTIFY_UPDATED && target != nullptr && target->mode != 0)
    ++progress->stats.written;
  return 0;
}

struct TreeChanges {
  std::vector<std::string> paths; // every path that differs between the two trees
  std::size_t deleted = 0;
};

// What differs between two trees: cheap, because git compares subtree ids and descends only into
// the subtrees that changed.
Result<TreeChanges> tree_changes(git_repository* repo, git_tree* baseline, git_tree* target) {
  git_diff* raw = nullptr;
  CULPRIT_TRY(git_check(git_diff_tree_to_tree(&raw, repo, baseline, target, nullptr),
                        "cannot compare the trees"));
  const DiffPtr diff(raw);
  TreeChanges changes;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    if (delta->status == GIT_DELTA_DELETED)
      ++changes.deleted;
    changes.paths.emplace_back(delta->new_file.path);
    if (std::string_view(delta->old_file.path) != delta->new_file.path)
      changes.paths.emplace_back(delta->old_file.path);
  }
  return changes;
}

// Whether the file at `path` holds exactly the blob `id` (no filters: a file that a filter
// changed on checkout reads as different, and is written again).
bool holds_blob(const std::filesystem::path& path, const git_oid& id) {
  git_oid on_disk{};
  return git_odb_hashfile(&on_disk, path.c_str(), GIT_OBJECT_BLOB) == 0 &&
         git_oid_equal(&on_disk, &id) != 0;
}

// Tracked files whose stat data no longer matches what the slot's index recorded when they were
// written: a build scribbled on them or deleted them. One lstat per file; a file is read only
// when its index entry was smudged (see below).
std::vector<std::string> stale_entries(git_index* index, const std::filesystem::path& dir) {
  std::vector<std::string> stale;
  const std::size_t count = git_index_entrycount(index);
  for (std::size_t i = 0; i < count; ++i) {
    const git_index_entry* entry = git_index_get_byindex(index, i);
    if (entry == nullptr || entry->mode == GIT_FILEMODE_COMMIT)
      continue;
    struct stat info = {};
    const auto path = dir / entry->path;
    if (::lstat(path.c_str(), &info) != 0 ||
        S_ISLNK(info.st_mode) != (entry->mode == GIT_FILEMODE_LINK) ||
        info.st_mtim.tv_sec != entry->mtime.seconds ||
        static_cast<std::uint32_t>(info.st_mtim.tv_nsec) != entry->mtime.nanoseconds) {
      stale.emplace_back(entry->path);
      continue;
    }
    if (static_cast<std::uint32_t>(info.st_size) == entry->file_size)
      continue;
    // A file written in the clock tick in which the index was written is "racily clean", and
    // libgit2 records its size as 0 when it next writes the index. Its contents decide: writing
    // an unchanged file again would give it a new mtime, and the build would recompile
    // everything that includes it.
    const bool smudged = entry->file_size == 0 && S_ISREG(info.st_mode);
    if (!smudged || !holds_blob(path, entry->id))
      stale.emplace_back(entry->path);
  }
  return stale;
}

Status checkout_paths(git_repository* repo, git_tree* tree, git_checkout_options options,
                      std::vector<std::string>& paths) {
  std::vector<char*> pointers;
  pointers.reserve(paths.size());
  for (auto& path : paths)
    pointers.push_back(path.data());
  options.checkout_strategy |= GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
  options.paths = {pointers.data(), pointers.size()};
  return git_check(git_checkout_tree(repo, reinterpret_cast<const git_object*>(tree), &options),
                   "cannot check out");
}

// A submodule's name becomes a directory under .git/modules: one with a '..' component, or an
// absolute one, would lead to a repository elsewhere (git refuses them for the same reason).
bool stays_in_module_store(std::string_view name) {
  if (name.empty() || name.front() == '/')
    return false;
  std::size_t start = 0;
  while (start <= name.size()) {
    const auto end = name.find_first_of("/\\", start);
    const auto part =
        name.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part == "..")
      return false;
    if (end == std::string_view::npos)
      break;
    start = end + 1;
  }
  return true;
}

// Only the [submodule ...] sections of a .gitmodules file. libgit2 reads config files from disk
// and follows include.path and includeIf.*.path there, which would let a commit make culprit read
// any file; git itself never follows includes in .gitmodules.
std::string submodule_sections(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF"))
    text.remove_prefix(3);
  std::string kept;
  bool keep = false; // keys before any section header are no submodule's
  while (!text.empty()) {
    const auto end = text.find('\n');
    const auto line = text.substr(0, end == std::string_view::npos ? text.size() : end + 1);
    text.remove_prefix(line.size());
    const auto first = line.find_first_not_of(" \t\r\v\f");
    if (first != std::string_view::npos && line[first] == '[') {
      auto name = line.substr(first + 1);
      name.remove_prefix(std::min(name.find_first_not_of(" \t"), name.size()));
      name = name.substr(0, name.find_first_of(" \t\".]"));
      std::string lower(name);
      std::ranges::transform(lower, lower.begin(),
                             [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      keep = lower == "submodule";
    }
    if (keep)
      kept += line;
  }
  return kept;
}

} // namespace

Result<CheckoutStats> checkout_tree(const std::filesystem::path& repository_dir,
                                    const CheckoutRequest& request) {
  CULPRIT_TRY_ASSIGN(const auto repo, open_private(repository_dir));
  CULPRIT_TRY_ASSIGN(const auto tree, lookup_tree(repo.get(), request.tree_id));

  std::error_code ec;
  std::filesystem::create_directories(request.target, ec);
  if (ec)
    return infra_error("cannot create {}: {}", request.target.string(), ec.message());
  // libgit2's checkout wants a working tree, whose .gitmodules it parses, and refuses values
  // that git accepts (`update = !command`, which culprit would never run anyway). An empty one
  // gives it none to parse: submodules are checked out by the caller, from the commit's own
  // .gitmodules (submodule_names).
  const auto no_gitmodules = request.index_file.parent_path() / "empty-workdir";
  std::filesystem::create_directories(no_gitmodules, ec);
  CULPRIT_TRY(git_check(git_repository_set_workdir(repo.get(), no_gitmodules.c_str(), 0),
                        "cannot prepare the checkout"));
  if (!request.baseline_tree)
    std::filesystem::remove(request.index_file, ec);
  // The index is the caller's alone (a slot's, whose lock it holds): a lock on it can only be one
  // that a process killed while it wrote the index left behind, and would fail the write below.
  std::filesystem::remove(request.index_file.string() + ".lock", ec);

  git_index* raw_index = nullptr;
  CULPRIT_TRY(git_check(git_index_open(&raw_index, request.index_file.c_str()),
                        "cannot open the slot's index"));
  const IndexPtr index(raw_index);
  CULPRIT_TRY(git_check(git_repository_set_index(repo.get(), index.get()),
                        "cannot attach the slot's index"));

  const std::string target = request.target.string();
  git_checkout_options options{};
  git_checkout_options_init(&options, GIT_CHECKOUT_OPTIONS_VERSION);
  options.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_RECREATE_MISSING;
  options.target_directory = target.c_str();
  Progress progress;
  options.notify_flags = GIT_CHECKOUT_NOTIFY_UPDATED;
  options.notify_cb = on_notify;
  options.notify_payload = &progress;

  TreePtr baseline;
  IndexPtr empty_index;
  git_index* raw_empty = nullptr;
  CULPRIT_TRY(git_check(git_index_new(&raw_empty), "cannot create an empty index"));
  empty_index.reset(raw_empty);
  Status done;
  if (!request.baseline_tree) {
    options.baseline_index = empty_index.get();
    done = git_check(
        git_checkout_tree(repo.get(), reinterpret_cast<const git_object*>(tree.get()), &options),
        "cannot check out");
  } else {
    // Only what differs between the trees, and what changed in the slot, is looked at: a warm
    // slot of a large tree costs a tree diff and one lstat per tracked file.
    CULPRIT_TRY_ASSIGN(baseline, lookup_tree(repo.get(), *request.baseline_tree));
    options.baseline = baseline.get();
    CULPRIT_TRY_ASSIGN(auto changes, tree_changes(repo.get(), baseline.get(), tree.get()));
    progress.stats.removed = changes.deleted;
    auto stale = stale_entries(index.get(), request.target);
    if (!changes.paths.empty())
      done = checkout_paths(repo.get(), tree.get(), options, changes.paths);
    if (done && !stale.empty()) {
      // Against an empty baseline every named path counts as new, which forces its contents back.
      git_checkout_options again = options;
      again.baseline = nullptr;
      again.baseline_index = empty_index.get();
      again.notify_flags = GIT_CHECKOUT_NOTIFY_NONE;
      done = checkout_paths(repo.get(), tree.get(), again, stale);
    }
  }
  // Detach the index before it is freed so the repository handle never sees a dangling pointer.
  git_repository_set_index(repo.get(), nullptr);
  if (!done)
    return infra_error("cannot check out tree {} into {}: {}", request.tree_id.substr(0, 12),
                       target, done.error().message);
  return progress.stats;
}

Result<std::vector<GitlinkEntry>> gitlinks(const std::filesystem::path& repository_dir,
                                           const std::string& tree_id) {
  CULPRIT_TRY_ASSIGN(const auto repo, open_private(repository_dir));
  CULPRIT_TRY_ASSIGN(const auto tree, lookup_tree(repo.get(), tree_id));
  std::vector<GitlinkEntry> entries;
  // Submodules are declared in .gitmodules at the top; without it there is no tree to walk.
  if (git_tree_entry_byname(tree.get(), ".gitmodules") == nullptr)
    return entries;
  auto visit = [](const char* root, const git_tree_entry* entry, void* payload) -> int {
    if (git_tree_entry_filemode(entry) == GIT_FILEMODE_COMMIT) {
      static_cast<std::vector<GitlinkEntry>*>(payload)->push_back(
          {std::string(root) + git_tree_entry_name(entry), oid_to_hex(*git_tree_entry_id(entry))});
    }
    return 0;
  };
  CULPRIT_TRY(git_check(git_tree_walk(tree.get(), GIT_TREEWALK_PRE, visit, &entries),
                        "cannot walk the tree"));
  return entries;
}

} // namespace culprit::git

namespace culprit::git {

Result<std::string> tree_of_commit(const std::filesystem::path& repository_dir,
                                   const std::string& commit_id) {
  CULPRIT_TRY_ASSIGN(const auto repo, open_private(repository_dir));
  git_oid oid{};
  if (git_oid_fromstr(&oid, commit_id.c_str()) < 0)
    return infra_error("'{}' is not a commit id", commit_id);
  git_commit* commit = nullptr;
  if (git_commit_lookup(&commit, repo.get(), &oid) < 0)
    return infra_error("commit {} is not in {}", commit_id.substr(0, 12), repository_dir.string());
  const CommitPtr owned(commit);
  return oid_to_hex(*git_commit_tree_id(commit));
}

Result<std::map<std::string, std::string>>
submodule_names(const std::filesystem::path& repository_dir, const std::string& tree_id,
                const std::filesystem::path& scratch) {
  CULPRIT_TRY_ASSIGN(const auto repo, open_private(repository_dir));
  CULPRIT_TRY_ASSIGN(const auto tree, lookup_tree(repo.get(), tree_id));
  std::map<std::string, std::string> names;
  const git_tree_entry* entry = git_tree_entry_byname(tree.get(), ".gitmodules");
  if (entry == nullptr)
    return names;
  git_blob* raw_blob = nullptr;
  CULPRIT_TRY(git_check(git_blob_lookup(&raw_blob, repo.get(), git_tree_entry_id(entry)),
                        "cannot read .gitmodules"));
  const BlobPtr blob(raw_blob);
  const std::string_view text(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                              static_cast<std::size_t>(git_blob_rawsize(blob.get())));
  CULPRIT_TRY(write_file_atomic(scratch, submodule_sections(text)));
  git_config* raw_config = nullptr;
  CULPRIT_TRY(
      git_check(git_config_open_ondisk(&raw_config, scratch.c_str()), "cannot parse .gitmodules"));
  const ConfigPtr config(raw_config);
  git_config_iterator* raw_iter = nullptr;
  CULPRIT_TRY(
      git_check(git_config_iterator_new(&raw_iter, config.get()), "cannot read .gitmodules"));
  const std::unique_ptr<git_config_iterator, Deleter<git_config_iterator, git_config_iterator_free>>
      iter(raw_iter);
  git_config_entry* config_entry = nullptr;
  while (git_config_next(&config_entry, iter.get()) == 0) {
    // Names are filtered here rather than by git_config_iterator_glob_new: libgit2 1.5 leaks
    // its PCRE2 match data on every key that does not match the pattern.
    const std::string_view key = config_entry->name; // submodule.<name>.path
    if (!key.starts_with("submodule.") || !key.ends_with(".path") || key.size() <= 15)
      continue;
    const std::string name(key.substr(10, key.size() - 10 - 5));
    if (!stays_in_module_store(name))
      return infra_error("the .gitmodules of tree {} names a submodule '{}', which would lead out "
                         "of the module store; culprit, like git, refuses submodule names with "
                         "'..': fix .gitmodules in that commit",
                         tree_id.substr(0, 12), name);
    names[config_entry->value] = name;
  }
  return names;
}

} // namespace culprit::git
