// Sharing with OpenGL and EGL, and the cl_ext_device_fission entry points. Kiln supports none of
// these extensions, but the ICD loader forwards every call it receives for a Kiln object here,
// so each answers with the error the extension names for objects not made for sharing.
#include "api/api_support.hpp"
#include "runtime/objects/context.hpp"
#include "runtime/objects/device.hpp"
#include "runtime/objects/memory.hpp"
#include "runtime/objects/queue.hpp"

#include <CL/cl_egl.h>
#include <CL/cl_gl.h>

using namespace kiln;
using namespace kiln::api;

namespace {

/// No Kiln context is ever created from a GL or EGL context.
template <typename Handle> Handle notASharingContext(cl_context context, cl_int *errcodeRet) {
  if (errcodeRet != nullptr)
    *errcodeRet = CL_INVALID_CONTEXT;
  return nullptr;
}

/// Acquire/release on a queue whose context shares with nothing.
cl_int notASharingQueue(cl_command_queue queue) {
  return toObject<Queue>(queue) == nullptr ? CL_INVALID_COMMAND_QUEUE : CL_INVALID_CONTEXT;
}

/// No Kiln memory object is made from a GL object.
cl_int notAGlObject(cl_mem memobj) {
  return toObject<MemObject>(memobj) == nullptr ? CL_INVALID_MEM_OBJECT : CL_INVALID_GL_OBJECT;
}

} // namespace

KILN_API cl_mem CL_API_CALL clCreateFromGLBuffer(cl_context context, cl_mem_flags flags,
                                                 cl_GLuint bufobj, cl_int *errcode_ret) {
  return notASharingContext<cl_mem>(context, errcode_ret);
}

KILN_API cl_mem CL_API_CALL clCreateFromGLTexture(cl_context context, cl_mem_flags flags,
                                                  cl_GLenum target, cl_GLint miplevel,
                                                  cl_GLuint texture, cl_int *errcode_ret) {
  return notASharingContext<cl_mem>(context, errcode_ret);
}

KILN_API cl_mem CL_API_CALL clCreateFromGLTexture2D(cl_context context, cl_mem_flags flags,
                                                    cl_GLenum target, cl_GLint miplevel,
                                                    cl_GLuint texture, cl_int *errcode_ret) {
  return notASharingContext<cl_mem>(context, errcode_ret);
}

KILN_API cl_mem CL_API_CALL clCreateFromGLTexture3D(cl_context context, cl_mem_flags flags,
                                                    cl_GLenum target, cl_GLint miplevel,
                                                    cl_GLuint texture, cl_int *errcode_ret) {
  return notASharingContext<cl_mem>(context, errcode_ret);
}

KILN_API cl_mem CL_API_CALL clCreateFromGLRenderbuffer(cl_context context, cl_mem_flags flags,
                                                       cl_GLuint renderbuffer,
                                                       cl_int *errcode_ret) {
  return notASharingContext<cl_mem>(context, errcode_ret);
}

KILN_API cl_int CL_API_CALL clGetGLObjectInfo(cl_mem memobj, cl_gl_object_type *gl_object_type,
                                              cl_GLuint *gl_object_name) {
  return notAGlObject(memobj);
}

KILN_API cl_int CL_API_CALL clGetGLTextureInfo(cl_mem memobj, cl_gl_texture_info param_name,
                                               size_t param_value_size, void *param_value,
                                               size_t *param_value_size_ret) {
  return notAGlObject(memobj);
}

KILN_API cl_int CL_API_CALL clEnqueueAcquireGLObjects(
    cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return notASharingQueue(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueReleaseGLObjects(
    cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return notASharingQueue(command_queue);
}

KILN_API cl_int CL_API_CALL clGetGLContextInfoKHR(const cl_context_properties *properties,
                                                  cl_gl_context_info param_name,
                                                  size_t param_value_size, void *param_value,
                                                  size_t *param_value_size_ret) {
  // The properties name no GL context Kiln can share with.
  return CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR;
}

KILN_API cl_event CL_API_CALL clCreateEventFromGLsyncKHR(cl_context context, cl_GLsync sync,
                                                         cl_int *errcode_ret) {
  return notASharingContext<cl_event>(context, errcode_ret);
}

KILN_API cl_mem CL_API_CALL clCreateFromEGLImageKHR(cl_context context, CLeglDisplayKHR egldisplay,
                                                    CLeglImageKHR eglimage, cl_mem_flags flags,
                                                    const cl_egl_image_properties_khr *properties,
                                                    cl_int *errcode_ret) {
  return notASharingContext<cl_mem>(context, errcode_ret);
}

KILN_API cl_int CL_API_CALL clEnqueueAcquireEGLObjectsKHR(
    cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return notASharingQueue(command_queue);
}

KILN_API cl_int CL_API_CALL clEnqueueReleaseEGLObjectsKHR(
    cl_command_queue command_queue, cl_uint num_objects, const cl_mem *mem_objects,
    cl_uint num_events_in_wait_list, const cl_event *event_wait_list, cl_event *event) {
  return notASharingQueue(command_queue);
}

KILN_API cl_event CL_API_CALL clCreateEventFromEGLSyncKHR(cl_context context, CLeglSyncKHR sync,
                                                          CLeglDisplayKHR display,
                                                          cl_int *errcode_ret) {
  return notASharingContext<cl_event>(context, errcode_ret);
}

KILN_API cl_int CL_API_CALL
clCreateSubDevicesEXT(cl_device_id in_device, const cl_device_partition_property_ext *properties,
                      cl_uint num_entries, cl_device_id *out_devices, cl_uint *num_devices) {
  // cl_ext_device_fission is not advertised: no partition type is supported.
  return toObject<Device>(in_device) == nullptr ? CL_INVALID_DEVICE : CL_INVALID_VALUE;
}

KILN_API cl_int CL_API_CALL clRetainDeviceEXT(cl_device_id device) {
  return toObject<Device>(device) == nullptr ? CL_INVALID_DEVICE : CL_SUCCESS;
}

KILN_API cl_int CL_API_CALL clReleaseDeviceEXT(cl_device_id device) {
  return toObject<Device>(device) == nullptr ? CL_INVALID_DEVICE : CL_SUCCESS;
}
