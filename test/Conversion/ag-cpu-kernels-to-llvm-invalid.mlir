// RUN: capture-opt %s -split-input-file -ag-cpu-kernels-to-llvm -verify-diagnostics

// The entry points pass bindings as bare pointers, then the group id and
// count: a function with another signature cannot be called through them.
module {
  module @__ag_cpu_kernels {
    // expected-error @+1 {{'func.func' op in __ag_cpu_kernels must take static identity-layout memrefs, then the group id and count (index), and return nothing (as ag-kernels-to-cpu makes them), got '(memref<?xf32>, index, index) -> ()'}}
    func.func @dynamic(%x: memref<?xf32>, %g: index, %n: index) {
      return
    }
  }
}

// -----

module {
  module @__ag_cpu_kernels {
    // expected-error @+1 {{'func.func' op in __ag_cpu_kernels must take static identity-layout memrefs, then the group id and count (index), and return nothing (as ag-kernels-to-cpu makes them), got '(memref<4xf32>) -> ()'}}
    func.func @no_group(%x: memref<4xf32>) {
      return
    }
  }
}

// -----

module {
  module @__ag_cpu_kernels {
    // expected-error @+1 {{'func.func' op in __ag_cpu_kernels must take static identity-layout memrefs, then the group id and count (index), and return nothing (as ag-kernels-to-cpu makes them), got '(memref<4xf32>, index, index) -> f32'}}
    func.func @result(%x: memref<4xf32>, %g: index, %n: index) -> f32 {
      %c = arith.constant 0.0 : f32
      return %c : f32
    }
  }
}

// -----

module {
  module @__ag_cpu_kernels {
    // expected-error @+1 {{'func.func' op in __ag_cpu_kernels must take static identity-layout memrefs, then the group id and count (index), and return nothing (as ag-kernels-to-cpu makes them), got '(memref<4x4xf32, strided<[8, 1]>>, index, index) -> ()'}}
    func.func @strided(%x: memref<4x4xf32, strided<[8, 1]>>, %g: index, %n: index) {
      return
    }
  }
}
