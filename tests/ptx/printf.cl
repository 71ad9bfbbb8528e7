// printf with each kind of argument: records reserved in the launch's buffer.
kernel void hello(global const int *x, global const float4 *v) {
  size_t i = get_global_id(0);
  printf("%d %f %s %v4hlf %c %lu\n", x[i], 1.5f, "text", v[i], 'k', i);
}
