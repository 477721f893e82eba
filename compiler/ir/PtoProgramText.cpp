// Text and JSON printing of PTO programs.
#include "compiler/ir/PtoProgramText.h"

#include "core/Shape.h"

#include <sstream>

namespace pto {

using Json = nlohmann::ordered_json;

namespace {

std::string_view shortName(DataType type) {
  switch (type) {
  case DataType::Fp32: return "f32";
  case DataType::Fp16: return "f16";
  case DataType::Bf16: return "bf16";
  case DataType::Int8: return "i8";
  case DataType::Int16: return "i16";
  case DataType::Int32: return "i32";
  case DataType::Int64: return "i64";
  case DataType::UInt8: return "u8";
  case DataType::UInt16: return "u16";
  case DataType::UInt32: return "u32";
  case DataType::UInt64: return "u64";
  case DataType::Bool: return "bool";
  }
  return "?";
}


std::string padded(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// The subgraph the program was lowered from, when the block graph still has it.
const Subgraph* sourceSubgraph(const Compilation& compilation, const PtoProgram& program) {
  const auto& subgraphs = compilation.blocks.subgraphs;
  if (program.subgraph < 0 || static_cast<std::size_t>(program.subgraph) >= subgraphs.size()) return nullptr;
  return &subgraphs[static_cast<std::size_t>(program.subgraph)];
}

const TileRegion* gmRegion(const Subgraph* subgraph, const PtoOperand& operand, bool isDestination) {
  if (!subgraph || operand.gmRegion < 0) return nullptr;
  const auto& list = isDestination ? subgraph->copyOuts : subgraph->copyIns;
  auto index = static_cast<std::size_t>(operand.gmRegion);
  if (index < list.size()) return &list[index];
  // An MGATHER's source: numbered after the copy-ins.
  if (!isDestination && index - list.size() < subgraph->gatherSources.size())
    return &subgraph->gatherSources[index - list.size()];
  // An MSCATTER's destination: numbered after the copy-outs.
  if (isDestination && index - list.size() < subgraph->scatterTargets.size())
    return &subgraph->scatterTargets[index - list.size()];
  return nullptr;
}

std::string operandText(const Compilation& compilation, const Subgraph* subgraph, const PtoOperand& operand,
                        bool isDestination) {
  if (operand.memory != MemoryKind::GM)
    return std::string(name(operand.memory)) + "[" + std::to_string(operand.offsetBytes) + ":" +
           std::to_string(operand.offsetBytes + operand.bytes) + "]";
  if (const TileRegion* region = gmRegion(subgraph, operand, isDestination))
    return "gm:" + regionString(compilation.tiles, *region);
  return std::string("gm:") + (isDestination ? "out" : "in") + std::to_string(operand.gmRegion);
}

std::string locationText(const SourceLocation& location) {
  std::string file = location.file;
  std::size_t slash = file.find_last_of("/\\");
  if (slash != std::string::npos) file = file.substr(slash + 1);
  if (location.line <= 0) return file;
  return file + ":" + std::to_string(location.line);
}

std::string accumulateText(TileAccumulate mode) {
  switch (mode) {
  case TileAccumulate::None: return "";
  case TileAccumulate::Add: return "acc+";
  case TileAccumulate::Mul: return "acc*";
  default: return "acc " + std::string(name(mode));
  }
}

bool namesOpKind(PtoOpcode opcode) {
  return opcode == PtoOpcode::TVEC || opcode == PtoOpcode::TCMP || opcode == PtoOpcode::TCMPS;
}

std::string instructionText(const Compilation& compilation, const Subgraph* subgraph, std::size_t index,
                            const PtoInstruction& instruction) {
  std::ostringstream line;
  std::string number = std::to_string(index);
  line << std::string(number.size() < 5 ? 5 - number.size() : 0, ' ') << number << "  "
       << padded(std::string(name(instruction.pipe)), 8);
  std::string mnemonic(name(instruction.opcode));
  if (namesOpKind(instruction.opcode)) mnemonic += "." + std::string(name(instruction.opKind));
  if (instruction.opcode == PtoOpcode::SET_FLAG || instruction.opcode == PtoOpcode::WAIT_FLAG) {
    line << padded(mnemonic, 13) << name(instruction.srcPipe) << "->" << name(instruction.dstPipe) << " e"
         << instruction.eventId;
    return line.str();
  }
  if (instruction.opcode == PtoOpcode::BARRIER) {
    line << mnemonic;
    return line.str();
  }
  std::string operands;
  for (std::size_t i = 0; i < instruction.dst.size(); ++i)
    operands += (i ? ", " : "") + operandText(compilation, subgraph, instruction.dst[i], true);
  operands += " <-";
  for (std::size_t i = 0; i < instruction.srcs.size(); ++i)
    operands += (i ? ", " : " ") + operandText(compilation, subgraph, instruction.srcs[i], false);
  std::string type;
  if (!instruction.dst.empty()) {
    const PtoOperand& result = instruction.dst[0];
    DataType from = result.dtype;
    for (const PtoOperand& source : instruction.srcs)
      if (source.dtype != result.dtype) from = source.dtype;
    type = std::string(shortName(from));
    if (from != result.dtype) type += "->" + std::string(shortName(result.dtype));
    type += " " + dimsString(result.shape);
  }
  std::string accumulate = accumulateText(instruction.accumulate);
  if (!accumulate.empty()) type += " " + accumulate;
  line << padded(mnemonic, 13) << padded(operands, 44) << "  " << padded(type, 18);
  const TileGraph& tiles = compilation.tiles;
  if (instruction.tileOp >= 0 && static_cast<std::size_t>(instruction.tileOp) < tiles.tileOps().size()) {
    const TensorOp& op = tiles.graph.op(tiles.tileOp(instruction.tileOp).tensorOp);
    line << "  ; " << name(op.kind) << " @ " << locationText(op.location);
  }
  std::string text = line.str();
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

Json operandJson(const Compilation& compilation, const Subgraph* subgraph, const PtoOperand& operand,
                 bool isDestination) {
  Json json;
  json["memory"] = std::string(name(operand.memory));
  if (operand.memory == MemoryKind::GM) {
    json["region"] = operand.gmRegion;
    json["list"] = isDestination ? "copy_outs" : "copy_ins";
    json["alias"] = operand.gmAlias;
    const TileRegion* region = gmRegion(subgraph, operand, isDestination);
    json["tensor"] = region ? Json(compilation.tiles.graph.tensor(region->tensor).name) : Json(nullptr);
  } else {
    json["offset"] = operand.offsetBytes;
  }
  json["bytes"] = operand.bytes;
  json["shape"] = operand.shape;
  json["dtype"] = std::string(name(operand.dtype));
  return json;
}

} // namespace

std::string ptoProgramToText(const Compilation& compilation, const PtoProgram& program) {
  const Subgraph* subgraph = sourceSubgraph(compilation, program);
  std::ostringstream text;
  text << "program " << program.programId << ": " << name(program.coreType) << ", from subgraph " << program.subgraph;
  if (subgraph && !subgraph->label.empty()) text << " '" << subgraph->label << "'";
  text << ", " << program.instructions.size() << " instructions (";
  bool first = true;
  for (std::size_t p = 0; p < kPipeCount; ++p) {
    if (program.pipeCounts[p] == 0) continue;
    text << (first ? "" : ", ") << name(static_cast<Pipe>(p)) << " " << program.pipeCounts[p];
    first = false;
  }
  text << ")\n";
  for (std::size_t i = 0; i < program.instructions.size(); ++i)
    text << instructionText(compilation, subgraph, i, program.instructions[i]) << "\n";
  return text.str();
}

std::string ptoProgramsToText(const Compilation& compilation) {
  std::string text;
  for (std::size_t i = 0; i < compilation.programs.size(); ++i) {
    if (i) text += "\n";
    text += ptoProgramToText(compilation, compilation.programs[i]);
  }
  return text;
}

Json ptoProgramsToJson(const Compilation& compilation) {
  const TileGraph& tiles = compilation.tiles;
  Json root;
  root["stage"] = "pto";
  root["kernel"] = tiles.graph.kernelName;
  Json programs = Json::array();
  for (const PtoProgram& program : compilation.programs) {
    const Subgraph* subgraph = sourceSubgraph(compilation, program);
    Json json;
    json["program_id"] = program.programId;
    json["core_type"] = std::string(name(program.coreType));
    json["subgraph"] = program.subgraph;
    Json counts = Json::object();
    for (std::size_t p = 0; p < kPipeCount; ++p)
      counts[std::string(name(static_cast<Pipe>(p)))] = program.pipeCounts[p];
    json["pipe_counts"] = std::move(counts);
    Json instructions = Json::array();
    for (std::size_t i = 0; i < program.instructions.size(); ++i) {
      const PtoInstruction& instruction = program.instructions[i];
      Json entry;
      entry["index"] = i;
      entry["pipe"] = std::string(name(instruction.pipe));
      entry["opcode"] = std::string(name(instruction.opcode));
      if (isSync(instruction.opcode)) {
        if (instruction.opcode != PtoOpcode::BARRIER) {
          entry["src_pipe"] = std::string(name(instruction.srcPipe));
          entry["dst_pipe"] = std::string(name(instruction.dstPipe));
          entry["event"] = instruction.eventId;
        }
        instructions.push_back(std::move(entry));
        continue;
      }
      entry["op_kind"] = std::string(name(instruction.opKind));
      entry["tile_op"] = instruction.tileOp;
      bool linked = instruction.tileOp >= 0 && static_cast<std::size_t>(instruction.tileOp) < tiles.tileOps().size();
      OpId tensorOp = linked ? tiles.tileOp(instruction.tileOp).tensorOp : kNoId;
      entry["tensor_op"] = tensorOp;
      entry["location"] = tensorOp >= 0 ? Json(tiles.graph.op(tensorOp).location.str()) : Json(nullptr);
      Json dst = Json::array(), srcs = Json::array();
      for (const PtoOperand& operand : instruction.dst)
        dst.push_back(operandJson(compilation, subgraph, operand, true));
      for (const PtoOperand& operand : instruction.srcs)
        srcs.push_back(operandJson(compilation, subgraph, operand, false));
      entry["dst"] = std::move(dst);
      entry["srcs"] = std::move(srcs);
      entry["bytes"] = instruction.bytes;
      entry["elements"] = instruction.elements;
      entry["accumulate"] = std::string(name(instruction.accumulate));
      instructions.push_back(std::move(entry));
    }
    json["instructions"] = std::move(instructions);
    programs.push_back(std::move(json));
  }
  root["programs"] = std::move(programs);
  return root;
}

} // namespace pto
