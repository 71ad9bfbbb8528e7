// Work-item functions (OpenCL C 3.0 section 6.15.1), on the code generator's primitives. For a
// dimension index outside 0..2 the specification asks for 1 from the size queries and 0 from
// the id queries; dimensions at or above get_work_dim() but below 3 are the primitives' concern
// (they report size 1 and id 0 there too).
#include "kiln_internal.h"
#include "kiln_primitives.h"

OVL uint get_work_dim(void) {
  return __kiln_work_dim();
}

OVL size_t get_global_size(uint dim) {
  return dim < 3 ? __kiln_global_size(dim) : 1;
}

OVL size_t get_local_size(uint dim) {
  return dim < 3 ? __kiln_local_size(dim) : 1;
}

OVL size_t get_enqueued_local_size(uint dim) {
  return dim < 3 ? __kiln_enqueued_local_size(dim) : 1;
}

OVL size_t get_num_groups(uint dim) {
  return dim < 3 ? __kiln_num_groups(dim) : 1;
}

OVL size_t get_local_id(uint dim) {
  return dim < 3 ? __kiln_local_id(dim) : 0;
}

OVL size_t get_group_id(uint dim) {
  return dim < 3 ? __kiln_group_id(dim) : 0;
}

OVL size_t get_global_offset(uint dim) {
  return dim < 3 ? __kiln_global_offset(dim) : 0;
}

// The global id without the offset: every group but the last of a dimension has the enqueued
// size, so a group starts at group id * enqueued size even with non-uniform work-groups.
static size_t unoffset_global_id(uint dim) {
  return __kiln_group_id(dim) * __kiln_enqueued_local_size(dim) + __kiln_local_id(dim);
}

OVL size_t get_global_id(uint dim) {
  return dim < 3 ? unoffset_global_id(dim) + __kiln_global_offset(dim) : 0;
}

OVL size_t get_global_linear_id(void) {
  return (unoffset_global_id(2) * __kiln_global_size(1) + unoffset_global_id(1)) *
             __kiln_global_size(0) +
         unoffset_global_id(0);
}

OVL size_t get_local_linear_id(void) {
  return (__kiln_local_id(2) * __kiln_local_size(1) + __kiln_local_id(1)) * __kiln_local_size(0) +
         __kiln_local_id(0);
}
