// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod --print-module | FileCheck %s --check-prefix=FUSED
// RUN: capture-interp %s --make-inputs %t/in --seed 4
// RUN: capture-run %t/m.capmod --input g=%t/in/g.npy --input h=%t/in/h.npy --input b=%t/in/b.npy --input p=%t/in/p.npy --output-dir %t/gpu > /dev/null
// RUN: capture-interp %s --input g=%t/in/g.npy --input h=%t/in/h.npy --input b=%t/in/b.npy --input p=%t/in/p.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s

// Reduction regions against the interpreter: a sum of squares over 70001
// elements (two passes, the producers evaluated in the partial pass; an odd
// size), a mean along an axis of a broadcast sum, and a max of exp with the
// reduced axis kept (tensors over 1024 elements, which no workgroup region
// takes); and epilogues: the sqrt of a two-pass sum of squares in its final
// pass, the exp of an axis mean in its kernel, and epilogues that read a
// single-element input (as the index checks' poison is added to a norm):
// in a two-pass final pass (which binds it; the partial pass does not) and
// in an axis mean's kernel.

// FUSED-DAG: dispatch mul_sum_partial_
// FUSED-DAG: dispatch mul_sum_final_
// FUSED-DAG: dispatch add_mean_
// FUSED-DAG: dispatch exp_max_
// FUSED-DAG: dispatch add_mul_sum_sqrt_partial_
// FUSED-DAG: dispatch add_mul_sum_sqrt_final_
// FUSED-DAG: dispatch sub_mean_exp_
// FUSED-DAG: dispatch exp_mul_sum_plus2_partial_{{[0-9]+}} groups [5, 1, 1] read {{[0-9]+\[[0-9]+, [0-9]+\)}} write
// FUSED-DAG: dispatch exp_mul_sum_plus2_final_{{[0-9]+}} groups [1, 1, 1] read {{.*}} read 0[{{[0-9]+, [0-9]+}}) write
// FUSED-DAG: dispatch tanh_mean_mul_
// FUSED-NOT: dispatch sqrt_
// FUSED-NOT: dispatch exp_{{[0-9]}}
// FUSED-NOT: dispatch {{add|mul}}_{{[0-9]}}

// CHECK-DAG: compare sumsq: {{.*}}: ok
// CHECK-DAG: compare rowmean: {{.*}}: ok
// CHECK-DAG: compare colmax: {{.*}}: ok
// CHECK-DAG: compare norm: {{.*}}: ok
// CHECK-DAG: compare expmean: {{.*}}: ok
// CHECK-DAG: compare pnorm: {{.*}}: ok
// CHECK-DAG: compare colmeanp: {{.*}}: ok
// CHECK-NOT: FAIL

ag.forward @f(%g: tensor<70001xf32> {ag.name = "g"}, %h: tensor<65x67xf32> {ag.name = "h"},
              %b: tensor<67xf32> {ag.name = "b"}, %p: tensor<f32> {ag.name = "p"})
    -> (tensor<f32> {ag.name = "sumsq"}, tensor<65xf32> {ag.name = "rowmean"},
        tensor<1x67xf32> {ag.name = "colmax"}, tensor<f32> {ag.name = "norm"},
        tensor<65xf32> {ag.name = "expmean"}, tensor<f32> {ag.name = "pnorm"},
        tensor<67xf32> {ag.name = "colmeanp"}) {
  %sq = ag.mul %g, %g : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %s = ag.sum %sq : tensor<70001xf32> -> tensor<f32>
  %a = ag.add %h, %b : (tensor<65x67xf32>, tensor<67xf32>) -> tensor<65x67xf32>
  %m = ag.mean %a axis = 1 : tensor<65x67xf32> -> tensor<65xf32>
  %e = ag.exp %h : tensor<65x67xf32>
  %x = ag.max %e axis = 0 keepdim : tensor<65x67xf32> -> tensor<1x67xf32>
  %g2 = ag.add %g, %g : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %q = ag.mul %g2, %g2 : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %ss = ag.sum %q : tensor<70001xf32> -> tensor<f32>
  %norm = ag.sqrt %ss : tensor<f32>
  %a2 = ag.sub %h, %b : (tensor<65x67xf32>, tensor<67xf32>) -> tensor<65x67xf32>
  %am = ag.mean %a2 axis = 1 : tensor<65x67xf32> -> tensor<65xf32>
  %em = ag.exp %am : tensor<65xf32>
  %eg = ag.exp %g : tensor<70001xf32>
  %q3 = ag.mul %eg, %g : (tensor<70001xf32>, tensor<70001xf32>) -> tensor<70001xf32>
  %s3 = ag.sum %q3 : tensor<70001xf32> -> tensor<f32>
  %r3 = ag.sqrt %s3 : tensor<f32>
  %pnorm = ag.add %r3, %p : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %th = ag.tanh %h : tensor<65x67xf32>
  %cm = ag.mean %th axis = 0 : tensor<65x67xf32> -> tensor<67xf32>
  %cmp = ag.mul %cm, %p : (tensor<67xf32>, tensor<f32>) -> tensor<67xf32>
  ag.return %s, %m, %x, %norm, %em, %pnorm, %cmp : tensor<f32>, tensor<65xf32>, tensor<1x67xf32>, tensor<f32>, tensor<65xf32>, tensor<f32>, tensor<67xf32>
}
