// tq-assign-layout: the layout follows from the fields the store writes.
// RUN: tqc-opt %s -split-input-file -tq-expand-preset -tq-assign-layout | FileCheck %s

// k3v4 at D=128: 48 B of 3-bit key codes, 64 B of 4-bit value codes, three
// fp16 scalars = 118 B per token-head (FORMATS.md), each plane 16-B aligned.
// CHECK-LABEL: module attributes
// CHECK-SAME: tq.layout = #tq.layout<kind = native, block_size = 16, num_kv_heads = 8, region_bytes = 1888, head_stride = 1888, block_stride = 15104, bytes_per_token_head = 118, alignment = 16, fields = [
// CHECK-SAME: #tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 48>,
// CHECK-SAME: #tq.field<kind = value_codes, dtype = u8, bytes = 64, offset = 768, token_stride = 64>,
// CHECK-SAME: #tq.field<kind = key_scale, dtype = f16, bytes = 2, offset = 1792, token_stride = 2>,
// CHECK-SAME: #tq.field<kind = value_scale, dtype = f16, bytes = 2, offset = 1824, token_stride = 2>,
// CHECK-SAME: #tq.field<kind = value_zero, dtype = f16, bytes = 2, offset = 1856, token_stride = 2>]>
tq.spec "k3v4"

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 196
// CHECK-SAME: #tq.field<kind = key_codes, dtype = fp8_e4m3, bytes = 128, offset = 0, token_stride = 128>
tq.spec "k8v4"

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 134
tq.spec "k4v4"

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 102
tq.spec "k3v3"

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 100
tq.spec "k4v2"

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 68
tq.spec "k2v2"

// -----

// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 512
// CHECK-SAME: #tq.field<kind = key_codes, dtype = bf16, bytes = 256, offset = 0, token_stride = 256>
tq.spec "bf16"

// -----

// D=64, 8-token pages: k3v4 planes stay 16-byte aligned (24 B x 8 = 192).
// CHECK-LABEL: module attributes
// CHECK-SAME: block_size = 8, num_kv_heads = 2, region_bytes = 496, head_stride = 496, block_stride = 992, bytes_per_token_head = 62
// CHECK-SAME: #tq.field<kind = value_codes, dtype = u8, bytes = 32, offset = 192, token_stride = 32>
tq.spec "k3v4" {head_dim = 64 : i64, block_size = 8 : i64, num_q_heads = 8 : i64, num_kv_heads = 2 : i64}

// -----

// QJL adds a 1-bit sign plane and the residual norm.
// CHECK-LABEL: module attributes
// CHECK-SAME: bytes_per_token_head = 120
// CHECK-SAME: #tq.field<kind = key_codes, dtype = u8, bytes = 32, offset = 0, token_stride = 32>
// CHECK-SAME: #tq.field<kind = key_signs, dtype = u8, bytes = 16, offset = 512, token_stride = 16>
// CHECK-SAME: #tq.field<kind = key_gamma, dtype = f16, bytes = 2
tq.spec "k3v4" {qjl}

// -----

// vLLM's slot: key indices, key norm, value codes, scale, zero, packed.
// CHECK-LABEL: module attributes
// CHECK-SAME: tq.layout = #tq.layout<kind = vllm, block_size = 16, num_kv_heads = 8, region_bytes = 118, head_stride = 118, block_stride = 15104, bytes_per_token_head = 118, alignment = 2, fields = [
// CHECK-SAME: #tq.field<kind = key_codes, dtype = u8, bytes = 48, offset = 0, token_stride = 944>,
// CHECK-SAME: #tq.field<kind = key_scale, dtype = f16, bytes = 2, offset = 48, token_stride = 944>,
// CHECK-SAME: #tq.field<kind = value_codes, dtype = u8, bytes = 64, offset = 50, token_stride = 944>,
// CHECK-SAME: #tq.field<kind = value_scale, dtype = f16, bytes = 2, offset = 114, token_stride = 944>,
// CHECK-SAME: #tq.field<kind = value_zero, dtype = f16, bytes = 2, offset = 116, token_stride = 944>]>
tq.spec "k3v4" {layout = "vllm"}
