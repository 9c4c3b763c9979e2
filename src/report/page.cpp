// The shared page pieces. See page.h.
#include "report/page.h"

#include <cstdio>

#include "report/svg_chart.h"

namespace nanotrn::report {
namespace {

const char* kStyle = R"(<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;max-width:1280px;color:#222;background:#fafafa}
h1{font-size:22px;margin-bottom:4px} h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 6px} .sub{color:#666;font-size:13px}
table{border-collapse:collapse;font-size:13px;margin:6px 0 12px;background:#fff}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left} td{font-variant-numeric:tabular-nums}
.grid{display:flex;flex-wrap:wrap;gap:12px} .grid svg{border:1px solid #ddd;background:#fff}
.note{color:#555;font-size:12px;max-width:1100px}
</style>
)";

}  // namespace

std::string exact_number(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string keyed_cell(const std::string& key, double value, const std::string& text) {
  return "<td data-key=\"" + xml_escape(key) + "\" data-value=\"" + exact_number(value) + "\">" + xml_escape(text) +
         "</td>";
}

std::string plain_cell(const std::string& text) { return "<td>" + xml_escape(text) + "</td>"; }

std::string table_row(const std::string& label, const std::string& cell) {
  return "<tr><th>" + xml_escape(label) + "</th>" + cell + "</tr>\n";
}

std::string html_page(const std::string& title, const std::string& subtitle, const std::string& body) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + xml_escape(title) +
         "</title>\n" + kStyle + "</head>\n<body>\n<h1>" + xml_escape(title) + "</h1>\n<div class=\"sub\">" +
         xml_escape(subtitle) + "</div>\n" + body + "</body>\n</html>\n";
}

}  // namespace nanotrn::report
