#include "core/build/cuda_sass.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "core/build/ptxas.hpp"

namespace culprit::build {
namespace {

struct OpcodeClass {
  std::string_view opcode;
  SassClass sass_class;
};

// The table of cuda_sass.hpp, one row an opcode.
constexpr std::array k_sass_opcodes{
    OpcodeClass{"LDG", SassClass::global_load},    OpcodeClass{"LDGSTS", SassClass::global_load},
    OpcodeClass{"LD", SassClass::global_load},     OpcodeClass{"STG", SassClass::global_store},
    OpcodeClass{"ST", SassClass::global_store},    OpcodeClass{"ATOM", SassClass::global_store},
    OpcodeClass{"ATOMG", SassClass::global_store}, OpcodeClass{"RED", SassClass::global_store},
    OpcodeClass{"LDS", SassClass::shared_load},    OpcodeClass{"LDSM", SassClass::shared_load},
    OpcodeClass{"STS", SassClass::shared_store},   OpcodeClass{"ATOMS", SassClass::shared_store},
    OpcodeClass{"LDL", SassClass::local_load},     OpcodeClass{"STL", SassClass::local_store},
    OpcodeClass{"FFMA", SassClass::fp32},          OpcodeClass{"FADD", SassClass::fp32},
    OpcodeClass{"FMUL", SassClass::fp32},          OpcodeClass{"FMNMX", SassClass::fp32},
    OpcodeClass{"FSET", SassClass::fp32},          OpcodeClass{"FSETP", SassClass::fp32},
    OpcodeClass{"FSEL", SassClass::fp32},          OpcodeClass{"FCHK", SassClass::fp32},
    OpcodeClass{"FRND", SassClass::fp32},          OpcodeClass{"FSWZADD", SassClass::fp32},
    OpcodeClass{"MUFU", SassClass::fp32},          OpcodeClass{"HFMA2", SassClass::fp16},
    OpcodeClass{"HADD2", SassClass::fp16},         OpcodeClass{"HMUL2", SassClass::fp16},
    OpcodeClass{"HMNMX2", SassClass::fp16},        OpcodeClass{"HSET2", SassClass::fp16},
    OpcodeClass{"HSETP2", SassClass::fp16},        OpcodeClass{"HMMA", SassClass::tensor},
    OpcodeClass{"IMMA", SassClass::tensor},        OpcodeClass{"DMMA", SassClass::tensor},
    OpcodeClass{"BMMA", SassClass::tensor},        OpcodeClass{"HGMMA", SassClass::tensor},
    OpcodeClass{"IGMMA", SassClass::tensor},       OpcodeClass{"QGMMA", SassClass::tensor},
    OpcodeClass{"BGMMA", SassClass::tensor},       OpcodeClass{"IMAD", SassClass::integer},
    OpcodeClass{"IMADSP", SassClass::integer},     OpcodeClass{"IMUL", SassClass::integer},
    OpcodeClass{"IADD", SassClass::integer},       OpcodeClass{"IADD3", SassClass::integer},
    OpcodeClass{"IABS", SassClass::integer},       OpcodeClass{"IMNMX", SassClass::integer},
    OpcodeClass{"LOP", SassClass::integer},        OpcodeClass{"LOP3", SassClass::integer},
    OpcodeClass{"SHF", SassClass::integer},        OpcodeClass{"SHL", SassClass::integer},
    OpcodeClass{"SHR", SassClass::integer},        OpcodeClass{"LEA", SassClass::integer},
    OpcodeClass{"ISETP", SassClass::integer},      OpcodeClass{"ISCADD", SassClass::integer},
    OpcodeClass{"POPC", SassClass::integer},       OpcodeClass{"FLO", SassClass::integer},
    OpcodeClass{"BREV", SassClass::integer},       OpcodeClass{"PRMT", SassClass::integer},
    OpcodeClass{"SEL", SassClass::integer},        OpcodeClass{"MOV", SassClass::integer},
    OpcodeClass{"SGXT", SassClass::integer},       OpcodeClass{"BMSK", SassClass::integer},
    OpcodeClass{"VABSDIFF", SassClass::integer},   OpcodeClass{"VABSDIFF4", SassClass::integer},
    OpcodeClass{"IDP", SassClass::integer},        OpcodeClass{"BRA", SassClass::control},
    OpcodeClass{"BRX", SassClass::control},        OpcodeClass{"JMP", SassClass::control},
    OpcodeClass{"JMX", SassClass::control},        OpcodeClass{"CALL", SassClass::control},
    OpcodeClass{"RET", SassClass::control},        OpcodeClass{"EXIT", SassClass::control},
    OpcodeClass{"BSSY", SassClass::control},       OpcodeClass{"BSYNC", SassClass::control},
    OpcodeClass{"BREAK", SassClass::control},      OpcodeClass{"BPT", SassClass::control},
    OpcodeClass{"WARPSYNC", SassClass::control},   OpcodeClass{"KILL", SassClass::control},
    OpcodeClass{"NANOSLEEP", SassClass::control},  OpcodeClass{"YIELD", SassClass::control},
    OpcodeClass{"BMOV", SassClass::control},       OpcodeClass{"BAR", SassClass::barrier},
    OpcodeClass{"MEMBAR", SassClass::barrier},     OpcodeClass{"DEPBAR", SassClass::barrier},
    OpcodeClass{"ERRBAR", SassClass::barrier},     OpcodeClass{"FENCE", SassClass::barrier},
    OpcodeClass{"SYNCS", SassClass::barrier},      OpcodeClass{"ARRIVES", SassClass::barrier},
};

std::optional<SassClass> lookup_opcode(std::string_view opcode) {
  const auto* found = std::ranges::find(k_sass_opcodes, opcode, &OpcodeClass::opcode);
  if (found == k_sass_opcodes.end())
    return std::nullopt;
  return found->sass_class;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos)
    return {};
  const auto last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// Calls `line` for each line of `text`.
template <class F> void for_each_line(std::string_view text, F&& line) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    line(text.substr(0, end));
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
}

// The instruction of "/*0070*/   @P0 EXIT ;   /* 0x000000000000094d */", or empty when the line
// is no instruction line (an encoding line "/* 0x... */", a directive, a label).
std::string_view instruction_text(std::string_view line) {
  line = trim(line);
  if (!line.starts_with("/*") || line.starts_with("/* "))
    return {};
  const auto close = line.find("*/");
  if (close == std::string_view::npos)
    return {};
  const auto address = line.substr(2, close - 2);
  if (address.empty() || !std::ranges::all_of(address, [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
      }))
    return {};
  auto rest = trim(line.substr(close + 2));
  if (rest.empty() || rest.front() == '.' || rest.find(';') == std::string_view::npos)
    return {};
  return trim(rest.substr(0, rest.find(';')));
}

// "sm_90" from "code for sm_90" / ".target sm_90" / "arch = sm_90" (the text after the prefix).
std::string arch_word(std::string_view rest) {
  rest = trim(rest);
  return std::string(rest.substr(0, rest.find_first_of(" \t,")));
}

class SassReader {
public:
  void arch(std::string arch) {
    m_arch = std::move(arch);
    if (!m_arch.empty() &&
        std::ranges::find(m_binary.sass_archs, m_arch) == m_binary.sass_archs.end())
      m_binary.sass_archs.push_back(m_arch);
  }

  // A function without a name is no kernel: its instructions are skipped.
  void function(std::string_view mangled) {
    m_counting = !trim(mangled).empty();
    if (!m_counting)
      return;
    SassKernel kernel;
    kernel.mangled = std::string(trim(mangled));
    kernel.name = short_name(demangle(kernel.mangled));
    kernel.arch = m_arch;
    m_binary.kernels.push_back(std::move(kernel));
  }

  void end_function() { m_in_function = false; }
  void begin_function() { m_in_function = true; }
  [[nodiscard]] bool in_function() const { return m_in_function; }

  void instruction(std::string_view text) {
    if (!m_counting)
      return;
    const std::string opcode = opcode_of(text);
    if (opcode.empty())
      return;
    auto& kernel = m_binary.kernels.back();
    ++kernel.opcodes[opcode];
    if (opcode == "NOP")
      return;
    ++kernel.instructions;
    ++kernel.classes.at(static_cast<std::size_t>(classify_opcode(opcode)));
  }

  void ptx(std::string arch) { m_binary.ptx_archs.push_back(std::move(arch)); }

  Result<CudaBinary> finish(std::string_view tool, std::string_view text) && {
    if (m_binary.kernels.empty() && m_binary.ptx_archs.empty() && m_binary.sass_archs.empty()) {
      const auto first = trim(text.substr(0, text.find('\n')));
      return infra_error("{} printed no CUDA code{}", tool,
                         first.empty()
                             ? std::string()
                             : fmt::format(" (it began \"{}\")", std::string(first.substr(0, 80))));
    }
    // A binary with machine code for an arch but no function (a fatbin entry of a translation
    // unit without kernels) says nothing more than its kernels do.
    return std::move(m_binary);
  }

private:
  CudaBinary m_binary;
  std::string m_arch;
  bool m_in_function = false;
  bool m_counting = false;
};

// A count as cuobjdump prints it: decimal digits, at most 18 of them.
bool parse_int(std::string_view text, std::int64_t& value) {
  if (text.empty() || text.size() > 18 ||
      !std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; }))
    return false;
  value = 0;
  for (const char c : text)
    value = value * 10 + (c - '0');
  return true;
}

} // namespace

std::string_view to_string(SassClass sass_class) {
  switch (sass_class) {
  case SassClass::global_load:
    return "global load";
  case SassClass::global_store:
    return "global store";
  case SassClass::shared_load:
    return "shared load";
  case SassClass::shared_store:
    return "shared store";
  case SassClass::local_load:
    return "local load";
  case SassClass::local_store:
    return "local store";
  case SassClass::fp32:
    return "fp32";
  case SassClass::fp16:
    return "fp16";
  case SassClass::tensor:
    return "tensor";
  case SassClass::integer:
    return "integer";
  case SassClass::control:
    return "control";
  case SassClass::barrier:
    return "barrier";
  case SassClass::other:
    return "other";
  }
  return "other";
}

SassClass classify_opcode(std::string_view opcode) {
  if (const auto found = lookup_opcode(opcode))
    return *found;
  // The uniform datapath (sm_75 on) spells its integer and control twins with a U.
  if (opcode.size() > 1 && opcode.front() == 'U') {
    if (const auto found = lookup_opcode(opcode.substr(1));
        found && (*found == SassClass::integer || *found == SassClass::control))
      return *found;
  }
  return SassClass::other;
}

std::string opcode_of(std::string_view instruction) {
  instruction = trim(instruction);
  if (instruction.starts_with('@')) {
    const auto space = instruction.find_first_of(" \t");
    if (space == std::string_view::npos)
      return {};
    instruction = trim(instruction.substr(space));
  }
  const auto word = instruction.substr(0, instruction.find_first_of(" \t;"));
  const auto opcode = word.substr(0, word.find('.'));
  if (opcode.empty() || !std::ranges::all_of(opcode, [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      }))
    return {};
  return std::string(opcode);
}

const SassKernel* CudaBinary::find(std::string_view mangled, std::string_view arch) const {
  const auto found = std::ranges::find_if(
      kernels, [&](const SassKernel& k) { return k.mangled == mangled && k.arch == arch; });
  return found == kernels.end() ? nullptr : &*found;
}

Result<CudaBinary> parse_cuobjdump_sass(std::string_view text) {
  SassReader reader;
  bool ptx_section = false;
  for_each_line(text, [&](std::string_view raw) {
    const auto line = trim(raw);
    if (line.starts_with("Fatbin ptx code")) {
      ptx_section = true;
      return;
    }
    if (line.starts_with("Fatbin elf code")) {
      ptx_section = false;
      return;
    }
    if (line.starts_with("arch =")) {
      if (ptx_section)
        reader.ptx(arch_word(line.substr(6)));
      return;
    }
    if (line.starts_with("code for ")) {
      reader.arch(arch_word(line.substr(9)));
      return;
    }
    if (line.starts_with(".target")) {
      reader.arch(arch_word(line.substr(7)));
      return;
    }
    if (line.starts_with("Function :")) {
      reader.function(line.substr(10));
      return;
    }
    if (const auto instruction = instruction_text(line); !instruction.empty())
      reader.instruction(instruction);
  });
  return std::move(reader).finish("cuobjdump -sass", text);
}

Result<CudaBinary> parse_nvdisasm(std::string_view text) {
  SassReader reader;
  for_each_line(text, [&](std::string_view raw) {
    const auto line = trim(raw);
    if (line.starts_with(".target")) {
      reader.arch(arch_word(line.substr(7)));
      return;
    }
    // Each section starts with a rule naming it; a kernel's code is its ".text.NAME" section.
    if (line.starts_with("//---------------")) {
      const auto name_at = line.find_first_not_of('-', 2);
      const auto name = name_at == std::string_view::npos
                            ? std::string_view()
                            : trim(line.substr(name_at, line.find("---", name_at) - name_at));
      if (name.starts_with(".text.")) {
        reader.function(name.substr(6));
        reader.begin_function();
      } else {
        reader.end_function();
      }
      return;
    }
    if (!reader.in_function())
      return;
    if (const auto instruction = instruction_text(line); !instruction.empty())
      reader.instruction(instruction);
  });
  return std::move(reader).finish("nvdisasm", text);
}

Result<std::vector<ResourceUsage>> parse_res_usage(std::string_view text) {
  std::vector<ResourceUsage> usage;
  std::string arch;
  bool recognised = false;
  bool ptx_section = false;
  for_each_line(text, [&](std::string_view raw) {
    const auto line = trim(raw);
    if (line.starts_with("Fatbin") || line.starts_with("Resource usage")) {
      recognised = true;
      if (line.starts_with("Fatbin"))
        ptx_section = line.starts_with("Fatbin ptx");
      return;
    }
    if (line.starts_with("arch =")) {
      arch = ptx_section ? std::string() : arch_word(line.substr(6));
      return;
    }
    if (line.starts_with("Function ") && line.ends_with(':') &&
        !trim(line.substr(9, line.size() - 10)).empty()) {
      ResourceUsage entry;
      entry.mangled = std::string(trim(line.substr(9, line.size() - 10)));
      entry.arch = arch;
      usage.push_back(std::move(entry));
      return;
    }
    if (usage.empty() || !line.starts_with("REG:"))
      return;
    auto& resources = usage.back().resources;
    std::string_view rest = line;
    while (!rest.empty()) {
      const auto space = rest.find(' ');
      const auto field = rest.substr(0, space);
      rest = space == std::string_view::npos ? std::string_view() : trim(rest.substr(space));
      const auto colon = field.rfind(':');
      std::int64_t value = 0;
      if (colon == std::string_view::npos || !parse_int(field.substr(colon + 1), value))
        continue;
      const auto key = field.substr(0, colon);
      if (key == "REG")
        resources.registers = static_cast<int>(value);
      else if (key == "STACK")
        resources.stack_bytes = value;
      else if (key == "SHARED")
        resources.shared_bytes = value;
      else if (key == "LOCAL")
        resources.local_bytes = value;
      else if (key.starts_with("CONSTANT"))
        resources.constant_bytes += value;
      else if (key == "TEXTURE")
        resources.textures = static_cast<int>(value);
      else if (key == "SURFACE")
        resources.surfaces = static_cast<int>(value);
      else if (key == "SAMPLER")
        resources.samplers = static_cast<int>(value);
    }
  });
  if (!recognised && usage.empty()) {
    const auto first = trim(text.substr(0, text.find('\n')));
    return infra_error("cuobjdump -res-usage printed no resource usage{}",
                       first.empty()
                           ? std::string()
                           : fmt::format(" (it began \"{}\")", std::string(first.substr(0, 80))));
  }
  return usage;
}

void attach_resources(CudaBinary& binary, const std::vector<ResourceUsage>& usage) {
  for (auto& kernel : binary.kernels) {
    for (const auto& entry : usage) {
      if (entry.mangled == kernel.mangled && (entry.arch.empty() || entry.arch == kernel.arch)) {
        kernel.resources = entry.resources;
        break;
      }
    }
  }
}

} // namespace culprit::build
