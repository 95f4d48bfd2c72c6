#include "core/store/schema.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <thread>
#include <utility>

#include <fmt/core.h>
#include <sqlite3.h>

#include "core/store/sql.hpp"
#include "core/store/sqlite.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"

namespace culprit::store {
namespace {

// k_migrations[i] takes a store from version i to version i + 1. Never edit a released one: add
// the next.
constexpr std::array<std::string_view, 3> k_migrations = {
    R"sql(
CREATE TABLE hosts (
  host_id     TEXT PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  first_seen  INTEGER NOT NULL,
  last_seen   INTEGER NOT NULL
);
CREATE TABLE builds (
  build_key   TEXT PRIMARY KEY,
  commit_id   TEXT NOT NULL,
  tree_id     TEXT NOT NULL,
  ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
  seconds     REAL NOT NULL,
  log_path    TEXT NOT NULL,
  artifact_id TEXT,
  created     INTEGER NOT NULL,
  CHECK ((ok = 1) = (artifact_id IS NOT NULL))
);
CREATE INDEX builds_by_artifact ON builds (artifact_id);
CREATE TABLE runs (
  id            INTEGER PRIMARY KEY,
  artifact_id   TEXT NOT NULL,
  build_key     TEXT NOT NULL,
  commit_id     TEXT NOT NULL,
  recipe_hash   TEXT NOT NULL,
  host_id       TEXT NOT NULL REFERENCES hosts (host_id),
  started       INTEGER NOT NULL,
  wall_seconds  REAL NOT NULL,
  user_seconds  REAL NOT NULL,
  sys_seconds   REAL NOT NULL,
  max_rss_kib   INTEGER,
  exit_code     INTEGER,
  signal        INTEGER,
  timed_out     INTEGER NOT NULL CHECK (timed_out IN (0, 1)),
  status        TEXT NOT NULL
                CHECK (status IN ('ok', 'failed', 'timeout', 'parse_error', 'interrupted')),
  warmup        INTEGER NOT NULL CHECK (warmup IN (0, 1)),
  gpu_throttled INTEGER NOT NULL CHECK (gpu_throttled IN (0, 1)),
  message       TEXT NOT NULL,
  session       TEXT
);
CREATE INDEX runs_by_measurement ON runs (artifact_id, recipe_hash, host_id, started);
CREATE TABLE samples (
  run_id    INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  case_name TEXT NOT NULL,
  metric    TEXT NOT NULL,
  unit      TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('lower', 'higher')),
  idx       INTEGER NOT NULL,
  value     REAL NOT NULL,
  PRIMARY KEY (run_id, case_name, metric, idx)
) WITHOUT ROWID;
)sql",
    // Version 2: the block of interleaved runs a run belongs to (one run of each revision being
    // compared, made together), and whether the block's runs ran at the same time (a duet).
    R"sql(
ALTER TABLE runs ADD COLUMN block TEXT;
ALTER TABLE runs ADD COLUMN duet INTEGER NOT NULL DEFAULT 0 CHECK (duet IN (0, 1));
CREATE INDEX runs_by_block ON runs (block);
)sql",
    // Version 3: the roofline model's inputs. The work of one call of each case (and its axes,
    // as JSON) per artifact and run recipe, as runs report it; the device a measurement ran on;
    // and the peaks of each host's devices (the CPU measured once, a GPU from its properties).
    // The builds table goes: builds are kept in the build cache, and nothing wrote it.
    R"sql(
DROP TABLE builds;
CREATE TABLE case_work (
  artifact_id TEXT NOT NULL,
  recipe_hash TEXT NOT NULL,
  case_name   TEXT NOT NULL,
  flops       REAL CHECK (flops IS NULL OR flops >= 0),
  bytes       REAL CHECK (bytes IS NULL OR bytes >= 0),
  axes        TEXT NOT NULL,
  PRIMARY KEY (artifact_id, recipe_hash, case_name)
) WITHOUT ROWID;
CREATE TABLE devices (
  artifact_id TEXT NOT NULL,
  recipe_hash TEXT NOT NULL,
  host_id     TEXT NOT NULL,
  backend     TEXT NOT NULL,
  name        TEXT NOT NULL,
  gpu         TEXT,
  PRIMARY KEY (artifact_id, recipe_hash, host_id)
) WITHOUT ROWID;
CREATE TABLE peaks (
  host_id                 TEXT NOT NULL,
  scope                   TEXT NOT NULL,
  device                  TEXT NOT NULL,
  flops_per_second        REAL NOT NULL CHECK (flops_per_second > 0),
  tensor_flops_per_second REAL CHECK (tensor_flops_per_second IS NULL OR
                                      tensor_flops_per_second > 0),
  bytes_per_second        REAL NOT NULL CHECK (bytes_per_second > 0),
  source                  TEXT NOT NULL,
  measured                INTEGER NOT NULL,
  PRIMARY KEY (host_id, scope)
) WITHOUT ROWID;
)sql",
};
static_assert(k_migrations.size() == static_cast<std::size_t>(k_schema_version));

// The store on PostgreSQL begins at version 3, with the tables of SQLite's version 3 in the
// server's types (BIGINT where SQLite's INTEGER holds 64 bits, DOUBLE PRECISION for REAL) and
// byte-order collation for the names that queries sort and compare by range, as SQLite does.
// Later versions add a migration to both lists.
constexpr std::int64_t k_postgres_first_version = 3;
constexpr std::string_view k_postgres_schema = R"sql(
CREATE TABLE hosts (
  host_id     TEXT COLLATE "C" PRIMARY KEY,
  fingerprint TEXT NOT NULL,
  first_seen  BIGINT NOT NULL,
  last_seen   BIGINT NOT NULL
);
CREATE TABLE runs (
  id            BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
  artifact_id   TEXT COLLATE "C" NOT NULL,
  build_key     TEXT NOT NULL,
  commit_id     TEXT NOT NULL,
  recipe_hash   TEXT COLLATE "C" NOT NULL,
  host_id       TEXT COLLATE "C" NOT NULL REFERENCES hosts (host_id),
  started       BIGINT NOT NULL,
  wall_seconds  DOUBLE PRECISION NOT NULL,
  user_seconds  DOUBLE PRECISION NOT NULL,
  sys_seconds   DOUBLE PRECISION NOT NULL,
  max_rss_kib   BIGINT,
  exit_code     BIGINT,
  signal        BIGINT,
  timed_out     SMALLINT NOT NULL CHECK (timed_out IN (0, 1)),
  status        TEXT NOT NULL
                CHECK (status IN ('ok', 'failed', 'timeout', 'parse_error', 'interrupted')),
  warmup        SMALLINT NOT NULL CHECK (warmup IN (0, 1)),
  gpu_throttled SMALLINT NOT NULL CHECK (gpu_throttled IN (0, 1)),
  message       TEXT NOT NULL,
  session       TEXT COLLATE "C",
  block         TEXT COLLATE "C",
  duet          SMALLINT NOT NULL DEFAULT 0 CHECK (duet IN (0, 1))
);
CREATE INDEX runs_by_measurement ON runs (artifact_id, recipe_hash, host_id, started);
CREATE INDEX runs_by_block ON runs (block);
CREATE TABLE samples (
  run_id    BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  case_name TEXT COLLATE "C" NOT NULL,
  metric    TEXT COLLATE "C" NOT NULL,
  unit      TEXT COLLATE "C" NOT NULL,
  direction TEXT COLLATE "C" NOT NULL CHECK (direction IN ('lower', 'higher')),
  idx       BIGINT NOT NULL,
  value     DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (run_id, case_name, metric, idx)
);
CREATE TABLE case_work (
  artifact_id TEXT COLLATE "C" NOT NULL,
  recipe_hash TEXT COLLATE "C" NOT NULL,
  case_name   TEXT COLLATE "C" NOT NULL,
  flops       DOUBLE PRECISION CHECK (flops IS NULL OR flops >= 0),
  bytes       DOUBLE PRECISION CHECK (bytes IS NULL OR bytes >= 0),
  axes        TEXT NOT NULL,
  PRIMARY KEY (artifact_id, recipe_hash, case_name)
);
CREATE TABLE devices (
  artifact_id TEXT COLLATE "C" NOT NULL,
  recipe_hash TEXT COLLATE "C" NOT NULL,
  host_id     TEXT COLLATE "C" NOT NULL,
  backend     TEXT NOT NULL,
  name        TEXT NOT NULL,
  gpu         TEXT,
  PRIMARY KEY (artifact_id, recipe_hash, host_id)
);
CREATE TABLE peaks (
  host_id                 TEXT COLLATE "C" NOT NULL,
  scope                   TEXT COLLATE "C" NOT NULL,
  device                  TEXT NOT NULL,
  flops_per_second        DOUBLE PRECISION NOT NULL CHECK (flops_per_second > 0),
  tensor_flops_per_second DOUBLE PRECISION CHECK (tensor_flops_per_second IS NULL OR
                                                  tensor_flops_per_second > 0),
  bytes_per_second        DOUBLE PRECISION NOT NULL CHECK (bytes_per_second > 0),
  source                  TEXT NOT NULL,
  measured                BIGINT NOT NULL,
  PRIMARY KEY (host_id, scope)
);
)sql";

Status refuse_foreign(const sql::Database& db) {
  return infra_error("{} is not a culprit results store (it belongs to another program); "
                     "move it away or choose another --cache-dir",
                     db.name());
}

Status check_owner(sql::Database& db, std::int64_t version) {
  CULPRIT_TRY_ASSIGN(const auto application_id, db.pragma_integer("application_id"));
  if (application_id == k_application_id)
    return {};
  if (application_id != 0 || version != 0)
    return refuse_foreign(db);
  CULPRIT_TRY_ASSIGN(auto tables, db.prepare("SELECT count(*) FROM sqlite_master"));
  CULPRIT_TRY(tables.step());
  if (tables.column_int64(0) != 0)
    return refuse_foreign(db);
  return {};
}

Status refuse_newer(const sql::Database& db, std::int64_t version, std::int64_t target) {
  return infra_error("the results store {} was written by a newer culprit (schema version {}, this "
                     "culprit knows up to {}); upgrade culprit, or choose another --cache-dir",
                     db.name(), version, target);
}

// A store whose schema version no culprit writes, or whose tables are not those of its version
// (PRAGMA user_version set by hand, or a file put together from pieces).
std::unexpected<Error> refuse_damaged(const sql::Database& db, std::string_view why) {
  return infra_error("results store {}: {}; {}", db.name(), why,
                     sql::damaged_store_advice(db.file()));
}

// Refuses a store of a version no culprit writes, of a newer culprit, or of another program.
Status check_version(sql::Database& db, std::int64_t version, std::int64_t target_version) {
  if (version < 0)
    return refuse_damaged(
        db, fmt::format("its schema version is {}, which no culprit writes", version));
  if (version > target_version)
    return refuse_newer(db, version, target_version);
  return check_owner(db, version);
}

Status migrate(sql::Database& db, std::int64_t version, std::int64_t target_version) {
  CULPRIT_TRY_ASSIGN(auto transaction, sql::Transaction::begin(db));
  for (auto step = version; step < target_version; ++step) {
    if (auto done = db.execute(k_migrations.at(static_cast<std::size_t>(step))); !done) {
      // A migration is SQL that runs on the tables of its version; an SQL error means the tables
      // are not those (a table that already exists, a column that is missing).
      auto* handle = sql::sqlite_handle(db);
      if ((sqlite3_errcode(handle) & 0xff) != SQLITE_ERROR)
        return done;
      return refuse_damaged(db, fmt::format("its tables are not those of schema version {} ({})",
                                            version, sqlite3_errmsg(handle)));
    }
  }
  CULPRIT_TRY(db.execute(fmt::format("PRAGMA user_version = {}; PRAGMA application_id = {}",
                                     target_version, k_application_id)));
  return transaction.commit();
}

// An advisory lock on a file beside the store, held while a connection sets the store up.
// Switching to WAL and migrating take locks for which SQLite does not always wait (it returns
// SQLITE_BUSY at once where waiting could deadlock), so processes opening the store at the same
// time take turns here instead.
class SetupLock {
public:
  static Result<SetupLock> acquire(const std::filesystem::path& store_file,
                                   std::chrono::milliseconds timeout) {
    const auto path = store_file.string() + ".lock";
    SetupLock lock(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock.m_fd < 0)
      return infra_error("cannot open {}: {}; check that the directory is writable, or choose "
                         "another --cache-dir",
                         path, std::strerror(errno));
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (::flock(lock.m_fd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK && errno != EINTR)
        return infra_error("cannot lock {}: {}", path, std::strerror(errno));
      if (std::chrono::steady_clock::now() > deadline)
        return infra_error("another culprit process has been opening the results store {} for "
                           "{} s; wait for it or stop it",
                           store_file.string(), timeout.count() / 1000);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return lock;
  }
  SetupLock(SetupLock&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}
  SetupLock& operator=(SetupLock&&) = delete;
  SetupLock(const SetupLock&) = delete;
  SetupLock& operator=(const SetupLock&) = delete;
  ~SetupLock() {
    if (m_fd >= 0)
      ::close(m_fd); // releases the lock
  }

private:
  explicit SetupLock(int fd) : m_fd(fd) {}
  int m_fd;
};

} // namespace

namespace {

// What the database holds of the component: whether culprit_schema is there, and the
// component's version (0: none). Refuses a database of another application, a component of a
// newer culprit and a version no culprit writes on PostgreSQL.
struct ComponentState {
  bool marked = false;
  std::int64_t version = 0;
};

Result<ComponentState> component_state(sql::Database& db, const PostgresComponent& component) {
  CULPRIT_TRY_ASSIGN(auto marked, db.prepare("SELECT to_regclass('culprit_schema') IS NOT NULL, "
                                             "(SELECT count(*) FROM information_schema.tables "
                                             "WHERE table_schema = current_schema())"));
  CULPRIT_TRY(marked.step());
  ComponentState state{.marked = marked.column_bool(0), .version = 0};
  const auto tables = marked.column_int64(1);
  marked.reset();
  if (!state.marked) {
    if (tables != 0)
      return infra_error("the database of {} holds tables of another application (no "
                         "culprit_schema table); name an empty database, or a schema of its own "
                         "(options=-csearch_path%3Dculprit in the URL)",
                         db.name());
    return state;
  }
  CULPRIT_TRY_ASSIGN(auto current,
                     db.prepare("SELECT version FROM culprit_schema WHERE component = ?1"));
  current.bind(1, component.name);
  CULPRIT_TRY_ASSIGN(const bool known, current.step());
  state.version = known ? current.column_int64(0) : 0;
  current.reset();
  if (state.version > component.version)
    return infra_error("the {} in {} was written by a newer culprit (schema version {}, this "
                       "culprit knows up to {}); upgrade culprit, or name another store",
                       component.description, db.name(), state.version, component.version);
  const auto created = component.version - static_cast<std::int64_t>(component.upgrades.size());
  if (state.version != 0 && state.version < created)
    return infra_error("the {} in {} has schema version {}, which no culprit writes on "
                       "PostgreSQL; name another store",
                       component.description, db.name(), state.version);
  return state;
}

} // namespace

Result<std::int64_t> check_postgres_component(sql::Database& db,
                                              const PostgresComponent& component) {
  CULPRIT_TRY_ASSIGN(const auto state, component_state(db, component));
  return state.version;
}

Status prepare_postgres_component(sql::Database& db, const PostgresComponent& component) {
  CULPRIT_TRY_ASSIGN(auto transaction,
                     sql::Transaction::begin(db, sql::Transaction::Kind::serialized));
  CULPRIT_TRY_ASSIGN(const auto state, component_state(db, component));
  if (state.version == component.version)
    return transaction.commit();
  if (!state.marked)
    CULPRIT_TRY(db.execute("CREATE TABLE culprit_schema (component TEXT PRIMARY KEY, "
                           "version BIGINT NOT NULL)"));
  const auto created = component.version - static_cast<std::int64_t>(component.upgrades.size());
  if (state.version == 0)
    CULPRIT_TRY(db.execute(component.create));
  for (auto step = std::max(state.version, created); step < component.version; ++step)
    CULPRIT_TRY(db.execute(component.upgrades[static_cast<std::size_t>(step - created)]));
  CULPRIT_TRY_ASSIGN(auto mark, db.prepare("INSERT INTO culprit_schema (component, version) "
                                           "VALUES (?1, ?2) ON CONFLICT (component) DO UPDATE "
                                           "SET version = excluded.version"));
  mark.bind_all(component.name, component.version);
  CULPRIT_TRY(mark.run());
  return transaction.commit();
}

Status check_schema(sql::Database& db, std::int64_t target_version) {
  if (db.dialect() == sql::Dialect::postgres) {
    CULPRIT_TRY(check_postgres_component(db, {.name = "store",
                                              .description = "results store",
                                              .version = target_version,
                                              .create = k_postgres_schema,
                                              .upgrades = {}}));
    return {};
  }
  CULPRIT_TRY_ASSIGN(const auto version, db.pragma_integer("user_version"));
  return check_version(db, version, target_version);
}

Status prepare_schema(sql::Database& db, std::chrono::milliseconds busy_timeout,
                      std::int64_t target_version) {
  if (db.dialect() == sql::Dialect::postgres) {
    if (target_version < k_postgres_first_version)
      return infra_error("internal error: schema version {} has no PostgreSQL form",
                         target_version);
    return prepare_postgres_component(db, {.name = "store",
                                           .description = "results store",
                                           .version = target_version,
                                           .create = k_postgres_schema,
                                           .upgrades = {}});
  }
  CULPRIT_TRY_ASSIGN(const auto lock, SetupLock::acquire(db.file(), busy_timeout));
  CULPRIT_TRY(db.execute(fmt::format("PRAGMA busy_timeout = {}", busy_timeout.count())));
  // The first read of the file: a damaged or foreign file is noticed here.
  CULPRIT_TRY_ASSIGN(const auto version, db.pragma_integer("user_version"));
  CULPRIT_TRY(check_version(db, version, target_version));
  CULPRIT_TRY(db.execute("PRAGMA foreign_keys = ON"));
  {
    CULPRIT_TRY_ASSIGN(auto journal, db.prepare("PRAGMA journal_mode = WAL"));
    CULPRIT_TRY(journal.step());
  } // finalized here: a statement left on a row would keep COMMIT from succeeding
  CULPRIT_TRY(db.execute("PRAGMA synchronous = NORMAL"));
  if (version < target_version)
    CULPRIT_TRY(migrate(db, version, target_version));
  return {};
}

} // namespace culprit::store
