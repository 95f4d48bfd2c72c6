#pragma once
// Reads the CUDA machine code of a file (a cubin, or an executable or shared library with an
// embedded fatbin) by running `cuobjdump -sass` and `cuobjdump -res-usage` on it. No GPU is
// needed. cuobjdump is looked up on PATH, then in $CUDA_HOME/bin, /usr/local/cuda/bin and
// /usr/local/lib/culprit-cuda-tools/bin (where scripts/setup-debian.sh puts it when the toolkit
// lacks it).

#include <filesystem>
#include <optional>

#include "core/build/cuda_sass.hpp"
#include "core/exec/executor.hpp"
#include "core/util/error.hpp"

namespace culprit::build {

// Where cuobjdump is, or nullopt.
std::optional<std::filesystem::path> find_cuobjdump();

// The file's kernels with their instruction counts and resources. A file without device code,
// a missing cuobjdump, a run that fails or prints what the parsers cannot read: an error whose
// one-line message says which (ExitCode::infrastructure). A fatbin with PTX alone is no error:
// the binary comes back with ptx_only() true. An interrupt is passed on as it came.
Result<CudaBinary> read_cuda_binary(exec::Executor& executor, const std::filesystem::path& file,
                                    exec::Seconds timeout);

} // namespace culprit::build
