// tq-expand-preset: a module compiles one recipe, one that its layout holds.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -verify-diagnostics

tq.spec "k3v4"
// expected-error @+1 {{'tq.spec' op is the second tq.spec in the module; a module compiles one cache recipe}}
tq.spec "k4v4"

// -----

// The vLLM layout holds vLLM's recipes only.
// expected-error @+1 {{'tq.spec' op key uniform 8-bit is not a vLLM key format; accepted: fp8_e4m3, or 3-/4-bit norm-corrected lloyd_max with one plain Hadamard}}
tq.spec "k3v4" {k_quant = "uniform", k_bits = 8 : i64, layout = "vllm"}
