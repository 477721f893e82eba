// ExpandFunction's driver: the tile settings in force, the dispatch on op
// kind, and the elementwise, reduction, matmul, view, move and creation
// expansions. Layout and indexing ops have files of their own under expand/.
#include "compiler/passes/ExpandFunction.h"
#include "compiler/passes/MatmulL1Block.h"
#include "compiler/passes/expand/Expander.h"

#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>
#include <filesystem>

namespace pto {
namespace expand {

SymbolicShape constants(const Dims& values) {
  return SymbolicShape(values.begin(), values.end());
}

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

bool Expander::run() {
  if (!concretiseShapes()) return false;
  if (!inferValidParts()) return false;
  std::size_t opCount = m_graph.ops().size();  // matmul accumulators add tensors, not ops
  for (std::size_t i = 0; i < opCount; ++i) {
    const TensorOp& op = m_graph.op(static_cast<OpId>(i));
    m_opsExpanded = i;
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

// A tensor that holds data only in part (a run-time valid_shape) is tiled whole and each tile carries
// its own valid part; the few cases whose valid part no expression follows stop here, at the op, and the
// kernel runs on the reference interpreter.
bool Expander::inferValidParts() {
  m_valid = inferValidShapes(m_tiles);
  if (m_valid.ok()) return true;
  const TensorOp& op = m_graph.op(m_valid.unsupported);
  return m_diags.error(op.location) << name(op.kind) << " here " << m_valid.reason
                                    << "; the compiler cannot tile this valid part, so this kernel runs on the "
                                       "reference interpreter, which computes on valid parts";
}

// Each tile region of a partly valid tensor gets the part of it that holds data (TileRegion::valid); a
// move's destination holds what its source tile does.
void Expander::assignTileValidParts() {
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
bool Expander::concretiseShapes() {
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

// The project's tile setting for this op in `section`, if any: its call
// site ("kernel.py:12"), then its label (tileShapeSource decides).
const nlohmann::ordered_json* Expander::projectTile(TileSection section, const TensorOp& op, std::string* keyUsed) const {
  TileShapeSource source = tileShapeSource(m_compilation.settings.tileSettings, section, op);
  if (source.origin != TileShapeOrigin::CallSite && source.origin != TileShapeOrigin::Label) return nullptr;
  if (keyUsed) *keyUsed = source.key;
  return &m_compilation.settings.tileSettings[std::string(name(section))][source.key];
}

const nlohmann::ordered_json* Expander::projectVecDefault() const {
  const auto& settings = m_compilation.settings.tileSettings;
  if (!settings.is_object() || !settings.contains("vec") || !settings["vec"].contains("DEFAULT")) return nullptr;
  return &settings["vec"]["DEFAULT"];
}

// The vec tile for `op`'s work on a tensor of shape `tiled`. A copy
// (`dataMovement`) moves whole 32-byte blocks, so an innermost dim short of
// a block is rounded up to one instead of being an error: `out[:] =
// cast(x, fp16)` under a tile of 8 stores fp16 rows of 16 elements, as
// PyPTO's output write does.
std::optional<Dims> Expander::vecTile(const TensorOp& op, const Dims& tiled, bool dataMovement,
                            bool wholeTrailingDims) {
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
std::optional<CubeTileShape> Expander::cubeTile(const TensorOp& op, std::string& projectKey) {
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

void Expander::recordCut(TileSection section, const std::string& projectKey, const TensorOp& op, const Dims& tile, Dims extents) {
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
void Expander::warnUnusedTileSettings() {
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

void Expander::noteClampedTiles() {
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

// A tile of `op` that moves one box of `input` to one box of `output`
// (permutes, concats, reshapes, bitcasts), the buffer holding `tile`.
TileOp Expander::boxTile(const TensorOp& op, TensorId input, const Dims& inOffsets, const Dims& inSizes, TensorId output,
               const Dims& outOffsets, const Dims& outSizes, const Dims& tile) const {
  TileOp t = tileOp(op);
  t.inputs.push_back(region(input, constants(inOffsets), inSizes));
  t.outputs.push_back(region(output, constants(outOffsets), outSizes));
  t.tileShape = tile;
  return t;
}

// The tile-op array grows to the count the ops expanded so far project for
// the whole program, not by doubling: at half a million tile ops the
// doublings wrote every op again into fresh pages (the last array 151 MB,
// half of it unused), which the kernel zeroes first, and the zeroing was a
// sixth of the compile. The projection is held between two and eight times
// the present count, so a wrong guess costs no more than doubling did and
// reserves (untouched, unfaulted) address space at worst.
void Expander::makeRoomForTileOp() {
  const std::size_t count = m_tiles.tileOps().size();
  if (count < m_tiles.tileOpCapacity()) return;
  const std::size_t opCount = m_graph.ops().size();
  const double perOp = static_cast<double>(count) / static_cast<double>(std::max<std::size_t>(m_opsExpanded, 1));
  const auto projected = static_cast<std::size_t>(perOp * static_cast<double>(opCount) * 1.125);
  const std::size_t least = std::max<std::size_t>(2 * count, 16);
  std::size_t room = std::clamp(projected, least, std::max<std::size_t>(8 * count, least));
  room = std::min(room, std::max(static_cast<std::size_t>(m_tileOpLimit) + 1, count + 1));
  m_tiles.reserveTileOps(room);
}

bool Expander::expand(const TensorOp& op) {
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
    makeRoomForTileOp();
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
    else if ((op.kind == TensorOpKind::ArgSort || op.kind == TensorOpKind::Sort32 || op.kind == TensorOpKind::MrgSort) &&
             hasVecTile(op))
      ok = expandSortedRows(op, emit);
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
TileRegion Expander::broadcastRegion(TensorId input, const Dims& outShape, const Dims& outOffsets, const Dims& outSizes) const {
  const Dims& shape = shapeOf(input);
  std::size_t lead = outOffsets.size() - shape.size();
  // Built in place: a tile op per output tile makes this a hot path.
  TileRegion result{input, SymbolicShape(shape.size()), Dims(shape.size()), {}};
  for (std::size_t d = 0; d < shape.size(); ++d) {
    bool broadcast = shape[d] == 1 && outShape[d + lead] != 1;
    result.offsets[d] = broadcast ? 0 : outOffsets[d + lead];
    result.shape[d] = broadcast ? 1 : outSizes[d + lead];
  }
  return result;
}

// A tile that must hold dim `keep` whole (a scan, a sort) can outgrow the unified buffer: the other dims are
// halved, the largest first, until one tile of each of `itemBytes` (the element sizes of its input and result
// tiles, each row padded to 32 bytes as the buffer lays it out) fits together. A dim `keep` too long on its own
// is left for AllocateBuffers to report.
void Expander::narrowAcrossToFit(Dims& tile, std::size_t keep, const std::vector<std::int64_t>& itemBytes) const {
  const auto bytes = [&] {
    std::int64_t total = 0;
    for (std::int64_t item : itemBytes) {
      std::int64_t one = 1;
      for (std::size_t d = 0; d + 1 < tile.size(); ++d) one *= tile[d];
      total += one * ((tile.back() * item + 31) / 32 * 32);
    }
    return total;
  };
  while (bytes() > m_compilation.settings.target.capacity(MemoryKind::UB)) {
    std::size_t largest = tile.size();
    for (std::size_t d = 0; d < tile.size(); ++d)
      if (d != keep && tile[d] > 1 && (largest == tile.size() || tile[d] > tile[largest])) largest = d;
    if (largest == tile.size()) return;
    tile[largest] = (tile[largest] + 1) / 2;
  }
}

bool Expander::expandElementwise(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  TensorId output = op.outputs[0];
  const Dims& shape = shapeOf(output);
  auto tile = vecTile(op, shape);
  if (!tile) return false;
  // A scan needs its whole dim in one tile, as PyPTO requires of cumsum's view.
  const bool scan = op.kind == TensorOpKind::Cumsum || op.kind == TensorOpKind::Cumprod;
  if (scan) {
    const auto dim = static_cast<std::size_t>(*op.attr<std::int64_t>("dim"));
    (*tile)[dim] = shape[dim];
    // The whole scanned dim can make the tile outgrow the unified buffer (PyPTO's CumProd case of a
    // [256, 512] fp32 tile, 512 KiB). Each column's scan stays in one tile, so the values do not change.
    const std::int64_t item = static_cast<std::int64_t>(sizeOf(m_graph.tensor(output).dtype));
    narrowAcrossToFit(*tile, dim, {item, item});
  }
  const bool triangle = op.kind == TensorOpKind::Tril || op.kind == TensorOpKind::Triu;
  forEachTile(shape, *tile, [&](const Dims& offsets, const Dims& sizes) {
    TileOp t = tileOp(op);
    t.inputs.reserve(op.inputs.size());
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

bool Expander::expandReduction(const TensorOp& op, const std::function<void(TileOp)>& emit) {
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
TensorId Expander::addAccumulator(const TensorOp& op, TensorId output, DataType dtype) {
  const TensorValue& value = m_graph.tensor(output);
  return addTemporary(op, value.name + "_acc", dtype, value.shape, shapeOf(output));
}

// A tensor the tiling of `op` adds (an accumulator, a top-k level's
// candidate lists), made by `op`.
TensorId Expander::addTemporary(const TensorOp& op, std::string name, DataType dtype, SymbolicShape shape, Dims concrete) {
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
void Expander::emitConversions(const TensorOp& op, TensorId accumulator, TensorId output, const std::function<void(TileOp)>& emit) {
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

bool Expander::expandMatmul(const TensorOp& op, const std::function<void(TileOp)>& emit) {
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
          // The L1 blocks the step's operands come in (MatmulL1Block.h): kAL1 of A, kBL1 of B.
          for (auto [input, depth, fromLast] : {std::tuple{0, cube->kAL1, aTrans ? 2 : 1},
                                                std::tuple{1, cube->kBL1, bTrans ? 1 : 2}}) {
            if (depth <= cube->kL0 || depth % cube->kL0 != 0 || cube->enableSplitK) continue;
            const std::int64_t blockStart = k0 / depth * depth;
            t.attrs[kMatmulL1BlockAttrs[input]] =
                std::vector<std::int64_t>{fromLast, k0 - blockStart, std::min(depth, k - blockStart), ks};
          }
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
TileRegion Expander::matrixRegion(TensorId tensor, const Dims& batch, std::int64_t row, std::int64_t rows, std::int64_t col,
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

bool Expander::expandView(const TensorOp& op, const std::function<void(TileOp)>& emit) {
  TileOp t = tileOp(op);
  t.inputs.push_back(region(op.inputs[0], *op.attr<SymbolicShape>("offsets"), shapeOf(op.outputs[0])));
  t.outputs.push_back(whole(op.outputs[0]));
  emit(std::move(t));
  return true;
}

// Assemble and copy: the source, tile by tile, into the output region.
bool Expander::expandMove(const TensorOp& op, const std::function<void(TileOp)>& emit) {
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
  // An assemble at a known offset whose source reaches past the target's end writes the part that fits
  // (as the reference interpreter does): tiles are clipped to the target, tiles wholly past it dropped.
  const Dims& targetShape = shapeOf(target);
  const auto clip = [&](const Dims& offsets, Dims& sizes) {
    if (op.kind != TensorOpKind::Assemble || targetShape.size() != sizes.size()) return true;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      std::optional<std::int64_t> at = simplify(base[d]).constantValue();
      if (!at) continue;
      sizes[d] = std::min(sizes[d], targetShape[d] - (*at + offsets[d]));
      if (sizes[d] <= 0) return false;
    }
    return true;
  };
  forEachTile(shape, tile, [&](const Dims& offsets, const Dims& tileSizes) {
    Dims sizes = tileSizes;
    if (!clip(offsets, sizes)) return;
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

bool Expander::expandCreation(const TensorOp& op, const std::function<void(TileOp)>& emit) {
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

} // namespace expand

bool expandFunction(Compilation& compilation, DiagnosticEngine& diags) {
  return expand::Expander(compilation, diags).run();
}

} // namespace pto
