//===- HipToolchain.cpp - clang (AMDGPU) → HSACO, and its metadata --------===//
//
// The AMD back end has no in-process compiler API in Debian's packages
// (libclang-cpp would work but drags the whole driver into tqc), so tqc runs
// clang as a program on a scratch directory holding the translation unit and
// the embedded templates. Device code includes no system or HIP header
// (tq/target_hip.h provides everything from clang builtins), so neither ROCm
// nor its device libraries are needed: -nogpulib -nogpuinc -nostdinc.
//
//===----------------------------------------------------------------------===//
#include "tqc/Compiler/HipToolchain.h"

#include "tqc/Compiler/Templates.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace llvm;

namespace tqc {

namespace {

bool writeText(const Twine &path, StringRef text, std::string &error) {
  std::error_code ec;
  raw_fd_ostream os(path.str(), ec);
  if (!ec)
    os << text;
  if (ec || os.has_error()) {
    error = "cannot write " + path.str() + ": " + ec.message();
    return false;
  }
  return true;
}

/// Removes the scratch directory however buildHip returns.
struct ScratchDir {
  SmallString<128> path;
  ~ScratchDir() {
    if (!path.empty())
      sys::fs::remove_directories(path);
  }
};

int intOf(msgpack::DocNode &n) {
  if (n.getKind() == msgpack::Type::UInt)
    return int(n.getUInt());
  if (n.getKind() == msgpack::Type::Int)
    return int(n.getInt());
  return -1;
}

} // namespace

bool isAmdArch(const std::string &arch) {
  return arch == "gfx90a" || arch == "gfx942" || arch == "gfx950";
}

std::string hipClangPath() {
  const char *e = std::getenv("TQC_CLANG");
  std::string name = e && *e ? e : TQC_DEFAULT_CLANG;
  // ExecuteAndWait does not search PATH: resolve a bare name here.
  if (!sys::path::has_parent_path(name))
    if (ErrorOr<std::string> found = sys::findProgramByName(name))
      return *found;
  return name;
}

std::map<std::string, KernelResources>
readHsacoResources(const std::vector<char> &image, std::string &error) {
  std::map<std::string, KernelResources> out;
  auto file = object::ELF64LEFile::create(StringRef(image.data(), image.size()));
  if (!file) {
    error = "the code object is not a 64-bit ELF file: " +
            toString(file.takeError());
    return out;
  }
  if (file->getHeader().e_machine != ELF::EM_AMDGPU) {
    error = "the code object is not for AMDGPU (e_machine " +
            std::to_string(file->getHeader().e_machine) + ")";
    return out;
  }
  auto phdrs = file->program_headers();
  if (!phdrs) {
    error = "unreadable program headers: " + toString(phdrs.takeError());
    return out;
  }
  bool found = false;
  for (const auto &ph : *phdrs) {
    if (ph.p_type != ELF::PT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : file->notes(ph, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(ph.p_align), false)) {
        error = "the AMDGPU metadata note is not valid msgpack";
        consumeError(std::move(err));
        return out;
      }
      if (!doc.getRoot().isMap()) {
        error = "the AMDGPU metadata is not a map";
        consumeError(std::move(err));
        return out;
      }
      msgpack::MapDocNode root = doc.getRoot().getMap();
      auto kernels = root.find("amdhsa.kernels");
      if (kernels == root.end() || !kernels->second.isArray())
        continue;
      found = true;
      for (msgpack::DocNode &k : kernels->second.getArray()) {
        if (!k.isMap())
          continue;
        msgpack::MapDocNode m = k.getMap();
        auto get = [&](StringRef key) {
          auto it = m.find(key);
          return it == m.end() ? -1 : intOf(it->second);
        };
        auto name = m.find(".name");
        if (name == m.end() || !name->second.isString())
          continue;
        KernelResources r;
        r.registers = get(".vgpr_count");
        r.sgprs = get(".sgpr_count");
        r.sharedBytes = std::max(0, get(".group_segment_fixed_size"));
        r.stackBytes = std::max(0, get(".private_segment_fixed_size"));
        r.vgprSpills = std::max(0, get(".vgpr_spill_count"));
        r.sgprSpills = std::max(0, get(".sgpr_spill_count"));
        out[name->second.getString().str()] = r;
      }
    }
    if (err) {
      error = "unreadable note: " + toString(std::move(err));
      return out;
    }
  }
  if (!found)
    error = "the code object has no AMDGPU metadata note with amdhsa.kernels";
  return out;
}

KernelBuild buildHip(const std::string &source, const std::string &arch) {
  KernelBuild b;
  b.imageName = "kernels.hsaco";
  if (!isAmdArch(arch)) {
    b.error = "arch '" + arch + "' is not an AMD architecture this back "
              "end builds; accepted: gfx90a, gfx942, gfx950";
    return b;
  }
  ScratchDir dir;
  if (std::error_code ec = sys::fs::createUniqueDirectory("tqc-hip", dir.path)) {
    b.error = "cannot create a scratch directory: " + ec.message();
    return b;
  }
  size_t count = 0;
  const EmbeddedFile *files = embeddedTemplates(count);
  for (size_t i = 0; i < count; ++i) {
    SmallString<128> p(dir.path);
    sys::path::append(p, files[i].name);
    sys::fs::create_directories(sys::path::parent_path(p));
    if (!writeText(p, StringRef(files[i].contents, files[i].size), b.error))
      return b;
  }
  SmallString<128> tu(dir.path), out(dir.path), log(dir.path);
  sys::path::append(tu, "kernels.hip");
  sys::path::append(out, "kernels.hsaco");
  sys::path::append(log, "clang.log");
  if (!writeText(tu, source, b.error))
    return b;

  const std::string clang = hipClangPath();
  // Device code only, one linked code object (no offload bundle: Debian's
  // clang ships no clang-offload-bundler); code object v5, which every
  // ROCm since 5.x loads.
  std::vector<std::string> args = {clang,
                                   "-x", "hip",
                                   "--offload-device-only",
                                   "--no-gpu-bundle-output",
                                   "--offload-arch=" + arch,
                                   "-nogpulib", "-nogpuinc", "-nostdinc",
                                   "-O3", "-std=c++17",
                                   "-mcode-object-version=5",
                                   "-I", dir.path.str().str(),
                                   "-o", out.str().str(),
                                   tu.str().str()};
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string execError;
  int rc = sys::ExecuteAndWait(clang, argRefs, std::nullopt, redirects, 0, 0,
                               &execError);
  if (auto text = MemoryBuffer::getFile(log))
    b.compileLog = (*text)->getBuffer().str();
  if (rc == -1) { // it could not be started
    b.error = "cannot run clang '" + clang + "' for " + arch + ": " +
              (execError.empty() ? "it did not start" : execError) +
              " (install clang-22 with scripts/install-deps.sh, or set "
              "TQC_CLANG to a clang with the AMDGPU back end)";
    return b;
  }
  if (rc < 0) { // it crashed: its diagnostics say why
    b.error = "clang '" + clang + "' crashed compiling for " + arch + " (" +
              execError + "):\n" + b.compileLog;
    return b;
  }
  if (rc != 0) {
    b.error = "clang failed (exit " + std::to_string(rc) + ") compiling for " +
              arch + ":\n" + b.compileLog;
    return b;
  }
  auto obj = MemoryBuffer::getFile(out, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!obj) {
    b.error = "clang wrote no code object for " + arch + ": " +
              obj.getError().message();
    return b;
  }
  StringRef bytes = (*obj)->getBuffer();
  b.image.assign(bytes.begin(), bytes.end());
  b.resources = readHsacoResources(b.image, b.error);
  if (!b.error.empty())
    b.error = "the " + arch + " code object: " + b.error;
  return b;
}

} // namespace tqc
