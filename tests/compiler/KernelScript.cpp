// Implementation of the kernel script reader.
#include "KernelScript.h"

#include "CompilerTestSupport.h"
#include "compiler/ir/TensorGraphBuilder.h"

#include <cctype>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace pto::testing {
namespace {

// A malformed script: the message is reported as "line N: message".
struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string trim(const std::string& text) {
  std::size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return {};
  std::size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

bool startsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

// Splits at commas outside brackets and parentheses.
std::vector<std::string> splitTopLevel(const std::string& text) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
      continue;
    }
    current += c;
  }
  if (!trim(current).empty()) parts.push_back(trim(current));
  return parts;
}

// Integer expressions over symbols: + - * // and parentheses.
class ExpressionReader {
public:
  ExpressionReader(const std::string& text, const std::map<std::string, SymbolicScalar>& names)
      : m_text(text), m_names(names) {}

  SymbolicScalar read() {
    SymbolicScalar value = sum();
    skipSpaces();
    if (m_at != m_text.size()) throw ScriptError("unexpected '" + m_text.substr(m_at) + "' in '" + m_text + "'");
    return value;
  }

private:
  void skipSpaces() {
    while (m_at < m_text.size() && m_text[m_at] == ' ') ++m_at;
  }
  bool take(const std::string& token) {
    skipSpaces();
    if (m_text.compare(m_at, token.size(), token) != 0) return false;
    m_at += token.size();
    return true;
  }
  SymbolicScalar sum() {
    SymbolicScalar value = product();
    while (true) {
      if (take("+")) value = value + product();
      else if (take("-")) value = value - product();
      else return value;
    }
  }
  SymbolicScalar product() {
    SymbolicScalar value = atom();
    while (true) {
      if (take("//")) value = floorDiv(value, atom());
      else if (take("*")) value = value * atom();
      else return value;
    }
  }
  SymbolicScalar atom() {
    skipSpaces();
    if (take("(")) {
      SymbolicScalar value = sum();
      if (!take(")")) throw ScriptError("missing ')' in '" + m_text + "'");
      return value;
    }
    if (take("-")) return SymbolicScalar(0) - atom();
    std::size_t begin = m_at;
    if (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at]))) {
      while (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at]))) ++m_at;
      return SymbolicScalar(std::stoll(m_text.substr(begin, m_at - begin)));
    }
    while (m_at < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '_'))
      ++m_at;
    if (begin == m_at) throw ScriptError("expected a number or a name in '" + m_text + "'");
    std::string identifier = m_text.substr(begin, m_at - begin);
    auto found = m_names.find(identifier);
    return found != m_names.end() ? found->second : SymbolicScalar::symbol(identifier);
  }

  const std::string& m_text;
  const std::map<std::string, SymbolicScalar>& m_names;
  std::size_t m_at = 0;
};

// "[a, b*2]" -> its items.
std::vector<std::string> listItems(const std::string& text) {
  std::string inner = trim(text);
  if (inner.size() < 2 || inner.front() != '[' || inner.back() != ']')
    throw ScriptError("expected a list like [4, 16], got '" + text + "'");
  return splitTopLevel(inner.substr(1, inner.size() - 2));
}

std::vector<std::int64_t> intList(const std::string& text) {
  std::vector<std::int64_t> values;
  for (const std::string& item : listItems(text)) values.push_back(std::stoll(item));
  return values;
}

DataType dataType(const std::string& text) {
  auto dtype = parseDataType(text);
  if (!dtype) throw ScriptError("unknown dtype '" + text + "'");
  return *dtype;
}

class ScriptReader {
public:
  KernelScript read(const std::string& text) {
    std::istringstream lines(text);
    std::string line;
    int number = 0;
    KernelScript script;
    try {
      while (std::getline(lines, line)) {
        ++number;
        m_line = number;
        std::string statement = trim(line.substr(0, line.find('#')));
        if (startsWith(statement, "pass")) break;
        if (!statement.empty()) readStatement(statement);
      }
      if (!m_loops.empty()) throw ScriptError("a loop has no 'end'");
    } catch (const std::exception& error) {
      script.error = "line " + std::to_string(m_line) + ": " + error.what();
      return script;
    }
    builder().endPath();
    script.graph = builder().finish();
    for (const auto& [id, tensorName] : m_renames) script.graph.tensor(id).name = tensorName;
    script.bindings = m_bindings;
    return script;
  }

private:
  TensorGraphBuilder& builder() {
    if (!m_builder) {
      m_builder.emplace(m_kernelName, kernelLine(m_line));
      m_builder->beginPath();
    }
    return *m_builder;
  }
  SourceLocation here() const { return kernelLine(m_line); }

  SymbolicScalar expression(const std::string& text) const { return ExpressionReader(trim(text), m_symbols).read(); }
  SymbolicShape shapeList(const std::string& text) const {
    SymbolicShape shape;
    for (const std::string& item : listItems(text)) shape.push_back(expression(item));
    return shape;
  }

  TensorId tensorNamed(const std::string& tensorName) const {
    auto found = m_tensors.find(trim(tensorName));
    if (found == m_tensors.end()) throw ScriptError("no tensor named '" + trim(tensorName) + "'");
    return found->second;
  }

  void readStatement(const std::string& statement) {
    std::istringstream words(statement);
    std::string keyword;
    words >> keyword;
    std::string rest = trim(statement.substr(keyword.size()));
    if (keyword == "kernel") {
      if (m_builder) throw ScriptError("'kernel' must come first");
      m_kernelName = rest;
    } else if (keyword == "arg" || keyword == "tensor") {
      std::string tensorName, dtypeName;
      words >> tensorName >> dtypeName;
      std::string dims = trim(rest.substr(rest.find('[')));
      TensorId id = keyword == "arg" ? builder().addArgument(tensorName, dataType(dtypeName), shapeList(dims), here())
                                     : builder().addTemporary(tensorName, dataType(dtypeName), shapeList(dims), here());
      m_tensors[tensorName] = id;
    } else if (keyword == "symbol") {
      std::string symbolName, from, argumentName;
      int dim = 0;
      words >> symbolName >> from >> argumentName >> dim;
      const TensorValue& argument = builder().graph().tensor(tensorNamed(argumentName));
      builder().addDynamicSymbol(SymbolSource{symbolName, argument.argumentIndex, dim});
    } else if (keyword == "bind") {
      std::string symbolName, equals;
      std::int64_t value = 0;
      words >> symbolName >> equals >> value;
      m_bindings[symbolName] = value;
    } else if (keyword == "vec_tile") {
      builder().setVecTile(intList(rest), here());
    } else if (keyword == "cube_tile") {
      readCubeTile(rest);
    } else if (keyword == "label") {
      builder().setLabel(rest);
    } else if (keyword == "for") {
      readLoop(rest);
    } else if (keyword == "end") {
      if (m_loops.empty()) throw ScriptError("'end' without a loop");
      builder().endPath();
      builder().endLoop(m_loops.back().first);
      m_symbols.erase(m_loops.back().second);
      m_loops.pop_back();
    } else {
      readOp(statement);
    }
  }

  void readCubeTile(const std::string& text) {
    CubeTileShape shape;
    for (const std::string& item : splitTopLevelBySpace(text)) {
      std::size_t equals = item.find('=');
      if (equals == std::string::npos) throw ScriptError("expected m=[..] k=[..] n=[..], got '" + item + "'");
      std::string key = item.substr(0, equals);
      std::vector<std::int64_t> values = intList(item.substr(equals + 1));
      if (values.size() < 2) throw ScriptError(key + " needs [L0, L1]");
      if (key == "m") shape.mL0 = values[0], shape.mL1 = values[1];
      else if (key == "n") shape.nL0 = values[0], shape.nL1 = values[1];
      else if (key == "k")
        shape.kL0 = values[0], shape.kAL1 = values[1], shape.kBL1 = values.size() > 2 ? values[2] : values[1];
      else throw ScriptError("unknown cube tile key '" + key + "'");
    }
    builder().setCubeTile(shape, here());
  }

  // "m=[32, 64] k=[64, 128]" -> items separated by spaces outside brackets.
  static std::vector<std::string> splitTopLevelBySpace(const std::string& text) {
    std::vector<std::string> items;
    std::string current;
    int depth = 0;
    for (char c : text) {
      if (c == '[') ++depth;
      if (c == ']') --depth;
      if (c == ' ' && depth == 0) {
        if (!current.empty()) items.push_back(current);
        current.clear();
        continue;
      }
      current += c;
    }
    if (!current.empty()) items.push_back(current);
    return items;
  }

  // "b in range(0, 3, 1):"
  void readLoop(const std::string& text) {
    std::size_t in = text.find(" in range(");
    std::size_t close = text.rfind(')');
    if (in == std::string::npos || close == std::string::npos)
      throw ScriptError("expected 'for b in range(start, stop, step):'");
    std::string index = trim(text.substr(0, in));
    std::size_t open = in + std::string(" in range(").size();
    std::vector<std::string> bounds = splitTopLevel(text.substr(open, close - open));
    if (bounds.size() != 3) throw ScriptError("range needs start, stop and step");
    LoopId loop = builder().beginLoop("", index, expression(bounds[0]), expression(bounds[1]), expression(bounds[2]),
                                      false, here());
    builder().beginLoopBody(loop, 1);
    builder().beginPath();
    m_symbols[index] = SymbolicScalar::symbol(builder().loop(loop).indexSymbol);
    m_loops.emplace_back(loop, index);
  }

  // "e = exp(x)", "s = sum(x, dims=[1], keepdim=true)", "assemble(e, offsets=[b, 0]) -> y".
  void readOp(const std::string& statement) {
    std::string resultName, call = statement, target;
    std::size_t equals = statement.find('=');
    std::size_t open = statement.find('(');
    if (equals != std::string::npos && equals < open) {
      resultName = trim(statement.substr(0, equals));
      call = trim(statement.substr(equals + 1));
    }
    if (std::size_t arrow = call.find("->"); arrow != std::string::npos) {
      target = trim(call.substr(arrow + 2));
      call = trim(call.substr(0, arrow));
    }
    open = call.find('(');
    if (open == std::string::npos || call.back() != ')')
      throw ScriptError("expected an op call, got '" + statement + "'");
    std::string kindName = trim(call.substr(0, open));
    auto kind = parseTensorOpKind(kindName);
    if (!kind) throw ScriptError("unknown op '" + kindName + "'");
    std::vector<TensorId> inputs;
    Attributes attrs;
    for (const std::string& argument : splitTopLevel(call.substr(open + 1, call.size() - open - 2))) {
      std::size_t assign = argument.find('=');
      if (assign == std::string::npos) {
        inputs.push_back(tensorNamed(argument));
        continue;
      }
      std::string key = trim(argument.substr(0, assign));
      attrs[key] = attribute(key, trim(argument.substr(assign + 1)));
    }
    std::vector<TensorId> into;
    if (!target.empty()) into.push_back(tensorNamed(target));
    TensorGraphBuilder::OpResult result = builder().addOp(*kind, inputs, std::move(attrs), here(), into);
    if (!result.error.empty()) throw ScriptError(result.error);
    if (!resultName.empty()) {
      m_tensors[resultName] = result.outputs.at(0);
      m_renames[result.outputs.at(0)] = resultName;
    }
  }

  AttributeValue attribute(const std::string& key, const std::string& value) const {
    if (key == "dims") return intList(value);
    if (key == "offsets" || key == "shape" || key == "valid_shape") return shapeList(value);
    if (key == "keepdim" || key == "a_trans" || key == "b_trans" || key == "largest" || key == "descending") {
      if (value != "true" && value != "false") throw ScriptError(key + " must be true or false");
      return value == "true";
    }
    if (key == "dtype" || key == "out_dtype") return dataType(value);
    if (key == "mode") return value;
    if (key == "dim" || key == "size" || key == "k") return static_cast<std::int64_t>(std::stoll(value));
    return std::stod(value);
  }

  std::string m_kernelName = "kernel";
  int m_line = 0;
  std::optional<TensorGraphBuilder> m_builder;
  std::map<std::string, TensorId> m_tensors;
  std::map<TensorId, std::string> m_renames;
  std::map<std::string, SymbolicScalar> m_symbols;  // loop variables -> their index symbols
  std::vector<std::pair<LoopId, std::string>> m_loops;
  Bindings m_bindings;
};

} // namespace

KernelScript parseKernelScript(const std::string& text) { return ScriptReader().read(text); }

} // namespace pto::testing
