// Rendering CORE prompts. See prompts.h.
#include "icl/prompts.h"

#include <algorithm>
#include <cstdint>

#include "icl/python_random.h"

namespace nanotrn::icl {

namespace {

// Python's str.isspace(): bidirectional class WS, B or S, or category Zs.
bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// The code point starting at s[i] and its length; invalid bytes decode as themselves (length 1), never as space.
char32_t decode_at(std::string_view s, size_t i, size_t* len) {
  const auto b = static_cast<unsigned char>(s[i]);
  int n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
  if (i + static_cast<size_t>(n) > s.size()) n = 1;
  char32_t c = n == 1 ? b : b & (0xFF >> (n + 1));
  for (int k = 1; k < n; ++k) c = (c << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3F);
  *len = static_cast<size_t>(n);
  return c;
}

// The start of the code point that ends at s[end - 1].
size_t start_of_last(std::string_view s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && end - i < 4 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

}  // namespace

std::string python_strip(std::string_view s) {
  size_t begin = 0, len = 0;
  while (begin < s.size() && is_python_space(decode_at(s, begin, &len))) begin += len;
  size_t end = s.size();
  while (end > begin) {
    const size_t at = start_of_last(s, end);
    if (!is_python_space(decode_at(s, at, &len)) || at + len != end) break;
    end = at;
  }
  return std::string(s.substr(begin, end - begin));
}

std::vector<Example> task_subset(std::vector<Example> data, int64_t max_per_task) {
  PythonRandom(1337).shuffle(data);
  if (max_per_task > 0 && static_cast<size_t>(max_per_task) < data.size()) {
    data.resize(static_cast<size_t>(max_per_task));
  }
  return data;
}

std::vector<size_t> fewshot_indices(size_t n, size_t idx, int64_t num_fewshot) {
  if (num_fewshot <= 0 || n <= 1) return {};
  const size_t k = std::min(static_cast<size_t>(num_fewshot), n - 1);
  PythonRandom rng(1234 + static_cast<uint64_t>(idx));
  std::vector<size_t> picks = rng.sample_indices(n - 1, k);
  for (size_t& p : picks) p = p < idx ? p : p + 1;  // positions in `others` (all but idx) to indices of the subset
  return picks;
}

namespace {

std::string shot_mc(const Example& e, const std::string& delim) { return e.query + delim + e.choices[e.gold]; }
std::string shot_schema(const Example& e, const std::string& delim) {
  return e.context_options[e.gold] + delim + e.continuation;
}
std::string shot_lm(const Example& e, const std::string& delim) {
  return python_strip(e.context) + delim + e.continuation;
}

}  // namespace

Prompts render_prompts(const TaskSpec& task, const std::vector<Example>& data, size_t idx,
                       const std::vector<size_t>& shots) {
  const std::string& d = task.delimiter;
  std::string prefix;
  for (size_t s : shots) {
    const Example& e = data[s];
    prefix += task.type == TaskType::multiple_choice ? shot_mc(e, d)
              : task.type == TaskType::schema        ? shot_schema(e, d)
                                                     : shot_lm(e, d);
    prefix += "\n\n";
  }
  const Example& item = data[idx];
  Prompts p;
  switch (task.type) {
    case TaskType::multiple_choice:
      for (const std::string& c : item.choices) p.texts.push_back(prefix + item.query + d + c);
      break;
    case TaskType::schema:
      for (const std::string& o : item.context_options) p.texts.push_back(prefix + o + d + item.continuation);
      break;
    case TaskType::language_modeling: {
      const std::string without = prefix + python_strip(item.context) + d;
      p.texts.push_back(python_strip(without));
      p.texts.push_back(without + item.continuation);
      break;
    }
  }
  return p;
}

}  // namespace nanotrn::icl
