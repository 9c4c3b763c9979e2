// The tape: recording and the reverse walk. See tape.h.
#include "autograd/tape.h"

#include <chrono>
#include <unordered_map>

#include "base/error.h"

namespace nanotrn {

bool Tape::any_requires_grad(const std::vector<Tensor>& inputs) {
  for (const Tensor& t : inputs) {
    if (t.defined() && t.requires_grad()) return true;
  }
  return false;
}

void Tape::record(const char* op, const std::vector<Tensor>& inputs, std::vector<Tensor*> outputs,
                  BackwardFn backward) {
  if (profile_) profile_->forward_mark(op);
  Node node;
  node.op = op;
  node.backward = std::move(backward);
  for (const Tensor& t : inputs) {
    node.inputs.push_back(t.defined() && t.requires_grad() ? t.autograd() : nullptr);
    node.input_shapes.push_back(t.defined() ? t.shape() : Shape{});
  }
  for (Tensor* out : outputs) {
    check(out && out->defined(), std::string("Tape::record: op ") + op + " recorded an undefined output");
    auto meta = std::make_shared<AutogradMeta>();
    meta->requires_grad = true;
    meta->is_leaf = false;
    if (out->autograd()) meta->name = out->autograd()->name;
    out->set_autograd(meta);
    node.outputs.push_back(meta);
    node.output_shapes.push_back(out->shape());
    if (!node.allocator) node.allocator = out->allocator();
  }
  nodes_.push_back(std::move(node));
}

static void add_into(const Tensor& dst, const Tensor& src) {
  float* d = dst.data<float>();
  const float* s = src.data<float>();
  const int64_t n = dst.numel();
#pragma omp parallel for if (n > 65536) schedule(static)
  for (int64_t i = 0; i < n; i++) d[i] += s[i];
}

void accumulate_grad(AutogradMeta& meta, const Tensor& grad) {
  Tensor g = grad.contiguous();
  if (!meta.grad.defined()) {
    meta.grad = g;
    meta.grad_owned = false;
    return;
  }
  check(meta.grad.shape() == g.shape(), "accumulate_grad: gradient of shape " + shape_str(g.shape()) +
                                            " for a tensor whose gradient has shape " + shape_str(meta.grad.shape()));
  if (!meta.grad_owned) {
    meta.grad = meta.grad.clone();
    meta.grad_owned = true;
  }
  add_into(meta.grad, g);
}

void Tape::backward(const Tensor& root, const Tensor& seed, bool retain, const LeafHook& on_leaf_final) {
  check(root.defined() && root.requires_grad() && root.autograd(),
        "Tape::backward: the root does not require grad (was it computed with recording on, from parameters?)");
  Tensor s = seed.defined() ? seed : Tensor::full(root.shape(), 1.0f, root.allocator());
  check(s.shape() == root.shape(),
        "Tape::backward: seed of shape " + shape_str(s.shape()) + " for a root of shape " + shape_str(root.shape()));
  accumulate_grad(*root.autograd(), s);

  // For the hook: the first node (in recording order) that reads each leaf is the last to touch its gradient.
  std::unordered_map<const AutogradMeta*, size_t> first_reader;
  if (on_leaf_final) {
    for (size_t n = nodes_.size(); n-- > 0;) {
      for (const auto& in : nodes_[n].inputs) {
        if (in && in->is_leaf) first_reader[in.get()] = n;
      }
    }
  }
  const auto leaves_done = [&](const Node& node, size_t n) {
    if (!on_leaf_final) return;
    for (const auto& in : node.inputs) {
      if (!in || !in->is_leaf) continue;
      auto it = first_reader.find(in.get());
      if (it != first_reader.end() && it->second == n) {
        first_reader.erase(it);  // a node may read the same leaf twice: report it once
        on_leaf_final(*in);
      }
    }
  };

  for (size_t n = nodes_.size(); n-- > 0;) {
    Node& node = nodes_[n];
    bool any = false;
    for (auto& out : node.outputs) any = any || out->grad.defined();
    if (!any) {
      leaves_done(node, n);
      continue;
    }
    std::vector<Tensor> grad_outputs(node.outputs.size());
    for (size_t i = 0; i < node.outputs.size(); i++) {
      grad_outputs[i] = node.outputs[i]->grad.defined()
                            ? node.outputs[i]->grad
                            : Tensor::zeros(node.output_shapes[i], DType::f32, node.allocator);
    }
    std::vector<Tensor> grad_inputs(node.inputs.size());
    if (profile_) {
      const auto t0 = std::chrono::steady_clock::now();
      node.backward(grad_outputs, grad_inputs);
      profile_->add_backward(node.op, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    } else {
      node.backward(grad_outputs, grad_inputs);
    }
    grad_outputs.clear();
    // Intermediate gradients are no longer needed once their producer has run (also with `retain`, so that a
    // second backward over the same nodes starts from clean intermediates).
    for (auto& out : node.outputs) {
      if (!out->is_leaf) {
        out->grad = Tensor();
        out->grad_owned = false;
      }
    }
    for (size_t i = 0; i < node.inputs.size(); i++) {
      if (!node.inputs[i] || !grad_inputs[i].defined()) continue;
      check(grad_inputs[i].shape() == node.input_shapes[i],
            std::string("backward of ") + node.op + " returned a gradient of shape " +
                shape_str(grad_inputs[i].shape()) + " for input " + std::to_string(i) + " of shape " +
                shape_str(node.input_shapes[i]));
      accumulate_grad(*node.inputs[i], grad_inputs[i]);
    }
    leaves_done(node, n);
  }
  if (!retain) nodes_.clear();
}

}  // namespace nanotrn
