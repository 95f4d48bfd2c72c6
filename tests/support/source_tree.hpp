#pragma once
// Where the tests find the repository's own files (fixtures, examples, scripts, the man page).

#include <filesystem>

namespace culprit::testing {

// $CULPRIT_TEST_SOURCE_DIR when it is set (a copy of the repository, as
// scripts/check-self-contained.sh makes to show that the tests read nothing outside it), else the
// tree the tests were built from.
std::filesystem::path source_dir();

} // namespace culprit::testing
