// Helpers for the reference interpreter's tests: graphs of one op, seeded random tensors, tolerant
// comparisons, and the numpy cross-check (cases written as .npy plus a manifest, computed by
// numpy_reference.py in one python run, read back).
#pragma once

#include "tests/support/KernelBuilding.h"
#include "tests/support/TestFiles.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "core/Diagnostics.h"
#include "core/HostTensor.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pto::testing {

// An empty directory for one test under PTO_TEST_DATA_DIR.
std::filesystem::path freshTestDir(const std::string& name);

// Uniform values in [low, high] (integers for integer dtypes, 0/1 for bool), from a fixed seed.
HostTensor randomTensor(DataType dtype, Shape shape, double low, double high, std::uint32_t seed);
HostTensor tensorOf(DataType dtype, Shape shape, const std::vector<double>& values);
std::vector<double> valuesOf(const HostTensor& tensor);

// The softmax kernel of the examples: for b in range(shape[0]): y[b:b+1] = softmax(x[b:b+1]) over the last
// dim, written with view, amax, sub, exp, sum, div and assemble. A symbolic shape[0] is bound from x and y.
TensorGraph buildRowSoftmax(DataType dtype, const SymbolicShape& shape);

// Runs `graph` on `arguments` in the reference interpreter, which must fail (the test fails if the run
// succeeds): the diagnostics that say why. The arguments keep what the run wrote before it stopped.
DiagnosticEngine failedRun(const TensorGraph& graph, std::vector<HostTensor>& arguments,
                           const ReferenceOptions& options = {});
// The same on arguments the test does not look at afterwards.
DiagnosticEngine failedRun(const TensorGraph& graph, std::vector<HostTensor>&& arguments,
                           const ReferenceOptions& options = {});

// Runs one op on `inputs`: the graph takes the inputs as arguments and copies each of the op's results into
// an output argument. Returns the outputs; on failure they are empty and `diags` says why.
struct SingleOpRun {
  std::vector<HostTensor> outputs;
  bool ok = false;
};
SingleOpRun runSingleOp(TensorOpKind kind, const std::vector<HostTensor>& inputs, Attributes attrs,
                        DiagnosticEngine& diags, const ReferenceOptions& options = {});

// Same values within a tolerance: floats by numpy.allclose(rtol, atol) with NaN equal to NaN, fp16/bf16 by
// at most `ulps` units in the last place, integers and bool exactly. Names the first mismatch.
::testing::AssertionResult closeTo(const HostTensor& actual, const HostTensor& expected, double rtol, double atol,
                                   int ulps = 1);


// Cases for numpy: add() writes the inputs, run() lets numpy_reference.py compute all cases at once,
// expected() reads its results. A missing python or numpy fails the test.
class NumpyReference {
public:
  explicit NumpyReference(const std::string& testName);
  void add(const std::string& caseName, const std::string& op, nlohmann::json attrs,
           const std::vector<HostTensor>& inputs, const std::vector<DataType>& outputDtypes);
  ::testing::AssertionResult run();
  HostTensor expected(const std::string& caseName, std::size_t output) const;

private:
  std::filesystem::path m_dir;
  nlohmann::json m_cases = nlohmann::json::array();
};

} // namespace pto::testing
