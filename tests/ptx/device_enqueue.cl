// Device-side enqueue (builtins/device_enqueue.cl): the block kernel is an entry of its own, and
// the parent reaches its launch's arena through the launch parameters and reserves its records
// with a compare-exchange; the block kernel's number replaces its address. An enqueue without
// events starts its block kernel on the GPU itself, through CUDA's device runtime and the block
// kernel's device entry, which takes the request (literal and __local sizes) by value. The block
// kernels' limits are a table of the module, which the driver fills.
// PTX contains: \.entry __kiln_entry___parent_block_invoke_kernel
// PTX contains: \.entry __kiln_entry_parent
// PTX contains: atom\.[a-z.]*cas\.b64
// PTX contains: \.entry __kiln_device_entry___grandparent_block_invoke_kernel\(
// PTX contains: call[.a-z]* \(retval0\), cudaGetParameterBufferV2
// PTX contains: call[.a-z]* \(retval0\), cudaLaunchDeviceV2
// PTX contains: mov\.b64 [^,]+, __kiln_device_entry___grandparent_block_invoke_kernel;
// PTX contains: \.visible \.global \.align 8 \.b8 __kiln_block_kernel_limits\[

kernel void parent(global int *out, int scale) {
  clk_event_t done;
  if (get_global_id(0) == 0)
    out[1024] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
                               ndrange_1D(1024), 0, 0, &done,
                               ^{ out[get_global_id(0)] = scale * (int)get_global_id(0); });
}

kernel void grandparent(global int *out, int levels) {
  if (get_global_id(0) == 0 && levels > 0)
    out[0] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(64, 32),
                            ^(local void *scratch) {
                              local int *values = (local int *)scratch;
                              values[get_local_id(0)] = (int)get_global_id(0) + levels;
                              barrier(CLK_LOCAL_MEM_FENCE);
                              out[get_global_id(0) + 1] = values[31 - get_local_id(0)];
                            },
                            32u * sizeof(int));
}
