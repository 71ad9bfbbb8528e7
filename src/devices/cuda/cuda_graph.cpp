#include "devices/cuda/cuda_graph.hpp"

namespace kiln::cuda {

std::unique_ptr<CudaGraph> CudaGraph::capture(const CudaLibrary &cuda, const Record &record) {
  if (!cuda.graphs)
    return nullptr;
  const CudaLibrary::Graphs &graphs = *cuda.graphs;
  CUstream stream = nullptr;
  if (cuda.streamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS)
    return nullptr;
  // Relaxed: other threads keep using the GPU (and loading modules) while this one captures.
  CUgraph graph = nullptr;
  bool recorded = false;
  if (graphs.streamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS) {
    recorded = record(stream);
    // Ends the capture even after a failure, which leaves the stream usable (and destroyable).
    if (graphs.streamEndCapture(stream, &graph) != CUDA_SUCCESS)
      recorded = false;
  }
  graphs.streamDestroy(stream);
  CUgraphExec executable = nullptr;
  if (recorded && graph != nullptr && graphs.instantiate(&executable, graph, 0) != CUDA_SUCCESS)
    executable = nullptr;
  if (graph != nullptr)
    graphs.destroy(graph);
  if (executable == nullptr)
    return nullptr;
  return std::make_unique<CudaGraph>(graphs, executable);
}

CudaGraph::~CudaGraph() {
  graphs_.execDestroy(executable_);
}

bool CudaGraph::launch(CUstream stream) const {
  std::lock_guard launching(launchMutex_);
  return graphs_.launch(executable_, stream) == CUDA_SUCCESS;
}

} // namespace kiln::cuda
