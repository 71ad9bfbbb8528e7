// PLACEHOLDER until the builtin library is written.
#include "kiln_primitives.h"
size_t __attribute__((overloadable)) get_local_id(uint dim) { return dim < 3 ? __kiln_local_id(dim) : 0; }
