// The kernel registry (see kernel_registry.h). Not here: the definitions (builtin_kernels.cpp).
#include "neuron/registry/kernel_registry.h"

#include "base/error.h"
#include "neuron/registry/builtin_kernels.h"

namespace nanotrn::neuron {

void KernelRegistry::add_entry(KernelEntry e) {
  check_entry(e);
  check(find(e.name) == nullptr, "kernel '" + e.name + "' is already registered");
  for (const ParamSpec& s : e.params)
    for (const KernelEntry& other : entries_)
      for (const ParamSpec& o : other.params)
        check(o.name != s.name || o.type == s.type, "kernel '" + e.name + "': parameter '" + s.name +
                                                        "' has another type in kernel '" + other.name +
                                                        "' (the CLI offers one flag per name)");
  entries_.push_back(std::move(e));
}

const KernelEntry* KernelRegistry::find(const std::string& name) const {
  for (const KernelEntry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

const KernelEntry& KernelRegistry::at(const std::string& name) const {
  if (const KernelEntry* e = find(name)) return *e;
  std::string known;
  for (const KernelEntry& e : entries_) known += (known.empty() ? "" : ", ") + e.name;
  throw Error("unknown kernel '" + name + "' (known: " + known + "; `nanotrn kernel list`)");
}

const KernelRegistry& builtin_kernels() {
  static const KernelRegistry r = [] {
    KernelRegistry k;
    add_builtin_kernels(k);
    return k;
  }();
  return r;
}

}  // namespace nanotrn::neuron
