// The nanotrn subcommands. Each file in src/cli/ registers one subcommand on the CLI11 app.
// Not here: any logic the subcommands share with library users (that lives in the library modules).
#pragma once

#include <CLI/CLI.hpp>

namespace nanotrn::cli {

void add_speedrun(CLI::App& app);
void add_info(CLI::App& app);
void add_kernel(CLI::App& app);
void add_train(CLI::App& app);
void add_bench(CLI::App& app);
void add_eval(CLI::App& app);
void add_sample(CLI::App& app);
void add_data(CLI::App& app);
void add_tokenizer(CLI::App& app);
void add_predict(CLI::App& app);
void add_devices(CLI::App& app);

}  // namespace nanotrn::cli
