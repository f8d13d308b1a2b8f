// RUN: capture-opt %s | capture-opt | FileCheck %s
// RUN: capture-opt %s --mlir-print-op-generic | capture-opt | FileCheck %s

// The records of a lowered entry are typed attributes: its probes
// (#ag.probe), its index checks (#ag.index_check) and, for a training step,
// what the runtime needs to drive it (#ag.train; `groups`, `max_grad_norm`
// and `max_grad_norm_input` are optional).

// CHECK-LABEL: func.func @predict
// CHECK-SAME: ag.index_checks = [#ag.index_check<output = "index_check.0", op = "ag.get_rows", input = "", bound = 7, loc = "m.py:3">]
// CHECK-SAME: ag.probes = [#ag.probe<scratch, #ag.segment<"h", [2, 8], f32, offset = 256>>, #ag.probe<output, #ag.segment<"y", [2], f32, offset = 0>>]
func.func @predict(%in: memref<256xi8>, %out: memref<256xi8>) attributes {
    ag.probes = [#ag.probe<scratch, #ag.segment<"h", [2, 8], f32, offset = 256>>,
                 #ag.probe<output, #ag.segment<"y", [2], f32, offset = 0>>],
    ag.index_checks = [#ag.index_check<output = "index_check.0", op = "ag.get_rows", input = "", bound = 7, loc = "m.py:3">]} {
  return
}

// CHECK-LABEL: func.func @train
// CHECK-SAME: ag.train = #ag.train<pack = @train.params, adamw = #ag.adamw<lr = 1.000000e-03, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 0.000000e+00>, groups = [#ag.adamw<lr = 1.000000e-02, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 0.000000e+00>], max_grad_norm = 5.000000e-01 : f32, max_grad_norm_input = "max_grad_norm", hyper_input = "adamw", grad_norm_output = "grad_norm">
func.func @train(%in: memref<256xi8>, %out: memref<256xi8>) attributes {
    ag.train = #ag.train<pack = @train.params, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, groups = [#ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>], max_grad_norm = 0.5 : f32, max_grad_norm_input = "max_grad_norm", hyper_input = "adamw", grad_norm_output = "grad_norm">} {
  return
}

// CHECK-LABEL: func.func @unclipped
// CHECK-SAME: ag.train = #ag.train<pack = @p, adamw = #ag.adamw<{{[^>]*}}>, hyper_input = "adamw", grad_norm_output = "norm">
func.func @unclipped(%in: memref<256xi8>, %out: memref<256xi8>) attributes {
    ag.train = #ag.train<pack = @p, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, hyper_input = "adamw", grad_norm_output = "norm">} {
  return
}
