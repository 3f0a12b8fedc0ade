// A truncated tq.spec: the parser must reject it with one line.
tq.spec "k3v4" {head_dim =
