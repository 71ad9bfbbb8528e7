// What the work-item vectorizer may cost at compile time. Kernels like those random-program
// generators write (large private structures with aggregate initializers that hold pointers to
// their own fields, struct copies, volatile fields, long runs of atomics) gain nothing in lanes:
// every such access runs once per lane, so their vectorized code is the SIMD width times larger,
// and the optimizer's and code generator's time grows faster than the code. They must compile
// one work-item at a time, which KILN_VECTORIZE_REPORT says, and give the host reference's
// results. Compile time is bounded through the report's instruction counts, never a clock.
#include "cl_test.hpp"

#include <functional>
#include <optional>
#include <regex>
#include <sstream>

using namespace cltest;

namespace {

/// The vectorizer's budget (src/devices/cpu/codegen/vectorizer/code_growth.cpp).
constexpr uint64_t kGrowthFactor = 4, kGrowthAllowance = 16384;

/// One kernel's line of KILN_VECTORIZE_REPORT.
struct ReportLine {
  std::string text;
  bool vectorized = false;
  std::optional<uint64_t> vectorInstructions, scalarInstructions;
};

std::vector<ReportLine> parseReport(const std::string &printed) {
  static const std::regex sizes("code of ([0-9]+) instructions in lanes, ([0-9]+) one work-item");
  std::vector<ReportLine> lines;
  std::istringstream stream(printed);
  for (std::string text; std::getline(stream, text);) {
    ReportLine line;
    line.text = text;
    line.vectorized = text.find(": vectorized") != std::string::npos;
    if (std::smatch match; std::regex_search(text, match, sizes)) {
      line.vectorInstructions = std::stoull(match[1]);
      line.scalarInstructions = std::stoull(match[2]);
    }
    lines.push_back(line);
  }
  return lines;
}

/// A straight run of `count` atomic increments of local counters that each work-item picks from
/// its data, around plain loads and stores: the profitability rules let it vectorize (its global
/// accesses are vector accesses), but every increment is one per lane.
std::string atomicRun(int count) {
  std::string body;
  for (int i = 0; i < count; ++i)
    body += "  atomic_inc(&counts[(x + " + std::to_string(i * 7) + ") & 255]);\n";
  return R"(kernel void run(global const uint *in, global uint *out) {
      local uint counts[256];
      size_t lid = get_local_id(0);
      for (size_t bin = lid; bin < 256; bin += get_local_size(0)) counts[bin] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      uint x = in[get_global_id(0)];
    )" + body +
         R"(  barrier(CLK_LOCAL_MEM_FENCE);
      for (size_t bin = lid; bin < 256; bin += get_local_size(0))
        out[get_group_id(0) * 256 + bin] = counts[bin];
    })";
}

class CodeGrowthTest : public ClTest {
protected:
  /// Runs `kernel`'s first launch (the one that compiles its work-group function) with the
  /// report on, and returns the report's lines (none on other implementations).
  std::vector<ReportLine> runReported(const std::string &source, const char *name,
                                      const std::function<void(Kernel &)> &launch) {
    ScopedEnvironment on("KILN_VECTORIZE", std::nullopt); // also when CI turns it off
    ScopedEnvironment report("KILN_VECTORIZE_REPORT", "1");
    Kernel kernel = buildKernel(source, name);
    EXPECT_TRUE(kernel) << name;
    if (!kernel)
      return {};
    testing::internal::CaptureStderr();
    launch(kernel);
    return parseReport(testing::internal::GetCapturedStderr());
  }

  /// Runs atomicRun(count) over `in` in groups of `local`; returns the report and, in `counts`,
  /// each group's counters.
  std::vector<ReportLine> runAtomicRun(int count, size_t local, const std::vector<cl_uint> &in,
                                       std::vector<cl_uint> &counts) {
    size_t groups = in.size() / local;
    Mem input = bufferWith(in);
    Mem output = createBuffer(CL_MEM_READ_WRITE, groups * 256 * sizeof(cl_uint));
    std::vector<ReportLine> report = runReported(atomicRun(count), "run", [&](Kernel &kernel) {
      ASSERT_TRUE(setArgs(kernel, input, output));
      ASSERT_TRUE(run1D(kernel, in.size(), local));
    });
    counts = read<cl_uint>(output, groups * 256);
    return report;
  }

  /// Every line of `lines` names a specialization that stayed scalar, and there is one at least.
  static void expectScalar(const std::vector<ReportLine> &lines, const std::string &why) {
    if (!isKilnCpuDevice())
      return;
    ASSERT_FALSE(lines.empty()) << "no report";
    for (const ReportLine &line : lines) {
      EXPECT_FALSE(line.vectorized) << line.text;
      EXPECT_NE(line.text.find(why), std::string::npos) << line.text;
    }
  }
};

/// A private structure of `n`-element arrays whose initializer points into the structure it is
/// copied to, as CLsmith writes its globals: every work-item's result is read back through those
/// pointers, so nothing of it is dead.
std::string selfPointingStructure(int n, bool isVolatile) {
  std::string qualifier = isVolatile ? "volatile " : "";
  std::string values, pairs, pointers;
  for (int i = 0; i < n; ++i) {
    std::string index = std::to_string(i), separator = i + 1 < n ? "," : "";
    values += index + separator;
    pairs += "{" + index + "," + std::to_string(3 * i) + "}" + separator;
    pointers += "&p->t[" + index + "].y" + separator;
  }
  return "#define N " + std::to_string(n) + "\n" + "struct T { " + qualifier +
         "long x; int y; };\n" + "struct S { " + qualifier +
         "int v[N]; struct T t[N]; int *q[N]; long b; };\n" +
         R"(kernel void entry(global long *result) {
              struct S c1;
              struct S *p = &c1;
              struct S c2 = { {)" +
         values + "}, {" + pairs + "}, {" + pointers + R"(}, 7 };
              c1 = c2;
              size_t id = get_global_id(0);
              int k = id % N;
              result[id] = c1.v[k] + c1.t[(k * 7) % N].x + *c1.q[k] + c1.b;
            })";
}

long selfPointingReference(size_t id, int n) {
  int k = static_cast<int>(id % n);
  return k + (k * 7) % n + 3L * k + 7; // v[k] + t[7k].x + t[k].y + b
}

TEST_F(CodeGrowthTest, PrivateStructuresWithPointersToThemselvesCompileOneWorkItemAtATime) {
  for (bool isVolatile : {true, false})
    for (size_t local : {16u, 23u}) {
      constexpr int kFields = 300;
      const size_t items = local * 4;
      Mem result = createBuffer(CL_MEM_READ_WRITE, items * sizeof(cl_long));
      std::vector<ReportLine> report =
          runReported(selfPointingStructure(kFields, isVolatile), "entry", [&](Kernel &kernel) {
            ASSERT_TRUE(setArgs(kernel, result));
            ASSERT_TRUE(run1D(kernel, items, local));
          });
      expectScalar(report, "lane-by-lane accesses");
      std::vector<cl_long> expected(items);
      for (size_t id = 0; id < items; ++id)
        expected[id] = selfPointingReference(id, kFields);
      EXPECT_TRUE(equalArrays(expected, read<cl_long>(result, items)))
          << (isVolatile ? "volatile" : "plain") << " fields, work-groups of " << local;
    }
}

std::vector<cl_uint> atomicRunReference(int count, size_t local, const std::vector<cl_uint> &in) {
  std::vector<cl_uint> counts(in.size() / local * 256, 0);
  for (size_t id = 0; id < in.size(); ++id)
    for (int i = 0; i < count; ++i)
      ++counts[id / local * 256 + ((in[id] + i * 7) & 255)];
  return counts;
}

TEST_F(CodeGrowthTest, KernelsWhoseLanesWouldOutgrowTheBudgetCompileOneWorkItemAtATime) {
  constexpr size_t kLocal = 64;
  std::vector<cl_uint> in(kLocal * 3);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<cl_uint>(i * 2654435761u >> 7);
  constexpr int kIncrements = 600;
  std::vector<cl_uint> counts;
  std::vector<ReportLine> report = runAtomicRun(kIncrements, kLocal, in, counts);
  expectScalar(report, "past the budget");
  EXPECT_TRUE(equalArrays(atomicRunReference(kIncrements, kLocal, in), counts));
}

TEST_F(CodeGrowthTest, VectorizedCodeStaysWithinTheBudget) {
  // A few increments: vectorized, and the report's sizes are within the budget.
  constexpr size_t kLocal = 64;
  std::vector<cl_uint> in(kLocal * 3);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<cl_uint>(i * 40503u >> 3);
  constexpr int kIncrements = 4;
  std::vector<cl_uint> counts;
  std::vector<ReportLine> report = runAtomicRun(kIncrements, kLocal, in, counts);
  EXPECT_TRUE(equalArrays(atomicRunReference(kIncrements, kLocal, in), counts));
  if (!isKilnCpuDevice())
    return;
  ASSERT_EQ(report.size(), 1u);
  const ReportLine &line = report[0];
  EXPECT_TRUE(line.vectorized) << line.text;
  ASSERT_TRUE(line.vectorInstructions && line.scalarInstructions) << line.text;
  EXPECT_LE(*line.vectorInstructions, kGrowthFactor * *line.scalarInstructions + kGrowthAllowance)
      << line.text;
}

} // namespace
