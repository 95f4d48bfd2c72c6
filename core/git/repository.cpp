#include "core/git/repository.hpp"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include "core/git/hash.hpp"
#include "core/git/library.hpp"
#include "core/util/escape.hpp"
#include "core/util/fs.hpp"

namespace culprit::git {
namespace {

Result<std::string> resolve_error(int rc, std::string_view given, bool shallow) {
  const auto revision = excerpt(given);
  const std::string hint = shallow ? " (this is a shallow clone: 'git fetch --unshallow' fetches "
                                     "the missing history)"
                                   : "";
  switch (rc) {
  case GIT_ENOTFOUND:
    return usage_error("unknown revision '{}': no branch, tag or commit by that name{}; check the "
                       "spelling or run 'git fetch'",
                       revision, hint);
  case GIT_EAMBIGUOUS:
    return usage_error("revision '{}' is ambiguous: give more hex digits or a full name", revision);
  case GIT_EINVALIDSPEC:
    return usage_error("'{}' is not a valid revision: use a branch, tag, commit id or an "
                       "expression such as HEAD~3",
                       revision);
  default:
    return usage_error("cannot resolve revision '{}': {}", revision, last_error_message());
  }
}

// The parents of commit `id`, or nullopt when the commit is not in the object database: a
// shallow clone holds the commits at its boundary but not their parents.
std::optional<std::vector<std::string>> parents_of(git_repository* repo, const std::string& id) {
  git_oid oid{};
  git_commit* commit = nullptr;
  if (git_oid_fromstr(&oid, id.c_str()) < 0 || git_commit_lookup(&commit, repo, &oid) < 0)
    return std::nullopt;
  const CommitPtr owned(commit);
  std::vector<std::string> parents;
  parents.reserve(git_commit_parentcount(commit));
  for (unsigned i = 0; i < git_commit_parentcount(commit); ++i)
    parents.push_back(oid_to_hex(*git_commit_parent_id(commit, i)));
  return parents;
}

// Every commit reachable from `start` that the repository holds (`start` included).
std::set<std::string> held_ancestors(git_repository* repo, const std::string& start) {
  std::set<std::string> seen{start};
  std::vector<std::string> todo{start};
  while (!todo.empty()) {
    const auto id = std::move(todo.back());
    todo.pop_back();
    for (auto& parent : parents_of(repo, id).value_or(std::vector<std::string>{}))
      if (seen.insert(parent).second)
        todo.push_back(std::move(parent));
  }
  return seen;
}

std::unexpected<Error> history_missing(std::string_view good, std::string_view bad) {
  return usage_error("the history between {} and {} is not all in this shallow clone; run 'git "
                     "fetch --unshallow' (or fetch with a larger --depth) first",
                     excerpt(good), excerpt(bad));
}

// good..bad in a shallow clone, walked without the parents of its boundary, which libgit2 1.5
// would look for: the commits reachable from `bad` and not from `good`, oldest first (parents
// before children, then by commit time). A commit of the range whose parent is missing means
// the range reaches past the boundary.
Result<std::vector<std::string>> shallow_range(git_repository* repo, const std::string& good,
                                               const std::string& bad, History history,
                                               std::string_view good_name,
                                               std::string_view bad_name) {
  const auto hidden = held_ancestors(repo, good);
  std::map<std::string, std::vector<std::string>> parents; // of each commit of the range
  std::vector<std::string> todo{bad};
  while (!todo.empty()) {
    const auto id = std::move(todo.back());
    todo.pop_back();
    if (hidden.contains(id) || parents.contains(id))
      continue;
    auto of = parents_of(repo, id);
    if (!of)
      return history_missing(good_name, bad_name);
    if (history == History::first_parent && of->size() > 1)
      of->resize(1);
    for (const auto& parent : *of)
      todo.push_back(parent);
    parents.emplace(id, std::move(*of));
  }
  std::map<std::string, std::int64_t> times;
  for (const auto& [id, unused] : parents) {
    git_oid oid{};
    git_commit* commit = nullptr;
    git_oid_fromstr(&oid, id.c_str());
    if (git_commit_lookup(&commit, repo, &oid) == 0) {
      times[id] = git_commit_time(commit);
      git_commit_free(commit);
    }
  }
  // Kahn's algorithm: a commit is listed once every parent inside the range is.
  std::vector<std::string> order;
  std::set<std::string> listed;
  while (order.size() < parents.size()) {
    std::optional<std::string> next;
    for (const auto& [id, of] : parents) {
      if (listed.contains(id) || std::ranges::any_of(of, [&](const std::string& p) {
            return parents.contains(p) && !listed.contains(p);
          }))
        continue;
      if (!next || times[id] < times[*next])
        next = id;
    }
    if (!next)
      return infra_error("the history between {} and {} has a cycle", good_name, bad_name);
    listed.insert(*next);
    order.push_back(*next);
  }
  return order;
}

TreePtr tree_of(git_commit* commit) {
  git_tree* tree = nullptr;
  if (git_commit_tree(&tree, commit) < 0)
    return nullptr;
  return TreePtr(tree);
}

// Whether libgit2 refused a repository for its object format: 1.5 says "unsupported extension
// name extensions.objectformat", later releases built without SHA-256 name the format itself.
bool names_object_format(std::string_view message) {
  std::string lower(message);
  std::ranges::transform(lower, lower.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("objectformat") != std::string::npos ||
         lower.find("object format") != std::string::npos;
}

// Whether the repository that holds `path` says extensions.objectformat = sha256 in its config:
// found with git_repository_discover (which reads no configuration), then read as text.
bool declares_sha256(const std::filesystem::path& path) {
  git_buf found = GIT_BUF_INIT;
  if (git_repository_discover(&found, path.c_str(), 0, nullptr) < 0)
    return false;
  const std::filesystem::path git_dir(found.ptr != nullptr ? found.ptr : "");
  git_buf_dispose(&found);
  auto config = read_file(git_dir / "config", std::size_t{1} << 20);
  if (!config)
    return false;
  std::string lower(*config);
  std::ranges::transform(lower, lower.begin(),
                         [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::erase_if(lower, [](char c) { return c == ' ' || c == '\t'; });
  return lower.find("objectformat=sha256") != std::string::npos;
}

std::unexpected<Error> sha256_refused(const std::filesystem::path& path) {
  int major = 0;
  int minor = 0;
  int revision = 0;
  git_libgit2_version(&major, &minor, &revision);
  return usage_error("{} is a SHA-256 repository, and the libgit2 {}.{}.{} that culprit uses reads "
                     "SHA-1 repositories only; measure a SHA-1 copy of it (git init a new one, "
                     "then git fast-export --all | git fast-import into it), or build culprit "
                     "against a libgit2 with SHA-256 support",
                     path.string(), major, minor, revision);
}

} // namespace

std::string Signature::iso8601() const {
  const auto local = static_cast<std::time_t>(time + std::int64_t{offset_minutes} * 60);
  std::tm parts{};
  gmtime_r(&local, &parts);
  const int magnitude = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}:{:02}", parts.tm_year + 1900,
                     parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                     offset_minutes < 0 ? '-' : '+', magnitude / 60, magnitude % 60);
}

Result<Repository> Repository::open(const std::filesystem::path& path) {
  GitLibrary::ensure();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    return usage_error("{} does not exist; pass --repo with the path of a git repository",
                       path.string());
  // A SHA-256 repository is told before libgit2 opens it: 1.5 refuses it only after it has read
  // the configuration, on a path that leaks what its regular expressions allocated.
  if (declares_sha256(path))
    return sha256_refused(path);
  git_repository* raw = nullptr;
  const int rc = git_repository_open_ext(&raw, path.c_str(), 0, nullptr);
  if (rc == GIT_ENOTFOUND)
    return usage_error("{} is not inside a git repository; run culprit from your checkout or pass "
                       "--repo PATH",
                       path.string());
  if (rc < 0) {
    const auto message = last_error_message();
    if (names_object_format(message))
      return sha256_refused(path);
    return usage_error("cannot open the git repository at {}: {}", path.string(), message);
  }
  return Repository(RepositoryPtr(raw));
}

std::filesystem::path Repository::workdir() const {
  const char* dir = git_repository_workdir(m_repo.get());
  return dir == nullptr ? std::filesystem::path() : std::filesystem::path(dir);
}

std::filesystem::path Repository::common_dir() const {
  return git_repository_commondir(m_repo.get());
}

bool Repository::is_bare() const {
  return git_repository_is_bare(m_repo.get()) == 1;
}

bool Repository::is_shallow() const {
  return git_repository_is_shallow(m_repo.get()) == 1;
}

std::string Repository::id() const {
  std::error_code ec;
  auto dir = std::filesystem::weakly_canonical(common_dir(), ec);
  if (ec)
    dir = common_dir();
  // A readable prefix (the project's directory name) and a hash that makes it unique.
  auto name = (dir.filename() == ".git" ? dir.parent_path() : dir).filename().string();
  if (name.empty())
    name = "repo";
  return name + "-" + hash_bytes(dir.string()).substr(0, 12);
}

Result<std::string> Repository::resolve(std::string_view revision) const {
  if (revision.empty())
    return usage_error("an empty revision was given; name a branch, tag or commit");
  const std::string spec(revision);
  git_object* object = nullptr;
  if (const int rc = git_revparse_single(&object, m_repo.get(), spec.c_str()); rc < 0)
    return resolve_error(rc, revision, is_shallow());
  const ObjectPtr owned(object);
  git_object* peeled = nullptr;
  if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) < 0)
    return usage_error("revision '{}' names a {}, not a commit; give a commit, branch or tag",
                       excerpt(revision), git_object_type2string(git_object_type(object)));
  const ObjectPtr commit(peeled);
  return oid_to_hex(*git_object_id(commit.get()));
}

Result<CommitPtr> Repository::lookup_commit(std::string_view commit_id) const {
  CULPRIT_TRY_ASSIGN(const auto id, resolve(commit_id));
  git_oid oid{};
  git_oid_fromstr(&oid, id.c_str());
  git_commit* commit = nullptr;
  CULPRIT_TRY(git_check(git_commit_lookup(&commit, m_repo.get(), &oid),
                        fmt::format("cannot read commit {}", id)));
  return CommitPtr(commit);
}

Result<CommitInfo> Repository::commit_info(std::string_view commit_id) const {
  CULPRIT_TRY_ASSIGN(const auto commit, lookup_commit(commit_id));
  CommitInfo info;
  info.id = oid_to_hex(*git_commit_id(commit.get()));
  info.tree = oid_to_hex(*git_commit_tree_id(commit.get()));
  for (unsigned i = 0; i < git_commit_parentcount(commit.get()); ++i)
    info.parents.push_back(oid_to_hex(*git_commit_parent_id(commit.get(), i)));
  // A commit's text is in the encoding its header names (i18n.commitEncoding), UTF-8 without
  // one, and sometimes in neither: everything culprit writes is UTF-8, so it is decoded here.
  const char* header = git_commit_message_encoding(commit.get());
  const std::string encoding = header != nullptr ? header : "";
  const auto text = [&](const char* bytes) {
    return bytes != nullptr ? to_utf8(bytes, encoding) : std::string();
  };
  const auto signature = [&](const git_signature* sig) {
    return Signature{text(sig->name), text(sig->email), sig->when.time, sig->when.offset};
  };
  info.author = signature(git_commit_author(commit.get()));
  info.committer = signature(git_commit_committer(commit.get()));
  info.subject = text(git_commit_summary(commit.get()));
  info.message = text(git_commit_message(commit.get()));
  return info;
}

Result<std::vector<ChangedPath>> Repository::changed_paths(std::string_view commit_id) const {
  CULPRIT_TRY_ASSIGN(const auto commit, lookup_commit(commit_id));
  const TreePtr tree = tree_of(commit.get());
  TreePtr parent_tree;
  if (git_commit_parentcount(commit.get()) > 0) {
    git_commit* parent = nullptr;
    CULPRIT_TRY(
        git_check(git_commit_parent(&parent, commit.get(), 0),
                  fmt::format("cannot read the parent of {} (a shallow clone?)", commit_id)));
    const CommitPtr owned_parent(parent);
    parent_tree = tree_of(parent);
  }
  git_diff* raw_diff = nullptr;
  CULPRIT_TRY(git_check(
      git_diff_tree_to_tree(&raw_diff, m_repo.get(), parent_tree.get(), tree.get(), nullptr),
      "cannot diff the commit against its parent"));
  const DiffPtr diff(raw_diff);
  git_diff_find_options find{};
  git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
  find.flags = GIT_DIFF_FIND_RENAMES;
  CULPRIT_TRY(git_check(git_diff_find_similar(diff.get(), &find), "cannot detect renames"));

  std::vector<ChangedPath> paths;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
    ChangedPath changed;
    changed.path = delta->new_file.path;
    changed.old_path = delta->old_file.path;
    switch (delta->status) {
    case GIT_DELTA_ADDED:
      changed.kind = ChangedPath::Kind::added;
      break;
    case GIT_DELTA_DELETED:
      changed.kind = ChangedPath::Kind::deleted;
      changed.path = delta->old_file.path;
      break;
    case GIT_DELTA_RENAMED:
      changed.kind = ChangedPath::Kind::renamed;
      break;
    case GIT_DELTA_TYPECHANGE:
      changed.kind = ChangedPath::Kind::type_changed;
      break;
    default:
      changed.kind = ChangedPath::Kind::modified;
      break;
    }
    paths.push_back(std::move(changed));
  }
  return paths;
}

Result<bool> Repository::is_ancestor(std::string_view ancestor, std::string_view descendant) const {
  CULPRIT_TRY_ASSIGN(const auto a, resolve(ancestor));
  CULPRIT_TRY_ASSIGN(const auto d, resolve(descendant));
  if (a == d)
    return true;
  // libgit2 1.5 looks for the parents of a shallow clone's boundary, which are not there.
  if (is_shallow())
    return held_ancestors(m_repo.get(), d).contains(a);
  git_oid a_oid{};
  git_oid d_oid{};
  git_oid_fromstr(&a_oid, a.c_str());
  git_oid_fromstr(&d_oid, d.c_str());
  const int rc = git_graph_descendant_of(m_repo.get(), &d_oid, &a_oid);
  CULPRIT_TRY(git_check(rc, "cannot walk the history"));
  return rc == 1;
}

Result<std::string> Repository::merge_base(std::string_view a, std::string_view b) const {
  CULPRIT_TRY_ASSIGN(const auto a_id, resolve(a));
  CULPRIT_TRY_ASSIGN(const auto b_id, resolve(b));
  git_oid a_oid{};
  git_oid b_oid{};
  git_oid base{};
  git_oid_fromstr(&a_oid, a_id.c_str());
  git_oid_fromstr(&b_oid, b_id.c_str());
  if (const int rc = git_merge_base(&base, m_repo.get(), &a_oid, &b_oid); rc < 0)
    return infra_error("cannot find where {} and {} forked: {}{}", a_id.substr(0, 12),
                       b_id.substr(0, 12), last_error_message(),
                       is_shallow() ? " (a shallow clone: run 'git fetch --unshallow')" : "");
  return oid_to_hex(base);
}

Result<std::vector<std::string>> Repository::range(std::string_view good, std::string_view bad,
                                                   History history) const {
  CULPRIT_TRY_ASSIGN(const auto good_id, resolve(good));
  CULPRIT_TRY_ASSIGN(const auto bad_id, resolve(bad));
  if (is_shallow())
    return shallow_range(m_repo.get(), good_id, bad_id, history, good, bad);
  git_revwalk* raw_walk = nullptr;
  CULPRIT_TRY(git_check(git_revwalk_new(&raw_walk, m_repo.get()), "cannot walk the history"));
  const RevwalkPtr walk(raw_walk);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
  if (history == History::first_parent)
    git_revwalk_simplify_first_parent(walk.get());
  git_oid good_oid{};
  git_oid bad_oid{};
  git_oid_fromstr(&good_oid, good_id.c_str());
  git_oid_fromstr(&bad_oid, bad_id.c_str());
  CULPRIT_TRY(git_check(git_revwalk_push(walk.get(), &bad_oid), "cannot walk from the bad commit"));
  CULPRIT_TRY(git_check(git_revwalk_hide(walk.get(), &good_oid), "cannot hide the good commit"));
  std::vector<std::string> commits;
  git_oid oid{};
  int rc = 0;
  while ((rc = git_revwalk_next(&oid, walk.get())) == 0)
    commits.push_back(oid_to_hex(oid));
  if (rc != GIT_ITEROVER)
    return usage_error("cannot list the commits of {}..{}: {}{}", good, bad, last_error_message(),
                       is_shallow() ? " (a shallow clone: run 'git fetch --unshallow')" : "");
  return commits;
}

Result<std::vector<std::pair<std::string, std::string>>> Repository::tags() const {
  std::vector<std::pair<std::string, std::string>> tags;
  auto add = [](const char* name, git_oid* oid, void* payload) -> int {
    static_cast<std::vector<std::pair<std::string, std::string>>*>(payload)->emplace_back(
        name, oid_to_hex(*oid));
    return 0;
  };
  CULPRIT_TRY(git_check(git_tag_foreach(m_repo.get(), add, &tags), "cannot list the tags"));
  return tags;
}

Result<std::string> Repository::read_file_at(std::string_view commit_id,
                                             std::string_view path) const {
  CULPRIT_TRY_ASSIGN(const auto commit, lookup_commit(commit_id));
  const TreePtr tree = tree_of(commit.get());
  git_tree_entry* raw_entry = nullptr;
  const std::string path_text(path);
  if (git_tree_entry_bypath(&raw_entry, tree.get(), path_text.c_str()) < 0)
    return infra_error("{} is not in commit {}", path, commit_id.substr(0, 12));
  const std::unique_ptr<git_tree_entry, Deleter<git_tree_entry, git_tree_entry_free>> entry(
      raw_entry);
  if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
    return infra_error("{} in commit {} is not a file", path, commit_id.substr(0, 12));
  git_blob* raw_blob = nullptr;
  CULPRIT_TRY(git_check(git_blob_lookup(&raw_blob, m_repo.get(), git_tree_entry_id(entry.get())),
                        fmt::format("cannot read {}", path)));
  const BlobPtr blob(raw_blob);
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                     static_cast<std::size_t>(git_blob_rawsize(blob.get())));
}

} // namespace culprit::git
