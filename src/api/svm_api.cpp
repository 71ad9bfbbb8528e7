// Shared virtual memory commands. No Kiln device supports SVM yet (CL_DEVICE_SVM_CAPABILITIES
// is 0), so after the queue is checked each answers CL_INVALID_OPERATION.
#include "api/api_support.hpp"
#include "runtime/objects/queue.hpp"

using namespace kiln;
using namespace kiln::api;

namespace {

cl_int noSvm(cl_command_queue queue) {
  return toObject<Queue>(queue) == nullptr ? CL_INVALID_COMMAND_QUEUE : CL_INVALID_OPERATION;
}

} // namespace

KILN_API cl_int CL_API_CALL clEnqueueSVMFree(
    cl_command_queue command_queue, cl_uint num_svm_pointers, void *svm_pointers[],
    void(CL_CALLBACK *pfn_free_func)(cl_command_queue, cl_uint, void *[], void *), void *user_data,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return noSvm(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue command_queue,
                                               cl_bool blocking_copy, void *dst_ptr,
                                               const void *src_ptr, size_t size,
                                               cl_uint num_events_in_wait_list,
                                               const cl_event *event_wait_list, cl_event *event) {
  return noSvm(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMemFill(cl_command_queue command_queue, void *svm_ptr,
                                                const void *pattern, size_t pattern_size,
                                                size_t size, cl_uint num_events_in_wait_list,
                                                const cl_event *event_wait_list, cl_event *event) {
  return noSvm(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMap(cl_command_queue command_queue, cl_bool blocking_map,
                                            cl_map_flags flags, void *svm_ptr, size_t size,
                                            cl_uint num_events_in_wait_list,
                                            const cl_event *event_wait_list, cl_event *event) {
  return noSvm(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMUnmap(cl_command_queue command_queue, void *svm_ptr,
                                              cl_uint num_events_in_wait_list,
                                              const cl_event *event_wait_list, cl_event *event) {
  return noSvm(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueSVMMigrateMem(
    cl_command_queue command_queue, cl_uint num_svm_pointers, const void **svm_pointers,
    const size_t *sizes, cl_mem_migration_flags flags, cl_uint num_events_in_wait_list,
    const cl_event *event_wait_list, cl_event *event) {
  return noSvm(command_queue);
}
