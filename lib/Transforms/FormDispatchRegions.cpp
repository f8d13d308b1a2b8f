//===- FormDispatchRegions.cpp - One kernel per group of ops --------------===//
//
// A kernel launch on lavapipe costs more than most of the small elementwise
// ops of a training step, and every unfused intermediate is written to and
// read back from memory. Grouping each elementwise chain into one
// ag.dispatch_region makes it one kernel that keeps intermediates in
// registers. The grouping is a decision visible in the IR; the lowering
// only follows it.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace capture {
#define GEN_PASS_DEF_FORMDISPATCHREGIONS
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {
struct FormDispatchRegionsPass
    : public capture::impl::FormDispatchRegionsBase<FormDispatchRegionsPass> {
  using FormDispatchRegionsBase::FormDispatchRegionsBase;
  void runOnOperation() override;
};
} // namespace

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

/// Why `producer` cannot join `group` (whose ops have shape `shape`), or
/// "" when it can. A matmul joins as the head of its epilogue: one per
/// region, of the region's shape, used only inside it.
static std::string whyNotFused(Operation *producer,
                               const llvm::SetVector<Operation *> &group,
                               const DenseSet<Operation *> &taken,
                               ArrayRef<int64_t> shape, bool reduction) {
  bool matmul = isa<MatmulOp>(producer);
  if (isa<SumOp, MeanOp, MaxOp>(producer))
    return ("'" + producer->getName().getStringRef() +
            "' is a reduction: it ends a region of its own")
        .str();
  if (matmul && reduction)
    return "a reduction region takes only elementwise producers";
  if (!isElementwiseOp(producer) && !matmul)
    return ("'" + producer->getName().getStringRef() +
            "' is not elementwise: it runs as a kernel of its own")
        .str();
  if (taken.contains(producer))
    return "it is already in another dispatch region";
  if (matmul && llvm::any_of(group, [](Operation *op) {
        return isa<MatmulOp>(op);
      }))
    return "the region already has a matmul";
  // The matmul template reads its operands from memory.
  for (Operation *user : producer->getUsers())
    if (isa<MatmulOp>(user) && group.contains(user))
      return "it feeds the region's matmul, which reads only region inputs";
  if (matmul && shapeOf(producer->getResult(0)) != shape)
    return "a matmul heads only an epilogue of its own shape " +
           formatShape(shapeOf(producer->getResult(0))) + ", not " +
           formatShape(shape);
  // A single element is as cheap to recompute per output element as to
  // load; anything larger would be recomputed for every broadcast copy.
  auto type = cast<RankedTensorType>(producer->getResult(0).getType());
  if (type.getShape() != shape && type.getNumElements() != 1)
    return "its shape " + formatShape(shapeOf(producer->getResult(0))) +
           " differs from the region's " + formatShape(shape) +
           " (it would be recomputed for every broadcast element)";
  for (Operation *user : producer->getUsers())
    if (!group.contains(user))
      return ("its result is also used by '" + user->getName().getStringRef() +
              "' outside the region")
          .str();
  return "";
}

/// Producers inside `body` of the operands of `group`'s ops that are not
/// in the group, in a deterministic order.
static SmallVector<Operation *>
outsideProducers(const llvm::SetVector<Operation *> &group, Block &body) {
  llvm::SetVector<Operation *> producers;
  for (Operation *op : group)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && def->getBlock() == &body && !group.contains(def))
        producers.insert(def);
  return producers.takeVector();
}

/// Whether `op` reduces (sum, mean, max): it can root a reduction region
/// whose producers have its input's shape.
static bool isReduction(Operation *op) { return isa<SumOp, MeanOp, MaxOp>(op); }

/// A region's inputs: the values its ops (in `ops` order) use from outside
/// it (`isMember` false for their producer), in order of first use; splat
/// constants go to `splats` instead, to be cloned into the body, but for
/// those an ag.matmul multiplies: the matmul template reads its operands
/// from memory, so such a splat (mean's gradient through a frozen layer) is
/// an input, for the region's other ops too.
static void collectInputs(ArrayRef<Operation *> ops,
                          function_ref<bool(Operation *)> isMember,
                          llvm::SetVector<Value> &inputs,
                          SmallVectorImpl<Operation *> &splats) {
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && isMember(def))
        continue;
      if (def && isSplatConstant(def) && !isa<MatmulOp>(op)) {
        if (!llvm::is_contained(splats, def))
          splats.push_back(def);
        continue;
      }
      inputs.insert(operand);
    }
  // A clone would replace the input for every op, the matmul's included.
  llvm::erase_if(splats, [&](Operation *splat) {
    return inputs.contains(splat->getResult(0));
  });
}

/// Fills a new region's `block` (one argument per input): the splat
/// constants, then `ops` in order, on the block arguments; `map` receives
/// every clone.
static void cloneIntoBody(Block &block, ArrayRef<Value> inputs,
                          ArrayRef<Operation *> splats,
                          ArrayRef<Operation *> ops, IRMapping &map) {
  map.map(inputs, block.getArguments());
  OpBuilder b = OpBuilder::atBlockBegin(&block);
  for (Operation *splat : splats)
    b.clone(*splat, map);
  for (Operation *op : ops)
    b.clone(*op, map);
}

/// Replaces `group` (root first) by one ag.dispatch_region at the root.
static void buildRegion(ArrayRef<Operation *> group) {
  Operation *root = group.front();
  SmallVector<Operation *> ordered(group);
  // Block order, but a matmul first: it reads only region inputs, and the
  // template computes it before its epilogue.
  llvm::sort(ordered, [](Operation *a, Operation *b) {
    if (isa<MatmulOp>(a) != isa<MatmulOp>(b))
      return isa<MatmulOp>(a);
    return a->isBeforeInBlock(b);
  });
  bool hasMatmul = isa<MatmulOp>(ordered.front());
  DenseSet<Operation *> members(group.begin(), group.end());

  llvm::SetVector<Value> inputs;
  SmallVector<Operation *> splats;
  collectInputs(
      ordered, [&](Operation *op) { return members.contains(op); }, inputs,
      splats);

  OpBuilder b(root);
  DispatchKind kind = hasMatmul              ? DispatchKind::matmul
                      : isReduction(root) ? DispatchKind::reduction
                                          : DispatchKind::elementwise;
  auto region =
      DispatchRegionOp::create(b, root->getLoc(), kind, inputs.getArrayRef(),
                               root->getResult(0).getType());
  IRMapping map;
  cloneIntoBody(region.getBlock(), inputs.getArrayRef(), splats, ordered, map);
  b.setInsertionPointToEnd(&region.getBlock());
  YieldOp::create(b, root->getLoc(), map.lookup(root->getResult(0)));

  root->getResult(0).replaceAllUsesWith(region->getResult(0));
  for (Operation *op : llvm::reverse(ordered))
    op->erase();
  for (Operation *splat : splats)
    if (splat->use_empty())
      splat->erase();
}

/// Elements up to which a tensor may always be in a workgroup region, and
/// up to which it may be in a large step's: one workgroup computes it all,
/// so only loss-head-sized tensors join. PPO's 1024x8 head is one such: its
/// one kernel made the step 32 dispatches to 20 and each submission 1.4-3.2
/// ms shorter with llvmpipe's pool (docs/benchmarks.md).
constexpr int64_t kWorkgroupMinLimit = 1024, kWorkgroupMaxLimit = 8192;

/// The element limit of an entry's workgroup region: a quarter of the
/// entry's largest matmul result, within [1024, 8192], so that the hidden
/// activations (matmul epilogues and operands) stay out while the narrower
/// loss head joins: a 64-wide layer at batch 64 (4096 elements) stays out
/// next to a 64x8 head, and a 256x8 head joins at batch 256.
static int64_t workgroupLimit(Block &body) {
  int64_t largest = 0;
  body.walk([&](MatmulOp matmul) {
    largest = std::max(largest, matmul.getType().getNumElements());
  });
  return std::clamp(largest / 4, kWorkgroupMinLimit, kWorkgroupMaxLimit);
}

/// Whether `op` may join the entry's workgroup region: a member kind whose
/// operands and results are all f32 tensors of at most `limit` elements,
/// but for labels, which are i32 (and never made by a member: the region
/// reads them from its inputs).
static bool isWorkgroupCandidate(Operation *op, int64_t limit) {
  if (!WorkgroupRegionOp::isMember(op) || isSplatConstant(op))
    return false;
  Value labels = WorkgroupRegionOp::labelsOf(op);
  auto small = [&](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    Type element = type ? type.getElementType() : Type();
    return type && type.hasStaticShape() &&
           (element.isF32() || (value == labels && element.isInteger(32))) &&
           type.getNumElements() <= limit;
  };
  return llvm::all_of(op->getOperands(), small) &&
         llvm::all_of(op->getResults(), small);
}

/// Gathers the small whole-tensor ops of one entry (a loss head and its
/// gradient) into one ag.workgroup_region, when they hold at least two
/// reductions: otherwise the other region kinds already make them one
/// kernel. The region is convex: an op that depends on the region through
/// an op outside it stays out, and such outside ops between the region's
/// ops move after it.
static void formWorkgroupRegion(Block &body, bool explain) {
  int64_t limit = workgroupLimit(body);
  llvm::SetVector<Operation *> members;
  // Ops outside the region that use its values (directly or not).
  llvm::SetVector<Operation *> dependents;
  DenseSet<Value> dependent;
  for (Operation &op : body) {
    bool needsRegion = false, needsDependent = false;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      needsRegion |= def && members.contains(def);
      needsDependent |= dependent.contains(operand);
    }
    if (isWorkgroupCandidate(&op, limit) && !needsDependent) {
      members.insert(&op);
      continue;
    }
    if (isWorkgroupCandidate(&op, limit) && explain)
      op.emitRemark() << "not in the workgroup region: it depends on the "
                         "region's results through an op outside it";
    if (needsRegion || needsDependent) {
      dependents.insert(&op);
      dependent.insert(op.getResults().begin(), op.getResults().end());
    }
  }
  if (llvm::count_if(members, WorkgroupRegionOp::isStage) < 2)
    return;

  llvm::SetVector<Value> inputs;
  SmallVector<Operation *> splats;
  collectInputs(
      members.getArrayRef(),
      [&](Operation *op) { return members.contains(op); }, inputs, splats);
  // Results: member values used outside.
  SmallVector<Value> results;
  for (Operation *op : members)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !members.contains(user);
          }))
        results.push_back(result);

  Operation *last = members.back();
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  SmallVector<Type> types;
  for (Value result : results)
    types.push_back(result.getType());
  auto region = WorkgroupRegionOp::create(b, members.front()->getLoc(),
                                          inputs.getArrayRef(), types);
  IRMapping map;
  cloneIntoBody(region.getBlock(), inputs.getArrayRef(), splats,
                members.getArrayRef(), map);
  b.setInsertionPointToEnd(&region.getBlock());
  SmallVector<Value> yielded;
  for (Value result : results)
    yielded.push_back(map.lookup(result));
  YieldOp::create(b, region.getLoc(), yielded);

  // Outside users between the region's first and last op move after it,
  // in order: none of the region's ops depends on them.
  Operation *after = region;
  for (Operation *op : dependents)
    if (op->isBeforeInBlock(region)) {
      op->moveAfter(after);
      after = op;
    }
  for (auto [result, replacement] : llvm::zip(results, region.getResults()))
    result.replaceAllUsesWith(replacement);
  for (Operation *op : llvm::reverse(members))
    op->erase();
  for (Operation *splat : splats)
    if (splat->use_empty())
      splat->erase();
}

/// The reduction region whose result `region` (elementwise) maps, with
/// splat constants and single-element inputs besides it, when nothing else
/// uses the reduced value; else null.
static DispatchRegionOp reductionMappedBy(DispatchRegionOp region) {
  if (region.getKind() != DispatchKind::elementwise ||
      region->hasAttr(kUpdatePrologueAttr))
    return nullptr;
  DispatchRegionOp found;
  for (Value input : region.getInputs()) {
    auto reduction = input.getDefiningOp<DispatchRegionOp>();
    if (reduction && reduction.getKind() == DispatchKind::reduction &&
        reduction->hasOneUse() &&
        reduction->getResult(0).getType() == region->getResult(0).getType() &&
        !found) {
      found = reduction;
      continue;
    }
    if (cast<RankedTensorType>(input.getType()).getNumElements() != 1)
      return nullptr;
  }
  return found;
}

/// Merges an elementwise region that only maps a reduction region's
/// result (with splat constants and single-element inputs: the sqrt of a
/// sum of squares plus the poison of the index checks) into that
/// reduction as its epilogue, when nothing else uses the reduced value: one
/// kernel (or pass) fewer.
static void mergeReductionEpilogues(Block &body) {
  for (auto region :
       llvm::make_early_inc_range(body.getOps<DispatchRegionOp>())) {
    DispatchRegionOp reduction = reductionMappedBy(region);
    if (!reduction)
      continue;
    // The reduction's inputs, then the epilogue's other ones.
    SmallVector<Value> inputs(reduction.getInputs());
    for (Value input : region.getInputs())
      if (input != reduction->getResult(0) &&
          !llvm::is_contained(inputs, input))
        inputs.push_back(input);
    OpBuilder b(region);
    auto merged =
        DispatchRegionOp::create(b, region.getLoc(), DispatchKind::reduction,
                                 inputs, region->getResult(0).getType());
    Block &block = merged.getBlock();
    IRMapping map;
    map.map(reduction.getBlock().getArguments(),
            block.getArguments().take_front(reduction.getInputs().size()));
    b.setInsertionPointToStart(&block);
    for (Operation &op : reduction.getBlock().without_terminator())
      b.clone(op, map);
    for (auto [input, arg] :
         llvm::zip(region.getInputs(), region.getBlock().getArguments())) {
      if (input == reduction->getResult(0)) {
        map.map(arg, map.lookup(reduction.getYielded()));
        continue;
      }
      auto at = llvm::find(inputs, input) - inputs.begin();
      map.map(arg, block.getArgument(at));
    }
    for (Operation &op : region.getBlock().without_terminator())
      b.clone(op, map);
    YieldOp::create(b, region.getLoc(), map.lookup(region.getYielded()));
    region->getResult(0).replaceAllUsesWith(merged->getResult(0));
    region->erase();
    reduction->erase();
  }
}

/// Fuses `ag.sum %x axis = 0` into the matmul `xᵀ·y` that reads the same
/// %x (a raw ag.matmul with transpose_a, or a matmul region of one): the
/// bias gradient beside a weight gradient, summed by the matmul's first
/// column of tiles instead of a kernel of its own. The region (one result
/// more) replaces both, at the later of the two.
static void fuseColumnSums(Block &body) {
  for (auto sum : llvm::make_early_inc_range(body.getOps<SumOp>())) {
    auto type = cast<RankedTensorType>(sum.getInput().getType());
    if (type.getRank() != 2 || sum.getNormalizedAxis() != 0 || sum.getKeepdim())
      continue;
    Operation *partner = nullptr;
    for (Operation *user : sum.getInput().getUsers()) {
      if (auto matmul = dyn_cast<MatmulOp>(user);
          matmul && matmul.getTransposeA() && matmul.getLhs() == sum.getInput())
        partner = user;
      auto region = dyn_cast<DispatchRegionOp>(user);
      if (region && region.getKind() == DispatchKind::matmul &&
          region->getNumResults() == 1 &&
          !region->hasAttr(kUpdatePrologueAttr)) {
        MatmulOp matmul = region.getMatmul();
        auto lhs = cast<BlockArgument>(matmul.getLhs());
        if (matmul.getTransposeA() &&
            region.getInputs()[lhs.getArgNumber()] == sum.getInput())
          partner = user;
      }
      if (partner)
        break;
    }
    if (!partner || partner->getBlock() != &body)
      continue;
    // The region goes where the later of the two was: the earlier one's
    // users must all come after it.
    Operation *later =
        partner->isBeforeInBlock(sum) ? sum.getOperation() : partner;
    Operation *earlier = later == partner ? sum.getOperation() : partner;
    if (llvm::any_of(earlier->getUsers(), [&](Operation *user) {
          return user->getBlock() != &body || !later->isBeforeInBlock(user);
        }))
      continue;

    OpBuilder b(later);
    auto region = dyn_cast<DispatchRegionOp>(partner);
    SmallVector<Value> inputs =
        region ? SmallVector<Value>(region.getInputs())
               : SmallVector<Value>(partner->getOperands());
    auto fused = DispatchRegionOp::create(
        b, partner->getLoc(), DispatchKind::matmul, inputs,
        TypeRange{partner->getResult(0).getType(), sum.getType()});
    Block &block = fused.getBlock();
    IRMapping map;
    b.setInsertionPointToStart(&block);
    Value main;
    if (region) {
      map.map(region.getBlock().getArguments(), block.getArguments());
      for (Operation &op : region.getBlock().without_terminator())
        b.clone(op, map);
      main = map.lookup(region.getYielded());
    } else {
      map.map(partner->getOperands(), block.getArguments());
      main = b.clone(*partner, map)->getResult(0);
    }
    Value lhs = region ? map.lookup(region.getBlock().getArgument(
                             cast<BlockArgument>(region.getMatmul().getLhs())
                                 .getArgNumber()))
                       : block.getArgument(0);
    IRMapping sumMap;
    sumMap.map(sum.getInput(), lhs);
    Value sums = b.clone(*sum, sumMap)->getResult(0);
    YieldOp::create(b, partner->getLoc(), ValueRange{main, sums});
    partner->getResult(0).replaceAllUsesWith(fused->getResult(0));
    sum.getResult().replaceAllUsesWith(fused->getResult(1));
    partner->erase();
    sum->erase();
  }
}

/// Forms the regions of one entry body.
static void formRegions(Block &body, bool explain) {
  SmallVector<Operation *> roots;
  for (Operation &op : llvm::reverse(body))
    if (isElementwiseOp(&op) || isReduction(&op))
      roots.push_back(&op);
  DenseSet<Operation *> taken;
  SmallVector<SmallVector<Operation *>> groups;
  for (Operation *root : roots) {
    if (taken.contains(root))
      continue;
    // A reduction's producers have the shape of what it reduces.
    ArrayRef<int64_t> shape = shapeOf(isReduction(root) ? root->getOperand(0)
                                                        : root->getResult(0));
    llvm::SetVector<Operation *> group;
    group.insert(root);
    // Until nothing more joins: a producer used twice inside the region
    // can only join once both users are in.
    for (bool grew = true; grew;) {
      grew = false;
      for (Operation *producer : outsideProducers(group, body))
        if (whyNotFused(producer, group, taken, shape, isReduction(root))
                .empty()) {
          group.insert(producer);
          grew = true;
        }
    }
    if (explain)
      for (Operation *producer : outsideProducers(group, body)) {
        if (isSplatConstant(producer) || producer->getNumResults() != 1 ||
            !isa<RankedTensorType>(producer->getResult(0).getType()) ||
            isa<ConstantOp, ReadWeightOp, InputViewOp, ProbeOp>(producer))
          continue;
        producer->emitRemark()
            << "not fused into the dispatch region of '"
            << root->getName().getStringRef() << "' at " << root->getLoc()
            << ": "
            << whyNotFused(producer, group, taken, shape, isReduction(root));
      }
    // A reduction with nothing to fuse stays the op it is.
    if (isReduction(root) && group.size() == 1)
      continue;
    taken.insert(group.begin(), group.end());
    groups.push_back(SmallVector<Operation *>(group.begin(), group.end()));
  }
  for (ArrayRef<Operation *> group : groups)
    buildRegion(group);
  // Gradients computed only for the update (clipped ones) are computed by
  // the update kernel itself: they are never stored.
  for (auto update : body.getOps<ApplyAdamWOp>()) {
    auto region = update.getGrads().getDefiningOp<DispatchRegionOp>();
    if (!region || region.getKind() != DispatchKind::elementwise ||
        !region->hasOneUse() ||
        cast<RankedTensorType>(region->getResult(0).getType())
                .getNumElements() < 4)
      continue;
    region->setAttr(kUpdatePrologueAttr, UnitAttr::get(region.getContext()));
  }
}

void FormDispatchRegionsPass::runOnOperation() {
  for (Operation &op : getOperation().getOps())
    if (isa<ForwardOp, TrainStepOp>(op)) {
      Block &body = cast<FunctionOpInterface>(op).getFunctionBody().front();
      if (workgroup)
        formWorkgroupRegion(body, explain);
      formRegions(body, explain);
      mergeReductionEpilogues(body);
      fuseColumnSums(body);
    }
}
