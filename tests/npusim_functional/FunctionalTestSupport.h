// Helpers for the functional simulator's tests: kernels built op by op with random arguments, compiled by
// the real pipeline, executed functionally, by the reference interpreter (the golden) and by the tile
// interpreter, and compared output by output.
#pragma once

#include "CompilerTestSupport.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/passes/Pipeline.h"
#include "core/HostTensor.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace pto::testing {

// How one output is held to the reference interpreter's result:
//   |functional - reference| <= atol[e] + rtol * |reference| per element (exact: bit for bit).
struct OutputCheck {
  std::size_t argument = 0;
  bool exact = false;
  double rtol = 0.0;
  std::vector<double> atol;  // per element (C order); empty: 0
  std::string why;           // the tolerance's justification, for failure messages
};

class FunctionalCase {
public:
  explicit FunctionalCase(std::uint64_t seed);

  std::mt19937_64 random;
  std::int64_t uniform(std::int64_t low, std::int64_t high);
  bool chance(double p);

  TensorId input(const std::string& argName, DataType dtype, const Dims& shape, double low, double high);
  TensorId output(const std::string& argName, DataType dtype, const Dims& shape);
  const HostTensor& data(TensorId argument) const;
  std::size_t argumentIndex(TensorId id) const;
  void vecTile(const Dims& tile);
  void cubeTile(const CubeTileShape& cube);
  TensorId op(TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs = {}, std::vector<TensorId> into = {});
  void check(OutputCheck check) { m_checks.push_back(std::move(check)); }

  // Compiles (per-core memories of `capacityBytes` each), runs the three executors and compares. Also
  // asserts that functional mode equals the tile interpreter bit for bit: both apply the same kernels to the
  // same tiles in the same order, so any difference is a misplaced byte.
  void run(std::int64_t capacityBytes = std::int64_t{1} << 20);
  // When set, run() stops before executing a compilation that has an on-chip operand too small for its
  // own shape (the LowerToPto defect described in FunctionalPropertyTest.cpp) and reports it here.
  bool tolerateUndersizedOperands = false;
  // The pass options the kernel is compiled with (GraphPartition's mg_copyin_upper_bound, ...).
  nlohmann::ordered_json passOptions = nlohmann::ordered_json::object();
  const std::string& defect() const { return m_defect; }

  // Opcodes the compiled programs used (to see which paths a family covered).
  const std::vector<PtoOpcode>& opcodesSeen() const { return m_opcodes; }
  // Whether a compiled program loads an accumulator from GM into L0C (split k).
  bool loadsIntoL0C() const { return m_loadsIntoL0C; }
  const std::string& description() const { return m_description; }

private:
  TensorGraphBuilder m_builder;
  std::vector<HostTensor> m_arguments;
  std::vector<OutputCheck> m_checks;
  std::vector<PtoOpcode> m_opcodes;
  std::string m_description;
  std::string m_error;
  std::string m_defect;
  bool m_loadsIntoL0C = false;
  int m_line = 2;
};

// The first on-chip destination (or transfer source) of a compiled program whose byte range is smaller than its shape needs in the
// padded layout (a program that cannot be right), as "program P instruction I (OPCODE): ..."; empty if none.
std::string undersizedOperand(const Compilation& compilation);

} // namespace pto::testing
