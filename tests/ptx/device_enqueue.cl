// Device-side enqueue (builtins/device_enqueue.cl): the block kernel is an entry of its own, and
// the parent reaches its launch's arena through the launch parameters and reserves its records
// with a compare-exchange; the block kernel's number replaces its address.
// PTX contains: \.entry __kiln_entry___parent_block_invoke_kernel
// PTX contains: \.entry __kiln_entry_parent
// PTX contains: atom\.[a-z.]*cas\.b64

kernel void parent(global int *out, int scale) {
  clk_event_t done;
  if (get_global_id(0) == 0)
    out[1024] = enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_WAIT_KERNEL,
                               ndrange_1D(1024), 0, 0, &done,
                               ^{ out[get_global_id(0)] = scale * (int)get_global_id(0); });
}
