// The nanotrn subcommands. Each file in src/cli/ registers one subcommand on the CLI11 app. Commands that read or write
// data get the Home (base/home.h) main() found once: their default paths and recipes resolve against it.
// Not here: any logic the subcommands share with library users (that lives in the library modules).
#pragma once

#include <CLI/CLI.hpp>

#include "base/home.h"

namespace nanotrn::cli {

void add_speedrun(CLI::App& app, const Home& home);
void add_info(CLI::App& app);
void add_kernel(CLI::App& app);
void add_qa(CLI::App& app, const Home& home);  // qa.cpp: `qa matmul`
void add_train(CLI::App& app, const Home& home);
void add_bench(CLI::App& app, const Home& home);
void add_eval(CLI::App& app, const Home& home);
void add_eval_core(CLI::App& eval, const Home& home);         // `eval core`, under add_eval's command
void add_eval_make_bundle(CLI::App& eval, const Home& home);  // eval_bundle.cpp, called by add_eval
void add_sample(CLI::App& app, const Home& home);
void add_data(CLI::App& app, const Home& home);
void add_tokenizer(CLI::App& app, const Home& home);
void add_predict(CLI::App& app, const Home& home);
void add_devices(CLI::App& app);
void add_recipe(CLI::App& app, const Home& home);
void add_score(CLI::App& app);
void add_report(CLI::App& app);                   // `report` and `plot` (report.cpp)
void add_sweep(CLI::App& app, const Home& home);  // `sweep`, `sweep report`, `sweep status`
void add_forecast(CLI::App& app, const Home& home);
void add_export(CLI::App& app, const Home& home);  // `export --pytorch DIR`

}  // namespace nanotrn::cli
