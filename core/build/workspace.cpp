#include "core/build/workspace.hpp"

#include <set>

#include <nlohmann/json.hpp>

#include "core/git/hash.hpp"
#include "core/util/json_text.hpp"

namespace culprit::build {
namespace {

std::filesystem::path state_file(const std::filesystem::path& root) {
  return root / "state.json";
}

std::optional<SlotState> load_state(const std::filesystem::path& root) {
  auto text = read_file(state_file(root));
  if (!text)
    return std::nullopt;
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("tree") ||
      !json.contains("commit"))
    return std::nullopt;
  try {
    SlotState state;
    state.commit = json.at("commit").get<std::string>();
    state.tree = json.at("tree").get<std::string>();
    if (json.contains("submodules"))
      state.submodule_trees = json.at("submodules").get<std::map<std::string, std::string>>();
    return state;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt; // an unreadable state only costs a fresh checkout
  }
}

} // namespace

Slot::Slot(int number, std::filesystem::path root, FileLock lock)
    : m_number(number), m_root(std::move(root)), m_lock(std::move(lock)),
      m_state(load_state(m_root)) {}

Status Slot::save_state() const {
  if (!m_state)
    return {};
  nlohmann::json json = {{"commit", m_state->commit},
                         {"tree", m_state->tree},
                         {"submodules", m_state->submodule_trees}};
  return write_file_atomic(state_file(m_root), json_text(json, 2) + "\n");
}

Result<SlotCheckout> Slot::checkout(const git::Repository& repo, const git::CommitInfo& commit) {
  SlotCheckout result;
  std::optional<SlotState> previous = m_state;
  // Until the new state is saved the slot's contents are unknown: if culprit dies halfway, the
  // next checkout starts from scratch rather than trust a half-updated tree.
  std::error_code ec;
  std::filesystem::remove(state_file(m_root), ec);
  m_state.reset();
  if (!previous || !std::filesystem::is_directory(source_dir())) {
    std::filesystem::remove_all(source_dir(), ec);
    previous.reset();
    result.fresh = true;
  }

  const auto repository_dir = repo.common_dir();
  git::CheckoutRequest request{commit.tree, source_dir(), m_root / "index",
                               previous ? std::optional(previous->tree) : std::nullopt};
  auto stats = git::checkout_tree(repository_dir, request);
  if (!stats && previous) {
    // The previous tree may be gone (a rewritten history after gc): start from scratch.
    std::filesystem::remove_all(source_dir(), ec);
    request.baseline_tree.reset();
    previous.reset();
    result.fresh = true;
    stats = git::checkout_tree(repository_dir, request);
  }
  if (!stats)
    return std::unexpected(stats.error());
  result.written = stats->written;
  result.removed = stats->removed;

  SlotState state{commit.id, commit.tree,
                  previous ? previous->submodule_trees : std::map<std::string, std::string>{}};
  CULPRIT_TRY_ASSIGN(const auto sub, checkout_submodules(repository_dir, source_dir(), commit.tree,
                                                         state.submodule_trees, ""));
  result.written += sub.written;
  result.removed += sub.removed;
  CULPRIT_TRY(write_git_dir(repo, commit));
  m_state = std::move(state);
  CULPRIT_TRY(save_state());
  return result;
}

Status Slot::write_git_dir(const git::Repository& repo, const git::CommitInfo& commit) const {
  const auto dir = git_dir();
  for (const auto* sub : {"objects/info", "refs/heads", "refs/tags"})
    CULPRIT_TRY(ensure_writable_dir(dir / sub, "cache directory"));
  std::error_code ec;
  auto objects = std::filesystem::canonical(repo.common_dir() / "objects", ec);
  if (ec)
    objects = std::filesystem::absolute(repo.common_dir() / "objects");
  CULPRIT_TRY(write_file_atomic(dir / "objects/info/alternates", objects.string() + "\n"));
  CULPRIT_TRY(write_file_atomic(dir / "config", "[core]\n\trepositoryformatversion = 0\n"
                                                "\tfilemode = true\n\tbare = false\n"));
  CULPRIT_TRY(write_file_atomic(dir / "HEAD", commit.id + "\n"));
  std::string packed;
  if (auto tags = repo.tags())
    for (const auto& [name, id] : *tags)
      packed.append(id).append(" ").append(name).append("\n");
  CULPRIT_TRY(write_file_atomic(dir / "packed-refs", packed));
  // The checkout's own index: `git status` in the slot then sees a clean tree, and any write it
  // makes lands in this copy.
  if (auto index = read_file(m_root / "index"))
    CULPRIT_TRY(write_file_atomic(dir / "index", *index));
  if (auto shallow = read_file(repo.common_dir() / "shallow"))
    CULPRIT_TRY(write_file_atomic(dir / "shallow", *shallow));
  else
    std::filesystem::remove(dir / "shallow", ec);
  return write_file_atomic(source_dir() / ".git", "gitdir: ../git\n");
}

Result<SlotCheckout> Slot::checkout_submodules(const std::filesystem::path& repository_dir,
                                               const std::filesystem::path& dir,
                                               const std::string& tree,
                                               std::map<std::string, std::string>& trees,
                                               const std::string& prefix) {
  SlotCheckout total;
  CULPRIT_TRY_ASSIGN(const auto links, git::gitlinks(repository_dir, tree));
  std::map<std::string, std::string> names;
  if (!links.empty()) {
    CULPRIT_TRY_ASSIGN(names,
                       git::submodule_names(repository_dir, tree, m_root / "gitmodules.scratch"));
  }
  std::set<std::string> present;
  for (const auto& link : links) {
    const std::string key = prefix + link.path;
    present.insert(key);
    const auto name = names.find(link.path);
    const auto module_dir =
        repository_dir / "modules" / (name != names.end() ? name->second : link.path);
    auto sub_tree = git::tree_of_commit(module_dir, link.commit);
    if (!sub_tree)
      return infra_error("submodule {} at {} is not in the local module store {}; run 'git "
                         "submodule update --init --recursive' in your checkout once",
                         key, link.commit.substr(0, 12), module_dir.string());
    const auto previous = trees.find(key);
    std::optional<std::string> baseline;
    if (previous != trees.end() && std::filesystem::exists(dir / link.path / ".culprit-module"))
      baseline = previous->second;
    const auto target = dir / link.path;
    git::CheckoutRequest request{
        *sub_tree, target, m_root / ("index-" + git::hash_bytes(key).substr(0, 16)), baseline};
    CULPRIT_TRY_ASSIGN(const auto stats, git::checkout_tree(module_dir, request));
    CULPRIT_TRY(write_file_atomic(target / ".culprit-module", link.commit + "\n"));
    trees[key] = *sub_tree;
    total.written += stats.written;
    total.removed += stats.removed;
    CULPRIT_TRY_ASSIGN(const auto nested,
                       checkout_submodules(module_dir, target, *sub_tree, trees, key + "/"));
    total.written += nested.written;
    total.removed += nested.removed;
  }
  // Submodules gone from this tree: their directories go too.
  for (auto it = trees.begin(); it != trees.end();) {
    const bool direct_child =
        it->first.starts_with(prefix) && it->first.find('/', prefix.size()) == std::string::npos;
    if (direct_child && !present.contains(it->first)) {
      std::error_code ec;
      std::filesystem::remove_all(dir / it->first.substr(prefix.size()), ec);
      ++total.removed;
      it = trees.erase(it);
    } else {
      ++it;
    }
  }
  return total;
}

Result<Slot> Workspace::acquire(const std::function<void(std::string_view)>& on_wait) {
  for (int number = 0; number < m_max_slots; ++number) {
    const auto root = m_slots_dir / std::to_string(number);
    CULPRIT_TRY(ensure_writable_dir(root, "cache directory"));
    CULPRIT_TRY_ASSIGN(auto lock, FileLock::acquire(root / "lock", FileLock::Wait::no));
    if (lock)
      return Slot(number, root, std::move(*lock));
  }
  if (on_wait)
    on_wait(fmt::format("all {} workspace slots are in use by other culprit processes; waiting "
                        "for one to finish",
                        m_max_slots));
  const auto root = m_slots_dir / "0";
  CULPRIT_TRY_ASSIGN(auto lock, FileLock::acquire(root / "lock", FileLock::Wait::yes));
  return Slot(0, root, std::move(*lock));
}

} // namespace culprit::build
