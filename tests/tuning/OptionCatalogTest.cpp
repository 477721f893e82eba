// The option catalog: complete (every option name the compiler and runtime
// sources read is listed) and its validation gives the compiler's and
// runtime's own messages (compared with what compiling or reading the
// runtime options reports).
#include "TuningTestSupport.h"

#include "analysis/tuning/OptionCatalog.h"
#include "analysis/simulation/Simulation.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>

namespace pto::testing {
namespace {

std::string readSource(const std::string& relative) {
  std::ifstream in(std::filesystem::path(PTO_SOURCE_DIR) / relative);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Option names as the readers spell them in the sources: json.contains("x"),
// integer("x", ...), readMergeCountSetting(..., "x", ...), a declaration's
// lookup findDeclaration(..., "x") and the declaration itself
// declareOption("x", ...) (a reader may take the name from it).
std::set<std::string> namesReadIn(const std::vector<std::string>& files) {
  std::set<std::string> names;
  std::regex read(
      R"((?:contains|integer|declareOption|readMergeCountSetting\([^";{]*)\("?([a-z_]+_[a-z_]+)\")");
  // The name is a literal within the call's statement: a call that passes a variable ends at its ';' or '{'
  // before any later string.
  std::regex mergeKey(R"((?:readMergeCountSetting|findDeclaration)\([^";{]*"([a-z_]+)\")");
  for (const std::string& file : files) {
    std::string text = readSource(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), read); it != std::sregex_iterator(); ++it)
      names.insert((*it)[1]);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), mergeKey); it != std::sregex_iterator(); ++it)
      names.insert((*it)[1]);
  }
  return names;
}

TEST(OptionCatalog, ListsEveryOptionTheSourcesRead) {
  std::set<std::string> passNames = namesReadIn({"compiler/passes/GraphPartition.cpp", "compiler/passes/OoOSchedule.cpp",
                                                 "compiler/passes/NBufferMerge.cpp", "compiler/passes/L1CopyInReuseMerge.cpp",
                                                 "compiler/passes/Pipeline.cpp", "analysis/run/ProjectRun.cpp"});
  std::set<std::string> runtimeNames = namesReadIn({"analysis/simulation/Simulation.cpp", "compiler/settings/Options.cpp"});
  // The scan must find the options we know are there, or it proves nothing.
  for (const char* known : {"mg_copyin_upper_bound", "vec_nbuffer_setting", "cube_nbuffer_setting", "ooo_sched_mode",
                            "disable_pass", "enable_pass_verify", "sg_set_scope"})
    EXPECT_TRUE(passNames.count(known)) << known;
  for (const std::string& name : passNames) EXPECT_TRUE(findOption(name, OptionScope::Pass)) << name;
  EXPECT_EQ(runtimeNames, (std::set<std::string>{"device_sched_mode", "launch_sched_aicpu_num", "stitch_function_max_num"}));
  for (const std::string& name : runtimeNames) EXPECT_TRUE(findOption(name, OptionScope::Runtime)) << name;
  for (const OptionInfo& info : optionCatalog()) {
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_FALSE(info.defaultText.empty()) << info.name;
    EXPECT_EQ(info.summary.find('\n'), std::string::npos) << info.name;
  }
}

TEST(OptionCatalog, AcceptsWhatTheCompilerAccepts) {
  const TracedProject& softmax = example("softmax");
  EXPECT_EQ(validateOption(OptionScope::Pass, "mg_copyin_upper_bound", 1024), "");
  EXPECT_EQ(validateOption(OptionScope::Pass, "ooo_sched_mode", 0), "");
  // PyPTO's own modes (its sparse attention kernel passes "GAPMIN"), all list scheduling here.
  for (const char* pypto : {"", "GAPMIN", "HLF"})
    EXPECT_EQ(validateOption(OptionScope::Pass, "ooo_sched_mode", pypto), "") << pypto;
  EXPECT_EQ(validateOption(OptionScope::Pass, "vec_nbuffer_setting", {{"DEFAULT", 4}, {"softmax", 2}}, &softmax.graph), "");
  EXPECT_EQ(validateOption(OptionScope::Pass, "vec_nbuffer_setting", nlohmann::ordered_json::object(), &softmax.graph), "");
  EXPECT_EQ(validateOption(OptionScope::Pass, "disable_pass", {"OoOSchedule"}), "");
  EXPECT_EQ(validateOption(OptionScope::Pass, "machine_has_l0c_to_ub", true), "");
  EXPECT_EQ(validateOption(OptionScope::Runtime, "device_sched_mode", 3), "");
  EXPECT_EQ(validateOption(OptionScope::Runtime, "launch_sched_aicpu_num", 4), "");
}

// The message validateOption gives is the one compiling with the option gives.
TEST(OptionCatalog, RejectsWithTheCompilersMessage) {
  const TracedProject& softmax = example("softmax");
  struct Case {
    const char* name;
    nlohmann::ordered_json value;
  };
  std::vector<Case> cases = {
      {"mg_copyin_upper_bound", 0},
      {"pg_parallel_lower_bound", "many"},
      {"ooo_sched_mode", 2},
      {"ooo_sched_mode", "gapmin"},
      {"machine_has_l0c_to_ub", 1},
      {"sg_set_scope", 3},
      {"vec_nbuffer_setting", {{"sofmax", 2}}},
      {"cube_nbuffer_setting", 0},
      {"cube_l1_reuse_setting", {{"DEFAULT", -1}}},
  };
  for (const Case& c : cases) {
    std::string message = validateOption(OptionScope::Pass, c.name, c.value, &softmax.graph);
    ASSERT_FALSE(message.empty()) << c.name;
    std::string errors = compileErrors(softmax, softmax.project.tileSettings, {{c.name, c.value}});
    EXPECT_EQ(errors, message + "\n") << c.name;
  }
  EXPECT_EQ(validateOption(OptionScope::Pass, "vec_nbuffer_setting", {{"sofmax", 2}}, &softmax.graph),
            "pass_options.vec_nbuffer_setting key 'sofmax' is neither \"DEFAULT\", an order (\"0\", "
            "\"func<magic>_<order>\") nor a semantic label of the kernel (labels: 'softmax')");
  EXPECT_EQ(validateOption(OptionScope::Pass, "disable_pass", "ExpandFunction"),
            "disable_pass: ExpandFunction cannot be disabled; later passes need what it builds");
  EXPECT_EQ(validateOption(OptionScope::Pass, "disable_pass", {"Nope"}), "disable_pass: there is no pass named 'Nope'");
  EXPECT_NE(validateOption(OptionScope::Pass, "no_such_option", 1).find("not an option"), std::string::npos);
}

TEST(OptionCatalog, RejectsWithTheRuntimesMessage) {
  for (auto [name, value] : std::vector<std::pair<std::string, nlohmann::ordered_json>>{
           {"device_sched_mode", 7}, {"stitch_function_max_num", 0}, {"launch_sched_aicpu_num", "four"}}) {
    DiagnosticEngine diags;
    runtimeSettingsFrom({{name, value}}, SourceLocation{}, diags);
    ASSERT_EQ(diags.diagnostics().size(), 1u);
    EXPECT_EQ(validateOption(OptionScope::Runtime, name, value), diags.diagnostics()[0].message);
  }
  EXPECT_EQ(validateOption(OptionScope::Runtime, "device_sched_mode", 7),
            "runtime_options.device_sched_mode: expected an integer from 0 to 3 (0 shared FIFO, 1 affinity, 2 fair, 3 "
            "both), got 7");
}

} // namespace
} // namespace pto::testing
