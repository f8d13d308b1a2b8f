//===- Schedule.cpp - The typed contract of a lowered schedule ------------===//

#include "capture/Conversion/AgToGPU/Schedule.h"

#include "capture/Conversion/Passes.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace capture;

FailureOr<SmallVector<LaunchBinding>>
capture::getLaunchBindings(gpu::LaunchFuncOp launch) {
  auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
      launch, launch.getKernel());
  if (!kernel)
    return launch.emitOpError()
           << "launches " << launch.getKernel() << ", which is not a gpu.func";
  size_t count = launch.getNumKernelOperands();
  SmallVector<bool> written(count, false);
  if (auto list = kernel->getAttrOfType<DenseI32ArrayAttr>(kKernelWritesAttr)) {
    for (int32_t w : list.asArrayRef()) {
      if (w < 0 || static_cast<size_t>(w) >= count)
        return kernel.emitOpError()
               << "writes argument #" << w << " ('" << kKernelWritesAttr
               << "'), but it is launched with " << count << " arguments";
      written[w] = true;
    }
  } else if (count > 0) {
    written.back() = true;
  }
  SmallVector<LaunchBinding> bindings;
  for (auto [i, value] : llvm::enumerate(launch.getKernelOperands())) {
    auto binding = value.getDefiningOp<ag::BindingOp>();
    if (!binding)
      return launch.emitOpError()
             << "kernel argument #" << i
             << " is not an ag.binding (a typed range of a buffer): expected "
                "a schedule of ag-lower-to-gpu";
    bindings.push_back({binding, written[i]});
  }
  return bindings;
}
