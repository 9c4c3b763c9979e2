// The command line that runs one of the PyTorch reference scripts in tests/python/ through Debian's interpreter.
//
//   std::system(torch_peer_command("gpt_parity.py", in + " " + out + " --bf16").c_str())
//
// The peer runs with the machine's own oneDNN, never under the sanitizer build's ONEDNN_MAX_CPU_ISA=AVX2 cap
// (CMakePresets.json), which is nanotrn's: PyTorch 1.13 chooses its bf16 matmul path from the CPU's flags
// (AVX-512 BW/VL/DQ) and then asks oneDNN for a bf16 primitive that the cap forbids ("could not create a primitive
// descriptor iterator", seen on Zen 4 CI machines). stderr is folded into stdout so a failure prints the traceback.
#pragma once

#include <string>

namespace nanotrn::testing_support {

inline std::string torch_peer_command(const std::string& script, const std::string& args) {
  return "env -u ONEDNN_MAX_CPU_ISA /usr/bin/python3 " NANOTRN_SOURCE_DIR "/tests/python/" + script + " " + args +
         " 2>&1";
}

}  // namespace nanotrn::testing_support
