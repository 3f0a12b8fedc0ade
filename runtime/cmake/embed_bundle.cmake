# Writes BUNDLE_DIR/tqc_bundle.h from BUNDLE_DIR/manifest.json and the
# cubin / PTX its "target" names, in the form docs/MANIFEST.md ("C header")
# specifies for tqc. The runtime's build uses it for the mock bundle; tqc
# writes the header itself for real bundles.
#
#   cmake -DBUNDLE_DIR=dir -P embed_bundle.cmake
cmake_minimum_required(VERSION 3.20)
if(NOT BUNDLE_DIR)
  message(FATAL_ERROR "embed_bundle.cmake: pass -DBUNDLE_DIR=<bundle directory>")
endif()

file(READ ${BUNDLE_DIR}/manifest.json manifest_text)
string(JSON image_name ERROR_VARIABLE err GET "${manifest_text}" target image)
if(err)
  message(FATAL_ERROR "${BUNDLE_DIR}/manifest.json: target.image: ${err}")
endif()
string(JSON ptx_name ERROR_VARIABLE err GET "${manifest_text}" target ptx)
if(err)
  set(ptx_name "")
endif()

# `name` as a C array of the file's bytes plus a NUL that `name_len` does
# not count (so text arrays are C strings too).
function(embed out name path)
  file(READ ${path} hex HEX)
  string(LENGTH "${hex}" hex_len)
  math(EXPR len "${hex_len} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(REGEX REPLACE "((0x..,){16})" "\\1\n  " hex "${hex}")
  set(${out} "${${out}}static const unsigned char ${name}[] TQC_BUNDLE_UNUSED = {\n  ${hex}0x00};\nstatic const size_t ${name}_len TQC_BUNDLE_UNUSED = ${len};\n\n" PARENT_SCOPE)
endfunction()

set(text "/* Generated from ${BUNDLE_DIR}: the bundle's manifest, cubin and PTX.\n * Do not edit. See docs/MANIFEST.md (\"C header\"). */\n")
string(APPEND text "#ifndef TQC_BUNDLE_H\n#define TQC_BUNDLE_H\n\n#include <stddef.h>\n\n")
string(APPEND text "#if defined(__GNUC__)\n#define TQC_BUNDLE_UNUSED __attribute__((unused))\n#else\n#define TQC_BUNDLE_UNUSED\n#endif\n\n")
embed(text tqc_bundle_manifest ${BUNDLE_DIR}/manifest.json)
embed(text tqc_bundle_image ${BUNDLE_DIR}/${image_name})
if(ptx_name)
  embed(text tqc_bundle_ptx ${BUNDLE_DIR}/${ptx_name})
else()
  string(APPEND text "static const unsigned char tqc_bundle_ptx[1] TQC_BUNDLE_UNUSED = {0};\nstatic const size_t tqc_bundle_ptx_len TQC_BUNDLE_UNUSED = 0;\n\n")
endif()
string(APPEND text "#endif /* TQC_BUNDLE_H */\n")
file(WRITE ${BUNDLE_DIR}/tqc_bundle.h "${text}")
