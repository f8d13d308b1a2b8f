// DEFINE: %{cpu_kernels} = ag-verify-capture,ag-autodiff,ag-pack-params,ag-insert-clip-scale,ag-insert-index-checks,ag-split-update,canonicalize,cse,ag-pack-io,ag-form-dispatch-regions,ag-configure-kernels,ag-plan-buffers,ag-lower-to-gpu{target=cpu},canonicalize,cse,ag-bound-kernel-loops,ag-insert-barriers,ag-kernels-to-cpu,ag-cpu-kernels-to-llvm
// RUN: capture-opt %S/../../examples/ppo_train.mlir --pass-pipeline="builtin.module(%{cpu_kernels})" | FileCheck %s --check-prefix=PPO
// RUN: capture-opt %S/../../examples/mlp_train.mlir --pass-pipeline="builtin.module(%{cpu_kernels})" | FileCheck %s --check-prefix=MLP

// Every kernel of the PPO and MLP training steps, lowered for the cpu
// target (its subgroup reductions, workgroup memory, barriers, exp and log,
// check_indices included), becomes a host function that
// ag-cpu-kernels-to-llvm takes to the LLVM dialect whole: nothing but llvm
// ops is left in the host module, no intrinsic that codegen would turn
// into a libm call, no declaration of an outside function; one exported
// entry point per kernel.

// PPO-LABEL: module @__ag_cpu_kernels
// PPO-COUNT-13: llvm.func @capture_k_
// PPO-NOT: {{[ (](arith|scf|memref|math|vector|func|gpu|cf|ag|builtin)\.|llvm\.intr\.(exp|log)|sym_visibility}}

// MLP-LABEL: module @__ag_cpu_kernels
// MLP: llvm.func internal @check_indices_0(
// MLP-COUNT-16: llvm.func @capture_k_
// MLP-NOT: {{[ (](arith|scf|memref|math|vector|func|gpu|cf|ag|builtin)\.|llvm\.intr\.(exp|log)|sym_visibility}}
