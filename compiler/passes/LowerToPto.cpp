// Implementation of LowerToPto.
#include "compiler/passes/LowerToPto.h"

#include "compiler/ir/Regions.h"
#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/RemoveRedundantOp.h"
#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <array>
#include <climits>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_map>
#include <unordered_set>

namespace pto {
namespace {

// The opcode of a vector tile op; nullopt for ops that move no data.
std::optional<PtoOpcode> vectorOpcode(const TileOp& op, const TensorOp& tensorOp) {
  using K = TensorOpKind;
  using P = PtoOpcode;
  switch (op.kind) {
  case K::Add: return P::TADD;
  case K::Sub: return P::TSUB;
  case K::Mul: return P::TMUL;
  case K::Div: return P::TDIV;
  case K::Maximum: return P::TMAX;
  case K::Minimum: return P::TMIN;
  case K::AddS: return P::TADDS;
  case K::SubS: return P::TSUBS;
  case K::MulS: return P::TMULS;
  case K::DivS: return P::TDIVS;
  case K::MaximumS: return P::TMAXS;
  case K::MinimumS: return P::TMINS;
  case K::Exp: return P::TEXP;
  case K::Log: return P::TLOG;
  case K::Sqrt: return P::TSQRT;
  case K::Rsqrt: return P::TRSQRT;
  case K::Reciprocal: return P::TRECIP;
  case K::Abs: return P::TABS;
  case K::Neg: return P::TNEG;
  case K::Relu: return P::TRELU;
  case K::Sigmoid: return P::TSIGMOID;
  case K::Tanh: return P::TTANH;
  case K::BitwiseAnd: return P::TAND;
  case K::BitwiseAndS: return P::TANDS;
  case K::BitwiseOr: return P::TOR;
  case K::BitwiseOrS: return P::TORS;
  case K::BitwiseXor: return P::TXOR;
  case K::BitwiseXorS: return P::TXORS;
  case K::BitwiseNot: return P::TNOT;
  case K::ShiftLeft: return P::TSHL;
  case K::ShiftLeftS:
  case K::RShiftLeftS: return P::TSHLS;
  case K::ShiftRight: return P::TSHR;
  case K::ShiftRightS:
  case K::RShiftRightS: return P::TSHRS;
  case K::Tril:
  case K::Triu: return P::TTRI;
  case K::ExpandClone: return P::TEXPAND;
  case K::Cast: return P::TCVT;
  case K::Where: return P::TSEL;
  case K::Copy:
  case K::Assemble:
  case K::Reshape:
  case K::Unsqueeze:
  case K::Bitcast: return P::TCOPY;  // the same bytes, read as another dtype
  case K::Transpose:
  case K::Permute: return P::TTRANS;
  case K::Full: return P::TEXPANDS;
  case K::Gather:
  case K::IndexSelect: return P::TGATHER;
  case K::Scatter:
  case K::ScatterUpdate: return P::TSCATTER;
  case K::View: return std::nullopt;
  case K::Sum:
  case K::Amax:
  case K::Amin: {
    // Which axes this tile really reduces (extent > 1 in the input tile).
    const auto* dims = tensorOp.attr<std::vector<std::int64_t>>("dims");
    const std::vector<std::int64_t>& shape = op.inputs.at(0).shape;
    bool inner = false, outer = false;
    if (dims)
      for (std::int64_t dim : *dims) {
        std::int64_t d = dim < 0 ? dim + static_cast<std::int64_t>(shape.size()) : dim;
        if (d < 0 || d >= static_cast<std::int64_t>(shape.size()) || shape[static_cast<std::size_t>(d)] <= 1) continue;
        (d + 1 == static_cast<std::int64_t>(shape.size()) ? inner : outer) = true;
      }
    if (inner && outer) return P::TVEC;  // both ways: no single instruction
    bool sum = op.kind == K::Sum, max = op.kind == K::Amax;
    if (outer) return sum ? P::TCOLSUM : max ? P::TCOLMAX : P::TCOLMIN;
    return sum ? P::TROWSUM : max ? P::TROWMAX : P::TROWMIN;
  }
  default: break;
  }
  switch (category(op.kind)) {
  case OpCategory::Compare: return P::TCMP;
  case OpCategory::CompareScalar: return P::TCMPS;
  default: return P::TVEC;
  }
}

// Lowers one subgraph into the program of its class.
class Lowering {
public:
  Lowering(const Compilation& compilation, const Subgraph& subgraph, DiagnosticEngine& diags)
      : m_tiles(compilation.tiles), m_subgraph(subgraph), m_diags(diags) {}

  std::optional<PtoProgram> run() {
    m_program.programId = m_subgraph.programId;
    m_program.coreType = m_subgraph.coreType;
    m_program.subgraph = m_subgraph.id;
    prepare();
    assignAliases();
    bool ok = m_subgraph.coreType == CoreType::AIC ? lowerCube() : lowerVector();
    if (!ok) return std::nullopt;
    m_program.recountPipes();
    return std::move(m_program);
  }

private:
  // A region with its box.
  struct Placed {
    TileRegion region;
    RegionBox box;
  };
  struct Op {
    const TileOp* op;
    std::vector<Placed> inputs, outputs;
  };

  int opCount() const { return static_cast<int>(m_ops.size()); }
  SourceLocation locationOf(const TileOp& op) const { return m_tiles.graph.op(op.tensorOp).location; }
  SourceLocation locationOfSubgraph() const {
    return m_ops.empty() ? m_tiles.graph.kernelLocation : locationOf(*m_ops[0].op);
  }
  DataType dtypeOf(const TileRegion& region) const { return m_tiles.graph.tensor(region.tensor).dtype; }
  std::string text(const TileRegion& region) const { return regionString(m_tiles, region); }

  auto internalError(SourceLocation location) const {
    return std::move(m_diags.error(std::move(location)) << "internal error in LowerToPto (subgraph " << m_subgraph.id
                                                        << ", program " << m_subgraph.programId << "): ");
  }

  // Regions on storage tensors, as the copy lists name them (RemoveRedundantOp
  // may have been disabled), with their boxes; buffers indexed for lookup. A
  // view tile op moves nothing: its buffer holds no data of its own.
  void prepare() {
    const TensorGraph& graph = m_tiles.graph;
    auto place = [&](const TileRegion& region) {
      TileRegion resolved = resolveViews(graph, region);
      RegionBox box = m_boxes.box(resolved);
      return Placed{std::move(resolved), std::move(box)};
    };
    for (TileOpId id : m_subgraph.ops) {
      Op entry{&m_tiles.tileOp(id), {}, {}};
      for (const TileRegion& region : entry.op->inputs) entry.inputs.push_back(place(region));
      for (const TileRegion& region : entry.op->outputs) entry.outputs.push_back(place(region));
      m_ops.push_back(std::move(entry));
    }
    for (const TileRegion& region : m_subgraph.copyIns) m_copyIns.push_back(place(region));
    for (const TileRegion& region : m_subgraph.copyOuts) m_copyOuts.push_back(place(region));
    for (const TileRegion& region : m_subgraph.gatherSources) m_gatherSources.push_back(place(region));
    for (const TileRegion& region : m_subgraph.scatterTargets) m_scatterTargets.push_back(place(region));
    for (const BufferAllocation& buffer : m_subgraph.buffers) {
      bool holdsData = buffer.producer == kNoId || m_tiles.tileOp(buffer.producer).kind != TensorOpKind::View;
      addBuffer(buffer, place(buffer.region).box, holdsData);
    }
    m_ubTop = m_subgraph.peakBytes[static_cast<std::size_t>(MemoryKind::UB)];
  }

  int addBuffer(const BufferAllocation& buffer, const RegionBox& box, bool holdsData) {
    int b = static_cast<int>(m_buffers.size());
    m_buffers.push_back(buffer);
    m_bufferBoxes.push_back(box);
    if (holdsData) {
      m_exact[static_cast<std::size_t>(buffer.memory)][box].push_back(b);
      m_grid[static_cast<std::size_t>(buffer.memory)].insert(box, b);
    }
    return b;
  }

  // A UB tile for a vector op of a cube subgraph (machines with an L0C -> UB
  // path), which AllocateBuffers does not place: above every UB buffer, one
  // tile after another.
  int addUbTile(const Placed& placed, TileOpId producer, int position) {
    BufferAllocation buffer;
    buffer.memory = MemoryKind::UB;
    buffer.offsetBytes = m_ubTop;
    buffer.bytes = tileBytes(placed.region.shape, dtypeOf(placed.region), 32);
    buffer.region = placed.region;
    buffer.producer = producer;
    buffer.firstUse = buffer.lastUse = position;
    m_ubTop += buffer.bytes;
    return addBuffer(buffer, placed.box, true);
  }

  const BufferAllocation& buffer(int b) const { return m_buffers[static_cast<std::size_t>(b)]; }

  // GM regions of one task that may overlap get one alias class (union-find).
  void assignAliases() {
    std::vector<const Placed*> regions;
    for (const Placed& placed : m_copyIns) regions.push_back(&placed);
    for (const Placed& placed : m_copyOuts) regions.push_back(&placed);
    for (const Placed& placed : m_gatherSources) regions.push_back(&placed);
    for (const Placed& placed : m_scatterTargets) regions.push_back(&placed);
    std::vector<std::size_t> parent(regions.size());
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto find = [&](std::size_t x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    RegionIndex seen(OverlapMode::SameIteration);
    for (std::size_t i = 0; i < regions.size(); ++i) {
      seen.forEachOverlapping(regions[i]->box, [&](int j) { parent[find(i)] = find(static_cast<std::size_t>(j)); });
      seen.insert(regions[i]->box, static_cast<int>(i));
    }
    // A folded reshape's regions name bytes of another tensor
    // (TensorValue::reshapeOf): one class with every region on those bytes.
    const TensorGraph& graph = m_tiles.graph;
    auto bytesOf = [&](TensorId tensor) {
      const TensorId root = graph.tensor(tensor).reshapeOf;
      return root != kNoId ? root : tensor;
    };
    std::unordered_map<TensorId, std::size_t> firstOnBytes;
    std::unordered_set<TensorId> aliased;  // tensors holding bytes some region here reads through an alias
    for (const Placed* placed : regions)
      if (graph.tensor(placed->region.tensor).reshapeOf != kNoId) aliased.insert(bytesOf(placed->region.tensor));
    for (std::size_t i = 0; i < regions.size() && !aliased.empty(); ++i) {
      const TensorId bytes = bytesOf(regions[i]->region.tensor);
      if (!aliased.count(bytes)) continue;
      auto [first, inserted] = firstOnBytes.try_emplace(bytes, i);
      if (!inserted) parent[find(i)] = find(first->second);
    }
    // Number the classes densely in order of first appearance.
    std::vector<int> number(regions.size(), -1);
    int next = 0;
    std::vector<int> alias(regions.size());
    for (std::size_t i = 0; i < regions.size(); ++i) {
      std::size_t root = find(i);
      if (number[root] < 0) number[root] = next++;
      alias[i] = number[root];
    }
    auto ins = static_cast<std::ptrdiff_t>(m_copyIns.size()), outs = static_cast<std::ptrdiff_t>(m_copyOuts.size());
    m_inAlias.assign(alias.begin(), alias.begin() + ins);
    m_outAlias.assign(alias.begin() + ins, alias.begin() + ins + outs);
    auto gathers = static_cast<std::ptrdiff_t>(m_gatherSources.size());
    m_gatherAlias.assign(alias.begin() + ins + outs, alias.begin() + ins + outs + gathers);
    m_scatterAlias.assign(alias.begin() + ins + outs + gathers, alias.end());
  }

  PtoOperand gmOperand(bool copyIn, int index) const {
    const TileRegion& region = (copyIn ? m_copyIns : m_copyOuts)[static_cast<std::size_t>(index)].region;
    PtoOperand operand =
        wholeRegionOperand(region, index, (copyIn ? m_inAlias : m_outAlias)[static_cast<std::size_t>(index)]);
    operand.gmNz = storedNz(region.tensor);
    operand.gmRunBytes = operand.gmNz ? nzColumnRunBytes(region) : contiguousRunBytes(region);
    return operand;
  }

  // Whether `tensor`'s bytes are an argument declared NZ (through views).
  bool storedNz(TensorId tensor) const {
    const TensorGraph& graph = m_tiles.graph;
    while (graph.tensor(tensor).base != kNoId) tensor = graph.tensor(tensor).base;
    return graph.tensor(tensor).nzLayout;
  }

  // In NZ a [K, N] matrix is N / c0 column blocks one after the other, each
  // K rows of 32 bytes (c0 elements), so a region's run is its rows times 32
  // bytes: one per column block it covers.
  std::int64_t nzColumnRunBytes(const TileRegion& region) const {
    constexpr std::int64_t kFractalRowBytes = 32;
    if (region.shape.size() < 2) return 0;
    return region.shape[region.shape.size() - 2] * kFractalRowBytes;
  }

  // The bytes of each contiguous run of `region` in its tensor: the product of
  // its inner dims up to and including the first that does not span the
  // tensor's whole extent. 0 when the tensor's shape is not known while
  // compiling.
  std::int64_t contiguousRunBytes(const TileRegion& region) const {
    const SymbolicShape& whole = m_tiles.graph.tensor(region.tensor).shape;
    if (whole.size() != region.shape.size() || region.shape.empty()) return 0;
    std::int64_t run = 1;
    for (std::size_t d = region.shape.size(); d-- > 0;) {
      std::optional<std::int64_t> extent = whole[d].constantValue();
      if (!extent) return 0;
      run *= region.shape[d];
      if (region.shape[d] != *extent) break;
    }
    return run * static_cast<std::int64_t>(sizeOf(dtypeOf(region)));
  }

  // Gather source j: read after the copy-ins (Task::reads[copyIns + j]).
  PtoOperand gatherSourceOperand(int j) const {
    return wholeRegionOperand(m_gatherSources[static_cast<std::size_t>(j)].region,
                              static_cast<int>(m_copyIns.size()) + j, m_gatherAlias[static_cast<std::size_t>(j)]);
  }

  // Scatter target j: written after the copy-outs (Task::writes[copyOuts + j]).
  PtoOperand scatterTargetOperand(int j) const {
    return wholeRegionOperand(m_scatterTargets[static_cast<std::size_t>(j)].region,
                              static_cast<int>(m_copyOuts.size()) + j, m_scatterAlias[static_cast<std::size_t>(j)]);
  }

  // The task's GM region `gmRegion`, whole: a copy's side in GM, or a region an MGATHER or MSCATTER touches
  // row by row.
  PtoOperand wholeRegionOperand(const TileRegion& region, int gmRegion, int gmAlias) const {
    PtoOperand operand;
    operand.memory = MemoryKind::GM;
    operand.shape = region.shape;
    operand.dtype = dtypeOf(region);
    operand.bytes = elementCountOf(region.shape) * static_cast<std::int64_t>(sizeOf(operand.dtype));
    operand.gmRegion = gmRegion;
    operand.gmAlias = gmAlias;
    return operand;
  }

  // `placed` inside buffer `b`: the span from its first to its last element
  // in the buffer's layout (innermost dim padded to 32 bytes), or the whole
  // buffer when it is the buffer's region or not known to lie inside it.
  PtoOperand bufferOperand(int b, const Placed& placed) const {
    const BufferAllocation& held = buffer(b);
    const RegionBox& outer = m_bufferBoxes[static_cast<std::size_t>(b)];
    PtoOperand operand;
    operand.memory = held.memory;
    operand.shape = placed.region.shape;
    operand.dtype = dtypeOf(placed.region);
    operand.offsetBytes = held.offsetBytes;
    operand.bytes = held.bytes;
    if (outer == placed.box || !containsBox(outer, placed.box) || elementCountOf(placed.region.shape) == 0) return operand;
    std::int64_t item = static_cast<std::int64_t>(sizeOf(operand.dtype));
    std::int64_t perBlock = std::max<std::int64_t>(1, 32 / item);
    std::int64_t stride = 1, first = 0, last = 0;
    for (std::size_t d = outer.rank; d-- > 0;) {
      std::int64_t delta = placed.box.lo[d] - outer.lo[d];
      first += delta * stride;
      last += (delta + placed.box.hi[d] - placed.box.lo[d] - 1) * stride;
      std::int64_t extent = outer.hi[d] - outer.lo[d];
      if (d + 1 == outer.rank) extent = (extent + perBlock - 1) / perBlock * perBlock;
      stride *= extent;
    }
    operand.offsetBytes = held.offsetBytes + first * item;
    operand.bytes = (last - first + 1) * item;
    return operand;
  }

  // The buffer of `memory` holding `box`: the first with exactly this
  // region, else the first containing it, else the first overlapping it,
  // among those `accept` takes; -1 when none.
  template <typename Accept> int findBuffer(MemoryKind memory, const RegionBox& box, Accept accept) const {
    const auto& exact = m_exact[static_cast<std::size_t>(memory)];
    if (auto found = exact.find(box); found != exact.end())
      for (int b : found->second)
        if (accept(b)) return b;
    int containing = -1, overlapping = -1;
    m_grid[static_cast<std::size_t>(memory)].forEachOverlapping(box, [&](int b) {
      if (!accept(b)) return;
      if (containsBox(m_bufferBoxes[static_cast<std::size_t>(b)], box) && (containing < 0 || b < containing))
        containing = b;
      if (overlapping < 0 || b < overlapping) overlapping = b;
    });
    return containing >= 0 ? containing : overlapping;
  }
  int findBuffer(MemoryKind memory, const RegionBox& box) const {
    return findBuffer(memory, box, [](int) { return true; });
  }

  PtoInstruction instruction(PtoOpcode opcode, const TileOp& op) const {
    PtoInstruction instruction;
    instruction.opcode = opcode;
    instruction.pipe = pipeOf(opcode);
    instruction.tileOp = op.id;
    instruction.opKind = op.kind;
    return instruction;
  }

  // Appends `opcode` moving `region` from `src` to `dst`, counted in the
  // region's elements and bytes: the loads, stores and moves between buffers.
  void emitTransfer(PtoOpcode opcode, const TileOp& op, PtoOperand dst, PtoOperand src, const TileRegion& region) {
    PtoInstruction transfer = instruction(opcode, op);
    transfer.dst.push_back(std::move(dst));
    transfer.srcs.push_back(std::move(src));
    transfer.elements = elementCountOf(region.shape);
    transfer.bytes = transfer.elements * static_cast<std::int64_t>(sizeOf(dtypeOf(region)));
    m_program.instructions.push_back(std::move(transfer));
  }

  // Copy-outs grouped by the position of the last op writing what may
  // overlap them.
  bool storesByWriter(std::vector<std::vector<int>>& storesAfter) const {
    RegionIndex writes(OverlapMode::SameIteration);
    for (int p = 0; p < opCount(); ++p) {
      if (m_ops[static_cast<std::size_t>(p)].op->kind == TensorOpKind::View) continue;  // moves no data
      // An MSCATTER writes GM itself: a copy-out of the region goes after the write that made it.
      if (scattersRowsToGm(*m_ops[static_cast<std::size_t>(p)].op)) continue;
      for (const Placed& output : m_ops[static_cast<std::size_t>(p)].outputs) writes.insert(output.box, p);
    }
    storesAfter.assign(m_ops.size(), {});
    for (std::size_t j = 0; j < m_copyOuts.size(); ++j) {
      int writer = -1;
      writes.forEachOverlapping(m_copyOuts[j].box, [&](int p) { writer = std::max(writer, p); });
      if (writer < 0)
        return internalError(locationOfSubgraph())
               << "copy-out " << j << " (" << text(m_copyOuts[j].region) << ") is written by no op";
      storesAfter[static_cast<std::size_t>(writer)].push_back(static_cast<int>(j));
    }
    return true;
  }

  // Copy-ins grouped by the op that first uses their buffer in `memory`.
  // Those with no buffer there are left to `unplaced` (when given).
  bool loadsByFirstUse(MemoryKind memory, std::vector<std::vector<std::pair<int, int>>>& loadsAt,
                       const std::function<bool(int copyIn)>& unplaced) const {
    loadsAt.assign(m_ops.size(), {});
    for (std::size_t i = 0; i < m_copyIns.size(); ++i) {
      int b = findBuffer(memory, m_copyIns[i].box);
      if (b < 0 && unplaced && unplaced(static_cast<int>(i))) continue;
      if (b < 0)
        return internalError(locationOfSubgraph())
               << "copy-in " << i << " (" << text(m_copyIns[i].region) << ") has no "
               << (memory == MemoryKind::UB ? "UB" : "L1") << " buffer";
      if (m_ops.empty()) continue;
      int at = std::clamp(buffer(b).firstUse, 0, opCount() - 1);
      loadsAt[static_cast<std::size_t>(at)].emplace_back(static_cast<int>(i), b);
    }
    return true;
  }

  void emitLoad(int copyIn, int b, const TileOp& firstUser) {
    const Placed& placed = m_copyIns[static_cast<std::size_t>(copyIn)];
    emitTransfer(PtoOpcode::TLOAD, firstUser, bufferOperand(b, placed), gmOperand(true, copyIn), placed.region);
  }

  // ---- vector subgraphs ----------------------------------------------------

  // The UB buffers op position p reads `input` from. Data made earlier in
  // this subgraph is read where it was made: from the latest buffer holding
  // all of it, overlaid by any made after that one (a tile a later op wrote
  // over in part: a scatter into a tensor whose tiles were made before), in
  // the order they were made; anything else from the buffer it was loaded
  // into.
  std::vector<int> ubPieces(int p, const Placed& input) const {
    auto produced = [&](int b) { return buffer(b).producer != kNoId; };
    auto madeBefore = [&](int b) { return produced(b) && buffer(b).firstUse < p; };
    std::vector<int> pieces;
    // A tile made at an offset whose distance from the read is known only at run time (an assemble at a
    // computed row) is no piece: it went to GM before the read's load (its copy-out is emitted after
    // its op, and GM accesses of one tensor stay in order), so the loaded bytes hold it.
    const auto atConstantDistance = [&](int b) {
      const RegionBox& made = m_bufferBoxes[static_cast<std::size_t>(b)];
      for (std::size_t d = 0; d < input.box.rank; ++d)
        if (made.symbol[d] != input.box.symbol[d]) return false;
      return made.rank == input.box.rank;
    };
    m_grid[static_cast<std::size_t>(MemoryKind::UB)].forEachOverlapping(input.box, [&](int b) {
      if (madeBefore(b) && atConstantDistance(b)) pieces.push_back(b);
    });
    std::sort(pieces.begin(), pieces.end(), [&](int a, int b) {
      return std::pair(buffer(a).firstUse, a) < std::pair(buffer(b).firstUse, b);
    });
    pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
    // Pieces before the latest one holding all of the box are covered by it.
    for (std::size_t i = pieces.size(); i-- > 0;)
      if (containsBox(m_bufferBoxes[static_cast<std::size_t>(pieces[i])], input.box)) {
        pieces.erase(pieces.begin(), pieces.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    if (pieces.empty()) {
      int loaded = findBuffer(MemoryKind::UB, input.box, [&](int b) { return !produced(b); });
      if (loaded < 0) loaded = findBuffer(MemoryKind::UB, input.box);
      if (loaded >= 0) pieces.push_back(loaded);
    } else if (!containsBox(m_bufferBoxes[static_cast<std::size_t>(pieces.front())], input.box)) {
      // Made here only in part: the whole read loaded from GM goes under the pieces made here
      // (AllocateBuffers gave it a buffer when they do not cover it together).
      int loaded = findBuffer(MemoryKind::UB, input.box, [&](int b) {
        return !produced(b) && containsBox(m_bufferBoxes[static_cast<std::size_t>(b)], input.box);
      });
      if (loaded >= 0) pieces.insert(pieces.begin(), loaded);
    }
    return pieces;
  }

  bool lowerVector() {
    std::vector<std::vector<std::pair<int, int>>> loadsAt;
    std::vector<std::vector<int>> storesAfter;
    if (!loadsByFirstUse(MemoryKind::UB, loadsAt, nullptr) || !storesByWriter(storesAfter)) return false;
    for (int p = 0; p < opCount(); ++p) {
      const Op& entry = m_ops[static_cast<std::size_t>(p)];
      const TileOp& op = *entry.op;
      for (auto [copyIn, b] : loadsAt[static_cast<std::size_t>(p)]) emitLoad(copyIn, b, op);
      if (gathersRowsFromGm(op)) {
        if (!lowerGather(p, entry, MemoryKind::UB)) return false;
      } else if (scattersRowsToGm(op)) {
        if (!lowerScatter(p, entry)) return false;
      } else if (std::optional<PtoOpcode> opcode = vectorOpcode(op, m_tiles.graph.op(op.tensorOp))) {
        PtoInstruction compute = instruction(*opcode, op);
        compute.accumulate = op.accumulate;
        for (const Placed& input : entry.inputs) {
          std::vector<int> pieces = ubPieces(p, input);
          if (pieces.empty())
            return internalError(locationOf(op)) << "input " << text(input.region) << " of tile op " << op.id << " ("
                                                 << name(op.kind) << ") is in no UB buffer";
          for (int b : pieces) compute.srcs.push_back(bufferOperand(b, input));
        }
        for (const Placed& output : entry.outputs) {
          int b = findBuffer(MemoryKind::UB, output.box);
          if (b < 0)
            return internalError(locationOf(op)) << "result " << text(output.region) << " of tile op " << op.id << " ("
                                                 << name(op.kind) << ") has no UB buffer";
          compute.dst.push_back(bufferOperand(b, output));
        }
        for (const auto* operands : {&compute.dst, &compute.srcs})
          for (const PtoOperand& operand : *operands)
            compute.elements = std::max(compute.elements, elementCountOf(operand.shape));
        m_program.instructions.push_back(std::move(compute));
      }
      for (int j : storesAfter[static_cast<std::size_t>(p)]) {
        const Placed& placed = m_copyOuts[static_cast<std::size_t>(j)];
        int b = findBuffer(MemoryKind::UB, placed.box);
        if (b < 0)
          return internalError(locationOf(op))
                 << "copy-out " << j << " (" << text(placed.region) << ") has no UB buffer";
        emitTransfer(PtoOpcode::TSTORE, op, gmOperand(false, j), bufferOperand(b, placed), placed.region);
      }
    }
    return true;
  }

  // An index_select tile whose source stays in GM: MGATHER on MTE2 copies
  // the rows its index tile names straight into the result's buffer (UB;
  // L1 for gather_in_l1, whose index is then read from GM as well).
  bool lowerGather(int p, const Op& entry, MemoryKind into) {
    const TileOp& op = *entry.op;
    if (entry.inputs.size() != 2 || entry.outputs.size() != 1)
      return internalError(locationOf(op)) << "gather tile op " << op.id << " needs a source, an index and one result";
    auto gatherSource = [&](const Placed& placed) {
      for (std::size_t j = 0; j < m_gatherSources.size(); ++j)
        if (m_gatherSources[j].box == placed.box) return static_cast<int>(j);
      return -1;
    };
    const int source = gatherSource(entry.inputs[0]);
    const Placed& index = entry.inputs[1];
    const bool indexInGm = readsInPlace(op, 1);
    int indexAt = indexInGm ? gatherSource(index) : findBuffer(MemoryKind::UB, index.box, [&](int b) {
      return containsBox(m_bufferBoxes[static_cast<std::size_t>(b)], index.box) &&
             (buffer(b).producer == kNoId || buffer(b).firstUse < p);
    });
    int result = findBuffer(into, entry.outputs[0].box);
    if (source < 0 || indexAt < 0 || result < 0)
      return internalError(locationOf(op)) << "gather tile op " << op.id << " lacks its "
                                           << (source < 0 ? "GM source" : indexAt < 0 ? "index" : "result buffer");
    PtoInstruction gather = instruction(PtoOpcode::MGATHER, op);
    gather.dst.push_back(bufferOperand(result, entry.outputs[0]));
    gather.srcs.push_back(gatherSourceOperand(source));
    gather.srcs.push_back(indexInGm ? gatherSourceOperand(indexAt) : bufferOperand(indexAt, index));
    gather.elements = elementCountOf(entry.outputs[0].region.shape);
    gather.bytes = gather.elements * static_cast<std::int64_t>(sizeOf(dtypeOf(entry.outputs[0].region)));
    m_program.instructions.push_back(std::move(gather));
    return true;
  }

  // A scatter_update tile of the paged-cache form: MSCATTER on MTE3 writes
  // row i of its rows tile (in UB, loaded or made earlier here) over row
  // index[i] of the GM region; the other rows stay as they are. Its sources
  // are in the tile op's input order, index then rows, each in the pieces
  // that hold it (a computed index may be made in tiles of another cut).
  bool lowerScatter(int p, const Op& entry) {
    const TileOp& op = *entry.op;
    if (entry.inputs.size() != 2 || entry.outputs.size() != 1)
      return internalError(locationOf(op)) << "scatter tile op " << op.id << " needs an index, rows and one target";
    int target = -1;
    for (std::size_t j = 0; j < m_scatterTargets.size() && target < 0; ++j)
      if (m_scatterTargets[j].box == entry.outputs[0].box) target = static_cast<int>(j);
    if (target < 0) return internalError(locationOf(op)) << "scatter tile op " << op.id << " lacks its GM target";
    PtoInstruction scatter = instruction(PtoOpcode::MSCATTER, op);
    scatter.dst.push_back(scatterTargetOperand(target));
    for (const Placed& input : entry.inputs) {
      std::vector<int> pieces = ubPieces(p, input);
      if (pieces.empty())
        return internalError(locationOf(op)) << "input " << text(input.region) << " of scatter tile op " << op.id
                                             << " is in no UB buffer";
      for (int b : pieces) scatter.srcs.push_back(bufferOperand(b, input));
    }
    scatter.elements = elementCountOf(entry.inputs[1].region.shape);
    scatter.bytes = scatter.elements * static_cast<std::int64_t>(sizeOf(dtypeOf(entry.inputs[1].region)));
    m_program.instructions.push_back(std::move(scatter));
    return true;
  }

  // ---- cube subgraphs ------------------------------------------------------

  // The first op position reading what may overlap `box`; -1 when none.
  int firstReaderOf(const RegionBox& box, int from = 0) const {
    for (int p = from; p < opCount(); ++p)
      for (const Placed& input : m_ops[static_cast<std::size_t>(p)].inputs)
        if (mayOverlap(input.box, box, OverlapMode::SameIteration)) return p;
    return -1;
  }

  bool madeByMatmul(int b) const {
    TileOpId producer = buffer(b).producer;
    return producer != kNoId && m_tiles.tileOp(producer).kind == TensorOpKind::Matmul;
  }

  // The Cast a matmul's tensor op ends in, which the fixpipe applies on the way out of L0C (a Cast op of the
  // kernel's own is a vector op: on a machine with a UB -> L1 path it may make a matmul operand here).
  bool isFixpipeCast(const TileOp& op) const {
    return op.kind == TensorOpKind::Cast && m_tiles.graph.op(op.tensorOp).kind == TensorOpKind::Matmul;
  }

  // A UB buffer of a cube subgraph that a copy-in fills: nothing here makes its tile, and no matmul
  // accumulator of the subgraph holds it (then a TMOV_ACC fills it).
  bool loadedFromGm(int b) const {
    if (buffer(b).producer != kNoId) return false;
    return findBuffer(MemoryKind::L0C, m_bufferBoxes[static_cast<std::size_t>(b)],
                      [&](int c) { return madeByMatmul(c); }) < 0;
  }

  bool lowerCube() {
    // Copy-ins: A/B tiles into L1; an accumulator held in L0C continues an
    // accumulation from GM (split k); what a vector op reads (mixed subgraphs)
    // into a UB tile.
    std::vector<std::vector<std::pair<int, int>>> loadsAt(m_ops.size());
    for (std::size_t i = 0; i < m_copyIns.size(); ++i) {
      const Placed& placed = m_copyIns[i];
      int b = findBuffer(MemoryKind::L1, placed.box);
      if (b < 0) b = findBuffer(MemoryKind::L0C, placed.box, [&](int c) { return madeByMatmul(c); });
      // The UB buffer AllocateBuffers gave a vector op's input (as well, when a matmul reads it from L1).
      int ub = findBuffer(MemoryKind::UB, placed.box, [&](int c) { return loadedFromGm(c); });
      if (b < 0 && ub < 0) {
        int reader = firstReaderOf(placed.box);
        if (reader >= 0) b = addUbTile(placed, kNoId, reader);
      }
      if (b < 0 && ub < 0)
        return internalError(locationOfSubgraph())
               << "copy-in " << i << " (" << text(placed.region) << ") has no buffer and no reader";
      if (m_ops.empty()) continue;
      // Merged members that load the same data each into their own L1 buffer (AllocateBuffers, when
      // sharing it does not fit): one load per buffer, at its first use.
      std::vector<int> targets{b, ub};
      if (auto found = m_exact[static_cast<std::size_t>(MemoryKind::L1)].find(placed.box);
          b >= 0 && found != m_exact[static_cast<std::size_t>(MemoryKind::L1)].end() && found->second.size() > 1)
        for (int other : found->second)
          if (other != b && buffer(other).producer == kNoId) targets.push_back(other);
      for (int into : targets)
        if (into >= 0)
          loadsAt[static_cast<std::size_t>(std::clamp(buffer(into).firstUse, 0, opCount() - 1))].emplace_back(
              static_cast<int>(i), into);
    }
    std::vector<std::vector<int>> storesAfter;
    if (!storesByWriter(storesAfter)) return false;
    std::vector<bool> loaded(m_buffers.size(), false);
    m_filled.assign(m_buffers.size(), false);
    for (int p = 0; p < opCount(); ++p) {
      const Op& entry = m_ops[static_cast<std::size_t>(p)];
      const TileOp& op = *entry.op;
      for (auto [copyIn, b] : loadsAt[static_cast<std::size_t>(p)]) {
        emitLoad(copyIn, b, op);
        loaded[static_cast<std::size_t>(b)] = true;
        m_filled[static_cast<std::size_t>(b)] = true;
      }
      loaded.resize(m_buffers.size(), false);
      m_filled.resize(m_buffers.size(), false);
      bool ok = true;
      if (gathersIntoL1(op)) {
        ok = lowerGather(p, entry, MemoryKind::L1);
        if (int b = findBuffer(MemoryKind::L1, entry.outputs[0].box); b >= 0) {
          loaded[static_cast<std::size_t>(b)] = true;
          m_filled[static_cast<std::size_t>(b)] = true;
        }
      } else if (gathersRowsFromGm(op) || scattersRowsToGm(op)) {
        // As in vector subgraphs: the MGATHER fills its result's UB tile, the MSCATTER writes its rows to GM.
        ok = moveMatmulResultsToUb(p, entry);
        ok = ok && (gathersRowsFromGm(op) ? lowerGather(p, entry, MemoryKind::UB) : lowerScatter(p, entry));
      } else if (op.kind == TensorOpKind::Matmul)
        ok = lowerMatmul(p, entry, loaded);
      else if (isFixpipeCast(op))
        ok = lowerFixpipeCast(p, entry);
      else if (op.kind != TensorOpKind::View)
        ok = lowerVectorOpOfCube(p, entry);
      if (!ok) return false;
      for (int j : storesAfter[static_cast<std::size_t>(p)])
        if (!lowerCubeStore(j, entry)) return false;
    }
    return true;
  }

  bool lowerMatmul(int p, const Op& entry, const std::vector<bool>& loaded) {
    const TileOp& op = *entry.op;
    if (entry.inputs.size() != 2 || entry.outputs.size() != 1)
      return internalError(locationOf(op)) << "matmul tile op " << op.id << " needs two inputs and one output";
    const Placed& a = entry.inputs[0];
    const Placed& b = entry.inputs[1];
    const Placed& c = entry.outputs[0];
    // The buffers live here: a merged subgraph's members may each have their own for the same data.
    const auto liveHere = [&](int buf) { return buffer(buf).firstUse <= p && p <= buffer(buf).lastUse; };
    int a1 = findBuffer(MemoryKind::L1, a.box, liveHere), b1 = findBuffer(MemoryKind::L1, b.box, liveHere);
    int a0 = findBuffer(MemoryKind::L0A, a.box, liveHere), b0 = findBuffer(MemoryKind::L0B, b.box, liveHere);
    int c0 = findBuffer(MemoryKind::L0C, c.box);
    if (a1 < 0 || b1 < 0 || a0 < 0 || b0 < 0 || c0 < 0)
      return internalError(locationOf(op)) << "matmul tile op " << op.id << " lacks a buffer (L1 A/B, L0A, L0B or L0C)";
    auto move = [&](int from, int to, const Placed& placed) {
      emitTransfer(PtoOpcode::TMOV, op, bufferOperand(to, placed), bufferOperand(from, placed), placed.region);
    };
    // An operand a vector op of this subgraph made (machines with a UB -> L1 path): it goes from its UB tile
    // into the L1 buffer before its first move to L0A/L0B, over MTE3 (PyPTO's UB_COPY_L1 runs on PIPE_MTE3).
    // An operand made in pieces (vector tiles smaller than the cube's) goes piece by piece.
    for (auto [l1, placed] : {std::pair{a1, &a}, std::pair{b1, &b}}) {
      if (m_filled[static_cast<std::size_t>(l1)]) continue;
      std::vector<int> made = ubPieces(p, *placed);
      std::erase_if(made, [&](int u) { return buffer(u).producer == kNoId; });
      if (made.empty()) continue;
      if (!moveParts(PtoOpcode::TMOV, Pipe::MTE3, op, made, l1, *placed))
        return internalError(locationOf(op)) << "operand " << text(placed->region) << " of matmul tile op " << op.id
                                             << " is made in this subgraph only in part";
    }
    // L0A/L0B buffers keep their tile for their whole live range.
    if (buffer(a0).firstUse == p) move(a1, a0, a);
    if (buffer(b0).firstUse == p) move(b1, b0, b);
    // The first k-step in L0C starts afresh unless the accumulator was loaded.
    bool fresh = buffer(c0).firstUse == p && !loaded[static_cast<std::size_t>(c0)];
    bool accumulate = op.accumulate != TileAccumulate::None && !fresh;
    PtoInstruction mac = instruction(accumulate ? PtoOpcode::TMATMUL_ACC : PtoOpcode::TMATMUL, op);
    mac.accumulate = accumulate ? op.accumulate : TileAccumulate::None;
    mac.dst.push_back(bufferOperand(c0, c));
    mac.srcs.push_back(bufferOperand(a0, a));
    mac.srcs.push_back(bufferOperand(b0, b));
    mac.elements = elementCountOf(a.region.shape) * (c.region.shape.empty() ? 1 : c.region.shape.back());
    m_program.instructions.push_back(std::move(mac));
    return true;
  }

  // TMOV_ACC from L0C into UB for `placed`, converting to its dtype: into `tile`, the buffer AllocateBuffers
  // planned for it, else into a tile added above the plan (a subgraph planned without it).
  int moveOutOfL0C(int c0, const Placed& from, const Placed& placed, const TileOp& op, int p, int tile = -1) {
    if (tile < 0) tile = addUbTile(placed, op.id, p);
    emitTransfer(PtoOpcode::TMOV_ACC, op, bufferOperand(tile, placed), bufferOperand(c0, from), placed.region);
    m_filled.resize(m_buffers.size(), false);
    m_filled[static_cast<std::size_t>(tile)] = true;
    return tile;
  }

  // The elements `read` shares with `box` (of the same tensor, equal symbolic parts), as a region of its own;
  // nullopt when they surely share none or cannot be told apart at compile time.
  std::optional<Placed> commonPart(const Placed& read, const RegionBox& box) const {
    const RegionBox& outer = read.box;
    if (box.tensor != outer.tensor || box.rank != outer.rank || box.truncated || outer.truncated ||
        read.region.offsets.size() != outer.rank)
      return std::nullopt;
    Placed part{read.region, outer};
    part.region.valid.clear();
    for (std::size_t d = 0; d < outer.rank; ++d) {
      if (box.symbol[d] != outer.symbol[d]) return std::nullopt;
      const std::int64_t lo = std::max(box.lo[d], outer.lo[d]), hi = std::min(box.hi[d], outer.hi[d]);
      if (lo >= hi) return std::nullopt;
      part.region.offsets[d] = read.region.offsets[d] + SymbolicScalar(lo - outer.lo[d]);
      part.region.shape[d] = hi - lo;
      part.box.lo[d] = lo;
      part.box.hi[d] = hi;
    }
    return part;
  }

  // Moves what buffers `sources` hold of `read` into buffer `into` (which holds all of `read`), each part by
  // one `opcode` on `pipe`, in the order given (a later source's part overwrites an earlier one's). False when
  // the parts do not cover `read`.
  bool moveParts(PtoOpcode opcode, Pipe pipe, const TileOp& op, const std::vector<int>& sources, int into,
                 const Placed& read) {
    std::vector<Placed> parts;
    for (int source : sources)
      if (std::optional<Placed> part = commonPart(read, m_bufferBoxes[static_cast<std::size_t>(source)]))
        parts.push_back(std::move(*part));
    std::vector<const RegionBox*> boxes;
    for (const Placed& part : parts) boxes.push_back(&part.box);
    if (parts.empty() || !(containsBox(parts.front().box, read.box) || coveredTogether(read.box, boxes)))
      return false;
    std::size_t k = 0;
    for (int source : sources) {
      if (!commonPart(read, m_bufferBoxes[static_cast<std::size_t>(source)])) continue;
      const Placed& part = parts[k++];
      emitTransfer(opcode, op, bufferOperand(into, part), bufferOperand(source, part), part.region);
      m_program.instructions.back().pipe = pipe;
    }
    m_filled.resize(m_buffers.size(), false);
    m_filled[static_cast<std::size_t>(into)] = true;
    return true;
  }

  // A read spanning several matmul results (a [12, 1024] row block of [12, 128] output tiles): each
  // accumulator goes by its own TMOV_ACC into its part of the UB tile for the read (`tile`, planned, or
  // added above the plan when -1).
  int moveTilesOutOfL0C(const Placed& read, const TileOp& op, int p, int tile) {
    if (tile < 0) tile = addUbTile(read, op.id, p);
    std::vector<int> accumulators;
    m_grid[static_cast<std::size_t>(MemoryKind::L0C)].forEachOverlapping(read.box, [&](int c) {
      if (madeByMatmul(c)) accumulators.push_back(c);
    });
    std::sort(accumulators.begin(), accumulators.end());
    accumulators.erase(std::unique(accumulators.begin(), accumulators.end()), accumulators.end());
    return moveParts(PtoOpcode::TMOV_ACC, Pipe::FIXPIPE, op, accumulators, tile, read) ? tile : -1;
  }

  // The Cast of a matmul result: the fixpipe converts it on its way to GM
  // (the TSTORE_ACC of the copy-out); a vector op of the subgraph that reads
  // it gets it in UB.
  bool lowerFixpipeCast(int p, const Op& entry) {
    if (entry.inputs.size() != 1 || entry.outputs.size() != 1)
      return internalError(locationOf(*entry.op))
             << "cast tile op " << entry.op->id << " needs one input and one output";
    if (firstReaderOf(entry.outputs[0].box, p + 1) < 0) return true;
    int c0 = findBuffer(MemoryKind::L0C, entry.inputs[0].box);
    if (c0 < 0)
      return internalError(locationOf(*entry.op))
             << "the input of cast tile op " << entry.op->id << " is in no L0C buffer";
    const TileOpId cast = entry.op->id;
    int planned = findBuffer(MemoryKind::UB, entry.outputs[0].box, [&](int b) { return buffer(b).producer == cast; });
    moveOutOfL0C(c0, entry.inputs[0], entry.outputs[0], *entry.op, p, planned);
    return true;
  }

  // The inputs of the vector op at p that matmuls of this subgraph left in L0C and no op moved out yet:
  // each goes into UB now, into the buffer AllocateBuffers planned for the read when there is one. `moved`
  // (when given) gets the UB buffer of each input moved, -1 for the others.
  bool moveMatmulResultsToUb(int p, const Op& entry, std::vector<int>* moved = nullptr) {
    m_filled.resize(m_buffers.size(), false);
    for (std::size_t i = 0; i < entry.inputs.size(); ++i) {
      const Placed& input = entry.inputs[i];
      int b = findBuffer(MemoryKind::UB, input.box);
      const bool waiting = b >= 0 && !m_filled[static_cast<std::size_t>(b)] && buffer(b).producer == kNoId;
      int c0 = b < 0 || waiting ? findBuffer(MemoryKind::L0C, input.box, [&](int c) { return madeByMatmul(c); }) : -1;
      if (c0 < 0) continue;
      b = containsBox(m_bufferBoxes[static_cast<std::size_t>(c0)], input.box)
              ? moveOutOfL0C(c0, input, input, *entry.op, p, b)
              : moveTilesOutOfL0C(input, *entry.op, p, b);
      if (b < 0)
        return internalError(locationOf(*entry.op))
               << "input " << text(input.region) << " of tile op " << entry.op->id << " is held in L0C only in part";
      if (moved) (*moved)[i] = b;
    }
    return true;
  }

  // A vector op in a cube subgraph (the machine passes L0C to UB): its
  // matmul inputs leave L0C by TMOV_ACC, the rest is as in vector subgraphs.
  bool lowerVectorOpOfCube(int p, const Op& entry) {
    const TileOp& op = *entry.op;
    std::optional<PtoOpcode> opcode = vectorOpcode(op, m_tiles.graph.op(op.tensorOp));
    if (!opcode) return true;
    PtoInstruction compute = instruction(*opcode, op);
    compute.accumulate = op.accumulate;
    m_filled.resize(m_buffers.size(), false);
    std::vector<int> moved(entry.inputs.size(), -1);
    if (!moveMatmulResultsToUb(p, entry, &moved)) return false;
    for (std::size_t i = 0; i < entry.inputs.size(); ++i) {
      const Placed& input = entry.inputs[i];
      int b = moved[i];
      if (b < 0) {
        // Made earlier here (in one tile or several: a fixpipe's [8, 128] results read as one [8, 1536] row
        // block), or loaded: read where it is, as in a vector subgraph.
        if (std::vector<int> pieces = ubPieces(p, input); !pieces.empty()) {
          for (int piece : pieces) compute.srcs.push_back(bufferOperand(piece, input));
          continue;
        }
        // A copy-in the cube side loaded into L1 only: load it into UB as well.
        for (std::size_t c = 0; c < m_copyIns.size() && b < 0; ++c)
          if (containsBox(m_copyIns[c].box, input.box)) {
            b = addUbTile(m_copyIns[c], kNoId, p);
            emitLoad(static_cast<int>(c), b, op);
          }
      }
      if (b < 0)
        return internalError(locationOf(op)) << "input " << text(input.region) << " of tile op " << op.id << " ("
                                             << name(op.kind) << ") is in no buffer";
      compute.srcs.push_back(bufferOperand(b, input));
    }
    for (const Placed& output : entry.outputs) {
      int b = findBuffer(MemoryKind::UB, output.box);
      if (b < 0) b = addUbTile(output, op.id, p);
      m_filled.resize(m_buffers.size(), false);
      m_filled[static_cast<std::size_t>(b)] = true;
      compute.dst.push_back(bufferOperand(b, output));
    }
    for (const auto* operands : {&compute.dst, &compute.srcs})
      for (const PtoOperand& operand : *operands)
        compute.elements = std::max(compute.elements, elementCountOf(operand.shape));
    m_program.instructions.push_back(std::move(compute));
    return true;
  }

  bool lowerCubeStore(int j, const Op& writer) {
    const Placed& placed = m_copyOuts[static_cast<std::size_t>(j)];
    const TileOp& op = *writer.op;
    if (gathersIntoL1(op))
      return m_diags.error(locationOf(op))
             << "gather_in_l1's rows are needed outside the cube task that gathers them (" << text(placed.region)
             << " goes to global memory), but L1 has no path back to global memory; use gather_in_ub for rows "
                "that vector ops or later tasks read, and gather_in_l1 only for the matmul operand right after it";
    bool fromUb = op.kind != TensorOpKind::Matmul && !isFixpipeCast(op);
    // A converted result leaves the accumulator its Cast reads.
    const Placed& held = isFixpipeCast(op) && !writer.inputs.empty() ? writer.inputs[0] : placed;
    int b = findBuffer(fromUb ? MemoryKind::UB : MemoryKind::L0C, held.box);
    if (b < 0)
      return internalError(locationOf(op)) << "copy-out " << j << " (" << text(placed.region) << ") is in no "
                                           << (fromUb ? "UB" : "L0C") << " buffer";
    emitTransfer(fromUb ? PtoOpcode::TSTORE : PtoOpcode::TSTORE_ACC, op, gmOperand(false, j), bufferOperand(b, held),
                 placed.region);
    return true;
  }

  const TileGraph& m_tiles;
  const Subgraph& m_subgraph;
  DiagnosticEngine& m_diags;
  PtoProgram m_program;
  RegionBoxes m_boxes;
  std::vector<Op> m_ops;  // the subgraph's ops, regions on storage
  std::vector<Placed> m_copyIns, m_copyOuts;
  std::vector<BufferAllocation> m_buffers;  // AllocateBuffers' and then the UB tiles added here
  std::vector<RegionBox> m_bufferBoxes;           // per buffer
  std::int64_t m_ubTop = 0;                 // where the next added UB tile goes
  std::vector<bool> m_filled;               // cube subgraphs: per buffer, whether it holds its tile yet
  // Buffers that hold data, per memory: by exact box (in index order) and by overlap.
  std::array<std::unordered_map<RegionBox, std::vector<int>, RegionBoxHash>, kMemoryKindCount> m_exact;
  // Queries stamp and unlink entries, so the const lookups may change it.
  mutable std::array<RegionIndex, kMemoryKindCount> m_grid;
  std::vector<Placed> m_gatherSources, m_scatterTargets;
  std::vector<int> m_inAlias, m_outAlias, m_gatherAlias, m_scatterAlias;
};

} // namespace

bool lowerToPto(Compilation& compilation, DiagnosticEngine& diags) {
  const BlockGraph& blocks = compilation.blocks;
  compilation.programs.assign(static_cast<std::size_t>(std::max(blocks.programCount, 0)), PtoProgram{});
  std::vector<bool> lowered(compilation.programs.size(), false);
  for (const Subgraph& subgraph : blocks.subgraphs) {
    if (subgraph.programId < 0 || subgraph.programId >= blocks.programCount) {
      SourceLocation location =
          subgraph.ops.empty()
              ? compilation.tiles.graph.kernelLocation
              : compilation.tiles.graph.op(compilation.tiles.tileOp(subgraph.ops[0]).tensorOp).location;
      return diags.error(location) << "internal error in LowerToPto: subgraph " << subgraph.id << " has program id "
                                   << subgraph.programId << " outside 0.." << blocks.programCount - 1;
    }
    std::size_t id = static_cast<std::size_t>(subgraph.programId);
    if (lowered[id]) continue;
    std::optional<PtoProgram> program = Lowering(compilation, subgraph, diags).run();
    if (!program) return false;
    compilation.programs[id] = std::move(*program);
    lowered[id] = true;
  }
  return true;
}

} // namespace pto
