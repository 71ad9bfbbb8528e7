// cl_context: a set of devices sharing memory objects, programs and queues.
#pragma once

#include "runtime/objects/device_queues.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/object.hpp"
#include "runtime/objects/storage_pool.hpp"
#include "runtime/objects/svm_allocations.hpp"

#include <mutex>
#include <string>
#include <vector>

namespace kiln {

class Device;

class Context : public Object<_cl_context, ObjectKind::Context>, public RefCounted<Context> {
public:
  using ErrorCallback = void(CL_CALLBACK *)(const char *, const void *, size_t, void *);
  using DestructorCallback = void(CL_CALLBACK *)(cl_context, void *);

  Context(std::vector<Device *> devices, std::vector<cl_context_properties> properties,
          ErrorCallback errorCallback, void *userData);
  ~Context();

  const std::vector<Device *> &devices() const { return devices_; }
  bool hasDevice(const Device *device) const;
  const std::vector<cl_context_properties> &properties() const { return properties_; }

  /// Storage for a memory object of `size` bytes that every device of the context addresses:
  /// host memory, or the memory a device shares with the host when it has memory of its own
  /// (a GPU's managed memory, or its pinned host memory when `placement` is Host). Null when
  /// out of memory.
  AlignedStorage allocateStorage(size_t size,
                                 MemoryPlacement placement = MemoryPlacement::Device) const;
  /// Whether a device of the context has memory of its own (DeviceDriver::hasOwnMemory).
  bool hasDeviceMemory() const;

  /// The largest memory object every device of the context accepts.
  cl_ulong maxAllocationSize() const;
  /// What the context's devices offer of shared virtual memory, together.
  cl_device_svm_capabilities svmCapabilities() const;
  /// clSVMAlloc's allocations.
  SvmAllocations &svmAllocations() { return svmAllocations_; }
  DeviceQueues &deviceQueues() { return deviceQueues_; }
  /// Shared memory kept for reuse (device-side enqueue's arenas).
  StoragePool &storagePool() { return storagePool_; }
  /// The application released the context: its SVM allocations go (each of which holds the
  /// context), once the commands that use them have finished.
  void lastExternalReleased() { svmAllocations_.clear(); }

  /// Reports an error to the application's callback, if it gave one.
  void reportError(const std::string &message) const;

  /// clSetContextDestructorCallback: run in reverse order of registration on destruction.
  void addDestructorCallback(DestructorCallback callback, void *userData);

private:
  std::vector<Device *> devices_;
  std::vector<cl_context_properties> properties_;
  ErrorCallback errorCallback_;
  void *errorUserData_;

  std::mutex mutex_;
  std::vector<std::pair<DestructorCallback, void *>> destructorCallbacks_;
  SvmAllocations svmAllocations_;
  DeviceQueues deviceQueues_;
  StoragePool storagePool_{*this};
};

} // namespace kiln
