// nanotrn: one binary, one subcommand per file in src/cli/. Errors from the library are caught here, printed (with the
// location of the failing check when it is the user's code, or under --debug / NANOTRN_DEBUG=1), and turned into exit
// code 1.
#include <cstdlib>
#include <iostream>
#include <new>

#include "base/error.h"
#include "base/home.h"
#include "base/version.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{
      "nanotrn: train small language models from scratch under a fixed compute budget, and price them on a "
      "modelled AWS Trainium device"};
  app.require_subcommand(1);
  app.set_version_flag("--version", nanotrn::version_line());
  // --debug is NANOTRN_DEBUG=1 for this process and the processes it starts (sweep workers, ladder runs).
  app.add_flag_callback(
      "--debug", [] { setenv("NANOTRN_DEBUG", "1", 1); },
      "Show the source location of the check behind an error (also NANOTRN_DEBUG=1)");
  app.fallthrough();
  try {
    const nanotrn::Home home = nanotrn::find_home();
    nanotrn::cli::add_speedrun(app, home);
    nanotrn::cli::add_info(app);
    nanotrn::cli::add_kernel(app);
    nanotrn::cli::add_qa(app, home);
    nanotrn::cli::add_train(app, home);
    nanotrn::cli::add_bench(app, home);
    nanotrn::cli::add_eval(app, home);
    nanotrn::cli::add_sample(app, home);
    nanotrn::cli::add_data(app, home);
    nanotrn::cli::add_tokenizer(app, home);
    nanotrn::cli::add_recipe(app, home);
    nanotrn::cli::add_predict(app, home);
    nanotrn::cli::add_devices(app);
    nanotrn::cli::add_score(app);
    nanotrn::cli::add_report(app);
    nanotrn::cli::add_sweep(app, home);
    nanotrn::cli::add_forecast(app, home);
    nanotrn::cli::add_export(app, home);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const nanotrn::Error& e) {
    std::cerr << "nanotrn: error: " << nanotrn::user_message(e, nanotrn::debug_from_environment()) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    // The size checks (recipe/memory_need.h) refuse what cannot fit up front; this is what slipped past them.
    std::cerr << "nanotrn: error: out of memory (std::bad_alloc): the run asked for more memory than this machine "
                 "could give; make the model or the batch smaller\n";
    return 1;
  } catch (const std::exception& e) {
    // Every failure a user can cause is checked and reported as an nanotrn::Error naming the file, key or flag; a
    // library's own exception reaching here means a check is missing.
    std::cerr << "nanotrn: internal error (a missing check: please report the command): " << e.what() << "\n";
    return 1;
  }
  // Output that could not be written (a full disk, a closed pipe, /dev/full) is a failure, not a silent success.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "nanotrn: error: cannot write to standard output (disk full or output closed)\n";
    return 1;
  }
  return 0;
}
