// Helpers for the PTO program tests: kernels built op by op, hand-made subgraphs run through AllocateBuffers
// and the PTO passes, random instruction lists, and the brute-force validators the passes are checked with.
#pragma once

#include "tests/support/KernelBuilding.h"
#include "compiler/ir/TensorGraphBuilder.h"
#include "compiler/ir/Compilation.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace pto::testing {

// compileKernel with `passOptions`, then the block graph replaced by nothing (tests add subgraphs).
Compilation tiled(const TensorGraph& graph,
                  const nlohmann::ordered_json& passOptions = nlohmann::ordered_json::object());

// Adds a subgraph of `ops` (in this order) to the block graph: its scope is its first op's, copyIns are the
// regions its ops read (inputs, and the output of an accumulating op) that no earlier op of it wrote as the
// same region, copyOuts every region it writes on an argument; programId = the next id.
SubgraphId addSubgraph(Compilation& compilation, std::vector<TileOpId> ops, CoreType coreType);

// AllocateBuffers, LowerToPto, OoOSchedule and InsertSync; false (with the messages in `errors`) on failure.
bool runBackEnd(Compilation& compilation, std::string* errors = nullptr);
// The same up to LowerToPto only.
bool allocateAndLower(Compilation& compilation, std::string* errors = nullptr);

// The program's opcodes in order; flags and barriers only `withSync`.
std::vector<PtoOpcode> opcodes(const PtoProgram& program, bool withSync = false);

// Tile ops whose tensor op has kind `kind`, in id order.
std::vector<TileOpId> tileOpsOfKind(const Compilation& compilation, TensorOpKind kind);

// A random instruction list: `count` instructions on random pipes (the opcode of each pipe's own kind), each
// writing one and reading up to two random byte ranges of UB or L1 (32-byte granules in 512 bytes) or a GM
// alias class out of 3; some accumulate. tileOp holds the instruction's index, to follow it.
std::vector<PtoInstruction> randomInstructions(std::mt19937& random, int count);

// Whether the two instructions touch common data with at least one writing it, written out from the
// definitions in PtoProgram.h without the library's helpers.
bool conflictByDefinition(const PtoInstruction& a, const PtoInstruction& b);

// The contract of a synchronised program, by brute force:
//   - the instructions other than flags and barriers are `original`, in order;
//   - each instruction is on its opcode's pipe (a flag on its source / destination pipe), flags name two
//     different pipes and an event id below `eventIds`;
//   - per pipe pair and event id, sets and waits alternate in issue order, starting with a set, ending waited;
//   - every conflicting pair on different pipes is ordered by happens-before (pipe order, set -> matching
//     wait, barriers), computed as reachability over all instruction pairs;
//   - a simulation of in-order pipes with counting flags runs to completion (no deadlock).
::testing::AssertionResult syncIsSound(const std::vector<PtoInstruction>& synced,
                                       const std::vector<PtoInstruction>& original, int eventIds);

// `scheduled` is a permutation of `original` (by tileOp tags) keeping every conflicting pair's order.
::testing::AssertionResult keepsDependences(const std::vector<PtoInstruction>& scheduled,
                                            const std::vector<PtoInstruction>& original);

} // namespace pto::testing
