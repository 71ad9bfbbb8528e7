//===- vectorization_report.hpp - What KILN_VECTORIZE_REPORT prints -------===//
#pragma once

#include "devices/cpu/codegen/pipeline.hpp"

#include <string>

namespace kiln::cpu {

/// "WxHxD", the local size of `shape`.
std::string describeShape(const WorkGroupShape &shape);

/// KILN_VECTORIZE_REPORT: one line on stderr for the specialization `compiled` of `kernel`, the
/// only output Kiln writes unasked for... because it was asked for. Written at once, so that the
/// lines of kernels that compile on different threads do not mix. `requested`: the lanes asked
/// for at build (PreparedProgram::requestedSimdWidth).
void reportVectorization(const std::string &kernel, const WorkGroupShape &shape, unsigned requested,
                         const ShapeCompilation &compiled);

} // namespace kiln::cpu
