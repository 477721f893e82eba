// JSON and DOT printing of the Tensor graph.
#include "compiler/ir/TensorGraphJson.h"

#include "core/DotText.h"
#include "core/json/JsonPrinter.h"

#include <sstream>

namespace pto {

using Json = nlohmann::ordered_json;

namespace {

Json shapeJson(const SymbolicShape& shape) {
  Json dims = Json::array();
  for (const auto& dim : shape) {
    if (auto value = dim.constantValue()) dims.push_back(*value);
    else dims.push_back(dim.str());
  }
  return dims;
}

Json locationJson(const SourceLocation& location) {
  Json source;
  source["file"] = location.file;
  source["line"] = location.line;
  if (location.column > 0) source["column"] = location.column;
  return source;
}

Json regionJson(const TensorGraph& graph, const Region& region);

Json statementJson(const TensorGraph& graph, const Statement& statement) {
  if (statement.kind == Statement::Kind::Op) return Json{{"op", statement.id}};
  const Loop& loop = graph.loop(statement.id);
  Json entry;
  entry["loop"] = loop.id;
  entry["name"] = loop.name;
  entry["index"] = loop.indexSymbol;
  entry["start"] = loop.start.str();
  entry["stop"] = loop.stop.str();
  entry["step"] = loop.step.str();
  if (loop.parallel) entry["parallel"] = true;
  if (loop.submitBeforeLoop) entry["submit_before_loop"] = true;
  if (!loop.unrollList.empty()) entry["unroll_list"] = loop.unrollList;
  entry["source"] = locationJson(loop.location);
  entry["bodies"] = Json::array();
  for (const LoopBody& body : loop.bodies) {
    Json bodyJson;
    bodyJson["unroll_factor"] = body.unrollFactor;
    bodyJson["paths"] = regionJson(graph, body.region);
    entry["bodies"].push_back(std::move(bodyJson));
  }
  return entry;
}

Json regionJson(const TensorGraph& graph, const Region& region) {
  Json paths = Json::array();
  for (const Path& path : region.paths) {
    Json pathJson;
    Json conditions = Json::array();
    for (const Condition& condition : path.conditions)
      conditions.push_back(Json{{"predicate", condition.predicate.str()}, {"expected", condition.expected},
                                {"source", locationJson(condition.location)}});
    pathJson["conditions"] = std::move(conditions);
    Json statements = Json::array();
    for (const Statement& statement : path.statements) statements.push_back(statementJson(graph, statement));
    pathJson["statements"] = std::move(statements);
    paths.push_back(std::move(pathJson));
  }
  return paths;
}

} // namespace

Json attributeToJson(const AttributeValue& value) {
  return std::visit(
      [](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, DataType>) return std::string(name(v));
        else if constexpr (std::is_same_v<T, SymbolicScalar>) {
          if (auto constant = v.constantValue()) return *constant;
          return v.str();
        } else if constexpr (std::is_same_v<T, SymbolicShape>) return shapeJson(v);
        else return v;
      },
      value);
}

Json tensorGraphToJson(const TensorGraph& graph) {
  Json root;
  root["stage"] = "tensor";
  root["kernel"] = graph.kernelName;
  root["source"] = locationJson(graph.kernelLocation);
  Json arguments = Json::array();
  for (TensorId id : graph.arguments) arguments.push_back(id);
  root["arguments"] = std::move(arguments);
  Json written = Json::array();
  for (TensorId id : graph.writtenArguments()) written.push_back(id);
  root["outputs"] = std::move(written);
  Json symbols = Json::array();
  for (const SymbolSource& symbol : graph.dynamicSymbols) {
    Json entry{{"symbol", symbol.symbol}, {"argument", symbol.argument}, {"dim", symbol.dim}};
    // Only a dim declared as an expression (n * 64) carries these.
    if (symbol.scale != 1 || symbol.offset != 0) {
      entry["scale"] = symbol.scale;
      entry["offset"] = symbol.offset;
    }
    symbols.push_back(std::move(entry));
  }
  root["dynamic_symbols"] = std::move(symbols);

  Json tensors = Json::array();
  for (const TensorValue& tensor : graph.tensors()) {
    Json entry;
    entry["id"] = tensor.id;
    entry["name"] = tensor.name;
    entry["role"] = std::string(name(tensor.role));
    entry["dtype"] = std::string(name(tensor.dtype));
    entry["shape"] = shapeJson(tensor.shape);
    if (tensor.role == TensorRole::View) {
      entry["base"] = tensor.base;
      entry["offsets"] = shapeJson(tensor.offsets);
    }
    if (tensor.producer != kNoId) entry["producer"] = tensor.producer;
    tensors.push_back(std::move(entry));
  }
  root["tensors"] = std::move(tensors);

  Json ops = Json::array();
  for (const TensorOp& op : graph.ops()) {
    Json entry;
    entry["id"] = op.id;
    entry["op"] = std::string(name(op.kind));
    entry["inputs"] = op.inputs;
    entry["outputs"] = op.outputs;
    const TensorValue* result = op.outputs.empty() ? nullptr : &graph.tensor(op.outputs[0]);
    entry["shape"] = result ? shapeJson(result->shape) : Json::array();
    entry["dtype"] = result ? Json(std::string(name(result->dtype))) : Json(nullptr);
    entry["label"] = op.label;
    entry["source"] = locationJson(op.location);
    Json attrs = Json::object();
    for (const auto& [key, value] : op.attrs) attrs[key] = attributeToJson(value);
    entry["attrs"] = std::move(attrs);
    if (op.loop != kNoId) entry["loop"] = op.loop;
    if (!op.tiles.vec.empty()) entry["vec_tile"] = op.tiles.vec;
    if (op.tiles.cube) {
      const CubeTileShape& c = *op.tiles.cube;
      entry["cube_tile"] = Json{{"m", {c.mL0, c.mL1}}, {"k", {c.kL0, c.kAL1, c.kBL1}}, {"n", {c.nL0, c.nL1}},
                                {"enable_split_k", c.enableSplitK}};
    }
    if (!op.passOptions.empty()) entry["pass_options"] = op.passOptions;
    ops.push_back(std::move(entry));
  }
  root["ops"] = std::move(ops);
  root["body"] = regionJson(graph, graph.body);
  return root;
}

std::string printTensorGraphJson(const TensorGraph& graph) { return printJson(tensorGraphToJson(graph)); }

std::string tensorGraphToDot(const TensorGraph& graph) {
  std::ostringstream out;
  out << "digraph \"" << dotEscaped(graph.kernelName) << "\" {\n"
      << "  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n";
  // Tensors are ellipses, ops are boxes; edges follow data.
  for (const TensorValue& tensor : graph.tensors()) {
    std::string shape = shapeString(tensor.shape);
    out << "  t" << tensor.id << " [shape=ellipse, label=\"" << dotEscaped(tensor.name) << "\\n" << name(tensor.dtype)
        << " " << dotEscaped(shape) << "\""
        << (tensor.role == TensorRole::Argument ? ", style=filled, fillcolor=\"#dfe8f5\"" : "") << "];\n";
  }
  for (const TensorOp& op : graph.ops()) {
    std::string file = op.location.file.substr(op.location.file.find_last_of('/') + 1);
    out << "  op" << op.id << " [shape=box, style=rounded, label=\"" << name(op.kind) << " #" << op.id << "\\n"
        << dotEscaped(file) << ":" << op.location.line << (op.label.empty() ? "" : "\\n[" + dotEscaped(op.label) + "]")
        << "\"];\n";
    for (TensorId input : op.inputs) out << "  t" << input << " -> op" << op.id << ";\n";
    for (TensorId output : op.outputs) out << "  op" << op.id << " -> t" << output << ";\n";
  }
  out << "}\n";
  return out.str();
}

} // namespace pto
