// What clBuildProgram costs an application, on every platform the ICD loader finds:
//   setup    clGetPlatformIDs to clCreateContext in a new process (loading the libraries)
//   first    the first build in a new process of a source never built before (Kiln loads its
//            compiler library here)
//   later    builds of new sources later in the same process
//   cached   the first build in a new process of a source built before (by another process):
//            what an on-disk program cache makes of a repeated build
// The program is about 50 lines with three kernels; a unique comment at its end defeats every
// cache where a build must miss. Each measurement is in a fresh child process (this program
// run again); the table shows medians. The caches of Kiln and PoCL go to a temporary folder
// (KILN_CACHE_DIR, POCL_CACHE_DIR), removed at the end.
//
//   OCL_ICD_VENDORS=build/icd build/bench/kiln-build-time [processes]
// Kiln and PoCL side by side: a folder holding both .icd files, e.g.
//   mkdir -p /tmp/icd-both && cp build/icd/kiln.icd /etc/OpenCL/vendors/pocl.icd /tmp/icd-both
//   OCL_ICD_VENDORS=/tmp/icd-both build/bench/kiln-build-time
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr const char *kProgram = R"CL(
float4 shade(float4 c, float k) { return c * k + (float4)(0.1f); }
__kernel void blur(__global const float4 *in, __global float4 *out, int width, int height,
                   float k, __local float4 *tile) {
  int x = get_global_id(0), y = get_global_id(1);
  int lx = get_local_id(0), ly = get_local_id(1);
  int lw = get_local_size(0);
  if (x >= width || y >= height) return;
  float4 sum = (float4)(0.0f);
  for (int dy = -1; dy <= 1; ++dy) {
    for (int dx = -1; dx <= 1; ++dx) {
      int sx = clamp(x + dx, 0, width - 1);
      int sy = clamp(y + dy, 0, height - 1);
      sum += in[sy * width + sx];
    }
  }
  sum /= 9.0f;
  tile[ly * lw + lx] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  float4 n = tile[ly * lw + ((lx + 1) % lw)];
  float4 r = shade(sum, k) + 0.5f * n;
  r.x = sqrt(fabs(r.x));
  r.y = exp(-r.y);
  r.z = sin(r.z) * cos(r.w);
  r.w = pow(fabs(r.w), 1.5f);
  if (r.x > 2.0f) r.x = 2.0f;
  out[y * width + x] = r;
}
__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
__kernel void reduce(__global const float *in, __global float *out, __local float *scratch) {
  int l = get_local_id(0);
  scratch[l] = in[get_global_id(0)];
  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < s) scratch[l] += scratch[l + s];
  }
  if (l == 0) out[get_group_id(0)] = scratch[0];
}
)CL";

constexpr int kLaterBuilds = 3;

using Clock = std::chrono::steady_clock;

double millisecondsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Builds kProgram ending in `comment`; the milliseconds it took, or a negative number when the
/// build failed.
double timeBuild(cl_context context, cl_device_id device, const std::string &comment) {
  std::string source = std::string(kProgram) + "// " + comment + "\n";
  const char *text = source.c_str();
  auto start = Clock::now();
  cl_int error = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &error);
  if (error == CL_SUCCESS)
    error = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  double elapsed = millisecondsSince(start);
  if (program != nullptr)
    clReleaseProgram(program);
  return error == CL_SUCCESS ? elapsed : -1;
}

/// The child: on platform `index`, prints the setup time and the build times of `comments`.
int measure(unsigned index, const std::vector<std::string> &comments) {
  auto start = Clock::now();
  cl_platform_id platforms[16];
  cl_uint count = 0;
  cl_device_id device = nullptr;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS || index >= count ||
      clGetDeviceIDs(platforms[index], CL_DEVICE_TYPE_ALL, 1, &device, nullptr) != CL_SUCCESS)
    return 1;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, nullptr);
  if (context == nullptr)
    return 1;
  std::printf("%.3f", millisecondsSince(start));
  for (const std::string &comment : comments) {
    double elapsed = timeBuild(context, device, comment);
    if (elapsed < 0)
      return 1;
    std::printf(" %.3f", elapsed);
  }
  std::printf("\n");
  clReleaseContext(context);
  return 0;
}

/// Runs this program as a child measuring `comments` on platform `index`; its times, or empty
/// when it failed.
std::vector<double> runChild(const char *self, unsigned index,
                             const std::vector<std::string> &comments) {
  std::string command = std::string(self) + " --child " + std::to_string(index);
  for (const std::string &comment : comments)
    command += " " + comment;
  FILE *child = popen(command.c_str(), "r");
  if (child == nullptr)
    return {};
  std::vector<double> times;
  double value = 0;
  while (std::fscanf(child, "%lf", &value) == 1)
    times.push_back(value);
  if (pclose(child) != 0 || times.size() != comments.size() + 1)
    return {};
  return times;
}

double median(std::vector<double> values) {
  if (values.empty())
    return -1;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

struct Row {
  std::string platform;
  std::vector<double> setup, first, later, cached;
  bool failed = false;
};

/// A comment no build has seen: this run, platform, process and build.
std::string uniqueComment(unsigned platform, int process, int build) {
  std::ostringstream text;
  text << "run" << getpid() << "_" << Clock::now().time_since_epoch().count() << "_p" << platform
       << "_" << process << "_" << build;
  return text.str();
}

Row measurePlatform(const char *self, unsigned index, const std::string &name, int processes) {
  Row row{name, {}, {}, {}, {}};
  // One process puts the repeated program in the platform's cache first.
  std::string repeated = "repeated_" + uniqueComment(index, 0, 0);
  if (runChild(self, index, {repeated}).empty())
    row.failed = true;
  for (int process = 0; process < processes && !row.failed; ++process) {
    std::vector<std::string> comments;
    for (int build = 0; build <= kLaterBuilds; ++build)
      comments.push_back(uniqueComment(index, process, build));
    std::vector<double> fresh = runChild(self, index, comments);
    std::vector<double> cached = runChild(self, index, {repeated});
    if (fresh.empty() || cached.empty()) {
      row.failed = true;
      break;
    }
    row.setup.push_back(fresh[0]);
    row.first.push_back(fresh[1]);
    row.later.insert(row.later.end(), fresh.begin() + 2, fresh.end());
    row.cached.push_back(cached[1]);
  }
  return row;
}

std::vector<std::string> platformNames() {
  cl_platform_id platforms[16];
  cl_uint count = 0;
  std::vector<std::string> names;
  if (clGetPlatformIDs(16, platforms, &count) != CL_SUCCESS)
    return names;
  for (cl_uint index = 0; index < std::min<cl_uint>(count, 16); ++index) {
    char name[256] = {};
    clGetPlatformInfo(platforms[index], CL_PLATFORM_NAME, sizeof name - 1, name, nullptr);
    names.push_back(name);
  }
  return names;
}

/// A temporary folder for the platforms' program caches, removed when the run ends.
class CacheFolder {
public:
  CacheFolder() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kiln-build-time-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      return;
    path_ = pattern;
    setenv("KILN_CACHE_DIR", (path_ / "kiln").c_str(), 1);
    setenv("POCL_CACHE_DIR", (path_ / "pocl").c_str(), 1);
  }
  ~CacheFolder() {
    std::error_code ignored;
    if (!path_.empty())
      std::filesystem::remove_all(path_, ignored);
  }
  CacheFolder(const CacheFolder &) = delete;
  CacheFolder &operator=(const CacheFolder &) = delete;

private:
  std::filesystem::path path_;
};

} // namespace

int main(int argc, char **argv) {
  if (argc > 2 && std::strcmp(argv[1], "--child") == 0)
    return measure(static_cast<unsigned>(std::atoi(argv[2])),
                   std::vector<std::string>(argv + 3, argv + argc));
  int processes = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
  CacheFolder caches;
  std::vector<std::string> names = platformNames();
  if (names.empty()) {
    std::fprintf(stderr, "build-time: no OpenCL platform\n");
    return 1;
  }
  std::printf("clBuildProgram of a 3-kernel, 50-line program; medians of %d processes (%d later "
              "builds each), in ms\n",
              processes, kLaterBuilds);
  std::printf("%-36s %10s %10s %10s %10s\n", "platform", "setup", "first", "later", "cached");
  for (unsigned index = 0; index < names.size(); ++index) {
    Row row = measurePlatform(argv[0], index, names[index], processes);
    if (row.failed) {
      std::printf("%-36s a build failed\n", row.platform.c_str());
      continue;
    }
    std::printf("%-36s %10.2f %10.2f %10.2f %10.2f\n", row.platform.substr(0, 36).c_str(),
                median(row.setup), median(row.first), median(row.later), median(row.cached));
    std::fflush(stdout);
  }
  return 0;
}
