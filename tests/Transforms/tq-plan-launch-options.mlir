// RUN: tqc-opt %s -tq-plan-launch="block-n=24" -verify-diagnostics

// expected-error @+1 {{block-n 24 is not supported; accepted: a multiple of 16 in 16..256}}
module attributes {tq.spec = {num_q_heads = 32 : i64, num_kv_heads = 8 : i64}} {
}

