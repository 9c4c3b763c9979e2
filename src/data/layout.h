// How the loader fills a batch's rows from documents (data/loader.h), with its one name table: the recipe's
// data.layout, the loader's saved state and the run header all use these names.
//
//   best_fit: each row packs whole documents, best fit first (nanochat's BOS-aligned rows; a document longer than a row
//             keeps only its first T tokens).
//   stream:   the documents concatenated and cut into rows (every token trained on; rows start mid-document).
#pragma once

#include <string_view>

namespace nanotrn::data {

enum class Layout { best_fit, stream };

constexpr std::string_view layout_name(Layout l) { return l == Layout::best_fit ? "best_fit" : "stream"; }

}  // namespace nanotrn::data
