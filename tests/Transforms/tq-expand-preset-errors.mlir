// tq-expand-preset: a module compiles one recipe.
// RUN: tqc-opt %s -tq-expand-preset -verify-diagnostics

tq.spec "k3v4"
// expected-error @+1 {{'tq.spec' op is the second tq.spec in the module; a module compiles one cache recipe}}
tq.spec "k4v4"
