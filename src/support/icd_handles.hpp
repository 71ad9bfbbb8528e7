// The opaque handle types of the OpenCL API, defined the way the ICD loader expects: a pointer to
// the vendor's dispatch table first. Kiln's object classes derive from these.
#pragma once

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_2_0_APIS
#define CL_USE_DEPRECATED_OPENCL_2_1_APIS
#define CL_USE_DEPRECATED_OPENCL_2_2_APIS

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <CL/cl_icd.h>

struct _cl_platform_id {
  cl_icd_dispatch *dispatch;
};
struct _cl_device_id {
  cl_icd_dispatch *dispatch;
};
struct _cl_context {
  cl_icd_dispatch *dispatch;
};
struct _cl_command_queue {
  cl_icd_dispatch *dispatch;
};
struct _cl_mem {
  cl_icd_dispatch *dispatch;
};
struct _cl_program {
  cl_icd_dispatch *dispatch;
};
struct _cl_kernel {
  cl_icd_dispatch *dispatch;
};
struct _cl_event {
  cl_icd_dispatch *dispatch;
};
struct _cl_sampler {
  cl_icd_dispatch *dispatch;
};
struct _cl_command_buffer_khr {
  cl_icd_dispatch *dispatch;
};
struct _cl_mutable_command_khr {
  cl_icd_dispatch *dispatch;
};
