// A kernel engineer's program outside nanotrn's tree: it adds its own tile kernel (swiglu_kernel.h) to nanotrn's
// registry with one definition (swiglu_definition.h), then runs it on the software NeuronCore: functionally against
// the definition's fp64 reference, on the per-engine timing model with both schedules, and writes the pipelined
// run's Perfetto trace.
//
//   custom_kernel [--rows R] [--cols C] [--core v2|v3|v4] [--trace FILE]
//
// Exits 1 when a check fails, 2 on bad arguments.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "base/error.h"
#include "neuron/registry/kernel_registry.h"
#include "neuron/registry/kernel_run.h"
#include "swiglu_definition.h"
#include "swiglu_kernel.h"

using namespace nanotrn::neuron;

int main(int argc, char** argv) {
  example::SwigluShape shape;
  std::string core = "v3", trace = "swiglu_trace.json";
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "custom_kernel: " << flag << " needs a value\n";
      return 2;
    }
    const std::string value = argv[i + 1];
    if (flag == "--rows") {
      shape.rows = std::stoll(value);
    } else if (flag == "--cols") {
      shape.cols = std::stoll(value);
    } else if (flag == "--core") {
      core = value;
    } else if (flag == "--trace") {
      trace = value;
    } else {
      std::cerr << "custom_kernel: unknown flag " << flag << "\n";
      return 2;
    }
  }

  // One registry entry makes the kernel a peer of the shipped ones.
  KernelRegistry registry = builtin_kernels();
  registry.add(example::swiglu_definition());

  try {
    bool ok = true;
    double naive_ns = 0;
    for (const Schedule schedule : {Schedule::naive, Schedule::pipelined}) {
      KernelRunOptions o = kernel_options("swiglu", shape);
      o.core = core;
      o.schedule = schedule;
      o.check = true;
      if (schedule == Schedule::pipelined) o.trace_path = trace;
      const KernelRunResult r = run_kernel(registry, o);
      std::cout << "== swiglu, " << (schedule == Schedule::naive ? "naive" : "pipelined") << "\n" << kernel_run_text(r);
      ok = ok && r.check_passed;
      if (schedule == Schedule::naive) {
        naive_ns = r.report.total_ns;
      } else {
        std::printf("pipelined / naive: %.2fx faster; trace written to %s\n", naive_ns / r.report.total_ns,
                    trace.c_str());
      }
    }

    // A kernel misused is refused naming the line of the caller's code, as the shipped kernels are.
    KernelBuilder b(spec_for(core));
    const View g = b.hbm("g", 256, 512, nanotrn::DType::bf16), u = b.hbm("u", 256, 256, nanotrn::DType::bf16);
    try {
      example::swiglu_kernel(b, g, u, b.hbm("out", 256, 512, nanotrn::DType::bf16), Schedule::pipelined);
      std::cout << "a mismatched u was not refused\n";
      ok = false;
    } catch (const nanotrn::Error& e) {
      std::cout << "refused as it should be: " << e.what() << "\n";
    }
    std::cout << (ok ? "custom_kernel: PASS" : "custom_kernel: FAIL") << "\n";
    return ok ? 0 : 1;
  } catch (const nanotrn::Error& e) {
    std::cerr << "custom_kernel: " << e.what() << "\n";
    return 1;
  }
}
