// RUN: capture-opt %s -split-input-file -verify-diagnostics

// The records of a lowered entry are checked where they are parsed or
// set: the attribute names take their typed records only.

// expected-error @+1 {{'func.func' op attribute 'ag.probes' must be an array of #ag.probe, got [{buffer = #ag.buffer<scratch>, segment = #ag.segment<"h", [2], f32, offset = 0>}]}}
func.func @dict_probe() attributes {ag.probes = [{buffer = #ag.buffer<scratch>, segment = #ag.segment<"h", [2], f32, offset = 0>}]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op attribute 'ag.train' must be an #ag.train, got {pack = @p}}}
func.func @dict_train() attributes {ag.train = {pack = @p}} {
  return
}

// -----

// expected-error @+1 {{an index check's bound must be >= 0, got -1}}
func.func @bound() attributes {ag.index_checks = [#ag.index_check<output = "s", op = "ag.get_rows", input = "ids", bound = -1, loc = "">]} {
  return
}

// -----

// expected-error @+1 {{an index check names its output and its op, got output = "", op = "ag.get_rows"}}
func.func @unnamed() attributes {ag.index_checks = [#ag.index_check<output = "", op = "ag.get_rows", input = "ids", bound = 3, loc = "">]} {
  return
}

// -----

// expected-error @+1 {{#ag.train has max_grad_norm and max_grad_norm_input together or neither, got only max_grad_norm}}
func.func @half_clip() attributes {ag.train = #ag.train<pack = @p, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, max_grad_norm = 0.5 : f32, hyper_input = "adamw", grad_norm_output = "norm">} {
  return
}

// -----

// expected-error @+1 {{#ag.train's groups are #ag.adamw values, got 1 : i64}}
func.func @bad_group() attributes {ag.train = #ag.train<pack = @p, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, groups = [1], hyper_input = "adamw", grad_norm_output = "norm">} {
  return
}

// -----

// expected-error @+1 {{#ag.train names its hyper_input and grad_norm_output}}
func.func @no_hyper() attributes {ag.train = #ag.train<pack = @p, adamw = #ag.adamw<lr = 1.0e-3, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.0>, hyper_input = "", grad_norm_output = "norm">} {
  return
}
