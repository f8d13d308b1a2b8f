// RUN: capture-aot --help | FileCheck %s --implicit-check-not=amdgpu --implicit-check-not='{{^ +--mlir-}}'
// RUN: capture-aot --help-hidden | FileCheck %s --check-prefix=HIDDEN --implicit-check-not=amdgpu

// --help lists capture-aot's own options, not those of the LLVM backends
// that MLIR's libraries link in; MLIR's --mlir-* debugging options stay
// usable and --help-hidden lists them.

// CHECK: --help-hidden
// CHECK-LABEL: capture-aot options:
// CHECK: --dump-spirv=<dir>
// CHECK: --min-matmul-workgroups=<uint>
// CHECK: -o <file>
// CHECK: --print-module
// CHECK: --target=<string>

// HIDDEN: {{^ +}}--mlir-print-ir-after-all {{ *}}-
// HIDDEN: {{^ +}}--mlir-timing {{ *}}-
