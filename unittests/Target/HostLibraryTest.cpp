//===- HostLibraryTest.cpp - The cpu target's kernels as a shared object --===//
//
// capture::buildHostLibrary links the host kernels into a shared object that
// the runtime's loader (rt::HostCode: memfd + dlopen) loads and runs
// through the entry points, exporting nothing else and needing nothing (no
// libc, no libm); code that calls outside itself is refused at link time
// with the linker's message.
//
//===----------------------------------------------------------------------===//

#include "capture/Target/HostLibrary.h"
#include "capture/Conversion/Passes.h"
#include "capture/InitAll.h"
#include "capture/rt/host_code.h"
#include "capture/rt/host_isa.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <cmath>

#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Two workgroups of four invocations: e[i] = exp(in[i]) * (group + 1).
constexpr const char *kKernel = R"mlir(
module attributes {ag.target = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>, gpu.container_module} {
  gpu.module @scaled_exp {
    gpu.func @scaled_exp(%in: memref<8xf32>, %e: memref<8xf32>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %c1 = arith.constant 1 : index
      %block = gpu.block_id x
      %size = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %block, %size : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<8xf32>
      %ev = math.exp %v : f32
      %g1 = arith.addi %block, %c1 : index
      %gi = arith.index_cast %g1 : index to i32
      %gf = arith.sitofp %gi : i32 to f32
      %s = arith.mulf %ev, %gf : f32
      memref.store %s, %e[%i] : memref<8xf32>
      gpu.return
    }
  }
}
)mlir";

class HostLibraryTest : public ::testing::Test {
protected:
  HostLibraryTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    capture::registerAllDialects(registry);
    context = std::make_unique<MLIRContext>(registry);
  }

  /// The host module of `source` after ag-kernels-to-cpu (unless
  /// `alreadyHost`) and ag-cpu-kernels-to-llvm.
  ModuleOp hostOf(const char *source, bool alreadyHost = false) {
    module = parseSourceString<ModuleOp>(source, context.get());
    EXPECT_TRUE(module);
    if (!module)
      return nullptr;
    PassManager pm(context.get());
    if (!alreadyHost)
      pm.addPass(capture::createKernelsToCPU());
    pm.addPass(capture::createCPUKernelsToLLVM());
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return SymbolTable(*module).lookup<ModuleOp>(capture::kCPUKernelsModule);
  }

  std::unique_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(HostLibraryTest, LoadsFromMemoryAndRunsThroughItsEntryPoint) {
  ModuleOp host = hostOf(kKernel);
  ASSERT_TRUE(host);
  FailureOr<capture::HostLibrary> library = capture::buildHostLibrary(host);
  ASSERT_TRUE(succeeded(library));
  EXPECT_EQ(library->triple, "x86_64-unknown-linux-gnu");
  EXPECT_EQ(library->cpuLevel, "x86-64-v3");
  ASSERT_GT(library->bytes.size(), 4u);
  EXPECT_EQ(std::string(library->bytes.begin(), library->bytes.begin() + 4),
            "\x7f"
            "ELF");
  if (capture::rt::checkHostIsa(library->cpuLevel).isError())
    GTEST_SKIP() << capture::rt::checkHostIsa(library->cpuLevel).message();

  // Loaded by the runtime's loader, as a module's host code will be.
  capture::rt::Result<capture::rt::HostCode> code =
      capture::rt::HostCode::load(library->bytes, library->cpuLevel);
  ASSERT_TRUE(code.isOk()) << code.message();
  auto entry = code.value().entry("scaled_exp");
  ASSERT_TRUE(entry.isOk()) << entry.message();

  std::vector<float> in = {-3, -1, 0, 0.5f, 1, 2, 4, 8};
  std::vector<float> e(8, -1.0f);
  void *bindings[] = {in.data(), e.data()};
  for (int64_t group = 0; group < 2; ++group)
    entry.value()(bindings, group, 2);
  for (int i = 0; i < 8; ++i) {
    float want = std::exp(in[i]) * static_cast<float>(i / 4 + 1);
    EXPECT_NEAR(e[i], want, 2e-7 * want) << i;
  }
}

/// A kernel that calls a library function (here libm's expf, as an
/// unapproximated math op would after codegen).
constexpr const char *kCallsLibm = R"mlir(
module {
  module @__ag_cpu_kernels {
    llvm.func @expf(f32) -> f32
    func.func @k(%x: memref<4xf32>, %g: index, %n: index) {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0] : memref<4xf32>
      %e = llvm.call @expf(%v) : (f32) -> f32
      memref.store %e, %x[%c0] : memref<4xf32>
      return
    }
  }
}
)mlir";

TEST_F(HostLibraryTest, CodeThatCallsOutsideItselfIsRefusedAtLink) {
  std::string diagnostics;
  ScopedDiagnosticHandler capture(context.get(), [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  ModuleOp host = hostOf(kCallsLibm, /*alreadyHost=*/true);
  ASSERT_TRUE(host);
  EXPECT_TRUE(failed(capture::buildHostLibrary(host)));
  EXPECT_NE(diagnostics.find("linking the host kernels failed"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("undefined symbol: expf"), std::string::npos)
      << diagnostics;
}

} // namespace
