// The repository's references resolve inside the repository: every source tag that the device catalog, the
// NeuronCore machine data (src/neuron/isa/machine.cpp), the docs, the recipes and the code comments cite is a key of
// the catalog's sources table (src/hw/devices.json.inc), and every key is cited somewhere; docs/SOURCES.md lists
// exactly that table (same tags, titles and URLs); every "recipe-spec §N.M" / "hardware-facts §N.M" citation names
// a section heading of docs/RECIPE-SPEC.md / docs/SOURCES.md; nothing points at the unshipped shared/ originals.
// Files are read from NANOTRN_SOURCE_DIR.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hw/catalog.h"
#include "neuron/isa/machine.h"

namespace nanotrn::hw {
namespace {

namespace fs = std::filesystem;

const fs::path& root() {
  static const fs::path r = NANOTRN_SOURCE_DIR;
  return r;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  EXPECT_TRUE(f.good()) << "cannot read " << p;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string repo_path(const fs::path& p) { return fs::relative(p, root()).generic_string(); }

// What the project ships and cites from: README.md, docs/*.md, recipes/*.json, and every .h/.cpp/.inc/.py/.sh
// under src/, tests/ and bench/.
std::vector<fs::path> shipped_files() {
  std::vector<fs::path> out = {root() / "README.md"};
  for (const auto& [dir, ext] : {std::pair{"docs", ".md"}, std::pair{"recipes", ".json"}}) {
    for (const auto& e : fs::directory_iterator(root() / dir)) {
      if (e.path().extension().string() == ext) out.push_back(e.path());
    }
  }
  const std::set<std::string> code = {".h", ".cpp", ".inc", ".py", ".sh"};
  for (const char* dir : {"src", "tests", "bench"}) {
    for (const auto& e : fs::recursive_directory_iterator(root() / dir)) {
      if (e.is_regular_file() && code.count(e.path().extension().string())) out.push_back(e.path());
    }
  }
  return out;
}

// The part of a file that may cite tags: the comments of code (after "//" in C++, "#" in scripts), so that an array
// index in code is not read as a tag; Markdown, JSON and the embedded catalog whole.
std::string citing_text(const fs::path& p, const std::string& text) {
  const std::string ext = p.extension().string();
  if (ext != ".h" && ext != ".cpp" && ext != ".py" && ext != ".sh") return text;
  const std::string marker = (ext == ".py" || ext == ".sh") ? "#" : "//";
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const size_t at = line.find(marker);
    if (at != std::string::npos) out += line.substr(at) + "\n";
  }
  return out;
}

// Tag -> the files that cite it.
std::map<std::string, std::set<std::string>> tags_cited_by_files() {
  std::map<std::string, std::set<std::string>> out;
  for (const fs::path& p : shipped_files()) {
    for (const std::string& tag : source_tags(citing_text(p, read_text(p)))) out[tag].insert(repo_path(p));
  }
  return out;
}

// Tag -> the machine parameters that cite it ("v3.tensor_clock_ghz").
std::map<std::string, std::set<std::string>> tags_cited_by_machine_data() {
  std::map<std::string, std::set<std::string>> out;
  for (const char* gen : {"v2", "v3", "v4"}) {
    for (const auto& [name, param] : neuron::spec_for(gen).params()) {
      for (const std::string& tag : source_tags(param->source)) out[tag].insert(std::string(gen) + "." + name);
    }
  }
  return out;
}

TEST(Sources, EveryCatalogNumberTagResolves) {
  const Catalog c = builtin_catalog();
  for (const Device& d : c.devices()) {
    for (const auto& [field, num] : d.numbers) {
      for (const std::string& tag : source_tags(num.source)) {
        EXPECT_TRUE(c.sources().count(tag)) << d.name << "." << field << " cites [" << tag << "]";
      }
    }
  }
}

TEST(Sources, EveryNeuronMachineTagResolves) {
  const Catalog catalog = builtin_catalog();
  const SourceTable& table = catalog.sources();
  const auto cited = tags_cited_by_machine_data();
  EXPECT_GT(cited.size(), 15u);
  for (const auto& [tag, params] : cited) {
    EXPECT_TRUE(table.count(tag)) << "[" << tag << "], cited by " << *params.begin() << ", is not in the catalog's "
                                  << "sources table (src/hw/devices.json.inc)";
  }
}

TEST(Sources, EveryTagTheRepositoryCitesResolvesAndEveryKeyIsCited) {
  const Catalog c = builtin_catalog();
  std::set<std::string> used;
  for (const auto& [tag, files] : tags_cited_by_files()) {
    EXPECT_TRUE(c.sources().count(tag)) << "[" << tag << "], cited by " << *files.begin() << ", is not in the "
                                        << "catalog's sources table (src/hw/devices.json.inc)";
    if (files != std::set<std::string>{"docs/SOURCES.md"}) used.insert(tag);
  }
  for (const auto& [tag, params] : tags_cited_by_machine_data()) used.insert(tag);
  for (const auto& [tag, source] : c.sources()) {
    EXPECT_TRUE(used.count(tag)) << "[" << tag << "] is in the sources table but nothing cites it";
  }
}

// A row of the sources table in docs/SOURCES.md, "| [LNC] | title | <url> | what it supports |", by its tag.
struct DocRow {
  std::string title, url, supports;
};

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream parts(line.substr(1));
  for (std::string cell; std::getline(parts, cell, '|');) cells.push_back(trim(cell));
  return cells;
}

std::map<std::string, DocRow> sources_doc_rows() {
  std::map<std::string, DocRow> rows;
  std::istringstream lines(read_text(root() / "docs/SOURCES.md"));
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| [", 0) != 0) continue;
    const std::vector<std::string> c = table_cells(line);
    EXPECT_EQ(c.size(), 4u) << line;
    if (c.size() != 4 || c[0].size() < 3 || c[2].size() < 3) continue;
    const std::string tag = c[0].substr(1, c[0].size() - 2);
    EXPECT_TRUE(rows.emplace(tag, DocRow{c[1], c[2].substr(1, c[2].size() - 2), c[3]}).second) << "twice: " << tag;
  }
  return rows;
}

TEST(Sources, TheDocListsExactlyTheCatalogTable) {
  const Catalog catalog = builtin_catalog();
  const SourceTable& table = catalog.sources();
  const std::map<std::string, DocRow> rows = sources_doc_rows();
  EXPECT_EQ(rows.size(), table.size());
  for (const auto& [tag, s] : table) {
    auto it = rows.find(tag);
    if (it == rows.end()) {
      ADD_FAILURE() << "docs/SOURCES.md has no row for [" << tag << "]";
      continue;
    }
    EXPECT_EQ(it->second.title, s.title) << tag;
    EXPECT_EQ(it->second.url, s.url) << tag;
    EXPECT_FALSE(it->second.supports.empty()) << tag;
  }
  for (const auto& [tag, row] : rows) EXPECT_TRUE(table.count(tag)) << "docs/SOURCES.md lists [" << tag << "]";
}

// Past a list separator: spaces, "-", the en dash, "/", ",", "and".
size_t skip_separators(const std::string& t, size_t pos) {
  for (;;) {
    if (pos < t.size() && std::string(" -/,").find(t[pos]) != std::string::npos) {
      pos++;
    } else if (t.compare(pos, 3, "–") == 0 || t.compare(pos, 3, "and") == 0) {
      pos += 3;
    } else {
      return pos;
    }
  }
}

bool digit_at(const std::string& t, size_t i) { return i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); }

// The section numbers of a citation list starting at `pos` ("§6.3/§6.4, §9.1 K60" -> 6.3, 6.4, 9.1).
std::vector<std::string> section_list(const std::string& t, size_t pos) {
  const std::string sect = "§";
  std::vector<std::string> out;
  while (t.compare(pos, sect.size(), sect) == 0) {
    size_t end = pos += sect.size();
    while (digit_at(t, end) || (t[end] == '.' && digit_at(t, end + 1))) end++;
    if (end == pos) break;
    out.push_back(t.substr(pos, end - pos));
    pos = skip_separators(t, end);
  }
  return out;
}

// Section -> a file that cites "<doc> §section".
std::map<std::string, std::string> section_citations(const std::string& doc) {
  std::map<std::string, std::string> out;
  const std::string prefix = doc + " ";
  for (const fs::path& p : shipped_files()) {
    const std::string text = read_text(p);
    for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
      for (const std::string& s : section_list(text, at + prefix.size())) out.emplace(s, repo_path(p));
    }
  }
  return out;
}

// The section numbers of a doc's headings ("### §3.1 Muon" -> 3.1).
std::set<std::string> section_headings(const std::string& doc_path) {
  std::set<std::string> out;
  std::istringstream lines(read_text(root() / doc_path));
  for (std::string line; std::getline(lines, line);) {
    const size_t title = line.find_first_not_of("# ");
    if (line.empty() || line[0] != '#' || title == std::string::npos) continue;
    const std::vector<std::string> s = section_list(line, title);
    if (!s.empty()) out.insert(s[0]);
  }
  return out;
}

TEST(Sources, EverySectionCitationNamesAHeading) {
  for (const auto& [name, doc] :
       {std::pair{"recipe-spec", "docs/RECIPE-SPEC.md"}, std::pair{"hardware-facts", "docs/SOURCES.md"}}) {
    const std::set<std::string> headings = section_headings(doc);
    const auto cited = section_citations(name);
    EXPECT_FALSE(cited.empty()) << name;
    for (const auto& [section, file] : cited) {
      EXPECT_TRUE(headings.count(section))
          << file << " cites " << name << " §" << section << ", which " << doc << " has no heading for";
    }
  }
  // The parser itself, on the forms the repository uses.
  EXPECT_EQ(section_list("§6.3/§6.4, §9.1 K60", 0), (std::vector<std::string>{"6.3", "6.4", "9.1"}));
  EXPECT_EQ(section_list("§2–§3) and", 0), (std::vector<std::string>{"2", "3"}));
  EXPECT_EQ(section_list("§3.1-§3.2 and §9.4.", 0), (std::vector<std::string>{"3.1", "3.2", "9.4"}));
}

TEST(Sources, NothingPointsAtTheUnshippedOriginals) {
  const std::string shared = "shared/";
  for (const fs::path& p : shipped_files()) {
    const std::string text = read_text(p);
    for (const std::string& original : {shared + "hardware-facts", shared + "recipe-spec"}) {
      EXPECT_EQ(text.find(original), std::string::npos) << repo_path(p) << " names " << original;
    }
  }
}

}  // namespace
}  // namespace nanotrn::hw
