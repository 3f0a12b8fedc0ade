//===- CudaToolchain.cpp - NVRTC → PTX → nvJitLink → cubin ----------------===//
//
// Both libraries run on a machine without a GPU, so CI builds every bundle.
// nvJitLink (not the driver) turns PTX into SASS here; its -verbose log
// carries ptxas's per-kernel resource report, which the bundle records and
// the toolchain tests check for spills.
//
//===----------------------------------------------------------------------===//

#include "tqc/Compiler/CudaToolchain.h"
#include "tqc/Compiler/Templates.h"

#include <nvJitLink.h>
#include <nvrtc.h>

#include <regex>
#include <sstream>

namespace tqc {

std::string nvrtcVersion() {
  int major = 0, minor = 0;
  if (::nvrtcVersion(&major, &minor) != NVRTC_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string nvJitLinkVersion() {
  unsigned major = 0, minor = 0;
  if (::nvJitLinkVersion(&major, &minor) != NVJITLINK_SUCCESS)
    return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

bool isNvidiaArch(const std::string &arch) {
  return std::regex_match(arch, std::regex("sm_[0-9]{2,3}a?"));
}

std::map<std::string, KernelResources> parsePtxasInfo(const std::string &log) {
  std::map<std::string, KernelResources> out;
  std::istringstream in(log);
  std::string line, current;
  std::smatch m;
  const std::regex entry(R"(Compiling entry function '([^']+)')");
  const std::regex props(R"(Function properties for '?([A-Za-z0-9_]+))");
  const std::regex frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  const std::regex regs(R"([Uu]sed (\d+) registers)");
  const std::regex smem(R"((\d+) bytes smem)");
  const std::regex lmem(R"((\d+) bytes lmem)");
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) {
      current = m[1];
      out[current];
      continue;
    }
    if (current.empty())
      continue;
    KernelResources &r = out[current];
    if (std::regex_search(line, m, frame)) {
      r.stackBytes = std::stoi(m[1]);
      r.spillStoreBytes = std::stoi(m[2]);
      r.spillLoadBytes = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, regs))
      r.registers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem))
      r.sharedBytes = std::stoi(m[1]);
    if (std::regex_search(line, m, lmem))
      r.localBytes = std::stoi(m[1]);
  }
  return out;
}

namespace {

std::string programLog(nvrtcProgram prog) {
  size_t size = 0;
  nvrtcGetProgramLogSize(prog, &size);
  std::string log(size, '\0');
  if (size)
    nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

std::string linkLog(nvJitLinkHandle h, bool errors) {
  size_t size = 0;
  if ((errors ? nvJitLinkGetErrorLogSize(h, &size)
              : nvJitLinkGetInfoLogSize(h, &size)) != NVJITLINK_SUCCESS)
    return {};
  std::string log(size, '\0');
  if (size)
    (errors ? nvJitLinkGetErrorLog(h, log.data())
            : nvJitLinkGetInfoLog(h, log.data()));
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n'))
    log.pop_back();
  return log;
}

} // namespace

namespace {

/// One NVRTC compilation of `source` with the embedded templates; returns
/// the program (to read its output) or null with `error` set.
nvrtcProgram compileProgram(const std::string &source,
                            const std::vector<std::string> &options,
                            const std::string &arch, std::string &log,
                            std::string &error) {
  size_t count = 0;
  const EmbeddedFile *files = embeddedTemplates(count);
  std::vector<const char *> contents, names;
  for (size_t i = 0; i < count; ++i) {
    contents.push_back(files[i].contents);
    names.push_back(files[i].name);
  }
  nvrtcProgram prog = nullptr;
  if (nvrtcCreateProgram(&prog, source.c_str(), "kernels.cu", int(count),
                         contents.data(), names.data()) != NVRTC_SUCCESS) {
    error = "NVRTC could not create the program";
    return nullptr;
  }
  std::vector<const char *> opts;
  for (const std::string &o : options)
    opts.push_back(o.c_str());
  nvrtcResult rc = nvrtcCompileProgram(prog, int(opts.size()), opts.data());
  log = programLog(prog);
  if (rc != NVRTC_SUCCESS) {
    error = std::string("NVRTC failed (") + nvrtcGetErrorString(rc) +
            ") compiling for " + arch + ":\n" + log;
    nvrtcDestroyProgram(&prog);
    return nullptr;
  }
  return prog;
}

} // namespace

KernelBuild buildCuda(const std::string &source, const std::string &arch,
                    bool ptxOnly) {
  KernelBuild b;
  b.imageName = "kernels.cubin";
  if (!isNvidiaArch(arch)) {
    b.error = "arch '" + arch + "' is not an NVIDIA architecture (sm_XX)";
    return b;
  }
  // compute_90a for sm_90a: arch-specific features stay available.
  const std::string virtualArch = "--gpu-architecture=compute_" + arch.substr(3);
  const std::vector<std::string> common = {virtualArch, "--std=c++17",
                                           "-default-device", "-lineinfo"};

  // The bundle's PTX: what the driver JIT-compiles on GPUs the cubin does
  // not run on.
  nvrtcProgram prog = compileProgram(source, common, arch, b.compileLog, b.error);
  if (!prog)
    return b;
  size_t ptxSize = 0;
  nvrtcGetPTXSize(prog, &ptxSize);
  b.ptx.assign(ptxSize, '\0');
  nvrtcGetPTX(prog, b.ptx.data());
  nvrtcDestroyProgram(&prog);
  while (!b.ptx.empty() && b.ptx.back() == '\0')
    b.ptx.pop_back();
  if (ptxOnly)
    return b;

  // The cubin: NVRTC emits LTO-IR and nvJitLink optimizes and links it
  // whole. Handing nvJitLink the PTX instead makes ptxas compile it as
  // relocatable code, which cost the decode kernel up to 90 registers (and
  // spills on sm_80); whole-program LTO gives nvcc's register counts.
  std::vector<std::string> lto = common;
  lto.push_back("-dlto");
  std::string ltoLog;
  prog = compileProgram(source, lto, arch, ltoLog, b.error);
  if (!prog)
    return b;
  size_t irSize = 0;
  nvrtcGetLTOIRSize(prog, &irSize);
  std::vector<char> ir(irSize);
  nvrtcGetLTOIR(prog, ir.data());
  nvrtcDestroyProgram(&prog);

  std::string linkArch = "-arch=" + arch;
  const char *linkOptions[] = {linkArch.c_str(), "-lto", "-verbose"};
  nvJitLinkHandle h = nullptr;
  if (nvJitLinkCreate(&h, 3, linkOptions) != NVJITLINK_SUCCESS) {
    b.error = "nvJitLink could not start for " + arch;
    return b;
  }
  nvJitLinkResult lr = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir.data(),
                                        ir.size(), "kernels.ltoir");
  if (lr == NVJITLINK_SUCCESS)
    lr = nvJitLinkComplete(h);
  b.linkLog = linkLog(h, false);
  if (lr != NVJITLINK_SUCCESS) {
    b.error = "nvJitLink failed (code " + std::to_string(int(lr)) +
              ") for " + arch + ":\n" + linkLog(h, true);
    nvJitLinkDestroy(&h);
    return b;
  }
  size_t cubinSize = 0;
  nvJitLinkGetLinkedCubinSize(h, &cubinSize);
  b.image.resize(cubinSize);
  nvJitLinkGetLinkedCubin(h, b.image.data());
  nvJitLinkDestroy(&h);
  b.resources = parsePtxasInfo(b.linkLog);
  return b;
}

} // namespace tqc
