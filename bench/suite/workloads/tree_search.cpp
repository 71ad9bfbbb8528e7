// A binary search tree built by the host and searched by kernels, one key per work-item: pointer
// chasing, each step a dependent load from anywhere in the tree. Two forms of one tree: through
// shared virtual memory, where the kernel follows the host's own pointers (coarse-grained SVM,
// which NVIDIA's driver has too), and through a buffer whose nodes name their children by index,
// the way programs do without SVM.
#include "../workload.hpp"

#include <cstring>
#include <random>

namespace bench {
namespace {

const char *kSvmSource = R"(
  typedef struct Node {
    global struct Node *left, *right;
    int key, payload;
  } Node;
  kernel void search(global const Node *root, global const int *keys, global int *found) {
    size_t i = get_global_id(0);
    int key = keys[i];
    global const Node *node = root;
    while (node && node->key != key)
      node = key < node->key ? node->left : node->right;
    found[i] = node ? node->payload : -1;
  })";

const char *kIndexSource = R"(
  typedef struct Node {
    int left, right, key, payload; // children by index, -1 for none
  } Node;
  kernel void search(global const Node *nodes, global const int *keys, global int *found) {
    size_t i = get_global_id(0);
    int key = keys[i];
    int at = 0;
    while (at >= 0 && nodes[at].key != key)
      at = key < nodes[at].key ? nodes[at].left : nodes[at].right;
    found[i] = at >= 0 ? nodes[at].payload : -1;
  })";

/// One tree: node k's children by index (-1: none), the root at 0.
struct IndexNode {
  int left, right, key, payload;
};
/// The same node as the SVM kernel sees it.
struct PointerNode {
  PointerNode *left, *right;
  int key, payload;
};

class TreeSearch final : public Workload {
public:
  explicit TreeSearch(bool throughSvm) : throughSvm_(throughSvm) {}

  std::string name() const override {
    return throughSvm_ ? "tree search svm" : "tree search buffer";
  }
  std::string unit() const override { return "Glookup/s"; }
  double work() const override { return keys_.size() / 1e9; }

  /// Random distinct keys inserted in random order (a tree about 2.5 log2(n) deep); the queries
  /// are random keys of which about half are in the tree.
  void prepare(Scale scale) override {
    size_t count = scale == Scale::Tiny ? 1000 : 1 << 20;
    size_t queries = scale == Scale::Tiny ? 4096 : 1 << 22;
    std::mt19937 random(11);
    std::uniform_int_distribution<int> anyKey(0, static_cast<int>(2 * count));
    nodes_.clear();
    for (size_t n = 0; n < count; ++n) {
      int key = anyKey(random);
      if (insert(key))
        nodes_.back().payload = key * 3 + 1;
    }
    keys_.resize(queries);
    for (int &key : keys_)
      key = anyKey(random);
    found_.assign(queries, 0);
  }

  void runNative() override {
    const int queries = static_cast<int>(keys_.size());
#pragma omp parallel for schedule(static)
    for (int i = 0; i < queries; ++i) {
      int key = keys_[i], at = 0;
      while (at >= 0 && nodes_[at].key != key)
        at = key < nodes_[at].key ? nodes_[at].left : nodes_[at].right;
      found_[i] = at >= 0 ? nodes_[at].payload : -1;
    }
  }

  std::unique_ptr<DeviceRun> load(ClSession &session) override {
    if (throughSvm_)
      return std::make_unique<SvmRun>(session, *this);
    return std::make_unique<IndexRun>(session, *this);
  }

private:
  /// Adds `key` unless the tree has it; true when added.
  bool insert(int key) {
    int at = 0;
    int *slot = nullptr;
    while (!nodes_.empty() && at >= 0) {
      IndexNode &node = nodes_[at];
      if (node.key == key)
        return false;
      slot = key < node.key ? &node.left : &node.right;
      at = *slot;
    }
    if (slot != nullptr)
      *slot = static_cast<int>(nodes_.size());
    nodes_.push_back({-1, -1, key, 0});
    return true;
  }

  struct IndexRun final : RunOf<TreeSearch> {
    IndexRun(ClSession &session, const TreeSearch &workload)
        : RunOf(session, workload), kernel_(session.kernel(kIndexSource, "search")),
          nodes_(session.buffer(workload.nodes_)), keys_(session.buffer(workload.keys_)),
          found_(session.buffer(workload.keys_.size() * sizeof(int))) {
      setArgs(kernel_.get(), nodes_, keys_, found_);
    }
    void enqueue() override {
      size_t global = workload_.keys_.size();
      session_.launch(kernel_.get(), 1, &global);
    }
    std::string mismatch() override {
      return session_.read<int>(found_.get(), workload_.keys_.size()) == workload_.found_
                 ? ""
                 : "a lookup differs";
    }
    ClKernel kernel_;
    ClBuffer nodes_, keys_, found_;
  };

  /// The tree as the host's pointers in one SVM allocation, written through a map.
  struct SvmRun final : RunOf<TreeSearch> {
    SvmRun(ClSession &session, const TreeSearch &workload)
        : RunOf(session, workload), kernel_(session.kernel(kSvmSource, "search")),
          nodes_(session.svm(workload.nodes_.size() * sizeof(PointerNode))),
          keys_(session.svm(workload.keys_.size() * sizeof(int))),
          found_(session.svm(workload.keys_.size() * sizeof(int))) {
      size_t count = workload.nodes_.size();
      auto *nodes = static_cast<PointerNode *>(nodes_.get());
      session.mapSvm(nodes, count * sizeof(PointerNode), CL_MAP_WRITE_INVALIDATE_REGION);
      auto pointerTo = [&](int index) { return index >= 0 ? nodes + index : nullptr; };
      for (size_t n = 0; n < count; ++n) {
        const IndexNode &node = workload.nodes_[n];
        nodes[n] = {pointerTo(node.left), pointerTo(node.right), node.key, node.payload};
      }
      session.unmapSvm(nodes);
      size_t keyBytes = workload.keys_.size() * sizeof(int);
      session.mapSvm(keys_.get(), keyBytes, CL_MAP_WRITE_INVALIDATE_REGION);
      std::memcpy(keys_.get(), workload.keys_.data(), keyBytes);
      session.unmapSvm(keys_.get());
      check(clSetKernelArgSVMPointer(kernel_.get(), 0, nodes));
      check(clSetKernelArgSVMPointer(kernel_.get(), 1, keys_.get()));
      check(clSetKernelArgSVMPointer(kernel_.get(), 2, found_.get()));
    }
    void enqueue() override {
      size_t global = workload_.keys_.size();
      session_.launch(kernel_.get(), 1, &global);
    }
    std::string mismatch() override {
      size_t bytes = workload_.keys_.size() * sizeof(int);
      session_.mapSvm(found_.get(), bytes, CL_MAP_READ);
      bool same = std::memcmp(found_.get(), workload_.found_.data(), bytes) == 0;
      session_.unmapSvm(found_.get());
      return same ? "" : "a lookup differs";
    }
    static void check(cl_int error) {
      if (error != CL_SUCCESS)
        throw ClFailure("clSetKernelArgSVMPointer failed: " + std::to_string(error));
    }
    ClKernel kernel_;
    ClSession::SvmPointer nodes_, keys_, found_;
  };

  bool throughSvm_;
  std::vector<IndexNode> nodes_;
  std::vector<int> keys_, found_;
};

} // namespace

std::unique_ptr<Workload> makeTreeSearchSvm() {
  return std::make_unique<TreeSearch>(true);
}
std::unique_ptr<Workload> makeTreeSearchBuffer() {
  return std::make_unique<TreeSearch>(false);
}

} // namespace bench
