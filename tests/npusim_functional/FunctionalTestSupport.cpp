// Implementation of the functional-mode test helpers.
#include "FunctionalTestSupport.h"

#include "CompilerTestSupport.h"
#include "compiler/ir/PtoProgramText.h"
#include "compiler/reference/ReferenceInterpreter.h"
#include "compiler/reference/TileInterpreter.h"
#include "npusim/FunctionalExecutor.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <cstdlib>
#include <set>

namespace pto::testing {

FunctionalCase::FunctionalCase(std::uint64_t seed) : random(seed), m_builder("kernel", kernelLine(1)) {
  m_description = "seed " + std::to_string(seed);
  m_builder.beginPath();
}

std::int64_t FunctionalCase::uniform(std::int64_t low, std::int64_t high) {
  return std::uniform_int_distribution<std::int64_t>(low, high)(random);
}

bool FunctionalCase::chance(double p) { return std::bernoulli_distribution(p)(random); }

TensorId FunctionalCase::input(const std::string& argName, DataType dtype, const Dims& shape, double low, double high) {
  SymbolicShape symbolic(shape.begin(), shape.end());
  const TensorId id = m_builder.addArgument(argName, dtype, symbolic, kernelLine(1));
  m_arguments.push_back(randomTensor(dtype, shape, low, high, random));
  m_description += "\n  arg " + argName + " " + std::string(name(dtype)) + dimsText(shape);
  return id;
}

TensorId FunctionalCase::output(const std::string& argName, DataType dtype, const Dims& shape) {
  SymbolicShape symbolic(shape.begin(), shape.end());
  const TensorId id = m_builder.addArgument(argName, dtype, symbolic, kernelLine(1));
  m_arguments.emplace_back(dtype, Shape(shape));
  m_description += "\n  out " + argName + " " + std::string(name(dtype)) + dimsText(shape);
  return id;
}

std::size_t FunctionalCase::argumentIndex(TensorId id) const {
  return static_cast<std::size_t>(m_builder.graph().tensor(id).argumentIndex);
}

const HostTensor& FunctionalCase::data(TensorId argument) const { return m_arguments.at(argumentIndex(argument)); }

void FunctionalCase::vecTile(const Dims& tile) {
  m_builder.setVecTile(tile, kernelLine(m_line));
  m_description += "\n  kernel.py:" + std::to_string(m_line++) + " vec tile " + dimsText(tile);
}

void FunctionalCase::cubeTile(const CubeTileShape& cube) {
  m_builder.setCubeTile(cube, kernelLine(m_line));
  m_description += "\n  kernel.py:" + std::to_string(m_line++) + " cube tile m=[" + std::to_string(cube.mL0) + ", " +
                   std::to_string(cube.mL1) + "] k=[" + std::to_string(cube.kL0) + ", " + std::to_string(cube.kAL1) +
                   "] n=[" + std::to_string(cube.nL0) + ", " + std::to_string(cube.nL1) + "]";
}

TensorId FunctionalCase::op(TensorOpKind kind, std::vector<TensorId> inputs, Attributes attrs,
                            std::vector<TensorId> into) {
  std::string text = "kernel.py:" + std::to_string(m_line) + " " + std::string(name(kind)) + "(";
  for (std::size_t i = 0; i < inputs.size(); ++i) text += (i ? ", " : "") + m_builder.graph().tensor(inputs[i]).name;
  text += ")";
  TensorGraphBuilder::OpResult result = m_builder.addOp(kind, std::move(inputs), std::move(attrs), kernelLine(m_line++), into);
  if (!result.error.empty() && m_error.empty()) m_error = text + ": " + result.error;
  if (!into.empty()) text += " -> " + m_builder.graph().tensor(into[0]).name;
  m_description += "\n  " + text;
  return result.outputs.empty() ? kNoId : result.outputs[0];
}

std::string undersizedOperand(const Compilation& compilation) {
  for (const PtoProgram& program : compilation.programs)
    for (std::size_t i = 0; i < program.instructions.size(); ++i) {
      const PtoInstruction& instruction = program.instructions[i];
      // Sources of compute instructions may be pieces of their input (each piece's buffer, the input's shape).
      std::vector<const std::vector<PtoOperand>*> lists{&instruction.dst};
      if (isTransfer(instruction.opcode)) lists.push_back(&instruction.srcs);
      for (const auto* operands : lists)
        for (const PtoOperand& operand : *operands) {
          if (operand.memory == MemoryKind::GM || product(operand.shape) == 0) continue;
          // The smallest span any buffer layout gives this shape: rows of the innermost dim, 32-byte pitched.
          const std::int64_t item = static_cast<std::int64_t>(sizeOf(operand.dtype));
          const std::int64_t inner = operand.shape.empty() ? 1 : operand.shape.back();
          const std::int64_t rows = product(operand.shape) / std::max<std::int64_t>(inner, 1);
          const std::int64_t pitch = ceilDiv(inner * item, 32) * 32;
          const std::int64_t needed = (rows - 1) * pitch + inner * item;
          if (operand.bytes < needed)
            return "program " + std::to_string(program.programId) + " instruction " + std::to_string(i) + " (" +
                   std::string(name(instruction.opcode)) + "): " + std::string(name(operand.memory)) + " operand " +
                   dimsText(operand.shape) + " " + std::string(name(operand.dtype)) + " in " +
                   std::to_string(operand.bytes) + " bytes, needs " + std::to_string(needed);
        }
    }
  return {};
}

namespace {

std::vector<HostTensor> copies(const std::vector<HostTensor>& tensors) {
  std::vector<HostTensor> result;
  for (const HostTensor& tensor : tensors) result.push_back(tensor.contiguous());
  return result;
}

} // namespace

void FunctionalCase::run(std::int64_t capacityBytes) {
  SCOPED_TRACE(m_description);
  ASSERT_EQ(m_error, "") << "the generator made an invalid kernel";
  m_builder.endPath();
  const TensorGraph graph = m_builder.finish();

  DiagnosticEngine diags;
  std::vector<HostTensor> golden = copies(m_arguments);
  ASSERT_TRUE(runReference(graph, golden, diags)) << messages(diags);

  CompileSettings settings;
  settings.target.capacityBytes.fill(capacityBytes);
  settings.passOptions = passOptions;
  if (passOptions.contains("machine_has_l0c_to_ub")) settings.target.hasL0cToUb = passOptions["machine_has_l0c_to_ub"].get<bool>();
  if (!passOptions.empty()) m_description += "\n  pass options " + passOptions.dump();
  auto compiled = compileKernel(graph, settings, diags);
  ASSERT_TRUE(compiled) << messages(diags);
  const Compilation& compilation = compiled->compilation;
  std::set<PtoOpcode> seen;
  for (const PtoProgram& program : compilation.programs)
    for (const PtoInstruction& instruction : program.instructions) {
      seen.insert(instruction.opcode);
      if (instruction.opcode == PtoOpcode::TLOAD && !instruction.dst.empty() &&
          instruction.dst[0].memory == MemoryKind::L0C)
        m_loadsIntoL0C = true;
    }
  m_opcodes.assign(seen.begin(), seen.end());

  if (tolerateUndersizedOperands) {
    m_defect = undersizedOperand(compilation);
    if (!m_defect.empty()) return;
  }

  std::vector<HostTensor> functional = copies(m_arguments);
  ASSERT_TRUE(executeFunctional(compilation, functional, diags))
      << messages(diags) << (std::getenv("PTO_FUNCTIONAL_DUMP") ? ptoProgramsToText(compilation) : std::string());
  std::vector<HostTensor> tiles = copies(m_arguments);
  ASSERT_TRUE(runTiles(compilation.tiles, tiles, diags)) << messages(diags);

  for (const OutputCheck& output : m_checks) {
    const std::string& argName = graph.tensor(graph.arguments[output.argument]).name;
    const HostTensor& actual = functional[output.argument];
    const HostTensor& expected = golden[output.argument];
    EXPECT_TRUE(bitwiseEqual(actual, tiles[output.argument])) << "output " << argName << " vs the tile interpreter";
    if (output.exact) {
      EXPECT_TRUE(bitwiseEqual(actual, expected)) << "output " << argName << " vs the reference";
      continue;
    }
    for (std::int64_t e = 0; e < actual.elementCount(); ++e) {
      const double atol = output.atol.empty() ? 0.0 : output.atol[static_cast<std::size_t>(e)];
      const double a = actual.getAsDouble(e), b = expected.getAsDouble(e);
      const double difference = std::abs(a - b);
      if (!(difference <= atol + output.rtol * std::abs(b))) {
        ADD_FAILURE() << "output " << argName << ": element " << e << " is " << a << " but the reference gives " << b
                      << "; |difference| " << difference << " > atol " << atol << " + rtol " << output.rtol
                      << " * |reference|; tolerance: " << output.why;
        break;
      }
    }
  }
}

} // namespace pto::testing
