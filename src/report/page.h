// The pieces every nanotrn HTML page shares: the page itself (inline CSS, no script, no external resource: it opens
// with no network) and the table cells a test reads back. The run report (html_report.h), the sweep leaderboard
// (sweep/leaderboard.h) and the forecast page (forecast/forecast_page.h) are built from them.
//
//   std::string h = html_page("Forecast", "out/forecast · nanotrn 0.3", body);
//   body += "<table>" + table_row("val_bpb", keyed_cell("forecast.val_bpb", 1.234, "1.234")) + "</table>";
//
// A keyed cell carries data-key and data-value (the exact value, %.17g) beside its rounded text: tests compare the
// value with the JSON output, never the text.
#pragma once

#include <string>

namespace nanotrn::report {

std::string html_page(const std::string& title, const std::string& subtitle, const std::string& body);
std::string keyed_cell(const std::string& key, double value, const std::string& text);
std::string plain_cell(const std::string& text);
std::string table_row(const std::string& label, const std::string& cell);  // <tr><th>label</th>cell</tr>
std::string exact_number(double v);                                        // %.17g

}  // namespace nanotrn::report
