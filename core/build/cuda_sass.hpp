#pragma once
// CUDA machine code (SASS) read without a GPU: what `cuobjdump -sass`, `cuobjdump -res-usage` and
// `nvdisasm` print about a cubin, or about the fatbin embedded in an executable or a library,
// per kernel and architecture: instructions counted by opcode and by class, and the resources
// (registers, stack, shared, local memory) that decide occupancy.
//
// The text read, as CUDA 12 and 13 print it:
//   cuobjdump -sass:       "code for sm_90" (or ".target sm_90"), "Function : _Z6kernelPf",
//                          then "/*0070*/   @P0 EXIT ;   /* 0x000000000000094d */" lines
//   nvdisasm:              ".target sm_90", "//---- .text.NAME ----" sections holding
//                          "/*0070*/   @P0 EXIT ;" lines
//   cuobjdump -res-usage:  "Function _Z6kernelPf:" then
//                          "REG:10 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:544 TEXTURE:0 ..."
// An opcode is the instruction's first word without its predicate ("@P0", "@!PT") and
// modifiers ("LDG.E.64" is LDG). NOP is counted in the opcode table, not in `instructions`:
// it pads a kernel's end to an alignment and would make a longer kernel of a shorter one.
//
// The classes (opcodes of sm_70 to sm_90; the uniform-datapath forms "UIADD3", "USHF", ... count
// with their vector twins):
//   global load    LDG LDGSTS LD            global store   STG ST ATOM ATOMG RED
//   shared load    LDS LDSM                 shared store   STS ATOMS
//   local load     LDL                      local store    STL
//   fp32           FFMA FADD FMUL FMNMX FSET FSETP FSEL FCHK FRND FSWZADD MUFU
//   fp16           HFMA2 HADD2 HMUL2 HMNMX2 HSET2 HSETP2
//   tensor         HMMA IMMA DMMA BMMA HGMMA IGMMA QGMMA BGMMA
//   integer        IMAD IMADSP IMUL IADD IADD3 IABS IMNMX LOP LOP3 SHF SHL SHR LEA ISETP ISCADD
//                  POPC FLO BREV PRMT SEL MOV SGXT BMSK VABSDIFF VABSDIFF4 IDP
//   control        BRA BRX JMP JMX CALL RET EXIT BSSY BSYNC BREAK BPT WARPSYNC KILL NANOSLEEP
//                  YIELD BMOV
//   barrier        BAR MEMBAR DEPBAR ERRBAR FENCE SYNCS ARRIVES
//   other          everything else (conversions, moves of special registers, constant loads,
//                  shuffles, votes, texture instructions...)
// Generic LD and ST may reach shared or local memory too; they count as global, their usual
// target. From sm_80 on the compiler also moves constants with "HFMA2.MMA Rd, -RZ, RZ, ...",
// which counts as fp16 all the same: the table reads opcodes, not operands. Parsing never fails on
// text it does not know: such lines are skipped, and a text with no kernel at all is an error whose
// message says what was seen.

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.hpp"

namespace culprit::build {

enum class SassClass : std::uint8_t {
  global_load,
  global_store,
  shared_load,
  shared_store,
  local_load,
  local_store,
  fp32,
  fp16,
  tensor,
  integer,
  control,
  barrier,
  other,
};
inline constexpr std::size_t k_sass_class_count = 13;

std::string_view to_string(SassClass sass_class);

// The class of an opcode without predicate and modifiers ("LDG", "UIADD3").
SassClass classify_opcode(std::string_view opcode);

// "LDG" from "@!P0 LDG.E.64.CONSTANT"; empty for a line that holds no instruction.
std::string opcode_of(std::string_view instruction);

// What `cuobjdump -res-usage` says about one function; bytes except `registers`.
struct CudaResources {
  int registers = 0; // per thread
  std::int64_t stack_bytes = 0;
  std::int64_t shared_bytes = 0;   // static shared memory per block
  std::int64_t local_bytes = 0;    // local memory per thread: spills and local arrays
  std::int64_t constant_bytes = 0; // summed over the constant banks
  int textures = 0;
  int surfaces = 0;
  int samplers = 0;

  friend bool operator==(const CudaResources&, const CudaResources&) = default;
};

struct SassKernel {
  std::string mangled;           // as the tool names it
  std::string name;              // demangled, without parameters: "kernels::sgemm<16>"
  std::string arch;              // "sm_90"
  std::int64_t instructions = 0; // NOPs left out
  std::map<std::string, std::int64_t> opcodes; // NOPs included
  std::array<std::int64_t, k_sass_class_count> classes{};
  std::optional<CudaResources> resources; // from -res-usage, when it was read

  [[nodiscard]] std::int64_t count(SassClass sass_class) const {
    return classes.at(static_cast<std::size_t>(sass_class));
  }
};

// The CUDA code of one file: kernels with machine code, and the architectures for which it holds
// PTX alone (which the driver compiles at load time: its instructions are not SASS).
struct CudaBinary {
  std::vector<SassKernel> kernels;     // in the order the tool printed them
  std::vector<std::string> ptx_archs;  // "sm_90" for each PTX entry of the fatbin
  std::vector<std::string> sass_archs; // architectures with machine code, in order, once each

  // PTX and no machine code at all.
  [[nodiscard]] bool ptx_only() const { return kernels.empty() && !ptx_archs.empty(); }
  [[nodiscard]] const SassKernel* find(std::string_view mangled, std::string_view arch) const;
};

// Reads `cuobjdump -sass` output. A fatbin with PTX only ("Fatbin ptx code:" sections and no
// "Function :") gives a binary with ptx_archs and no kernels. Text with neither is an error.
Result<CudaBinary> parse_cuobjdump_sass(std::string_view text);

// Reads `nvdisasm` output of one cubin.
Result<CudaBinary> parse_nvdisasm(std::string_view text);

struct ResourceUsage {
  std::string mangled;
  std::string arch; // empty when the text named none (a cubin's own listing names none)
  CudaResources resources;
};

// Reads `cuobjdump -res-usage` output; an error when it holds no "Function" line nor any
// "Fatbin" or "Resource usage" header.
Result<std::vector<ResourceUsage>> parse_res_usage(std::string_view text);

// Gives each kernel of `binary` its resources, matched by mangled name and arch (a usage
// without an arch matches any arch: a cubin holds one).
void attach_resources(CudaBinary& binary, const std::vector<ResourceUsage>& usage);

} // namespace culprit::build
