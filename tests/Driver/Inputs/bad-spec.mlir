// A spec that parses but cannot be compiled.
tq.spec "k3v4" {head_dim = 96 : i64}
