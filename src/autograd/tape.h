// Reverse-mode autograd over a recorded tape.
//
//   Tape tape;  Ctx ctx{engine, &tape};
//   Tensor w = ...; w.set_requires_grad();          // a leaf: its gradient accumulates in w.grad()
//   Tensor loss = ops::mean(ctx, ops::mul(ctx, w, w));
//   tape.backward(loss);                            // fills w.grad(); clears the tape
//   // gradient accumulation: run more forward/backward passes; w.grad() keeps summing until w.zero_grad()
//
// How it works: an op whose inputs require grad calls record() with a backward closure. backward() walks the nodes
// in reverse order, hands each closure the gradients of its outputs and accumulates the gradients it returns into
// the inputs' AutogradMeta. Gradients of intermediate tensors are freed as soon as their producer has run; leaf
// gradients are kept. A node keeps only the autograd metadata of its inputs and outputs, not their values: whatever
// the backward needs, its closure captures (so unused activations are freed as the forward goes).
// Not here: the ops (ops/), optimisers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "autograd/profile.h"
#include "tensor/tensor.h"

namespace nanotrn {

// grad_outputs[i] is d loss / d output i (zeros when nothing reached that output but something reached another);
// the closure sets grad_inputs[j] (pre-sized to the number of inputs) to d loss / d input j, or leaves it undefined
// when input j does not require grad. Returned gradients must have the input's shape and be f32.
using BackwardFn = std::function<void(const std::vector<Tensor>& grad_outputs, std::vector<Tensor>& grad_inputs)>;

class Tape {
 public:
  Tape() = default;
  Tape(const Tape&) = delete;
  Tape& operator=(const Tape&) = delete;

  // True when at least one of `inputs` requires grad (so the caller should record).
  static bool any_requires_grad(const std::vector<Tensor>& inputs);

  // Records an op. Outputs are marked as requiring grad (non-leaf). Inputs that do not require grad are kept only
  // as placeholders. `op` is a static string naming the op (for errors and debugging).
  void record(const char* op, const std::vector<Tensor>& inputs, std::vector<Tensor*> outputs, BackwardFn backward);

  // Called once per leaf during backward(), as soon as its gradient for this pass is final: right after the last
  // node (in reverse order) that takes it as an input has run (data-parallel training starts reducing it then).
  using LeafHook = std::function<void(AutogradMeta& leaf)>;

  // Runs the backward pass from `root`. `seed` is d loss / d root; defaults to ones (root is usually a scalar).
  // Clears the tape afterwards unless `retain` (then backward can run again over the same nodes). `on_leaf_final`,
  // when set, is told about every leaf that requires grad and is an input of some node.
  void backward(const Tensor& root, const Tensor& seed = Tensor(), bool retain = false,
                const LeafHook& on_leaf_final = {});

  void clear() { nodes_.clear(); }
  size_t size() const { return nodes_.size(); }
  // Times every record() and backward closure into `profile` (null: off, the default). See autograd/profile.h.
  void set_profile(OpProfile* profile) { profile_ = profile; }

 private:
  struct Node {
    const char* op;
    std::vector<std::shared_ptr<AutogradMeta>> inputs;  // null where the input does not require grad
    std::vector<Shape> input_shapes;
    std::vector<std::shared_ptr<AutogradMeta>> outputs;
    std::vector<Shape> output_shapes;
    std::shared_ptr<CachingAllocator> allocator;
    BackwardFn backward;
  };
  std::vector<Node> nodes_;
  OpProfile* profile_ = nullptr;
};

// Adds `grad` into meta->grad following the ownership rule above (in place only when the buffer is ours alone).
void accumulate_grad(AutogradMeta& meta, const Tensor& grad);

}  // namespace nanotrn
