// The temporaries of crash-safe writes (base/file.h's write_file_atomic): "<path>.nanotrn-tmp.<pid>", named after the
// writing process, so that a leftover of a killed process can be told from one being written now, and with an infix
// no other tool uses, so that a user's own "notes.tmp.42" is never taken for one and removed.
//
//   std::string tmp = temporary_path("out/run/ckpt.safetensors");   // ".../ckpt.safetensors.nanotrn-tmp.4242"
//   for (const std::string& p : remove_stale_temporaries("out/run")) ...  // the dead processes' leftovers, removed
#pragma once

#include <string>
#include <vector>

namespace nanotrn {

// `path` + ".nanotrn-tmp." + this process's pid.
std::string temporary_path(const std::string& path);

// Removes the temporaries in `dir` whose process no longer exists (kill(pid, 0) fails with ESRCH); a live process's
// temporary is never touched, nor anything else. Returns the paths removed; a folder that cannot be read gives none.
std::vector<std::string> remove_stale_temporaries(const std::string& dir);

}  // namespace nanotrn
