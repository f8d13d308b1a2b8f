// Errors name what was expected and what was found, and exit 1.
// RUN: not capture-interp %s 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: capture-interp: error: the module has 2 entries (@f, @host); pick one with --entry

// RUN: not capture-interp %s --entry nope 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not capture-interp %s --entry hots 2>&1 | FileCheck %s --check-prefix=NEAR
// UNKNOWN: error: unknown entry @nope; the module's entries are @f (ag.forward), @host (ag.forward)
// A near spelling is suggested, never substituted; a one-letter name is
// not "corrected" into another (EXTRA, PARAM below).
// NEAR: error: unknown entry @hots (did you mean 'host'?); the module's entries are
// NEARINPUT: error: unknown input 'X' (did you mean 'x'?) for entry @f

// RUN: not capture-interp %s --entry f 2>&1 | FileCheck %s --check-prefix=MISSING

// RUN: not capture-interp %s --entry f --input x 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: capture-interp: error: --input expects name=file.npy, got 'x'

// RUN: not capture-interp %s --entry f --input x=%t.missing.npy 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: capture-interp: error: input 'x': cannot open '{{.*}}missing.npy'

// RUN: rm -rf %t && capture-interp %s --entry f --make-inputs %t
// RUN: not capture-interp %s --entry f --input x=%t/x.npy --input y=%t/x.npy 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not capture-interp %s --entry f --input X=%t/x.npy 2>&1 | FileCheck %s --check-prefix=NEARINPUT
// EXTRA: error: unknown input 'y' for entry @f; its inputs are 'x'
// RUN: not capture-interp %s --entry f --input x=%t/x.npy --param v=%t/x.npy 2>&1 | FileCheck %s --check-prefix=PARAM
// PARAM: error: unknown weight override 'v'; the module's weights are @w

// RUN: not capture-interp %s --entry host 2>&1 | FileCheck %s --check-prefix=HOST

// RUN: not capture-interp %s --entry f --seed 3 2>&1 | FileCheck %s --check-prefix=SEED
// SEED: capture-interp: error: --seed only applies to --make-inputs

ag.weight @w : tensor<3xf32>

// MISSING: errors.mlir:[[@LINE+1]]:1: error: missing input 'x' (shape [2, 3]) of entry @f
ag.forward @f(%x: tensor<2x3xf32> {ag.name = "x"}) -> (tensor<2x3xf32> {ag.name = "y"}) {
  ag.return %x : tensor<2x3xf32>
}

ag.forward @host() -> (tensor<2xf32> {ag.name = "y"}) {
  // HOST: errors.mlir:[[@LINE+1]]:8: error: run ag-verify-capture: the trace contains an upload of host data ('ag.upload' not marked constant)
  %u = ag.upload : tensor<2xf32>
  ag.return %u : tensor<2xf32>
}
