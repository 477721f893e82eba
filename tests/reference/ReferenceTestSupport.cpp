// Implementation of the reference tests' helpers.
#include "ReferenceTestSupport.h"

#include "core/Npy.h"


#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace pto::testing {
namespace fs = std::filesystem;

fs::path freshTestDir(const std::string& name) { return freshTestDir("reference", name); }

HostTensor randomTensor(DataType dtype, Shape shape, double low, double high, std::uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<double> values(static_cast<std::size_t>(shape.elementCount()));
  if (isFloatingPoint(dtype)) {
    std::uniform_real_distribution<double> distribution(low, high);
    for (double& value : values) value = distribution(generator);
  } else {
    std::uniform_int_distribution<std::int64_t> distribution(static_cast<std::int64_t>(std::ceil(low)),
                                                             static_cast<std::int64_t>(std::floor(high)));
    for (double& value : values) value = static_cast<double>(distribution(generator));
  }
  return HostTensor::fromDoubles(dtype, std::move(shape), values);
}

HostTensor tensorOf(DataType dtype, Shape shape, const std::vector<double>& values) {
  return HostTensor::fromDoubles(dtype, std::move(shape), values);
}

std::vector<double> valuesOf(const HostTensor& tensor) {
  std::vector<double> values(static_cast<std::size_t>(tensor.elementCount()));
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = tensor.getAsDouble(static_cast<std::int64_t>(i));
  return values;
}

TensorGraph buildRowSoftmax(DataType dtype, const SymbolicShape& shape) {
  TensorGraphBuilder builder("softmax", kernelLine(1));
  const TensorId x = builder.addArgument("x", dtype, shape, kernelLine(1));
  const TensorId y = builder.addArgument("y", dtype, shape, kernelLine(1));
  if (!shape[0].isConstant()) {
    builder.addDynamicSymbol(SymbolSource{shape[0].symbolName(), 0, 0});
    builder.addDynamicSymbol(SymbolSource{shape[0].symbolName(), 1, 0});
  }
  builder.beginPath();
  const LoopId loop = builder.beginLoop("rows", "b", 0, shape[0], 1, false, kernelLine(3));
  builder.beginLoopBody(loop, 1);
  builder.beginPath();
  const SymbolicScalar b = SymbolicScalar::symbol(builder.loop(loop).indexSymbol);
  SymbolicShape offsets(shape.size(), SymbolicScalar(0));
  offsets[0] = b;
  SymbolicShape row = shape;
  row[0] = 1;
  const std::vector<std::int64_t> last{static_cast<std::int64_t>(shape.size()) - 1};
  const TensorId xv = addOp(builder, TensorOpKind::View, {x}, {{"offsets", offsets}, {"shape", row}}, 4);
  const TensorId m = addOp(builder, TensorOpKind::Amax, {xv}, {{"dims", last}, {"keepdim", true}}, 5);
  const TensorId d = addOp(builder, TensorOpKind::Sub, {xv, m}, {}, 6);
  const TensorId e = addOp(builder, TensorOpKind::Exp, {d}, {}, 7);
  const TensorId s = addOp(builder, TensorOpKind::Sum, {e}, {{"dims", last}, {"keepdim", true}}, 8);
  const TensorId r = addOp(builder, TensorOpKind::Div, {e, s}, {}, 9);
  addOp(builder, TensorOpKind::Assemble, {r}, {{"offsets", offsets}}, 10, {y});
  builder.endPath();
  builder.endLoop(loop);
  builder.endPath();
  return builder.finish();
}

DiagnosticEngine failedRun(const TensorGraph& graph, std::vector<HostTensor>& arguments,
                           const ReferenceOptions& options) {
  DiagnosticEngine diags;
  EXPECT_FALSE(runReference(graph, arguments, diags, options));
  return diags;
}

DiagnosticEngine failedRun(const TensorGraph& graph, std::vector<HostTensor>&& arguments,
                           const ReferenceOptions& options) {
  return failedRun(graph, arguments, options);
}

SingleOpRun runSingleOp(TensorOpKind kind, const std::vector<HostTensor>& inputs, Attributes attrs,
                        DiagnosticEngine& diags, const ReferenceOptions& options) {
  TensorGraphBuilder builder("single_op", kernelLine(1));
  std::vector<TensorId> arguments;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    SymbolicShape shape;
    for (std::int64_t dim : inputs[i].shape()) shape.emplace_back(dim);
    arguments.push_back(builder.addArgument("x" + std::to_string(i), inputs[i].dtype(), shape, kernelLine(1)));
  }
  builder.beginPath();
  const TensorGraphBuilder::OpResult result = builder.addOp(kind, arguments, std::move(attrs), kernelLine(10));
  if (!result.error.empty()) {
    diags.error(kernelLine(10)) << result.error;
    return {};
  }
  std::vector<HostTensor> outputs;
  for (std::size_t i = 0; i < result.outputs.size(); ++i) {
    const TensorValue& value = builder.graph().tensor(result.outputs[i]);
    std::vector<std::int64_t> dims;
    for (const SymbolicScalar& dim : value.shape) dims.push_back(*dim.constantValue());
    const DataType dtype = value.dtype;
    const SymbolicShape shape = value.shape;
    const TensorId output = builder.addArgument("out" + std::to_string(i), dtype, shape, kernelLine(1));
    const auto copied = builder.addOp(TensorOpKind::Copy, {result.outputs[i]}, {}, kernelLine(11), {output});
    if (!copied.error.empty()) {
      diags.error(kernelLine(11)) << copied.error;
      return {};
    }
    outputs.emplace_back(dtype, Shape(dims));
  }
  builder.endPath();
  const TensorGraph graph = builder.finish();
  std::vector<HostTensor> all = inputs;
  all.insert(all.end(), outputs.begin(), outputs.end());
  SingleOpRun run;
  run.ok = runReference(graph, all, diags, options);
  if (run.ok) run.outputs = outputs;
  return run;
}

namespace {

// fp16/bf16 bits as integers ordered like their values (sign-magnitude to two's complement).
int orderedBits(std::uint16_t bits) { return (bits & 0x8000u) ? -static_cast<int>(bits & 0x7FFFu) : static_cast<int>(bits); }

bool isClose(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

} // namespace

::testing::AssertionResult closeTo(const HostTensor& actual, const HostTensor& expected, double rtol, double atol,
                                   int ulps) {
  if (actual.dtype() != expected.dtype() || !(actual.shape() == expected.shape()))
    return ::testing::AssertionFailure() << "got " << name(actual.dtype()) << " " << actual.shape().str()
                                         << ", expected " << name(expected.dtype()) << " " << expected.shape().str();
  const HostTensor a = actual.contiguous();
  const HostTensor e = expected.contiguous();
  const std::int64_t count = a.elementCount();
  int mismatches = 0;
  std::ostringstream first;
  for (std::int64_t i = 0; i < count; ++i) {
    const double x = a.getAsDouble(i), y = e.getAsDouble(i);
    bool close = false;
    if (a.dtype() == DataType::Fp16 || a.dtype() == DataType::Bf16) {
      std::uint16_t bitsA = 0, bitsE = 0;
      std::memcpy(&bitsA, a.data() + i * 2, 2);
      std::memcpy(&bitsE, e.data() + i * 2, 2);
      close = (std::isnan(x) && std::isnan(y)) ||
              (!std::isnan(x) && !std::isnan(y) && std::abs(orderedBits(bitsA) - orderedBits(bitsE)) <= ulps);
    } else if (a.dtype() == DataType::Fp32) {
      close = isClose(x, y, rtol, atol);
    } else {
      close = x == y;
    }
    if (!close && mismatches++ == 0)
      first << "element " << i << ": got " << x << ", expected " << y << " (|diff| " << std::fabs(x - y) << ")";
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << count << " elements differ; first: " << first.str();
}


NumpyReference::NumpyReference(const std::string& testName) : m_dir(freshTestDir(testName)) {}

void NumpyReference::add(const std::string& caseName, const std::string& op, nlohmann::json attrs,
                         const std::vector<HostTensor>& inputs, const std::vector<DataType>& outputDtypes) {
  nlohmann::json entry;
  entry["name"] = caseName;
  entry["op"] = op;
  entry["attrs"] = std::move(attrs);
  entry["inputs"] = nlohmann::json::array();
  entry["outputs"] = nlohmann::json::array();
  entry["out_dtypes"] = nlohmann::json::array();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string file = caseName + "_in" + std::to_string(i) + ".npy";
    DiagnosticEngine diags;
    EXPECT_TRUE(writeNpy(m_dir / file, inputs[i], diags)) << messages(diags);
    entry["inputs"].push_back(file);
  }
  for (std::size_t i = 0; i < outputDtypes.size(); ++i) {
    entry["outputs"].push_back(caseName + "_out" + std::to_string(i) + ".npy");
    entry["out_dtypes"].push_back(std::string(name(outputDtypes[i])));
  }
  m_cases.push_back(std::move(entry));
}

::testing::AssertionResult NumpyReference::run() {
  {
    std::ofstream manifest(m_dir / "manifest.json");
    manifest << m_cases.dump(1);
  }
  const PythonRun probe = runPython("-c 'import numpy'", m_dir);
  if (probe.exitCode != 0)
    return ::testing::AssertionFailure() << "this test needs " << PTO_PYTHON_EXECUTABLE
                                         << " with numpy (set PTO_PYTHON_EXECUTABLE); it said: " << probe.output;
  const std::string script = std::string(PTO_SOURCE_DIR) + "/tests/reference/numpy_reference.py";
  const PythonRun run = runPython("'" + script + "' '" + m_dir.string() + "'", m_dir);
  if (run.exitCode != 0)
    return ::testing::AssertionFailure() << "numpy_reference.py failed (exit " << run.exitCode << "): " << run.output;
  return ::testing::AssertionSuccess();
}

HostTensor NumpyReference::expected(const std::string& caseName, std::size_t output) const {
  DiagnosticEngine diags;
  std::optional<HostTensor> tensor = readNpy(m_dir / (caseName + "_out" + std::to_string(output) + ".npy"), diags);
  EXPECT_TRUE(tensor.has_value()) << messages(diags);
  return tensor ? *tensor : HostTensor();
}

} // namespace pto::testing
