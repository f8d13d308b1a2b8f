//===- AgDialect.cpp - The ag dialect -------------------------------------===//

#include "capture/Dialect/Ag/IR/AgDialect.h"
#include "capture/Dialect/Ag/IR/AgOps.h"
#include "capture/rt/suggest.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace capture::ag;

#include "capture/Dialect/Ag/IR/AgOpsDialect.cpp.inc"

/// Parses `[2, 4]` (possibly `[]`) for `#ag.segment`.
static ParseResult parseShapeList(AsmParser &parser,
                                  SmallVector<int64_t> &shape) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    return parser.parseInteger(shape.emplace_back());
  });
}

static void printShapeList(AsmPrinter &printer, ArrayRef<int64_t> shape) {
  printer << '[';
  llvm::interleaveComma(shape, printer);
  printer << ']';
}

/// Parses `field = value, ...` of attribute `attr`: each of `fields`
/// exactly once, in any order, `parseValue(i)` reading field i's value;
/// the fields from index `required` on may be left out. A misspelt,
/// repeated or missing field is an error naming it and the attribute's
/// fields (with the nearest one for a misspelling).
static ParseResult parseFieldList(AsmParser &parser, StringRef attr,
                                  ArrayRef<StringRef> fields,
                                  function_ref<ParseResult(size_t)> parseValue,
                                  size_t required = ~size_t(0)) {
  std::string valid = llvm::join(fields, ", ");
  SmallVector<bool> seen(fields.size(), false);
  auto parseOne = [&]() -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseOptionalKeyword(&key))
      return parser.emitError(loc)
             << attr << " expects a field name, one of " << valid;
    const StringRef *it = llvm::find(fields, key);
    if (it == fields.end())
      return parser.emitError(loc) << attr << " has no field '" << key << "'"
                                   << capture::ag::suggestName(key, fields)
                                   << "; its fields are " << valid;
    size_t i = it - fields.begin();
    if (seen[i])
      return parser.emitError(loc) << attr << " sets '" << key << "' twice";
    seen[i] = true;
    return failure(parser.parseEqual() || parseValue(i));
  };
  if (parser.parseCommaSeparatedList(parseOne))
    return failure();
  for (auto [i, field, was] : llvm::enumerate(fields, seen))
    if (!was && i < required)
      return parser.emitError(parser.getCurrentLocation())
             << attr << " is missing '" << field << "'; its fields are "
             << valid;
  return success();
}

/// Parses `<field = value, ...>`, as parseFieldList.
static ParseResult parseFields(AsmParser &parser, StringRef attr,
                               ArrayRef<StringRef> fields,
                               function_ref<ParseResult(size_t)> parseValue,
                               size_t required = ~size_t(0)) {
  return failure(parser.parseLess() ||
                 parseFieldList(parser, attr, fields, parseValue, required) ||
                 parser.parseGreater());
}

#define GET_ATTRDEF_CLASSES
#include "capture/Dialect/Ag/IR/AgAttributes.cpp.inc"

int64_t SegmentAttr::getByteSize() const {
  int64_t elements = 1;
  for (int64_t dim : getShape())
    elements *= dim;
  return elements * ((getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ReadPath readPath, int64_t subgroupSize,
                                 int64_t maxTexelElements,
                                 int64_t maxLoopIterations) {
  if (subgroupSize < 1 || !llvm::isPowerOf2_64(subgroupSize))
    return emitError() << "target subgroup_size must be a power of two >= 1, "
                          "got "
                       << subgroupSize;
  // Vulkan guarantees 65536 texels per texel buffer.
  if (maxTexelElements < 65536)
    return emitError() << "target max_texel_elements must be >= 65536 (what "
                          "Vulkan guarantees), got "
                       << maxTexelElements;
  if (maxLoopIterations < 0)
    return emitError() << "target max_loop_iterations must be >= 0 (0: no "
                          "limit), got "
                       << maxLoopIterations;
  return success();
}

void AgDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "capture/Dialect/Ag/IR/AgOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "capture/Dialect/Ag/IR/AgAttributes.cpp.inc"
      >();
}

Operation *AgDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                          Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

LogicalResult AdamWAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                APFloat lrAttr, APFloat beta1Attr,
                                APFloat beta2Attr, APFloat epsAttr,
                                APFloat weightDecayAttr, bool decoupled) {
  double lr = lrAttr.convertToDouble(), beta1 = beta1Attr.convertToDouble(),
         beta2 = beta2Attr.convertToDouble(), eps = epsAttr.convertToDouble(),
         weightDecay = weightDecayAttr.convertToDouble();
  auto bad = [&](StringRef name, double value, StringRef expected) {
    return emitError() << "AdamW " << name << " must be " << expected
                       << ", got " << value;
  };
  if (!(lr > 0) || !std::isfinite(lr))
    return bad("lr", lr, "finite and > 0");
  if (!(beta1 >= 0 && beta1 < 1))
    return bad("beta1", beta1, "in [0, 1)");
  if (!(beta2 >= 0 && beta2 < 1))
    return bad("beta2", beta2, "in [0, 1)");
  if (!(eps > 0) || !std::isfinite(eps))
    return bad("eps", eps, "finite and > 0");
  if (!(weightDecay >= 0) || !std::isfinite(weightDecay))
    return bad("weight_decay", weightDecay, "finite and >= 0");
  return success();
}

LogicalResult
ParamGroupAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       ArrayAttr weights, AdamWAttr adamw) {
  if (weights.empty())
    return emitError() << "a param group lists at least one weight";
  llvm::SmallDenseSet<Attribute> seen;
  for (Attribute w : weights) {
    if (!isa<FlatSymbolRefAttr>(w))
      return emitError() << "a param group's weights are symbols (@w), got "
                         << w;
    if (!seen.insert(w).second)
      return emitError() << "a param group lists " << w << " twice";
  }
  if (!adamw)
    return emitError() << "a param group needs its #ag.adamw<...>";
  return success();
}

LogicalResult
IndexCheckAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       StringRef output, StringRef op, StringRef input,
                       int64_t bound, StringRef loc) {
  // (`input` is empty for indices computed inside the entry.)
  if (output.empty() || op.empty())
    return emitError() << "an index check names its output and its op, got "
                          "output = \""
                       << output << "\", op = \"" << op << "\"";
  if (bound < 0)
    return emitError() << "an index check's bound must be >= 0, got " << bound;
  return success();
}

LogicalResult TrainAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                FlatSymbolRefAttr pack, AdamWAttr adamw,
                                ArrayAttr groups, FloatAttr maxGradNorm,
                                StringRef maxGradNormInput,
                                StringRef hyperInput,
                                StringRef gradNormOutput) {
  if (!pack || !adamw)
    return emitError() << "#ag.train needs its pack and its #ag.adamw";
  if (groups)
    for (Attribute group : groups)
      if (!isa<AdamWAttr>(group))
        return emitError() << "#ag.train's groups are #ag.adamw values, got "
                           << group;
  if (bool(maxGradNorm) != !maxGradNormInput.empty())
    return emitError() << "#ag.train has max_grad_norm and "
                          "max_grad_norm_input together or neither, got "
                       << (maxGradNorm ? "only max_grad_norm"
                                       : "only max_grad_norm_input");
  if (hyperInput.empty() || gradNormOutput.empty())
    return emitError() << "#ag.train names its hyper_input and "
                          "grad_norm_output";
  return success();
}

LogicalResult TwoPassAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t chunk, int64_t parts) {
  if (chunk <= 0 || chunk % 4 != 0)
    return emitError() << "a two-pass reduction's chunk must be a positive "
                          "multiple of 4, got "
                       << chunk;
  if (parts < 1)
    return emitError() << "a two-pass reduction has at least one part, got "
                       << parts;
  return success();
}

/// Checks kernel configuration `value` on `op`: a #ag.two_pass on a full
/// reduction whose parts cover its elements exactly.
static LogicalResult verifyKernelConfig(Operation *op, Attribute value) {
  auto twoPass = dyn_cast<TwoPassAttr>(value);
  if (!twoPass)
    return op->emitOpError() << "attribute '" << kKernelConfigAttr
                             << "' must be a kernel configuration "
                                "(#ag.two_pass), got "
                             << value;
  Operation *reduction = fullReductionOf(op);
  if (!reduction)
    return op->emitOpError()
           << "has a #ag.two_pass kernel configuration, but is not a full "
              "reduction (ag.sum, ag.mean or ag.max without an axis, or a "
              "reduction region of one)";
  auto type = dyn_cast<RankedTensorType>(reduction->getOperand(0).getType());
  if (!type || !type.hasStaticShape())
    return success(); // (the reduction's own verifier reports it)
  int64_t n = type.getNumElements(), chunk = twoPass.getChunk(),
          parts = twoPass.getParts();
  if (parts != n / chunk + (n % chunk != 0))
    return op->emitOpError()
           << "has #ag.two_pass<chunk = " << chunk << ", parts = " << parts
           << ">, which does not cover its " << n
           << " elements exactly: expected parts = ceil(" << n << " / " << chunk
           << ")";
  return success();
}

LogicalResult PlaceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                BufferKind buffer, int64_t offset) {
  if (offset < 0)
    return emitError() << "place offset must be >= 0, got " << offset;
  return success();
}

LogicalResult
BufferPlanAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t alignment, int64_t weights, int64_t optimizer,
                       int64_t constants) {
  if (alignment < 16 || !llvm::isPowerOf2_64(alignment))
    return emitError() << "buffer plan alignment must be a power of two >= "
                          "16, got "
                       << alignment;
  for (auto [name, bytes] : {std::pair<StringRef, int64_t>{"weights", weights},
                             {"optimizer", optimizer},
                             {"constants", constants}})
    if (bytes < 0)
      return emitError() << "buffer plan " << name
                         << " must be >= 0 bytes, got " << bytes;
  return success();
}

/// Checks that `value` is a list of #ag.place, `count` of them when given.
static LogicalResult verifyPlaceList(Operation *op, StringRef name,
                                     Attribute value,
                                     std::optional<size_t> count) {
  auto list = dyn_cast<ArrayAttr>(value);
  if (!list || !llvm::all_of(list, llvm::IsaPred<PlaceAttr>))
    return op->emitOpError() << "attribute '" << name
                             << "' must be a list of #ag.place, got " << value;
  if (count && list.size() != *count)
    return op->emitOpError()
           << "attribute '" << name << "' must have one #ag.place per result ("
           << *count << "), got " << list.size();
  return success();
}

LogicalResult AgDialect::verifyOperationAttribute(Operation *op,
                                                  NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto expect = [&](bool ok, StringRef what) -> LogicalResult {
    if (ok)
      return success();
    return op->emitOpError() << "attribute '" << name << "' must be " << what
                             << ", got " << value;
  };
  if (name == kBufferPlanAttr)
    return expect(isa<BufferPlanAttr>(value) && isa<ModuleOp>(op),
                  "an #ag.buffer_plan on a builtin.module");
  if (name == kPlaceAttr || name == kGradsPlaceAttr ||
      name == kMoment1PlaceAttr || name == kMoment2PlaceAttr)
    return expect(isa<PlaceAttr>(value), "an #ag.place");
  if (name == kKernelConfigAttr)
    return verifyKernelConfig(op, value);
  if (name == kPartialsAttr) {
    auto place = dyn_cast<PlaceAttr>(value);
    return expect(place && place.getBuffer() == BufferKind::scratch,
                  "an #ag.place in scratch");
  }
  if (name == kPlacesAttr)
    return verifyPlaceList(op, name, value, op->getNumResults());
  if (name == kStagesAttr)
    return verifyPlaceList(op, name, value, std::nullopt);
  if (name == kScratchBytesAttr) {
    auto bytes = dyn_cast<IntegerAttr>(value);
    return expect(bytes && bytes.getType().isInteger(64) && bytes.getInt() >= 0,
                  "a non-negative i64 byte count");
  }
  auto listOf = [&](auto isElement) {
    auto list = dyn_cast<ArrayAttr>(value);
    return list && llvm::all_of(list, isElement);
  };
  if (name == kIndexChecksAttr)
    return expect(listOf(llvm::IsaPred<IndexCheckAttr>),
                  "an array of #ag.index_check");
  if (name == kProbesAttr)
    return expect(listOf(llvm::IsaPred<ProbeAttr>), "an array of #ag.probe");
  if (name == kTrainAttr)
    return expect(isa<TrainAttr>(value), "an #ag.train");
  return success();
}

std::string capture::ag::suggestName(StringRef name,
                                     ArrayRef<StringRef> known) {
  std::vector<std::string_view> candidates(known.begin(), known.end());
  return rt::suggestName(name, candidates);
}

/// The discardable attributes of the dialect that ag ops may carry: what
/// ag-pack-io, ag-form-dispatch-regions and ag-plan-buffers put on them.
static constexpr llvm::StringLiteral kDiscardable[] = {
    "ag.input_layout", "ag.output_layout", kUpdatePrologueAttr,
    kPlacesAttr,       kPlaceAttr,         kGradsPlaceAttr,
    kMoment1PlaceAttr, kMoment2PlaceAttr,  kPartialsAttr,
    kStagesAttr,       kScratchBytesAttr,  kIndexChecksAttr,
    kKernelConfigAttr};

LogicalResult capture::ag::verifyKnownAttributes(Operation *op) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    StringRef name = attr.getName().getValue();
    if (llvm::is_contained(kDiscardable, name))
      continue;
    // The op's own attributes, without those its syntax spells otherwise
    // (variadic operand counts, an entry's name, signature and argument
    // attributes).
    SmallVector<StringRef> own;
    for (StringAttr inherent : op->getName().getAttributeNames()) {
      StringRef n = inherent.getValue();
      if (!n.ends_with("SegmentSizes") &&
          !llvm::is_contained(
              {"sym_name", "function_type", "arg_attrs", "res_attrs"}, n))
        own.push_back(n);
    }
    SmallVector<StringRef> known(own);
    llvm::append_range(known, kDiscardable);
    InFlightDiagnostic diag = op->emitOpError()
                              << "has no attribute '" << name << "'"
                              << suggestName(name, known);
    if (own.empty())
      diag << "; it takes none";
    else
      diag << "; it takes " << llvm::join(own, ", ");
    return diag;
  }
  return success();
}

Attribute AdamWAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  double v[5] = {};
  bool decoupled = true;
  auto parseValue = [&](size_t i) -> ParseResult {
    if (i < std::size(v))
      return parser.parseFloat(v[i]);
    if (succeeded(parser.parseOptionalKeyword("true")))
      return success();
    if (succeeded(parser.parseOptionalKeyword("false"))) {
      decoupled = false;
      return success();
    }
    return parser.emitError(parser.getCurrentLocation())
           << "#ag.adamw decoupled must be true (AdamW's decoupled weight "
              "decay) or false (Adam's L2 term in the gradient)";
  };
  // `decoupled` is optional: modules from before it are AdamW.
  if (failed(parseFields(
          parser, "#ag.adamw",
          {"lr", "beta1", "beta2", "eps", "weight_decay", "decoupled"},
          parseValue, /*required=*/std::size(v))))
    return {};
  return parser.getChecked<AdamWAttr>(loc, parser.getContext(), APFloat(v[0]),
                                      APFloat(v[1]), APFloat(v[2]),
                                      APFloat(v[3]), APFloat(v[4]), decoupled);
}

void AdamWAttr::print(AsmPrinter &printer) const {
  printer << "<lr = ";
  printer.printFloat(getLr());
  printer << ", beta1 = ";
  printer.printFloat(getBeta1());
  printer << ", beta2 = ";
  printer.printFloat(getBeta2());
  printer << ", eps = ";
  printer.printFloat(getEps());
  printer << ", weight_decay = ";
  printer.printFloat(getWeightDecay());
  if (!getDecoupled())
    printer << ", decoupled = false";
  printer << ">";
}

/// The fields of each #ag.init kind, in printing order.
static ArrayRef<StringRef> initFields(InitKind kind) {
  static const StringRef constant[] = {"value"};
  static const StringRef uniform[] = {"low", "high", "seed"};
  static const StringRef normal[] = {"mean", "std", "seed"};
  static const StringRef linear[] = {"fan_in", "seed"};
  switch (kind) {
  case InitKind::zeros:
    return {};
  case InitKind::constant:
    return constant;
  case InitKind::uniform:
    return uniform;
  case InitKind::normal:
    return normal;
  case InitKind::linear:
    return linear;
  }
  return {};
}

Attribute InitAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (parser.parseLess())
    return {};
  SMLoc kindLoc = parser.getCurrentLocation();
  static const StringRef kindNames[] = {"zeros", "constant", "uniform",
                                        "normal", "linear"};
  ArrayRef<StringRef> kinds = kindNames;
  if (parser.parseOptionalKeyword(&word)) {
    parser.emitError(kindLoc)
        << "#ag.init expects a kind first, one of " << llvm::join(kinds, ", ");
    return {};
  }
  std::optional<InitKind> kind = symbolizeInitKind(word);
  if (!kind) {
    parser.emitError(kindLoc)
        << "#ag.init has no kind '" << word << "'" << suggestName(word, kinds)
        << "; its kinds are " << llvm::join(kinds, ", ");
    return {};
  }
  ArrayRef<StringRef> fields = initFields(*kind);
  double a = 0, b = 0;
  int64_t fanIn = 0;
  uint64_t seed = 0;
  auto parseValue = [&](size_t i) -> ParseResult {
    StringRef field = fields[i];
    if (field == "seed")
      return parser.parseInteger(seed);
    if (field == "fan_in")
      return parser.parseInteger(fanIn);
    return parser.parseFloat(field == "high" || field == "std" ? b : a);
  };
  std::string attr = ("#ag.init<" + word + ">").str();
  if (fields.empty()) {
    if (succeeded(parser.parseOptionalComma())) {
      parser.emitError(parser.getCurrentLocation())
          << attr << " takes no fields";
      return {};
    }
  } else if (parser.parseComma() ||
             parseFieldList(parser, attr, fields, parseValue)) {
    return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<InitAttr>(loc, parser.getContext(), *kind,
                                     APFloat(a), APFloat(b), fanIn, seed);
}

void InitAttr::print(AsmPrinter &printer) const {
  printer << "<" << stringifyInitKind(getKind());
  for (StringRef field : initFields(getKind())) {
    printer << ", " << field << " = ";
    if (field == "seed")
      printer << getSeed();
    else if (field == "fan_in")
      printer << getFanIn();
    else
      printer.printFloat(field == "high" || field == "std" ? getB() : getA());
  }
  printer << ">";
}

LogicalResult InitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               InitKind kind, APFloat aAttr, APFloat bAttr,
                               int64_t fanIn, uint64_t seed) {
  double a = aAttr.convertToDouble(), b = bAttr.convertToDouble();
  std::string what = ("#ag.init<" + stringifyInitKind(kind) + ">").str();
  ArrayRef<StringRef> fields = initFields(kind);
  auto uses = [&](StringRef f) { return llvm::is_contained(fields, f); };
  // The unused fields are 0, so that one rule has one attribute.
  if ((!uses("value") && !uses("low") && !uses("mean") && a != 0) ||
      (!uses("high") && !uses("std") && b != 0) ||
      (!uses("fan_in") && fanIn != 0) || (!uses("seed") && seed != 0))
    return emitError() << what << " sets a field it does not take; it takes "
                       << (fields.empty() ? std::string("none")
                                          : llvm::join(fields, ", "));
  // Evaluated in f32: every value must be a finite f32.
  auto finite = [&](StringRef name, double v) -> LogicalResult {
    if (std::isfinite(v) && std::fabs(v) <= 3.4028234663852886e38)
      return success();
    return emitError() << what << " " << name
                       << " must be a finite f32 value, got " << v;
  };
  switch (kind) {
  case InitKind::zeros:
    return success();
  case InitKind::constant:
    return finite("value", a);
  case InitKind::uniform:
    if (failed(finite("low", a)) || failed(finite("high", b)))
      return failure();
    if (a > b)
      return emitError() << what << " low must be <= high, got low " << a
                         << " and high " << b;
    return success();
  case InitKind::normal:
    if (failed(finite("mean", a)) || failed(finite("std", b)))
      return failure();
    if (b < 0)
      return emitError() << what << " std must be >= 0, got " << b;
    return success();
  case InitKind::linear:
    if (fanIn < 1)
      return emitError() << what
                         << " fan_in must be >= 1 (the layer's input "
                            "features), got "
                         << fanIn;
    return success();
  }
  return success();
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  ReadPath readPath = ReadPath::ssbo;
  int64_t subgroupSize = 0, maxTexelElements = 0, maxLoopIterations = 0;
  auto parseValue = [&](size_t i) -> ParseResult {
    if (i == 1)
      return parser.parseInteger(subgroupSize);
    if (i == 2)
      return parser.parseInteger(maxTexelElements);
    if (i == 3)
      return parser.parseInteger(maxLoopIterations);
    SMLoc at = parser.getCurrentLocation();
    StringRef word;
    if (parser.parseKeyword(&word))
      return failure();
    std::optional<ReadPath> path = symbolizeReadPath(word);
    if (!path)
      return parser.emitError(at)
             << "#ag.target read_path must be ssbo or texel, got '" << word
             << "'" << suggestName(word, {"ssbo", "texel"});
    readPath = *path;
    return success();
  };
  if (failed(parseFields(parser, "#ag.target",
                         {"read_path", "subgroup_size", "max_texel_elements",
                          "max_loop_iterations"},
                         parseValue)))
    return {};
  return parser.getChecked<TargetAttr>(loc, parser.getContext(), readPath,
                                       subgroupSize, maxTexelElements,
                                       maxLoopIterations);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<read_path = " << stringifyReadPath(getReadPath())
          << ", subgroup_size = " << getSubgroupSize()
          << ", max_texel_elements = " << getMaxTexelElements()
          << ", max_loop_iterations = " << getMaxLoopIterations() << ">";
}

Attribute BufferPlanAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t v[4] = {};
  if (failed(parseFields(parser, "#ag.buffer_plan",
                         {"alignment", "weights", "optimizer", "constants"},
                         [&](size_t i) { return parser.parseInteger(v[i]); })))
    return {};
  return parser.getChecked<BufferPlanAttr>(loc, parser.getContext(), v[0], v[1],
                                           v[2], v[3]);
}

void BufferPlanAttr::print(AsmPrinter &printer) const {
  printer << "<alignment = " << getAlignment() << ", weights = " << getWeights()
          << ", optimizer = " << getOptimizer()
          << ", constants = " << getConstants() << ">";
}

bool capture::ag::isAgElementType(Type type) {
  return type.isF32() || type.isSignlessInteger(32) ||
         type.isSignlessInteger(8);
}

/// Checks the element type of `type`, `what` of `op` ("operand #0").
static LogicalResult checkElementType(Operation *op, Type type,
                                      const Twine &what) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor || isAgElementType(tensor.getElementType()))
    return success();
  return op->emitOpError()
         << what << " has type " << type
         << ": expected a tensor of f32 (values), i32 (labels, row indices) "
            "or i8 (packed I/O bytes), but its element type is "
         << tensor.getElementType();
}

LogicalResult capture::ag::verifyElementTypes(Operation *op) {
  for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
    if (failed(checkElementType(op, type, "operand #" + Twine(i))))
      return failure();
  for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
    if (failed(checkElementType(op, type, "result #" + Twine(i))))
      return failure();
  return success();
}

/// Checks one type of `op` against kMaxTensorBytes.
static LogicalResult checkTensorSize(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return success();
  // An element type without a bit width (index, complex) has no byte
  // count: the element type checks name it.
  if (!tensor.getElementType().isIntOrFloat())
    return success();
  uint64_t elementBytes = (tensor.getElementTypeBitWidth() + 7) / 8;
  uint64_t bytes = std::max<uint64_t>(elementBytes, 1);
  bool overflow = false;
  for (int64_t dim : tensor.getShape()) {
    if (dim == 0)
      return success();
    auto d = static_cast<uint64_t>(dim);
    if (!overflow && bytes > UINT64_MAX / d)
      overflow = true;
    if (!overflow)
      bytes *= d;
  }
  if (!overflow && bytes <= kMaxTensorBytes)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "has a tensor of type " << type << ": ";
  if (overflow)
    diag << "its byte count overflows 64 bits";
  else
    diag << bytes << " bytes";
  return diag << ", more than one tensor may have (" << kMaxTensorBytes
              << " bytes: it must fit one storage-buffer binding)";
}

LogicalResult capture::ag::verifyTensorSizes(Operation *op) {
  SmallVector<Type> types(op->getOperandTypes());
  llvm::append_range(types, op->getResultTypes());
  if (auto func = dyn_cast<FunctionOpInterface>(op)) {
    llvm::append_range(types, func.getArgumentTypes());
    llvm::append_range(types, func.getResultTypes());
  }
  for (NamedAttribute attr : op->getAttrs())
    if (auto type = dyn_cast<TypeAttr>(attr.getValue()))
      types.push_back(type.getValue());
  for (Type type : types)
    if (failed(checkTensorSize(op, type)))
      return failure();
  return success();
}
