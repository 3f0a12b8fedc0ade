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

CudaBuild buildCuda(const std::string &source, const std::string &arch,
                    bool ptxOnly) {
  CudaBuild b;
  if (!isNvidiaArch(arch)) {
    b.error = "arch '" + arch + "' is not an NVIDIA architecture (sm_XX)";
    return b;
  }
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
    b.error = "NVRTC could not create the program";
    return b;
  }
  // compute_90a for sm_90a: arch-specific features stay available.
  std::string gpuArch = "--gpu-architecture=compute_" + arch.substr(3);
  const char *options[] = {gpuArch.c_str(), "--std=c++17", "-default-device",
                           "--device-int128", "-lineinfo"};
  nvrtcResult rc =
      nvrtcCompileProgram(prog, int(std::size(options)), options);
  b.compileLog = programLog(prog);
  if (rc != NVRTC_SUCCESS) {
    b.error = std::string("NVRTC failed (") + nvrtcGetErrorString(rc) +
              ") compiling for " + arch + ":\n" + b.compileLog;
    nvrtcDestroyProgram(&prog);
    return b;
  }
  size_t ptxSize = 0;
  nvrtcGetPTXSize(prog, &ptxSize);
  b.ptx.assign(ptxSize, '\0');
  nvrtcGetPTX(prog, b.ptx.data());
  nvrtcDestroyProgram(&prog);
  while (!b.ptx.empty() && b.ptx.back() == '\0')
    b.ptx.pop_back();
  if (ptxOnly)
    return b;

  std::string linkArch = "-arch=" + arch;
  const char *linkOptions[] = {linkArch.c_str(), "-verbose"};
  nvJitLinkHandle h = nullptr;
  if (nvJitLinkCreate(&h, 2, linkOptions) != NVJITLINK_SUCCESS) {
    b.error = "nvJitLink could not start for " + arch;
    return b;
  }
  nvJitLinkResult lr = nvJitLinkAddData(h, NVJITLINK_INPUT_PTX, b.ptx.data(),
                                        b.ptx.size(), "kernels.ptx");
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
  b.cubin.resize(cubinSize);
  nvJitLinkGetLinkedCubin(h, b.cubin.data());
  nvJitLinkDestroy(&h);
  b.resources = parsePtxasInfo(b.linkLog);
  return b;
}

} // namespace tqc
