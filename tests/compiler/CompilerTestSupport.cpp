// Implementation of the compiler tests' helpers.
#include "CompilerTestSupport.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <numeric>
#include <sstream>

namespace pto::testing {

std::string dimsText(const Dims& dims) {
  std::string text = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::int64_t product(const Dims& dims) {
  return std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::string tileOpLine(const TileGraph& graph, const TileOp& op) {
  std::string text = "#" + std::to_string(op.id) + " " + std::string(name(op.kind));
  for (std::size_t i = 0; i < op.inputs.size(); ++i) text += (i ? ", " : " ") + regionString(graph, op.inputs[i]);
  text += " ->";
  for (std::size_t i = 0; i < op.outputs.size(); ++i) text += (i ? ", " : " ") + regionString(graph, op.outputs[i]);
  if (op.accumulate != TileAccumulate::None) text += " acc=" + std::string(name(op.accumulate));
  if (!op.tileShape.empty()) {
    text += " tile=[";
    for (std::size_t d = 0; d < op.tileShape.size(); ++d) text += (d ? ", " : "") + std::to_string(op.tileShape[d]);
    text += "]";
  }
  return text;
}

std::string dumpTiles(const TileGraph& graph) {
  std::string text;
  for (const TileOp& op : graph.tileOps()) text += tileOpLine(graph, op) + "\n";
  return text;
}

HostTensor randomTensor(DataType dtype, const std::vector<std::int64_t>& shape, double low, double high,
                        std::mt19937_64& random) {
  HostTensor tensor(dtype, Shape(shape));
  std::uniform_real_distribution<double> uniform(low, high);
  for (std::int64_t i = 0; i < tensor.elementCount(); ++i) tensor.setFromDouble(i, uniform(random));
  return tensor;
}

namespace {

// "[2, 0, 5]": the multi-index of a linear (C order) index.
std::string indexString(const Shape& shape, std::int64_t linear) {
  std::vector<std::int64_t> index(shape.rank());
  for (std::size_t d = shape.rank(); d > 0; --d) {
    index[d - 1] = linear % shape[d - 1];
    linear /= shape[d - 1];
  }
  std::string text = "[";
  for (std::size_t d = 0; d < index.size(); ++d) text += (d ? ", " : "") + std::to_string(index[d]);
  return text + "]";
}

::testing::AssertionResult sameLayout(const HostTensor& actual, const HostTensor& expected) {
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << "dtype " << name(actual.dtype()) << " vs expected "
                                         << name(expected.dtype());
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure() << "shape " << actual.shape().str() << " vs expected "
                                         << expected.shape().str();
  return ::testing::AssertionSuccess();
}

} // namespace

::testing::AssertionResult bitwiseEqual(const HostTensor& actual, const HostTensor& expected) {
  if (auto layout = sameLayout(actual, expected); !layout) return layout;
  const HostTensor a = actual.contiguous(), b = expected.contiguous();
  const std::size_t item = a.itemBytes();
  for (std::int64_t i = 0; i < a.elementCount(); ++i) {
    if (std::memcmp(a.data() + i * item, b.data() + i * item, item) == 0) continue;
    std::ostringstream out;
    out.precision(9);
    out << "element " << indexString(a.shape(), i) << " is " << a.getAsDouble(i) << " but the reference gives "
        << b.getAsDouble(i) << " (bitwise comparison)";
    return ::testing::AssertionFailure() << out.str();
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult withinTolerance(const HostTensor& actual, const HostTensor& expected, double rtol,
                                           double atol) {
  if (auto layout = sameLayout(actual, expected); !layout) return layout;
  double worst = 0;
  for (std::int64_t i = 0; i < actual.elementCount(); ++i) {
    const double a = actual.getAsDouble(i), b = expected.getAsDouble(i);
    bool close;
    if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b))
      close = std::isnan(a) ? std::isnan(b) : a == b;
    else close = std::abs(a - b) <= atol + rtol * std::abs(b);
    if (!close) {
      std::ostringstream out;
      out.precision(9);
      out << "element " << indexString(actual.shape(), i) << " is " << a << " but the reference gives " << b
          << ": |difference| " << std::abs(a - b) << " > atol " << atol << " + rtol " << rtol << " * " << std::abs(b);
      return ::testing::AssertionFailure() << out.str();
    }
    worst = std::max(worst, std::abs(a - b));
  }
  return ::testing::AssertionSuccess() << "largest difference " << worst;
}

} // namespace pto::testing
