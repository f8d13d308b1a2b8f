//===- KernelBuilder.cpp - gpu.func kernels for ag compute ops ------------===//
//
// Kernels are deliberately simple (one output element per loop iteration,
// no workgroup memory): correctness first; fusion and tiling come later.
//
//===----------------------------------------------------------------------===//

#include "capture/Conversion/AgToGPU/KernelBuilder.h"

#include "capture/Dialect/Ag/IR/AgOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace capture;
using namespace capture::ag;

/// Emits `value` for one element; gets the loaded operands.
using ScalarFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

KernelBuilder::KernelBuilder(ModuleOp module, unsigned workgroupSize)
    : module(module), workgroupSize(workgroupSize) {}

int64_t KernelBuilder::groupsFor(int64_t elements) const {
  // Vulkan guarantees 65535 groups per dimension; the grid-stride loop
  // covers the rest.
  int64_t groups = (elements + workgroupSize - 1) / workgroupSize;
  return std::clamp<int64_t>(groups, 1, 65535);
}

bool KernelBuilder::isCompute(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, NegOp, ExpOp, LogOp, TanhOp, SigmoidOp,
             ReluOp, SqrtOp, SquareOp, MatmulOp, SumOp, MeanOp>(op);
}

static MemRefType memrefOf(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

static Value indexConst(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Splits linear index `linear` into the indices of row-major `shape`.
static SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                      ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    Value index = linear;
    if (stride != 1)
      index = arith::DivUIOp::create(b, loc, index, indexConst(b, loc, stride));
    if (d != 0)
      index =
          arith::RemUIOp::create(b, loc, index, indexConst(b, loc, shape[d]));
    indices[d] = index;
    stride *= shape[d];
  }
  return indices;
}

/// Indices into an operand of `shape` broadcast to the result's `indices`.
static SmallVector<Value> broadcastIndices(OpBuilder &b, Location loc,
                                           ValueRange indices,
                                           ArrayRef<int64_t> shape) {
  SmallVector<Value> result;
  size_t skip = indices.size() - shape.size();
  for (auto [d, dim] : llvm::enumerate(shape))
    result.push_back(dim == 1 ? indexConst(b, loc, 0) : indices[skip + d]);
  return result;
}

/// The scalar computation of a unary or binary elementwise op.
static Value emitScalar(Operation *op, OpBuilder &b, Location loc,
                        ValueRange args) {
  Type f32 = b.getF32Type();
  auto cst = [&](double v) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, v));
  };
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](AddOp) {
        return arith::AddFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](SubOp) {
        return arith::SubFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](MulOp) {
        return arith::MulFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](DivOp) {
        return arith::DivFOp::create(b, loc, args[0], args[1]);
      })
      .Case([&](NegOp) { return arith::NegFOp::create(b, loc, args[0]); })
      .Case([&](ExpOp) { return math::ExpOp::create(b, loc, args[0]); })
      .Case([&](LogOp) { return math::LogOp::create(b, loc, args[0]); })
      .Case([&](SqrtOp) { return math::SqrtOp::create(b, loc, args[0]); })
      .Case([&](SquareOp) {
        return arith::MulFOp::create(b, loc, args[0], args[0]);
      })
      .Case([&](ReluOp) {
        // maximumf propagates NaN, as torch.relu does.
        return arith::MaximumFOp::create(b, loc, args[0], cst(0.0));
      })
      .Case([&](SigmoidOp) {
        Value e =
            math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, args[0]));
        return arith::DivFOp::create(
            b, loc, cst(1.0), arith::AddFOp::create(b, loc, cst(1.0), e));
      })
      .Case([&](TanhOp) {
        // tanh(x) = sign(x) * (1 - 2 / (exp(2|x|) + 1)): stays finite for
        // large |x|, where the textbook (e^2x - 1) / (e^2x + 1) gives NaN.
        Value ax = math::AbsFOp::create(b, loc, args[0]);
        Value e = math::ExpOp::create(
            b, loc, arith::MulFOp::create(b, loc, ax, cst(2.0)));
        Value t = arith::SubFOp::create(
            b, loc, cst(1.0),
            arith::DivFOp::create(b, loc, cst(2.0),
                                  arith::AddFOp::create(b, loc, e, cst(1.0))));
        return math::CopySignOp::create(b, loc, t, args[0]);
      })
      .Default([](Operation *) { return Value(); });
}

gpu::GPUFuncOp KernelBuilder::createKernel(
    StringRef stem, TypeRange argTypes, int64_t outputElements,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> emitElement) {
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  std::string name = (stem + "_" + Twine(nextId++)).str();

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto gpuModule = gpu::GPUModuleOp::create(b, loc, name);
  b.setInsertionPointToStart(gpuModule.getBody());
  auto func = gpu::GPUFuncOp::create(b, loc, name,
                                     FunctionType::get(ctx, argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func->setAttr(spirv::getEntryPointABIAttrName(),
                spirv::getEntryPointABIAttr(
                    ctx, {static_cast<int32_t>(workgroupSize), 1, 1}));

  b.setInsertionPointToStart(&func.getBody().front());
  Value wg = indexConst(b, loc, workgroupSize);
  Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value grid = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
  Value start = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, wg), thread);
  Value step = arith::MulIOp::create(b, loc, grid, wg);
  Value end = indexConst(b, loc, outputElements);
  ValueRange args = func.getArguments();
  scf::ForOp::create(b, loc, start, end, step, ValueRange(),
                     [&](OpBuilder &nb, Location nloc, Value i, ValueRange) {
                       emitElement(nb, nloc, i, args);
                       scf::YieldOp::create(nb, nloc);
                     });
  gpu::ReturnOp::create(b, loc);
  return func;
}

/// A key identifying kernels that compute the same thing.
static std::string kernelKey(Operation *op) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op->getName() << op->getAttrDictionary();
  for (Type t : op->getOperandTypes())
    os << ',' << t;
  for (Type t : op->getResultTypes())
    os << "->" << t;
  return key;
}

/// Emits the reduction of one output element of a sum or mean.
static void emitReduction(OpBuilder &b, Location loc, Value linear,
                          ValueRange args, RankedTensorType input,
                          RankedTensorType result, std::optional<int64_t> axis,
                          bool mean) {
  Type f32 = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(f32, 0.0));
  int64_t count = axis ? input.getDimSize(*axis) : input.getNumElements();
  SmallVector<Value> outIdx = delinearize(b, loc, linear, result.getShape());
  // The output's indices without the kept unit dimension.
  SmallVector<Value> kept;
  if (axis) {
    for (int64_t d = 0, r = input.getRank(); d < r; ++d) {
      if (d == *axis)
        continue;
      int64_t outDim = result.getRank() == r ? d : (d < *axis ? d : d - 1);
      kept.push_back(outIdx[outDim]);
    }
  }
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 0), indexConst(b, loc, count),
      indexConst(b, loc, 1), ValueRange{zero},
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange acc) {
        SmallVector<Value> inIdx;
        if (axis) {
          inIdx = kept;
          inIdx.insert(inIdx.begin() + *axis, j);
        } else {
          inIdx = delinearize(nb, nloc, j, input.getShape());
        }
        Value x = memref::LoadOp::create(nb, nloc, args[0], inIdx);
        scf::YieldOp::create(
            nb, nloc, ValueRange{arith::AddFOp::create(nb, nloc, acc[0], x)});
      });
  Value sum = loop.getResult(0);
  if (mean)
    sum = arith::DivFOp::create(
        b, loc, sum,
        arith::ConstantOp::create(
            b, loc, b.getFloatAttr(f32, static_cast<double>(count))));
  memref::StoreOp::create(b, loc, sum, args[1], outIdx);
}

FailureOr<gpu::GPUFuncOp> KernelBuilder::getOrCreate(Operation *op) {
  if (!isCompute(op))
    return op->emitOpError() << "has no GPU kernel";
  std::string key = kernelKey(op);
  if (auto it = cache.find(key); it != cache.end())
    return it->second;

  SmallVector<Type> argTypes;
  for (Type t : op->getOperandTypes())
    argTypes.push_back(memrefOf(t));
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  argTypes.push_back(memrefOf(resultType));
  int64_t elements = resultType.getNumElements();
  StringRef stem = op->getName().stripDialect();
  gpu::GPUFuncOp func;

  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    auto lhs = cast<RankedTensorType>(matmul.getLhs().getType());
    bool ta = matmul.getTransposeA(), tb = matmul.getTransposeB();
    int64_t k = lhs.getDimSize(ta ? 0 : 1);
    func = createKernel(
        stem, argTypes, elements,
        [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
          SmallVector<Value> mn = delinearize(b, loc, i, resultType.getShape());
          Value zero =
              arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
          auto loop = scf::ForOp::create(
              b, loc, indexConst(b, loc, 0), indexConst(b, loc, k),
              indexConst(b, loc, 1), ValueRange{zero},
              [&](OpBuilder &nb, Location nloc, Value kk, ValueRange acc) {
                Value a = memref::LoadOp::create(nb, nloc, args[0],
                                                 ta ? ValueRange{kk, mn[0]}
                                                    : ValueRange{mn[0], kk});
                Value bv = memref::LoadOp::create(nb, nloc, args[1],
                                                  tb ? ValueRange{mn[1], kk}
                                                     : ValueRange{kk, mn[1]});
                Value prod = arith::MulFOp::create(nb, nloc, a, bv);
                scf::YieldOp::create(
                    nb, nloc,
                    ValueRange{arith::AddFOp::create(nb, nloc, acc[0], prod)});
              });
          memref::StoreOp::create(b, loc, loop.getResult(0), args[2], mn);
        });
  } else if (isa<SumOp, MeanOp>(op)) {
    auto input = cast<RankedTensorType>(op->getOperand(0).getType());
    std::optional<int64_t> axis = isa<SumOp>(op)
                                      ? cast<SumOp>(op).getNormalizedAxis()
                                      : cast<MeanOp>(op).getNormalizedAxis();
    bool mean = isa<MeanOp>(op);
    func = createKernel(
        stem, argTypes, elements,
        [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
          emitReduction(b, loc, i, args, input, resultType, axis, mean);
        });
  } else {
    // Elementwise, unary or binary with broadcasting.
    func =
        createKernel(stem, argTypes, elements,
                     [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
                       SmallVector<Value> idx =
                           delinearize(b, loc, i, resultType.getShape());
                       SmallVector<Value> loaded;
                       for (Value operand : op->getOperands()) {
                         auto type = cast<RankedTensorType>(operand.getType());
                         loaded.push_back(memref::LoadOp::create(
                             b, loc, args[loaded.size()],
                             broadcastIndices(b, loc, idx, type.getShape())));
                       }
                       Value value = emitScalar(op, b, loc, loaded);
                       memref::StoreOp::create(b, loc, value, args.back(), idx);
                     });
  }
  cache[key] = func;
  return func;
}

gpu::GPUFuncOp KernelBuilder::getOrCreateCopy(RankedTensorType type) {
  std::string key;
  llvm::raw_string_ostream(key) << "copy:" << type;
  if (auto it = cache.find(key); it != cache.end())
    return it->second;
  MemRefType memref = memrefOf(type);
  gpu::GPUFuncOp func =
      createKernel("copy", {memref, memref}, type.getNumElements(),
                   [&](OpBuilder &b, Location loc, Value i, ValueRange args) {
                     SmallVector<Value> idx =
                         delinearize(b, loc, i, type.getShape());
                     Value v = memref::LoadOp::create(b, loc, args[0], idx);
                     memref::StoreOp::create(b, loc, v, args[1], idx);
                   });
  cache[key] = func;
  return func;
}
