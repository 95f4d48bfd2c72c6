#pragma once
// Importing results made elsewhere (a nightly CI job's artifact) into the store, so that a
// history can be built without rebuilding: Google Benchmark JSON, nvbench JSON or culprit JSON
// lines. One file is one run of a pseudo-artifact tied to the commit ("import:<commit>", under the
// recipe hash "import", so imported runs never pool with runs of a recipe), recorded with the
// file's name; the commit joins the tracked history of the host given. The same file imported
// twice for the same commit and host adds nothing the second time.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/history/ledger.hpp"
#include "core/parsers/output_format.hpp"
#include "core/store/store.hpp"
#include "core/util/error.hpp"

namespace culprit::history {

struct ImportRequest {
  std::filesystem::path file;
  std::string commit;           // full id, resolved by the caller
  std::int64_t commit_time = 0; // committer time
  parsers::ParseOptions parse;  // format auto: detected from the contents
  store::HostRecord host;       // recorded in the store before the run
};

struct ImportOutcome {
  bool already_imported = false;
  parsers::OutputFormat format = parsers::OutputFormat::auto_detect;
  std::size_t cases = 0;
  std::size_t samples = 0;
  std::vector<std::string> warnings;
};

// Errors: an unreadable file (usage), a format that is not one of the three or cannot be
// detected (usage), a file with no samples (usage), the store or the ledger failing.
Result<ImportOutcome> import_results(store::Store& store, Ledger& ledger,
                                     const ImportRequest& request);

} // namespace culprit::history
