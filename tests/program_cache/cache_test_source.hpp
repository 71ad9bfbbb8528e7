// The program the on-disk cache tests build, and its host reference: shared by the tests and the
// child processes they start.
#pragma once

#include <string>
#include <vector>

namespace cachetest {

inline constexpr float kScale = 3.0f;

/// A saxpy kernel and a helper, ended by `comment` (a different comment is a different source).
inline std::string source(const std::string &comment) {
  return R"CL(
float scaled(float a, float x) { return a * x; }
__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
  int i = get_global_id(0);
  if (i < n)
    y[i] = scaled(a, x[i]) + y[i];
}
__kernel void fill(__global float *y, float value) { y[get_global_id(0)] = value; }
// )CL" + comment +
         "\n";
}

inline std::vector<float> inputX() {
  std::vector<float> x(1000);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i % 97) * 0.5f;
  return x;
}

inline std::vector<float> inputY() {
  std::vector<float> y(1000);
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = static_cast<float>(i % 13) - 6.0f;
  return y;
}

/// What saxpy leaves in y (exact: every product and sum is representable).
inline std::vector<float> expectedY() {
  std::vector<float> x = inputX(), y = inputY();
  for (size_t i = 0; i < y.size(); ++i)
    y[i] = kScale * x[i] + y[i];
  return y;
}

} // namespace cachetest
