// Implementation of the live tile buffer check.
#include "analysis/tuning/TileBufferCheck.h"

#include "compiler/ir/BlockGraph.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/settings/TileSettings.h"
#include "core/EnumNames.h"
#include "core/Shape.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace pto {
namespace {

using Dims = std::vector<std::int64_t>;


} // namespace

constexpr auto kTileFitNames = enumNames<TileFit>({
    {TileFit::Fits, "fits"}, {TileFit::MayNotFit, "may not fit"}, {TileFit::DoesNotFit, "does not fit"},
    {TileFit::Invalid, "invalid"}});

std::string_view name(TileFit fit) { return kTileFitNames.name(fit); }

std::string memoryLabel(MemoryKind memory) {
  std::string label(name(memory));
  for (char& c : label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return label;
}

std::string formatBytes(std::int64_t bytes) {
  char text[32];
  auto unit = [&](double scale, const char* suffix) {
    double value = static_cast<double>(bytes) / scale;
    if (bytes % static_cast<std::int64_t>(scale) == 0) std::snprintf(text, sizeof text, "%lld %s", static_cast<long long>(bytes / static_cast<std::int64_t>(scale)), suffix);
    else std::snprintf(text, sizeof text, "%.1f %s", value, suffix);
    return std::string(text);
  };
  if (bytes < 1024) return std::to_string(bytes) + " B";
  if (bytes < 1024 * 1024) return unit(1024.0, "KiB");
  return unit(1024.0 * 1024.0, "MiB");
}

std::string TileBufferCheck::usageText() const {
  std::string text;
  for (const MemoryUse& use : memories) {
    if (!text.empty()) text += ", ";
    text += memoryLabel(use.memory) + " " + formatBytes(use.usedBytes) + " / " + formatBytes(use.availableBytes);
  }
  return text;
}

std::string TileBufferCheck::summary() const {
  if (fit == TileFit::Invalid) return "invalid: " + (problems.empty() ? std::string("no shape") : problems.front());
  std::string text = std::string(name(fit)) + ": " + usageText();
  if (fit == TileFit::MayNotFit)
    for (const MemoryUse& use : memories)
      if (use.fusedBytes > use.availableBytes) text += ", " + formatBytes(use.fusedBytes) + " of " + memoryLabel(use.memory) + " when fused";
  if (fit == TileFit::DoesNotFit)
    for (const MemoryUse& use : memories)
      if (!use.fits() && !use.worstOp.empty()) {
        text += " (" + use.worstOp + ")";
        break;
      }
  return text;
}

bool TileBufferCheck::doubleBuffered() const {
  if (fit == TileFit::Invalid || fit == TileFit::DoesNotFit) return false;
  for (const MemoryUse& use : memories)
    if (use.pingPongBytes == 0 || use.pingPongBytes > use.availableBytes) return false;
  return true;
}

std::string TileBufferCheck::bufferingText() const {
  if (fit == TileFit::Invalid || fit == TileFit::DoesNotFit || memories.empty()) return {};
  std::string text;
  for (const MemoryUse& use : memories) {
    if (use.pingPongBytes == 0) return {};
    if (doubleBuffered() || use.pingPongBytes > use.availableBytes)
      text += (text.empty() ? "" : ", ") + memoryLabel(use.memory) + " " + formatBytes(use.pingPongBytes) + " / " +
              formatBytes(use.availableBytes);
  }
  return doubleBuffered() ? "double-buffered: " + text : "single-buffered: double buffering needs " + text;
}

// One governed op, ready to be cut by a candidate tile.
struct OpModel {
  OpId op = kNoId;
  TensorOpKind kind = TensorOpKind::Copy;
  std::string where;  // "exp at kernel.py:14"
  std::vector<TensorId> inputs;
  std::vector<Dims> inputShapes;
  TensorId output = kNoId;
  Dims outputShape;
  DataType operand = DataType::Fp32;  // ExpandFunction's alignment dtype
  // Reductions.
  Dims reducedDims;
  bool keepdim = false;
  TensorId wideAccumulator = kNoId;  // fp32 twin for fp16/bf16 partial sums/products
  // Matmul.
  bool aTrans = false, bTrans = false;
  TensorId accumulator = kNoId;  // the output itself, or its fp32/int32 accumulator
  // index_select along dim 0: an MGATHER, its source left in GM.
  bool gathersRows = false;
  // scatter_update's paged-cache form in place: an MSCATTER, its target left in GM.
  bool scattersRows = false;
};

// The shape a vec tile cuts for this op (ExpandFunction: reductions and
// copies cut their input, the rest their output).
const Dims& vecTiledShape(const OpModel& op) {
  const bool cutsInput = category(op.kind) == OpCategory::Reduce || op.kind == TensorOpKind::Assemble ||
                         op.kind == TensorOpKind::Copy;
  if (op.scattersRows) return op.inputShapes[2];  // src's rows are cut
  return cutsInput && !op.inputs.empty() ? op.inputShapes[0] : op.outputShape;
}

// m, k, n of a matmul.
std::array<std::int64_t, 3> matmulExtents(const OpModel& op) {
  const Dims& a = op.inputShapes[0];
  const Dims& out = op.outputShape;
  return {out[out.size() - 2], op.aTrans ? a[a.size() - 2] : a[a.size() - 1], out[out.size() - 1]};
}

struct TileBufferChecker::Impl {
  TileSection section = TileSection::Vec;
  TargetInfo target;
  std::vector<OpModel> ops;
  std::vector<std::string> setupProblems;  // governed ops whose shapes are unknown
  mutable TileGraph scratch;

  static SymbolicShape zeros(std::size_t rank) { return SymbolicShape(rank, SymbolicScalar(std::int64_t{0})); }
  static TileRegion region(TensorId tensor, const Dims& sizes) { return TileRegion{tensor, zeros(sizes.size()), sizes, {}}; }

  // Peak bytes per memory of these tile ops placed as one subgraph, in order
  // (with `pingPong`, as AllocateBuffers places them for double buffering).
  std::array<std::int64_t, kMemoryKindCount> place(const std::vector<TileOp>& tiles, CoreType core,
                                                   bool pingPong = false) const {
    scratch.removeTileOpsIf([](const TileOp&) { return true; });
    Subgraph subgraph;
    subgraph.id = 0;
    subgraph.coreType = core;
    for (const TileOp& tile : tiles) subgraph.ops.push_back(scratch.addTileOp(tile));
    // The final plan's fallbacks (results in place, greedy by size) included: the verdict is compiling's.
    if (!pingPong) return planSubgraphBuffers(scratch, target, subgraph, BufferOverlap::MembersApart, true).peakBytes;
    // Unconditionally ping-ponged, to say what it needs even when it does not fit.
    SubgraphBufferPlan plan = planSubgraphBuffers(scratch, target, subgraph, BufferOverlap::PingPong);
    if (plan.overlap == BufferOverlap::PingPong) return plan.peakBytes;
    std::array<std::int64_t, kMemoryKindCount> needed = plan.peakBytes;
    needed[static_cast<std::size_t>(plan.overlapLimitedBy)] = plan.overlapNeededBytes;
    return needed;
  }

  TileBufferCheck finish(std::vector<MemoryKind> memories, const std::vector<std::array<std::int64_t, kMemoryKindCount>>& peaks,
                         std::vector<std::string> problems,
                         const std::array<std::int64_t, kMemoryKindCount>* fused = nullptr,
                         const std::array<std::int64_t, kMemoryKindCount>* pingPong = nullptr) const {
    TileBufferCheck check;
    check.problems = std::move(problems);
    for (MemoryKind memory : memories) {
      MemoryUse use;
      use.memory = memory;
      use.availableBytes = target.capacity(memory);
      for (std::size_t i = 0; i < peaks.size(); ++i) {
        std::int64_t used = peaks[i][static_cast<std::size_t>(memory)];
        if (used > use.usedBytes) {
          use.usedBytes = used;
          use.worstOp = ops[i].where;
        }
      }
      use.fusedBytes = std::max(use.usedBytes, fused ? (*fused)[static_cast<std::size_t>(memory)] : 0);
      if (pingPong) use.pingPongBytes = std::max(use.fusedBytes, (*pingPong)[static_cast<std::size_t>(memory)]);
      check.memories.push_back(use);
    }
    auto all = [&](auto predicate) { return std::all_of(check.memories.begin(), check.memories.end(), predicate); };
    if (!check.problems.empty()) check.fit = TileFit::Invalid;
    else if (!all([](const MemoryUse& u) { return u.fits(); })) check.fit = TileFit::DoesNotFit;
    else if (!all([](const MemoryUse& u) { return u.fusedBytes <= u.availableBytes; })) check.fit = TileFit::MayNotFit;
    else check.fit = TileFit::Fits;
    return check;
  }
};

TileBufferChecker::TileBufferChecker(const TensorGraph& graph, const TileSite& site,
                                     const Bindings& bindings, const TargetInfo& target)
    : m_impl(std::make_unique<Impl>()) {
  m_impl->section = site.section;
  m_impl->target = target;
  // Only dtypes matter to the planner; ids stay those of the graph.
  for (const TensorValue& tensor : graph.tensors()) {
    TensorValue copy;
    copy.dtype = tensor.dtype;
    copy.name = tensor.name;
    m_impl->scratch.graph.addTensor(std::move(copy));
  }
  auto shapeOf = [&](TensorId id, Dims& out) {
    out.clear();
    for (const SymbolicScalar& dim : graph.tensor(id).shape) {
      SymbolicEvaluation value = dim.evaluate(bindings);
      if (!value.ok()) return false;
      out.push_back(*value.value);
    }
    return true;
  };
  auto addTensor = [&](DataType dtype) {
    TensorValue value;
    value.dtype = dtype;
    return m_impl->scratch.graph.addTensor(std::move(value));
  };
  for (const GovernedOp& governed : site.governs) {
    const TensorOp& op = graph.op(governed.op);
    OpModel model;
    model.op = op.id;
    model.kind = op.kind;
    model.where = opWhere(op);
    bool known = true;
    for (TensorId input : op.inputs) {
      model.inputs.push_back(input);
      model.inputShapes.emplace_back();
      known = known && shapeOf(input, model.inputShapes.back());
    }
    model.output = op.outputs.empty() ? kNoId : op.outputs[0];
    known = known && model.output != kNoId && shapeOf(model.output, model.outputShape);
    if (!known) {
      m_impl->setupProblems.push_back(model.where + ": its shapes are not known at compile time");
      continue;
    }
    model.operand = op.inputs.empty() ? graph.tensor(model.output).dtype : graph.tensor(op.inputs[0]).dtype;
    if (category(op.kind) == OpCategory::Reduce) {
      if (const auto* dims = op.attr<Dims>("dims")) model.reducedDims = *dims;
      if (const auto* keep = op.attr<bool>("keepdim")) model.keepdim = *keep;
      DataType out = graph.tensor(model.output).dtype;
      if ((op.kind == TensorOpKind::Sum || op.kind == TensorOpKind::Prod) && (out == DataType::Fp16 || out == DataType::Bf16))
        model.wideAccumulator = addTensor(DataType::Fp32);
    }
    if (op.kind == TensorOpKind::IndexSelect) {
      const auto* dim = op.attr<std::int64_t>("dim");
      model.gathersRows = (!dim || *dim == 0 || *dim == -static_cast<std::int64_t>(model.inputShapes[0].size())) &&
                          model.inputShapes[1].size() == 1 && !model.outputShape.empty();
    }
    if (op.kind == TensorOpKind::ScatterUpdate) {
      const auto* rows = op.attr<bool>("rows");
      model.scattersRows = rows && *rows && op.inputs.size() == 3 && op.outputs.size() == 1 &&
                           op.outputs[0] == op.inputs[0] && model.inputShapes[1].size() == 1;
    }
    if (category(op.kind) == OpCategory::Matmul) {
      if (const auto* t = op.attr<bool>("a_trans")) model.aTrans = *t;
      if (const auto* t = op.attr<bool>("b_trans")) model.bTrans = *t;
      DataType accType = graph.tensor(op.inputs[0]).dtype == DataType::Int8 ? DataType::Int32 : DataType::Fp32;
      model.accumulator = graph.tensor(model.output).dtype != accType ? addTensor(accType) : model.output;
    }
    m_impl->ops.push_back(std::move(model));
  }
}

TileBufferChecker::~TileBufferChecker() = default;
TileBufferChecker::TileBufferChecker(TileBufferChecker&&) noexcept = default;
TileBufferChecker& TileBufferChecker::operator=(TileBufferChecker&&) noexcept = default;

TileSection TileBufferChecker::section() const { return m_impl->section; }

TileBufferCheck TileBufferChecker::checkVec(const Dims& candidate) const {
  const Impl& impl = *m_impl;
  std::vector<std::string> problems = impl.setupProblems;
  std::vector<std::array<std::int64_t, kMemoryKindCount>> peaks;
  std::vector<TileOp> chain;
  if (impl.section != TileSection::Vec) problems.push_back("this site takes a cube tile shape");
  for (std::int64_t dim : candidate)
    if (dim <= 0) {
      problems.push_back(dimsString(candidate) + " has a non-positive dim");
      break;
    }
  if (!problems.empty()) return impl.finish({MemoryKind::UB}, {}, problems);
  std::vector<std::string> paddingNotes;
  for (const OpModel& op : impl.ops) {
    const bool reduce = category(op.kind) == OpCategory::Reduce;
    const Dims& tiled = vecTiledShape(op);
    Dims tile = candidate;
    // A longer tile gives its leading dims to a lower-rank op, axis i tile
    // dim i (ExpandFunction's rule, PyPTO's); alignment stays on the tile as set.
    if (tile.size() > tiled.size()) tile.resize(tiled.size());
    if (tile.size() != tiled.size()) {
      problems.push_back(op.where + " works on rank-" + std::to_string(tiled.size()) + " tensors but the tile " +
                         dimsString(candidate) + " has " + std::to_string(tile.size()) +
                         (tile.size() == 1 ? " dim" : " dims") + "; give one per tensor dim");
      continue;
    }
    if (tile.empty()) continue;
    if (std::string note = vecTilePaddingNote(tile, op.operand); !note.empty() &&
        std::find(paddingNotes.begin(), paddingNotes.end(), note) == paddingNotes.end())
      paddingNotes.push_back(note);
    Dims sizes(tiled.size());
    for (std::size_t d = 0; d < tiled.size(); ++d) sizes[d] = std::min(tile[d], tiled[d]);
    TileOp t;
    t.kind = op.kind;
    t.tensorOp = op.op;
    if (reduce) {
      auto isReduced = [&](std::size_t d) {
        return std::find(op.reducedDims.begin(), op.reducedDims.end(), static_cast<std::int64_t>(d)) != op.reducedDims.end();
      };
      bool arg = op.kind == TensorOpKind::Argmax || op.kind == TensorOpKind::Argmin;
      bool partial = false;
      for (std::size_t d = 0; d < sizes.size(); ++d)
        if (isReduced(d)) {
          if (arg) sizes[d] = tiled[d];
          partial = partial || sizes[d] < tiled[d];
        }
      Dims outSizes;
      for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (!isReduced(d)) outSizes.push_back(sizes[d]);
        else if (op.keepdim) outSizes.push_back(1);
      }
      t.inputs.push_back(Impl::region(op.inputs[0], sizes));
      TensorId target = partial && op.wideAccumulator != kNoId ? op.wideAccumulator : op.output;
      t.outputs.push_back(Impl::region(target, outSizes));
    } else if (op.gathersRows) {
      // ExpandFunction's MGATHER tiles: every source row of the tile's
      // columns (read in place, no buffer), the index slice, the rows.
      Dims sourceSizes = sizes;
      sourceSizes[0] = op.inputShapes[0][0];
      t.inputs.push_back(Impl::region(op.inputs[0], sourceSizes));
      t.inputs.push_back(Impl::region(op.inputs[1], {sizes[0]}));
      t.outputs.push_back(Impl::region(op.output, sizes));
      t.attrs[kGatherRowsFromGm] = true;
    } else if (op.scattersRows) {
      // ExpandFunction's MSCATTER tiles: the index slice and the rows in
      // UB, the target's columns of every row written in place (no buffer).
      t.inputs.push_back(Impl::region(op.inputs[1], {sizes[0]}));
      t.inputs.push_back(Impl::region(op.inputs[2], sizes));
      Dims targetSizes = op.outputShape;
      targetSizes.back() = sizes.back();
      t.outputs.push_back(Impl::region(op.output, targetSizes));
      t.attrs[kScatterRowsToGm] = true;
    } else if (op.kind == TensorOpKind::Assemble || op.kind == TensorOpKind::Copy) {
      t.kind = TensorOpKind::Copy;
      t.inputs.push_back(Impl::region(op.inputs[0], sizes));
      t.outputs.push_back(Impl::region(op.output, sizes));
    } else {
      // Inputs broadcast into the output tile like numpy (ExpandFunction's broadcastRegion).
      for (std::size_t i = 0; i < op.inputs.size(); ++i) {
        const Dims& shape = op.inputShapes[i];
        std::size_t lead = tiled.size() - std::min(tiled.size(), shape.size());
        Dims in(shape.size());
        for (std::size_t d = 0; d < shape.size(); ++d)
          in[d] = shape[d] == 1 && tiled[d + lead] != 1 ? 1 : sizes[d + lead];
        t.inputs.push_back(Impl::region(op.inputs[i], in));
      }
      t.outputs.push_back(Impl::region(op.output, sizes));
    }
    peaks.push_back(impl.place({t}, CoreType::AIV));
    chain.push_back(std::move(t));
  }
  if (!problems.empty()) return impl.finish({MemoryKind::UB}, {}, problems);
  const auto fused = chain.size() > 1 ? impl.place(chain, CoreType::AIV) : std::array<std::int64_t, kMemoryKindCount>{};
  const auto pingPong = impl.place(chain, CoreType::AIV, true);
  TileBufferCheck check = impl.finish({MemoryKind::UB}, peaks, {}, &fused, &pingPong);
  check.notes = std::move(paddingNotes);
  return check;
}

TileBufferCheck TileBufferChecker::checkCube(const CubeTileShape& shape) const {
  const Impl& impl = *m_impl;
  const std::vector<MemoryKind> memories = {MemoryKind::L1, MemoryKind::L0A, MemoryKind::L0B, MemoryKind::L0C};
  std::vector<std::string> problems = impl.setupProblems;
  if (impl.section != TileSection::Cube) problems.push_back("this site takes a vec tile shape");
  if (shape.mL0 <= 0 || shape.kL0 <= 0 || shape.nL0 <= 0 || shape.mL1 <= 0 || shape.kAL1 <= 0 || shape.kBL1 <= 0 ||
      shape.nL1 <= 0)
    problems.push_back(cubeShapeText(shape) + " has a non-positive dim");
  if (!problems.empty()) return impl.finish(memories, {}, problems);
  std::vector<std::array<std::int64_t, kMemoryKindCount>> peaks;
  std::array<std::int64_t, kMemoryKindCount> pingPong{};  // the first op with a k-loop, ping-ponged
  for (const OpModel& op : impl.ops) {
    const Dims& a = op.inputShapes[0];
    const Dims& out = op.outputShape;
    const auto [m, k, n] = matmulExtents(op);
    std::int64_t ms = std::min(shape.mL0, m), ns = std::min(shape.nL0, n), ks = std::min(shape.kL0, k);
    auto matrix = [](TensorId tensor, std::size_t rank, std::int64_t rows, std::int64_t cols) {
      Dims sizes(rank - 2, 1);
      sizes.push_back(rows);
      sizes.push_back(cols);
      return Impl::region(tensor, sizes);
    };
    TileOp t;
    t.kind = TensorOpKind::Matmul;
    t.tensorOp = op.op;
    t.inputs.push_back(matrix(op.inputs[0], a.size(), op.aTrans ? ks : ms, op.aTrans ? ms : ks));
    t.inputs.push_back(matrix(op.inputs[1], op.inputShapes[1].size(), op.bTrans ? ns : ks, op.bTrans ? ks : ns));
    t.outputs.push_back(matrix(op.accumulator, out.size(), ms, ns));
    peaks.push_back(impl.place({t}, CoreType::AIC));
    if (pingPong == std::array<std::int64_t, kMemoryKindCount>{} && k > ks) {
      // Double buffering as the compiler does it: the next k-step's A and B
      // tiles loaded while this one multiplies (the k offset sits in the
      // last dim of A, or the second to last when transposed; the reverse for B).
      TileOp next = t;
      auto shift = [&](TileRegion& region, bool kIsLast) {
        region.offsets[region.offsets.size() - (kIsLast ? 1 : 2)] = SymbolicScalar(ks);
      };
      shift(next.inputs[0], !op.aTrans);
      shift(next.inputs[1], op.bTrans);
      pingPong = impl.place({t, next}, CoreType::AIC, true);
    }
  }
  if (pingPong == std::array<std::int64_t, kMemoryKindCount>{} && !peaks.empty()) pingPong = peaks.front();
  return impl.finish(memories, peaks, {}, nullptr, &pingPong);
}

TileBufferCheck TileBufferChecker::check(const TileShape& shape) const {
  return shape.section == TileSection::Vec ? checkVec(shape.vec) : checkCube(shape.cube);
}

namespace {

TileBufferCheck invalid(std::string problem) {
  TileBufferCheck check;
  check.problems.push_back(std::move(problem));
  return check;
}

} // namespace

TileBufferCheck TileBufferChecker::checkJson(const nlohmann::ordered_json& value) const {
  std::string error;
  auto shape = TileShape::fromJson(m_impl->section, value, error);
  return shape ? check(*shape) : invalid(std::move(error));
}

TileBufferCheck TileBufferChecker::checkText(std::string_view text) const {
  std::string error;
  auto shape = TileShape::parse(m_impl->section, text, error);
  return shape ? check(*shape) : invalid(std::move(error));
}

std::string TileBufferChecker::clampNote(const nlohmann::ordered_json& value) const {
  std::string error;
  auto shape = TileShape::fromJson(m_impl->section, value, error);
  return shape ? clampNote(*shape) : std::string();
}

std::string TileBufferChecker::clampNote(const TileShape& shape) const {
  std::vector<TileCut> cuts;
  if (shape.section == TileSection::Vec) {
    for (const OpModel& op : m_impl->ops) cuts.push_back(TileCut{op.where, vecTiledShape(op)});
    return tileClampNote(TileSection::Vec, shape.vec, cuts);
  }
  for (const OpModel& op : m_impl->ops) {
    const auto [m, k, n] = matmulExtents(op);
    cuts.push_back(TileCut{op.where, {m, k, n}});
  }
  return tileClampNote(TileSection::Cube, {shape.cube.mL0, shape.cube.kL0, shape.cube.nL0}, cuts);
}

} // namespace pto
