// A SPIR-V module that calls a function it does not define: clLinkProgram finds it in a program
// compiled from OpenCL C source.
int helper(int value);

kernel void call_helper(global int *values) {
  size_t i = get_global_id(0);
  values[i] = helper(values[i]);
}
