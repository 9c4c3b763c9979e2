// Tensor: storage, views and copies. See tensor.h.
#include "tensor/tensor.h"

#include <cstdlib>
#include <cstring>
#include <numeric>

#include "base/error.h"
#include "dtype/convert.h"
#include "tensor/strided.h"

namespace nanotrn {

int64_t shape_numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

Shape contiguous_strides(const Shape& shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

std::string shape_str(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); i++) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Storage::Storage(size_t bytes, std::shared_ptr<CachingAllocator> allocator)
    : bytes_(bytes), allocator_(std::move(allocator)) {
  if (allocator_) {
    data_ = allocator_->allocate(bytes);
  } else {
    data_ = std::aligned_alloc(64, CachingAllocator::size_class(bytes));
    if (!data_) throw std::bad_alloc();
  }
}

Storage::~Storage() {
  if (allocator_) {
    allocator_->release(data_, bytes_);
  } else {
    std::free(data_);
  }
}

Tensor::Tensor(std::shared_ptr<Storage> storage, std::shared_ptr<CachingAllocator> allocator, int64_t offset,
               Shape shape, Shape strides, DType dtype)
    : storage_(std::move(storage)),
      allocator_(std::move(allocator)),
      offset_(offset),
      shape_(std::move(shape)),
      strides_(std::move(strides)),
      dtype_(dtype) {}

Tensor Tensor::empty(const Shape& shape, DType dtype, std::shared_ptr<CachingAllocator> allocator) {
  for (int64_t s : shape) check(s >= 0, "Tensor::empty: negative dimension in shape " + shape_str(shape));
  const size_t bytes = static_cast<size_t>(shape_numel(shape)) * dtype_size(dtype);
  auto storage = std::make_shared<Storage>(bytes, allocator);
  return Tensor(std::move(storage), std::move(allocator), 0, shape, contiguous_strides(shape), dtype);
}

Tensor Tensor::zeros(const Shape& shape, DType dtype, std::shared_ptr<CachingAllocator> allocator) {
  Tensor t = empty(shape, dtype, std::move(allocator));
  std::memset(t.raw_data(), 0, static_cast<size_t>(t.numel()) * dtype_size(dtype));
  return t;
}

Tensor Tensor::full(const Shape& shape, float value, std::shared_ptr<CachingAllocator> allocator) {
  Tensor t = empty(shape, DType::f32, std::move(allocator));
  t.fill(value);
  return t;
}

Tensor Tensor::from_vector(const Shape& shape, const std::vector<float>& values,
                           std::shared_ptr<CachingAllocator> allocator) {
  check(static_cast<int64_t>(values.size()) == shape_numel(shape),
        "Tensor::from_vector: " + std::to_string(values.size()) + " values for shape " + shape_str(shape));
  Tensor t = empty(shape, DType::f32, std::move(allocator));
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(float));
  return t;
}

Tensor Tensor::from_ints(const Shape& shape, const std::vector<int32_t>& values,
                         std::shared_ptr<CachingAllocator> allocator) {
  check(static_cast<int64_t>(values.size()) == shape_numel(shape),
        "Tensor::from_ints: " + std::to_string(values.size()) + " values for shape " + shape_str(shape));
  Tensor t = empty(shape, DType::i32, std::move(allocator));
  if (!values.empty()) std::memcpy(t.raw_data(), values.data(), values.size() * sizeof(int32_t));
  return t;
}

Tensor Tensor::empty_like(const Tensor& like) { return empty(like.shape(), like.dtype(), like.allocator()); }
Tensor Tensor::zeros_like(const Tensor& like) { return zeros(like.shape(), like.dtype(), like.allocator()); }

void Tensor::check_defined(std::source_location where) const {
  if (!storage_) throw Error("use of an undefined tensor", where);
}

DType Tensor::dtype() const {
  check_defined();
  return dtype_;
}

int64_t Tensor::wrap_dim(int64_t d) const {
  const int64_t n = dim();
  if (d < 0) d += n;
  check(d >= 0 && d < n, "dimension " + std::to_string(d) + " out of range for a tensor of shape " + shape_str(shape_));
  return d;
}

int64_t Tensor::size(int64_t d) const { return shape_[wrap_dim(d)]; }

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] != 1 && strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

template <typename T>
static constexpr bool matches(DType t) {
  if constexpr (std::is_same_v<T, float>) return t == DType::f32;
  if constexpr (std::is_same_v<T, int32_t>) return t == DType::i32;
  if constexpr (std::is_same_v<T, uint16_t>) return t == DType::bf16 || t == DType::f16;
  if constexpr (std::is_same_v<T, uint8_t>) return t == DType::f8e4m3 || t == DType::f8e5m2;
  return false;
}

template <typename T>
T* Tensor::data() const {
  check_defined();
  check(matches<T>(dtype_), "Tensor::data: element type does not match dtype " + std::string(dtype_name(dtype_)));
  return static_cast<T*>(storage_->data()) + offset_;
}
template float* Tensor::data<float>() const;
template int32_t* Tensor::data<int32_t>() const;
template uint16_t* Tensor::data<uint16_t>() const;
template uint8_t* Tensor::data<uint8_t>() const;

void* Tensor::raw_data() const {
  check_defined();
  return static_cast<char*>(storage_->data()) + offset_ * static_cast<int64_t>(dtype_size(dtype_));
}

float& Tensor::at(std::initializer_list<int64_t> index) const {
  check_defined();
  check(static_cast<int64_t>(index.size()) == dim(),
        "Tensor::at: " + std::to_string(index.size()) + " indices for shape " + shape_str(shape_));
  int64_t off = 0, d = 0;
  for (int64_t i : index) {
    check(i >= 0 && i < shape_[d], "Tensor::at: index " + std::to_string(i) + " out of range in dim " +
                                       std::to_string(d) + " of shape " + shape_str(shape_));
    off += i * strides_[d++];
  }
  return data<float>()[off];
}

float Tensor::item() const {
  check(numel() == 1, "Tensor::item: tensor of shape " + shape_str(shape_) + " has more than one element");
  return data<float>()[0];
}

// Visits every element offset of a strided view in row-major order.
template <typename F>
static void for_each_offset(const Shape& shape, const Shape& strides, F&& f) {
  const int64_t n = shape_numel(shape), nd = static_cast<int64_t>(shape.size());
  if (n == 0) return;
  std::vector<int64_t> idx(nd, 0);
  int64_t off = 0;
  for (int64_t i = 0; i < n; i++) {
    f(off);
    for (int64_t d = nd - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) {
        off += strides[d];
        break;
      }
      off -= strides[d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
}

std::vector<float> Tensor::to_vector() const {
  Tensor c = dtype() == DType::f32 ? contiguous() : to(DType::f32);
  const float* p = c.data<float>();
  return std::vector<float>(p, p + c.numel());
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  check_defined();
  d0 = wrap_dim(d0);
  d1 = wrap_dim(d1);
  Shape sh = shape_, st = strides_;
  std::swap(sh[d0], sh[d1]);
  std::swap(st[d0], st[d1]);
  return Tensor(storage_, allocator_, offset_, sh, st, dtype_);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  check_defined();
  d = wrap_dim(d);
  check(start >= 0 && length >= 0 && start + length <= shape_[d],
        "Tensor::narrow: range [" + std::to_string(start) + ", " + std::to_string(start + length) +
            ") out of bounds for dim " + std::to_string(d) + " of shape " + shape_str(shape_));
  Shape sh = shape_;
  sh[d] = length;
  return Tensor(storage_, allocator_, offset_ + start * strides_[d], sh, strides_, dtype_);
}

static Shape infer_shape(const Shape& shape, int64_t numel) {
  Shape out = shape;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < out.size(); i++) {
    if (out[i] == -1) {
      check(infer < 0, "reshape: more than one -1 in " + shape_str(shape));
      infer = static_cast<int64_t>(i);
    } else {
      check(out[i] >= 0, "reshape: negative dimension in " + shape_str(shape));
      known *= out[i];
    }
  }
  if (infer >= 0) {
    check(known > 0 && numel % known == 0,
          "reshape: cannot infer -1 in " + shape_str(shape) + " for " + std::to_string(numel) + " elements");
    out[infer] = numel / known;
  }
  check(shape_numel(out) == numel,
        "reshape: shape " + shape_str(shape) + " does not hold " + std::to_string(numel) + " elements");
  return out;
}

Tensor Tensor::view(const Shape& shape) const {
  check_defined();
  check(is_contiguous(), "Tensor::view: tensor of shape " + shape_str(shape_) + " is not contiguous");
  Shape sh = infer_shape(shape, numel());
  return Tensor(storage_, allocator_, offset_, sh, contiguous_strides(sh), dtype_);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  check_defined();
  if (d < 0) d += dim() + 1;
  check(d >= 0 && d <= dim(), "unsqueeze: dimension out of range");
  Shape sh = shape_, st = strides_;
  sh.insert(sh.begin() + d, 1);
  st.insert(st.begin() + d, d < dim() ? strides_[d] * shape_[d] : 1);
  return Tensor(storage_, allocator_, offset_, sh, st, dtype_);
}

Tensor Tensor::reshape(const Shape& shape) const { return is_contiguous() ? view(shape) : contiguous().view(shape); }

Tensor Tensor::contiguous() const {
  check_defined();
  if (is_contiguous()) return *this;
  return clone();
}

Tensor Tensor::clone() const {
  check_defined();
  Tensor out = Tensor::empty(shape_, dtype_, allocator_);
  out.copy_from(*this);
  return out;
}

void Tensor::copy_from(const Tensor& src) const {
  check_defined();
  check(src.shape() == shape_, "copy_from: shape " + shape_str(src.shape()) + " into " + shape_str(shape_));
  if (src.dtype() != dtype_) {
    Tensor s = src.contiguous();
    if (is_contiguous()) {
      convert(s.raw_data(), s.dtype(), raw_data(), dtype_, static_cast<size_t>(numel()));
    } else {
      copy_from(s.to(dtype_));
    }
    return;
  }
  const size_t es = dtype_size(dtype_);
  if (is_contiguous() && src.is_contiguous()) {
    std::memcpy(raw_data(), src.raw_data(), static_cast<size_t>(numel()) * es);
    return;
  }
  // Strided copy, row by row (the last dimension is the row), threaded for large tensors.
  const Shape& dst_strides = strides_;
  const Shape& src_strides = src.strides();
  const int64_t sd = row_stride(dst_strides), ss = row_stride(src_strides);
  const char* s = static_cast<const char*>(src.raw_data());
  char* d = static_cast<char*>(raw_data());
  auto copy_rows = [&](auto elem) {
    using E = decltype(elem);
    const E* sp = reinterpret_cast<const E*>(s);
    E* dp = reinterpret_cast<E*>(d);
    for_each_row<2>(shape_, {&dst_strides, &src_strides}, [&](int64_t n, const std::array<int64_t, 2>& off) {
      for (int64_t i = 0; i < n; i++) dp[off[0] + i * sd] = sp[off[1] + i * ss];
    });
  };
  if (es == 4) {
    copy_rows(uint32_t{});
  } else if (es == 2) {
    copy_rows(uint16_t{});
  } else {
    copy_rows(uint8_t{});
  }
}

Tensor Tensor::to(DType dtype) const {
  check_defined();
  Tensor out = Tensor::empty(shape_, dtype, allocator_);
  out.copy_from(*this);
  return out;
}

void Tensor::fill(float value) const {
  check(dtype() == DType::f32, "Tensor::fill: only f32 tensors, got " + std::string(dtype_name(dtype_)));
  float* p = data<float>();
  for_each_offset(shape_, strides_, [&](int64_t o) { p[o] = value; });
}

void Tensor::zero() const {
  check_defined();
  if (is_contiguous()) {
    std::memset(raw_data(), 0, static_cast<size_t>(numel()) * dtype_size(dtype_));
  } else {
    fill(0.0f);
  }
}

bool Tensor::requires_grad() const { return autograd_ && autograd_->requires_grad; }

Tensor& Tensor::set_requires_grad(bool on) {
  check_defined();
  if (!autograd_) autograd_ = std::make_shared<AutogradMeta>();
  check(!on || dtype_ == DType::f32, "set_requires_grad: gradients are kept for f32 tensors only");
  autograd_->requires_grad = on;
  autograd_->is_leaf = true;
  return *this;
}

const Tensor& Tensor::grad() const {
  static const Tensor kUndefined;  // immutable: an empty handle
  return autograd_ ? autograd_->grad : kUndefined;
}

void Tensor::zero_grad() const {
  if (autograd_) {
    autograd_->grad = Tensor();
    autograd_->grad_owned = false;
  }
}

std::string Tensor::name() const { return autograd_ ? autograd_->name : std::string(); }

Tensor& Tensor::set_name(std::string name) {
  if (!autograd_) autograd_ = std::make_shared<AutogradMeta>();
  autograd_->name = std::move(name);
  return *this;
}

}  // namespace nanotrn
