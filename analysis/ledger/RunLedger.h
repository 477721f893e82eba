// RunLedger: every run of a project, in an SQLite database in the project's
// `.pto/ledger.sqlite`, so that runs can be listed and two runs compared
// (`pto runs`, `pto compare`; `pto run` and `pto report` record). It also
// keeps the tuner's result cache: every point a sweep simulated, so that a
// sweep run again simulates only the points it has not seen.
//
// Safety. Each record is one transaction (the run's row, its task table and
// the pruning of old task tables together), in WAL journal mode with a busy
// timeout: another process writing at the same time waits its turn, and a
// process killed mid-write leaves the database as it was before that record.
//
// Size. A run's row (settings, figures, health metrics) is kept for ever; its
// per-task table (zlib-compressed JSON) only while it is among the newest
// LedgerLimits::keptTraces tables and the tables kept total at most
// LedgerLimits::keptTraceBytes compressed bytes.
//
// Schema. Versioned with `PRAGMA user_version` (kSchemaVersion). Opening an
// older database migrates it in one transaction; a newer one is refused. A
// file that is not an SQLite database is moved aside to
// `ledger.sqlite.corrupt-<time>` (a warning) and a new ledger started.
#pragma once

#include "analysis/report/HealthReport.h"
#include "analysis/ledger/RunRecord.h"
#include "core/Diagnostics.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

struct sqlite3;

namespace pto {

struct ProjectRunResult;

struct LedgerLimits {
  int keptTraces = 50;                                   // newest runs that keep their task table
  std::int64_t keptTraceBytes = std::int64_t{256} << 20;  // compressed bytes of the tables kept, in all
  int keptTunePoints = 200000;                           // newest tuning results kept (about 100 bytes each)
};

// One point a sweep simulated (or failed to), as the tuner's result cache
// keeps it: `key` fingerprints everything the result depends on (Tuner.h).
struct TunePointRecord {
  std::string key;
  nlohmann::ordered_json settings;  // the point's {path: value}, for a reader of the database
  std::string status;               // "ok" or "failed"
  std::string reason;               // why it failed
  double makespanUs = 0.0;
  double busyUs = 0.0;
};

// A run as `pto runs` lists it: the record without its metrics and tasks.
struct RunRow {
  std::int64_t id = 0;
  std::string timeUtc;
  std::string project;
  std::string kernelHash;
  nlohmann::ordered_json settings;
  std::string mode;
  std::string machine;
  std::int64_t makespanCycles = 0;
  double makespanUs = 0.0;
  int tasks = 0;
  std::int64_t traceBytes = 0;  // compressed size of its task table; 0 once pruned
};

class RunLedger {
public:
  static constexpr int kSchemaVersion = 3;

  // PROJECT_FOLDER/.pto/ledger.sqlite
  static std::filesystem::path fileIn(const std::filesystem::path& projectFolder);

  // Opens (creating the folder and the database, migrating an older schema)
  // the ledger of the project in `projectFolder`. nullopt with an error at
  // the file when it cannot be opened or written, or its schema is newer.
  static std::optional<RunLedger> open(const std::filesystem::path& projectFolder, DiagnosticEngine& diags,
                                       LedgerLimits limits = {});

  RunLedger(RunLedger&&) noexcept;
  RunLedger& operator=(RunLedger&&) noexcept;
  ~RunLedger();

  const std::filesystem::path& file() const { return m_file; }

  // Records `record` (its id is ignored; an empty time is now) and prunes old
  // task tables, in one transaction. The new run's id, or nullopt with an
  // error (nothing recorded).
  std::optional<std::int64_t> record(const RunRecord& record, DiagnosticEngine& diags);

  // The runs, newest first; at most `limit` of them when positive.
  std::optional<std::vector<RunRow>> list(DiagnosticEngine& diags, int limit = 0);

  // Run `id` in full (its task table when kept); nullopt with an error when
  // there is no such run or it cannot be read.
  std::optional<RunRecord> load(std::int64_t id, DiagnosticEngine& diags);

  // The tuning results kept under `keys` (those not kept are left out), or
  // nullopt with an error when the ledger cannot be read.
  std::optional<std::vector<TunePointRecord>> findTunePoints(const std::vector<std::string>& keys,
                                                             DiagnosticEngine& diags);
  // Keeps `points` (replacing results under the same keys) and drops the
  // oldest past LedgerLimits::keptTunePoints, in one transaction.
  bool recordTunePoints(const std::vector<TunePointRecord>& points, DiagnosticEngine& diags);

private:
  struct Close {
    void operator()(sqlite3* db) const;
  };
  RunLedger(std::unique_ptr<sqlite3, Close> db, std::filesystem::path file, LedgerLimits limits);

  std::unique_ptr<sqlite3, Close> m_db;
  std::filesystem::path m_file;
  LedgerLimits m_limits;
};

// Records a completed simulated run of `project` in its ledger: what `pto
// run` and `pto report` call. `health` may be null (it is then made from the
// machine the run simulated, when that machine can be found). Never an
// error: when the ledger cannot be written, one warning naming the file and
// why goes to `diags` and nullopt is returned. A run without a simulation is
// not recorded (nullopt, no warning). The new run's id otherwise (the IDE
// marks it as the current run in its Runs panel).
std::optional<std::int64_t> recordRun(const OperatorProject& project, const ProjectRunResult& run,
                                      const HealthReport* health, DiagnosticEngine& diags,
                                      const LedgerLimits& limits = {});

} // namespace pto
