// JSON and DOT printing of the Tile graph.
#include "compiler/ir/TileGraphJson.h"
#include "compiler/ir/ElementBindings.h"

#include "compiler/ir/TensorGraphJson.h"
#include "compiler/ir/TileDataEdges.h"

#include <sstream>

namespace pto {

using Json = nlohmann::ordered_json;

namespace {

Json regionJson(const TileGraph& graph, const TileRegion& region) {
  const TensorValue& tensor = graph.graph.tensor(region.tensor);
  Json entry;
  entry["tensor"] = region.tensor;
  entry["name"] = tensor.name;
  entry["datatype"] = std::string(name(tensor.dtype));
  entry["shape"] = region.shape;
  Json offsets = Json::array();
  for (const SymbolicScalar& offset : region.offsets) offsets.push_back(attributeToJson(offset));
  entry["offset"] = std::move(offsets);
  if (!region.valid.empty()) {  // the part holding data, evaluated per task (TileRegion::valid)
    Json valid = Json::array();
    for (const SymbolicScalar& size : region.valid) valid.push_back(attributeToJson(size));
    entry["valid_shape"] = std::move(valid);
  }
  entry["mem_type"] = "GM";
  return entry;
}

} // namespace

Json tileGraphToJson(const TileGraph& graph) {
  Json root;
  root["stage"] = "tile";
  root["kernel"] = graph.graph.kernelName;
  Json bindings = Json::object();
  // Dynamic dims only: the elements read as scalars (block_table[...]) are
  // the kernel's input data, not settings of this compilation.
  for (const auto& [symbol, value] : graph.bindings)
    if (!isElementBinding(symbol)) bindings[symbol] = value;
  root["bindings"] = std::move(bindings);
  Json tensors = Json::array();
  for (const TensorValue& tensor : graph.graph.tensors()) {
    Json entry{{"id", tensor.id},
               {"name", tensor.name},
               {"role", std::string(name(tensor.role))},
               {"datatype", std::string(name(tensor.dtype))},
               {"shape", graph.shapeOf(tensor.id)}};
    if (tensor.reshapeOf != kNoId) entry["reshape_of"] = tensor.reshapeOf;  // the argument whose bytes it is
    if (tensor.nzLayout) entry["format"] = "NZ";
    tensors.push_back(std::move(entry));
  }
  root["tensors"] = std::move(tensors);
  std::vector<Json> producers(graph.tileOps().size(), Json::array());
  for (const TileDataEdge& edge : tileDataEdges(graph)) producers[static_cast<std::size_t>(edge.to)].push_back(edge.from);
  Json operations = Json::array();
  for (const TileOp& op : graph.tileOps()) {
    const TensorOp& source = graph.graph.op(op.tensorOp);
    Json entry;
    entry["opmagic"] = op.id;
    entry["opcode"] = std::string(name(op.kind));
    entry["tensor_op"] = op.tensorOp;
    entry["semantic_label"] = source.label;
    entry["source"] = Json{{"file", source.location.file}, {"line", source.location.line}};
    Json inputs = Json::array(), outputs = Json::array();
    for (const TileRegion& region : op.inputs) inputs.push_back(regionJson(graph, region));
    for (const TileRegion& region : op.outputs) outputs.push_back(regionJson(graph, region));
    entry["ioperands"] = std::move(inputs);
    entry["ooperands"] = std::move(outputs);
    entry["producers"] = std::move(producers[static_cast<std::size_t>(op.id)]);
    if (op.accumulate != TileAccumulate::None) entry["accumulate"] = std::string(name(op.accumulate));
    entry["tile_shape"] = op.tileShape;
    Json attrs = Json::object();
    for (const auto& [key, value] : op.attrs) attrs[key] = attributeToJson(value);
    entry["attrs"] = std::move(attrs);
    operations.push_back(std::move(entry));
  }
  root["operations"] = std::move(operations);
  return root;
}

std::string tileGraphToDot(const TileGraph& graph) {
  std::ostringstream out;
  out << "digraph \"" << graph.graph.kernelName << "_tiles\" {\n  rankdir=TB;\n"
      << "  node [fontname=\"Helvetica\", fontsize=9, shape=box, style=rounded];\n";
  for (const TileOp& op : graph.tileOps()) {
    out << "  n" << op.id << " [label=\"" << name(op.kind) << " #" << op.id;
    if (!op.outputs.empty()) out << "\\n" << regionString(graph, op.outputs[0]);
    out << "\"];\n";
  }
  for (const TileDataEdge& edge : tileDataEdges(graph)) out << "  n" << edge.from << " -> n" << edge.to << ";\n";
  out << "}\n";
  return out.str();
}

} // namespace pto
