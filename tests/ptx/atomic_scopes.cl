// Atomics get the scope their memory_scope asks for and their RMWs the order they ask for:
// memory_scope_all_svm_devices at system scope (the host and the other devices use fine-grained
// SVM at the same time): `atom.sys` where PTX has the operation, else a compare-exchange loop;
// the device's own atomics at GPU scope, fenced by their order (the block's scope for
// __local memory); OpenCL C 1.x atomics relaxed, with no fence.
// PTX contains: atom\.sys\.add\.s32
// PTX contains: fence\.sc\.sys;[^a-z]+atom\.sys\.add\.s32[^\n]+[^a-z]+fence\.acq_rel\.sys;
// PTX contains: atom\.relaxed\.sys\.cas\.b32
// PTX contains: st\.release\.sys\.global\.b32
// PTX contains: ld\.acquire\.sys\.global\.b32
// PTX contains: atom\.acq_rel\.sys\.cas\.b32
// PTX contains: fence\.sc\.gpu;[^a-z]+atom\.global\.add\.u32[^\n]+[^a-z]+fence\.acq_rel\.gpu;
// PTX contains: fence\.acq_rel\.cta;[^a-z]+atom\.shared\.add\.u32[^\n]+[^a-z]+fence\.acq_rel\.cta;
// PTX contains: ld\.acquire\.gpu\.global\.b32
// PTX contains: fence\.acq_rel\.cta;[^a-z]+atom\.global\.add\.u32[^\n]+, 5;[^a-z]+atom\.global\.add\.u32[^\n]+, 1;

kernel void scopes(global atomic_int *counter, global atomic_int *flag, global int *data,
                   local atomic_int *l) {
  atomic_fetch_add_explicit(counter, 1, memory_order_relaxed, memory_scope_all_svm_devices);
  atomic_fetch_add_explicit(counter + 1, 1, memory_order_seq_cst, memory_scope_all_svm_devices);
  atomic_fetch_max_explicit(counter + 2, 7, memory_order_relaxed, memory_scope_all_svm_devices);
  atomic_store_explicit(flag, 1, memory_order_release, memory_scope_all_svm_devices);
  int v = atomic_load_explicit(flag + 1, memory_order_acquire, memory_scope_all_svm_devices);
  atomic_fetch_add(counter + 3, v);
  atomic_fetch_add_explicit(l, 1, memory_order_acq_rel, memory_scope_work_group);
  atom_add(data, 5);
  atomic_inc(data + 1);
  int e = 0;
  atomic_compare_exchange_strong_explicit(flag + 2, &e, 3, memory_order_acq_rel,
                                          memory_order_acquire, memory_scope_all_svm_devices);
  data[2] = atomic_load_explicit(flag + 3, memory_order_acquire, memory_scope_device) + e;
}
