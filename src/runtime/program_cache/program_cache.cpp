#include "runtime/program_cache/program_cache.hpp"

#include "runtime/program_cache/size_ledger.hpp"

#include "support/unique_fd.hpp"

#include <algorithm>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <vector>

namespace kiln {
namespace {

/// A hit updates the entry's time only when it is older than this: entries used all the time
/// need not have their inode written at every build.
constexpr time_t kTouchInterval = 60;
/// Temporary files older than this were left by processes that died while writing.
constexpr time_t kStaleTemporaryAge = 3600;
constexpr const char kTemporaryPrefix[] = ".tmp-";
/// After an eviction the folder holds at most this part of its limit, so that the next
/// writes do not each need a scan.
constexpr uint64_t kEvictToPercent = 90;

std::string entryPath(const CacheSettings &settings, const CacheKey &key) {
  return settings.directory + "/" + key.fileName();
}

/// Whether `name` is an entry's file name: 32 lowercase hex digits (see CacheKey::fileName).
bool isEntryName(std::string_view name) {
  return name.size() == 32 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

time_t now() {
  timespec time{};
  clock_gettime(CLOCK_REALTIME, &time);
  return time.tv_sec;
}

/// The whole file, or null when it cannot be read or is larger than `limit`.
std::optional<std::vector<std::byte>> readWhole(int fd, const struct stat &status, uint64_t limit) {
  if (!S_ISREG(status.st_mode) || static_cast<uint64_t>(status.st_size) > limit)
    return std::nullopt;
  std::vector<std::byte> bytes(static_cast<size_t>(status.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t count = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return std::nullopt;
    done += static_cast<size_t>(count);
  }
  return bytes;
}

bool writeWhole(int fd, std::span<const std::byte> bytes) {
  while (!bytes.empty()) {
    ssize_t count = ::write(fd, bytes.data(), bytes.size());
    if (count < 0 && errno == EINTR)
      continue;
    if (count <= 0)
      return false;
    bytes = bytes.subspan(static_cast<size_t>(count));
  }
  return true;
}

/// Removes the file at `path` if it is still the one `fd` has open (another process may have
/// renamed a fresh entry into its place meanwhile).
void removeIfSame(const std::string &path, const struct stat &opened) {
  struct stat current {};
  if (::stat(path.c_str(), &current) == 0 && current.st_dev == opened.st_dev &&
      current.st_ino == opened.st_ino)
    ::unlink(path.c_str());
}

/// Creates `directory` and its missing parents, private to the user (0700).
bool makeDirectories(const std::string &directory) {
  for (size_t slash = directory.find('/', 1); slash != std::string::npos;
       slash = directory.find('/', slash + 1))
    ::mkdir(directory.substr(0, slash).c_str(), 0700);
  ::mkdir(directory.c_str(), 0700);
  struct stat status {};
  return ::stat(directory.c_str(), &status) == 0 && S_ISDIR(status.st_mode);
}

/// Writes `bytes` to a temporary file in the folder and renames it to `path`.
bool writeAtomically(const CacheSettings &settings, const std::string &path,
                     std::span<const std::byte> bytes) {
  std::string temporary = settings.directory + "/" + kTemporaryPrefix + "XXXXXX";
  UniqueFd fd(::mkostemp(temporary.data(), O_CLOEXEC));
  if (!fd)
    return false;
  bool written =
      writeWhole(fd.get(), bytes) && fd.close() && ::rename(temporary.c_str(), path.c_str()) == 0;
  if (!written)
    ::unlink(temporary.c_str());
  return written;
}

struct EntryFile {
  std::string name;
  uint64_t size;
  timespec modified;
};

bool olderThan(const timespec &a, const timespec &b) {
  return a.tv_sec != b.tv_sec ? a.tv_sec < b.tv_sec : a.tv_nsec < b.tv_nsec;
}

/// Lists the entries of the folder and removes temporary files left by dead processes.
std::vector<EntryFile> listEntries(DIR *folder) {
  std::vector<EntryFile> entries;
  int fd = dirfd(folder);
  time_t staleBefore = now() - kStaleTemporaryAge;
  while (const dirent *item = readdir(folder)) {
    std::string_view name = item->d_name;
    bool entry = isEntryName(name);
    if (!entry && !name.starts_with(kTemporaryPrefix))
      continue;
    struct stat status {};
    if (fstatat(fd, item->d_name, &status, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(status.st_mode))
      continue;
    if (entry)
      entries.push_back({std::string(name), static_cast<uint64_t>(status.st_size), status.st_mtim});
    else if (status.st_mtim.tv_sec < staleBefore)
      unlinkat(fd, item->d_name, 0);
  }
  return entries;
}

/// Removes the least recently used entries until the folder is well within `limit`; returns
/// the size of what is left.
uint64_t evict(const CacheSettings &settings) {
  std::unique_ptr<DIR, int (*)(DIR *)> folder(opendir(settings.directory.c_str()), closedir);
  if (!folder)
    return 0;
  std::vector<EntryFile> entries = listEntries(folder.get());
  uint64_t total = 0;
  for (const EntryFile &entry : entries)
    total += entry.size;
  if (total <= settings.maxSize)
    return total;
  std::sort(entries.begin(), entries.end(), [](const EntryFile &a, const EntryFile &b) {
    return olderThan(a.modified, b.modified);
  });
  uint64_t target = settings.maxSize / 100 * kEvictToPercent;
  for (const EntryFile &entry : entries) {
    if (total <= target)
      break;
    if (unlinkat(dirfd(folder.get()), entry.name.c_str(), 0) == 0 || errno == ENOENT)
      total -= entry.size;
  }
  return total;
}

} // namespace

std::optional<CachedProgram> ProgramCache::load(const CacheKey &key) {
  std::optional<CacheSettings> settings = cacheSettingsFromEnvironment();
  if (!settings)
    return std::nullopt;
  std::string path = entryPath(*settings, key);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
  struct stat status {};
  if (!fd || ::fstat(fd.get(), &status) != 0)
    return std::nullopt;
  std::optional<std::vector<std::byte>> bytes = readWhole(fd.get(), status, settings->maxSize);
  std::optional<CachedProgram> program;
  if (bytes)
    program = decodeCacheEntry(*bytes, key);
  if (!program) {
    removeIfSame(path, status);
    return std::nullopt;
  }
  if (status.st_mtim.tv_sec < now() - kTouchInterval)
    ::futimens(fd.get(), nullptr);
  return program;
}

void ProgramCache::store(const CacheKey &key, const CachedProgram &program) {
  std::optional<CacheSettings> settings = cacheSettingsFromEnvironment();
  if (!settings)
    return;
  std::vector<std::byte> bytes = encodeCacheEntry(key, program);
  if (bytes.size() > settings->maxSize || !makeDirectories(settings->directory) ||
      !writeAtomically(*settings, entryPath(*settings, key), bytes))
    return;
  keepWithinLimit(*settings, bytes.size());
}

void ProgramCache::keepWithinLimit(const CacheSettings &settings, uint64_t written) {
  SizeLedger ledger(settings.directory);
  std::optional<uint64_t> counted = ledger.size();
  if (counted && *counted + written <= settings.maxSize) {
    ledger.setSize(*counted + written);
    return;
  }
  ledger.setSize(evict(settings));
}

} // namespace kiln
