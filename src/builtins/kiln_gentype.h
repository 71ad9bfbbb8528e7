// Includes the template file KILN_TEMPLATE once for each width N = 1, 2, 3, 4, 8, 16 of the
// scalar type S. The includer defines S, KILN_TEMPLATE and whatever else the template needs.
// In the template, T is the scalar or vector type of the current width; comparisons of T
// values give 0/1 for scalars and 0/-1 for vectors, and a comparison result selects in ?:
// element-wise, so most templates are written once for every width.
#define T KILN_VT(S, N)
#define N 1
#include KILN_TEMPLATE
#undef N
#define N 2
#include KILN_TEMPLATE
#undef N
#define N 3
#include KILN_TEMPLATE
#undef N
#define N 4
#include KILN_TEMPLATE
#undef N
#define N 8
#include KILN_TEMPLATE
#undef N
#define N 16
#include KILN_TEMPLATE
#undef N
#undef T
