// Implementation of RemoveRedundantOp.
#include "compiler/passes/RemoveRedundantOp.h"

#include "compiler/ir/BlockGraph.h"
#include "core/Shape.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <utility>

namespace pto {

TileRegion resolveViews(const TensorGraph& graph, TileRegion region) {
  while (true) {
    const TensorValue& tensor = graph.tensor(region.tensor);
    if (tensor.role != TensorRole::View || tensor.base == kNoId) return region;
    for (std::size_t d = 0; d < region.offsets.size(); ++d)
      region.offsets[d] = simplify(tensor.offsets[d] + region.offsets[d]);
    region.tensor = tensor.base;
  }
}

namespace {

void dropUnlistedTileOps(TileGraph& tiles);

// Where each tensor op stands: the path listing it and its statement there.
struct Place {
  const Path* path = nullptr;
  std::size_t statement = 0;
};

std::vector<Place> placesOfOps(const TensorGraph& graph) {
  std::vector<Place> places(graph.ops().size());
  std::function<void(const Region&)> visit = [&](const Region& region) {
    for (const Path& path : region.paths)
      for (std::size_t s = 0; s < path.statements.size(); ++s) {
        const Statement& statement = path.statements[s];
        if (statement.kind == Statement::Kind::Op)
          places[static_cast<std::size_t>(statement.id)] = Place{&path, s};
        else
          for (const LoopBody& body : graph.loop(statement.id).bodies) visit(body.region);
      }
  };
  visit(graph.body);
  return places;
}

// Whether `touches` holds for the op of `statement` or, for a loop, for any
// op inside it (every body and path, nested loops too).
bool anyOpIn(const TensorGraph& graph, const Statement& statement, const std::function<bool(OpId)>& touches) {
  if (statement.kind == Statement::Kind::Op) return touches(statement.id);
  for (const LoopBody& body : graph.loop(statement.id).bodies)
    for (const Path& path : body.region.paths)
      for (const Statement& inner : path.statements)
        if (anyOpIn(graph, inner, touches)) return true;
  return false;
}

// `out[...] = expr` and `out.move(expr)` copy a temporary that exists only to
// be copied. When nothing else reads the temporary and nothing touches the
// destination between the producer and the copy, the producer's tiles write
// the destination directly and the copy disappears (no tile ops, no tasks,
// no round trip through global memory).
void forwardMovesIntoProducers(TileGraph& tiles) {
  const TensorGraph& graph = tiles.graph;
  const std::vector<Place> places = placesOfOps(graph);
  // Which tensor ops read / write each storage tensor (through tile regions;
  // a read of a folded reshape reads its source's bytes too).
  std::map<TensorId, std::set<OpId>> readers, writers;
  // The tile ops of one tensor op touch the same few tensors: each pair is
  // put in the sets once, not once per tile (two tree lookups per region).
  OpId walking = kNoId;
  std::vector<TensorId> read, written;  // by the tensor op being walked
  auto first = [](std::vector<TensorId>& seen, TensorId tensor) {
    if (std::find(seen.begin(), seen.end(), tensor) != seen.end()) return false;
    seen.push_back(tensor);
    return true;
  };
  for (const TileOp& op : tiles.tileOps()) {
    if (op.tensorOp != walking) {
      walking = op.tensorOp;
      read.clear();
      written.clear();
    }
    for (const TileRegion& region : op.inputs) {
      if (!first(read, region.tensor)) continue;
      readers[region.tensor].insert(op.tensorOp);
      if (const TensorId bytes = graph.tensor(region.tensor).reshapeOf; bytes != kNoId) readers[bytes].insert(op.tensorOp);
    }
    for (const TileRegion& region : op.outputs)
      if (first(written, region.tensor)) writers[region.tensor].insert(op.tensorOp);
  }
  std::set<TensorId> aliased;  // tensors whose bytes a folded reshape reads under another name
  for (const TensorValue& value : graph.tensors())
    if (value.reshapeOf != kNoId) aliased.insert(value.reshapeOf);
  std::set<OpId> forwarded;
  for (const TensorOp& move : graph.ops()) {
    if (move.kind != TensorOpKind::Assemble && move.kind != TensorOpKind::Copy) continue;
    if (tiles.tilesOf(move.id).empty()) continue;
    TensorId source = move.inputs[0];
    TensorId target = graph.storageOf(move.outputs[0]);
    const TensorValue& temporary = graph.tensor(source);
    if (temporary.role != TensorRole::Temporary || temporary.producer == kNoId) continue;
    if (!readers[source].count(move.id) || writers[source].size() != 1) continue;
    OpId producer = *writers[source].begin();
    if (forwarded.count(producer)) continue;
    if (tiles.shapeOf(source).size() != tiles.shapeOf(target).size()) continue;
    // Producer and copy in one path (one loop body, one condition path), and
    // nothing between them may read or write the destination, loops between
    // them included (a loop writing it would otherwise come after the
    // forwarded write, which the copy made the last).
    const Place& from = places[static_cast<std::size_t>(producer)];
    const Place& to = places[static_cast<std::size_t>(move.id)];
    if (!from.path || from.path != to.path || from.statement > to.statement) continue;
    // Other readers of the temporary (RmsNorm's result assembled into an output and also fed to the next
    // matmul) then read the destination, which holds the same values from the producer on: as PyPTO's
    // ReplaceTensor gives an assemble's input and output one storage, so that the assemble moves nothing
    // and no tile of its vec-tile shape is made. Only readers that are ops of the same path between producer
    // and copy: nothing touches the destination there, and after the copy it may change.
    bool readersBetween = readers[source].size() == 1 || !aliased.count(source);
    for (OpId reader : readers[source]) {
      if (reader == move.id) continue;
      const Place& at = places[static_cast<std::size_t>(reader)];
      readersBetween = readersBetween && at.path == from.path && at.statement > from.statement &&
                       at.statement < to.statement;
    }
    if (!readersBetween) continue;
    auto touchesTarget = [&](OpId op) { return readers[target].count(op) || writers[target].count(op); };
    bool clear = true;
    for (std::size_t s = from.statement + 1; s < to.statement && clear; ++s)
      clear = !anyOpIn(graph, from.path->statements[s], touchesTarget);
    if (!clear || readers[target].count(producer)) continue;
    // An assemble clipped at the target's end (ExpandFunction) moves only part of the temporary: the
    // producer's other tiles would land past the end.
    std::int64_t moved = 0;
    for (TileOpId id : tiles.tilesOf(move.id)) moved += elementCountOf(tiles.tileOp(id).inputs[0].shape);
    if (moved != elementCountOf(tiles.shapeOf(source))) continue;
    // The destination region starts where the copy puts the temporary's first element.
    const TileOp& firstMove = tiles.tileOp(tiles.tilesOf(move.id).front());
    SymbolicShape base;
    for (std::size_t d = 0; d < firstMove.outputs[0].offsets.size(); ++d)
      base.push_back(simplify(firstMove.outputs[0].offsets[d] - firstMove.inputs[0].offsets[d]));
    auto redirect = [&](TileRegion& region) {
      if (region.tensor != source) return;
      region.tensor = target;
      for (std::size_t d = 0; d < region.offsets.size(); ++d) region.offsets[d] = simplify(region.offsets[d] + base[d]);
    };
    for (TileOpId id : tiles.tilesOf(producer))
      for (TileRegion& region : tiles.tileOp(id).outputs) redirect(region);
    for (OpId reader : readers[source]) {
      if (reader == move.id) continue;
      for (TileOpId id : tiles.tilesOf(reader)) {
        for (TileRegion& region : tiles.tileOp(id).inputs) redirect(region);
        readers[target].insert(reader);
      }
    }
    forwarded.insert(producer);
    tiles.setTilesOf(move.id, {});
  }
  if (!forwarded.empty()) dropUnlistedTileOps(tiles);
}

// Drops tile ops whose tensor op no longer lists them.
void dropUnlistedTileOps(TileGraph& tiles) {
  std::vector<bool> live(tiles.tileOps().size(), false);
  for (const TensorOp& op : tiles.graph.ops())
    for (TileOpId id : tiles.tilesOf(op.id)) live[static_cast<std::size_t>(id)] = true;
  tiles.removeTileOpsIf([&](const TileOp& op) { return !live[static_cast<std::size_t>(op.id)]; });
}

// Whether every tile a reshape's copies read is a tile one vector op wrote
// whole: then producer, copy and reader share the tile cut and may stay in
// one subgraph, where the copy is a move within the unified buffer (PyPTO
// reshapes such aligned tiles in the buffer), cheaper than a round trip
// through global memory, which the alias would force.
bool reshapesTilesInPlace(const TileGraph& tiles, const std::vector<TileOpId>& copies,
                          const std::vector<const TileRegion*>& vectorWrites) {
  for (TileOpId id : copies) {
    const TileRegion& read = tiles.tileOp(id).inputs.front();
    const bool whole = std::any_of(vectorWrites.begin(), vectorWrites.end(), [&](const TileRegion* region) {
      return region->shape == read.shape && region->offsets == read.offsets;
    });
    if (!whole) return false;
  }
  return true;
}

// The regions vector ops write, by tensor. A cube result (a matmul's, or the
// cast fused into it) leaves the cube through global memory: not listed.
std::map<TensorId, std::vector<const TileRegion*>> vectorWritesOf(const TileGraph& tiles) {
  std::map<TensorId, std::vector<const TileRegion*>> writes;
  for (const TileOp& op : tiles.tileOps()) {
    if (op.kind == TensorOpKind::Matmul || tiles.graph.op(op.tensorOp).kind == TensorOpKind::Matmul) continue;
    for (const TileRegion& region : op.outputs) writes[region.tensor].push_back(&region);
  }
  return writes;
}

// Whether the kernel put the op into a subgraph of its own choosing
// (sg_set_scope): its neighbours there stay on chip, and so does the
// reshape, a move within the unified buffer.
bool pinnedToASubgraph(const TensorOp& op) {
  const nlohmann::ordered_json& options = op.passOptions;
  return options.is_object() && options.contains("sg_set_scope") && options["sg_set_scope"].is_number_integer() &&
         options["sg_set_scope"].get<std::int64_t>() >= 0;
}

// Reshapes and bitcasts of whole tensors become aliases (see the header):
// the op copies the source's bytes when it runs, and since nothing writes
// them after it in program order (nor writes the copy) the copy always
// equals the source. Writes before it are fine: the tasks that read the
// alias are ordered after them on the bytes both share
// (ExecuteGraph::aliases). The source is a kernel argument or a temporary an
// earlier op computed; a temporary's writes then all go to global memory
// (GenerateMoveOp), where the alias's readers load them in the new shape, as
// PyPTO's reshape of a tensor in global memory moves nothing.
void foldReshapes(TileGraph& tiles) {
  TensorGraph& graph = tiles.graph;
  // The tables below walk every tile op: not made for a kernel with nothing to fold.
  if (std::none_of(graph.ops().begin(), graph.ops().end(), [&](const TensorOp& op) {
        return (op.kind == TensorOpKind::Reshape || op.kind == TensorOpKind::Bitcast) && !tiles.tilesOf(op.id).empty();
      }))
    return;
  std::map<TensorId, std::vector<const TileRegion*>> vectorWrites = vectorWritesOf(tiles);
  std::map<TensorId, int> writers;  // tile ops writing each storage tensor
  std::map<TensorId, OpId> lastWriter;  // the latest tensor op writing each source's bytes, under any name
  auto bytesOf = [&](TensorId tensor) {
    return graph.tensor(tensor).reshapeOf != kNoId ? graph.tensor(tensor).reshapeOf : tensor;
  };
  for (const TileOp& op : tiles.tileOps())
    for (const TileRegion& region : op.outputs) {
      ++writers[region.tensor];
      OpId& last = lastWriter.try_emplace(bytesOf(region.tensor), op.tensorOp).first->second;
      last = std::max(last, op.tensorOp);
    }
  bool folded = false;
  for (const TensorOp& op : graph.ops()) {
    if (op.kind != TensorOpKind::Reshape && op.kind != TensorOpKind::Bitcast) continue;
    const std::vector<TileOpId>& ids = tiles.tilesOf(op.id);
    if (ids.empty()) continue;
    // One tile, or tiles (ExpandFunction cuts reshapes by the vec tile) that
    // between them copy the whole input to the whole output.
    TensorId from = kNoId, to = kNoId;
    std::int64_t inputElements = 0, outputElements = 0;
    bool plainCopies = true;
    for (TileOpId id : ids) {
      const TileOp& copy = tiles.tileOp(id);
      if (copy.inputs.size() != 1 || copy.outputs.size() != 1) {
        plainCopies = false;
        break;
      }
      if (from == kNoId) from = copy.inputs.front().tensor, to = copy.outputs.front().tensor;
      if (copy.inputs.front().tensor != from || copy.outputs.front().tensor != to) {
        plainCopies = false;
        break;
      }
      inputElements += elementCountOf(copy.inputs.front().shape);
      outputElements += elementCountOf(copy.outputs.front().shape);
    }
    if (!plainCopies) continue;
    // A reshape of a reshape already folded aliases the same bytes.
    TensorId root = bytesOf(from);
    const TensorRole rootRole = graph.tensor(root).role;
    if (rootRole != TensorRole::Argument && rootRole != TensorRole::Temporary) continue;
    if (auto written = lastWriter.find(root); written != lastWriter.end() && written->second > op.id) continue;
    if (graph.tensor(to).role != TensorRole::Temporary || writers[to] != static_cast<int>(ids.size())) continue;
    if (op.kind == TensorOpKind::Reshape && graph.tensor(to).dtype != graph.tensor(root).dtype) continue;
    if (inputElements != elementCountOf(tiles.shapeOf(from)) || outputElements != elementCountOf(tiles.shapeOf(to)))
      continue;
    if (rootRole == TensorRole::Temporary &&
        (pinnedToASubgraph(op) || reshapesTilesInPlace(tiles, ids, vectorWrites[from])))
      continue;
    graph.tensor(to).reshapeOf = root;
    writers.erase(to);
    tiles.setTilesOf(op.id, {});
    folded = true;
  }
  if (folded) dropUnlistedTileOps(tiles);
}

} // namespace

bool removeRedundantOp(Compilation& compilation, DiagnosticEngine&) {
  TileGraph& tiles = compilation.tiles;
  // Renumbering walks every tile op and counts as a change (TileGraph::tileOpsStamp): only when there are views.
  auto isView = [](const TileOp& op) { return op.kind == TensorOpKind::View; };
  if (std::any_of(tiles.tileOps().begin(), tiles.tileOps().end(), isView)) tiles.removeTileOpsIf(isView);
  // Only regions naming views change: the others are left untouched, not
  // copied (three allocations each) and assigned back.
  auto namesView = [&](const TileRegion& region) { return tiles.graph.tensor(region.tensor).role == TensorRole::View; };
  for (std::size_t i = 0; i < tiles.tileOps().size(); ++i) {
    const TileOp& reading = std::as_const(tiles).tileOp(static_cast<TileOpId>(i));
    if (std::none_of(reading.inputs.begin(), reading.inputs.end(), namesView) &&
        std::none_of(reading.outputs.begin(), reading.outputs.end(), namesView))
      continue;
    TileOp& op = tiles.tileOp(static_cast<TileOpId>(i));
    for (auto* regions : {&op.inputs, &op.outputs})
      for (TileRegion& region : *regions)
        if (namesView(region)) region = resolveViews(tiles.graph, std::move(region));
  }
  foldReshapes(tiles);
  return true;
}

bool forwardAssemble(Compilation& compilation, DiagnosticEngine&) {
  forwardMovesIntoProducers(compilation.tiles);
  return true;
}

} // namespace pto
