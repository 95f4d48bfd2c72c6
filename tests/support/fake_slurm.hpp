#pragma once
// Stand-ins for Slurm's salloc, srun and scancel, for tests of the Slurm executor and of the
// commands that use it: every fault of a cluster on demand, with the real `culprit worker` doing
// the work here.
//
// salloc grants job ids from 100 up, unless the file `refuse` is in its directory (it then prints
// the file's contents, or an invalid-partition error, and exits 1) or `queue` is (it waits). srun
// runs the worker with SLURM_JOB_ID, SLURMD_NODENAME=fake01 (fakeJOBID when `node_per_job` is
// there: each allocation on a node of its own) and SLURM_STEP_ID set, unless
// `fail_steps` holds a positive count (that many steps fail with a node failure), `skip_worker`
// is there (it exits 0 without running it), `cut` is (it appends a cut line to the results of
// batches that hold requests) or `garbage` is (for a batch with requests it writes an unreadable
// results line and waits 20 s instead of running the worker). scancel notes the job. Every call is
// logged in the file `calls`.

#include <filesystem>
#include <string>
#include <vector>

namespace culprit::testing {

// Writes the stand-ins named in `programs` into `dir` (created when missing).
void install_fake_slurm(const std::filesystem::path& dir,
                        const std::vector<std::string>& programs = {"salloc", "srun", "scancel"});

// Links the ordinary tools a build, a benchmark script and the stand-ins need into `dir`, so that
// a PATH of `dir` alone finds those and no real Slurm.
void link_basic_tools(const std::filesystem::path& dir);

} // namespace culprit::testing
