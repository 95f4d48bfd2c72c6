#pragma once
// What gets measured: a commit's build, named by the artifacts it produced. Runs are stored under
// the artifact id, so two commits whose artifacts are byte-identical share their measurement.

#include <filesystem>
#include <string>

namespace culprit::measure {

struct Subject {
  std::string commit; // full id
  std::string rev;    // what the user called it ({rev}); the commit id for probes
  std::string build_key;
  std::string artifact_id;
  std::filesystem::path artifact_dir; // {build} at run time

  friend bool operator==(const Subject& a, const Subject& b) {
    return a.artifact_id == b.artifact_id && a.commit == b.commit;
  }
};

// One metric of one case: what a verdict is about.
struct CaseKey {
  std::string case_name;
  std::string metric;
  friend auto operator<=>(const CaseKey&, const CaseKey&) = default;
};

} // namespace culprit::measure
