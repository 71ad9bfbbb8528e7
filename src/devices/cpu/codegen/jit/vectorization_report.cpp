//===- vectorization_report.cpp - What KILN_VECTORIZE_REPORT prints -------===//
#include "devices/cpu/codegen/jit/vectorization_report.hpp"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kiln::cpu {

std::string describeShape(const WorkGroupShape &shape) {
  return std::to_string(shape.localSize[0]) + "x" + std::to_string(shape.localSize[1]) + "x" +
         std::to_string(shape.localSize[2]);
}

void reportVectorization(const std::string &kernel, const WorkGroupShape &shape, unsigned requested,
                         const ShapeCompilation &compiled) {
  const SpecializedWorkGroup &result = compiled.specialized;
  unsigned streamingStores = compiled.streamingStores;
  unsigned indirectPrefetches = compiled.indirectPrefetches;
  unsigned stridedPrefetches = compiled.stridedPrefetches;
  std::string line;
  raw_string_ostream report(line);
  report << "kiln: kernel '" << kernel << "', work-groups of " << describeShape(shape) << ": ";
  if (requested == 1)
    report << "not vectorized (vectorization is off)";
  else if (result.simdWidth > 1)
    report << "vectorized, " << result.simdWidth << " work-items per SIMD group";
  else
    report << "not vectorized: " << result.notVectorized;
  if (result.vectorInstructions != 0)
    report << "; code of " << result.vectorInstructions << " instructions in lanes, "
           << result.scalarInstructions << " one work-item at a time";
  if (streamingStores != 0)
    report << "; " << streamingStores << " stores stream past the caches";
  if (indirectPrefetches != 0)
    report << "; " << indirectPrefetches << " indexed loads prefetched ahead";
  if (stridedPrefetches != 0)
    report << "; " << stridedPrefetches << " strided loads prefetched ahead";
  if (compiled.floatRoundTrips != 0)
    report << "; " << compiled.floatRoundTrips
           << " float computations on small integers as the integer arithmetic they amount to";
  if (compiled.reciprocalDivisions != 0)
    report << "; " << compiled.reciprocalDivisions
           << " divisions by constants as exact products of reciprocals";
  if (compiled.waitingLoops != 0)
    report << "; " << compiled.waitingLoops << (compiled.waitingLoops == 1 ? " loop" : " loops")
           << " may wait for another sub-group (each round lets the others run)";
  if (compiled.turnLoops != 0)
    report << "; " << compiled.turnLoops
           << (compiled.turnLoops == 1 ? " grid-stride loop takes" : " grid-stride loops take")
           << " turns with " << compiled.specialized.groupsInStep
           << (compiled.specialized.groupsInStep == 1 ? " work-group" : " work-groups")
           << " in step";
  report << "\n";
  errs() << line;
}

} // namespace kiln::cpu
