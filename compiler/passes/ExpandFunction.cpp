// Implementation of ExpandFunction.
#include "compiler/passes/ExpandFunction.h"

#include "compiler/ir/ValidShapes.h"
#include "compiler/settings/TileSettings.h"
#include "core/Limits.h"
#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

namespace pto {
namespace {

using Dims = std::vector<std::int64_t>;

SymbolicShape constants(const Dims& values) {
  SymbolicShape shape;
  for (std::int64_t value : values) shape.emplace_back(value);
  return shape;
}


// Calls `visit(offsets, sizes)` for every tile of `shape` cut by `tile`, in
// row-major order of the tile grid; tail tiles are smaller.
void forEachTile(const Dims& shape, const Dims& tile, const std::function<void(const Dims&, const Dims&)>& visit) {
  std::size_t rank = shape.size();
  for (std::int64_t extent : shape)
    if (extent <= 0) return;
  Dims index(rank, 0), offsets(rank), sizes(rank);
  while (true) {
    for (std::size_t d = 0; d < rank; ++d) {
      offsets[d] = index[d] * tile[d];
      sizes[d] = std::min(tile[d], shape[d] - offsets[d]);
    }
    visit(offsets, sizes);
    std::size_t d = rank;
    while (d > 0) {
      --d;
      if ((index[d] + 1) * tile[d] < shape[d]) {
        ++index[d];
        break;
      }
      index[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

struct TileOpLimitReached {};

class Expander {
public:
  Expander(Compilation& compilation, DiagnosticEngine& diags)
      : m_compilation(compilation), m_tiles(compilation.tiles), m_graph(compilation.tiles.graph), m_diags(diags),
        m_tileOpLimit(limitValue(kTileOpLimit)) {}

  bool run() {
    if (!concretiseShapes()) return false;
    if (!inferValidParts()) return false;
    std::size_t opCount = m_graph.ops().size();  // matmul accumulators add tensors, not ops
    for (std::size_t i = 0; i < opCount; ++i) {
      const TensorOp& op = m_graph.op(static_cast<OpId>(i));
      try {
        if (!expand(op)) return false;
      } catch (const TileOpLimitReached&) {
        return m_diags.error(op.location)
               << "cutting the program into tiles makes " << limitExceeded(kTileOpLimit) << "; this " << name(op.kind)
               << " went over it: give it (or the ops before it) bigger tile shapes";
      }
    }
    assignTileValidParts();
    noteClampedTiles();
    warnUnusedTileSettings();
    return true;
  }

private:
  // A tensor that holds data only in part (a run-time valid_shape) is tiled whole and each tile carries
  // its own valid part; the few cases whose valid part no expression follows stop here, at the op, and the
  // kernel runs on the reference interpreter.
  bool inferValidParts() {
    m_valid = inferValidShapes(m_tiles);
    if (m_valid.ok()) return true;
    const TensorOp& op = m_graph.op(m_valid.unsupported);
    return m_diags.error(op.location) << name(op.kind) << " here " << m_valid.reason
                                      << "; the compiler cannot tile this valid part, so this kernel runs on the "
                                         "reference interpreter, which computes on valid parts";
  }

  // Each tile region of a partly valid tensor gets the part of it that holds data (TileRegion::valid); a
  // move's destination holds what its source tile does.
  void assignTileValidParts() {
    auto tileValid = [&](const TileRegion& region) {
      const SymbolicShape* tensorValid = m_valid.partial(region.tensor);
      if (!tensorValid || tensorValid->size() != region.shape.size()) return SymbolicShape{};
      // Kernels have many tiles and long valid expressions: build clamp(V - offset, 0, size) without
      // simplifying, but for the common tile that spans its dim (the tensor's own size).
      const Dims& dims = shapeOf(region.tensor);
      SymbolicShape valid;
      bool whole = true;
      for (std::size_t d = 0; d < region.shape.size(); ++d) {
        const SymbolicScalar& size = (*tensorValid)[d];
        const std::optional<std::int64_t> offset = region.offsets[d].constantValue();
        if (offset == 0 && region.shape[d] == dims[d]) valid.push_back(size);
        else if (auto constant = size.constantValue()) valid.push_back(clampedValid(*constant - region.offsets[d], region.shape[d]));
        else valid.push_back(min(max(size - region.offsets[d], SymbolicScalar(0)), SymbolicScalar(region.shape[d])));
        whole = whole && valid.back().constantValue() == region.shape[d];
      }
      return whole ? SymbolicShape{} : valid;
    };
    for (std::size_t i = 0; i < m_tiles.tileOps().size(); ++i) {
      TileOp& op = m_tiles.tileOp(static_cast<TileOpId>(i));
      for (TileRegion& region : op.inputs) region.valid = tileValid(region);
      const bool move = op.kind == TensorOpKind::Assemble || op.kind == TensorOpKind::Copy;
      for (TileRegion& region : op.outputs)
        region.valid = move && op.inputs.size() == 1 && op.inputs[0].shape == region.shape ? op.inputs[0].valid
                                                                                           : tileValid(region);
    }
  }

  // Every tensor shape under the dynamic-dim bindings; a shape that still
  // depends on a loop index cannot be tiled at compile time.
  bool concretiseShapes() {
    for (const TensorValue& tensor : m_graph.tensors()) {
      Dims dims;
      for (const SymbolicScalar& dim : tensor.shape) {
        SymbolicEvaluation value = dim.evaluate(m_compilation.settings.bindings);
        if (!value.ok())
          return m_diags.error(tensor.location)
                 << "the shape " << shapeString(tensor.shape)
                 << (tensor.role == TensorRole::Argument ? " of argument '" + tensor.name + "'" : std::string(" made here"))
                 << " is not known at compile time (" << value.error
                 << "); shapes may depend on dynamic dims, which each run binds, but not on loop indices";
        dims.push_back(*value.value);
      }
      m_tiles.setShape(tensor.id, std::move(dims));
    }
    return true;
  }

  const Dims& shapeOf(TensorId id) const { return m_tiles.shapeOf(id); }

  TileRegion region(TensorId tensor, SymbolicShape offsets, Dims sizes) const {
    return TileRegion{tensor, std::move(offsets), std::move(sizes), {}};
  }
  TileRegion whole(TensorId tensor) const {
    return region(tensor, constants(Dims(shapeOf(tensor).size(), 0)), shapeOf(tensor));
  }

  // The project's tile setting for this op in `section`, if any: its call
  // site ("kernel.py:12"), then its label (tileShapeSource decides).
  const nlohmann::ordered_json* projectTile(TileSection section, const TensorOp& op, std::string* keyUsed = nullptr) const {
    TileShapeSource source = tileShapeSource(m_compilation.settings.tileSettings, section, op);
    if (source.origin != TileShapeOrigin::CallSite && source.origin != TileShapeOrigin::Label) return nullptr;
    if (keyUsed) *keyUsed = source.key;
    return &m_compilation.settings.tileSettings[std::string(name(section))][source.key];
  }
  const nlohmann::ordered_json* projectVecDefault() const {
    const auto& settings = m_compilation.settings.tileSettings;
    if (!settings.is_object() || !settings.contains("vec") || !settings["vec"].contains("DEFAULT")) return nullptr;
    return &settings["vec"]["DEFAULT"];
  }

  // The vec tile for `op`'s work on a tensor of shape `tiled`. A copy
  // (`dataMovement`) moves whole 32-byte blocks, so an innermost dim short of
  // a block is rounded up to one instead of being an error: `out[:] =
  // cast(x, fp16)` under a tile of 8 stores fp16 rows of 16 elements, as
  // PyPTO's output write does.
  std::optional<Dims> vecTile(const TensorOp& op, const Dims& tiled, bool dataMovement = false,
                              bool wholeTrailingDims = false) {
    const std::size_t rank = tiled.size();
    Dims tile;
    std::string origin;
    std::string projectKey;
    // A project's value is read here, once per op it cuts: the same form the panel and `pto settings` read.
    auto projectShape = [&](const nlohmann::ordered_json& setting) -> std::optional<Dims> {
      std::string error;
      if (auto shape = TileShape::fromJson(TileSection::Vec, setting, error)) return std::move(shape->vec);
      return m_diags.error(m_compilation.settings.locationOf(projectKey)) << projectKey << ": " << error;
    };
    if (const auto* setting = projectTile(TileSection::Vec, op, &projectKey)) {
      projectKey = "tile_settings.vec." + projectKey;
      auto shape = projectShape(*setting);
      if (!shape) return std::nullopt;
      tile = std::move(*shape);
      origin = projectKey + " in " + m_compilation.settings.projectFile;
    } else if (!op.tiles.vec.empty()) {
      tile = op.tiles.vec;
      origin = "set_vec_tile_shapes";
    } else if (const auto* fallback = projectVecDefault()) {
      projectKey = "tile_settings.vec.DEFAULT";
      auto shape = projectShape(*fallback);
      if (!shape) return std::nullopt;
      tile = std::move(*shape);
      origin = projectKey + " in " + m_compilation.settings.projectFile;
    } else {
      return m_diags.error(op.location) << name(op.kind) << " runs on the vector unit but no tile shape is set; call "
                                        << "pypto.set_vec_tile_shapes(...) before it, or set tile_settings.vec.DEFAULT "
                                        << "in the project";
    }
    // A longer tile applies its leading dims to a lower-rank op: axis i takes
    // tile dim i, as PyPTO's tiling does (its vector ops index the tile by
    // axis). The alignment rule stays on the tile as set (its innermost dim),
    // also as in PyPTO, so it is checked before the cut.
    const Dims asSet = tile;
    if (tile.size() > rank) tile.resize(rank);
    // A reshape may take a tile set for its lower-rank input: the dims the
    // tile does not reach stay whole.
    if (wholeTrailingDims)
      while (tile.size() < rank) tile.push_back(tiled[tile.size()]);
    if (tile.size() != rank)
      return m_diags.error(op.location) << name(op.kind) << " works on rank-" << rank << " tensors but " << origin
                                        << " gives the tile " << dimsString(tile) << " with " << tile.size()
                                        << (tile.size() == 1 ? " dim" : " dims") << "; give one per tensor dim";
    for (std::int64_t dim : tile)
      if (dim <= 0) return m_diags.error(op.location) << origin << " " << dimsString(tile) << " has a non-positive dim";
    // A rank-0 op (a full reduction's scalar result) has one element: nothing to align.
    if (tile.empty()) return tile;
    // The kernel's own settings were checked when traced; the project's are checked here.
    DataType operand = op.inputs.empty() ? m_graph.tensor(op.outputs[0]).dtype : m_graph.tensor(op.inputs[0]).dtype;
    // A row that is no whole number of 32-byte blocks is padded in the unified buffer (tileBytes counts the
    // padding), as PyPTO pads it; a copy moves whole blocks, so its tile is widened to them.
    if (dataMovement && !vecTilePaddingNote(asSet, operand).empty()) {
      const std::int64_t perBlock = std::max<std::int64_t>(1, 32 / static_cast<std::int64_t>(sizeOf(operand)));
      tile.back() = (tile.back() + perBlock - 1) / perBlock * perBlock;
    }
    // The tile as set, not as rounded up for a copy: the note speaks of the user's value.
    recordCut(TileSection::Vec, projectKey, op, asSet, tiled);
    return tile;
  }

  // `projectKey` becomes "tile_settings.cube.<key>" when the project sets the tile.
  std::optional<CubeTileShape> cubeTile(const TensorOp& op, std::string& projectKey) {
    std::string key;
    if (const auto* setting = projectTile(TileSection::Cube, op, &key)) {
      std::string error;
      projectKey = "tile_settings.cube." + key;
      if (auto shape = cubeTileShapeFromSetting(*setting, error)) return shape;
      return m_diags.error(op.location) << projectKey << " in " << m_compilation.settings.projectFile << ": " << error;
    }
    if (op.tiles.cube) return op.tiles.cube;
    return m_diags.error(op.location) << "matmul needs a cube tile shape; call pypto.set_cube_tile_shapes(...) before it";
  }

  // ---- clamping notes ----
  // One place a tile is set (a set_*_tile_shapes call or a tile_settings
  // entry, with its value) and the ops it cut.
  struct TileSetting {
    TileSection section;
    std::string projectKey;  // "tile_settings.vec.DEFAULT"; empty for the kernel's own call
    SourceLocation call;     // the kernel's set_*_tile_shapes call
    SourceLocation firstOp;
    Dims tile;
    std::vector<TileCut> cuts;
  };

  void recordCut(TileSection section, const std::string& projectKey, const TensorOp& op, const Dims& tile, Dims extents) {
    const SourceLocation& call = section == TileSection::Vec ? op.tiles.vecSite : op.tiles.cubeSite;
    auto key = std::make_tuple(section, projectKey, projectKey.empty() ? call.str() : std::string(), tile);
    auto [found, inserted] = m_settingIndex.try_emplace(std::move(key), m_settingsUsed.size());
    if (inserted) m_settingsUsed.push_back(TileSetting{section, projectKey, call, op.location, tile, {}});
    m_settingsUsed[found->second].cuts.push_back(TileCut{opWhere(op), std::move(extents)});
  }

  // A note per tile setting that is larger than all it cut, where the user sets it.
  // A tile setting whose key names no call site or label of the kernel (a
  // line that moved, a typo) would be ignored without a word, and the run
  // would not show the change its author expects.
  void warnUnusedTileSettings() {
    const nlohmann::ordered_json& settings = m_compilation.settings.tileSettings;
    if (!settings.is_object()) return;
    for (TileSection tileSection : {TileSection::Vec, TileSection::Cube}) {
      const std::string section(name(tileSection));
      const bool cube = tileSection == TileSection::Cube;
      auto entries = settings.find(section);
      if (entries == settings.end() || !entries->is_object()) continue;
      std::set<std::string> used;
      for (const TensorOp& op : m_graph.ops()) {
        if (op.kind == TensorOpKind::View || cube != (op.kind == TensorOpKind::Matmul)) continue;
        TileShapeSource source = tileShapeSource(settings, tileSection, op);
        if (source.origin == TileShapeOrigin::CallSite || source.origin == TileShapeOrigin::Label) used.insert(source.key);
      }
      for (const auto& [key, value] : entries->items()) {
        if (used.count(key) || (!cube && key == "DEFAULT")) continue;
        const std::string path = "tile_settings." + section + "." + key;
        DiagnosticBuilder warning = m_diags.warning(m_compilation.settings.locationOf(path));
        warning << path << ": ";
        if (cube && key == "DEFAULT")
          warning << "cube tiles take no DEFAULT (a matmul's tile is the kernel's set_cube_tile_shapes or an entry "
                     "for its call site or label); the entry is ignored";
        else if (key.find(".py:") != std::string::npos)
          warning << "governs no " << (cube ? "matmul" : "op") << ": no set_" << section
                  << "_tile_shapes call of the kernel is at " << key
                  << " (`pto settings` lists the keys in use); the entry is ignored";
        else
          warning << "governs no " << (cube ? "matmul" : "op") << ": no " << (cube ? "matmul" : "op")
                  << " has the label '" << key << "' (`pto settings` lists the keys in use); the entry is ignored";
      }
    }
  }

  void noteClampedTiles() {
    for (const TileSetting& setting : m_settingsUsed) {
      std::string text = tileClampNote(setting.section, setting.tile, setting.cuts);
      if (text.empty()) continue;
      if (setting.projectKey.empty()) {
        m_diags.note(setting.call.known() ? setting.call : setting.firstOp) << text;
        continue;
      }
      const auto& locations = m_compilation.settings.settingLocations;
      if (auto found = locations.find(setting.projectKey); found != locations.end())
        m_diags.note(found->second) << setting.projectKey << ": " << text;
      else
        m_diags.note(setting.firstOp) << setting.projectKey << " in " << m_compilation.settings.projectFile << ": "
                                      << text;
    }
  }

  TileOp tileOp(const TensorOp& op) const {
    TileOp tile;
    tile.tensorOp = op.id;
    tile.kind = op.kind;
    tile.attrs = op.attrs;
    return tile;
  }

  // A tile of `op` that moves one box of `input` to one box of `output`
  // (permutes, concats, reshapes, bitcasts), the buffer holding `tile`.
  TileOp boxTile(const TensorOp& op, TensorId input, const Dims& inOffsets, const Dims& inSizes, TensorId output,
                 const Dims& outOffsets, const Dims& outSizes, const Dims& tile) const {
    TileOp t = tileOp(op);
    t.inputs.push_back(region(input, constants(inOffsets), inSizes));
    t.outputs.push_back(region(output, constants(outOffsets), outSizes));
    t.tileShape = tile;
    return t;
  }

  bool expand(const TensorOp& op) {
    if (TensorGraph::isInPlaceReshape(op)) {
      bool asCopy = false;
      if (!inPlaceReshape(op, asCopy)) return false;
      if (!asCopy) {
        m_tiles.setTilesOf(op.id, {});
        return true;
      }
    }
    std::vector<TileOpId> ids;
    // Every tile op comes through here, so this is where a runaway expansion
    // stops: the throw leaves the tile loops at once.
    auto emit = [&](TileOp tile) {
      if (static_cast<std::int64_t>(m_tiles.tileOps().size()) >= m_tileOpLimit) throw TileOpLimitReached{};
      ids.push_back(m_tiles.addTileOp(std::move(tile)));
    };
    bool ok = true;
    switch (category(op.kind)) {
    case OpCategory::Unary:
    case OpCategory::Binary:
    case OpCategory::BinaryScalar:
    case OpCategory::Compare:
    case OpCategory::CompareScalar:
    case OpCategory::Select:
    case OpCategory::Quantize:
      ok = expandElementwise(op, emit);
      break;
    case OpCategory::Reduce:
      ok = expandReduction(op, emit);
      break;
    case OpCategory::Matmul:
      ok = expandMatmul(op, emit);
      break;
    case OpCategory::Memory:
      ok = op.kind == TensorOpKind::View ? expandView(op, emit) : expandMove(op, emit);
      break;
    case OpCategory::Creation:
      ok = expandCreation(op, emit);
      break;
    case OpCategory::Layout:
      // Transposes, concats, reshapes and bitcasts are cut by the vec tile in
      // force, as PyPTO cuts them (an attention kernel transposes whole K
      // blocks, a prolog views a projection as heads); without one, one tile
      // covers the whole tensor.
      if ((op.kind == TensorOpKind::Transpose || op.kind == TensorOpKind::Permute) && hasVecTile(op)) {
        ok = expandPermutation(op, emit);
        break;
      }
      if (op.kind == TensorOpKind::Concat && hasVecTile(op)) {
        ok = expandConcat(op, emit);
        break;
      }
      if (op.kind == TensorOpKind::Bitcast && hasVecTile(op)) {
        ok = expandBitcast(op, emit);
        break;
      }
      if ((op.kind == TensorOpKind::Reshape || op.kind == TensorOpKind::Unsqueeze) && hasVecTile(op) &&
          !shapeOf(op.outputs[0]).empty()) {
        ok = expandReshape(op, emit);
        break;
      }
      [[fallthrough]];
    case OpCategory::Indexing:
      if (op.kind == TensorOpKind::IndexSelect && hasVecTile(op)) ok = expandIndexSelect(op, emit);
      else if (scattersRows(op) && hasVecTile(op)) ok = expandScatterRows(op, emit);
      else if ((op.kind == TensorOpKind::Scatter || op.kind == TensorOpKind::ScatterUpdate) && hasVecTile(op) &&
               scatterColumnsFit(op))
        ok = expandScatterAlongOtherDims(op, emit);
      else ok = expandWhole(op, emit);
      break;
    case OpCategory::Sort:
      if (op.kind == TensorOpKind::TopK && hasVecTile(op)) ok = expandTopK(op, emit);
      else if (op.kind == TensorOpKind::ArgSort && hasVecTile(op)) ok = expandSortedRows(op, emit);
      else ok = expandWhole(op, emit);
      break;
    }
    m_tiles.setTilesOf(op.id, std::move(ids));
    return ok;
  }

  // Inputs broadcast into the output tile like numpy: trailing dims align,
  // and a dim of 1 stays at offset 0 with size 1.
  // Whether a dim broadcasts depends on the whole output's extent, not on
  // this tile's: a one-wide tail tile of a [4, 24] result still broadcasts
  // a [1, 24] operand.
  TileRegion broadcastRegion(TensorId input, const Dims& outShape, const Dims& outOffsets, const Dims& outSizes) const {
    const Dims& shape = shapeOf(input);
    std::size_t lead = outOffsets.size() - shape.size();
    Dims offsets(shape.size()), sizes(shape.size());
    for (std::size_t d = 0; d < shape.size(); ++d) {
      bool broadcast = shape[d] == 1 && outShape[d + lead] != 1;
      offsets[d] = broadcast ? 0 : outOffsets[d + lead];
      sizes[d] = broadcast ? 1 : outSizes[d + lead];
    }
    return region(input, constants(offsets), sizes);
  }

  bool expandElementwise(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TensorId output = op.outputs[0];
    const Dims& shape = shapeOf(output);
    auto tile = vecTile(op, shape);
    if (!tile) return false;
    // A scan needs its whole dim in one tile, as PyPTO requires of cumsum's view.
    const bool scan = op.kind == TensorOpKind::Cumsum || op.kind == TensorOpKind::Cumprod;
    if (scan) {
      const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
      (*tile)[dim] = shape[dim];
    }
    const bool triangle = op.kind == TensorOpKind::Tril || op.kind == TensorOpKind::Triu;
    forEachTile(shape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      for (TensorId input : op.inputs) t.inputs.push_back(broadcastRegion(input, shape, offsets, sizes));
      if (triangle) {
        // Element (i, j) of the tile is (row + i, column + j) of the matrix: j - i is compared with the
        // diagonal moved by row - column.
        const std::size_t rank = offsets.size();
        const std::int64_t shift = offsets[rank - 2] - offsets[rank - 1];
        if (const auto* symbolic = op.attr<SymbolicScalar>("diagonal"))
          t.attrs["diagonal"] = simplify(*symbolic + shift);  // known when the task runs (a loop index, a dim)
        else
          t.attrs["diagonal"] = *op.attr<std::int64_t>("diagonal") + shift;
      }
      // An expand_clone tile broadcasts its input to its own part of the target.
      if (op.kind == TensorOpKind::ExpandClone) t.attrs["shape"] = constants(sizes);
      t.outputs.push_back(region(output, constants(offsets), sizes));
      t.tileShape = *tile;
      emit(std::move(t));
    });
    return true;
  }

  bool expandReduction(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TensorId input = op.inputs[0], output = op.outputs[0];
    // Copies: adding an accumulator may move the shape table.
    const Dims inShape = shapeOf(input);
    auto tile = vecTile(op, inShape);
    if (!tile) return false;
    Dims dims = *op.attr<Dims>("dims");
    bool keepdim = *op.attr<bool>("keepdim");
    auto reduced = [&](std::size_t d) { return std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d)) != dims.end(); };
    bool isArg = op.kind == TensorOpKind::Argmax || op.kind == TensorOpKind::Argmin;
    // Arg reductions cannot combine partial results without their values: keep the axis whole.
    if (isArg)
      for (std::size_t d = 0; d < inShape.size(); ++d)
        if (reduced(d)) (*tile)[d] = inShape[d];
    TileAccumulate combine = op.kind == TensorOpKind::Sum    ? TileAccumulate::Add
                             : op.kind == TensorOpKind::Amax ? TileAccumulate::Max
                             : op.kind == TensorOpKind::Amin ? TileAccumulate::Min
                                                             : TileAccumulate::Mul;
    // Partial sums and products of fp16/bf16 data accumulate in fp32, as a
    // whole-axis reduction does, and are rounded once at the end.
    bool partial = false;
    for (std::size_t d = 0; d < inShape.size(); ++d) partial = partial || (reduced(d) && (*tile)[d] < inShape[d]);
    DataType outType = m_graph.tensor(output).dtype;
    bool widen = partial && (combine == TileAccumulate::Add || combine == TileAccumulate::Mul) &&
                 (outType == DataType::Fp16 || outType == DataType::Bf16);
    TensorId target = widen ? addAccumulator(op, output, DataType::Fp32) : output;
    forEachTile(inShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      t.inputs.push_back(region(input, constants(offsets), sizes));
      Dims outOffsets, outSizes;
      bool firstAlongReduced = true;
      for (std::size_t d = 0; d < inShape.size(); ++d) {
        if (!reduced(d)) {
          outOffsets.push_back(offsets[d]);
          outSizes.push_back(sizes[d]);
          continue;
        }
        if (offsets[d] != 0) firstAlongReduced = false;
        if (keepdim) {
          outOffsets.push_back(0);
          outSizes.push_back(1);
        }
      }
      t.outputs.push_back(region(target, constants(outOffsets), outSizes));
      t.accumulate = firstAlongReduced ? TileAccumulate::None : combine;
      t.tileShape = *tile;
      emit(std::move(t));
    });
    if (widen) emitConversions(op, target, output, emit);
    return true;
  }

  // An fp32 (or int32) twin of `output` that partial results accumulate in.
  TensorId addAccumulator(const TensorOp& op, TensorId output, DataType dtype) {
    const TensorValue& value = m_graph.tensor(output);
    return addTemporary(op, value.name + "_acc", dtype, value.shape, shapeOf(output));
  }

  // A tensor the tiling of `op` adds (an accumulator, a top-k level's
  // candidate lists), made by `op`.
  TensorId addTemporary(const TensorOp& op, std::string name, DataType dtype, SymbolicShape shape, Dims concrete) {
    TensorValue temporary;
    temporary.name = std::move(name);
    temporary.dtype = dtype;
    temporary.shape = std::move(shape);
    temporary.role = TensorRole::Temporary;
    temporary.producer = op.id;
    temporary.location = op.location;
    TensorId id = m_graph.addTensor(std::move(temporary));
    m_tiles.setShape(id, std::move(concrete));
    return id;
  }

  // Rounds an accumulator into its output, one vector tile at a time.
  void emitConversions(const TensorOp& op, TensorId accumulator, TensorId output, const std::function<void(TileOp)>& emit) {
    const Dims& shape = shapeOf(output);
    Dims tile = shape;
    if (!op.tiles.vec.empty() && op.tiles.vec.size() == shape.size()) tile = op.tiles.vec;
    forEachTile(shape, tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp convert;
      convert.tensorOp = op.id;
      convert.kind = TensorOpKind::Cast;
      convert.attrs["dtype"] = m_graph.tensor(output).dtype;
      convert.attrs["mode"] = std::string("rint");
      convert.inputs.push_back(region(accumulator, constants(offsets), sizes));
      convert.outputs.push_back(region(output, constants(offsets), sizes));
      convert.tileShape = tile;
      emit(std::move(convert));
    });
  }

  bool expandMatmul(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    std::string projectKey;
    auto cube = cubeTile(op, projectKey);
    if (!cube) return false;
    TensorId a = op.inputs[0], b = op.inputs[1], output = op.outputs[0];
    bool aTrans = *op.attr<bool>("a_trans"), bTrans = *op.attr<bool>("b_trans");
    const Dims aShape = shapeOf(a);
    const Dims outShape = shapeOf(output);
    std::size_t rank = outShape.size();
    std::int64_t m = outShape[rank - 2], n = outShape[rank - 1];
    std::int64_t k = aTrans ? aShape[aShape.size() - 2] : aShape[aShape.size() - 1];
    DataType outType = m_graph.tensor(output).dtype;
    DataType accType = m_graph.tensor(a).dtype == DataType::Int8 ? DataType::Int32 : DataType::Fp32;
    recordCut(TileSection::Cube, projectKey, op, {cube->mL0, cube->kL0, cube->nL0}, {m, k, n});

    // k-steps accumulate in L0C at full precision; a narrower output gets
    // one conversion per block at the end, as the fixpipe does.
    TensorId accumulator = outType != accType ? addAccumulator(op, output, accType) : output;
    Dims batchShape(outShape.begin(), outShape.end() - 2);
    forEachTile(batchShape, Dims(batchShape.size(), 1), [&](const Dims& batch, const Dims&) {
      for (std::int64_t m0 = 0; m0 < m; m0 += cube->mL0) {
        std::int64_t ms = std::min(cube->mL0, m - m0);
        for (std::int64_t n0 = 0; n0 < n; n0 += cube->nL0) {
          std::int64_t ns = std::min(cube->nL0, n - n0);
          for (std::int64_t k0 = 0; k0 < k; k0 += cube->kL0) {
            std::int64_t ks = std::min(cube->kL0, k - k0);
            TileOp t = tileOp(op);
            t.attrs["out_dtype"] = accType;
            t.inputs.push_back(matrixRegion(a, batch, aTrans ? k0 : m0, aTrans ? ks : ms, aTrans ? m0 : k0,
                                            aTrans ? ms : ks));
            t.inputs.push_back(matrixRegion(b, batch, bTrans ? n0 : k0, bTrans ? ns : ks, bTrans ? k0 : n0,
                                            bTrans ? ks : ns));
            t.outputs.push_back(matrixRegion(accumulator, batch, m0, ms, n0, ns));
            t.accumulate = k0 == 0 ? TileAccumulate::None : TileAccumulate::Add;
            t.tileShape = {cube->mL0, cube->kL0, cube->nL0};
            emit(std::move(t));
          }
          if (accumulator != output) {
            TileOp convert;
            convert.tensorOp = op.id;
            convert.kind = TensorOpKind::Cast;
            convert.attrs["dtype"] = outType;
            convert.attrs["mode"] = std::string("rint");
            convert.inputs.push_back(matrixRegion(accumulator, batch, m0, ms, n0, ns));
            convert.outputs.push_back(matrixRegion(output, batch, m0, ms, n0, ns));
            convert.tileShape = {cube->mL0, cube->nL0};
            emit(std::move(convert));
          }
        }
      }
    });
    return true;
  }

  // A 2-D block of a (possibly batched) matrix operand; batch dims broadcast.
  TileRegion matrixRegion(TensorId tensor, const Dims& batch, std::int64_t row, std::int64_t rows, std::int64_t col,
                          std::int64_t cols) const {
    const Dims& shape = shapeOf(tensor);
    std::size_t lead = shape.size() - 2;
    Dims offsets, sizes;
    for (std::size_t d = 0; d < lead; ++d) {
      std::size_t fromBatch = batch.size() - lead + d;
      offsets.push_back(shape[d] == 1 ? 0 : batch[fromBatch]);
      sizes.push_back(1);
    }
    offsets.push_back(row);
    offsets.push_back(col);
    sizes.push_back(rows);
    sizes.push_back(cols);
    return region(tensor, constants(offsets), sizes);
  }

  bool expandView(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TileOp t = tileOp(op);
    t.inputs.push_back(region(op.inputs[0], *op.attr<SymbolicShape>("offsets"), shapeOf(op.outputs[0])));
    t.outputs.push_back(whole(op.outputs[0]));
    emit(std::move(t));
    return true;
  }

  // Assemble and copy: the source, tile by tile, into the output region.
  bool expandMove(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TensorId source = op.inputs[0], target = op.outputs[0];
    const Dims& shape = shapeOf(source);
    Dims tile = shape;
    if (!op.tiles.vec.empty() || projectTile(TileSection::Vec, op) || projectVecDefault()) {
      auto configured = vecTile(op, shape, /*dataMovement=*/true);
      if (!configured) return false;
      tile = *configured;
    }
    SymbolicShape base = op.kind == TensorOpKind::Assemble ? *op.attr<SymbolicShape>("offsets")
                                                           : constants(Dims(shape.size(), 0));
    forEachTile(shape, tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      t.kind = TensorOpKind::Copy;
      t.attrs.clear();
      t.inputs.push_back(region(source, constants(offsets), sizes));
      SymbolicShape targetOffsets;
      for (std::size_t d = 0; d < offsets.size(); ++d) targetOffsets.push_back(simplify(base[d] + offsets[d]));
      t.outputs.push_back(region(target, targetOffsets, sizes));
      t.tileShape = tile;
      emit(std::move(t));
    });
    return true;
  }

  bool expandCreation(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TensorId output = op.outputs[0];
    const Dims& shape = shapeOf(output);
    Dims tile = shape;
    if (!op.tiles.vec.empty()) {
      auto configured = vecTile(op, shape);
      if (!configured) return false;
      tile = *configured;
    }
    forEachTile(shape, tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      if (op.kind == TensorOpKind::Arange) {
        t.attrs["start"] = *op.attr<double>("start") + static_cast<double>(offsets[0]) * *op.attr<double>("step");
        t.attrs["size"] = sizes[0];
      } else {
        t.attrs["shape"] = constants(sizes);
      }
      t.outputs.push_back(region(output, constants(offsets), sizes));
      t.tileShape = tile;
      emit(std::move(t));
    });
    return true;
  }

  // The rank of the vec tile in force for `op` as set (0 when none is).
  std::size_t vecTileRankAsSet(const TensorOp& op) const {
    if (const auto* setting = projectTile(TileSection::Vec, op)) return setting->size();
    if (!op.tiles.vec.empty()) return op.tiles.vec.size();
    if (const auto* fallback = projectVecDefault()) return fallback->size();
    return 0;
  }

  bool hasVecTile(const TensorOp& op) const {
    return projectTile(TileSection::Vec, op) != nullptr || !op.tiles.vec.empty() || projectVecDefault() != nullptr;
  }

  // Output dim i of a transpose/permute is input dim permutation[i]; each
  // output tile reads the input region with its offsets and sizes permuted
  // back.
  bool expandPermutation(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TensorId input = op.inputs[0], output = op.outputs[0];
    const Dims outShape = shapeOf(output);
    const std::size_t rank = outShape.size();
    Dims permutation(rank);
    std::iota(permutation.begin(), permutation.end(), std::int64_t{0});
    const Dims* dimsAttr = op.attr<Dims>("dims");
    const Dims dims = dimsAttr ? *dimsAttr : Dims{};
    if (op.kind == TensorOpKind::Transpose && dims.size() == 2)
      std::swap(permutation[static_cast<std::size_t>(dims[0])], permutation[static_cast<std::size_t>(dims[1])]);
    else if (op.kind == TensorOpKind::Permute && dims.size() == rank)
      permutation = dims;
    else
      return expandWhole(op, emit);  // malformed attrs: the reference interpreter reports them
    auto tile = vecTile(op, outShape);
    if (!tile) return false;
    forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      Dims inOffsets(rank), inSizes(rank);
      for (std::size_t i = 0; i < rank; ++i) {
        inOffsets[static_cast<std::size_t>(permutation[i])] = offsets[i];
        inSizes[static_cast<std::size_t>(permutation[i])] = sizes[i];
      }
      emit(boxTile(op, input, inOffsets, inSizes, output, offsets, sizes, *tile));
    });
    return true;
  }

  // reshape(x, ..., inplace=True) of a kernel argument moves nothing: its
  // result is the argument's bytes (TensorValue::reshapeOf), in the
  // simulators as in the reference interpreter, so an output can be written
  // through it. Dependencies are found per tensor, so a kernel that writes
  // those bytes must reach them through one name only: the argument or its
  // reshaped alias. Of a computed tensor (or a part of one), an in-place
  // reshape that is only read is the same as a copy, and is expanded as one
  // (`asCopy`); writing through it is refused.
  bool inPlaceReshape(const TensorOp& op, bool& asCopy) {
    asCopy = false;
    const TensorId source = op.inputs[0], result = op.outputs[0];
    const TensorValue& sourceValue = m_graph.tensor(source);
    const TensorId root = sourceValue.reshapeOf != kNoId ? sourceValue.reshapeOf : source;
    const TensorValue& rootValue = m_graph.tensor(root);
    const TensorOp* direct = nullptr;
    const TensorOp* throughAlias = nullptr;
    const TensorOp* writer = nullptr;  // of the bytes, under either name
    const TensorOp* aliasWriter = nullptr;
    for (const TensorOp& other : m_graph.ops()) {
      if (other.id == op.id || other.kind == TensorOpKind::View || TensorGraph::isInPlaceReshape(other)) continue;
      // Such a gather reads the argument itself (gatherSource), so it is ordered against its writers.
      if (gathersRowsOfAlias(other, result, root)) continue;
      bool usesRoot = false, usesAlias = false;
      for (TensorId t : other.inputs) {
        usesRoot = usesRoot || m_graph.storageOf(t) == root;
        usesAlias = usesAlias || m_graph.storageOf(t) == result;
      }
      for (TensorId t : other.outputs) {
        const TensorId storage = m_graph.storageOf(t);
        if ((storage == root || storage == result) && !writer) writer = &other;
        if (storage == result && !aliasWriter) aliasWriter = &other;
        usesRoot = usesRoot || storage == root;
        usesAlias = usesAlias || storage == result;
      }
      if (usesRoot && !direct) direct = &other;
      if (usesAlias && !throughAlias) throughAlias = &other;
    }
    if (sourceValue.role == TensorRole::View || rootValue.role != TensorRole::Argument) {
      if (aliasWriter)
        return m_diags.error(op.location)
               << "reshape(inplace=True) of '" << sourceValue.name << "', "
               << (sourceValue.role == TensorRole::View ? "a part of a tensor" : "a computed tensor")
               << ", written through the reshape (" << opWhere(*aliasWriter)
               << "): not supported yet (only a kernel argument is aliased); write the result where it is used, or "
                  "reshape an argument in place";
      asCopy = true;  // read only: a copy reads the same values
      return true;
    }
    // Reading the bytes under both names is harmless; a write under either
    // name would not be ordered against an access under the other.
    if (writer && direct && throughAlias)
      return m_diags.error(op.location)
             << "reshape(inplace=True): the kernel reaches the bytes of '" << rootValue.name << "' both directly ("
             << opWhere(*direct) << ") and through this reshape (" << opWhere(*throughAlias)
             << ") and writes them; PTO Studio orders tasks by the tensor they name, so use one of the two names "
                "throughout";
    m_graph.tensor(result).reshapeOf = root;
    return true;
  }

  // A concat cut by the vec tile: each output tile is copied from the
  // inputs it overlaps along the concat dim, one copy per input piece, so no
  // tile holds a whole input (PyPTO's RoPE concatenates [t, heads, 64]
  // halves of a projection).
  bool expandConcat(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const TensorId output = op.outputs[0];
    const Dims outShape = shapeOf(output);
    const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
    auto tile = vecTile(op, outShape, /*dataMovement=*/true, /*wholeTrailingDims=*/true);
    if (!tile) return false;
    forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      std::int64_t start = 0;  // of the current input along dim
      for (TensorId input : op.inputs) {
        const std::int64_t extent = shapeOf(input)[dim];
        const std::int64_t from = std::max(offsets[dim], start);
        const std::int64_t to = std::min(offsets[dim] + sizes[dim], start + extent);
        if (from < to) {
          Dims inOffsets = offsets, pieceSizes = sizes, outOffsets = offsets;
          inOffsets[dim] = from - start;
          outOffsets[dim] = from;
          pieceSizes[dim] = to - from;
          TileOp t = boxTile(op, input, inOffsets, pieceSizes, output, outOffsets, pieceSizes, *tile);
          t.kind = TensorOpKind::Copy;
          t.attrs.clear();
          emit(std::move(t));
        }
        start += extent;
      }
    });
    return true;
  }

  // A reshape cut into tiles, each copying a box of the input to a box of the
  // output, so that a reshape of a computed tensor (a [t, 8192] projection
  // seen as [t, 64, 128] heads) is not one whole-tensor tile in the unified
  // buffer. The dims fall into groups whose extents multiply to the same
  // number on both sides ([t | 8192] -> [t | 64, 128]); within a group C
  // order is kept when a tile cuts only the group's first dim on each side,
  // so the vec tile in force is widened to whole extents in a group's other
  // output dims (its first dim shrunk to keep the tile's element count), and
  // its first dim is rounded up so that the flattened chunk is a whole number
  // of the input group's inner rows. A tile with fewer dims
  // than the output (set for the reshape's input, as PyPTO's prologs do)
  // leaves the output's trailing dims whole.
  bool expandReshape(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const TensorId input = op.inputs[0], output = op.outputs[0];
    const Dims inShape = shapeOf(input), outShape = shapeOf(output);
    struct Group {
      std::size_t inBegin, inEnd, outBegin, outEnd;
    };
    std::vector<Group> groups;
    for (std::int64_t extent : inShape)
      if (extent <= 0) return expandWhole(op, emit);
    for (std::size_t i = 0, o = 0; i < inShape.size() || o < outShape.size();) {
      Group group{i, i, o, o};
      // A unit dim on one side only is a group of its own (it moves no element).
      if (i < inShape.size() && inShape[i] == 1 && (o == outShape.size() || outShape[o] != 1)) {
        group.inEnd = ++i;
      } else if (o < outShape.size() && outShape[o] == 1 && (i == inShape.size() || inShape[i] != 1)) {
        group.outEnd = ++o;
      } else {
        if (i == inShape.size() || o == outShape.size()) return expandWhole(op, emit);
        std::int64_t in = inShape[i++], out = outShape[o++];
        while (in != out) {
          if (in < out) {
            if (i == inShape.size()) return expandWhole(op, emit);
            in *= inShape[i++];
          } else {
            if (o == outShape.size()) return expandWhole(op, emit);
            out *= outShape[o++];
          }
        }
        group.inEnd = i;
        group.outEnd = o;
      }
      groups.push_back(group);
    }
    auto product = [](const Dims& shape, std::size_t begin, std::size_t end) {
      std::int64_t value = 1;
      for (std::size_t d = begin; d < end; ++d) value *= shape[d];
      return value;
    };
    // A tile with the input's rank (not the output's) was set for the input,
    // as PyPTO's indexer sets [128, 128] before viewing a [128, 16K] score
    // block as [2, 64, 16K]: it cuts the input, and each group's output tile
    // holds the same elements as the input tile's (the group's inner input
    // dims whole). Taken over the output it would leave 16K columns whole.
    std::optional<Dims> tile;
    if (vecTileRankAsSet(op) == inShape.size() && inShape.size() != outShape.size()) {
      auto inTile = vecTile(op, inShape, /*dataMovement=*/true);
      if (!inTile) return false;
      tile = Dims(outShape.size(), 1);
      for (const Group& group : groups) {
        if (group.outBegin == group.outEnd || group.inBegin == group.inEnd) continue;
        const std::int64_t elements =
            (*inTile)[group.inBegin] * product(inShape, group.inBegin + 1, group.inEnd);
        const std::int64_t innerOut = product(outShape, group.outBegin + 1, group.outEnd);
        (*tile)[group.outBegin] = std::max<std::int64_t>(1, (elements + innerOut - 1) / innerOut);
      }
    } else {
      tile = vecTile(op, outShape, /*dataMovement=*/true, /*wholeTrailingDims=*/true);
      // A group's inner output dims become whole; its first dim shrinks so the tile keeps about the elements
      // the vec tile gives the group (sparse attention sets [128, 128] to view [1024, 128] as [128, 1024]:
      // 16 rows of 1 024, not 128).
      if (tile)
        for (const Group& group : groups) {
          if (group.outBegin == group.outEnd || group.outEnd - group.outBegin < 2) continue;
          const std::int64_t elements = product(*tile, group.outBegin, group.outEnd);
          (*tile)[group.outBegin] =
              std::max<std::int64_t>(1, elements / product(outShape, group.outBegin + 1, group.outEnd));
        }
    }
    if (!tile) return false;
    for (const Group& group : groups) {
      if (group.outBegin == group.outEnd) continue;
      for (std::size_t d = group.outBegin + 1; d < group.outEnd; ++d) (*tile)[d] = outShape[d];
      const std::int64_t innerOut = product(outShape, group.outBegin + 1, group.outEnd);
      const std::int64_t innerIn = product(inShape, group.inBegin + 1, group.inEnd);
      const std::int64_t step = innerIn / std::gcd(innerOut, innerIn);  // first-dim counts that fill whole input rows
      std::int64_t& first = (*tile)[group.outBegin];
      first = std::min(outShape[group.outBegin], (first + step - 1) / step * step);
    }
    forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      Dims inOffsets(inShape.size(), 0), inSizes = inShape;
      for (const Group& group : groups) {
        if (group.inBegin == group.inEnd) continue;
        if (group.outBegin == group.outEnd) continue;  // unit input dims: offset 0, size 1
        const std::int64_t innerOut = product(outShape, group.outBegin + 1, group.outEnd);
        const std::int64_t innerIn = product(inShape, group.inBegin + 1, group.inEnd);
        inOffsets[group.inBegin] = offsets[group.outBegin] * innerOut / innerIn;
        inSizes[group.inBegin] = sizes[group.outBegin] * innerOut / innerIn;
      }
      TileOp t = boxTile(op, input, inOffsets, inSizes, output, offsets, sizes, *tile);
      t.attrs["shape"] = constants(sizes);
      emit(std::move(t));
    });
    return true;
  }

  // A bitcast cut by the vec tile over its input, as PyPTO cuts its
  // OP_VIEW_TYPE: each input tile's bytes become the output tile in the same
  // rows, its last-dim offset and size scaled by the ratio of the element
  // sizes. An input tile must then hold whole output elements, so its last
  // dim is rounded up to a multiple of the output element's size in input
  // elements (the input's last dim is one: shape inference checked it).
  bool expandBitcast(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const TensorId input = op.inputs[0], output = op.outputs[0];
    const Dims inShape = shapeOf(input);
    if (inShape.empty()) return expandWhole(op, emit);
    auto tile = vecTile(op, inShape, /*dataMovement=*/true);
    if (!tile) return false;
    const auto from = static_cast<std::int64_t>(sizeOf(m_graph.tensor(input).dtype));
    const auto to = static_cast<std::int64_t>(sizeOf(m_graph.tensor(output).dtype));
    const std::int64_t perOutput = to / std::gcd(from, to);  // input elements per whole output element
    std::int64_t& last = tile->back();
    last = std::min(inShape.back(), (last + perOutput - 1) / perOutput * perOutput);
    forEachTile(inShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      Dims outOffsets = offsets, outSizes = sizes;
      outOffsets.back() = offsets.back() * from / to;
      outSizes.back() = sizes.back() * from / to;
      emit(boxTile(op, input, offsets, sizes, output, outOffsets, outSizes, *tile));
    });
    return true;
  }

  // A top-k along a row longer than its tile runs as a selection tree, so no
  // tile holds more than a chunk of the row: each chunk of the row gives its
  // own top k (indices offset by the chunk's start), then groups of those
  // candidate lists are cut down to k again, carrying the row indices along as
  // a payload input, until one list remains, as a device merges sorted runs
  // in its unified buffer. A chunk is the vec tile's extent along the dim, at
  // least 2k so that every level at least halves the candidates. The other
  // dims are cut by the vec tile as elementwise ops are.
  //
  // The tree selects exactly what one whole-row top-k does, ties included:
  // candidate lists stay in row order and each is sorted with ties by lower
  // index, so a stable selection over them prefers the lower row index too.
  //
  // Tiles are emitted depth first (a group's lists, then its selection), so a
  // subgraph holding a whole row's tree needs only a few lists per level live
  // in its buffers, not every chunk's at once.
  bool expandTopK(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const TensorId input = op.inputs[0];
    const Dims inShape = shapeOf(input);
    const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
    const std::int64_t k = *op.attr<std::int64_t>("k");
    auto tile = vecTile(op, inShape);
    if (!tile) return false;
    const std::int64_t chunk = std::max((*tile)[dim], 2 * k);

    // Level l selects from `values` (and `indices` after level 0), `length`
    // candidates along dim in groups of `group`, into level l + 1's lists (the
    // op's outputs after the last level).
    struct Level {
      TensorId values = kNoId, indices = kNoId;
      std::int64_t length = 0, group = 0;
    };
    std::vector<Level> levels{{input, kNoId, inShape[dim], 0}};
    while (true) {
      Level& level = levels.back();
      const bool first = levels.size() == 1;
      if (level.length <= chunk) {
        level.group = level.length;
        break;
      }
      // Later levels group whole lists of k, so a list never straddles two groups.
      level.group = first ? chunk : chunk / k * k;
      const std::int64_t groups = (level.length + level.group - 1) / level.group;
      const std::int64_t tail = level.length - (groups - 1) * level.group;
      Dims shape = inShape;
      shape[dim] = (groups - 1) * k + std::min(k, tail);
      const int index = static_cast<int>(levels.size()) - 1;
      auto candidates = [&](TensorId like, const char* what) {
        const TensorValue& value = m_graph.tensor(like);
        return addTemporary(op, value.name + "_" + what + "_l" + std::to_string(index), value.dtype, constants(shape),
                            shape);
      };
      TensorId values = candidates(op.outputs[0], "values");
      TensorId indices = candidates(op.outputs[1], "indices");
      levels.push_back({values, indices, shape[dim], 0});
    }

    Dims rows = *tile;
    rows[dim] = inShape[dim];
    forEachTile(inShape, rows, [&](const Dims& rowOffsets, const Dims& rowSizes) {
      // Emits group `g` of level `l` after the groups of level l - 1 it selects from.
      std::function<void(std::size_t, std::int64_t)> select = [&](std::size_t l, std::int64_t g) {
        const Level& level = levels[l];
        const std::int64_t begin = g * level.group, size = std::min(level.group, level.length - begin);
        if (l > 0) {
          const Level& below = levels[l - 1];
          const std::int64_t lists = (below.length + below.group - 1) / below.group;
          const std::int64_t perList = std::min(k, below.group);
          for (std::int64_t c = begin / perList; c < std::min(lists, (begin + size + perList - 1) / perList); ++c)
            select(l - 1, c);
        }
        const bool last = l + 1 == levels.size();
        const TensorId outValues = last ? op.outputs[0] : levels[l + 1].values;
        const TensorId outIndices = last ? op.outputs[1] : levels[l + 1].indices;
        const std::int64_t keep = std::min(k, size);
        TileOp t = tileOp(op);
        t.attrs["k"] = keep;
        Dims offsets = rowOffsets, sizes = rowSizes;
        offsets[dim] = begin;
        sizes[dim] = size;
        t.inputs.push_back(region(level.values, constants(offsets), sizes));
        if (l > 0) t.inputs.push_back(region(level.indices, constants(offsets), sizes));
        else t.attrs["index_base"] = begin;
        offsets[dim] = g * k;
        sizes[dim] = keep;
        t.outputs.push_back(region(outValues, constants(offsets), sizes));
        t.outputs.push_back(region(outIndices, constants(offsets), sizes));
        t.tileShape = *tile;
        t.tileShape[dim] = level.group;
        emit(std::move(t));
      };
      select(levels.size() - 1, 0);
    });
    return true;
  }

  // An argsort cut by the vec tile along every dim but the sorted one, which
  // each tile holds whole (its indices count from the row's start), as
  // PyPTO's tests cut a sort of [12101, 33] into [12101, 13] columns.
  bool expandSortedRows(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    return forEachTileAcross(op, [&](const Dims& offsets, const Dims& sizes, const Dims& tile) {
      TileOp t = tileOp(op);
      t.inputs.push_back(region(op.inputs[0], constants(offsets), sizes));
      t.outputs.push_back(region(op.outputs[0], constants(offsets), sizes));
      t.tileShape = tile;
      emit(std::move(t));
    });
  }

  // Visits the tiles of op's first input cut by the vec tile along every dim
  // but the op's "dim", which each tile holds whole (sorts, scatters): their
  // offsets, sizes and the tile shape. False when the vec tile does not fit.
  template <typename Visit> bool forEachTileAcross(const TensorOp& op, Visit&& visit) {
    const Dims shape = shapeOf(op.inputs[0]);
    const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
    auto tile = vecTile(op, shape);
    if (!tile) return false;
    Dims across = *tile;
    across[dim] = shape[dim];
    forEachTile(shape, across, [&](const Dims& offsets, const Dims& sizes) { visit(offsets, sizes, across); });
    return true;
  }

  // Whether a scatter can be cut across its dim: its index fits inside its
  // input and its source covers its index along every other dim (torch's
  // rule), so each slice across the dim is scattered on its own (along dim
  // 0, x[index[i][j]][j] comes from src[i][j]). A scatter_update's 1-D
  // index names whole slices, so its source matches x in the other dims
  // (shape inference) and every tile takes the whole index. In place
  // (scatter_, index_add_'s and index_put_'s scatter_update) alike.
  bool scatterColumnsFit(const TensorOp& op) const {
    const Dims x = shapeOf(op.inputs[0]), index = shapeOf(op.inputs[1]);
    const std::int64_t* dimAttr = op.attr<std::int64_t>("dim");
    if (!dimAttr || *dimAttr < 0) return false;
    const auto dim = static_cast<std::size_t>(*dimAttr);
    // A scalar src (no third input) is the instruction's operand: nothing of it to cut.
    const Dims src = op.inputs.size() > 2 ? shapeOf(op.inputs[2]) : index;
    if (op.kind == TensorOpKind::ScatterUpdate) return src.size() == x.size() && dim < x.size() && index.size() == 1;
    if (index.size() != x.size() || src.size() != x.size() || dim >= x.size()) return false;
    for (std::size_t d = 0; d < x.size(); ++d)
      if (d != dim && (index[d] > x[d] || src[d] < index[d])) return false;
    return true;
  }

  // A scatter cut by the vec tile along every dim but the scatter's, which
  // each tile holds whole in its input, index and source, as PyPTO's tests
  // cut a [128, 16384] scatter along dim 0 into [128, 128] columns. Each
  // tile's index and source are their part of its columns; a tile of
  // columns the index does not reach (an index narrower than the input)
  // scatters nothing: it copies its part of the input, or in place leaves
  // it as it is (no tile). A scatter_update's slices come in chunks of the
  // vec tile's size along dim (below).
  bool expandScatterAlongOtherDims(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const bool slices = op.kind == TensorOpKind::ScatterUpdate;
    const Dims index = shapeOf(op.inputs[slices ? 2 : 1]);  // what reaches each column: the source for slices
    const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
    const bool inPlace = op.outputs[0] == op.inputs[0];
    std::int64_t sliceChunk = 1;
    if (auto tile = vecTile(op, shapeOf(op.inputs[0]))) sliceChunk = std::max<std::int64_t>(1, (*tile)[dim]);
    std::vector<TileOp> tiles;
    const bool fits = forEachTileAcross(op, [&](const Dims& offsets, const Dims& sizes, const Dims& columns) {
      TileOp t = tileOp(op);
      t.inputs.push_back(region(op.inputs[0], constants(offsets), sizes));
      t.outputs.push_back(region(op.outputs[0], constants(offsets), sizes));
      t.tileShape = columns;
      Dims part = sizes;  // the index's (and the source's) part of these columns
      bool reached = true;
      for (std::size_t d = 0; d < part.size(); ++d) {
        if (d == dim) continue;
        part[d] = std::min(sizes[d], index[d] - offsets[d]);
        reached = reached && part[d] > 0;
      }
      if (!reached) {
        if (inPlace) return;
        t.kind = TensorOpKind::Copy;
        t.attrs.clear();
        tiles.push_back(std::move(t));
        return;
      }
      if (slices) {
        // The index and the source's slices in chunks of the vec tile's size along dim, one tile op each,
        // in order, each updating the tile the previous one wrote (so a source longer than the tile along
        // dim never sits in the buffer whole, and repeated indices keep their order).
        const std::int64_t count = shapeOf(op.inputs[1])[0];
        for (std::int64_t first = 0; first < count; first += sliceChunk) {
          TileOp chunk = t;
          if (first > 0) chunk.inputs[0] = chunk.outputs[0];
          const std::int64_t length = std::min(sliceChunk, count - first);
          chunk.inputs.push_back(region(op.inputs[1], constants(Dims{first}), Dims{length}));
          Dims at = offsets, own = part;
          at[dim] = first;
          own[dim] = length;
          chunk.inputs.push_back(region(op.inputs[2], constants(at), own));
          tiles.push_back(std::move(chunk));
        }
        return;
      }
      for (std::size_t k = 1; k < op.inputs.size(); ++k) {
        Dims own = part;
        own[dim] = shapeOf(op.inputs[k])[dim];
        t.inputs.push_back(region(op.inputs[k], constants(offsets), own));
      }
      tiles.push_back(std::move(t));
    });
    if (!fits) return false;
    for (TileOp& t : tiles) emit(std::move(t));
    return true;
  }

  // Whether every op reading `tensor` (or a view of it) is a matmul.
  bool onlyMatmulsRead(TensorId tensor) const {
    bool read = false;
    for (const TensorOp& other : m_graph.ops())
      for (TensorId input : other.inputs)
        if (input == tensor || (m_graph.tensor(input).role == TensorRole::View && m_graph.storageOf(input) == tensor)) {
          if (other.kind != TensorOpKind::Matmul && other.kind != TensorOpKind::View) return false;
          read = read || other.kind == TensorOpKind::Matmul;
        }
    return read;
  }

  // Whether `op` is an MGATHER (expandIndexSelect) from `alias`, an in-place
  // reshape of `root` that only merges root's leading dims ([blocks, 128, 1,
  // d] seen as [blocks * 128, d], how a paged cache is gathered from). Such a
  // gather takes every row of root, so it can name root itself.
  bool gathersRowsOfAlias(const TensorOp& op, TensorId alias, TensorId root) const {
    if (op.kind != TensorOpKind::IndexSelect || op.inputs.size() != 2 || op.inputs[0] != alias || !hasVecTile(op))
      return false;
    const std::int64_t* dim = op.attr<std::int64_t>("dim");
    const Dims& aliasShape = shapeOf(alias);
    const Dims& rootShape = shapeOf(root);
    return (!dim || *dim == 0 || *dim == -2) && shapeOf(op.inputs[1]).size() == 1 && aliasShape.size() == 2 &&
           rootShape.size() >= 2 && rootShape.back() == aliasShape[1];
  }

  // index_select along dim 0 under a vec tile, as an MGATHER runs it on the
  // chip: each output tile takes the rows its slice of the index names
  // straight from global memory. Input 0 of a tile is the source's columns
  // of that tile over every row (what the gather may touch, for the
  // dependencies); only the picked rows move (readsInPlace). A paged KV
  // cache never fits in the unified buffer, the rows of one tile do. Other
  // dims, sources of another rank than 2 (a row is then more than the last
  // dim) and no vec tile keep one whole tile.
  bool expandIndexSelect(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const TensorId source = op.inputs[0], index = op.inputs[1], output = op.outputs[0];
    const Dims outShape = shapeOf(output);
    const Dims& sourceShape = shapeOf(source);
    const std::int64_t* dimAttr = op.attr<std::int64_t>("dim");
    std::int64_t dim = dimAttr ? *dimAttr : 0;
    if (dim < 0) dim += static_cast<std::int64_t>(sourceShape.size());
    if (shapeOf(index).size() != 1) return expandWhole(op, emit);
    auto tile = vecTile(op, outShape, /*dataMovement=*/true);
    if (!tile) return false;
    // A row is the last dim (GatherRows.h): rank-2 sources, or an aliased cache (below). Other dims and
    // ranks gather on chip (TGATHER), tile by tile of the output: each takes the source whole along `dim`
    // (the index may name any position) and as the tile along the other dims, and its slice of the index.
    if (dim != 0 || sourceShape.size() != 2) {
      const auto along = static_cast<std::size_t>(dim);
      forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
        TileOp t = tileOp(op);
        Dims sourceOffsets = offsets, sourceSizes = sizes;
        sourceOffsets[along] = 0;
        sourceSizes[along] = sourceShape[along];
        t.inputs.push_back(region(source, constants(sourceOffsets), sourceSizes));
        t.inputs.push_back(region(index, constants({offsets[along]}), {sizes[along]}));
        t.outputs.push_back(region(output, constants(offsets), sizes));
        t.tileShape = *tile;
        emit(std::move(t));
      });
      return true;
    }
    // gather_in_l1's rows land in L1 only when matmuls alone read them (L1 has no way back to GM or to
    // a vector core); otherwise they are gathered into UB like gather_in_ub's, which computes the same.
    const bool* intoL1 = op.attr<bool>(kGatherIntoL1);
    const bool l1 = intoL1 && *intoL1 && onlyMatmulsRead(output);
    // From an aliased paged cache: the rows are root's leading dims flattened (GatherRows.h).
    const TensorId root = m_graph.tensor(source).reshapeOf;
    const bool fromRoot = root != kNoId && gathersRowsOfAlias(op, source, root);
    forEachTile(outShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      if (fromRoot) {
        Dims rootOffsets(shapeOf(root).size(), 0), rootSizes = shapeOf(root);
        rootOffsets.back() = offsets.back();
        rootSizes.back() = sizes.back();
        t.inputs.push_back(region(root, constants(rootOffsets), rootSizes));
      } else {
        Dims sourceOffsets = offsets, sourceSizes = sizes;
        sourceOffsets[0] = 0;
        sourceSizes[0] = sourceShape[0];
        t.inputs.push_back(region(source, constants(sourceOffsets), sourceSizes));
      }
      t.inputs.push_back(region(index, constants({offsets[0]}), {sizes[0]}));
      t.outputs.push_back(region(output, constants(offsets), sizes));
      t.attrs[kGatherRowsFromGm] = true;
      t.attrs[kGatherIntoL1] = l1;
      t.tileShape = *tile;
      emit(std::move(t));
    });
    return true;
  }

  // scatter_update's paged-cache form written into its own cache (the
  // frontend records it with `into`): a row scatter in place.
  bool scattersRows(const TensorOp& op) const {
    const bool* rows = op.attr<bool>("rows");
    return op.kind == TensorOpKind::ScatterUpdate && rows && *rows && op.inputs.size() == 3 &&
           op.outputs.size() == 1 && op.outputs[0] == op.inputs[0] && shapeOf(op.inputs[1]).size() == 1;
  }

  // The mirror of expandIndexSelect, as an MSCATTER runs on the chip: src's
  // rows are cut by the vec tile in force, and each tile's rows go straight
  // to the cache rows its slice of the index names. Output 0 of a tile is
  // the cache's columns of that tile over every row (what the scatter may
  // touch, for the dependencies); only the named rows move (writesInPlace).
  // The cache (a KV cache of tens of MiB) is never loaded or held on chip.
  bool expandScatterRows(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    const TensorId cache = op.inputs[0], index = op.inputs[1], rows = op.inputs[2];
    const Dims rowShape = shapeOf(rows);
    const Dims cacheShape = shapeOf(cache);
    auto tile = vecTile(op, rowShape, /*dataMovement=*/true);
    if (!tile) return false;
    forEachTile(rowShape, *tile, [&](const Dims& offsets, const Dims& sizes) {
      TileOp t = tileOp(op);
      t.inputs.push_back(region(index, constants({offsets[0]}), {sizes[0]}));
      t.inputs.push_back(region(rows, constants(offsets), sizes));
      Dims cacheOffsets(cacheShape.size(), 0), cacheSizes = cacheShape;
      cacheOffsets.back() = offsets.back();
      cacheSizes.back() = sizes.back();
      t.outputs.push_back(region(cache, constants(cacheOffsets), cacheSizes));
      t.attrs[kScatterRowsToGm] = true;
      t.tileShape = *tile;
      emit(std::move(t));
    });
    return true;
  }

  bool expandWhole(const TensorOp& op, const std::function<void(TileOp)>& emit) {
    TileOp t = tileOp(op);
    for (TensorId input : op.inputs) t.inputs.push_back(whole(input));
    for (TensorId output : op.outputs) t.outputs.push_back(whole(output));
    t.tileShape = shapeOf(op.outputs[0]);
    emit(std::move(t));
    return true;
  }

  Compilation& m_compilation;
  TileGraph& m_tiles;
  TensorGraph& m_graph;
  DiagnosticEngine& m_diags;
  std::int64_t m_tileOpLimit;
  ValidShapes m_valid;  // of the traced tensors
  std::vector<TileSetting> m_settingsUsed;  // in order of first use
  std::map<std::tuple<TileSection, std::string, std::string, Dims>, std::size_t> m_settingIndex;
};

} // namespace

bool expandFunction(Compilation& compilation, DiagnosticEngine& diags) { return Expander(compilation, diags).run(); }

} // namespace pto
