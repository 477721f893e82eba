// The run ledger (analysis/ledger/RunLedger.h) and comparing two runs
// (analysis/ledger/RunComparison.h): records round-trip, the newest come first, an
// old schema migrates and a newer one is refused, old task tables are pruned
// by count and by bytes, a writer killed mid-way and two writers at once
// leave only whole runs; the comparison of two hand-built runs against
// deltas worked out by hand.
#include "analysis/ledger/RunComparison.h"
#include "analysis/ledger/RunLedger.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <tuple>
#include <sys/wait.h>
#include <unistd.h>

namespace pto {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// A project folder in the temporary directory, removed when the object goes.
class TempFolder {
public:
  TempFolder() : m_dir(fs::temp_directory_path() / ("pto-ledger-" + std::to_string(std::random_device{}()))) {
    fs::create_directories(m_dir);
  }
  ~TempFolder() { fs::remove_all(m_dir); }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const fs::path& dir() const { return m_dir; }

private:
  fs::path m_dir;
};

std::string messages(const DiagnosticEngine& diags) {
  std::string text;
  for (const Diagnostic& diagnostic : diags.diagnostics()) text += diagnostic.location.str() + ": " + diagnostic.message + "\n";
  return text;
}

// A run of `tasks` tasks; `number` makes it recognisable (its makespan).
RunRecord sampleRun(int number, int tasks = 8, const std::string& project = "sample") {
  RunRecord run;
  run.timeUtc = "2025-03-01T12:00:00Z";
  run.project = project;
  run.kernelHash = kernelHash("def kernel(): pass\n");
  run.settings = {{"machine", "a2"},
                  {"tile_settings", {{"vec", {{"DEFAULT", {1, 4, 1, 64}}}}}},
                  {"pass_options", Json::object()},
                  {"runtime_options", {{"device_sched_mode", 1}}},
                  {"partition_overrides", Json::array()},
                  {"bindings", {{"B", 32}}}};
  run.mode = "timing";
  run.machine = "a2";
  run.clockGHz = 1.8;
  run.makespanCycles = 1000 + number;
  run.makespanUs = static_cast<double>(run.makespanCycles) / 1800.0;
  run.tasks = tasks;
  run.utilization = {0.25, 0.75};
  run.metrics = {{"bound", {{"class", "VECTOR"}, {"evidence", "most of the path"}}}, {"number", number}};
  for (int i = 0; i < tasks; ++i)
    run.taskTable.push_back({"exp|b=" + std::to_string(i) + "|y@" + std::to_string(i) + ",0", "exp", i % 3,
                             i % 2 ? "AIC" : "AIV", i % 4, 10 * i, 10 * i + 7 + number});
  return run;
}

// Opens the ledger file with sqlite directly, as another tool would.
struct RawDatabase {
  explicit RawDatabase(const fs::path& file) { sqlite3_open(file.c_str(), &db); }
  ~RawDatabase() { sqlite3_close(db); }
  std::string single(const char* sql) const {
    sqlite3_stmt* statement = nullptr;
    std::string value;
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
      value = text ? text : "";
    }
    sqlite3_finalize(statement);
    return value;
  }
  sqlite3* db = nullptr;
};

TEST(RunLedger, RecordsARunAndLoadsItWhole) {
  TempFolder folder;
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags);
  ASSERT_TRUE(ledger) << messages(diags);
  EXPECT_EQ(ledger->file(), folder.dir() / ".pto" / "ledger.sqlite");
  const RunRecord run = sampleRun(1, 40);
  auto id = ledger->record(run, diags);
  ASSERT_TRUE(id) << messages(diags);
  EXPECT_EQ(*id, 1);
  auto loaded = ledger->load(*id, diags);
  ASSERT_TRUE(loaded) << messages(diags);
  EXPECT_EQ(loaded->id, 1);
  EXPECT_EQ(loaded->timeUtc, run.timeUtc);
  EXPECT_EQ(loaded->project, run.project);
  EXPECT_EQ(loaded->kernelHash, run.kernelHash);
  EXPECT_EQ(loaded->settings, run.settings);
  EXPECT_EQ(loaded->mode, run.mode);
  EXPECT_EQ(loaded->machine, run.machine);
  EXPECT_EQ(loaded->clockGHz, run.clockGHz);
  EXPECT_EQ(loaded->makespanCycles, run.makespanCycles);
  EXPECT_EQ(loaded->makespanUs, run.makespanUs);
  EXPECT_EQ(loaded->tasks, run.tasks);
  EXPECT_EQ(loaded->utilization, run.utilization);
  EXPECT_EQ(loaded->metrics, run.metrics);
  EXPECT_TRUE(loaded->traceKept);
  EXPECT_EQ(loaded->taskTable, run.taskTable);

  EXPECT_FALSE(ledger->load(7, diags));
  EXPECT_EQ(diags.diagnostics().back().message, "there is no run 7 in the run ledger");
  EXPECT_EQ(RawDatabase(ledger->file()).single("PRAGMA journal_mode"), "wal");
}

TEST(RunLedger, ATaskTableThatClaimsAHugeSizeIsReportedDamaged) {
  // A damaged or hostile ledger row says its task table inflates to 1 TiB:
  // loading the run reports it instead of trying to allocate that.
  TempFolder folder;
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags);
  ASSERT_TRUE(ledger) << messages(diags);
  auto id = ledger->record(sampleRun(1, 8), diags);
  ASSERT_TRUE(id) << messages(diags);
  {
    RawDatabase raw(ledger->file());
    ASSERT_EQ(sqlite3_exec(raw.db, "UPDATE traces SET raw_bytes = 1099511627776", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  EXPECT_FALSE(ledger->load(*id, diags));
  EXPECT_EQ(diags.diagnostics().back().message, "the task table of run 1 is damaged");
}

TEST(RunLedger, ListsTheNewestRunFirst) {
  TempFolder folder;
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags);
  ASSERT_TRUE(ledger) << messages(diags);
  for (int number = 1; number <= 3; ++number) ASSERT_TRUE(ledger->record(sampleRun(number), diags)) << messages(diags);
  auto rows = ledger->list(diags);
  ASSERT_TRUE(rows) << messages(diags);
  ASSERT_EQ(rows->size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*rows)[i].id, static_cast<std::int64_t>(3 - i));
    EXPECT_EQ((*rows)[i].makespanCycles, 1000 + 3 - static_cast<std::int64_t>(i));
    EXPECT_GT((*rows)[i].traceBytes, 0);
    EXPECT_EQ((*rows)[i].settings, sampleRun(0).settings);
  }
  auto newest = ledger->list(diags, 2);
  ASSERT_TRUE(newest);
  ASSERT_EQ(newest->size(), 2u);
  EXPECT_EQ(newest->back().id, 2);
}

// The v1 schema as the first ledger wrote it: no size column on the task tables.
const char* kVersion1Schema =
    "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, time_utc TEXT NOT NULL, project TEXT NOT NULL,"
    " kernel_hash TEXT NOT NULL, settings TEXT NOT NULL, mode TEXT NOT NULL, machine TEXT NOT NULL,"
    " clock_ghz REAL NOT NULL, makespan_cycles INTEGER NOT NULL, makespan_us REAL NOT NULL, tasks INTEGER NOT NULL,"
    " utilization_aic REAL NOT NULL, utilization_aiv REAL NOT NULL, metrics TEXT NOT NULL);"
    "CREATE TABLE traces (run_id INTEGER PRIMARY KEY REFERENCES runs(id), task_count INTEGER NOT NULL,"
    " raw_bytes INTEGER NOT NULL, data BLOB NOT NULL);"
    "PRAGMA user_version = 1;";

TEST(RunLedger, MigratesAVersion1Ledger) {
  TempFolder folder;
  const fs::path file = RunLedger::fileIn(folder.dir());
  fs::create_directories(file.parent_path());
  // One run with one task, its table compressed as the ledger stores it.
  const std::string table =
      R"({"columns":["key","label","subgraph","core_type","core","start_cycle","end_cycle"],)"
      R"("tasks":[["mm|i=0|c@0,0","mm",0,"AIC",3,100,400]]})";
  uLongf size = compressBound(static_cast<uLong>(table.size()));
  std::string blob(size, '\0');
  ASSERT_EQ(compress(reinterpret_cast<Bytef*>(blob.data()), &size, reinterpret_cast<const Bytef*>(table.data()),
                     static_cast<uLong>(table.size())),
            Z_OK);
  blob.resize(size);
  {
    RawDatabase raw(file);
    ASSERT_EQ(sqlite3_exec(raw.db, kVersion1Schema, nullptr, nullptr, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw.db,
                           "INSERT INTO runs VALUES (1, '2024-12-31T23:59:59Z', 'old', 'abc', '{\"machine\":\"a2\"}',"
                           " 'timing', 'a2', 1.8, 400, 0.222, 1, 0.5, 0.0, '{}')",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_stmt* insert = nullptr;
    sqlite3_prepare_v2(raw.db, "INSERT INTO traces VALUES (1, 1, ?, ?)", -1, &insert, nullptr);
    sqlite3_bind_int64(insert, 1, static_cast<sqlite3_int64>(table.size()));
    sqlite3_bind_blob(insert, 2, blob.data(), static_cast<int>(blob.size()), nullptr);
    ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_finalize(insert);
  }

  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags);
  ASSERT_TRUE(ledger) << messages(diags);
  EXPECT_EQ(RawDatabase(file).single("PRAGMA user_version"), "3");
  EXPECT_EQ(RawDatabase(file).single("SELECT bytes FROM traces WHERE run_id = 1"), std::to_string(blob.size()));
  EXPECT_EQ(RawDatabase(file).single("SELECT count(*) FROM tune_points"), "0");
  auto rows = ledger->list(diags);
  ASSERT_TRUE(rows) << messages(diags);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().project, "old");
  EXPECT_EQ(rows->front().traceBytes, static_cast<std::int64_t>(blob.size()));
  auto old = ledger->load(1, diags);
  ASSERT_TRUE(old) << messages(diags);
  ASSERT_EQ(old->taskTable.size(), 1u);
  EXPECT_EQ(old->taskTable[0], (LedgerTask{"mm|i=0|c@0,0", "mm", 0, "AIC", 3, 100, 400}));
  // The migrated ledger takes new runs after the old one.
  EXPECT_EQ(ledger->record(sampleRun(2), diags), std::optional<std::int64_t>(2)) << messages(diags);
}

TEST(RunLedger, RefusesANewerSchemaNamingTheFile) {
  TempFolder folder;
  const fs::path file = RunLedger::fileIn(folder.dir());
  fs::create_directories(file.parent_path());
  {
    RawDatabase raw(file);
    ASSERT_EQ(sqlite3_exec(raw.db, "CREATE TABLE future (x); PRAGMA user_version = 4;", nullptr, nullptr, nullptr),
              SQLITE_OK);
  }
  DiagnosticEngine diags;
  EXPECT_FALSE(RunLedger::open(folder.dir(), diags));
  ASSERT_EQ(diags.diagnostics().size(), 1u);
  EXPECT_EQ(diags.diagnostics()[0].location.file, file.string());
  EXPECT_EQ(diags.diagnostics()[0].message,
            "the run ledger has schema version 4; this pto knows versions up to 3 (a newer pto wrote it): run that "
            "pto, or move the file aside to start a new ledger");
  EXPECT_EQ(RawDatabase(file).single("PRAGMA user_version"), "4");  // left alone
}

// The tuner's result cache: what is kept under a key comes back under it,
// a key kept again is replaced, and only the newest keptTunePoints stay.
TEST(RunLedger, KeepsTuningResultsByKeyAndPrunesTheOldest) {
  TempFolder folder;
  DiagnosticEngine diags;
  LedgerLimits limits;
  limits.keptTunePoints = 3;
  auto ledger = RunLedger::open(folder.dir(), diags, limits);
  ASSERT_TRUE(ledger) << messages(diags);
  auto point = [](const std::string& key, double us) {
    return TunePointRecord{key, {{"runtime_options.device_sched_mode", 1}}, "ok", "", us, 2 * us};
  };
  ASSERT_TRUE(ledger->recordTunePoints({point("a", 1.0), point("b", 2.0)}, diags)) << messages(diags);
  ASSERT_TRUE(ledger->recordTunePoints({point("a", 3.0), TunePointRecord{"c", {}, "failed", "no such core", 0, 0}}, diags))
      << messages(diags);
  auto found = ledger->findTunePoints({"a", "b", "c", "d"}, diags);
  ASSERT_TRUE(found) << messages(diags);
  ASSERT_EQ(found->size(), 3u);
  EXPECT_EQ((*found)[0].key, "a");
  EXPECT_EQ((*found)[0].makespanUs, 3.0);  // replaced
  EXPECT_EQ((*found)[0].busyUs, 6.0);
  EXPECT_EQ((*found)[0].settings["runtime_options.device_sched_mode"], 1);
  EXPECT_EQ((*found)[2].status, "failed");
  EXPECT_EQ((*found)[2].reason, "no such core");
  // A fourth key: the oldest row ("b"; "a" became newer when kept again) goes.
  ASSERT_TRUE(ledger->recordTunePoints({point("d", 4.0)}, diags)) << messages(diags);
  found = ledger->findTunePoints({"a", "b", "c", "d"}, diags);
  ASSERT_TRUE(found) << messages(diags);
  std::vector<std::string> keys;
  for (const TunePointRecord& kept : *found) keys.push_back(kept.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "c", "d"}));
}

TEST(RunLedger, AFileThatIsNotADatabaseIsMovedAside) {
  TempFolder folder;
  const fs::path file = RunLedger::fileIn(folder.dir());
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "this is not an SQLite database, whatever its name says; it is long enough to have a header";
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags);
  ASSERT_TRUE(ledger) << messages(diags);
  ASSERT_EQ(diags.warningCount(), 1u) << messages(diags);
  EXPECT_NE(diags.diagnostics()[0].message.find("the run ledger is not a database (file is not a database); moved "
                                                 "it aside to ledger.sqlite.corrupt-"),
            std::string::npos)
      << messages(diags);
  int aside = 0;
  for (const auto& entry : fs::directory_iterator(file.parent_path()))
    aside += entry.path().filename().string().rfind("ledger.sqlite.corrupt-", 0) == 0;
  EXPECT_EQ(aside, 1);
  EXPECT_TRUE(ledger->record(sampleRun(1), diags)) << messages(diags);
}

TEST(RunLedger, KeepsTheTaskTablesOfTheNewestRunsOnly) {
  TempFolder folder;
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags, LedgerLimits{3, std::int64_t{1} << 30});
  ASSERT_TRUE(ledger) << messages(diags);
  for (int number = 1; number <= 5; ++number) ASSERT_TRUE(ledger->record(sampleRun(number), diags)) << messages(diags);
  auto rows = ledger->list(diags);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 5u);  // every run keeps its row
  for (const RunRow& row : *rows) EXPECT_EQ(row.traceBytes > 0, row.id >= 3) << row.id;
  auto oldest = ledger->load(1, diags);
  ASSERT_TRUE(oldest) << messages(diags);
  EXPECT_FALSE(oldest->traceKept);
  EXPECT_TRUE(oldest->taskTable.empty());
  EXPECT_EQ(oldest->metrics, sampleRun(1).metrics);  // the metrics stay
  EXPECT_EQ(oldest->makespanCycles, 1001);
  EXPECT_EQ(ledger->load(3, diags)->taskTable, sampleRun(3).taskTable);
}

TEST(RunLedger, KeepsTheTaskTablesThatFitTheByteBound) {
  TempFolder folder;
  DiagnosticEngine diags;
  std::int64_t bytes = 0;
  {
    auto ledger = RunLedger::open(folder.dir(), diags);
    ASSERT_TRUE(ledger) << messages(diags);
    ASSERT_TRUE(ledger->record(sampleRun(1, 200), diags));
    bytes = ledger->list(diags)->front().traceBytes;
  }
  ASSERT_GT(bytes, 0);
  // Room for two and a half tables of this size (the same run compresses to the same bytes).
  auto ledger = RunLedger::open(folder.dir(), diags, LedgerLimits{50, 2 * bytes + bytes / 2});
  ASSERT_TRUE(ledger) << messages(diags);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(ledger->record(sampleRun(1, 200), diags)) << messages(diags);
  auto rows = ledger->list(diags);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].traceBytes, bytes);
  EXPECT_EQ((*rows)[1].traceBytes, bytes);
  EXPECT_EQ((*rows)[2].traceBytes, 0);
  EXPECT_EQ((*rows)[3].traceBytes, 0);
  EXPECT_EQ(ledger->load(1, diags)->metrics, sampleRun(1).metrics);
}

// Waits for `pid`; its exit status, or -1 when it did not exit normally.
int exitStatusOf(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Checks that the ledger in `folder` holds runs 1..n (n >= `atLeast`) of
// sampleRun(number, tasks), each whole, and passes sqlite's integrity check.
void expectWholeRuns(const fs::path& folder, std::size_t atLeast, int tasks) {
  const fs::path file = RunLedger::fileIn(folder);
  EXPECT_EQ(RawDatabase(file).single("PRAGMA integrity_check"), "ok");
  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder, diags);
  ASSERT_TRUE(ledger) << messages(diags);
  auto rows = ledger->list(diags);
  ASSERT_TRUE(rows) << messages(diags);
  ASSERT_GE(rows->size(), atLeast);
  EXPECT_EQ(rows->front().id, static_cast<std::int64_t>(rows->size()));  // no gap
  for (const RunRow& row : *rows) {
    auto run = ledger->load(row.id, diags);
    ASSERT_TRUE(run) << messages(diags);
    const int number = static_cast<int>(run->makespanCycles - 1000);
    EXPECT_EQ(number, row.id);
    EXPECT_TRUE(run->traceKept) << row.id;
    EXPECT_EQ(run->taskTable, sampleRun(number, tasks).taskTable) << row.id;
  }
  EXPECT_EQ(RawDatabase(file).single("SELECT COUNT(*) FROM traces"), std::to_string(rows->size()));
}

// In the writer process: every connection spills its pages to the WAL after
// a few (so a transaction writes frames before it commits) and the process
// kills itself as the task table of run 6 goes in, after that run's row.
void killOnRunSixTasks(void*, int, const char*, const char* table, sqlite3_int64 rowid) {
  if (std::string_view(table) == "traces" && rowid == 6) ::raise(SIGKILL);
}
int armWriter(sqlite3* db, const char**, const sqlite3_api_routines*) {
  sqlite3_exec(db, "PRAGMA cache_size = 4", nullptr, nullptr, nullptr);
  sqlite3_update_hook(db, killOnRunSixTasks, nullptr);
  return SQLITE_OK;
}

TEST(RunLedger, AWriterKilledInTheMiddleOfARecordLeavesOnlyWholeRuns) {
  TempFolder folder;
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    sqlite3_auto_extension(reinterpret_cast<void (*)()>(armWriter));
    DiagnosticEngine diags;
    auto ledger = RunLedger::open(folder.dir(), diags);
    if (!ledger) ::_exit(2);
    for (int number = 1; number <= 100; ++number)
      if (!ledger->record(sampleRun(number, 3000), diags)) ::_exit(3);
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the writer ended by itself: " << status;
  expectWholeRuns(folder.dir(), 5, 3000);
  EXPECT_EQ(RawDatabase(RunLedger::fileIn(folder.dir())).single("SELECT COUNT(*) FROM runs"), "5");
}

TEST(RunLedger, AWriterKilledAtAnyMomentLeavesOnlyWholeRuns) {
  std::mt19937 random(7);
  for (int round = 0; round < 4; ++round) {
    TempFolder folder;
    int pipeEnds[2];
    ASSERT_EQ(::pipe(pipeEnds), 0);
    const pid_t writer = ::fork();
    ASSERT_GE(writer, 0);
    if (writer == 0) {  // records until killed, a byte down the pipe per run
      ::close(pipeEnds[0]);
      DiagnosticEngine diags;
      auto ledger = RunLedger::open(folder.dir(), diags);
      if (!ledger) ::_exit(2);
      for (int number = 1; number < 100000; ++number) {
        if (!ledger->record(sampleRun(number, 3000), diags)) ::_exit(3);
        const char byte = 1;
        if (::write(pipeEnds[1], &byte, 1) != 1) ::_exit(4);
      }
      ::_exit(0);
    }
    ::close(pipeEnds[1]);
    char byte = 0;
    int recorded = 0;
    while (recorded < 3 && ::read(pipeEnds[0], &byte, 1) == 1) ++recorded;
    ::usleep(std::uniform_int_distribution<useconds_t>(0, 20000)(random));  // somewhere in the next runs
    ::kill(writer, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(writer, &status, 0), writer);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself with " << WEXITSTATUS(status);
    ::close(pipeEnds[0]);
    ASSERT_EQ(recorded, 3);
    expectWholeRuns(folder.dir(), 3, 3000);
  }
}

// Both writers start on a folder without a ledger: they also race to create it.
TEST(RunLedger, TwoWritersAtOnceBothLandEveryRun) {
  TempFolder folder;
  constexpr int kRunsEach = 20;
  std::vector<pid_t> writers;
  for (int writer = 0; writer < 2; ++writer) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      DiagnosticEngine diags;
      auto ledger = RunLedger::open(folder.dir(), diags);
      if (!ledger) ::_exit(2);
      for (int number = 1; number <= kRunsEach; ++number)
        if (!ledger->record(sampleRun(number, 300, "writer-" + std::to_string(writer)), diags)) ::_exit(3);
      ::_exit(0);
    }
    writers.push_back(pid);
  }
  for (pid_t pid : writers) EXPECT_EQ(exitStatusOf(pid), 0);

  DiagnosticEngine diags;
  auto ledger = RunLedger::open(folder.dir(), diags);
  ASSERT_TRUE(ledger) << messages(diags);
  auto rows = ledger->list(diags);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u * kRunsEach);
  std::map<std::string, std::set<std::int64_t>> numbers;
  for (const RunRow& row : *rows) numbers[row.project].insert(row.makespanCycles - 1000);
  std::set<std::int64_t> all;
  for (int number = 1; number <= kRunsEach; ++number) all.insert(number);
  EXPECT_EQ(numbers["writer-0"], all);
  EXPECT_EQ(numbers["writer-1"], all);
  EXPECT_EQ(RawDatabase(RunLedger::fileIn(folder.dir())).single("PRAGMA integrity_check"), "ok");
}

TEST(RunRecord, KernelHashIsFnv1a64) {
  // The published FNV-1a 64-bit test vectors.
  EXPECT_EQ(kernelHash(""), "cbf29ce484222325");
  EXPECT_EQ(kernelHash("a"), "af63dc4c8601ec8c");
  EXPECT_EQ(kernelHash("foobar"), "85944171f73967e8");
}

TEST(RunRecord, TaskIdentitiesAreLabelLoopIndicesAndTilePosition) {
  Compilation compilation;
  TensorValue y;
  y.name = "y";
  compilation.tiles.graph.addTensor(y);
  Subgraph exp;
  exp.id = 0;
  exp.label = "exp";
  Subgraph sum;
  sum.id = 1;
  sum.label = "sum";
  compilation.blocks.subgraphs = {exp, sum};
  auto task = [&](SubgraphId subgraph, std::vector<std::pair<std::string, std::int64_t>> loop,
                  std::vector<std::int64_t> offsets) {
    Task made;
    made.id = static_cast<TaskId>(compilation.tasks.tasks.size());
    made.subgraph = subgraph;
    made.loopIndices = std::move(loop);
    if (!offsets.empty()) made.writes.push_back(ConcreteRegion{0, std::move(offsets), {1, 64}});
    compilation.tasks.tasks.push_back(made);
  };
  task(0, {{"b", 0}}, {0, 0});
  task(0, {{"b", 0}}, {0, 64});
  task(0, {{"b", 1}, {"k", 2}}, {1, 0});
  task(1, {{"b", 1}}, {});
  task(1, {{"b", 1}}, {});
  EXPECT_EQ(taskIdentities(compilation),
            (std::vector<std::string>{"exp|b=0|y@0,0", "exp|b=0|y@0,64", "exp|b=1,k=2|y@1,0", "sum|b=1|",
                                      "sum|b=1|#2"}));
}

TEST(RunRecord, LedgerMetricsSumTheSubgraphsPerLabelAndCoreType) {
  HealthReport health;
  health.machine = "a2";
  auto subgraph = [](SubgraphId id, const char* label, const char* core, int tasks, double mean, const char* bound) {
    SubgraphHealth made;
    made.id = id;
    made.label = label;
    made.coreType = core;
    made.tasks = tasks;
    made.meanCycles = mean;
    made.bound.kind = bound;
    return made;
  };
  health.subgraphs = {subgraph(0, "exp", "AIV", 4, 100, "VECTOR"), subgraph(1, "mm", "AIC", 3, 1000, "CUBE"),
                      subgraph(2, "exp", "AIV", 2, 50, "MTE2")};
  health.criticalPath.tasks = {1, 2};
  const Json metrics = ledgerMetrics(health);
  EXPECT_FALSE(metrics.contains("subgraphs"));
  EXPECT_FALSE(metrics["critical_path"].contains("tasks"));
  EXPECT_EQ(metrics["bound"], healthReportJson(health)["bound"]);
  // exp: 4 x 100 VECTOR + 2 x 50 MTE2; mm: 3 x 1 000 CUBE.
  EXPECT_EQ(metrics["subgraph_groups"], Json::parse(R"([
    {"label": "exp", "core_type": "AIV", "subgraphs": 2, "tasks": 6, "task_cycles": 500.0,
     "cycles_by_bound": {"MTE2": 100.0, "VECTOR": 400.0}},
    {"label": "mm", "core_type": "AIC", "subgraphs": 1, "tasks": 3, "task_cycles": 3000.0,
     "cycles_by_bound": {"CUBE": 3000.0}}])"));
}

TEST(RunComparison, SettingsDifferAsJsonPointers) {
  const Json a = {{"machine", "a2"},
                  {"tile_settings", {{"vec", {{"DEFAULT", {1, 4, 1, 64}}, {"a/b", {2}}}}}},
                  {"partition_overrides", Json::array({{{"label", "x"}, {"scope", 1}}})},
                  {"bindings", {{"B", 32}}}};
  const Json b = {{"machine", "a2"},
                  {"tile_settings", {{"vec", {{"DEFAULT", {1, 8, 1, 64}}, {"a/b", {2}}}}}},
                  {"partition_overrides", Json::array({{{"label", "x"}, {"scope", 2}}})},
                  {"bindings", {{"B", 32}}},
                  {"pass_options", {{"x~y", true}}}};
  const auto differences = settingsDifferences(a, b);
  ASSERT_EQ(differences.size(), 3u);
  EXPECT_EQ(differences[0].pointer, "/tile_settings/vec/DEFAULT");
  EXPECT_EQ(*differences[0].a, Json({1, 4, 1, 64}));
  EXPECT_EQ(*differences[0].b, Json({1, 8, 1, 64}));
  EXPECT_EQ(differences[1].pointer, "/partition_overrides/0/scope");
  EXPECT_EQ(*differences[1].a, 1);
  EXPECT_EQ(*differences[1].b, 2);
  EXPECT_EQ(differences[2].pointer, "/pass_options/x~0y");
  EXPECT_FALSE(differences[2].a);
  EXPECT_EQ(*differences[2].b, true);
  EXPECT_TRUE(settingsDifferences(a, a).empty());
}

// Two runs of one kernel: B has a bigger vec tile. Both run exp twice (b=0, 1)
// and mm once; only A runs sub, only B runs add. Clock 1 GHz: 1 000 cycles = 1 us.
std::pair<RunRecord, RunRecord> twoRuns() {
  RunRecord a, b;
  a.id = 4;
  b.id = 9;
  a.kernelHash = b.kernelHash = kernelHash("kernel");
  a.mode = b.mode = "timing";
  a.settings = {{"machine", "a2"}, {"tile_settings", {{"vec", {{"DEFAULT", {1, 4, 1, 64}}}}}}};
  b.settings = {{"machine", "a2"}, {"tile_settings", {{"vec", {{"DEFAULT", {1, 8, 1, 64}}}}}}};
  a.makespanCycles = 450;
  b.makespanCycles = 350;
  a.makespanUs = 0.45;
  b.makespanUs = 0.35;
  a.taskTable = {{"exp|b=0|y@0", "exp", 0, "AIV", 0, 0, 100},
                 {"exp|b=1|y@1", "exp", 0, "AIV", 1, 0, 100},
                 {"mm|b=0|z@0", "mm", 1, "AIC", 0, 100, 400},
                 {"sub|b=0|v@0", "sub", 2, "AIV", 2, 400, 450}};
  b.taskTable = {{"exp|b=0|y@0", "exp", 0, "AIV", 0, 0, 80},
                 {"exp|b=1|y@1", "exp", 1, "AIV", 1, 10, 90},
                 {"mm|b=0|z@0", "mm", 2, "AIC", 0, 90, 300},
                 {"add|b=0|w@0", "add", 3, "AIV", 0, 300, 350}};
  auto group = [](const char* label, const char* core, int subgraphs, int tasks, double cycles, Json byBound) {
    return Json{{"label", label},   {"core_type", core},     {"subgraphs", subgraphs},
                {"tasks", tasks},   {"task_cycles", cycles}, {"cycles_by_bound", std::move(byBound)}};
  };
  a.metrics["subgraph_groups"] = {group("exp", "AIV", 1, 2, 200, {{"VECTOR", 200}}),
                                  group("mm", "AIC", 1, 1, 300, {{"CUBE", 300}}),
                                  group("sub", "AIV", 1, 1, 50, {{"VECTOR", 50}})};
  b.metrics["subgraph_groups"] = {group("add", "AIV", 1, 1, 50, {{"SCALAR", 50}}),
                                  group("exp", "AIV", 2, 2, 160, {{"MTE2", 70}, {"VECTOR", 90}}),
                                  group("mm", "AIC", 1, 1, 210, {{"CUBE", 210}})};
  a.metrics["waves"] = {{{"label", "exp"}, {"core_type", "AIV"}, {"tasks", 2}, {"busy_cycles", 200}}};
  return {a, b};
}

TEST(RunComparison, DeltasOfTwoHandBuiltRuns) {
  const auto [a, b] = twoRuns();
  const RunComparison c = compareRuns(a, b);
  EXPECT_EQ(c.idA, 4);
  EXPECT_EQ(c.idB, 9);
  EXPECT_EQ(c.deltaCycles, -100);
  EXPECT_NEAR(c.deltaUs, -0.1, 1e-12);
  EXPECT_NEAR(c.deltaPercent, -100.0 / 4.5, 1e-9);  // -0.1 us of 0.45 us
  EXPECT_FALSE(c.kernelChanged);
  EXPECT_FALSE(c.modeChanged);
  ASSERT_EQ(c.settings.size(), 1u);
  EXPECT_EQ(c.settings[0].pointer, "/tile_settings/vec/DEFAULT");

  // exp: busy 100 + 100 -> 80 + 80; mm 300 -> 210; sub 50 -> none; add none -> 50.
  // By |busy delta|: mm 90, then add and sub 50 (by name), exp 40.
  ASSERT_EQ(c.labels.size(), 4u);
  const LabelDelta& mm = c.labels[0];
  EXPECT_EQ(mm.label, "mm");
  EXPECT_EQ(std::tie(mm.tasksA, mm.tasksB, mm.busyCyclesA, mm.busyCyclesB), std::make_tuple(1, 1, 300LL, 210LL));
  EXPECT_EQ(std::tie(mm.firstStartA, mm.firstStartB, mm.lastEndA, mm.lastEndB),
            std::make_tuple(100LL, 90LL, 400LL, 300LL));
  const LabelDelta& add = c.labels[1];
  EXPECT_EQ(add.label, "add");
  EXPECT_EQ(std::tie(add.tasksA, add.tasksB, add.busyCyclesA, add.busyCyclesB), std::make_tuple(0, 1, 0LL, 50LL));
  EXPECT_EQ(std::tie(add.firstStartA, add.firstStartB, add.lastEndA, add.lastEndB),
            std::make_tuple(-1LL, 300LL, -1LL, 350LL));
  const LabelDelta& sub = c.labels[2];
  EXPECT_EQ(sub.label, "sub");
  EXPECT_EQ(std::tie(sub.tasksA, sub.tasksB, sub.busyCyclesA, sub.busyCyclesB), std::make_tuple(1, 0, 50LL, 0LL));
  const LabelDelta& exp = c.labels[3];
  EXPECT_EQ(exp.label, "exp");
  EXPECT_EQ(std::tie(exp.tasksA, exp.tasksB, exp.busyCyclesA, exp.busyCyclesB), std::make_tuple(2, 2, 200LL, 160LL));
  EXPECT_EQ(std::tie(exp.firstStartA, exp.firstStartB, exp.lastEndA, exp.lastEndB),
            std::make_tuple(0LL, 0LL, 100LL, 90LL));

  // Subgraph groups: mm AIC 300 -> 210 (90), add AIV 0 -> 50, sub AIV 50 -> 0, exp AIV 200 -> 160 (two
  // subgraphs in B: 90 VECTOR + 70 MTE2, so VECTOR holds most).
  ASSERT_EQ(c.subgraphGroups.size(), 4u);
  EXPECT_EQ(c.subgraphGroups[0].label, "mm");
  EXPECT_EQ(c.subgraphGroups[0].coreType, "AIC");
  EXPECT_EQ(c.subgraphGroups[0].taskCyclesA, 300.0);
  EXPECT_EQ(c.subgraphGroups[0].taskCyclesB, 210.0);
  EXPECT_EQ(c.subgraphGroups[1].label, "add");
  EXPECT_EQ(c.subgraphGroups[1].boundA, "");
  EXPECT_EQ(c.subgraphGroups[1].boundB, "SCALAR");
  EXPECT_EQ(c.subgraphGroups[2].label, "sub");
  const SubgraphGroupDelta& expGroup = c.subgraphGroups[3];
  EXPECT_EQ(expGroup.label, "exp");
  EXPECT_EQ(std::tie(expGroup.subgraphsA, expGroup.subgraphsB, expGroup.tasksA, expGroup.tasksB),
            std::make_tuple(1, 2, 2, 2));
  EXPECT_EQ(expGroup.taskCyclesA, 200.0);
  EXPECT_EQ(expGroup.taskCyclesB, 160.0);
  EXPECT_EQ(expGroup.boundA, "VECTOR");
  EXPECT_EQ(expGroup.boundB, "VECTOR");

  // Tasks: exp b=0, exp b=1 and mm match; sub only in A, add only in B.
  const TaskMatching& tasks = c.tasks;
  EXPECT_TRUE(tasks.compared);
  EXPECT_EQ(tasks.matched, 3);
  EXPECT_EQ(tasks.onlyInA, 1);
  EXPECT_EQ(tasks.onlyInB, 1);
  EXPECT_EQ(tasks.onlyInAKeys, std::vector<std::string>{"sub|b=0|v@0"});
  EXPECT_EQ(tasks.onlyInBKeys, std::vector<std::string>{"add|b=0|w@0"});
  // Starts: exp b=0 0 -> 0 (not listed), exp b=1 0 -> 10, mm 100 -> 90 (a tie of 10: by key).
  ASSERT_EQ(tasks.largestStartShifts.size(), 2u);
  EXPECT_EQ(tasks.largestStartShifts[0].key, "exp|b=1|y@1");
  EXPECT_EQ(tasks.largestStartShifts[0].startB - tasks.largestStartShifts[0].startA, 10);
  EXPECT_EQ(tasks.largestStartShifts[1].key, "mm|b=0|z@0");
  EXPECT_EQ(tasks.largestStartShifts[1].startB - tasks.largestStartShifts[1].startA, -10);
  // Ends: mm 400 -> 300, exp b=0 100 -> 80, exp b=1 100 -> 90.
  ASSERT_EQ(tasks.largestEndShifts.size(), 3u);
  EXPECT_EQ(tasks.largestEndShifts[0].key, "mm|b=0|z@0");
  EXPECT_EQ(tasks.largestEndShifts[0].endB - tasks.largestEndShifts[0].endA, -100);
  EXPECT_EQ(tasks.largestEndShifts[1].key, "exp|b=0|y@0");
  EXPECT_EQ(tasks.largestEndShifts[2].key, "exp|b=1|y@1");

  const Json json = runComparisonJson(c);
  EXPECT_EQ(json["makespan"]["delta_cycles"], -100);
  EXPECT_EQ(json["settings"][0], Json({{"pointer", "/tile_settings/vec/DEFAULT"}, {"a", {1, 4, 1, 64}}, {"b", {1, 8, 1, 64}}}));
  EXPECT_EQ(json["tasks"]["matched"], 3);
  EXPECT_EQ(json["labels"][0]["delta_busy_cycles"], -90);
}

TEST(RunComparison, APrunedTaskTableFallsBackToTheMetrics) {
  auto [a, b] = twoRuns();
  a.traceKept = false;
  a.taskTable.clear();
  const RunComparison c = compareRuns(a, b);
  EXPECT_FALSE(c.tasks.compared);
  EXPECT_EQ(c.tasks.matched, 0);
  // A's labels come from its waves: exp only, without start or end.
  const auto exp = std::find_if(c.labels.begin(), c.labels.end(), [](const LabelDelta& l) { return l.label == "exp"; });
  ASSERT_NE(exp, c.labels.end());
  EXPECT_EQ(exp->tasksA, 2);
  EXPECT_EQ(exp->busyCyclesA, 200);
  EXPECT_EQ(exp->firstStartA, -1);
  EXPECT_EQ(exp->busyCyclesB, 160);
}

} // namespace
} // namespace pto
