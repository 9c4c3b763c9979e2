// The strict CSV reader: tables in the style of the CORE bundle's eval_meta_data.csv (quoted commas, doubled quotes,
// line breaks inside quotes), every line-ending and end-of-file variant it accepts, and each malformation it
// refuses with the message and line it names.
#include "io/csv.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/error_of.h"

namespace nanotrn::io {
namespace {

using testing_support::error_message_of;

const std::string kHeader =
    "Eval Task,Task Category,Task Type,#shots,#datapoints,Random baseline,Centered Metric?,Description";
const std::string kBigbench =
    "bigbench_language_identification,symbolic problem solving,multiple choice,10,10000,9.1,yes,"
    "\"Given a sentence, select the language, \"\"quoted\"\"\"";

TEST(Csv, ReadsTheEvalBundlesMetadataStyle) {
  const std::string text = kHeader + "\n" + kBigbench + "\n" +
                           "hellaswag_zeroshot,language understanding,multiple choice,0,10042,25,yes,"
                           "\"Pick the ending:\nit spans two lines\"\n" +
                           "copa,commonsense reasoning,multiple choice,0,100,50,,plain\n";
  const CsvTable t = parse_csv(text, "eval_meta_data.csv");
  EXPECT_EQ(t.name, "eval_meta_data.csv");
  ASSERT_EQ(t.header.size(), 8u);
  EXPECT_EQ(t.header[3], "#shots");
  EXPECT_EQ(t.header[6], "Centered Metric?");
  ASSERT_EQ(t.rows.size(), 3u);
  const size_t task = t.column("Eval Task"), description = t.column("Description");
  EXPECT_EQ(task, 0u);
  EXPECT_EQ(description, 7u);
  EXPECT_EQ(t.cell(0, task), "bigbench_language_identification");
  EXPECT_EQ(t.cell(0, description), "Given a sentence, select the language, \"quoted\"");
  EXPECT_EQ(t.cell(0, t.column("Random baseline")), "9.1");
  EXPECT_EQ(t.cell(1, description), "Pick the ending:\nit spans two lines");
  EXPECT_EQ(t.cell(2, t.column("Centered Metric?")), "");
  EXPECT_EQ(t.cell(2, description), "plain");
  // Lines as an editor counts them: the quoted line break moves copa to line 5.
  EXPECT_EQ(t.row_lines, (std::vector<size_t>{2, 3, 5}));
}

TEST(Csv, LineEndingsByteOrderMarkAndTheEndOfFile) {
  const std::vector<std::vector<std::string>> want = {{"1", "x"}, {"2", "y"}};
  for (const std::string& text : {
           std::string("a,b\n1,x\n2,y\n"), std::string("a,b\r\n1,x\r\n2,y\r\n"),
           std::string("a,b\n1,x\r\n2,y"),  // mixed, last line without its break
           std::string("\xEF\xBB\xBF"
                       "a,b\n1,x\n2,y\n"),      // UTF-8 byte-order mark
           std::string("a,b\n1,x\n2,y\n\n\n"),  // blank lines at the end
           std::string("a,b\r\n1,x\r\n2,y\r\n\r\n"),
           std::string("a,\"b\"\n\"1\",x\n2,\"y\""),  // quoted fields anywhere, one at the very end
       }) {
    const CsvTable t = parse_csv(text, "t.csv");
    EXPECT_EQ(t.header, (std::vector<std::string>{"a", "b"})) << text;
    EXPECT_EQ(t.rows, want) << text;
  }
}

TEST(Csv, FieldsAreKeptVerbatim) {
  const CsvTable t = parse_csv("a,b,c\n x ,,\n\"\",\"\r\n\",\"\"\"\"\n\"a,b\",\"é\",\n", "t.csv");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{" x ", "", ""}));     // no trimming; empty last fields
  EXPECT_EQ(t.rows[1], (std::vector<std::string>{"", "\r\n", "\""}));  // CRLF inside quotes is data
  EXPECT_EQ(t.rows[2], (std::vector<std::string>{"a,b", "é", ""}));
  EXPECT_EQ(t.row_lines, (std::vector<size_t>{2, 3, 5}));
  // A header with no rows is a table of no rows; a one-column table's empty cell is written "".
  EXPECT_TRUE(parse_csv("only\n", "t.csv").rows.empty());
  EXPECT_EQ(parse_csv("only\n\"\"\nx\n", "t.csv").rows, (std::vector<std::vector<std::string>>{{""}, {"x"}}));
}

TEST(Csv, MalformationsNameTheLineAndWhatIsWrong) {
  struct Case {
    std::string text, message;
  };
  const std::vector<Case> cases = {
      {"a,b\n1,x\"y\n",
       "t.csv:2: a '\"' inside unquoted field 2; a field holding quotes must be quoted whole, each '\"' doubled"},
      {"a,b\n1, \"y\"\n",
       "t.csv:2: a '\"' inside unquoted field 2 (a space before an opening quote?); a field holding quotes must be "
       "quoted whole, each '\"' doubled"},
      {"a,b\n1,\"y\"z\n",
       "t.csv:2: text after the closing quote of field 2 (a '\"' inside a quoted field is written "
       "\"\")"},
      {"a,b\n1,\"y\n2,z\n3,w\n", "t.csv:2: field 2 opens a quote that is never closed"},
      {"a,b,c\n1,2,3\n1,2\n", "t.csv:3: a row of 2 fields, but the header has 3 fields"},
      {"a,b\n1,\"multi\nline\",3\n", "t.csv:2: a row of 3 fields, but the header has 2 fields"},
      {"a,b\n1,2\n\n3,4\n", "t.csv:3: blank line inside the table (a row of one empty field is written \"\")"},
      {"a,b\r1,2\n", "t.csv:1: a carriage return not followed by a line feed (outside quotes)"},
      {"a,b\n1,2\r", "t.csv:2: a carriage return not followed by a line feed (outside quotes)"},
      {"a,b\n1,\"2\"\r3\n", "t.csv:2: a carriage return not followed by a line feed (outside quotes)"},
      {"a,b\n1,2\n3,\xff\n", "t.csv:3: invalid UTF-8 at byte 10"},
      {"a,b\n1,\"\xc0\xaf\"\n", "t.csv:2: invalid UTF-8 at byte 7"},  // an overlong '/'
      {"a,b,a\n", "t.csv:1: columns 1 and 3 are both named 'a'"},
      {"", "t.csv:1: no header row (the input is empty or only blank lines)"},
      {"\xEF\xBB\xBF\n\n", "t.csv:1: no header row (the input is empty or only blank lines)"},
      {"\na,b\n", "t.csv:1: blank line inside the table (a row of one empty field is written \"\")"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(error_message_of([&] { parse_csv(c.text, "t.csv"); }), c.message) << c.text;
  }
}

TEST(Csv, UnknownColumnsAndCellsOutsideTheTableAreErrors) {
  const CsvTable t = parse_csv(kHeader + "\n" + kBigbench + "\n", "eval_meta_data.csv");
  EXPECT_EQ(error_message_of([&] { t.column("Shots"); }),
            "eval_meta_data.csv: no column 'Shots'; the columns are 'Eval Task', 'Task Category', 'Task Type', "
            "'#shots', '#datapoints', 'Random baseline', 'Centered Metric?', 'Description'");
  EXPECT_EQ(error_message_of([&] { t.cell(1, 0); }),
            "eval_meta_data.csv: no cell (row 1, column 0): the table has 1 row of 8 columns");
  EXPECT_EQ(error_message_of([&] { t.cell(0, 8); }),
            "eval_meta_data.csv: no cell (row 0, column 8): the table has 1 row of 8 columns");
}

// The writer's quoting read back by the strict reader: every awkward field survives as itself.
TEST(Csv, WrittenFieldsReadBackAsThemselves) {
  const std::vector<std::string> fields = {"plain", "a,b", "say \"hi\"", "two\nlines", "cr\r\nlf", "", "\""};
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  std::string header, row;
  for (size_t i = 0; i < fields.size(); ++i) {
    header += (i ? "," : "") + std::string("c") + std::to_string(i);
    row += (i ? "," : "") + csv_field(fields[i]);
  }
  const CsvTable t = parse_csv(header + "\n" + row + "\n", "w.csv");
  ASSERT_EQ(t.rows.size(), 1u);
  for (size_t i = 0; i < fields.size(); ++i) EXPECT_EQ(t.cell(0, i), fields[i]) << i;
}

TEST(Csv, ReadsAFileAndNamesItsPath) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_csv";
  std::filesystem::create_directories(dir);
  const std::string good = dir + "/eval_meta_data.csv", bad = dir + "/bad.csv";
  std::ofstream(good, std::ios::binary) << "\xEF\xBB\xBF" << kHeader << "\r\n" << kBigbench << "\r\n";
  std::ofstream(bad, std::ios::binary) << "a,b\n1,2\n3\n";
  const CsvTable t = read_csv(good);
  EXPECT_EQ(t.name, good);
  EXPECT_EQ(t.header.front(), "Eval Task");
  EXPECT_EQ(t.cell(0, t.column("#shots")), "10");
  EXPECT_EQ(error_message_of([&] { read_csv(bad); }), bad + ":3: a row of 1 field, but the header has 2 fields");
  EXPECT_NE(error_message_of([&] { read_csv(dir + "/missing.csv"); }).find(dir + "/missing.csv"), std::string::npos);
}

}  // namespace
}  // namespace nanotrn::io
