# lit configuration for tqc: .mlir files go through tqc-opt / tqc, .test
# files run the driver; FileCheck checks the output.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "TQC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tqc_obj_root, "tests")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(
    ["tqc", "tqc-opt"], [config.tqc_tools_dir, config.llvm_tools_dir])
