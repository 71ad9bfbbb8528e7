// The commands a command buffer can record (cl_khr_command_buffer), each checked and built once
// for both of its entry points: the clEnqueue* call, whose `target` is a queue and wait list,
// and the clCommand*KHR call, whose `target` records into a command buffer (its queue set, no
// wait list). Each returns the error code of its own arguments, or what submitCommand returns.
#pragma once

#include "api/enqueue_support.hpp"

namespace kiln::api {

/// The launch of `kernel` on `queue` with its arguments as they stand, checked as
/// clEnqueueNDRangeKernel checks it.
cl_int buildLaunch(const Queue &queue, cl_kernel kernel, cl_uint work_dim,
                   const size_t *global_work_offset, const size_t *global_work_size,
                   const size_t *local_work_size, KernelLaunch &launch);

/// The checks of buildLaunch but that every argument is set: for a kernel command whose
/// arguments updates will set (cl_khr_command_buffer_mutable_dispatch).
cl_int checkLaunchShape(const Queue &queue, cl_kernel kernel, cl_uint work_dim,
                        const size_t *global_work_offset, const size_t *global_work_size,
                        const size_t *local_work_size);

cl_int launchKernel(const EnqueueTarget &target, cl_kernel kernel, cl_uint work_dim,
                    const size_t *global_work_offset, const size_t *global_work_size,
                    const size_t *local_work_size, cl_event *event, cl_command_type type);

cl_int copyBuffer(const EnqueueTarget &target, cl_mem src_buffer, cl_mem dst_buffer,
                  size_t src_offset, size_t dst_offset, size_t size, cl_event *event);
cl_int copyBufferRect(const EnqueueTarget &target, cl_mem src_buffer, cl_mem dst_buffer,
                      const size_t *src_origin, const size_t *dst_origin, const size_t *region,
                      size_t src_row_pitch, size_t src_slice_pitch, size_t dst_row_pitch,
                      size_t dst_slice_pitch, cl_event *event);
cl_int fillBuffer(const EnqueueTarget &target, cl_mem buffer, const void *pattern,
                  size_t pattern_size, size_t offset, size_t size, cl_event *event);

cl_int copyImage(const EnqueueTarget &target, cl_mem src_image, cl_mem dst_image,
                 const size_t *src_origin, const size_t *dst_origin, const size_t *region,
                 cl_event *event);
cl_int copyImageToBuffer(const EnqueueTarget &target, cl_mem src_image, cl_mem dst_buffer,
                         const size_t *src_origin, const size_t *region, size_t dst_offset,
                         cl_event *event);
cl_int copyBufferToImage(const EnqueueTarget &target, cl_mem src_buffer, cl_mem dst_image,
                         size_t src_offset, const size_t *dst_origin, const size_t *region,
                         cl_event *event);
cl_int fillImage(const EnqueueTarget &target, cl_mem image, const void *fill_color,
                 const size_t *origin, const size_t *region, cl_event *event);

/// SVM (and USM) copies and fills: `type` is the command type their events report.
cl_int copySharedMemory(const EnqueueTarget &target, cl_command_type type, bool blocking,
                        void *destination, const void *source, size_t size, cl_event *event);
cl_int fillSharedMemory(const EnqueueTarget &target, cl_command_type type, void *destination,
                        const void *pattern, size_t patternSize, size_t size, cl_event *event);

} // namespace kiln::api
