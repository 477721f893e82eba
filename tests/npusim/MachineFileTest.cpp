// Machine files: the bundled ones load cleanly, malformed ones give located
// messages, names resolve on the search path.
#include "npusim/MachineFile.h"
#include "tests/support/TestFiles.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <utility>

namespace pto {
namespace {

namespace fs = std::filesystem;

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A complete, valid machine file laid out so that expected line:column
// positions below can be counted by eye.
constexpr const char* kValid = R"({
  "schema_version": 1,
  "description": "test chip",
  "cores": {"aic": 2, "aiv": 4},
  "clock_ghz": 1.85,
  "scheduler": {"aicpu_count": 5, "dispatch_cycles": 200, "resolve_cycles": 390, "completion_cycles": 240,
                "device_task_submit_cycles": 100, "stitch_cycles": 10000},
  "buffers": {"l1_bytes": 524288, "l0a_bytes": 65536, "l0b_bytes": 65536, "l0c_bytes": 131072,
              "ub_bytes": 196608, "bt_bytes": 1024, "fb_bytes": 7168, "granularity_bytes": 32},
  "paths": {
    "gm_to_l1": {"peak_gib_per_s": 135, "saturation_bytes": 15671},
    "gm_to_ub": {"peak_gib_per_s": 100.9, "saturation_bytes": 11712},
    "l1_to_l0a": {"peak_gib_per_s": 441, "saturation_bytes": 4095},
    "l1_to_l0b": {"peak_gib_per_s": 220.5, "saturation_bytes": 2048},
    "l0c_to_gm": {"peak_gib_per_s": 70, "saturation_bytes": 8126},
    "ub_to_gm": {"peak_gib_per_s": 188.46, "saturation_bytes": 21877}
  },
  "cube": {"instruction_overhead_cycles": 6, "dtypes": {"float16": {"macs_per_cycle": 4096, "m0": 16, "k0": 16, "n0": 16}}},
  "vector": {"bytes_per_cycle": 256, "startup_cycles": 32,
             "cost_factors": {"add": 1, "mul": 1, "div": 4, "exp": 2, "log": 2, "sqrt": 2, "composite": 8,
                              "reduce": 3.5, "cast": 0.5, "copy": 0.5}},
  "global_memory": {"hbm_bytes": 68719476736, "bandwidth_tb_per_s": 1.6, "efficiency": 0.8},
  "l2_cache": {"bytes": 201326592, "line_bytes": 512, "hit_latency_cycles": 50, "miss_penalty_cycles": 150}
}
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// kValid with each (from, to) replacement made in turn.
std::string edited(std::initializer_list<std::pair<std::string, std::string>> replacements) {
  std::string text = kValid;
  for (const auto& [from, to] : replacements) text = replaced(text, from, to);
  return text;
}

// A scratch folder for machine files, removed afterwards.
class MachineFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("pto-machine-test-" + std::to_string(std::random_device{}()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  std::optional<MachineDescription> load(const std::string& text) {
    writeText(m_dir / "test.json", text);
    m_diags.clear();
    return loadMachine(m_dir / "test.json", m_diags);
  }
  // "line:col: severity: message" for each diagnostic, joined by newlines.
  std::string messages() const { return testing::locatedMessages(m_diags); }

  fs::path m_dir;
  DiagnosticEngine m_diags;
};

// Sets an environment variable for the lifetime of the object.
class ScopedEnvironment {
public:
  ScopedEnvironment(const char* name, const std::string& value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() {
    if (m_old) setenv(m_name, m_old->c_str(), 1);
    else unsetenv(m_name);
  }

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

TEST_F(MachineFileTest, TheValidTestFileLoads) {
  auto machine = load(kValid);
  ASSERT_TRUE(machine) << messages();
  EXPECT_EQ(messages(), "");
  EXPECT_EQ(machine->name, "test");
  EXPECT_EQ(machine->aicCores, 2);
  EXPECT_EQ(machine->aivCores, 4);
  EXPECT_DOUBLE_EQ(machine->clockGHz, 1.85);
  EXPECT_EQ(machine->capacityBytes(MemoryKind::UB), 196608);
  EXPECT_EQ(machine->capacityBytes(MemoryKind::GM), 68719476736);
  EXPECT_TRUE(machine->hasPath(MemoryKind::GM, MemoryKind::L1));
  EXPECT_FALSE(machine->hasPath(MemoryKind::L0C, MemoryKind::UB));
  EXPECT_TRUE(machine->cube[static_cast<std::size_t>(DataType::Fp16)]);
  EXPECT_FALSE(machine->cube[static_cast<std::size_t>(DataType::Int8)]);
  EXPECT_DOUBLE_EQ(machine->vector.costFactors[static_cast<std::size_t>(VectorOpClass::Reduce)], 3.5);
}

TEST_F(MachineFileTest, EveryBundledMachineLoadsWithoutDiagnostics) {
  for (const char* machineName : {"a2", "a3", "950", "tiny"}) {
    DiagnosticEngine diags;
    auto machine = loadMachine(fs::path(PTO_SOURCE_DIR) / "resources" / "machines" / (std::string(machineName) + ".json"),
                               diags);
    ASSERT_TRUE(machine) << machineName;
    EXPECT_TRUE(diags.diagnostics().empty()) << machineName << ": " << diags.format(diags.diagnostics().front());
    EXPECT_EQ(machine->name, machineName);
    EXPECT_EQ(machine->schemaVersion, kMachineSchemaVersion);
    EXPECT_FALSE(machine->notes.empty()) << machineName << " should say where its numbers come from";
  }
}

// The numbers the machine-model page gives for each chip, checked on the
// bundled files.
TEST_F(MachineFileTest, BundledMachinesHaveTheDocumentedShape) {
  DiagnosticEngine diags;
  auto a2 = findMachine("a2", diags, {});
  auto a3 = findMachine("a3", diags, {});
  auto n950 = findMachine("950", diags, {});
  auto tiny = findMachine("tiny", diags, {});
  ASSERT_TRUE(a2 && a3 && n950 && tiny);
  EXPECT_EQ(a2->aicCores, 24);
  EXPECT_EQ(a2->aivCores, 48);
  EXPECT_DOUBLE_EQ(a2->clockGHz, 1.85);
  EXPECT_DOUBLE_EQ(a3->clockGHz, 1.80);
  EXPECT_EQ(a3->aicCores, 24);
  EXPECT_EQ(n950->aicCores, 32);
  EXPECT_EQ(n950->aivCores, 64);
  EXPECT_DOUBLE_EQ(n950->clockGHz, 1.65);
  EXPECT_EQ(n950->capacityBytes(MemoryKind::L0C), 256 * 1024);
  EXPECT_EQ(n950->capacityBytes(MemoryKind::UB), 248 * 1024);
  EXPECT_EQ(tiny->aicCores, 2);
  EXPECT_EQ(tiny->aivCores, 4);
  for (const auto* machine : {&*a2, &*a3, &*tiny}) {
    EXPECT_FALSE(machine->hasPath(MemoryKind::L0C, MemoryKind::UB)) << machine->name;
    EXPECT_FALSE(machine->hasPath(MemoryKind::UB, MemoryKind::L1)) << machine->name;
    EXPECT_FALSE(machine->hasPath(MemoryKind::L1, MemoryKind::UB)) << machine->name;
    EXPECT_EQ(machine->capacityBytes(MemoryKind::L1), 512 * 1024) << machine->name;
    EXPECT_EQ(machine->capacityBytes(MemoryKind::L0A), 64 * 1024) << machine->name;
    EXPECT_EQ(machine->capacityBytes(MemoryKind::L0C), 128 * 1024) << machine->name;
    EXPECT_EQ(machine->capacityBytes(MemoryKind::UB), 192 * 1024) << machine->name;
  }
  EXPECT_TRUE(n950->hasPath(MemoryKind::L0C, MemoryKind::UB));
  for (const auto* machine : {&*a2, &*a3, &*n950, &*tiny})
    for (DataPath path : {DataPath::GmToL1, DataPath::GmToUb, DataPath::L1ToL0A, DataPath::L1ToL0B,
                          DataPath::L0CToGm, DataPath::UbToGm})
      EXPECT_TRUE(machine->hasPath(path)) << machine->name << " " << name(path);
  EXPECT_EQ(diags.errorCount(), 0u);
}

TEST_F(MachineFileTest, SyntaxErrorPointsAtTheToken) {
  EXPECT_FALSE(load(replaced(kValid, "\"clock_ghz\": 1.85", "\"clock_ghz\": ,")));
  EXPECT_EQ(messages(),
            "5:16: error: invalid JSON: syntax error while parsing value - unexpected ','; expected '[', '{', or a "
            "literal\n");
}

TEST_F(MachineFileTest, EmptyFileSaysWhatAMachineFileHolds) {
  EXPECT_FALSE(load("  \n"));
  EXPECT_EQ(messages(),
            "1:1: error: the machine file is empty; a machine is a JSON object with \"schema_version\", \"cores\", "
            "\"clock_ghz\", \"buffers\", \"paths\" and the other keys of resources/machines/a2.json\n");
}

TEST_F(MachineFileTest, MissingKeysAreReportedAtTheObjectThatLacksThem) {
  EXPECT_FALSE(load(edited({{"  \"clock_ghz\": 1.85,\n", ""}, {", \"aiv\": 4", ""}})));
  EXPECT_EQ(messages(),
            "4:12: error: missing required key 'aiv' in cores\n"
            "1:1: error: missing required key 'clock_ghz'\n");
}

TEST_F(MachineFileTest, WrongTypeNamesKeyPathAndLineColumn) {
  EXPECT_FALSE(load(replaced(kValid, "\"aic\": 2", "\"aic\": \"two\"")));
  EXPECT_EQ(messages(), "4:20: error: cores.aic: expected an integer, got \"two\"\n");
}

TEST_F(MachineFileTest, NegativeCapacity) {
  EXPECT_FALSE(load(replaced(kValid, "\"ub_bytes\": 196608", "\"ub_bytes\": -196608")));
  EXPECT_EQ(messages(), "9:27: error: buffers.ub_bytes: must be positive, got -196608\n");
}

// core_task_slots is optional: 1 (dispatch to idle cores only) when absent; PyPTO's cores hold at most a
// running and a pending task, so 3 is refused at the value.
TEST_F(MachineFileTest, CoreTaskSlotsDefaultToOneAndAreAtMostTwo) {
  auto plain = load(kValid);
  ASSERT_TRUE(plain) << messages();
  EXPECT_EQ(plain->scheduler.coreTaskSlots, 1);
  auto two = load(replaced(kValid, "\"stitch_cycles\": 10000}", "\"stitch_cycles\": 10000, \"core_task_slots\": 2}"));
  ASSERT_TRUE(two) << messages();
  EXPECT_EQ(two->scheduler.coreTaskSlots, 2);
  EXPECT_FALSE(load(replaced(kValid, "\"stitch_cycles\": 10000}", "\"stitch_cycles\": 10000, \"core_task_slots\": 3}")));
  EXPECT_NE(messages().find("scheduler.core_task_slots"), std::string::npos) << messages();
}

// threads_own_cores is optional (false: any scheduler thread serves any core) and must be a boolean.
TEST_F(MachineFileTest, ThreadsOwnCoresIsAnOptionalBoolean) {
  auto plain = load(kValid);
  ASSERT_TRUE(plain) << messages();
  EXPECT_FALSE(plain->scheduler.threadsOwnCores);
  auto owning = load(replaced(kValid, "\"stitch_cycles\": 10000}", "\"stitch_cycles\": 10000, \"threads_own_cores\": true}"));
  ASSERT_TRUE(owning) << messages();
  EXPECT_TRUE(owning->scheduler.threadsOwnCores);
  EXPECT_FALSE(load(replaced(kValid, "\"stitch_cycles\": 10000}", "\"stitch_cycles\": 10000, \"threads_own_cores\": 1}")));
  EXPECT_NE(messages().find("scheduler.threads_own_cores"), std::string::npos) << messages();
}

TEST_F(MachineFileTest, PathWithoutARate) {
  EXPECT_FALSE(load(replaced(kValid, "\"peak_gib_per_s\": 220.5", "\"peak_gib_per_s\": 0")));
  EXPECT_EQ(messages(), "14:37: error: paths.l1_to_l0b.peak_gib_per_s: must be positive, got 0\n");
}

TEST_F(MachineFileTest, L1MustHoldWhatL0Holds) {
  EXPECT_FALSE(load(replaced(kValid, "\"l1_bytes\": 524288", "\"l1_bytes\": 32768")));
  EXPECT_EQ(messages(),
            "8:27: error: buffers.l1_bytes: must be at least buffers.l0a_bytes (65536), got 32768\n"
            "8:27: error: buffers.l1_bytes: must be at least buffers.l0b_bytes (65536), got 32768\n"
            "8:27: error: buffers.l1_bytes: must be at least buffers.l0c_bytes (131072), got 32768\n");
}

TEST_F(MachineFileTest, UnknownKeysWarnWithASuggestion) {
  auto machine = load(edited(
      {{"  \"clock_ghz\": 1.85,\n", "  \"clock_ghz\": 1.85,\n  \"clok_ghz\": 2,\n"},
       {"    \"ub_to_gm\"", "    \"gm_to_l2\": {\"peak_gib_per_s\": 1, \"saturation_bytes\": 0},\n    \"ub_to_gm\""}}));
  ASSERT_TRUE(machine) << messages();
  EXPECT_EQ(messages(),
            "6:3: warning: unknown key 'clok_ghz' is ignored (did you mean 'clock_ghz'?)\n"
            "17:5: warning: paths.gm_to_l2: unknown key 'gm_to_l2' is ignored (did you mean 'gm_to_l1'?)\n");
}

TEST_F(MachineFileTest, EveryProblemIsReportedInOneRun) {
  EXPECT_FALSE(load(edited({{"\"schema_version\": 1", "\"schema_version\": 2"},
                             {"\"aiv\": 4", "\"aiv\": 0"},
                             {"\"resolve_cycles\": 390", "\"resolve_cycles\": -1"},
                             // 196608 (UB) is 48 * 4096, so UB alone is not reported.
                             {"\"granularity_bytes\": 32", "\"granularity_bytes\": 48"},
                             {"\"efficiency\": 0.8", "\"efficiency\": 1.5"},
                             {"\"m0\": 16", "\"m0\": 16.5"}})));
  EXPECT_EQ(messages(),
            "2:21: error: schema_version: unsupported schema version 2; this build reads version 1\n"
            "4:30: error: cores.aiv: must be positive, got 0\n"
            "6:77: error: scheduler.resolve_cycles: must not be negative, got -1\n"
            "8:27: error: buffers.l1_bytes: must be a multiple of buffers.granularity_bytes (48), got 524288\n"
            "8:48: error: buffers.l0a_bytes: must be a multiple of buffers.granularity_bytes (48), got 65536\n"
            "8:68: error: buffers.l0b_bytes: must be a multiple of buffers.granularity_bytes (48), got 65536\n"
            "8:88: error: buffers.l0c_bytes: must be a multiple of buffers.granularity_bytes (48), got 131072\n"
            "9:47: error: buffers.bt_bytes: must be a multiple of buffers.granularity_bytes (48), got 1024\n"
            "9:65: error: buffers.fb_bytes: must be a multiple of buffers.granularity_bytes (48), got 7168\n"
            "18:99: error: cube.dtypes.float16.m0: expected an integer, got 16.5\n"
            "22:88: error: global_memory.efficiency: must be greater than 0 and at most 1, got 1.5\n");
}

TEST_F(MachineFileTest, NotAnObject) {
  EXPECT_FALSE(load("[1, 2]\n"));
  EXPECT_EQ(messages(), "1:1: error: a machine file must hold a JSON object, got an array\n");
}

TEST_F(MachineFileTest, UnknownNameListsTheAvailableMachines) {
  writeText(m_dir / "mine.json", kValid);
  ScopedEnvironment environment("PTO_MACHINES_PATH", m_dir.string());
  SourceLocation requestedAt{"pto-project.json", 5, 14};
  EXPECT_FALSE(findMachine("a9", m_diags, requestedAt));
  ASSERT_EQ(m_diags.diagnostics().size(), 1u);
  const Diagnostic& diagnostic = m_diags.diagnostics().front();
  EXPECT_EQ(diagnostic.location, requestedAt);
  EXPECT_EQ(diagnostic.message,
            "unknown machine 'a9' (did you mean 'a2'?); available machines: 950, a2, a3, mine, tiny");
  // One note per folder searched, the user's folder first.
  ASSERT_FALSE(diagnostic.notes.empty());
  EXPECT_EQ(fs::weakly_canonical(diagnostic.notes.front().location.file), fs::weakly_canonical(m_dir));
  EXPECT_EQ(diagnostic.notes.front().message, "searched this folder for a9.json");
}

TEST_F(MachineFileTest, TheUsersFolderComesFirst) {
  writeText(m_dir / "a2.json", replaced(kValid, "\"aic\": 2", "\"aic\": 7"));
  ScopedEnvironment environment("PTO_MACHINES_PATH", "/nonexistent-pto-folder:" + m_dir.string());
  auto machine = findMachine("a2", m_diags, {});
  ASSERT_TRUE(machine) << messages();
  EXPECT_EQ(machine->aicCores, 7);
  EXPECT_EQ(fs::weakly_canonical(machine->file), fs::weakly_canonical(m_dir / "a2.json"));
  EXPECT_EQ(machineSearchPath().size() >= 2, true);
}

TEST_F(MachineFileTest, ANameEndingInJsonIsAPath) {
  writeText(m_dir / "custom.json", kValid);
  auto machine = findMachine((m_dir / "custom.json").string(), m_diags, {});
  ASSERT_TRUE(machine) << messages();
  EXPECT_EQ(machine->name, "custom");
  EXPECT_FALSE(findMachine((m_dir / "absent.json").string(), m_diags, SourceLocation{"p.json", 2, 3}));
  EXPECT_EQ(messages(), "2:3: error: machine file '" + (m_dir / "absent.json").string() + "' not found\n");
}

TEST_F(MachineFileTest, ARelativeMachineFileIsFoundBesideTheProjectNotTheWorkingFolder) {
  // A project says "machine": "chip/custom.json"; pto runs from elsewhere.
  fs::create_directories(m_dir / "chip");
  writeText(m_dir / "chip" / "custom.json", kValid);
  ASSERT_NE(fs::current_path(), m_dir);
  auto machine = findMachine("chip/custom.json", m_diags, {}, m_dir);
  ASSERT_TRUE(machine) << messages();
  EXPECT_EQ(machine->name, "custom");
  EXPECT_FALSE(findMachine("chip/absent.json", m_diags, SourceLocation{"p.json", 2, 3}, m_dir));
  EXPECT_EQ(messages(), "2:3: error: machine file 'chip/absent.json' not found (looked for " +
                            (m_dir / "chip" / "absent.json").string() + ")\n");
}

TEST_F(MachineFileTest, AvailableMachinesIncludesTheBundledOnes) {
  std::vector<std::string> names = availableMachines();
  for (const char* bundled : {"950", "a2", "a3", "tiny"})
    EXPECT_NE(std::find(names.begin(), names.end(), bundled), names.end()) << bundled;
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

} // namespace
} // namespace pto
