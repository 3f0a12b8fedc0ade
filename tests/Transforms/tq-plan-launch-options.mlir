// RUN: tqc-opt %s -tq-plan-launch="block-n=24" -verify-diagnostics
// RUN: not tqc-opt %s -tq-plan-launch="extend-block-n=136" 2>&1 | FileCheck %s --check-prefix=EBN
// RUN: not tqc-opt %s -tq-plan-launch="extend-warps=9" 2>&1 | FileCheck %s --check-prefix=EW
// RUN: not tqc-opt %s -tq-plan-launch="sm-count=-3" 2>&1 | FileCheck %s --check-prefix=SMS
// RUN: not tqc-opt %s -tq-plan-launch="stages=9" 2>&1 | FileCheck %s --check-prefix=STG

// expected-error @+1 {{block-n 24 is not supported; accepted: a multiple of 16 in 16..256}}
module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
}

// EBN: extend-block-n 136 is not supported; accepted: a multiple of 16 in 16..128
// EW: extend-warps 9 is out of range; accepted: 1..8
// SMS: sm-count -3 is out of range; accepted: 1..4096 (0: the arch's usual count)
// STG: stages 9 is out of range; accepted: 1..8
