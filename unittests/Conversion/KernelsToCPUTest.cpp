//===- KernelsToCPUTest.cpp - ag-kernels-to-cpu's functions, run ----------===//
//
// The host functions of ag-kernels-to-cpu, lowered by upstream's conversions
// and run by MLIR's JIT, compute what their kernels compute on a device:
// barriers order the invocations of a workgroup (workgroup memory written
// before one is read after it by another invocation), values crossing a
// barrier keep each invocation's own, and real kernels of the lowering
// (a workgroup region, a tiled matmul over several workgroups) give their
// ops' results.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/Passes.h"
#include "capture/InitAll.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

using namespace mlir;

namespace {

/// The host functions of a module (after a pipeline ending with
/// ag-kernels-to-cpu, passes of the module without an anchor), lowered by
/// ag-cpu-kernels-to-llvm and JIT-compiled.
class HostKernels {
public:
  /// Parses `source`, runs `pipeline` and JITs the host functions (fatal
  /// failures on any error: call through ASSERT_NO_FATAL_FAILURE).
  void build(const char *source, StringRef pipeline) {
    static bool once = [] {
      llvm::InitializeNativeTarget();
      llvm::InitializeNativeTargetAsmPrinter();
      registerAllPasses();
      capture::registerAllPasses();
      return true;
    }();
    (void)once;
    DialectRegistry registry;
    registerAllDialects(registry);
    capture::registerAllDialects(registry);
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    context = std::make_unique<MLIRContext>(registry);
    module = parseSourceString<ModuleOp>(source, context.get());
    ASSERT_TRUE(module);
    PassManager pm(context.get());
    ASSERT_TRUE(succeeded(parsePassPipeline(pipeline, pm)));
    ASSERT_TRUE(succeeded(pm.run(*module)));

    PassManager lower(context.get());
    lower.addPass(capture::createCPUKernelsToLLVM());
    ASSERT_TRUE(succeeded(lower.run(*module)));
    SymbolTable symbols(*module);
    auto host = symbols.lookup<ModuleOp>(capture::kCPUKernelsModule);
    ASSERT_TRUE(host);
    hostModule = OwningOpRef<ModuleOp>(host.clone());
    (*hostModule)->removeAttr(SymbolTable::getSymbolAttrName());
    auto created = ExecutionEngine::create(*hostModule);
    ASSERT_TRUE(bool(created)) << llvm::toString(created.takeError());
    engine = std::move(*created);
  }

  /// The name of the only kernel of the module's gpu.modules.
  std::string onlyKernel() {
    std::vector<std::string> names;
    module->walk([&](gpu::GPUFuncOp f) { names.push_back(f.getName().str()); });
    EXPECT_EQ(names.size(), 1u);
    return names.empty() ? "" : names.front();
  }

  /// The workgroups the schedule's only launch of `kernel` runs.
  int64_t groupsOf(StringRef kernel) {
    int64_t groups = 0;
    module->walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelName() != kernel)
        return;
      auto x = launch.getGridSizeX().getDefiningOp<arith::ConstantIndexOp>();
      EXPECT_TRUE(x);
      groups = x ? x.value() : 0;
    });
    return groups;
  }

  /// Runs every workgroup of `kernel`, one after another, on `buffers`,
  /// through its entry point (the runtime's calling convention).
  void run(StringRef kernel, std::vector<void *> buffers, int64_t groups) {
    auto symbol = engine->lookup((capture::kCPUEntryPrefix + kernel).str());
    ASSERT_TRUE(bool(symbol)) << llvm::toString(symbol.takeError());
    auto entry =
        reinterpret_cast<void (*)(void *const *, int64_t, int64_t)>(*symbol);
    for (int64_t group = 0; group < groups; ++group)
      entry(buffers.data(), group, groups);
  }

private:
  std::unique_ptr<MLIRContext> context;

public:
  /// The module after `pipeline`.
  OwningOpRef<ModuleOp> module;

private:
  OwningOpRef<ModuleOp> hostModule;
  std::unique_ptr<ExecutionEngine> engine;
};

/// Two workgroups of four invocations: each stores its element in workgroup
/// memory, and after the barrier invocation 0 adds the four (starting from
/// its own element, kept across the barrier) while every invocation writes
/// its global index (recomputed after the barrier).
constexpr const char *kSum = R"mlir(
module attributes {ag.target = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>, gpu.container_module} {
  gpu.module @sum {
    gpu.func @sum(%in: memref<8xf32>, %out: memref<2xf32>, %idx: memref<8xindex>) kernel attributes {known_block_size = array<i32: 4, 1, 1>} {
      %c4 = arith.constant 4 : index
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %block = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %block, %c4 : index
      %i = arith.addi %base, %tid : index
      %v = memref.load %in[%i] : memref<8xf32>
      %own = gpu.subgroup_reduce add %v : (f32) -> f32
      %sg = gpu.subgroup_id : index
      %shared = memref.alloc() : memref<4xf32, #spirv.storage_class<Workgroup>>
      memref.store %own, %shared[%sg] : memref<4xf32, #spirv.storage_class<Workgroup>>
      gpu.barrier
      memref.store %i, %idx[%i] : memref<8xindex>
      %first = arith.cmpi eq, %tid, %c0 : index
      scf.if %first {
        %n = gpu.num_subgroups : index
        %t = scf.for %s = %c1 to %n step %c1 iter_args(%acc = %v) -> (f32) {
          %p = memref.load %shared[%s] : memref<4xf32, #spirv.storage_class<Workgroup>>
          %a = arith.addf %acc, %p : f32
          scf.yield %a : f32
        }
        memref.store %t, %out[%block] : memref<2xf32>
      }
      gpu.return
    }
  }
}
)mlir";

TEST(KernelsToCPU, BarrierOrdersTheInvocationsOfAWorkgroup) {
  HostKernels kernels;
  ASSERT_NO_FATAL_FAILURE(kernels.build(kSum, "ag-kernels-to-cpu"));
  std::vector<float> in = {1, 2, 3, 4, 10, 20, 30, 40};
  std::vector<float> out(2, -1.0f);
  std::vector<int64_t> idx(8, -1);
  kernels.run("sum", {in.data(), out.data(), idx.data()}, 2);
  // Without the split, invocation 0 would add workgroup memory that the
  // others had not written yet (-1 + ... or stale values).
  EXPECT_EQ(out[0], 10.0f);
  EXPECT_EQ(out[1], 100.0f);
  for (int64_t i = 0; i < 8; ++i)
    EXPECT_EQ(idx[i], i);
}

/// A workgroup region (its full reductions pass their totals through
/// workgroup memory between barriered stages), from the lowering itself.
constexpr const char *kHead = R"mlir(
ag.forward @head(%z: tensor<10x3xf32> {ag.name = "z"}, %t: tensor<10x3xf32> {ag.name = "t"})
    -> (tensor<f32> {ag.name = "l"}, tensor<f32> {ag.name = "m"}, tensor<10xf32> {ag.name = "rows"}) {
  %l, %m, %r = ag.workgroup_region ins(%z, %t : tensor<10x3xf32>, tensor<10x3xf32>) -> (tensor<f32>, tensor<f32>, tensor<10xf32>) {
  ^bb0(%a: tensor<10x3xf32>, %b: tensor<10x3xf32>):
    %0 = ag.mse %a, %b : (tensor<10x3xf32>, tensor<10x3xf32>) -> tensor<f32>
    %1 = ag.mul %a, %0 : (tensor<10x3xf32>, tensor<f32>) -> tensor<10x3xf32>
    %2 = ag.mean %1 : tensor<10x3xf32> -> tensor<f32>
    %3 = ag.sum %1 axis = 1 : tensor<10x3xf32> -> tensor<10xf32>
    ag.yield %0, %2, %3 : tensor<f32>, tensor<f32>, tensor<10xf32>
  }
  ag.return %l, %m, %r : tensor<f32>, tensor<f32>, tensor<10xf32>
}
)mlir";

constexpr const char *kLowerForCPU =
    "ag-pack-io,ag-form-dispatch-regions,ag-configure-kernels,ag-plan-buffers,"
    "ag-lower-to-gpu{target=cpu},canonicalize,cse,ag-kernels-to-cpu";

TEST(KernelsToCPU, WorkgroupRegionComputesItsOps) {
  HostKernels kernels;
  ASSERT_NO_FATAL_FAILURE(kernels.build(kHead, kLowerForCPU));
  std::string name = kernels.onlyKernel();
  std::vector<float> z(30), t(30);
  for (int i = 0; i < 30; ++i) {
    z[i] = 0.25f * static_cast<float>(i % 7) - 0.5f;
    t[i] = 0.1f * static_cast<float>(i % 5);
  }
  float l = 0, m = 0;
  std::vector<float> rows(10);
  kernels.run(name, {z.data(), t.data(), &l, &m, rows.data()},
              kernels.groupsOf(name));
  double mse = 0;
  for (int i = 0; i < 30; ++i)
    mse += (z[i] - t[i]) * (z[i] - t[i]);
  mse /= 30;
  EXPECT_NEAR(l, mse, 1e-6);
  double mean = 0;
  for (int r = 0; r < 10; ++r) {
    double row = 0;
    for (int c = 0; c < 3; ++c)
      row += z[r * 3 + c] * mse;
    EXPECT_NEAR(rows[r], row, 1e-5) << "row " << r;
    mean += row;
  }
  EXPECT_NEAR(m, mean / 30, 1e-6);
}

/// A matmul kernel of the lowering with its bias fused (vec4 operand views,
/// tiles of 64 invocations, several workgroups): y = x w^T + b.
constexpr const char *kLinear = R"mlir(
ag.forward @linear(%x: tensor<75x20xf32> {ag.name = "x"}, %w: tensor<60x20xf32> {ag.name = "w"}, %b: tensor<60xf32> {ag.name = "b"})
    -> (tensor<75x60xf32> {ag.name = "y"}) {
  %m = ag.matmul %x, %w {transpose_b} : (tensor<75x20xf32>, tensor<60x20xf32>) -> tensor<75x60xf32>
  %y = ag.add %m, %b : (tensor<75x60xf32>, tensor<60xf32>) -> tensor<75x60xf32>
  ag.return %y : tensor<75x60xf32>
}
)mlir";

TEST(KernelsToCPU, MatmulOverSeveralWorkgroups) {
  HostKernels kernels;
  ASSERT_NO_FATAL_FAILURE(kernels.build(kLinear, kLowerForCPU));
  std::string name = kernels.onlyKernel();
  int64_t groups = kernels.groupsOf(name);
  EXPECT_GT(groups, 1);
  std::vector<float> x(75 * 20), w(60 * 20), b(60), y(75 * 60, NAN);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(static_cast<int>(i * 7 % 11) - 5) / 8.0f;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(static_cast<int>(i * 5 % 13) - 6) / 16.0f;
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(i) / 4.0f;
  kernels.run(name, {x.data(), w.data(), b.data(), y.data()}, groups);
  for (int r = 0; r < 75; ++r)
    for (int c = 0; c < 60; ++c) {
      double want = b[c];
      for (int k = 0; k < 20; ++k)
        want += static_cast<double>(x[r * 20 + k]) * w[c * 20 + k];
      ASSERT_NEAR(y[r * 60 + c], want, 1e-5) << "y[" << r << "][" << c << "]";
    }
}

/// exp and log of 1024 floats, and exp of 256 vec4s (the elementwise
/// template's form), with one invocation per element.
constexpr const char *kMath = R"mlir(
module attributes {ag.target = #ag.target<read_path = ssbo, subgroup_size = 1, max_texel_elements = 65536, max_loop_iterations = 0>, gpu.container_module} {
  gpu.module @math {
    gpu.func @math(%in: memref<1024xf32>, %pos: memref<1024xf32>, %vin: memref<256xvector<4xf32>>, %e: memref<1024xf32>, %l: memref<1024xf32>, %ve: memref<256xvector<4xf32>>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c64 = arith.constant 64 : index
      %c256 = arith.constant 256 : index
      %block = gpu.block_id x
      %tid = gpu.thread_id x
      %base = arith.muli %block, %c64 : index
      %i = arith.addi %base, %tid : index
      %x = memref.load %in[%i] : memref<1024xf32>
      %ex = math.exp %x : f32
      memref.store %ex, %e[%i] : memref<1024xf32>
      %p = memref.load %pos[%i] : memref<1024xf32>
      %lp = math.log %p : f32
      memref.store %lp, %l[%i] : memref<1024xf32>
      %j = arith.remui %i, %c256 : index
      %v = memref.load %vin[%j] : memref<256xvector<4xf32>>
      %ev = math.exp %v : vector<4xf32>
      memref.store %ev, %ve[%j] : memref<256xvector<4xf32>>
      gpu.return
    }
  }
}
)mlir";

/// The largest distance in units in the last place between `got` and the
/// float nearest `want`.
static int64_t ulpDistance(float got, double want) {
  auto ordered = [](float f) {
    int32_t bits;
    std::memcpy(&bits, &f, sizeof(bits));
    return bits < 0 ? static_cast<int64_t>(INT32_MIN) - bits
                    : static_cast<int64_t>(bits);
  };
  return std::abs(ordered(got) - ordered(static_cast<float>(want)));
}

TEST(KernelsToCPU, MathWithoutLibmIsWithinTwoUlp) {
  HostKernels kernels;
  ASSERT_NO_FATAL_FAILURE(kernels.build(kMath, "ag-kernels-to-cpu"));
  std::vector<float> in(1024), pos(1024), e(1024), l(1024);
  std::vector<float> vin(1024), ve(1024);
  for (int i = 0; i < 1024; ++i) {
    // exp over [-87, 88] (past it, exp leaves the normal floats), log over
    // 1e-30 .. 1e30.
    in[i] = -87.0f + 175.0f * static_cast<float>(i) / 1023.0f;
    pos[i] = std::pow(10.0f, -30.0f + 60.0f * static_cast<float>(i) / 1023.0f);
    vin[i] = -10.0f + 20.0f * static_cast<float>((i * 37) % 1024) / 1023.0f;
  }
  kernels.run(
      "math",
      {in.data(), pos.data(), vin.data(), e.data(), l.data(), ve.data()}, 16);
  int64_t worstExp = 0, worstLog = 0, worstVec = 0;
  for (int i = 0; i < 1024; ++i) {
    worstExp = std::max(worstExp, ulpDistance(e[i], std::exp(double(in[i]))));
    // log near 1 is near 0: compare there in absolute terms.
    double log = std::log(double(pos[i]));
    if (std::abs(log) > 1e-3)
      worstLog = std::max(worstLog, ulpDistance(l[i], log));
    else
      EXPECT_NEAR(l[i], log, 1e-7);
    worstVec = std::max(worstVec, ulpDistance(ve[i], std::exp(double(vin[i]))));
  }
  EXPECT_LE(worstExp, 2);
  EXPECT_LE(worstLog, 2);
  EXPECT_LE(worstVec, 2);
  std::printf("worst ulp: exp %lld, log %lld, vector exp %lld\n",
              static_cast<long long>(worstExp),
              static_cast<long long>(worstLog),
              static_cast<long long>(worstVec));
}

} // namespace
