// Implementation of the tile-shape write-back.
#include "analysis/tuning/TileShapeWriteBack.h"

#include "analysis/tuning/TileBufferCheck.h"
#include "compiler/settings/TileSettings.h"

namespace pto {
namespace {

std::string join(const std::vector<std::int64_t>& dims) {
  std::string text;
  for (std::size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text;
}

// Where a '#' comment starts on the line (outside string literals), or npos.
std::size_t commentStart(std::string_view line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return i;
    }
  }
  return std::string_view::npos;
}

bool identifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

} // namespace

TileWriteBack writeTileShapeBack(std::string_view source, int line, TileSection section,
                                 const nlohmann::ordered_json& value) {
  TileWriteBack result;
  const std::string function = section == TileSection::Vec ? "set_vec_tile_shapes" : "set_cube_tile_shapes";
  // The line's extent.
  std::size_t begin = 0;
  for (int current = 1; current < line; ++current) {
    std::size_t next = source.find('\n', begin);
    if (next == std::string_view::npos) begin = source.size() + 1;
    else begin = next + 1;
    if (begin > source.size()) break;
  }
  if (line < 1 || begin > source.size()) {
    result.error = "the kernel has no line " + std::to_string(line);
    return result;
  }
  std::size_t end = source.find('\n', begin);
  if (end == std::string_view::npos) end = source.size();
  std::size_t contentEnd = end > begin && source[end - 1] == '\r' ? end - 1 : end;  // keep a CRLF ending
  std::string_view text = source.substr(begin, contentEnd - begin);
  result.oldLine = std::string(text);

  // The new arguments.
  std::string arguments, error;
  if (section == TileSection::Vec) {
    auto dims = vecShapeFromJson(value, error);
    if (!dims) {
      result.error = error;
      return result;
    }
    arguments = join(*dims);
  } else {
    auto cube = cubeTileShapeFromSetting(value, error);
    if (!cube) {
      result.error = error;
      return result;
    }
    std::vector<std::int64_t> k = {cube->kL0, cube->kAL1};
    if (cube->kBL1 != cube->kAL1) k.push_back(cube->kBL1);
    arguments = "[" + join({cube->mL0, cube->mL1}) + "], [" + join(k) + "], [" + join({cube->nL0, cube->nL1}) + "]";
    if (cube->enableSplitK) arguments += ", enable_split_k=True";
  }

  // The call: `function` as a whole name followed by '(' before any comment.
  const std::size_t comment = commentStart(text);
  const std::string_view code = text.substr(0, comment);
  std::size_t at = std::string_view::npos;
  for (std::size_t from = 0; (from = code.find(function, from)) != std::string_view::npos; from += function.size()) {
    bool wholeName = (from == 0 || !identifierChar(code[from - 1])) &&
                     (from + function.size() >= code.size() || !identifierChar(code[from + function.size()]));
    std::size_t paren = from + function.size();
    while (paren < code.size() && code[paren] == ' ') ++paren;
    if (!wholeName || paren >= code.size() || code[paren] != '(') continue;
    if (at != std::string_view::npos) {
      result.error = "line " + std::to_string(line) + " calls " + function + " twice; put each call on its own line";
      return result;
    }
    at = from;
  }
  if (at == std::string_view::npos) {
    const std::string other = section == TileSection::Vec ? "set_cube_tile_shapes" : "set_vec_tile_shapes";
    result.error = "line " + std::to_string(line) + " holds no " + function + "(...) call" +
                   (code.find(other) != std::string_view::npos ? " (it calls " + other + ")" : "") + ": \"" +
                   std::string(text) + "\"";
    return result;
  }
  std::size_t open = code.find('(', at + function.size());
  // The matching ')' on the same line; strings inside the call are not expected.
  int depth = 0;
  std::size_t close = std::string_view::npos;
  for (std::size_t i = open; i < code.size(); ++i) {
    if (code[i] == '"' || code[i] == '\'') {
      result.error = "the call on line " + std::to_string(line) + " has string arguments; edit it by hand";
      return result;
    }
    if (code[i] == '(' || code[i] == '[') ++depth;
    else if (code[i] == ')' || code[i] == ']') {
      if (--depth == 0) {
        close = i;
        break;
      }
    }
  }
  if (close == std::string_view::npos || code[close] != ')') {
    result.error = "the " + function + " call on line " + std::to_string(line) +
                   " continues on the next line; put it on one line or edit it by hand";
    return result;
  }
  result.newLine = std::string(text.substr(0, open + 1)) + arguments + std::string(text.substr(close));
  result.source = std::string(source.substr(0, begin)) + result.newLine + std::string(source.substr(contentEnd));
  result.ok = true;
  return result;
}

} // namespace pto
