// libFuzzer target: the sweep's three readers of JSON it did not write in this process (src/sweep/): a plan
// (DIR/sweep.json), a --random search space, and a trial record (a trials.jsonl line). Each either reads, or throws
// nanotrn::Error (malformed JSON included). A plan that reads writes back out to a plan that reads to the same JSON; a
// space that reads draws variants; a record that reads writes back to a record that reads to the same JSON. Built
// and run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "sweep/plan.h"
#include "sweep/records.h"
#include "sweep/variants.h"

namespace {

template <class F>
void reading(F f) {
  try {
    f();
  } catch (const nanotrn::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  using namespace nanotrn::sweep;
  reading([&] {
    const nlohmann::json once = plan_to_json(plan_from_json(j, "fuzz sweep.json"));
    if (plan_to_json(plan_from_json(once, "round trip")) != once) __builtin_trap();
  });
  reading([&] {
    const SearchSpace s = search_space_from_json(j, "fuzz space.json");
    if (random_variants(s, 3, 7).size() != 3) __builtin_trap();
  });
  reading([&] {
    const nlohmann::json once = record_json(record_from_json(j, "fuzz trials.jsonl:1"));
    if (record_json(record_from_json(once, "round trip")) != once) __builtin_trap();
  });
  return 0;
}
