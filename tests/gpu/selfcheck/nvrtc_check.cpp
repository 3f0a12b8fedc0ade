//===- nvrtc_check.cpp - Compile a generated TU the way tqc will ----------===//
//
// tqc hands NVRTC the generated translation unit with templates/tq/*.h as
// in-memory headers (no include path, no CUDA headers), then links the PTX
// to a cubin with nvJitLink. This tool does exactly that for one TU, so the
// selfcheck proves the templates compile in that setting (nvcc's include
// search would hide a stray #include), and prints nvJitLink's per-kernel
// register / spill / stack report. Needs no GPU.
//
//   nvrtc_check <templates dir> <tu.cu> <sm_XX>
//
// Exit status 0 when compilation and linking succeed.
//===----------------------------------------------------------------------===//
#include <nvJitLink.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: nvrtc_check <templates dir> <tu.cu> <sm_XX>\n");
    return 2;
  }
  const std::string tdir = argv[1], tu = argv[2], sm = argv[3];
  try {
    // Every header of templates/tq, named as the TU includes it.
    std::vector<std::string> names, sources;
    if (DIR *d = opendir((tdir + "/tq").c_str())) {
      while (dirent *e = readdir(d)) {
        const std::string n = e->d_name;
        if (n.size() > 2 && n.substr(n.size() - 2) == ".h") {
          names.push_back("tq/" + n);
          sources.push_back(readFile(tdir + "/tq/" + n));
        }
      }
      closedir(d);
    }
    std::vector<const char *> hn, hs;
    for (size_t i = 0; i < names.size(); ++i) {
      hn.push_back(names[i].c_str());
      hs.push_back(sources[i].c_str());
    }
    const std::string src = readFile(tu);
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, src.c_str(), tu.c_str(), int(hn.size()),
                           hs.data(), hn.data()) != NVRTC_SUCCESS)
      throw std::runtime_error("nvrtcCreateProgram failed");
    // TQ_NVRTC_CUBIN=1: NVRTC compiles straight to a cubin (whole-program
    // ptxas) instead of PTX + nvJitLink (relocatable ptxas); the two can
    // allocate registers very differently.
    // TQ_NVRTC_LTO=1: NVRTC emits LTO-IR (-dlto) and nvJitLink links it with
    // -lto (whole-program code generation through the linker).
    const bool cubin = std::getenv("TQ_NVRTC_CUBIN") != nullptr;
    const bool lto = !cubin && std::getenv("TQ_NVRTC_LTO") != nullptr;
    const std::string arch = "--gpu-architecture=" +
                             std::string(cubin || lto ? "sm_" : "compute_") +
                             sm.substr(sm.find('_') + 1);
    std::vector<const char *> opts = {arch.c_str(), "-std=c++17",
                                      "-default-device"};
    if (cubin)
      opts.push_back("--ptxas-options=-v");
    if (lto)
      opts.push_back("-dlto");
    const nvrtcResult rc = nvrtcCompileProgram(prog, int(opts.size()), opts.data());
    size_t logSize = 0;
    nvrtcGetProgramLogSize(prog, &logSize);
    std::string log(logSize, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    if (rc != NVRTC_SUCCESS) {
      std::printf("NVRTC compile failed:\n%s\n", log.c_str());
      return 1;
    }
    if (cubin) {
      std::printf("%s", log.c_str());
      nvrtcDestroyProgram(&prog);
      return 0;
    }
    size_t ptxSize = 0;
    std::string ptx;
    if (lto) {
      nvrtcGetLTOIRSize(prog, &ptxSize);
      ptx.resize(ptxSize);
      nvrtcGetLTOIR(prog, &ptx[0]);
    } else {
      nvrtcGetPTXSize(prog, &ptxSize);
      ptx.resize(ptxSize);
      nvrtcGetPTX(prog, &ptx[0]);
    }
    nvrtcDestroyProgram(&prog);
    if (const char *dump = std::getenv("TQ_DUMP_PTX")) // for debugging
      std::ofstream(dump, std::ios::binary) << ptx;

    const std::string larch = "-arch=" + sm;
    const char *lopts[] = {larch.c_str(), "-verbose", "-lto"};
    nvJitLinkHandle h;
    if (nvJitLinkCreate(&h, lto ? 3 : 2, lopts) != NVJITLINK_SUCCESS)
      throw std::runtime_error("nvJitLinkCreate failed");
    nvJitLinkResult lr = nvJitLinkAddData(
        h, lto ? NVJITLINK_INPUT_LTOIR : NVJITLINK_INPUT_PTX, ptx.data(),
        ptx.size(), "tu");
    if (lr == NVJITLINK_SUCCESS)
      lr = nvJitLinkComplete(h);
    size_t infoSize = 0;
    nvJitLinkGetInfoLogSize(h, &infoSize);
    std::string info(infoSize, '\0');
    if (infoSize)
      nvJitLinkGetInfoLog(h, &info[0]);
    size_t errSize = 0;
    nvJitLinkGetErrorLogSize(h, &errSize);
    std::string err(errSize, '\0');
    if (errSize)
      nvJitLinkGetErrorLog(h, &err[0]);
    nvJitLinkDestroy(&h);
    std::printf("%s", info.c_str());
    if (lr != NVJITLINK_SUCCESS) {
      std::printf("nvJitLink failed:\n%s\n", err.c_str());
      return 1;
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "nvrtc_check: %s\n", e.what());
    return 1;
  }
  return 0;
}
