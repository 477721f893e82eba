// The run ledger: runs of a project in `.pto/ledger.sqlite` (RunLedger.h).
#include "analysis/ledger/RunLedger.h"

#include "analysis/run/ProjectRun.h"

#include <sqlite3.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <iterator>
#include <thread>

namespace pto {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// How long a writer waits for another process's transaction before giving up.
constexpr int kBusyTimeoutMs = 5000;

// kMigrations[v] takes a database at schema version v to v + 1. A new ledger
// runs them all, so every step is exercised by every new ledger, not only by
// the rare old file.
constexpr const char* kMigrations[] = {
    // 0 -> 1: runs and their per-task tables.
    "CREATE TABLE runs ("
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  time_utc TEXT NOT NULL, project TEXT NOT NULL, kernel_hash TEXT NOT NULL, settings TEXT NOT NULL,"
    "  mode TEXT NOT NULL, machine TEXT NOT NULL, clock_ghz REAL NOT NULL,"
    "  makespan_cycles INTEGER NOT NULL, makespan_us REAL NOT NULL, tasks INTEGER NOT NULL,"
    "  utilization_aic REAL NOT NULL, utilization_aiv REAL NOT NULL, metrics TEXT NOT NULL);"
    "CREATE TABLE traces ("
    "  run_id INTEGER PRIMARY KEY REFERENCES runs(id),"
    "  task_count INTEGER NOT NULL, raw_bytes INTEGER NOT NULL, data BLOB NOT NULL);",
    // 1 -> 2: each task table's compressed size, which the byte bound sums
    // (without reading the blobs).
    "ALTER TABLE traces ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;"
    "UPDATE traces SET bytes = length(data);",
    // 2 -> 3: the tuner's result cache, one row a point (its rowid orders
    // them by age for pruning).
    "CREATE TABLE tune_points ("
    "  key TEXT PRIMARY KEY, time_utc TEXT NOT NULL, settings TEXT NOT NULL, status TEXT NOT NULL,"
    "  reason TEXT NOT NULL, makespan_us REAL NOT NULL, busy_us REAL NOT NULL);",
};
static_assert(std::size(kMigrations) == RunLedger::kSchemaVersion);

// The task table's columns, in the order each task's array holds them.
const Json kTaskColumns = {"key", "label", "subgraph", "core_type", "core", "start_cycle", "end_cycle"};

// sqlite's message, with the system's reason when it has one ("unable to
// open database file (Permission denied)").
std::string why(sqlite3* db) {
  if (!db) return "out of memory";
  std::string message = sqlite3_errmsg(db);
  if (const int error = sqlite3_system_errno(db); error != 0) message += std::string(" (") + std::strerror(error) + ")";
  return message;
}

bool isNotADatabase(int rc) {
  const int primary = rc & 0xff;
  return primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT;
}

// A prepared statement, finalized when it goes.
class SqlStatement {
public:
  SqlStatement(sqlite3* db, const char* sql) { m_rc = sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr); }
  ~SqlStatement() { sqlite3_finalize(m_stmt); }
  SqlStatement(const SqlStatement&) = delete;
  SqlStatement& operator=(const SqlStatement&) = delete;

  int prepared() const { return m_rc; }
  void bind(int index, std::int64_t value) { sqlite3_bind_int64(m_stmt, index, value); }
  void bind(int index, double value) { sqlite3_bind_double(m_stmt, index, value); }
  void bind(int index, const std::string& value) {
    sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  }
  void bindBlob(int index, const std::string& bytes) {
    sqlite3_bind_blob(m_stmt, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_STATIC);
  }
  int step() { return m_rc == SQLITE_OK ? sqlite3_step(m_stmt) : m_rc; }
  // Ready to run again with new bindings.
  void reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
  }

  std::int64_t integer(int column) const { return sqlite3_column_int64(m_stmt, column); }
  double real(int column) const { return sqlite3_column_double(m_stmt, column); }
  bool isNull(int column) const { return sqlite3_column_type(m_stmt, column) == SQLITE_NULL; }
  std::string text(int column) const {
    const auto* chars = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
    return chars ? std::string(chars, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string();
  }
  std::string blob(int column) const {
    const auto* bytes = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
    return bytes ? std::string(bytes, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string();
  }

private:
  sqlite3_stmt* m_stmt = nullptr;
  int m_rc = SQLITE_OK;
};

int exec(sqlite3* db, const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr); }

// BEGIN IMMEDIATE (the write lock up front, so two writers queue on the busy
// timeout instead of one failing at its first write); rolled back unless
// committed.
class WriteTransaction {
public:
  explicit WriteTransaction(sqlite3* db) : m_db(db), m_rc(exec(db, "BEGIN IMMEDIATE")) {}
  ~WriteTransaction() {
    if (m_rc == SQLITE_OK && !m_committed) exec(m_db, "ROLLBACK");
  }
  int begun() const { return m_rc; }
  int commit() {
    const int rc = exec(m_db, "COMMIT");
    m_committed = rc == SQLITE_OK;
    return rc;
  }

private:
  sqlite3* m_db;
  int m_rc;
  bool m_committed = false;
};

// PRAGMA user_version, or -1 with the result code in `rc`.
int schemaVersion(sqlite3* db, int& rc) {
  SqlStatement query(db, "PRAGMA user_version");
  rc = query.step();
  if (rc != SQLITE_ROW) return -1;
  rc = SQLITE_OK;
  return static_cast<int>(query.integer(0));
}

// Journal mode WAL, retried while another process holds the lock (changing
// the journal mode of a new database does not wait on the busy handler).
int useWal(sqlite3* db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    SqlStatement pragma(db, "PRAGMA journal_mode=WAL");
    const int rc = pragma.step();
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) return SQLITE_OK;
    if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) return rc;
    if (std::chrono::steady_clock::now() > deadline) return rc;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// "20250301T123456Z", for the name a corrupt file is moved aside to.
std::string compactUtcNow() {
  std::string time = utcNow();  // 2025-03-01T12:34:56Z
  time.erase(std::remove_if(time.begin(), time.end(), [](char c) { return c == '-' || c == ':'; }), time.end());
  return time;
}

// Moves `file` (and its -wal and -shm companions) aside; the new name, or
// nullopt with the reason in `reason`.
std::optional<fs::path> moveAside(const fs::path& file, std::string& reason) {
  fs::path aside = file;
  aside += ".corrupt-" + compactUtcNow();
  std::error_code ec;
  if (fs::exists(aside, ec)) aside += "-" + std::to_string(::getpid());
  fs::rename(file, aside, ec);
  if (ec) {
    reason = ec.message();
    return std::nullopt;
  }
  for (const char* companion : {"-wal", "-shm"}) {
    fs::path from = file, to = aside;
    from += companion;
    to += companion;
    if (fs::exists(from, ec)) fs::rename(from, to, ec);
  }
  return aside;
}

std::string compress(const std::string& raw, std::string& reason) {
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string out(size, '\0');
  const int rc = compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                           static_cast<uLong>(raw.size()), Z_DEFAULT_COMPRESSION);
  if (rc != Z_OK) {
    reason = std::string("cannot compress the task table: ") + zError(rc);
    return {};
  }
  out.resize(size);
  return out;
}

std::optional<std::string> decompress(const std::string& data, std::int64_t rawBytes) {
  // zlib expands at most about 1032:1; a larger claim is a damaged row, and
  // allocating it could take all memory.
  constexpr std::int64_t kMaxInflation = 1032;
  if (rawBytes < 0 || rawBytes > static_cast<std::int64_t>(data.size()) * kMaxInflation + 64) return std::nullopt;
  std::string out(static_cast<std::size_t>(rawBytes), '\0');
  uLongf size = static_cast<uLongf>(rawBytes);
  const int rc = uncompress(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(data.data()),
                            static_cast<uLong>(data.size()));
  if (rc != Z_OK || size != static_cast<uLongf>(rawBytes)) return std::nullopt;
  return out;
}

std::string encodeTasks(const std::vector<LedgerTask>& tasks) {
  Json rows = Json::array();
  for (const LedgerTask& task : tasks)
    rows.push_back({task.key, task.label, task.subgraph, task.coreType, task.core, task.startCycle, task.endCycle});
  return Json{{"columns", kTaskColumns}, {"tasks", std::move(rows)}}.dump();
}

std::optional<std::vector<LedgerTask>> decodeTasks(const std::string& text) {
  const Json table = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!table.is_object() || table.value("columns", Json()) != kTaskColumns || !table.contains("tasks") ||
      !table["tasks"].is_array())
    return std::nullopt;
  std::vector<LedgerTask> tasks;
  tasks.reserve(table["tasks"].size());
  try {
    for (const Json& row : table["tasks"])
      tasks.push_back({row.at(0).get<std::string>(), row.at(1).get<std::string>(), row.at(2).get<int>(),
                       row.at(3).get<std::string>(), row.at(4).get<int>(), row.at(5).get<std::int64_t>(),
                       row.at(6).get<std::int64_t>()});
  } catch (const Json::exception&) {
    return std::nullopt;
  }
  return tasks;
}

Json parseOrEmpty(const std::string& text) {
  Json value = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? Json::object() : value;
}

// The columns a run row and a run record share, selected in this order from
// column `first`: time_utc, project, kernel_hash, settings, mode, machine.
template <class Run>
void readRunIdentity(SqlStatement& query, int first, Run& run) {
  run.timeUtc = query.text(first);
  run.project = query.text(first + 1);
  run.kernelHash = query.text(first + 2);
  run.settings = parseOrEmpty(query.text(first + 3));
  run.mode = query.text(first + 4);
  run.machine = query.text(first + 5);
}

} // namespace

void RunLedger::Close::operator()(sqlite3* db) const { sqlite3_close_v2(db); }

RunLedger::RunLedger(std::unique_ptr<sqlite3, Close> db, std::filesystem::path file, LedgerLimits limits)
    : m_db(std::move(db)), m_file(std::move(file)), m_limits(limits) {}
RunLedger::RunLedger(RunLedger&&) noexcept = default;
RunLedger& RunLedger::operator=(RunLedger&&) noexcept = default;
RunLedger::~RunLedger() = default;

std::filesystem::path RunLedger::fileIn(const std::filesystem::path& projectFolder) {
  return projectFolder / ".pto" / "ledger.sqlite";
}

std::optional<RunLedger> RunLedger::open(const std::filesystem::path& projectFolder, DiagnosticEngine& diags,
                                         LedgerLimits limits) {
  const fs::path file = fileIn(projectFolder);
  const SourceLocation at{file.string()};
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return diags.error(at) << "cannot create the folder " << file.parent_path().string() << ": " << ec.message();

  // A second attempt only after moving a file that is not a database aside.
  for (int attempt = 0;; ++attempt) {
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(file.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    std::unique_ptr<sqlite3, Close> db(raw);
    if (rc != SQLITE_OK) return diags.error(at) << "cannot open the run ledger: " << why(raw);
    sqlite3_extended_result_codes(raw, 1);
    sqlite3_busy_timeout(raw, kBusyTimeoutMs);

    // The version first: a newer ledger is left exactly as it is.
    int version = schemaVersion(raw, rc);
    if (isNotADatabase(rc) && attempt == 0) {
      const std::string problem = why(raw);
      db.reset();
      std::string reason;
      auto aside = moveAside(file, reason);
      if (!aside)
        return diags.error(at) << "the run ledger is not a database (" << problem << ") and cannot be moved aside: "
                               << reason;
      diags.warning(at) << "the run ledger is not a database (" << problem << "); moved it aside to "
                        << aside->filename().string() << " and started a new one";
      continue;
    }
    if (rc != SQLITE_OK) return diags.error(at) << "cannot read the run ledger: " << why(raw);
    if (version > kSchemaVersion)
      return diags.error(at) << "the run ledger has schema version " << version << "; this pto knows versions up to "
                             << kSchemaVersion << " (a newer pto wrote it): run that pto, or move the file aside to "
                             << "start a new ledger";
    if (useWal(raw) != SQLITE_OK) return diags.error(at) << "cannot open the run ledger: " << why(raw);
    // NORMAL is safe against a crashed process in WAL mode (a power cut may
    // lose the last runs, never the database) and spares a sync per run.
    exec(raw, "PRAGMA synchronous=NORMAL");
    if (version < kSchemaVersion) {
      WriteTransaction transaction(raw);
      if (transaction.begun() != SQLITE_OK) return diags.error(at) << "cannot update the run ledger: " << why(raw);
      version = schemaVersion(raw, rc);  // another process may have migrated it meanwhile
      if (rc != SQLITE_OK) return diags.error(at) << "cannot read the run ledger: " << why(raw);
      if (version > kSchemaVersion)
        return diags.error(at) << "the run ledger has schema version " << version << "; this pto knows versions up to "
                               << kSchemaVersion;
      for (int step = version; step < kSchemaVersion; ++step)
        if (exec(raw, kMigrations[step]) != SQLITE_OK)
          return diags.error(at) << "cannot migrate the run ledger from schema version " << step << " to "
                                 << step + 1 << ": " << why(raw);
      const std::string setVersion = "PRAGMA user_version = " + std::to_string(kSchemaVersion);
      if (exec(raw, setVersion.c_str()) != SQLITE_OK || transaction.commit() != SQLITE_OK)
        return diags.error(at) << "cannot update the run ledger: " << why(raw);
    }
    return RunLedger(std::move(db), file, limits);
  }
}

std::optional<std::int64_t> RunLedger::record(const RunRecord& record, DiagnosticEngine& diags) {
  sqlite3* db = m_db.get();
  const SourceLocation at{m_file.string()};
  std::string reason, raw, data;
  if (record.traceKept) {
    raw = encodeTasks(record.taskTable);
    data = compress(raw, reason);
    if (!reason.empty()) return diags.error(at) << reason;
  }

  WriteTransaction transaction(db);
  if (transaction.begun() != SQLITE_OK) return diags.error(at) << "cannot record the run: " << why(db);
  SqlStatement insert(db, "INSERT INTO runs (time_utc, project, kernel_hash, settings, mode, machine, clock_ghz, "
                       "makespan_cycles, makespan_us, tasks, utilization_aic, utilization_aiv, metrics) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, record.timeUtc.empty() ? utcNow() : record.timeUtc);
  insert.bind(2, record.project);
  insert.bind(3, record.kernelHash);
  insert.bind(4, record.settings.dump());
  insert.bind(5, record.mode);
  insert.bind(6, record.machine);
  insert.bind(7, record.clockGHz);
  insert.bind(8, record.makespanCycles);
  insert.bind(9, record.makespanUs);
  insert.bind(10, std::int64_t{record.tasks});
  insert.bind(11, record.utilization[0]);
  insert.bind(12, record.utilization[1]);
  insert.bind(13, record.metrics.dump());
  if (insert.step() != SQLITE_DONE) return diags.error(at) << "cannot record the run: " << why(db);
  const std::int64_t id = sqlite3_last_insert_rowid(db);

  if (record.traceKept) {
    SqlStatement trace(db, "INSERT INTO traces (run_id, task_count, raw_bytes, bytes, data) VALUES (?, ?, ?, ?, ?)");
    trace.bind(1, id);
    trace.bind(2, static_cast<std::int64_t>(record.taskTable.size()));
    trace.bind(3, static_cast<std::int64_t>(raw.size()));
    trace.bind(4, static_cast<std::int64_t>(data.size()));
    trace.bindBlob(5, data);
    if (trace.step() != SQLITE_DONE) return diags.error(at) << "cannot record the run's tasks: " << why(db);
  }

  // Keep the newest keptTraces tables, then the newest that fit keptTraceBytes.
  SqlStatement byCount(db, "DELETE FROM traces WHERE run_id NOT IN "
                        "(SELECT run_id FROM traces ORDER BY run_id DESC LIMIT ?)");
  byCount.bind(1, static_cast<std::int64_t>(std::max(0, m_limits.keptTraces)));
  SqlStatement byBytes(db, "DELETE FROM traces WHERE run_id IN (SELECT run_id FROM "
                        "(SELECT run_id, SUM(bytes) OVER (ORDER BY run_id DESC) AS total FROM traces) WHERE total > ?)");
  byBytes.bind(1, m_limits.keptTraceBytes);
  if (byCount.step() != SQLITE_DONE || byBytes.step() != SQLITE_DONE)
    return diags.error(at) << "cannot prune old task tables: " << why(db);

  if (transaction.commit() != SQLITE_OK) return diags.error(at) << "cannot record the run: " << why(db);
  return id;
}

std::optional<std::vector<RunRow>> RunLedger::list(DiagnosticEngine& diags, int limit) {
  SqlStatement query(m_db.get(), "SELECT r.id, r.time_utc, r.project, r.kernel_hash, r.settings, r.mode, r.machine, "
                              "r.makespan_cycles, r.makespan_us, r.tasks, COALESCE(t.bytes, 0) "
                              "FROM runs r LEFT JOIN traces t ON t.run_id = r.id ORDER BY r.id DESC LIMIT ?");
  query.bind(1, static_cast<std::int64_t>(limit > 0 ? limit : -1));
  std::vector<RunRow> rows;
  int rc = SQLITE_OK;
  while ((rc = query.step()) == SQLITE_ROW) {
    RunRow row;
    row.id = query.integer(0);
    readRunIdentity(query, 1, row);
    row.makespanCycles = query.integer(7);
    row.makespanUs = query.real(8);
    row.tasks = static_cast<int>(query.integer(9));
    row.traceBytes = query.integer(10);
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return diags.error(SourceLocation{m_file.string()}) << "cannot read the runs: " << why(m_db.get());
  return rows;
}

std::optional<RunRecord> RunLedger::load(std::int64_t id, DiagnosticEngine& diags) {
  const SourceLocation at{m_file.string()};
  SqlStatement query(m_db.get(), "SELECT r.time_utc, r.project, r.kernel_hash, r.settings, r.mode, r.machine, "
                              "r.clock_ghz, r.makespan_cycles, r.makespan_us, r.tasks, r.utilization_aic, "
                              "r.utilization_aiv, r.metrics, t.raw_bytes, t.data "
                              "FROM runs r LEFT JOIN traces t ON t.run_id = r.id WHERE r.id = ?");
  query.bind(1, id);
  const int rc = query.step();
  if (rc == SQLITE_DONE) return diags.error(at) << "there is no run " << id << " in the run ledger";
  if (rc != SQLITE_ROW) return diags.error(at) << "cannot read run " << id << ": " << why(m_db.get());
  RunRecord record;
  record.id = id;
  readRunIdentity(query, 0, record);
  record.clockGHz = query.real(6);
  record.makespanCycles = query.integer(7);
  record.makespanUs = query.real(8);
  record.tasks = static_cast<int>(query.integer(9));
  record.utilization = std::array<double, 2>{query.real(10), query.real(11)};
  record.metrics = parseOrEmpty(query.text(12));
  record.traceKept = !query.isNull(14);
  if (record.traceKept) {
    auto text = decompress(query.blob(14), query.integer(13));
    auto tasks = text ? decodeTasks(*text) : std::nullopt;
    if (!tasks) return diags.error(at) << "the task table of run " << id << " is damaged";
    record.taskTable = std::move(*tasks);
  }
  return record;
}

std::optional<std::int64_t> recordRun(const OperatorProject& project, const ProjectRunResult& run,
                                      const HealthReport* health, DiagnosticEngine& diags, const LedgerLimits& limits) {
  if (!run.compiled || !run.simulation) return std::nullopt;
  std::optional<HealthReport> made;
  if (!health && run.machine) {
    made = healthReport(run.compiled->compilation, run.simulation->schedule, *run.machine);
    health = &*made;
  }
  std::optional<bool> pass;
  if (run.precisionSkipped.empty())
    pass = std::all_of(run.outputs.begin(), run.outputs.end(),
                       [](const OutputResult& output) { return output.comparison.pass(); });
  const RunRecord record = recordOf(project, run.compiled->compilation, *run.simulation, health, pass);

  DiagnosticEngine ledgerDiags;
  auto ledger = RunLedger::open(project.directory(), ledgerDiags, limits);
  const std::optional<std::int64_t> recorded = ledger ? ledger->record(record, ledgerDiags) : std::nullopt;
  for (Diagnostic diagnostic : ledgerDiags.diagnostics()) {
    if (diagnostic.severity == Severity::Error) {
      diagnostic.severity = Severity::Warning;
      diagnostic.message = "the run was not recorded: " + diagnostic.message;
    }
    diags.report(std::move(diagnostic));
  }
  return recorded;
}

std::optional<std::vector<TunePointRecord>> RunLedger::findTunePoints(const std::vector<std::string>& keys,
                                                                      DiagnosticEngine& diags) {
  std::vector<TunePointRecord> found;
  SqlStatement query(m_db.get(), "SELECT settings, status, reason, makespan_us, busy_us FROM tune_points WHERE key = ?");
  for (const std::string& key : keys) {
    query.reset();
    query.bind(1, key);
    const int rc = query.step();
    if (rc == SQLITE_DONE) continue;
    if (rc != SQLITE_ROW)
      return diags.error(SourceLocation{m_file.string()}) << "cannot read the tuning results: " << why(m_db.get());
    TunePointRecord point;
    point.key = key;
    point.settings = parseOrEmpty(query.text(0));
    point.status = query.text(1);
    point.reason = query.text(2);
    point.makespanUs = query.real(3);
    point.busyUs = query.real(4);
    found.push_back(std::move(point));
  }
  return found;
}

bool RunLedger::recordTunePoints(const std::vector<TunePointRecord>& points, DiagnosticEngine& diags) {
  sqlite3* db = m_db.get();
  const SourceLocation at{m_file.string()};
  WriteTransaction transaction(db);
  if (transaction.begun() != SQLITE_OK) {
      diags.error(at) << "cannot keep the tuning results: " << why(db);
      return false;
    }
  // REPLACE deletes the old row and inserts a new one: a point simulated
  // again becomes the newest.
  SqlStatement insert(db, "INSERT OR REPLACE INTO tune_points (key, time_utc, settings, status, reason, makespan_us, "
                       "busy_us) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const std::string now = utcNow();
  for (const TunePointRecord& point : points) {
    insert.reset();
    insert.bind(1, point.key);
    insert.bind(2, now);
    insert.bind(3, point.settings.dump());
    insert.bind(4, point.status);
    insert.bind(5, point.reason);
    insert.bind(6, point.makespanUs);
    insert.bind(7, point.busyUs);
    if (insert.step() != SQLITE_DONE) {
      diags.error(at) << "cannot keep the tuning results: " << why(db);
      return false;
    }
  }
  SqlStatement prune(db, "DELETE FROM tune_points WHERE rowid NOT IN "
                     "(SELECT rowid FROM tune_points ORDER BY rowid DESC LIMIT ?)");
  prune.bind(1, static_cast<std::int64_t>(std::max(0, m_limits.keptTunePoints)));
  if (prune.step() != SQLITE_DONE) {
      diags.error(at) << "cannot prune old tuning results: " << why(db);
      return false;
    }
  if (transaction.commit() != SQLITE_OK) {
      diags.error(at) << "cannot keep the tuning results: " << why(db);
      return false;
    }
  return true;
}

} // namespace pto
