// Filling kernel arguments: zeros, arange, seeded uniform/normal, and .npy files.
#include "core/project/ArgumentData.h"

#include "core/Npy.h"

#include <bit>
#include <cmath>
#include <numbers>
#include <string>

namespace pto {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): spreads a small seed over 64 bits.
std::uint64_t splitMix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman, Vigna 2018), written out so that every platform
// produces the same stream; std::mt19937 would too, but the std distributions
// on top of it differ between standard libraries.
class Xoshiro256StarStar {
public:
  explicit Xoshiro256StarStar(std::uint64_t seed) {
    for (std::uint64_t& word : m_state) word = splitMix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = std::rotl(m_state[1] * 5, 7) * 9;
    const std::uint64_t t = m_state[1] << 17;
    m_state[2] ^= m_state[0];
    m_state[3] ^= m_state[1];
    m_state[1] ^= m_state[2];
    m_state[0] ^= m_state[3];
    m_state[2] ^= t;
    m_state[3] = std::rotl(m_state[3], 45);
    return result;
  }

  // Uniform in [0, 1): the top 53 bits, so every value is an exact double.
  double nextUnit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

private:
  std::uint64_t m_state[4] = {};
};


void fillUniform(HostTensor& tensor, const UniformInit& init) {
  Xoshiro256StarStar random(init.seed);
  const bool integral = !isFloatingPoint(tensor.dtype());
  const std::int64_t count = tensor.elementCount();
  for (std::int64_t i = 0; i < count; ++i) {
    const double value = init.low + (init.high - init.low) * random.nextUnit();
    tensor.setFromDouble(i, integral ? std::floor(value) : value);
  }
}

void fillNormal(HostTensor& tensor, const NormalInit& init) {
  Xoshiro256StarStar random(init.seed);
  const std::int64_t count = tensor.elementCount();
  for (std::int64_t i = 0; i < count; i += 2) {
    // 1 - u lies in (0, 1], so the logarithm is finite.
    const double radius = std::sqrt(-2.0 * std::log(1.0 - random.nextUnit()));
    const double angle = 2.0 * std::numbers::pi * random.nextUnit();
    tensor.setFromDouble(i, init.mean + init.std * radius * std::cos(angle));
    if (i + 1 < count) tensor.setFromDouble(i + 1, init.mean + init.std * radius * std::sin(angle));
  }
}

std::optional<HostTensor> readArgumentNpy(const KernelArgument& arg, const NpyInit& init, const Shape& shape,
                                          const std::filesystem::path& projectDir, DiagnosticEngine& diags,
                                          const SourceLocation& where, const std::string& label) {
  if (init.path.empty()) return diags.error(where) << label << ": the npy init has no path";
  std::optional<HostTensor> tensor = readNpy(projectDir / init.path, diags);
  if (!tensor) return std::nullopt;
  if (tensor->dtype() != arg.dtype || tensor->shape() != shape)
    return diags.error(where) << label << ": " << init.path << " holds " << name(tensor->dtype()) << " "
                              << tensor->shape().str() << ", the project declares " << name(arg.dtype) << " "
                              << shape.str();
  return tensor;
}

} // namespace

std::string argumentLabel(const KernelArgument& arg, int argIndex) {
  if (argIndex < 0) return "argument '" + arg.name + "'";
  return "args[" + std::to_string(argIndex) + "] '" + arg.name + "'";
}

std::optional<HostTensor> makeArgumentData(const KernelArgument& arg, const std::vector<std::int64_t>& concreteShape,
                                           const std::filesystem::path& projectDir, DiagnosticEngine& diags,
                                           const SourceLocation& where, int argIndex) {
  const std::string label = argumentLabel(arg, argIndex);
  const Shape shape(concreteShape);

  if (const auto* npy = std::get_if<NpyInit>(&arg.init))
    return readArgumentNpy(arg, *npy, shape, projectDir, diags, where, label);

  if (const auto* uniform = std::get_if<UniformInit>(&arg.init)) {
    if (!std::isfinite(uniform->low) || !std::isfinite(uniform->high) || !(uniform->low < uniform->high))
      return diags.error(where) << label << ": uniform init needs finite low < high, got low=" << uniform->low
                                << ", high=" << uniform->high;
  }
  if (const auto* normal = std::get_if<NormalInit>(&arg.init)) {
    if (!std::isfinite(normal->mean) || !std::isfinite(normal->std) || normal->std < 0)
      return diags.error(where) << label
                                << ": normal init needs a finite mean and a finite std >= 0, got mean=" << normal->mean
                                << ", std=" << normal->std;
  }

  // Created against a scratch engine so the message can name the argument.
  DiagnosticEngine scratch;
  std::optional<HostTensor> tensor = HostTensor::tryCreate(arg.dtype, shape, scratch, where);
  if (!tensor) return diags.error(where) << label << ": " << scratch.diagnostics().front().message;

  if (const auto* uniform = std::get_if<UniformInit>(&arg.init)) {
    fillUniform(*tensor, *uniform);
  } else if (const auto* normal = std::get_if<NormalInit>(&arg.init)) {
    fillNormal(*tensor, *normal);
  } else if (std::holds_alternative<ArangeInit>(arg.init)) {
    for (std::int64_t i = 0; i < tensor->elementCount(); ++i) tensor->setFromInt64(i, i);
  } else if (const auto* given = std::get_if<ValuesInit>(&arg.init)) {
    if (static_cast<std::int64_t>(given->values.size()) != tensor->elementCount())
      return diags.error(where) << label << ": init \"values\" lists " << given->values.size() << " numbers but shape "
                                << shape.str() << " has " << tensor->elementCount() << " elements";
    for (std::int64_t i = 0; i < tensor->elementCount(); ++i)
      tensor->setFromDouble(i, given->values[static_cast<std::size_t>(i)]);
  }
  // ZerosInit: tryCreate already zero-filled.
  return tensor;
}

} // namespace pto
