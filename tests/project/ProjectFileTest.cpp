// pto-project.json: loading, located errors, and load/save round trips.
#include "core/project/ProjectFile.h"
#include "tests/support/TestFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

namespace pto {
namespace {

namespace fs = std::filesystem;

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A scratch project folder with a kernel file, removed afterwards.
class ProjectFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("pto-project-test-" + std::to_string(std::random_device{}()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
    writeText(m_dir / "kernel.py", "import pypto\n\n@pypto.frontend.jit\ndef k(x, y):\n    y[:] = x\n");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Loads `text` as the project file; returns the diagnostics printed without source lines.
  std::optional<OperatorProject> load(const std::string& text) {
    writeText(m_dir / "pto-project.json", text);
    m_diags.clear();
    return loadProject(m_dir, m_diags);
  }
  // "line:col: severity: message" for each diagnostic, joined by newlines.
  std::string messages() const { return testing::locatedMessages(m_diags); }

  fs::path m_dir;
  DiagnosticEngine m_diags;
};

constexpr const char* kMinimal = R"({
  "name": "copy",
  "source": "kernel.py",
  "entry": "k",
  "args": [
    {"name": "x", "shape": [4, 64], "dtype": "float32", "init": {"kind": "uniform", "low": -1, "high": 1, "seed": 7}},
    {"name": "y", "shape": [4, 64], "dtype": "float32"}
  ]
}
)";

// kMinimal with `keys` (whole lines) inserted before "args": they become its lines 5, 6, ...
std::string minimalWithKeysBeforeArgs(const std::string& keys) {
  std::string text = kMinimal;
  return text.insert(text.find("  \"args\""), keys);
}

// kMinimal with `key` added after "args", as its last key (line 9).
std::string minimalWithLastKey(const std::string& key) {
  std::string text = kMinimal;
  return text.insert(text.rfind("\n}"), ",\n  " + key);
}

TEST_F(ProjectFileTest, LoadsTheBundledExample) {
  DiagnosticEngine diags;
  auto project = loadProject(fs::path(PTO_SOURCE_DIR) / "resources/examples/softmax", diags);
  ASSERT_TRUE(project) << messages();
  EXPECT_EQ(diags.diagnostics().size(), 0u);
  EXPECT_EQ(project->name, "softmax");
  EXPECT_EQ(project->entry, "softmax");
  ASSERT_EQ(project->args.size(), 2u);
  EXPECT_EQ(project->concreteShape(project->args[0]), (std::vector<std::int64_t>{32, 32, 1, 256}));
  EXPECT_EQ(project->args[0].shape[0].symbol, "B");
  EXPECT_TRUE(std::holds_alternative<UniformInit>(project->args[0].init));
  EXPECT_EQ(project->machine, "a2");
  EXPECT_TRUE(fs::exists(project->sourcePath()));
}

TEST_F(ProjectFileTest, AcceptsTheFileOrItsFolder) {
  ASSERT_TRUE(load(kMinimal)) << messages();
  DiagnosticEngine diags;
  EXPECT_TRUE(loadProject(m_dir / "pto-project.json", diags));
}

TEST_F(ProjectFileTest, MinimalProjectGetsDefaults) {
  auto project = load(kMinimal);
  ASSERT_TRUE(project) << messages();
  EXPECT_EQ(project->machine, "a2");
  EXPECT_TRUE(std::holds_alternative<ZerosInit>(project->args[1].init));
  const auto& uniform = std::get<UniformInit>(project->args[0].init);
  EXPECT_EQ(uniform.low, -1.0);
  EXPECT_EQ(uniform.high, 1.0);
  EXPECT_EQ(uniform.seed, 7u);
  // fp32 outputs default to rtol 1e-4, atol 1e-5 unless the project says otherwise.
  EXPECT_EQ(project->toleranceFor(project->args[1]), (Tolerance{1e-4, 1e-5}));
}

TEST_F(ProjectFileTest, WrongTypeNamesKeyPathAndLineColumn) {
  std::string text = kMinimal;
  text.replace(text.find("[4, 64], \"dtype\": \"float32\"}"), 7, "[4, \"a\"]");
  EXPECT_FALSE(load(text));
  EXPECT_EQ(messages(),
            "7:32: error: args[1].shape[1]: dimension 'a' has no value; add it to \"bindings\", e.g. \"bindings\": {\"a\": 32}\n");
}

TEST_F(ProjectFileTest, NonIntegerDimension) {
  std::string text = kMinimal;
  text.replace(text.find("[4, 64], \"dtype\": \"float32\"}"), 7, "[4, 6.5]");
  EXPECT_FALSE(load(text));
  EXPECT_EQ(messages(), "7:32: error: args[1].shape[1]: expected an integer, got 6.5\n");
}

TEST_F(ProjectFileTest, MissingKeysAreReportedAtTheObjectThatLacksThem) {
  EXPECT_FALSE(load("{\n  \"name\": \"p\",\n  \"args\": [{\"name\": \"x\", \"dtype\": \"int8\"}]\n}\n"));
  EXPECT_EQ(messages(),
            "1:1: error: missing required key 'source'\n"
            "1:1: error: missing required key 'entry'\n"
            "3:12: error: missing required key 'shape' in args[0]\n");
}

TEST_F(ProjectFileTest, EveryProblemIsReportedInOneRun) {
  EXPECT_FALSE(load(R"({
  "name": 3,
  "source": "missing.py",
  "entry": "not a name",
  "args": [
    {"name": "x", "shape": [0, -2], "dtype": "float8", "init": {"kind": "normal", "mean": 0, "std": -1}},
    {"name": "x", "shape": 5, "dtype": "int32", "init": {"kind": "gaussian"}}
  ],
  "machine": false,
  "golden": {"x": "out.bin"},
  "tolerance": {"x": {"rtol": -1}}
}
)"));
  EXPECT_EQ(messages(),
            "2:11: error: name: expected a string, got 3\n"
            "3:13: error: source: kernel file 'missing.py' not found (looked in " + m_dir.string() + ")\n"
            "4:12: error: entry: 'not a name' is not a Python function name\n"
            "6:29: error: args[0].shape[0]: a dimension must be positive, got 0\n"
            "6:32: error: args[0].shape[1]: a dimension must be positive, got -2\n"
            "6:46: error: args[0].dtype: unknown dtype \"float8\"; expected one of float32, float16, bfloat16, int8, "
            "int16, int32, int64, uint8, uint16, uint32, uint64, bool\n"
            "6:101: error: args[0].init.std: std must be positive, got -1\n"
            "7:14: error: args[1].name: argument name 'x' is used twice\n"
            "7:28: error: args[1].shape: expected an array, got 5\n"
            "7:66: error: args[1].init.kind: unknown init kind \"gaussian\"; expected one of uniform, normal, zeros, "
            "arange, npy, values\n"
            "9:14: error: machine: expected a string, got false\n"
            "10:19: error: golden.x: expected \"reference\" or the path of a .npy file, got \"out.bin\"\n"
            "11:31: error: tolerance.x.rtol: must be a non-negative number, got -1\n");
}

TEST_F(ProjectFileTest, AnOutputsRuleIsReadCheckedAndSavedBack) {
  auto project = load(minimalWithLastKey("\"tolerance\": {\"y\": {\"rule\": \"topk\"}}"));
  ASSERT_TRUE(project) << messages();
  EXPECT_EQ(project->compareRules.at("y"), "topk");
  // A rule alone keeps the dtype's tolerance.
  EXPECT_EQ(project->toleranceFor(project->args[1]), (Tolerance{1e-4, 1e-5}));
  EXPECT_NE(serializeProject(*project).find(R"("y": {"rule": "topk"})"), std::string::npos) << serializeProject(*project);

  EXPECT_FALSE(load(minimalWithLastKey("\"tolerance\": {\"y\": {\"rule\": \"sets\"}}")));
  EXPECT_EQ(messages(), "9:31: error: tolerance.y.rule: unknown rule 'sets'; one of \"allclose\", \"exact\", "
                        "\"quantized\" (integers within one step), \"topk\" (each row's indices as a set)\n");
}

TEST_F(ProjectFileTest, UnknownKeysWarnWithASuggestion) {
  auto project = load(minimalWithKeysBeforeArgs("  \"pass_option\": {},\n  \"colour\": \"red\",\n"));
  ASSERT_TRUE(project) << messages();
  EXPECT_EQ(messages(),
            "5:3: warning: unknown key 'pass_option' is ignored (did you mean 'pass_options'?)\n"
            "6:3: warning: unknown key 'colour' is ignored\n");
}

TEST_F(ProjectFileTest, DuplicateKeysWarn) {
  auto project = load(minimalWithKeysBeforeArgs("  \"name\": \"again\",\n"));
  ASSERT_TRUE(project) << messages();
  EXPECT_EQ(project->name, "again");
  EXPECT_EQ(messages(), "5:3: warning: key 'name' appears more than once in its object; the last one wins\n");
}

TEST_F(ProjectFileTest, JsonSyntaxErrorsPointAtTheToken) {
  EXPECT_FALSE(load("{\n  \"name\": \"x\",\n  \"source\": tru\n}\n"));
  EXPECT_EQ(messages(), "3:13: error: invalid JSON: syntax error while parsing value - invalid literal\n");
  EXPECT_FALSE(load("{\n  \"name\": \"x\",\n}\n"));
  EXPECT_EQ(messages(),
            "3:1: error: invalid JSON: syntax error while parsing object key - unexpected '}'; expected string literal\n");
  EXPECT_FALSE(load("{\n  \"name\": \"x\"\n"));
  EXPECT_EQ(messages(),
            "2:14: error: invalid JSON: syntax error while parsing object - unexpected end of input; expected '}'\n");
  EXPECT_FALSE(load("\n"));
  EXPECT_EQ(messages(), "1:1: error: the project file is empty; a project is a JSON object with at least \"name\", "
                        "\"source\", \"entry\" and \"args\"\n");
  EXPECT_FALSE(load("[1, 2]"));
  EXPECT_EQ(messages(), "1:1: error: the project file must hold a JSON object, got an array\n");
}

TEST_F(ProjectFileTest, CompilerStylePrintingQuotesTheLine) {
  std::string text = kMinimal;
  text.replace(text.find("\"float32\"}\n"), 9, "\"f32x\"");
  EXPECT_FALSE(load(text));
  std::string printed = m_diags.format(m_diags.diagnostics().at(0));
  std::string file = (m_dir / "pto-project.json").string();
  EXPECT_EQ(printed, file +
                         ":7:46: error: args[1].dtype: unknown dtype \"f32x\"; expected one of float32, float16, "
                         "bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bool\n"
                         "      {\"name\": \"y\", \"shape\": [4, 64], \"dtype\": \"f32x\"}\n"
                         "                                               ^\n");
}

TEST_F(ProjectFileTest, NpyInitAndGoldenFilesMustExist) {
  std::string text = kMinimal;
  text.replace(text.find("\"float32\"}\n"), 10, "\"float32\", \"init\": {\"kind\": \"npy\", \"path\": \"y0.npy\"}}\n");
  text.insert(text.rfind('}'), ",  \"golden\": {\"y\": \"golden/y.npy\", \"z\": \"reference\"}\n");
  EXPECT_FALSE(load(text));
  EXPECT_EQ(messages(),
            "7:89: error: args[1].init.path: file 'y0.npy' not found next to the project\n"
            "10:20: error: golden.y: file 'golden/y.npy' not found next to the project\n"
            "10:36: warning: golden.z: no argument named 'z' (did you mean 'x'?)\n");
}

// Values written in the file, flat or nested, keep their order and round-trip
// through saving; a non-number is reported at its place.
TEST_F(ProjectFileTest, ValuesInitReadsNestedListsAndSavesThem) {
  std::string text = kMinimal;
  text.replace(text.find("\"float32\"}\n"), 10,
               "\"int32\", \"init\": {\"kind\": \"values\", \"values\": [[1, 2], [3, 4.5]]}}\n");
  auto project = load(text);
  ASSERT_TRUE(project) << messages();
  EXPECT_EQ(std::get<ValuesInit>(project->args[1].init).values, (std::vector<double>{1, 2, 3, 4.5}));
  EXPECT_NE(serializeProject(*project).find("\"values\": [1, 2, 3, 4.5]"), std::string::npos)
      << serializeProject(*project);

  text = kMinimal;
  text.replace(text.find("\"float32\"}\n"), 10, "\"int32\", \"init\": {\"kind\": \"values\", \"values\": [1, \"x\"]}}\n");
  EXPECT_FALSE(load(text));
  EXPECT_NE(messages().find("args[1].init.values[1]: expected a number"), std::string::npos) << messages();
}

TEST_F(ProjectFileTest, TileSettingsAreCheckedForForm) {
  std::string text = kMinimal;
  text.insert(text.rfind('}'), R"(,  "tile_settings": {
    "vec": {"DEFAULT": [1, 4, 64], "softmax": [0, 64], "kernel.py:12": "big"},
    "cube": {"DEFAULT": {"m": [64, 128], "k": [64], "n": [64, 128], "enable_split_k": 1}}
  }
)");
  EXPECT_FALSE(load(text));
  EXPECT_EQ(messages(),
            "10:48: error: tile_settings.vec.softmax[0]: a tile dimension must be positive, got 0\n"
            "10:72: error: tile_settings.vec.kernel.py:12: expected an array, got \"big\"\n"
            "11:47: error: tile_settings.cube.DEFAULT.k: expected 2 to 3 dimensions, got 1\n"
            "11:87: error: tile_settings.cube.DEFAULT.enable_split_k: expected true or false, got 1\n");
}

TEST_F(ProjectFileTest, SavingAnUnchangedProjectReproducesTheFile) {
  // The bundled example is written in the saver's style, so a round trip is byte-exact.
  fs::path example = fs::path(PTO_SOURCE_DIR) / "resources/examples/softmax/pto-project.json";
  DiagnosticEngine diags;
  auto project = loadProject(example, diags);
  ASSERT_TRUE(project);
  EXPECT_EQ(serializeProject(*project), readText(example));
}

TEST_F(ProjectFileTest, SavingKeepsKeyOrderAndUnknownKeys) {
  std::string text = R"({
  "entry": "k",
  "x-team-notes": {"owner": "kernels"},
  "name": "copy",
  "source": "kernel.py",
  "args": [
    {"dtype": "fp32", "name": "x", "shape": [4, 64], "comment": "input"},
    {"name": "y", "shape": [4, 64], "dtype": "float32"}
  ]
}
)";
  auto project = load(text);
  ASSERT_TRUE(project) << messages();
  project->name = "renamed";
  project->args[0].shape[1].value = 128;
  project->machine = "tiny";
  project->tolerance["y"] = Tolerance{1e-3, 1e-4};
  EXPECT_EQ(serializeProject(*project), R"({
  "entry": "k",
  "x-team-notes": {"owner": "kernels"},
  "name": "renamed",
  "source": "kernel.py",
  "args": [
    {
      "dtype": "fp32",
      "name": "x",
      "shape": [4, 128],
      "comment": "input"
    },
    {
      "name": "y",
      "shape": [4, 64],
      "dtype": "float32"
    }
  ],
  "machine": "tiny",
  "tolerance": {
    "y": {"rtol": 0.001, "atol": 0.0001}
  }
}
)");
}

TEST_F(ProjectFileTest, SaveThenLoadGivesTheSameProject) {
  auto project = load(kMinimal);
  ASSERT_TRUE(project);
  project->args.push_back(KernelArgument{"z", {{8, ""}, {16, "N"}}, DataType::Bf16, NormalInit{0.5, 2.0, 3}});
  project->bindings["N"] = 16;
  project->golden["z"] = GoldenSource{true, ""};
  project->passOptions["vec_nbuffer_setting"] = {{"DEFAULT", 2}};
  project->runtimeOptions["device_sched_mode"] = 1;
  project->tileSettings["vec"] = {{"DEFAULT", {1, 64}}};
  ASSERT_TRUE(saveProject(*project, m_diags));

  DiagnosticEngine diags;
  auto reloaded = loadProject(m_dir, diags);
  ASSERT_TRUE(reloaded) << messages();
  EXPECT_EQ(reloaded->args, project->args);
  EXPECT_EQ(reloaded->bindings, project->bindings);
  EXPECT_EQ(reloaded->golden, project->golden);
  EXPECT_EQ(reloaded->passOptions, project->passOptions);
  EXPECT_EQ(reloaded->runtimeOptions, project->runtimeOptions);
  EXPECT_EQ(reloaded->tileSettings, project->tileSettings);
  // And a second save changes nothing.
  EXPECT_EQ(serializeProject(*reloaded), readText(m_dir / "pto-project.json"));
}

TEST_F(ProjectFileTest, AFailedSaveLeavesTheOldFile) {
  auto project = load(kMinimal);
  ASSERT_TRUE(project);
  fs::path target = m_dir / "no-such-folder" / "pto-project.json";
  EXPECT_FALSE(saveProject(*project, m_diags, target));
  ASSERT_EQ(m_diags.diagnostics().size(), 1u);
  EXPECT_EQ(m_diags.diagnostics()[0].message,
            "cannot save the project: No such file or directory; the previous file is unchanged");
  EXPECT_EQ(readText(m_dir / "pto-project.json"), kMinimal);
  // No temporary files are left behind.
  for (const auto& entry : fs::directory_iterator(m_dir))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST_F(ProjectFileTest, MissingProjectFolderOrFile) {
  DiagnosticEngine diags;
  EXPECT_FALSE(loadProject(m_dir / "nope", diags));
  EXPECT_EQ(diags.diagnostics().at(0).message, "no such project file or folder");
  fs::create_directories(m_dir / "empty");
  EXPECT_FALSE(loadProject(m_dir / "empty", diags));
  EXPECT_EQ(diags.diagnostics().at(1).message,
            "no pto-project.json in this folder; pass a project folder or its pto-project.json file");
}

} // namespace
} // namespace pto
