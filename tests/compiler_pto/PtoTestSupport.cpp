// Implementation of the PTO program tests' helpers.
#include "PtoTestSupport.h"

#include "compiler/passes/AllocateBuffers.h"
#include "compiler/passes/InsertSync.h"
#include "compiler/passes/LowerToPto.h"
#include "compiler/passes/OoOSchedule.h"
#include "compiler/passes/Pipeline.h"
#include "core/SymbolicSimplify.h"

#include <algorithm>
#include <map>

namespace pto::testing {

Compilation tiled(const TensorGraph& graph, const nlohmann::ordered_json& passOptions) {
  CompileSettings settings;
  settings.passOptions = passOptions;
  DiagnosticEngine diags;
  std::optional<CompileResult> result = compileKernel(graph, settings, diags);
  EXPECT_TRUE(result) << messages(diags);
  if (!result) return {};
  Compilation compilation = std::move(result->compilation);
  compilation.blocks = BlockGraph{};
  compilation.programs.clear();
  compilation.tasks = ExecuteGraph{};
  std::vector<ScopeId> scopeOfOp;
  compilation.blocks.scopes = collectScopes(compilation.tiles.graph, scopeOfOp);
  compilation.blocks.subgraphOfTileOp.assign(compilation.tiles.tileOps().size(), kNoId);
  return compilation;
}

namespace {

bool sameRegion(const TileRegion& a, const TileRegion& b) {
  if (a.tensor != b.tensor || a.shape != b.shape || a.offsets.size() != b.offsets.size()) return false;
  for (std::size_t d = 0; d < a.offsets.size(); ++d)
    if (!provablyEqual(a.offsets[d], b.offsets[d])) return false;
  return true;
}

void addOnce(std::vector<TileRegion>& list, const TileRegion& region) {
  for (const TileRegion& known : list)
    if (sameRegion(known, region)) return;
  list.push_back(region);
}

} // namespace

SubgraphId addSubgraph(Compilation& compilation, std::vector<TileOpId> ops, CoreType coreType) {
  const TileGraph& tiles = compilation.tiles;
  BlockGraph& blocks = compilation.blocks;
  std::vector<ScopeId> scopeOfOp;
  collectScopes(tiles.graph, scopeOfOp);
  Subgraph subgraph;
  subgraph.id = static_cast<SubgraphId>(blocks.subgraphs.size());
  subgraph.scope = ops.empty() ? 0 : scopeOfOp.at(static_cast<std::size_t>(tiles.tileOp(ops[0]).tensorOp));
  subgraph.coreType = coreType;
  subgraph.programId = blocks.programCount++;
  std::vector<TileRegion> written;
  for (TileOpId id : ops) {
    const TileOp& op = tiles.tileOp(id);
    auto read = [&](const TileRegion& region) {
      bool madeHere =
          std::any_of(written.begin(), written.end(), [&](const TileRegion& w) { return sameRegion(w, region); });
      if (!madeHere) addOnce(subgraph.copyIns, region);
    };
    for (const TileRegion& input : op.inputs) read(input);
    if (op.accumulate != TileAccumulate::None)
      for (const TileRegion& output : op.outputs) read(output);
    for (const TileRegion& output : op.outputs) {
      written.push_back(output);
      if (tiles.graph.tensor(tiles.graph.storageOf(output.tensor)).role == TensorRole::Argument)
        addOnce(subgraph.copyOuts, output);
    }
    blocks.subgraphOfTileOp.at(static_cast<std::size_t>(id)) = subgraph.id;
  }
  subgraph.ops = std::move(ops);
  subgraph.label = subgraph.ops.empty() ? "" : std::string(name(tiles.tileOp(subgraph.ops[0]).kind));
  blocks.subgraphs.push_back(std::move(subgraph));
  return blocks.subgraphs.back().id;
}

bool allocateAndLower(Compilation& compilation, std::string* errors) {
  DiagnosticEngine diags;
  bool ok = allocateBuffers(compilation, diags) && lowerToPto(compilation, diags);
  if (errors) *errors = messages(diags);
  return ok;
}

bool runBackEnd(Compilation& compilation, std::string* errors) {
  DiagnosticEngine diags;
  bool ok = allocateBuffers(compilation, diags) && lowerToPto(compilation, diags) && oooSchedule(compilation, diags) &&
            insertSync(compilation, diags);
  if (errors) *errors = messages(diags);
  return ok;
}

std::vector<TileOpId> tileOpsOfKind(const Compilation& compilation, TensorOpKind kind) {
  std::vector<TileOpId> ids;
  for (const TileOp& op : compilation.tiles.tileOps())
    if (op.kind == kind) ids.push_back(op.id);
  return ids;
}

std::vector<PtoInstruction> randomInstructions(std::mt19937& random, int count) {
  const Pipe pipes[] = {Pipe::MTE2, Pipe::MTE1, Pipe::CUBE, Pipe::FIXPIPE, Pipe::VECTOR, Pipe::MTE3};
  const PtoOpcode opcodes[] = {PtoOpcode::TLOAD,      PtoOpcode::TMOV, PtoOpcode::TMATMUL,
                               PtoOpcode::TSTORE_ACC, PtoOpcode::TADD, PtoOpcode::TSTORE};
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(random); };
  auto operand = [&]() {
    PtoOperand o;
    int memory = uniform(0, 4);
    if (memory == 0) {
      o.memory = MemoryKind::GM;
      o.gmAlias = uniform(0, 2);
      o.gmRegion = o.gmAlias;
      o.bytes = 64;
    } else {
      o.memory = memory <= 2 ? MemoryKind::UB : MemoryKind::L1;
      o.offsetBytes = 32 * uniform(0, 15);
      o.bytes = 32 * uniform(1, 4);
    }
    o.shape = {o.bytes / 4};
    return o;
  };
  std::vector<PtoInstruction> list;
  for (int i = 0; i < count; ++i) {
    int which = uniform(0, 5);
    PtoInstruction instruction;
    instruction.opcode = opcodes[which];
    instruction.pipe = pipes[which];
    instruction.dst.push_back(operand());
    int sources = uniform(0, 2);
    for (int s = 0; s < sources; ++s) instruction.srcs.push_back(operand());
    if (uniform(0, 5) == 0) instruction.accumulate = TileAccumulate::Add;
    instruction.tileOp = i;
    instruction.bytes = 64;
    instruction.elements = 16;
    list.push_back(std::move(instruction));
  }
  return list;
}

bool conflictByDefinition(const PtoInstruction& a, const PtoInstruction& b) {
  struct Access {
    const PtoOperand* operand;
    bool writes;
  };
  auto accesses = [](const PtoInstruction& instruction) {
    std::vector<Access> list;
    if (isSync(instruction.opcode)) return list;
    for (const PtoOperand& operand : instruction.dst) {
      list.push_back({&operand, true});
      if (instruction.accumulate != TileAccumulate::None) list.push_back({&operand, false});
    }
    for (const PtoOperand& operand : instruction.srcs) list.push_back({&operand, false});
    return list;
  };
  for (const Access& x : accesses(a))
    for (const Access& y : accesses(b)) {
      if (!x.writes && !y.writes) continue;
      if (x.operand->memory != y.operand->memory) continue;
      if (x.operand->memory == MemoryKind::GM) {
        if (x.operand->gmAlias == y.operand->gmAlias) return true;
        continue;
      }
      std::int64_t xEnd = x.operand->offsetBytes + x.operand->bytes, yEnd = y.operand->offsetBytes + y.operand->bytes;
      if (x.operand->offsetBytes < yEnd && y.operand->offsetBytes < xEnd) return true;
    }
  return false;
}

// A TMOV from UB into L1 (machines with that path) runs on MTE3, not on the MTE1 of TMOV's L1 -> L0A/L0B moves.
static bool movesUbToL1(const PtoInstruction& instruction) {
  return instruction.opcode == PtoOpcode::TMOV && instruction.pipe == Pipe::MTE3 && !instruction.srcs.empty() &&
         !instruction.dst.empty() && instruction.srcs[0].memory == MemoryKind::UB &&
         instruction.dst[0].memory == MemoryKind::L1;
}

::testing::AssertionResult syncIsSound(const std::vector<PtoInstruction>& synced,
                                       const std::vector<PtoInstruction>& original, int eventIds) {
  const std::size_t n = synced.size();
  // The real instructions, in order.
  std::vector<std::size_t> real;
  for (std::size_t i = 0; i < n; ++i)
    if (!isSync(synced[i].opcode)) real.push_back(i);
  if (real.size() != original.size())
    return ::testing::AssertionFailure() << real.size() << " instructions besides sync, expected " << original.size();
  for (std::size_t k = 0; k < real.size(); ++k) {
    const PtoInstruction& got = synced[real[k]];
    if (got.opcode != original[k].opcode || got.tileOp != original[k].tileOp || got.pipe != original[k].pipe)
      return ::testing::AssertionFailure() << "instruction " << k << " changed or moved";
  }
  // Pipes, pairs and ids; alternation per (pair, id).
  std::map<std::tuple<int, int, int>, std::vector<std::size_t>> flags;  // positions, in order
  for (std::size_t i = 0; i < n; ++i) {
    const PtoInstruction& instruction = synced[i];
    if (instruction.opcode == PtoOpcode::SET_FLAG || instruction.opcode == PtoOpcode::WAIT_FLAG) {
      bool set = instruction.opcode == PtoOpcode::SET_FLAG;
      if (instruction.pipe != (set ? instruction.srcPipe : instruction.dstPipe))
        return ::testing::AssertionFailure() << "flag at " << i << " sits on the wrong pipe";
      if (instruction.srcPipe == instruction.dstPipe)
        return ::testing::AssertionFailure() << "flag at " << i << " joins a pipe to itself";
      if (instruction.eventId < 0 || instruction.eventId >= eventIds)
        return ::testing::AssertionFailure() << "flag at " << i << " has event id " << instruction.eventId;
      auto key = std::make_tuple(static_cast<int>(instruction.srcPipe), static_cast<int>(instruction.dstPipe),
                                 instruction.eventId);
      std::vector<std::size_t>& list = flags[key];
      if ((list.size() % 2 == 0) != set)
        return ::testing::AssertionFailure() << "flag at " << i << ": sets and waits of its event do not alternate";
      list.push_back(i);
    } else if (instruction.opcode == PtoOpcode::BARRIER) {
      if (instruction.pipe != Pipe::SCALAR)
        return ::testing::AssertionFailure() << "barrier at " << i << " not on SCALAR";
    } else if (instruction.pipe != pipeOf(instruction.opcode) && !movesUbToL1(instruction)) {
      return ::testing::AssertionFailure() << "instruction at " << i << " is not on its opcode's pipe";
    }
  }
  for (const auto& [key, list] : flags)
    if (list.size() % 2 != 0) return ::testing::AssertionFailure() << "a set at " << list.back() << " is never waited";

  // Happens-before: successors[i] of each position, then reachability as bitsets.
  std::vector<std::vector<std::size_t>> successors(n);
  std::map<int, std::size_t> lastOnPipe;
  std::size_t lastBarrier = n;
  for (std::size_t i = 0; i < n; ++i) {
    const PtoInstruction& instruction = synced[i];
    if (instruction.opcode == PtoOpcode::BARRIER) {
      for (std::size_t j = 0; j < i; ++j) successors[j].push_back(i);
      lastBarrier = i;
      continue;
    }
    if (lastBarrier != n) successors[lastBarrier].push_back(i);
    auto previous = lastOnPipe.find(static_cast<int>(instruction.pipe));
    if (previous != lastOnPipe.end()) successors[previous->second].push_back(i);
    lastOnPipe[static_cast<int>(instruction.pipe)] = i;
  }
  for (const auto& [key, list] : flags)
    for (std::size_t k = 0; k + 1 < list.size(); k += 2) successors[list[k]].push_back(list[k + 1]);
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> reach(n * words, 0);  // reach[i] holds every j reachable from i
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j : successors[i]) {
      if (j <= i)
        return ::testing::AssertionFailure() << "happens-before edge " << i << " -> " << j << " goes backwards";
      reach[i * words + j / 64] |= std::uint64_t{1} << (j % 64);
      for (std::size_t w = 0; w < words; ++w) reach[i * words + w] |= reach[j * words + w];
    }
  for (std::size_t b = 0; b < real.size(); ++b)
    for (std::size_t a = 0; a < b; ++a) {
      const PtoInstruction& x = synced[real[a]];
      const PtoInstruction& y = synced[real[b]];
      if (x.pipe == y.pipe || !conflictByDefinition(x, y)) continue;
      std::size_t i = real[a], j = real[b];
      if (!(reach[i * words + j / 64] >> (j % 64) & 1))
        return ::testing::AssertionFailure()
               << "instructions " << a << " (" << name(x.opcode) << " on " << name(x.pipe) << ") and " << b << " ("
               << name(y.opcode) << " on " << name(y.pipe) << ") conflict but nothing orders them";
    }

  // Deadlock: run pipes in order with counting flags until nothing can move.
  std::map<int, std::vector<std::size_t>> queues;
  for (std::size_t i = 0; i < n; ++i) queues[static_cast<int>(synced[i].pipe)].push_back(i);
  std::map<int, std::size_t> head;
  std::map<std::tuple<int, int, int>, int> raised;
  std::vector<bool> done(n, false);
  std::size_t finished = 0;
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto& [pipe, queue] : queues) {
      std::size_t& at = head[pipe];
      while (at < queue.size()) {
        std::size_t i = queue[at];
        const PtoInstruction& instruction = synced[i];
        bool blocked = false;
        for (std::size_t j = 0; j < i && !blocked; ++j)  // a barrier before i must have run, and before it everything
          if (synced[j].opcode == PtoOpcode::BARRIER && !done[j]) blocked = true;
        if (instruction.opcode == PtoOpcode::BARRIER)
          for (std::size_t j = 0; j < i && !blocked; ++j) blocked = !done[j];
        auto key = std::make_tuple(static_cast<int>(instruction.srcPipe), static_cast<int>(instruction.dstPipe),
                                   instruction.eventId);
        if (!blocked && instruction.opcode == PtoOpcode::WAIT_FLAG) {
          if (raised[key] == 0)
            blocked = true;
          else
            --raised[key];
        }
        if (blocked) break;
        if (instruction.opcode == PtoOpcode::SET_FLAG) ++raised[key];
        done[i] = true;
        ++finished;
        ++at;
        progress = true;
      }
    }
  }
  if (finished != n) return ::testing::AssertionFailure() << "deadlock: " << finished << " of " << n << " ran";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult keepsDependences(const std::vector<PtoInstruction>& scheduled,
                                            const std::vector<PtoInstruction>& original) {
  const std::size_t n = original.size();
  if (scheduled.size() != n)
    return ::testing::AssertionFailure() << scheduled.size() << " instructions after scheduling, " << n << " before";
  std::vector<std::size_t> position(n, n);
  for (std::size_t p = 0; p < n; ++p) {
    TileOpId tag = scheduled[p].tileOp;
    if (tag < 0 || static_cast<std::size_t>(tag) >= n || position[static_cast<std::size_t>(tag)] != n)
      return ::testing::AssertionFailure() << "position " << p << " holds tag " << tag << ": not a permutation";
    position[static_cast<std::size_t>(tag)] = p;
  }
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < j; ++i)
      if (conflictByDefinition(original[i], original[j]) && position[i] > position[j])
        return ::testing::AssertionFailure() << "instructions " << i << " and " << j << " conflict but were swapped";
  return ::testing::AssertionSuccess();
}

std::vector<PtoOpcode> opcodes(const PtoProgram& program, bool withSync) {
  std::vector<PtoOpcode> list;
  for (const PtoInstruction& instruction : program.instructions)
    if (withSync || !isSync(instruction.opcode)) list.push_back(instruction.opcode);
  return list;
}

} // namespace pto::testing
