// A finalized command buffer's commands as a CUDA graph: captured once from the same stream
// operations the commands make when enqueued, then started with one cuGraphLaunch per run, so
// a run of many small kernels costs the GPU's command processor a single submission.
#pragma once

#include "devices/cuda/cuda_library.hpp"
#include "runtime/scheduling/prepared_sequence.hpp"

#include <functional>
#include <memory>
#include <mutex>

namespace kiln::cuda {

class CudaGraph final : public PreparedSequence {
public:
  /// Puts the stream operations of a sequence of commands on `stream`; false when one of them
  /// cannot be.
  using Record = std::function<bool(CUstream stream)>;

  /// The graph of what `record` puts on a capturing stream, ready to launch (the GPU's context
  /// being current); null when the driver has no graphs or refuses one of the operations.
  static std::unique_ptr<CudaGraph> capture(const CudaLibrary &cuda, const Record &record);

  /// Owns `executable`.
  CudaGraph(const CudaLibrary::Graphs &graphs, CUgraphExec executable)
      : graphs_(graphs), executable_(executable) {}
  CudaGraph(const CudaGraph &) = delete;
  CudaGraph &operator=(const CudaGraph &) = delete;
  ~CudaGraph() override;

  /// Puts one run of the graph on `stream`, after what is on it already. Several threads may
  /// launch the graph at once (CUDA runs one launch after the other).
  bool launch(CUstream stream) const;

private:
  const CudaLibrary::Graphs &graphs_;
  CUgraphExec executable_;
  mutable std::mutex launchMutex_; // CUDA's graph objects are not synchronized
};

} // namespace kiln::cuda
