// Tensors: a typed, strided view of a reference-counted block of host memory.
//
//   auto alloc = std::make_shared<CachingAllocator>();
//   Tensor x = Tensor::zeros({4, 8}, DType::f32, alloc);   // contiguous, row-major (last dimension fastest)
//   Tensor xt = x.transpose(0, 1);                          // a view: same storage, strides swapped, no copy
//   Tensor row = x.narrow(0, 1, 2);                         // rows 1..2, a view
//   Tensor y = xt.contiguous();                             // copies only because xt is not contiguous
//   float* p = x.data<float>();  x.at({1, 2}) = 3.0f;
//
// Invariants: shape and strides have one entry per dimension; strides and offset count elements, not bytes; a
// default-constructed Tensor is "undefined" (defined() == false) and every accessor but defined() throws on it.
// Autograd state (requires_grad, .grad) rides along in a shared AutogradMeta; the tape (autograd/tape.h) fills it.
// Not here: math (ops/), dtype conversion rules (dtype/convert.h).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "dtype/dtype.h"
#include "tensor/allocator.h"

namespace nanotrn {

using Shape = std::vector<int64_t>;

int64_t shape_numel(const Shape& shape);
Shape contiguous_strides(const Shape& shape);
std::string shape_str(const Shape& shape);

// The memory behind one or more tensors. Returned to its allocator (or freed) when the last tensor lets go.
class Storage {
 public:
  Storage(size_t bytes, std::shared_ptr<CachingAllocator> allocator);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
  std::shared_ptr<CachingAllocator> allocator_;
};

class Tensor;
struct AutogradMeta;

class Tensor {
 public:
  Tensor() = default;

  // Factories. `allocator` may be null: then the memory comes straight from the heap (no caching).
  static Tensor empty(const Shape& shape, DType dtype = DType::f32, std::shared_ptr<CachingAllocator> allocator = {});
  static Tensor zeros(const Shape& shape, DType dtype = DType::f32, std::shared_ptr<CachingAllocator> allocator = {});
  static Tensor full(const Shape& shape, float value, std::shared_ptr<CachingAllocator> allocator = {});
  static Tensor from_vector(const Shape& shape, const std::vector<float>& values,
                            std::shared_ptr<CachingAllocator> allocator = {});
  static Tensor from_ints(const Shape& shape, const std::vector<int32_t>& values,
                          std::shared_ptr<CachingAllocator> allocator = {});
  // A tensor of the same shape/dtype/allocator as `like`, uninitialised / zeroed.
  static Tensor empty_like(const Tensor& like);
  static Tensor zeros_like(const Tensor& like);

  bool defined() const { return storage_ != nullptr; }
  DType dtype() const;
  int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  const Shape& strides() const { return strides_; }
  // size(-1) is the last dimension.
  int64_t size(int64_t d) const;
  int64_t numel() const { return shape_numel(shape_); }
  int64_t offset() const { return offset_; }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  const std::shared_ptr<CachingAllocator>& allocator() const { return allocator_; }
  bool same_storage(const Tensor& other) const { return storage_ == other.storage_; }

  // Typed pointer to element 0 of this view. Throws if T does not match dtype() (uint16_t for bf16/f16, uint8_t
  // for fp8, int32_t for i32, float for f32).
  template <typename T>
  T* data() const;
  void* raw_data() const;

  // Element access for tests and small setup code (not for loops over large tensors).
  float& at(std::initializer_list<int64_t> index) const;
  float item() const;                    // the value of a 1-element f32 tensor
  std::vector<float> to_vector() const;  // f32 values in row-major order (any strides)

  // Views (no copy). Negative dims count from the end.
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor narrow(int64_t d, int64_t start, int64_t length) const;
  Tensor view(const Shape& shape) const;  // requires is_contiguous(); one dimension may be -1
  Tensor unsqueeze(int64_t d) const;
  // Reshape: a view when contiguous, else a contiguous copy.
  Tensor reshape(const Shape& shape) const;

  // Copies.
  Tensor contiguous() const;                // this tensor when already contiguous
  Tensor clone() const;                     // always a new contiguous tensor
  Tensor to(DType dtype) const;             // round-to-nearest-even conversion (dtype/convert.h); a copy
  void copy_from(const Tensor& src) const;  // same shape; converts dtype if needed
  void fill(float value) const;
  void zero() const;

  // Autograd (see autograd/tape.h).
  bool requires_grad() const;
  // Marks this tensor as a leaf whose gradient accumulates in grad() across backward passes (a parameter).
  Tensor& set_requires_grad(bool on = true);
  const Tensor& grad() const;  // undefined until a backward pass reaches it
  void zero_grad() const;      // makes grad() undefined again
  const std::shared_ptr<AutogradMeta>& autograd() const { return autograd_; }
  void set_autograd(std::shared_ptr<AutogradMeta> meta) { autograd_ = std::move(meta); }
  std::string name() const;
  Tensor& set_name(std::string name);

  // Internal constructor used by the factories and views.
  Tensor(std::shared_ptr<Storage> storage, std::shared_ptr<CachingAllocator> allocator, int64_t offset, Shape shape,
         Shape strides, DType dtype);

 private:
  void check_defined(std::source_location where = std::source_location::current()) const;
  int64_t wrap_dim(int64_t d) const;

  std::shared_ptr<Storage> storage_;
  std::shared_ptr<CachingAllocator> allocator_;
  int64_t offset_ = 0;
  Shape shape_;
  Shape strides_;
  DType dtype_ = DType::f32;
  std::shared_ptr<AutogradMeta> autograd_;
};

// What the tape keeps per tensor that takes part in autograd.
struct AutogradMeta {
  bool requires_grad = false;
  bool is_leaf = true;      // parameters and inputs: grads accumulate and are kept after backward
  bool grad_owned = false;  // grad's storage belongs to this tensor alone (safe to accumulate in place)
  Tensor grad;
  std::string name;
};

}  // namespace nanotrn
