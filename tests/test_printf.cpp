// printf in kernels: every conversion with flags, widths and precisions, vectors, strings,
// special values, return values, many work-items, a full printf buffer, and programs from binaries
// and from clCompileProgram + clLinkProgram. The output is captured from the process's stdout.
#include "cl_test.hpp"

#include <cstdio>
#include <fcntl.h>
#include <map>
#include <set>
#include <unistd.h>

using namespace cltest;

namespace {

/// Sends the process's stdout (file descriptor 1, where the stdout stream writes) to a temporary
/// file until text() or destruction, which restore it.
class StdoutCapture {
public:
  StdoutCapture() {
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_ = dup(STDOUT_FILENO);
    if (file_ != nullptr && saved_ >= 0)
      dup2(fileno(file_), STDOUT_FILENO);
  }
  ~StdoutCapture() {
    restore();
    if (file_ != nullptr)
      std::fclose(file_);
  }
  StdoutCapture(const StdoutCapture &) = delete;
  StdoutCapture &operator=(const StdoutCapture &) = delete;

  /// Restores stdout and returns everything written to it meanwhile.
  std::string text() {
    restore();
    std::string text;
    if (file_ == nullptr)
      return text;
    std::rewind(file_);
    char chunk[4096];
    size_t read;
    while ((read = std::fread(chunk, 1, sizeof chunk, file_)) > 0)
      text.append(chunk, read);
    return text;
  }

private:
  void restore() {
    if (saved_ < 0)
      return;
    std::fflush(stdout);
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
    saved_ = -1;
  }

  std::FILE *file_ = nullptr;
  int saved_ = -1;
};

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> result;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos)
      end = text.size();
    result.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return result;
}

class PrintfTest : public ClTest {
protected:
  /// Runs `kernel` over `global` work-items (`local` per group, 0: the implementation's
  /// choice) with an int buffer of `global` elements as its only argument; returns what it
  /// printed. The buffer's contents are left in `results`.
  std::string printed(cl_kernel kernel, size_t global = 1, size_t local = 0,
                      std::vector<int> *results = nullptr) {
    Mem out = createBuffer(CL_MEM_READ_WRITE, global * sizeof(int));
    EXPECT_TRUE(setArgs(kernel, out));
    std::string text = launchPrinting(kernel, global, local);
    if (results != nullptr)
      *results = read<int>(out, global);
    return text;
  }

  /// Runs `kernel`, whose arguments are set, to completion; returns what it printed.
  std::string launchPrinting(cl_kernel kernel, size_t global, size_t local = 0) {
    StdoutCapture capture;
    const size_t *localSize = local != 0 ? &local : nullptr;
    cl_int error =
        clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, localSize, 0, nullptr, nullptr);
    cl_int finished = clFinish(queue_);
    std::string text = capture.text();
    EXPECT_CL_SUCCESS(error);
    EXPECT_CL_SUCCESS(finished);
    return text;
  }

  /// Builds `source` and runs its kernel `k` on one work-item (see above).
  std::string printed(const std::string &source, const std::string &options = "") {
    Kernel kernel = buildKernel(source, "k", options);
    if (kernel == nullptr)
      return "<build failed>";
    return printed(kernel);
  }
};

TEST_F(PrintfTest, HalfScalarsAndVectors) {
  if (!hasExtension(device_, "cl_khr_fp16"))
    GTEST_SKIP() << "no cl_khr_fp16";
  EXPECT_EQ("1.500000 -2.250000,0.500000\n", printed(R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void k(global int *out) {
      half h = 1.5h;
      printf("%f %v2hf\n", h, (half2)(-2.25h, 0.5h));
    })"));
}

TEST_F(PrintfTest, PlainTextAndPercent) {
  EXPECT_EQ("hello, world\n100% done %\n", printed(R"(
    kernel void k(global int *out) {
      printf("hello, world\n");
      printf("100%% done %%\n");
    })"));
}

TEST_F(PrintfTest, SignedIntegersWithFlagsWidthAndPrecision) {
  EXPECT_EQ("42|-42|   42|42   |00042|+42| 42|  -042|00042|-00042|0|\n", printed(R"(
    kernel void k(global int *out) {
      int a = 42, b = -42;
      printf("%d|%i|%5d|%-5d|%05d|%+d|% d|%6.3d|%.5i|%06.5d|%d|\n", a, b, a, a, a, a, a, b, a, b, 0);
    })"));
}

TEST_F(PrintfTest, UnsignedOctalAndHexadecimal) {
  EXPECT_EQ("4294967295|777|0777|ff|FF|0xff|0XFF|0|      beef|\n", printed(R"(
    kernel void k(global int *out) {
      printf("%u|%o|%#o|%x|%X|%#x|%#X|%#x|%10x|\n", -1, 0777, 0777, 255, 255, 255, 255, 0, 0xbeef);
    })"));
}

TEST_F(PrintfTest, LengthModifiersCutAndExtend) {
  // Values arrive promoted to int; hh and h convert them back to char and short.
  EXPECT_EQ("-128|127|80|200|-32767|8001|100001|-9223372036854775808|18446744073709551615|"
            "ffffffffffffffff|1000000000000000000000|-5000000000\n",
            printed(R"(
    kernel void k(global int *out) {
      char c = -128;
      short s = -32767;
      printf("%hhd|%hhd|%hhx|%hho|%hd|%hx|%ho|", c, 127, c, 128, s, s, s);
      long minimum = (long)0x8000000000000000UL;
      printf("%ld|%lu|%lx|%lo|%li\n", minimum, ULONG_MAX, -1L, minimum, -5000000000L);
    })"));
}

// C99's z and t (the conformance suite tests them on OpenCL 3.1 devices; PoCL 3.1 rejects them).
TEST_F(PrintfTest, SizeAndPointerDifferenceModifiers) {
  EXPECT_EQ("10|-3|18446744073709551615|fffffffffffffffd\n", printed(R"(
    kernel void k(global int *out) {
      size_t size = 10;
      ptrdiff_t difference = -3;
      printf("%zu|%td|%zu|%tx\n", size, difference, (size_t)-1, difference);
    })"));
}

TEST_F(PrintfTest, WidthAndPrecisionFromArguments) {
  // OpenCL C spells widths and precisions as numbers; Kiln also gives '*' its C meaning (PoCL
  // 3.1 reports a format error): the next int argument, a negative width is the '-' flag, a
  // negative precision none.
  EXPECT_EQ("    1|2   |3   |1.23|1.500000|\n", printed(R"(
    kernel void k(global int *out) {
      printf("%*d|%-*d|%*d|%.*f|%.*f|\n", 5, 1, 4, 2, -4, 3, 2, 1.23456, -1, 1.5);
    })"));
}

TEST_F(PrintfTest, Characters) {
  EXPECT_EQ("a|   b|c   |%|\xc8\n", printed(R"(
    kernel void k(global int *out) {
      char c = 'a';
      printf("%c|%4c|%-4c|%c|%c\n", c, 'b', 'c', '%', (char)-56);
    })"));
}

// A double argument keeps its precision (PoCL 3.1 prints 1e100 as inf).
TEST_F(PrintfTest, FloatsAndDoubles) {
  EXPECT_EQ("10.345600|10.3|10.35|  10.346|00010.35|10.35   | -10.35|0|1|\n"
            "1.234568e+04|1.234568E+04|12345.7|1.2E-05|0.0001|1e+100|-2.5|123.500\n",
            printed(R"(
    kernel void k(global int *out) {
      float f = 10.3456f;
      printf("%f|%.1f|%.2f|%8.3f|%08.2f|%-8.2f|%+7.2f|%.0f|%.0f|\n", f, f, f, f, f, f, -f, 0.1f,
             0.6f);
      double d = 12345.6789;
      printf("%e|%E|%g|%.2G|%g|%g|%g|%#.3f\n", d, d, d, 0.0000123, 0.0001, 1e100, -2.5, 123.5);
    })"));
}

TEST_F(PrintfTest, HexadecimalFloats) {
  EXPECT_EQ("0x1p-1|0X1.8P+0|0x1.000000p-1| 0x1.80p+0|-0x1.5p+3|0x0p+0\n", printed(R"(
    kernel void k(global int *out) {
      printf("%a|%A|%.6a|%10.2a|%a|%a\n", 0.5f, 1.5f, 0.5, 1.5f, -10.5, 0.0);
    })"));
}

TEST_F(PrintfTest, InfinitiesAndNaNs) {
  EXPECT_EQ("inf|-inf|INF|nan|NAN|inf|-inf|nan|NAN|inf|  -inf\n", printed(R"(
    kernel void k(global int *out) {
      float inf = INFINITY, nan = NAN;
      double dinf = 1.0 / 0.0;
      printf("%f|%f|%F|%f|%F|%e|%g|%a|%E|%f|%6f\n", inf, -inf, inf, nan, nan, dinf, -dinf, nan,
             nan, dinf, -inf);
    })"));
}

TEST_F(PrintfTest, FloatVectors) {
  EXPECT_EQ("1.00,2.00,3.00,4.00\n"
            "1.000000,-2.500000,3.250000\n"
            "1.5,2.5\n"
            "1.23e+03,9.88e+05,5.00e-04\n"
            "0x1.0p-2,0x1.0p-1,0x1.0p+0,0x1.8p+0\n"
            "1,2,3,4,1.5,3.14,2.5,3.5\n"
            " 1.0, 2.0\n",
            printed(R"(
    kernel void k(global int *out) {
      printf("%2.2v4hlf\n", (float4)(1.0f, 2.0f, 3.0f, 4.0f));
      printf("%v3hlf\n", (float3)(1.0f, -2.5f, 3.25f));
      printf("%v2lg\n", (double2)(1.5, 2.5));
      printf("%.2v3hle\n", (float3)(1234.25f, 987654.5f, 0.0005f));
      printf("%.1v4hla\n", (float4)(0.25f, 0.5f, 1.0f, 1.5f));
      printf("%v8hlg\n", (float8)(1.f, 2.f, 3.f, 4.f, 1.5f, 3.14f, 2.5f, 3.5f));
      printf("%4.1v2lf\n", (double2)(1.0, 2.0));
    })"));
}

// A vector without a length modifier (%v2d, %v16u) prints its elements as they are (PoCL 3.1
// reports a format error).
TEST_F(PrintfTest, IntegerVectors) {
  EXPECT_EQ("0xfa,0xfb,0x1,0,0x7f,0x80,0xff,0x2\n"
            "0x1234,0x8765\n"
            "-1,2\n"
            "+1,-2,+3,-4,+5,-6,+7,-8\n"
            "00512,01024,262144,1048576\n"
            "1,2,3,4,5,6,7,10,11,0,40,100,200,400,1000,2000\n"
            "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,4294967295\n"
            "12345678,-98765432\n"
            "-1,2,-3,4\n",
            printed(R"(
    kernel void k(global int *out) {
      printf("%#v8hhx\n", (uchar8)(0xfa, 0xfb, 1, 0, 0x7f, 0x80, 0xff, 2));
      printf("%#v2hx\n", (ushort2)(0x1234, 0x8765));
      printf("%v2d\n", (int2)(-1, 2));
      printf("%+v8hli\n", (int8)(1, -2, 3, -4, 5, -6, 7, -8));
      printf("%05v4hlu\n", (uint4)(512, 1024, 262144, 1048576));
      printf("%v16hlo\n", (uint16)(1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 32, 64, 128, 256, 512, 1024));
      printf("%v16u\n", (uint16)(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0xffffffffu));
      printf("%v2ld\n", (long2)(12345678, -98765432));
      printf("%v4hd\n", (short4)(-1, 2, -3, 4));
    })"));
}

TEST_F(PrintfTest, StringLiteralsAndConstantStrings) {
  EXPECT_EQ("foo|  foo|foo  |fo||glob|%s|foo\tbar|foo\n", printed(R"(
    constant char global_text[] = "glob";
    kernel void k(global int *out) {
      printf("%s|%5s|%-5s|%.2s|%s|%s|%s|%s|%s\n", "foo", "foo", "foo", "foo", "", global_text,
             "%s", "foo\tbar", "foo\0bar");
    })"));
}

TEST_F(PrintfTest, StringsInPrivateAndGenericMemory) {
  if (!supportsOpenCLC(device_, 3, 0) || !hasExtension(device_, "cl_khr_fp64"))
    GTEST_SKIP() << "needs OpenCL C 3.0 with the generic address space";
  EXPECT_EQ("hello|[hello]\n", printed(R"(
    void show(const char *text) { printf("[%s]\n", text); }
    kernel void k(global int *out) {
      char word[6] = {'h', 'e', 'l', 'l', 'o', 0};
      printf("%s|", word);
      show(word);
    })",
                                       "-cl-std=CL3.0"));
}

TEST_F(PrintfTest, StringsFromAConstantBuffer) {
  Kernel kernel = buildKernel(R"(
    kernel void k(constant char *text, global int *out) {
      printf("[%s] [%s]\n", text, text + 6);
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  const char text[] = "first second";
  Mem buffer =
      createBuffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof text, const_cast<char *>(text));
  Mem out = createBuffer(CL_MEM_READ_WRITE, sizeof(int));
  ASSERT_TRUE(setArgs(kernel, buffer, out));
  std::string text_printed = launchPrinting(kernel, 1);
  EXPECT_EQ("[first second] [second]\n", text_printed);
}

TEST_F(PrintfTest, LongStringFromAConstantBuffer) {
  Kernel kernel = buildKernel(R"(
    kernel void k(constant char *text, global int *out) { out[0] = printf("%s\n", text); })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  std::string text(20000, 'x');
  for (size_t i = 0; i < text.size(); i += 7)
    text[i] = char('a' + i % 26);
  Mem buffer = createBuffer(CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, text.size() + 1,
                            const_cast<char *>(text.c_str()));
  Mem out = createBuffer(CL_MEM_READ_WRITE, sizeof(int));
  ASSERT_TRUE(setArgs(kernel, buffer, out));
  std::string output = launchPrinting(kernel, 1);
  EXPECT_EQ(text + "\n", output);
  EXPECT_EQ(0, read<int>(out, 1)[0]);
}

TEST_F(PrintfTest, PointerPrintsTheAddressTheKernelSees) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global ulong *out) {
      printf("%p\n", out);
      out[0] = (ulong)out;
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, sizeof(cl_ulong));
  ASSERT_TRUE(setArgs(kernel, out));
  StdoutCapture capture;
  ASSERT_TRUE(run1D(kernel, 1));
  std::string text = capture.text();
  cl_ulong address = read<cl_ulong>(out, 1)[0];
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(address, std::strtoull(text.c_str(), nullptr, 16)) << text;
  EXPECT_EQ('\n', text.back());
}

TEST_F(PrintfTest, ManyArgumentsOfMixedTypes) {
  EXPECT_EQ("1 2.5 x three 4 5.25 6 7 8 9 10 11 12 13 14 15 16 17 18 19.5\n", printed(R"(
    kernel void k(global int *out) {
      printf("%d %.1f %c %s %ld %.2f %u %hd %hhu %x %o %i %d %d %d %d %d %d %d %.1f\n", 1, 2.5f,
             'x', "three", 4L, 5.25, 6u, (short)7, (uchar)8, 9, 8, 11, 12, 13, 14, 15, 16, 17, 18,
             19.5);
    })"));
}

TEST_F(PrintfTest, TooFewArgumentsDoNotDisturbLaterCalls) {
  // Undefined output for the call itself, but nothing else may suffer.
  std::string text = printed(R"(
    kernel void k(global int *out) {
      printf("%d %s %f\n", 5);
      printf("next %d\n", 6);
    })");
  EXPECT_EQ("next 6\n", text.substr(text.size() - std::min<size_t>(text.size(), 7))) << text;
}

TEST_F(PrintfTest, ReturnsZeroOnSuccess) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global int *out) { out[get_global_id(0)] = printf("item %d\n", (int)get_global_id(0)) + 7; })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<int> results;
  std::string text = printed(kernel, 4, 0, &results);
  EXPECT_EQ(std::vector<int>(4, 7), results);
  EXPECT_EQ(4u, lines(text).size());
}

TEST_F(PrintfTest, CallsInHelperFunctionsAndLoops) {
  EXPECT_EQ("helper 0\nhelper 1\nhelper 2\nloop 0\nloop 1\nloop 2\n", printed(R"(
    void helper(int i) { printf("helper %d\n", i); }
    kernel void k(global int *out) {
      for (int i = 0; i < 3; ++i)
        helper(i);
      for (int i = 0; i < 3; ++i)
        printf("loop %d\n", i);
    })"));
}

TEST_F(PrintfTest, ManyWorkItemsPrintWholeLines) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global int *out) {
      int id = (int)get_global_id(0);
      out[id] = printf("work-item %d of group %d: %s %v4d %.3f\n", id, (int)get_group_id(0),
                       "a string in the middle", (int4)(id, id + 1, id + 2, id + 3), id * 0.5f);
      barrier(CLK_LOCAL_MEM_FENCE);
      printf("after the barrier %d\n", id);
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  constexpr int kItems = 4096, kLocal = 64;
  std::vector<int> results;
  std::string text = printed(kernel, kItems, kLocal, &results);
  EXPECT_EQ(std::vector<int>(kItems, 0), results);
  std::set<std::string> expected;
  for (int id = 0; id < kItems; ++id) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "work-item %d of group %d: a string in the middle %d,%d,%d,%d %.3f", id,
                  id / kLocal, id, id + 1, id + 2, id + 3, id * 0.5);
    expected.insert(line);
    expected.insert("after the barrier " + std::to_string(id));
  }
  std::vector<std::string> printedLines = lines(text);
  EXPECT_EQ(expected.size(), printedLines.size());
  std::set<std::string> unique(printedLines.begin(), printedLines.end());
  EXPECT_EQ(printedLines.size(), unique.size()) << "a line was printed twice";
  EXPECT_TRUE(unique == expected) << "some lines are missing or damaged";
}

TEST_F(PrintfTest, FullBufferFailsTheCallsThatDoNotFitWithoutDamage) {
  size_t bufferSize = deviceInfo<size_t>(device_, CL_DEVICE_PRINTF_BUFFER_SIZE);
  ASSERT_GE(bufferSize, size_t{1} << 20);
  // Each line is 128 characters: far more than the buffer holds in all.
  Kernel kernel = buildKernel(R"(
    kernel void k(global int *out) {
      int id = (int)get_global_id(0);
      out[id] = printf("%08d %s\n", id, "a line of output that is long enough to fill the printf buffer quickly, one work-item after another.");
    })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  const std::string tail =
      " a line of output that is long enough to fill the printf buffer quickly, one work-item "
      "after another.";
  size_t items = (4 * bufferSize / (tail.size() + 9)) / 64 * 64;
  std::vector<int> results;
  std::string text = printed(kernel, items, 64, &results);
  size_t succeeded = std::count(results.begin(), results.end(), 0);
  size_t failed = std::count(results.begin(), results.end(), -1);
  EXPECT_EQ(items, succeeded + failed) << "printf returned something other than 0 or -1";
  EXPECT_GT(succeeded, 0u);
  EXPECT_GT(failed, 0u);
  // The buffer holds at least a fraction of its size in text.
  EXPECT_GT(text.size(), bufferSize / 4);
  std::vector<std::string> printedLines = lines(text);
  EXPECT_EQ(succeeded, printedLines.size());
  std::set<int> ids;
  for (const std::string &line : printedLines) {
    ASSERT_EQ(8 + tail.size(), line.size()) << line;
    ASSERT_EQ(tail, line.substr(8)) << line;
    int id = std::atoi(line.substr(0, 8).c_str());
    ASSERT_EQ(0, results[id]) << "line printed by a call that returned -1: " << line;
    ids.insert(id);
  }
  EXPECT_EQ(printedLines.size(), ids.size()) << "a line was printed twice";

  // The next launch has an empty buffer again.
  Kernel small =
      buildKernel(R"(kernel void k(global int *out) { out[0] = printf("again\n"); })", "k");
  ASSERT_NE(nullptr, small.get());
  std::vector<int> again;
  EXPECT_EQ("again\n", printed(small, 1, 0, &again));
  EXPECT_EQ(0, again[0]);
}

TEST_F(PrintfTest, OutputOfEachLaunchAtItsCompletionInQueueOrder) {
  Kernel kernel = buildKernel(R"(
    kernel void k(global int *out, int launch) { printf("launch %d\n", launch); })",
                              "k");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, sizeof(int));
  StdoutCapture capture;
  size_t global = 1;
  Event last;
  for (int launch = 0; launch < 5; ++launch) {
    ASSERT_TRUE(setArgs(kernel, out, launch));
    ASSERT_CL_SUCCESS(clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0,
                                             nullptr, launch == 4 ? last.out() : nullptr));
  }
  // The event of the last launch completes after its output is written.
  cl_int waited = clWaitForEvents(1, last.ptr());
  std::string text = capture.text();
  EXPECT_CL_SUCCESS(waited);
  EXPECT_EQ("launch 0\nlaunch 1\nlaunch 2\nlaunch 3\nlaunch 4\n", text);
}

TEST_F(PrintfTest, StdoutReopenedByTheApplication) {
  // The conformance suite's way: freopen(stdout) to a file; the output follows the stream.
  Kernel kernel =
      buildKernel(R"(kernel void k(global int *out) { printf("to the file\n"); })", "k");
  ASSERT_NE(nullptr, kernel.get());
  Mem out = createBuffer(CL_MEM_READ_WRITE, sizeof(int));
  ASSERT_TRUE(setArgs(kernel, out));
  char path[] = "/tmp/kiln-printf-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  ASSERT_NE(nullptr, std::freopen(path, "w", stdout));
  size_t global = 1;
  cl_int error =
      clEnqueueNDRangeKernel(queue_, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr);
  cl_int finished = clFinish(queue_);
  std::fflush(stdout);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  EXPECT_CL_SUCCESS(error);
  EXPECT_CL_SUCCESS(finished);
  std::FILE *file = std::fopen(path, "r");
  ASSERT_NE(nullptr, file);
  char text[64] = {};
  size_t size = std::fread(text, 1, sizeof text - 1, file);
  std::fclose(file);
  std::remove(path);
  EXPECT_EQ("to the file\n", std::string(text, size));
}

const char *kBinarySource = R"(
  kernel void k(global int *out) {
    out[0] = printf("from %s: %d %.2f %v2hhd\n", "a binary", 7, 1.25f, (char2)(-1, 1));
  })";

TEST_F(PrintfTest, ProgramFromABinary) {
  Program built = build(kBinarySource);
  ASSERT_NE(nullptr, built.get());
  size_t size = 0;
  ASSERT_CL_SUCCESS(clGetProgramInfo(built, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
  std::vector<unsigned char> binary(size);
  unsigned char *pointer = binary.data();
  ASSERT_CL_SUCCESS(
      clGetProgramInfo(built, CL_PROGRAM_BINARIES, sizeof pointer, &pointer, nullptr));
  built.reset();

  const unsigned char *bytes = binary.data();
  cl_int status = CL_SUCCESS, error = CL_SUCCESS;
  Program loaded(clCreateProgramWithBinary(context_, 1, &device_, &size, &bytes, &status, &error));
  ASSERT_CL_SUCCESS(error);
  ASSERT_CL_SUCCESS(status);
  ASSERT_CL_SUCCESS(clBuildProgram(loaded, 1, &device_, "", nullptr, nullptr));
  Kernel kernel = createKernel(loaded, "k");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<int> results;
  EXPECT_EQ("from a binary: 7 1.25 -1,1\n", printed(kernel, 1, 0, &results));
  EXPECT_EQ(0, results[0]);
}

TEST_F(PrintfTest, CompiledObjectsAndLibrariesLinked) {
  // printf in a library linked with the kernel's object, both compiled separately.
  const char *library = R"(
    void report(int value) { printf("library says %d %s\n", value, "and a string"); })";
  const char *kernelSource = R"(
    void report(int value);
    kernel void k(global int *out) {
      printf("kernel says %d\n", 1);
      report(2);
    })";
  auto compile = [&](const char *source) {
    cl_int error = CL_SUCCESS;
    Program program(clCreateProgramWithSource(context_, 1, &source, nullptr, &error));
    EXPECT_CL_SUCCESS(error);
    EXPECT_CL_SUCCESS(
        clCompileProgram(program, 1, &device_, "", 0, nullptr, nullptr, nullptr, nullptr));
    return program;
  };
  Program libraryObject = compile(library);
  Program kernelObject = compile(kernelSource);
  cl_int error = CL_SUCCESS;
  cl_program libraryInputs[] = {libraryObject};
  Program linkedLibrary(clLinkProgram(context_, 1, &device_, "-create-library", 1, libraryInputs,
                                      nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error);
  cl_program inputs[] = {kernelObject, linkedLibrary};
  Program executable(clLinkProgram(context_, 1, &device_, "", 2, inputs, nullptr, nullptr, &error));
  ASSERT_CL_SUCCESS(error) << buildLog(executable, device_);
  Kernel kernel = createKernel(executable, "k");
  ASSERT_NE(nullptr, kernel.get());
  EXPECT_EQ("kernel says 1\nlibrary says 2 and a string\n", printed(kernel));
}

TEST_F(PrintfTest, WithOptimizationsDisabled) {
  EXPECT_EQ("item 0 of 1: 2.50\n", printed(R"(
    kernel void k(global int *out) {
      printf("item %d of %d: %.2f\n", (int)get_global_id(0), (int)get_global_size(0), 2.5f);
    })",
                                           "-cl-opt-disable"));
}

TEST_F(PrintfTest, KernelsThatKernelsEnqueuePrint) {
  // 40 work-items each enqueue a child of two work-items that prints: children a device may run
  // together (the CPU device: as commands of several launches), each with its own output.
  auto capabilities = deviceInfo<cl_device_device_enqueue_capabilities>(
      device_, CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES);
  if (!(capabilities & CL_DEVICE_QUEUE_SUPPORTED))
    GTEST_SKIP() << "the device has no device-side enqueue";
  cl_queue_properties properties[] = {
      CL_QUEUE_PROPERTIES,
      CL_QUEUE_ON_DEVICE | CL_QUEUE_ON_DEVICE_DEFAULT | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, 0};
  cl_int error = CL_SUCCESS;
  Queue deviceQueue(clCreateCommandQueueWithProperties(context_, device_, properties, &error));
  ASSERT_CL_SUCCESS(error);
  Kernel kernel = buildKernel(R"(
    kernel void k(global int *out) {
      int parent = (int)get_global_id(0);
      enqueue_kernel(get_default_queue(), CLK_ENQUEUE_FLAGS_NO_WAIT, ndrange_1D(2), ^{
        printf("child of %d, item %d\n", parent, (int)get_global_id(0));
      });
    })",
                              "k", "-cl-std=CL3.0");
  ASSERT_NE(nullptr, kernel.get());
  std::vector<std::string> got = lines(printed(kernel, 40));
  std::multiset<std::string> expected;
  for (int parent = 0; parent < 40; ++parent)
    for (int item = 0; item < 2; ++item)
      expected.insert("child of " + std::to_string(parent) + ", item " + std::to_string(item));
  EXPECT_EQ(expected, std::multiset<std::string>(got.begin(), got.end()));
}

TEST_F(PrintfTest, KernelsWithoutPrintfPrintNothing) {
  EXPECT_EQ("", printed(R"(kernel void k(global int *out) { out[0] = 1; })"));
}

TEST_F(PrintfTest, FormatThatIsNotALiteralIsABuildError) {
  // The specification requires a literal; what happens otherwise is the implementation's choice.
  if (!isKiln())
    GTEST_SKIP() << "Kiln's behaviour for a format that is not a literal";
  BuildResult result = tryBuild(context_, device_, R"(
    kernel void k(global int *out, int choice) {
      printf(choice ? "one\n" : "two\n");
    })");
  EXPECT_CL_ERROR(CL_BUILD_PROGRAM_FAILURE, result.error);
  EXPECT_NE(std::string::npos, result.log.find("not a string literal")) << result.log;
}

} // namespace
