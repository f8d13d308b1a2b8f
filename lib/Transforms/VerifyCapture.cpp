//===- VerifyCapture.cpp - The capture guard ------------------------------===//
//
// Rejects traces that interacted with the host: such work happened once while
// tracing and would silently not happen (or be frozen) in every replay.
//
//===----------------------------------------------------------------------===//

#include "capture/Transforms/Passes.h"

#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"

namespace capture {
#define GEN_PASS_DEF_VERIFYCAPTURE
#include "capture/Transforms/Passes.h.inc"
} // namespace capture

using namespace mlir;
using namespace capture;
using namespace capture::ag;

namespace {

/// One offending call site: what happened there, and how often.
struct Site {
  /// Human-readable kind, e.g. "upload of host data".
  std::string what;
  /// Where it is reported: the first op's source line (see lineOfBoth for
  /// ops at several columns of one line).
  Location loc;
  /// How many ops of this kind share the site.
  unsigned count = 0;
};

struct VerifyCapturePass
    : public capture::impl::VerifyCaptureBase<VerifyCapturePass> {
  void runOnOperation() override;
};

} // namespace

/// Describes `op` when it is host interaction the guard must reject.
static std::optional<std::string> describeOffence(Operation *op) {
  if (auto upload = dyn_cast<UploadOp>(op)) {
    if (upload.getConstant())
      return std::nullopt;
    return std::string("upload of host data");
  }
  if (isa<DownloadOp>(op))
    return std::string("download (read-back) of a device value");
  if (auto eager = dyn_cast<EagerOp>(op))
    return "eager launch of '" + eager.getKernel().str() + "'";
  return std::nullopt;
}

/// The source line a location names: a file location itself, through a
/// name, the caller of a call site (the user's line that called into a
/// helper), the first file location of a fused one; none for unknown.
static std::optional<FileLineColLoc> sourceLine(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return file;
  if (auto name = dyn_cast<NameLoc>(loc))
    return sourceLine(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return sourceLine(call.getCaller());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::optional<FileLineColLoc> line = sourceLine(part))
        return line;
  return std::nullopt;
}

/// Where a note about `loc` goes: its source line (the user's, for a call
/// site), else the location as it is.
static Location reportedAt(Location loc) {
  if (std::optional<FileLineColLoc> line = sourceLine(loc))
    return *line;
  return loc;
}

/// Whether two locations are the same call site: the same source line (a
/// tracer records one call per line, and a loop calling it repeats the
/// line). Sites without a source line are never merged: two unknown
/// locations are two places.
static bool sameSite(Location a, Location b) {
  std::optional<FileLineColLoc> la = sourceLine(a), lb = sourceLine(b);
  return la && lb && la->getFilename() == lb->getFilename() &&
         la->getLine() == lb->getLine();
}

/// Where a site that holds `site` and `other` (sameSite) is reported: its
/// location, or its line without a column (column 0, which the tracer
/// prints as `file:line`) when the two are at different columns of it, so
/// that "N times" never points at one of several calls on the line.
static Location lineOfBoth(Location site, Location other) {
  FileLineColLoc a = *sourceLine(site), b = *sourceLine(other);
  if (a.getColumn() == b.getColumn())
    return site;
  return FileLineColLoc::get(a.getFilename(), a.getLine(), /*column=*/0);
}

/// Rejects calls in `entry`: an entry is one trace, and a callee's host
/// interaction would escape the guard (and the lowering). Each call is an
/// error, with a note at every host interaction in the callee.
static LogicalResult rejectCalls(FunctionOpInterface entry) {
  bool failed = false;
  entry.walk([&](CallOpInterface call) {
    failed = true;
    InFlightDiagnostic diag = call->emitOpError();
    auto callee =
        dyn_cast_if_present<SymbolRefAttr>(call.getCallableForCallee());
    diag << "is a call";
    if (callee)
      diag << " of " << callee;
    diag << " in entry @" << entry.getName()
         << ": an entry is compiled as one trace, without calls; write (or "
            "trace) the callee's ops into the entry";
    Operation *target = call.resolveCallable();
    if (!target)
      return;
    target->walk([&](Operation *op) {
      if (std::optional<std::string> what = describeOffence(op))
        diag.attachNote(op->getLoc()) << "the callee's " << *what << " here";
    });
  });
  return failure(failed);
}

/// Rejects ops that only the compiler's passes make (OpTrait::CompilerMade)
/// in `op`, the pipeline's input: its passes would meet them as if they had
/// made them, on IR that does not hold what they guarantee (an update in a
/// forward entry, a second param pack, a layout laid out by hand).
static LogicalResult rejectCompilerMade(Operation *op) {
  bool failed = false;
  // Pre-order: an op inside a compiler-made region is not named again.
  op->walk<WalkOrder::PreOrder>(
      [&](Operation *inner) {
        if (!inner->hasTrait<capture::ag::OpTrait::CompilerMade>())
          return WalkResult::advance();
        inner->emitOpError()
            << "is made by the compiler's passes, not written in a trace: the "
               "pipeline takes the traced computation (ag.weight, ag.forward, "
               "ag.train_step with its loss) and adds the training, layout and "
               "dispatch ops itself; remove it, or run single passes with "
               "capture-opt";
        failed = true;
        return WalkResult::skip();
      });
  return failure(failed);
}

/// Checks one entry; reports every offending site in one diagnostic.
static LogicalResult verifyEntry(FunctionOpInterface entry) {
  if (failed(rejectCalls(entry)))
    return failure();
  // Few sites per trace: a vector keeps first-seen order cheaply.
  std::vector<Site> sites;
  unsigned uploads = 0, downloads = 0, launches = 0;
  entry.walk([&](Operation *op) {
    std::optional<std::string> what = describeOffence(op);
    if (!what)
      return;
    uploads += isa<UploadOp>(op);
    downloads += isa<DownloadOp>(op);
    launches += isa<EagerOp>(op);
    auto it = llvm::find_if(sites, [&](const Site &site) {
      return site.what == *what && sameSite(site.loc, op->getLoc());
    });
    if (it == sites.end())
      it = sites.insert(sites.end(), Site{*what, reportedAt(op->getLoc()), 0});
    else
      it->loc = lineOfBoth(it->loc, op->getLoc());
    ++it->count;
  });
  if (sites.empty())
    return success();

  SmallVector<std::string> counts;
  auto plural = [](unsigned n, StringRef one, StringRef many) {
    return std::to_string(n) + " " + (n == 1 ? one : many).str();
  };
  if (uploads)
    counts.push_back(
        plural(uploads, "upload of host data", "uploads of host data"));
  if (downloads)
    counts.push_back(plural(downloads, "download", "downloads"));
  if (launches)
    counts.push_back(plural(launches, "eager launch", "eager launches"));

  InFlightDiagnostic diag = entry.emitError();
  diag << "capture guard: entry @" << entry.getName()
       << " did work outside the graph while tracing, which a replay would "
          "not repeat: "
       << llvm::join(counts, ", ") << " at " << sites.size()
       << (sites.size() == 1 ? " site" : " sites")
       << ". Pass data the step depends on as an entry input; keep weights "
          "resident on the device (ag.weight + ag.read_weight); do not read "
          "values back inside the step; mark data-independent uploads "
          "`constant`";
  for (const Site &site : sites) {
    diag.attachNote(site.loc) << site.what << " here, " << site.count
                              << (site.count == 1 ? " time" : " times");
  }
  return failure();
}

/// Rejects the weights, param packs and entries of modules nested in
/// `root`: Capture compiles the root's only, and a module written without
/// them must never look complete.
static LogicalResult rejectNested(ModuleOp root) {
  bool failed = false;
  root.walk([&](ModuleOp nested) {
    if (nested == root)
      return WalkResult::advance();
    for (Operation &op : *nested.getBody())
      if (isa<ForwardOp, TrainStepOp, WeightOp, ParamPackOp>(op)) {
        op.emitOpError() << "is in a nested builtin.module"
                         << (nested.getName() ? " @" + nested.getName()->str()
                                              : std::string())
                         << ": Capture compiles only the top-level module's "
                            "weights and entries; move it to the top level";
        failed = true;
      }
    return WalkResult::skip();
  });
  return failure(failed);
}

/// Rejects a module without an entry: compiled, it would hold nothing to
/// replay, and a weights-only file is more likely the wrong file.
static LogicalResult requireEntry(ModuleOp module) {
  llvm::MapVector<StringRef, unsigned> found;
  for (Operation &op : *module.getBody()) {
    if (isa<ForwardOp, TrainStepOp>(op))
      return success();
    ++found[op.getName().getStringRef()];
  }
  InFlightDiagnostic diag = module.emitError()
                            << "the module has no entry: expected at least one "
                               "top-level ag.forward or ag.train_step, found ";
  if (found.empty())
    return diag << "an empty module";
  llvm::interleaveComma(found, diag, [&](const auto &kv) {
    diag << kv.second << " " << kv.first;
  });
  return diag;
}

void VerifyCapturePass::runOnOperation() {
  bool failed = mlir::failed(rejectNested(getOperation()));
  for (Operation &op : *getOperation().getBody()) {
    // (rejectNested has spoken for what nested modules hold.)
    if (!isa<ModuleOp>(op) && mlir::failed(rejectCompilerMade(&op))) {
      failed = true;
      continue;
    }
    if (isa<ForwardOp, TrainStepOp>(op))
      failed |= mlir::failed(verifyEntry(cast<FunctionOpInterface>(op)));
  }
  // (An entry that was rejected above has been named already.)
  if (!failed)
    failed = mlir::failed(requireEntry(getOperation()));
  if (failed)
    signalPassFailure();
}
