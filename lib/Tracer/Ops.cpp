//===- Ops.cpp - The traced tensor functions ------------------------------===//
//
// Each function builds one `ag` op at the caller's line. Result shapes are
// computed here only as far as the op needs a result type; the op's own
// verifier then checks everything (TraceState::finish), so that a shape
// error reads exactly as it would in a hand-written module, at the user's
// line.
//
//===----------------------------------------------------------------------===//

#include "TraceState.h"

#include "capture/Dialect/Ag/IR/AgOps.h"

using namespace mlir;
using namespace capture;
using namespace capture::ag;
using capture::detail::TracedValue;
using capture::detail::TraceState;

namespace capture::detail {
/// Builds the ops of this file.
struct OpBuilderFor {
  /// The trace of `at`, when it can still record (else null, nothing to do).
  static TraceState *begin(const At &at) {
    TraceState *s = TraceState::of(at);
    return s && !s->failed() ? s : nullptr;
  }

  /// Builds an op of one operand: `make(state, x, loc)` returns it, or null
  /// after recording an error.
  template <typename Make>
  static Tensor one(const At &a, const char *name, Make make) {
    TraceState *s = begin(a);
    if (!s)
      return {};
    const TracedValue *x = s->operand(a, name);
    if (!x)
      return {};
    Operation *op = make(*s, *x, s->locationOf(a.loc));
    return op ? s->finish(op, a.loc) : Tensor();
  }

  /// Builds an op of two operands, as one() does.
  template <typename Make>
  static Tensor two(const At &a, const At &b, const char *name, Make make) {
    TraceState *s = begin(a);
    if (!s)
      return {};
    const TracedValue *x = s->operand(a, name);
    const TracedValue *y = x ? s->operand(b, name) : nullptr;
    if (!x || !y)
      return {};
    Operation *op = make(*s, *x, *y, s->locationOf(a.loc));
    return op ? s->finish(op, a.loc) : Tensor();
  }

  /// Builds an elementwise op of two operands broadcast together:
  /// `make(state, resultType, x, y, loc)` returns it.
  template <typename Make>
  static Tensor broadcast(const At &a, const At &b, const char *name,
                          Make make) {
    return two(
        a, b, name,
        [&](TraceState &s, const TracedValue &x, const TracedValue &y,
            Location loc) -> Operation * {
          FailureOr<SmallVector<int64_t>> shape =
              broadcastShapes(x.shape, y.shape);
          if (failed(shape)) {
            s.fail(a.loc, std::string(name) + ": shapes " +
                              formatShape(x.shape) + " and " +
                              formatShape(y.shape) +
                              " do not broadcast (trailing dimensions "
                              "must be equal or 1)");
            return nullptr;
          }
          return make(s, s.f32(*shape), x.value, y.value, loc);
        });
  }

  template <typename OpTy>
  static Tensor binary(const At &a, const At &b, const char *name) {
    return broadcast(a, b, name,
                     [](TraceState &s, RankedTensorType type, Value x, Value y,
                        Location loc) -> Operation * {
                       return OpTy::create(s.builder, loc, type, x, y);
                     });
  }

  /// A comparison's 0/1 mask, broadcast as binary() does.
  static Tensor compare(ComparePredicate predicate, const At &a, const At &b,
                        const char *name) {
    return broadcast(a, b, name,
                     [&](TraceState &s, RankedTensorType type, Value x, Value y,
                         Location loc) -> Operation * {
                       return CompareOp::create(s.builder, loc, type, predicate,
                                                x, y);
                     });
  }

  /// A rank-0 constant at the line of `like`, in its trace.
  static Tensor scalar(const At &like, float value) {
    TraceState *s = begin(like);
    if (!s)
      return {};
    RankedTensorType type = s->f32({});
    Operation *op = ConstantOp::create(
        s->builder, s->locationOf(like.loc),
        DenseElementsAttr::get(type, llvm::ArrayRef<float>(value)));
    return s->finish(op, like.loc);
  }

  template <typename OpTy> static Tensor unary(const At &a, const char *name) {
    return one(a, name, [](TraceState &s, const TracedValue &x, Location loc) {
      return OpTy::create(s.builder, loc, s.f32(x.shape), x.value)
          .getOperation();
    });
  }

  /// `axis` in [0, rank) (negative counts from the end), or -1 after
  /// recording an error.
  static int64_t axisOf(TraceState &s, const At &a, const TracedValue &x,
                        int64_t axis, const char *name) {
    int64_t rank = x.shape.size();
    int64_t d = axis < 0 ? axis + rank : axis;
    if (d >= 0 && d < rank)
      return d;
    s.fail(a.loc, std::string(name) + ": axis " + std::to_string(axis) +
                      " is outside a tensor of rank " + std::to_string(rank) +
                      " " + formatShape(x.shape));
    return -1;
  }

  template <typename OpTy>
  static Tensor reduce(const At &a, std::optional<int64_t> axis,
                       const char *name) {
    return one(
        a, name,
        [&](TraceState &s, const TracedValue &x, Location loc) -> Operation * {
          SmallVector<int64_t> shape;
          IntegerAttr axisAttr;
          if (axis) {
            int64_t d = axisOf(s, a, x, *axis, name);
            if (d < 0)
              return nullptr;
            shape.assign(x.shape.begin(), x.shape.end());
            shape.erase(shape.begin() + d);
            axisAttr = s.builder.getI64IntegerAttr(*axis);
          }
          return OpTy::create(s.builder, loc, s.f32(shape), x.value, axisAttr,
                              /*keepdim=*/false);
        });
  }

  template <typename OpTy>
  static Tensor softmaxLike(const At &a, int64_t axis, const char *name) {
    return one(a, name, [&](TraceState &s, const TracedValue &x, Location loc) {
      return OpTy::create(s.builder, loc, s.f32(x.shape), x.value, axis)
          .getOperation();
    });
  }

  static Tensor matmul(const At &a, const At &b, MatmulOptions options) {
    return two(a, b, "matmul",
               [&](TraceState &s, const TracedValue &x, const TracedValue &y,
                   Location loc) -> Operation * {
                 if (x.shape.size() != 2 || y.shape.size() != 2) {
                   s.fail(a.loc, "matmul: expected two rank-2 tensors, got " +
                                     formatShape(x.shape) + " and " +
                                     formatShape(y.shape));
                   return nullptr;
                 }
                 int64_t m = options.transposeA ? x.shape[1] : x.shape[0];
                 int64_t n = options.transposeB ? y.shape[0] : y.shape[1];
                 return MatmulOp::create(s.builder, loc, s.f32({m, n}), x.value,
                                         y.value, options.transposeA,
                                         options.transposeB);
               });
  }

  static Tensor clamp(const At &a, float lo, float hi) {
    return one(a, "clamp",
               [&](TraceState &s, const TracedValue &x, Location loc) {
                 return ClampOp::create(s.builder, loc, s.f32(x.shape), x.value,
                                        s.builder.getF32FloatAttr(lo),
                                        s.builder.getF32FloatAttr(hi))
                     .getOperation();
               });
  }

  /// An op of `a` and i32 `indices` whose result shape `shapeOf` gives.
  template <typename OpTy, typename ShapeOf>
  static Tensor indexed(const At &a, const Tensor &indices, ShapeOf shapeOf,
                        const char *name) {
    return two(a, At(indices, a.loc), name,
               [&](TraceState &s, const TracedValue &x, const TracedValue &i,
                   Location loc) {
                 return OpTy::create(s.builder, loc, s.f32(shapeOf(x, i)),
                                     x.value, i.value)
                     .getOperation();
               });
  }

  static Tensor mse(const At &a, const At &b) {
    return two(a, b, "mse",
               [](TraceState &s, const TracedValue &x, const TracedValue &y,
                  Location loc) {
                 return MseOp::create(s.builder, loc, s.f32({}), x.value,
                                      y.value)
                     .getOperation();
               });
  }

  /// reshape and broadcast_to: the result shape is the caller's.
  template <typename OpTy>
  static Tensor reshaped(const At &a, ArrayRef<int64_t> shape,
                         const char *name) {
    return one(
        a, name,
        [&](TraceState &s, const TracedValue &x, Location loc) -> Operation * {
          if (!s.checkShape(a.loc, name, shape))
            return nullptr;
          return OpTy::create(s.builder, loc, s.f32(shape), x.value);
        });
  }

  static Tensor transpose(const At &a, ArrayRef<int64_t> permutation) {
    return one(
        a, "transpose",
        [&](TraceState &s, const TracedValue &x, Location loc) -> Operation * {
          if (permutation.size() != x.shape.size()) {
            s.fail(a.loc, "transpose: a permutation of " +
                              std::to_string(permutation.size()) +
                              " dimensions for a tensor of rank " +
                              std::to_string(x.shape.size()) + " " +
                              formatShape(x.shape));
            return nullptr;
          }
          SmallVector<int64_t> shape;
          for (int64_t p : permutation)
            shape.push_back(p >= 0 && p < static_cast<int64_t>(x.shape.size())
                                ? x.shape[p]
                                : 1); // the verifier names the bad entry
          return TransposeOp::create(s.builder, loc, s.f32(shape), x.value,
                                     permutation);
        });
  }

  static Tensor slice(const At &a, int64_t axis, int64_t start,
                      int64_t length) {
    return one(
        a, "slice",
        [&](TraceState &s, const TracedValue &x, Location loc) -> Operation * {
          int64_t d = axisOf(s, a, x, axis, "slice");
          if (d < 0)
            return nullptr;
          if (length < 0) {
            s.fail(a.loc, "slice: length " + std::to_string(length) +
                              "; expected a length >= 0");
            return nullptr;
          }
          SmallVector<int64_t> shape(x.shape.begin(), x.shape.end());
          shape[d] = length;
          return SliceOp::create(s.builder, loc, s.f32(shape), x.value, axis,
                                 start, start + length);
        });
  }
};
} // namespace capture::detail

using capture::detail::OpBuilderFor;

/// cross_entropy: a scalar.
static SmallVector<int64_t> lossShape(const TracedValue &,
                                      const TracedValue &) {
  return {};
}

/// get_rows: one row of the table per index.
static SmallVector<int64_t> rowsShape(const TracedValue &table,
                                      const TracedValue &indices) {
  SmallVector<int64_t> shape(indices.shape.begin(), indices.shape.end());
  if (table.shape.size() == 2)
    shape.push_back(table.shape[1]);
  return shape;
}

namespace capture {

Tensor operator+(At a, const At &b) {
  return OpBuilderFor::binary<AddOp>(a, b, "add");
}
Tensor operator-(At a, const At &b) {
  return OpBuilderFor::binary<SubOp>(a, b, "sub");
}
Tensor operator*(At a, const At &b) {
  return OpBuilderFor::binary<MulOp>(a, b, "mul");
}
Tensor operator/(At a, const At &b) {
  return OpBuilderFor::binary<DivOp>(a, b, "div");
}
Tensor operator+(At a, float b) {
  return OpBuilderFor::binary<AddOp>(a, At(OpBuilderFor::scalar(a, b), a.loc),
                                     "add");
}
Tensor operator-(At a, float b) {
  return OpBuilderFor::binary<SubOp>(a, At(OpBuilderFor::scalar(a, b), a.loc),
                                     "sub");
}
Tensor operator*(At a, float b) {
  return OpBuilderFor::binary<MulOp>(a, At(OpBuilderFor::scalar(a, b), a.loc),
                                     "mul");
}
Tensor operator/(At a, float b) {
  return OpBuilderFor::binary<DivOp>(a, At(OpBuilderFor::scalar(a, b), a.loc),
                                     "div");
}
Tensor operator+(float a, At b) {
  return OpBuilderFor::binary<AddOp>(At(OpBuilderFor::scalar(b, a), b.loc), b,
                                     "add");
}
Tensor operator-(float a, At b) {
  return OpBuilderFor::binary<SubOp>(At(OpBuilderFor::scalar(b, a), b.loc), b,
                                     "sub");
}
Tensor operator*(float a, At b) {
  return OpBuilderFor::binary<MulOp>(At(OpBuilderFor::scalar(b, a), b.loc), b,
                                     "mul");
}
Tensor operator/(float a, At b) {
  return OpBuilderFor::binary<DivOp>(At(OpBuilderFor::scalar(b, a), b.loc), b,
                                     "div");
}
Tensor operator-(At a) { return OpBuilderFor::unary<NegOp>(a, "neg"); }

Tensor minimum(At a, const At &b) {
  return OpBuilderFor::binary<MinimumOp>(a, b, "minimum");
}
Tensor maximum(At a, const At &b) {
  return OpBuilderFor::binary<MaximumOp>(a, b, "maximum");
}
Tensor exp(At x) { return OpBuilderFor::unary<ExpOp>(x, "exp"); }
Tensor log(At x) { return OpBuilderFor::unary<LogOp>(x, "log"); }
Tensor tanh(At x) { return OpBuilderFor::unary<TanhOp>(x, "tanh"); }
Tensor sigmoid(At x) { return OpBuilderFor::unary<SigmoidOp>(x, "sigmoid"); }
Tensor relu(At x) { return OpBuilderFor::unary<ReluOp>(x, "relu"); }
Tensor sqrt(At x) { return OpBuilderFor::unary<SqrtOp>(x, "sqrt"); }
Tensor square(At x) { return OpBuilderFor::unary<SquareOp>(x, "square"); }
Tensor floor(At x) { return OpBuilderFor::unary<FloorOp>(x, "floor"); }
Tensor ceil(At x) { return OpBuilderFor::unary<CeilOp>(x, "ceil"); }
Tensor erf(At x) { return OpBuilderFor::unary<ErfOp>(x, "erf"); }
Tensor stopGradient(At x) {
  return OpBuilderFor::unary<StopGradientOp>(x, "stopGradient");
}
Tensor clamp(At x, float lo, float hi) {
  return OpBuilderFor::clamp(x, lo, hi);
}
void assign(const Weight &target, At value) {
  if (TraceState *s = OpBuilderFor::begin(value))
    s->assign(target, value);
}

/// The dialect's predicate of `c`.
static ComparePredicate predicateOf(Compare c) {
  switch (c) {
  case Compare::Eq:
    return ComparePredicate::eq;
  case Compare::Ne:
    return ComparePredicate::ne;
  case Compare::Lt:
    return ComparePredicate::lt;
  case Compare::Le:
    return ComparePredicate::le;
  case Compare::Gt:
    return ComparePredicate::gt;
  case Compare::Ge:
    return ComparePredicate::ge;
  }
  return ComparePredicate::eq;
}

Tensor compare(Compare predicate, At a, const At &b) {
  // A comparison has no gradient: autodiff sees constants (as PyTorch's
  // bool result carries none).
  Tensor x = stopGradient(a), y = stopGradient(b);
  return OpBuilderFor::compare(predicateOf(predicate), At(x, a.loc),
                               At(y, b.loc), "compare");
}
Tensor compare(Compare predicate, At a, float b) {
  return compare(predicate, a, At(OpBuilderFor::scalar(a, b), a.loc));
}

Tensor matmul(At a, const At &b, MatmulOptions options) {
  return OpBuilderFor::matmul(a, b, options);
}

Tensor linear(At x, const At &weight, const At *bias) {
  Tensor y = matmul(x, weight, {.transposeB = true});
  if (!bias)
    return y;
  return OpBuilderFor::binary<AddOp>(At(y, x.loc), At(*bias), "linear");
}

Tensor sum(At x, std::optional<int64_t> axis) {
  return OpBuilderFor::reduce<SumOp>(x, axis, "sum");
}
Tensor mean(At x, std::optional<int64_t> axis) {
  return OpBuilderFor::reduce<MeanOp>(x, axis, "mean");
}
Tensor max(At x, std::optional<int64_t> axis) {
  return OpBuilderFor::reduce<MaxOp>(x, axis, "max");
}
Tensor softmax(At x, int64_t axis) {
  return OpBuilderFor::softmaxLike<SoftmaxOp>(x, axis, "softmax");
}
Tensor logSoftmax(At x, int64_t axis) {
  return OpBuilderFor::softmaxLike<LogSoftmaxOp>(x, axis, "log_softmax");
}
Tensor crossEntropy(At logits, const Tensor &labels) {
  return OpBuilderFor::indexed<CrossEntropyOp>(logits, labels, lossShape,
                                               "cross_entropy");
}
Tensor mse(At a, const At &b) { return OpBuilderFor::mse(a, b); }
Tensor getRows(At table, const Tensor &indices) {
  return OpBuilderFor::indexed<GetRowsOp>(table, indices, rowsShape,
                                          "get_rows");
}
Tensor reshape(At x, std::vector<int64_t> shape) {
  return OpBuilderFor::reshaped<ReshapeOp>(x, shape, "reshape");
}
Tensor transpose(At x, std::vector<int64_t> permutation) {
  return OpBuilderFor::transpose(x, permutation);
}
Tensor broadcastTo(At x, std::vector<int64_t> shape) {
  return OpBuilderFor::reshaped<BroadcastToOp>(x, shape, "broadcast_to");
}
Tensor slice(At x, int64_t axis, int64_t start, int64_t length) {
  return OpBuilderFor::slice(x, axis, start, length);
}

Tensor concat(const std::vector<At> &parts, int64_t axis) {
  if (parts.empty())
    return {};
  const At &first = parts.front();
  TraceState *s = OpBuilderFor::begin(first);
  if (!s)
    return {};
  SmallVector<Value> values;
  std::vector<int64_t> shape;
  for (const At &part : parts) {
    const TracedValue *v = s->operand(part, "concat");
    if (!v)
      return {};
    auto rank = static_cast<int64_t>(v->shape.size());
    if (shape.empty() && values.empty()) {
      if (axis < -rank || axis >= rank) {
        s->fail(first.loc, "concat: axis " + std::to_string(axis) +
                               " of a rank-" + std::to_string(rank) +
                               " tensor; expected -" + std::to_string(rank) +
                               " <= axis < " + std::to_string(rank));
        return {};
      }
      shape = v->shape;
      shape[axis < 0 ? axis + rank : axis] = 0;
    }
    if (v->shape.size() != shape.size()) {
      s->fail(part.loc, "concat: part " + std::to_string(values.size()) +
                            " is " + formatShape(v->shape) +
                            ", of another rank than the first");
      return {};
    }
    shape[axis < 0 ? axis + rank : axis] +=
        v->shape[axis < 0 ? axis + rank : axis];
    values.push_back(v->value);
  }
  Operation *op = ConcatOp::create(s->builder, s->locationOf(first.loc),
                                   s->f32(shape), values, axis);
  return s->finish(op, first.loc);
}

Tensor oneHot(At labels, int64_t classes) {
  return OpBuilderFor::one(
      labels, "one_hot",
      [&](TraceState &s, const TracedValue &x, Location loc) -> Operation * {
        if (x.shape.size() != 1 || classes < 1) {
          s.fail(labels.loc, "one_hot: expected i32 labels [N] and classes "
                             ">= 1, got " +
                                 formatShape(x.shape) + " and " +
                                 std::to_string(classes));
          return nullptr;
        }
        return OneHotOp::create(s.builder, loc, s.f32({x.shape[0], classes}),
                                x.value)
            .getOperation();
      });
}

} // namespace capture
