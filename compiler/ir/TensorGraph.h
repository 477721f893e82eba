// The Tensor graph: what tracing a kernel produces, before any tiling.
//
// Meaning. A kernel is a program over tensor *buffers*. Arguments are the
// caller's buffers; every other tensor is a temporary buffer made by an op or
// by `pypto.tensor(...)`, or a *view* aliasing a region of another tensor.
// Ops run in program order: an op reads its inputs' current contents and
// writes its outputs (Assemble writes into a region of its second input). A
// kernel therefore may write the same buffer several times (`y[b] = ...`
// inside a loop); data dependencies are read-after-write on buffers, which
// later stages derive from this order.
//
// Shapes are symbolic (SymbolicScalar): dynamic dims are named symbols bound
// from the call's arguments, and loop indices are symbols bound per
// iteration. Dims are in elements, outermost first (C order).
//
// Control flow. The body is a Region: one or more Paths, each guarded by
// conditions (from `pypto.cond`) that are evaluated when the region runs;
// exactly one path applies (their conditions are the branches of a decision
// tree). A Path is a list of Statements: ops and loops. A Loop runs its body
// for start, start+step, ... < stop with its index symbol bound; an unrolled
// loop has one body per unroll factor and each run of the body with factor f
// covers f iterations.
//
// Ids. Tensors, ops and loops live in arenas owned by the graph and are
// referred to by dense integer ids, stable for the life of the graph: views,
// dumps and later IR levels store these ids, and each op keeps its source
// location, so every tile op and task can be traced back to a kernel line.
#pragma once

#include "compiler/ir/TensorOpKind.h"
#include "core/DataType.h"
#include "core/SourceLocation.h"
#include "core/SymbolicScalar.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pto {

using TensorId = std::int32_t;
using OpId = std::int32_t;
using LoopId = std::int32_t;
inline constexpr std::int32_t kNoId = -1;

using SymbolicShape = std::vector<SymbolicScalar>;

enum class TensorRole : unsigned char {
  Argument,   // a kernel parameter: the caller's buffer
  Temporary,  // made by an op or pypto.tensor()
  View,       // a region of another tensor (no storage of its own)
};
std::string_view name(TensorRole role);

struct TensorValue {
  TensorId id = kNoId;
  std::string name;  // argument name, or "t<id>" / the user's pypto.tensor name
  DataType dtype = DataType::Fp32;
  SymbolicShape shape;
  TensorRole role = TensorRole::Temporary;
  int argumentIndex = -1;  // for arguments: position in the kernel signature
  OpId producer = kNoId;   // the op that created it (none for arguments)
  // Views: the aliased tensor, the region's offsets in it, and the valid part
  // (a tail tile's valid shape may be smaller than its shape).
  TensorId base = kNoId;
  SymbolicShape offsets;
  SymbolicShape validShape;
  SourceLocation location;  // where the kernel created it
  // The innermost loop open when the kernel created it (kNoId: outside every
  // loop). A temporary made in a loop body is made anew by every iteration,
  // so iterations need not share its storage (BuildExecuteGraph).
  LoopId loop = kNoId;
  // A temporary that holds the same bytes as this tensor (an argument or a
  // temporary, never another alias) in another shape or dtype: a reshape or
  // bitcast nothing writes after, folded by RemoveRedundantOp. Executors give
  // it that tensor's storage (the same iteration's, for a loop temporary)
  // instead of a buffer of its own.
  TensorId reshapeOf = kNoId;
  // An argument declared `format=TILEOP_NZ`: its bytes lie in GM as the
  // cube's fractals (16 rows of 32 bytes, column block after column block),
  // as PyPTO's quantized kernels pass their weights. A load into L1 then
  // copies whole fractal columns as they lie, with no ND -> NZ conversion
  // row by row. Only the timing model reads it: the functional simulator and
  // the interpreter take every array in ND (row-major) order.
  bool nzLayout = false;
};

// Op attributes, by name. Kinds say which they use (docs/ir.md lists them).
// Looked up by a name constant (a `const char*`) without making a string of
// it: std::less<> compares the two as they are. A name past the short-string
// length made a heap block at every lookup; the gather and scatter flags are
// asked of every op of every fit-check plan (1.8 % of
// deepseek_indexer_attention's compile went to those blocks).
using AttributeValue = std::variant<bool, std::int64_t, double, std::string, DataType, std::vector<std::int64_t>,
                                    SymbolicScalar, SymbolicShape>;
using Attributes = std::map<std::string, AttributeValue, std::less<>>;

struct CubeTileShape {
  std::int64_t mL0 = 0, mL1 = 0;
  std::int64_t kL0 = 0, kAL1 = 0, kBL1 = 0;  // kAL1 == kBL1 when given as [kL0, kL1]
  std::int64_t nL0 = 0, nL1 = 0;
  bool enableSplitK = false;
  friend bool operator==(const CubeTileShape&, const CubeTileShape&) = default;
};

// The tile settings in force when an op was written, and where they were set.
struct TileContext {
  std::vector<std::int64_t> vec;
  SourceLocation vecSite;
  std::optional<CubeTileShape> cube;
  SourceLocation cubeSite;
};

struct TensorOp {
  OpId id = kNoId;
  TensorOpKind kind = TensorOpKind::Copy;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  Attributes attrs;
  SourceLocation location;  // the user's line (helpers they wrote count)
  std::string label;        // pypto.set_semantic_label in force
  TileContext tiles;
  nlohmann::ordered_json passOptions = nlohmann::ordered_json::object();  // scoped options in force
  LoopId loop = kNoId;  // innermost enclosing loop

  template <typename T> const T* attr(const std::string& key) const {
    auto found = attrs.find(key);
    return found == attrs.end() ? nullptr : std::get_if<T>(&found->second);
  }
};

struct Statement {
  enum class Kind : unsigned char { Op, Loop } kind = Kind::Op;
  std::int32_t id = kNoId;  // an OpId or a LoopId
};

// A guard of a path: the path applies when `predicate` evaluates to non-zero
// if `expected`, to zero otherwise.
struct Condition {
  SymbolicScalar predicate;
  bool expected = true;
  SourceLocation location;
};

struct Path {
  std::vector<Condition> conditions;
  std::vector<Statement> statements;
};

struct Region {
  std::vector<Path> paths;  // at least one once tracing has finished
};

struct LoopBody {
  std::int64_t unrollFactor = 1;
  Region region;
};

struct Loop {
  LoopId id = kNoId;
  std::string name;          // pypto.loop(name=...) or "loop_<id>"
  std::string indexSymbol;   // the symbol the index is bound to while the body runs
  SymbolicScalar start, stop, step;
  bool parallel = false;
  // pypto.loop(submit_before_loop=True): PyPTO submits what came before and
  // waits for it (a loop barrier) each time the loop is entered, so nothing
  // from here on starts before everything earlier has finished.
  bool submitBeforeLoop = false;
  // pypto.loop(unroll_list=[...]) on a loop traced with one body: PyPTO's
  // control flow runs the body in groups of iterations (the largest factor
  // while it fits, then the smaller ones for the rest), one call per group,
  // and each call is one root function, the unit stitch_function_max_num
  // counts (BuildExecuteGraph's rootCall). Factors descending, ending in 1;
  // empty: one call per iteration.
  std::vector<std::int64_t> unrollList;
  std::vector<LoopBody> bodies;  // one, or one per unroll factor in descending order
  LoopId parent = kNoId;
  SourceLocation location;
};

// Where a dynamic dim's value comes from: dim `dim` of argument `argument`,
// whose size is scale * symbol + offset (scale 1, offset 0 for a dim that is
// the symbol itself; PyPTO kernels also declare dims such as n * 64).
struct SymbolSource {
  std::string symbol;
  int argument = 0;
  int dim = 0;
  std::int64_t scale = 1;
  std::int64_t offset = 0;

  // The symbol's value for an argument dim of `size`; nullopt when no
  // non-negative integer gives that size (size 200 for n * 64).
  std::optional<std::int64_t> valueFor(std::int64_t size) const {
    if (scale == 0 || (size - offset) % scale != 0 || (size - offset) / scale < 0) return std::nullopt;
    return (size - offset) / scale;
  }
  // "n*64 + 8" for messages ("n" when scale 1, offset 0).
  std::string formula() const {
    std::string text = symbol;
    if (scale != 1) text += "*" + std::to_string(scale);
    if (offset != 0) text += (offset > 0 ? " + " : " - ") + std::to_string(offset > 0 ? offset : -offset);
    return text;
  }
};

class TensorGraph {
public:
  std::string kernelName;
  SourceLocation kernelLocation;
  Region body;
  std::vector<TensorId> arguments;           // in signature order
  std::vector<SymbolSource> dynamicSymbols;  // how to bind dynamic dims from the arguments
  // Arguments (indices into `arguments`) whose elements the kernel reads as
  // scalars (SymbolicScalar::element, keyed by the argument's name), sorted:
  // their values at launch are bound before the graph runs (ElementBindings.h).
  std::vector<int> elementReadArguments;
  // The kernel's own option groups ({"pass_options": {...}, "runtime_options":
  // {...}}), from its @pypto.frontend.jit(...) decorator: PyPTO kernels
  // configure themselves there. A project's settings override them key by key.
  nlohmann::ordered_json kernelOptions = nlohmann::ordered_json::object();

  TensorId addTensor(TensorValue value);
  OpId addOp(TensorOp op);
  LoopId addLoop(Loop loop);

  const TensorValue& tensor(TensorId id) const { return m_tensors.at(static_cast<std::size_t>(id)); }
  TensorValue& tensor(TensorId id) { return m_tensors.at(static_cast<std::size_t>(id)); }
  const TensorOp& op(OpId id) const { return m_ops.at(static_cast<std::size_t>(id)); }
  TensorOp& op(OpId id) { return m_ops.at(static_cast<std::size_t>(id)); }
  const Loop& loop(LoopId id) const { return m_loops.at(static_cast<std::size_t>(id)); }
  Loop& loop(LoopId id) { return m_loops.at(static_cast<std::size_t>(id)); }

  const std::vector<TensorValue>& tensors() const { return m_tensors; }
  const std::vector<TensorOp>& ops() const { return m_ops; }
  const std::vector<Loop>& loops() const { return m_loops; }

  // The tensor whose storage `id` uses: itself, or the root of its view chain.
  TensorId storageOf(TensorId id) const;
  // Whether `op` is a `reshape(..., inplace=True)`: its result is its input's
  // bytes in another shape (PyPTO's in-place reshape), not a copy.
  static bool isInPlaceReshape(const TensorOp& op);
  // storageOf, also through in-place reshapes: the tensor whose bytes `id`
  // finally is (an argument written through `reshape(out, ..., inplace=True)`
  // is an output).
  TensorId aliasRootOf(TensorId id) const;
  // Argument tensors some op writes (directly or through a view; making a
  // view is not a write): the outputs.
  std::vector<TensorId> writtenArguments() const;
  // Ops in program order (paths of a region in order, loop bodies inline).
  std::vector<OpId> opsInProgramOrder() const;

private:
  std::vector<TensorValue> m_tensors;
  std::vector<TensorOp> m_ops;
  std::vector<Loop> m_loops;
};

// "[B, 32, 1, 256]"
std::string shapeString(const SymbolicShape& shape);

// Each op's loop segment, by OpId: a nested loop splits the ops of its scope
// into stretches numbered 0, 1, ... in statement order. A task runs where its
// first op is, so ops after a nested loop never join ops before it (they may
// need the loop's results); the partition and the merge both keep to this.
std::vector<int> loopSegmentOfOps(const TensorGraph& graph);

} // namespace pto
