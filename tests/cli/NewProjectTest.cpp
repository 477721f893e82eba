// `pto new`: a project made from a bundled example is a copy of it (same
// kernel bytes), named after its folder, and runs; an existing folder or an
// unknown example is refused with a clear message and exit code 1.
#include "CliRunner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace pto::test {

namespace fs = std::filesystem;

namespace {

fs::path freshFolder(const std::string& name) {
  fs::path folder = fs::temp_directory_path() / ("pto-new-test-" + std::to_string(std::random_device{}())) / name;
  fs::remove_all(folder.parent_path());
  return folder;
}

} // namespace

TEST(PtoNew, CopiesTheExampleNamesItAfterTheFolderAndItRuns) {
  fs::path folder = freshFolder("my_matmul");
  Result created = runPto("new " + folder.string() + " --example matmul");
  ASSERT_EQ(created.exitCode, 0) << created.err;
  fs::path example = fs::path(PTO_SOURCE_DIR) / "resources/examples/matmul";
  EXPECT_EQ(slurp(folder / "kernel.py"), slurp(example / "kernel.py"));
  auto project = nlohmann::json::parse(slurp(folder / "pto-project.json"));
  auto original = nlohmann::json::parse(slurp(example / "pto-project.json"));
  EXPECT_EQ(project["name"], "my_matmul");
  project["name"] = original["name"];
  EXPECT_EQ(project, original);  // nothing else changed
  Result run = runPto("run " + folder.string());
  EXPECT_EQ(run.exitCode, 0) << run.err;
  fs::remove_all(folder.parent_path());
}

// deepseek_indexer_attention runs four other examples' kernels: `pto new`
// copies them inside the project, so the copy imports them from there; a
// copy by hand without them fails at import and the message says what to do.
TEST(PtoNew, CopiesTheExamplesAnExampleUsesAndAHandCopyWithoutThemSaysSo) {
  fs::path folder = freshFolder("my_dia");
  Result created = runPto("new " + folder.string() + " --example deepseek_indexer_attention");
  ASSERT_EQ(created.exitCode, 0) << created.err;
  EXPECT_NE(created.out.find("with the examples it uses (mla_prolog, indexer_prolog, lightning_indexer, "
                             "sparse_flash_attention) in folders inside it"),
            std::string::npos)
      << created.out;
  const fs::path examples = fs::path(PTO_SOURCE_DIR) / "resources/examples";
  for (const char* used : {"mla_prolog", "indexer_prolog", "lightning_indexer", "sparse_flash_attention"}) {
    EXPECT_EQ(slurp(folder / used / "kernel.py"), slurp(examples / used / "kernel.py")) << used;
    EXPECT_EQ(slurp(folder / used / "check.py"), slurp(examples / used / "check.py")) << used;
  }
  // The copy's kernel imports every stage's kernel from inside it (what a
  // trace does first; the trace itself takes seconds), and its check finds
  // the stages' checks there too. A plain /usr/bin/python3 cannot load the
  // sanitizer build's instrumented pypto module (its runtime is not
  // preloaded), so this part runs in the release suite only.
#if !defined(PTO_UNDER_SANITIZERS)
  Result imported = runShell("PYTHONPATH='" PTO_PYTHON_PACKAGE_DIR "' /usr/bin/python3 -c \"import importlib.util as u; "
                             "s = u.spec_from_file_location('dia', '" + (folder / "kernel.py").string() +
                             "'); m = u.module_from_spec(s); s.loader.exec_module(m); "
                             "print(m.example_file('sparse_flash_attention', 'check.py'))\"");
  EXPECT_EQ(imported.exitCode, 0) << imported.err;
  EXPECT_EQ(imported.out, (folder / "sparse_flash_attention" / "check.py").string() + "\n");
#endif

  const fs::path byHand = folder.parent_path() / "dia_by_hand";
  fs::copy(examples / "deepseek_indexer_attention", byHand, fs::copy_options::recursive);
  Result failed = runPto("graph " + byHand.string() + " --stage tensor --format json --trust");
  EXPECT_EQ(failed.exitCode, 1);
  EXPECT_NE(failed.err.find("mla_prolog/kernel.py not found inside"), std::string::npos) << failed.err;
  EXPECT_NE(failed.err.find("Start your copy with `pto new DIR --example deepseek_indexer_attention`, which copies "
                            "them into it"),
            std::string::npos)
      << failed.err;
  fs::remove_all(folder.parent_path());
}

TEST(PtoNew, RefusesAFolderInUseAndUnknownExamples) {
  fs::path folder = freshFolder("op");
  fs::create_directories(folder);
  { std::ofstream(folder / "notes.txt") << "mine"; }
  Result existing = runPto("new " + folder.string());
  EXPECT_EQ(existing.exitCode, 1);
  EXPECT_NE(existing.err.find("already exists and is not an empty folder"), std::string::npos) << existing.err;
  EXPECT_EQ(slurp(folder / "notes.txt"), "mine");

  Result unknown = runPto("new " + (folder.parent_path() / "other").string() + " --example softmx");
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("no example named 'softmx' (did you mean 'softmax'?)"), std::string::npos) << unknown.err;
  EXPECT_FALSE(fs::exists(folder.parent_path() / "other"));

  Result list = runPto("new --list");
  EXPECT_EQ(list.exitCode, 0);
  EXPECT_NE(list.out.find("softmax  Row softmax"), std::string::npos) << list.out;
  fs::remove_all(folder.parent_path());
}

} // namespace pto::test
