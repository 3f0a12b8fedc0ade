//===- Templates.h - The device templates embedded in tqc ------*- C++ -*-===//
//
// templates/ is compiled into the binary (CMake generates the table), so an
// installed tqc needs no source tree: NVRTC receives these as in-memory
// headers.
//
//===----------------------------------------------------------------------===//
#ifndef TQC_COMPILER_TEMPLATES_H
#define TQC_COMPILER_TEMPLATES_H

#include <cstddef>

namespace tqc {

struct EmbeddedFile {
  const char *name;     ///< include name, e.g. "tq/decode.h"
  const char *contents; ///< NUL-terminated
  size_t size;
};

/// Every file under templates/tq/, sorted by name.
const EmbeddedFile *embeddedTemplates(size_t &count);

} // namespace tqc

#endif // TQC_COMPILER_TEMPLATES_H
