// Kiln's on-disk program cache: each test points KILN_CACHE_DIR at a fresh folder of its own
// (the rest of the suite runs with KILN_CACHE=0). What a build did is seen in the folder: a
// miss writes an entry through a new file renamed into place (a new inode), a hit reads the
// entry and refreshes its modification time when it is older than a minute.
#include "cl_test.hpp"
#include "program_cache/cache_test_source.hpp"

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace cltest;
namespace fs = std::filesystem;

namespace {

struct FileState {
  ino_t inode = 0;
  off_t size = 0;
  time_t modified = 0;
};

FileState fileState(const fs::path &path) {
  struct stat status {};
  EXPECT_EQ(0, ::stat(path.c_str(), &status)) << path;
  return {status.st_ino, status.st_size, status.st_mtim.tv_sec};
}

/// Makes the file look last used `seconds` ago.
void age(const fs::path &path, time_t seconds) {
  time_t when = ::time(nullptr) - seconds;
  timespec times[2] = {{when, 0}, {when, 0}};
  EXPECT_EQ(0, ::utimensat(AT_FDCWD, path.c_str(), times, 0)) << path;
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const fs::path &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class ProgramCacheTest : public ClTest {
protected:
  void SetUp() override {
    if (!isKiln())
      GTEST_SKIP() << "Kiln's own cache";
    ClTest::SetUp();
    std::string pattern = (fs::temp_directory_path() / "kiln-cache-test-XXXXXX").string();
    ASSERT_NE(nullptr, ::mkdtemp(pattern.data()));
    folder_ = pattern;
    cacheFolder_ = folder_ / "cache"; // Kiln creates it
    setEnvironment("KILN_CACHE", "1");
    setEnvironment("KILN_CACHE_DIR", cacheFolder_.string());
    setEnvironment("KILN_CACHE_MAX_SIZE", std::nullopt);
  }
  void TearDown() override {
    while (!environment_.empty()) // the last set first: each restores what was before it
      environment_.pop_back();
    if (!folder_.empty())
      fs::remove_all(folder_);
  }

  void setEnvironment(const char *name, std::optional<std::string> value) {
    environment_.emplace_back(std::make_unique<ScopedEnvironment>(name, std::move(value)));
  }

  /// The files in `folder` (the cache folder by default) but its size ledger, by name.
  std::map<std::string, fs::path> files(const fs::path &folder = {}) const {
    fs::path listed = folder.empty() ? cacheFolder_ : folder;
    std::map<std::string, fs::path> found;
    if (fs::exists(listed))
      for (const fs::directory_entry &entry : fs::directory_iterator(listed))
        if (entry.path().filename() != kLedger)
          found[entry.path().filename().string()] = entry.path();
    return found;
  }
  /// The size the cache folder's ledger holds; none when there is no readable ledger.
  std::optional<uint64_t> ledgerSize() const {
    std::ifstream in(cacheFolder_ / kLedger);
    uint64_t size = 0;
    if (!(in >> size))
      return std::nullopt;
    return size;
  }
  /// The total size of the cache folder's entries.
  uint64_t entriesSize() const {
    uint64_t total = 0;
    for (auto &[name, path] : files())
      if (name.size() == 32)
        total += static_cast<uint64_t>(fileState(path).size);
    return total;
  }

  static constexpr const char *kLedger = ".size";
  /// The one file in the cache folder (a failure when there is not exactly one).
  fs::path onlyFile() const {
    auto found = files();
    EXPECT_EQ(1u, found.size());
    return found.empty() ? fs::path() : found.begin()->second;
  }

  /// Builds the test program ending in `comment` and checks that its saxpy kernel runs right.
  Program buildAndRun(const std::string &comment, const std::string &options = "") {
    Program program = build(cachetest::source(comment), options);
    Kernel kernel = createKernel(program, "saxpy");
    if (!kernel)
      return program;
    Mem x = bufferWith(cachetest::inputX());
    Mem y = bufferWith(cachetest::inputY());
    cl_int n = static_cast<cl_int>(cachetest::inputX().size());
    EXPECT_TRUE(setArgs(kernel, y, x, cachetest::kScale, n));
    EXPECT_TRUE(run1D(kernel, static_cast<size_t>(n)));
    EXPECT_TRUE(equalArrays(cachetest::expectedY(), read<float>(y, static_cast<size_t>(n))));
    return program;
  }

  std::string kernelNames(cl_program program) {
    return queryString([&](size_t s, void *v, size_t *r) {
      return clGetProgramInfo(program, CL_PROGRAM_KERNEL_NAMES, s, v, r);
    });
  }

  fs::path folder_;      // the test's own, removed at the end
  fs::path cacheFolder_; // in folder_
  std::vector<std::unique_ptr<ScopedEnvironment>> environment_;
};

TEST_F(ProgramCacheTest, SecondBuildOfTheSameSourceIsServedFromTheEntry) {
  Program first = buildAndRun("same");
  fs::path entry = onlyFile();
  ASSERT_FALSE(entry.empty());
  EXPECT_EQ(32u, entry.filename().string().size());
  struct stat status {};
  ASSERT_EQ(0, ::stat(cacheFolder_.c_str(), &status));
  EXPECT_EQ(0700u, status.st_mode & 0777u) << "the cache folder is private to the user";
  age(entry, 3600);
  FileState before = fileState(entry);

  Program second = buildAndRun("same");
  FileState after = fileState(entry);
  EXPECT_EQ(before.inode, after.inode) << "a hit must not rewrite the entry";
  EXPECT_GT(after.modified, before.modified) << "a hit refreshes the entry's time";
  EXPECT_EQ(1u, files().size());
  EXPECT_EQ(kernelNames(first), kernelNames(second));
  EXPECT_EQ(buildLog(first, device_), buildLog(second, device_));
  EXPECT_EQ(CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
            buildInfo<cl_program_binary_type>(second, device_, CL_PROGRAM_BINARY_TYPE));
}

TEST_F(ProgramCacheTest, OtherSourceOrOptionsAreMisses) {
  buildAndRun("one");
  buildAndRun("two");
  buildAndRun("one", "-DUNUSED=1");
  buildAndRun("one", "-cl-kernel-arg-info");
  EXPECT_EQ(4u, files().size());
  buildAndRun("two");
  EXPECT_EQ(4u, files().size());
}

TEST_F(ProgramCacheTest, KernelArgInfoComesBackFromTheEntry) {
  buildAndRun("arg info", "-cl-kernel-arg-info");
  Program cached = buildAndRun("arg info", "-cl-kernel-arg-info");
  Kernel kernel = createKernel(cached, "saxpy");
  ASSERT_TRUE(kernel);
  std::string name = queryString([&](size_t s, void *v, size_t *r) {
    return clGetKernelArgInfo(kernel, 2, CL_KERNEL_ARG_NAME, s, v, r);
  });
  EXPECT_EQ("a", name);
  EXPECT_EQ(4u, kernelInfo<cl_uint>(kernel, CL_KERNEL_NUM_ARGS));
}

TEST_F(ProgramCacheTest, TurnedOffWritesNothing) {
  setEnvironment("KILN_CACHE", "0");
  buildAndRun("off");
  EXPECT_TRUE(files().empty());
}

TEST_F(ProgramCacheTest, CreatesMissingParentFolders) {
  fs::path nested = folder_ / "a" / "b";
  setEnvironment("KILN_CACHE_DIR", nested.string());
  buildAndRun("nested");
  EXPECT_EQ(1u, files(nested).size());
}

TEST_F(ProgramCacheTest, UnusableFolderOnlyMeansNoCache) {
  fs::path file = folder_ / "not-a-folder";
  writeFile(file, "x");
  setEnvironment("KILN_CACHE_DIR", (file / "kiln").string());
  buildAndRun("unusable");
  setEnvironment("KILN_CACHE_DIR", std::nullopt);
  setEnvironment("XDG_CACHE_HOME", std::nullopt);
  setEnvironment("HOME", std::nullopt);
  buildAndRun("no home");
}

TEST_F(ProgramCacheTest, BuildsThatMayReadFilesAreNotCached) {
  // The key does not cover files the front end reads: an -I folder's headers, or headers found
  // next to the application.
  fs::path include = folder_ / "include";
  fs::create_directory(include);
  writeFile(include / "scale.h", "#define SCALE 2\n");
  build("#include \"scale.h\"\n__kernel void k(__global int *p) { *p = SCALE; }",
        "-I " + include.string());
  buildAndRun("include folder", "-I " + include.string());
  build("#if __has_include(\"scale.h\")\n#endif\n__kernel void k() {}\n");
  build("#  include <opencl-c-base.h>\n__kernel void k() {}\n");
  EXPECT_TRUE(files().empty());
  // The word alone in a comment is harmless (though a `#` before it would count).
  build("// include\n__kernel void k() {}\n");
  EXPECT_EQ(1u, files().size());
}

TEST_F(ProgramCacheTest, FailedBuildsAreNotCached) {
  EXPECT_EQ(CL_BUILD_PROGRAM_FAILURE,
            tryBuild(context_, device_, "__kernel void k() { undeclared(); }").error);
  EXPECT_TRUE(files().empty());
}

TEST_F(ProgramCacheTest, DamagedEntriesAreMissesAndTheBuildStillSucceeds) {
  buildAndRun("damaged");
  fs::path entry = onlyFile();
  ASSERT_FALSE(entry.empty());
  const std::string intact = readFile(entry);
  ASSERT_GT(intact.size(), 64u);

  std::vector<std::pair<const char *, std::string>> damages = {
      {"empty", ""},
      {"truncated header", intact.substr(0, 20)},
      {"truncated", intact.substr(0, intact.size() / 2)},
      {"one byte short", intact.substr(0, intact.size() - 1)},
      {"one byte more", intact + "x"},
  };
  for (size_t position :
       {size_t{0}, size_t{12}, size_t{40}, size_t{100}, intact.size() / 2, intact.size() - 1}) {
    std::string flipped = intact;
    flipped[position] = static_cast<char>(flipped[position] ^ 0x5a);
    damages.emplace_back("flipped byte", flipped);
  }
  for (const auto &[what, bytes] : damages) {
    SCOPED_TRACE(what);
    writeFile(entry, bytes);
    buildAndRun("damaged");
    EXPECT_TRUE(intact == readFile(entry)) << "the damaged entry is replaced";
    EXPECT_EQ(1u, files().size());
  }
}

TEST_F(ProgramCacheTest, SizeLimitEvictsTheLeastRecentlyUsedEntries) {
  for (const char *name : {"a", "b", "c"})
    buildAndRun(name);
  auto entries = files();
  ASSERT_EQ(3u, entries.size());
  // Which file is which: the one each build hits, seen by its time changing.
  std::map<std::string, fs::path> byName;
  uint64_t total = 0;
  for (const char *name : {"a", "b", "c"}) {
    for (auto &[file, path] : entries)
      age(path, 7200);
    buildAndRun(name);
    for (auto &[file, path] : entries)
      if (fileState(path).modified > ::time(nullptr) - 600)
        byName[name] = path;
  }
  ASSERT_EQ(3u, byName.size());
  for (auto &[file, path] : entries)
    total += static_cast<uint64_t>(fileState(path).size);
  // Last used: a (now), then c (an hour ago), then b (two hours ago).
  age(byName["a"], 10800);
  age(byName["b"], 7200);
  age(byName["c"], 3600);
  buildAndRun("a");

  // Room for the three and a little: a fourth entry takes the folder past the limit, and the
  // least recently used go until it is well within it.
  setEnvironment("KILN_CACHE_MAX_SIZE", std::to_string(total + total / 10));
  buildAndRun("d");
  auto left = files();
  uint64_t leftSize = 0;
  for (auto &[file, path] : left)
    leftSize += static_cast<uint64_t>(fileState(path).size);
  EXPECT_LE(leftSize, total + total / 10);
  EXPECT_TRUE(fs::exists(byName["a"])) << "the most recently used entry stays";
  EXPECT_FALSE(fs::exists(byName["b"])) << "the least recently used entry goes first";
  EXPECT_LT(left.size(), 4u);
  // A limit given with a suffix; an entry larger than the limit is not written at all.
  setEnvironment("KILN_CACHE_MAX_SIZE", "1K");
  buildAndRun("too large");
  EXPECT_EQ(left.size(), files().size());
}

TEST_F(ProgramCacheTest, ScanRemovesOnlyTemporaryFilesOfDeadWriters) {
  // A process's first write scans the folder.
  fs::create_directory(cacheFolder_);
  writeFile(cacheFolder_ / ".tmp-dead01", "left by a writer that died");
  age(cacheFolder_ / ".tmp-dead01", 7200);
  writeFile(cacheFolder_ / ".tmp-live01", "being written");
  writeFile(cacheFolder_ / "notes.txt", "not Kiln's");
  age(cacheFolder_ / "notes.txt", 7200);
  buildAndRun("scan");
  auto left = files();
  EXPECT_EQ(0u, left.count(".tmp-dead01"));
  EXPECT_EQ(1u, left.count(".tmp-live01"));
  EXPECT_EQ(1u, left.count("notes.txt"));
  EXPECT_EQ(3u, left.size());
}

// The ledger counts what is written; while it stays within the limit, writes do not scan the
// folder (the stale temporary file stays), and a ledger past the limit brings a scan that
// sets it to what the folder holds.
TEST_F(ProgramCacheTest, TheSizeLedgerSparesScansUntilTheLimit) {
  buildAndRun("first");
  ASSERT_EQ(entriesSize(), ledgerSize().value_or(0));
  writeFile(cacheFolder_ / ".tmp-dead02", "left by a writer that died");
  age(cacheFolder_ / ".tmp-dead02", 7200);
  buildAndRun("second");
  EXPECT_EQ(entriesSize(), ledgerSize().value_or(0));
  EXPECT_EQ(1u, files().count(".tmp-dead02")) << "no scan within the limit";

  writeFile(cacheFolder_ / kLedger, "999999999999\n");
  buildAndRun("third");
  EXPECT_EQ(0u, files().count(".tmp-dead02")) << "a ledger past the limit brings a scan";
  EXPECT_EQ(entriesSize(), ledgerSize().value_or(0));
  EXPECT_EQ(3u, files().size());
}

// A damaged ledger is no ledger: the next write scans and writes it anew.
TEST_F(ProgramCacheTest, ADamagedSizeLedgerBringsAScan) {
  buildAndRun("first");
  writeFile(cacheFolder_ / ".tmp-dead03", "left by a writer that died");
  age(cacheFolder_ / ".tmp-dead03", 7200);
  writeFile(cacheFolder_ / kLedger, "12ab");
  buildAndRun("second");
  EXPECT_EQ(0u, files().count(".tmp-dead03"));
  EXPECT_EQ(entriesSize(), ledgerSize().value_or(0));
}

TEST_F(ProgramCacheTest, ThreadsBuildingTheSameSourceAtOnceAllSucceed) {
  constexpr int kThreads = 4;
  std::vector<cl_int> results(kThreads, CL_SUCCESS);
  std::vector<std::thread> threads;
  std::string source = cachetest::source("threads");
  for (int index = 0; index < kThreads; ++index)
    threads.emplace_back([&, index] {
      const char *text = source.c_str();
      cl_int error = CL_SUCCESS;
      cl_program program = clCreateProgramWithSource(context_, 1, &text, nullptr, &error);
      results[index] =
          error != CL_SUCCESS ? error : clBuildProgram(program, 1, &device_, "", nullptr, nullptr);
      if (program != nullptr)
        clReleaseProgram(program);
    });
  for (std::thread &thread : threads)
    thread.join();
  for (cl_int result : results)
    EXPECT_CL_SUCCESS(result);
  EXPECT_EQ(1u, files().size()) << "one entry, no temporary file left";
  buildAndRun("threads");
}

/// The child build program: beside this test binary, where the build puts it and where it
/// travels with it (to another machine, say); else where the build wrote it.
std::string childPath() {
  std::error_code error;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) {
    std::filesystem::path beside =
        self.parent_path() / std::filesystem::path(KILN_CACHE_BUILD_CHILD).filename();
    if (std::filesystem::exists(beside, error))
      return beside.string();
  }
  return KILN_CACHE_BUILD_CHILD;
}

/// Starts the child build program (tests/program_cache/build_child.cpp) with `comment`.
pid_t startChild(const std::string &comment) {
  std::string path = childPath();
  std::vector<char *> argv = {path.data(), const_cast<char *>(comment.c_str()), nullptr};
  pid_t pid = -1;
  EXPECT_EQ(0, posix_spawn(&pid, path.c_str(), nullptr, nullptr, argv.data(), environ));
  return pid;
}

int waitForChild(pid_t pid) {
  int status = 0;
  if (pid <= 0 || ::waitpid(pid, &status, 0) != pid)
    return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(ProgramCacheTest, ProcessesBuildingTheSameSourceAtOnceAllSucceed) {
  constexpr int kProcesses = 4;
  std::vector<pid_t> children;
  for (int index = 0; index < kProcesses; ++index)
    children.push_back(startChild("processes"));
  for (pid_t child : children)
    EXPECT_EQ(0, waitForChild(child));
  fs::path entry = onlyFile();
  ASSERT_FALSE(entry.empty());
  age(entry, 3600);
  FileState before = fileState(entry);
  EXPECT_EQ(0, waitForChild(startChild("processes")));
  FileState after = fileState(entry);
  EXPECT_EQ(before.inode, after.inode) << "a new process is served from the entry";
  EXPECT_GT(after.modified, before.modified);
  // The same program in this process: the same entry.
  buildAndRun("processes");
  EXPECT_EQ(before.inode, fileState(entry).inode);
}

} // namespace
