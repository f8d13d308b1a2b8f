// RUN: capture-opt %s -ag-configure-kernels | FileCheck %s
// RUN: capture-opt %s -ag-configure-kernels -ag-configure-kernels | FileCheck %s
// RUN: capture-opt %s -ag-form-dispatch-regions -ag-configure-kernels | FileCheck %s --check-prefix=REGION

// A full reduction of more than 4096 elements gets a two-pass kernel
// configuration: partials of 256 elements, more (a multiple of 4) when
// there would be more than 16384 of them; the parts cover the elements
// exactly. Up to 4096 elements, reductions along an axis and ops inside a
// region get none; a configuration already there is kept. Running the pass
// twice changes nothing.

// CHECK-LABEL: ag.forward @sums
ag.forward @sums(%a: tensor<4096xf32> {ag.name = "a"}, %b: tensor<4100xf32> {ag.name = "b"},
                 %c: tensor<4194305xf32> {ag.name = "c"}, %d: tensor<8x1024xf32> {ag.name = "d"})
    -> (tensor<f32> {ag.name = "sa"}, tensor<f32> {ag.name = "mb"}, tensor<f32> {ag.name = "xc"},
        tensor<1024xf32> {ag.name = "sd"}, tensor<f32> {ag.name = "kept"}) {
  // CHECK: ag.sum %{{.*}} : tensor<4096xf32> -> tensor<f32>
  %sa = ag.sum %a : tensor<4096xf32> -> tensor<f32>
  // CHECK: ag.mean %{{.*}} {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 17>} : tensor<4100xf32> -> tensor<f32>
  %mb = ag.mean %b : tensor<4100xf32> -> tensor<f32>
  // CHECK: ag.max %{{.*}} {ag.kernel_config = #ag.two_pass<chunk = 260, parts = 16132>} : tensor<4194305xf32> -> tensor<f32>
  %xc = ag.max %c : tensor<4194305xf32> -> tensor<f32>
  // CHECK: ag.sum %{{.*}} axis = 0 : tensor<8x1024xf32> -> tensor<1024xf32>
  %sd = ag.sum %d axis = 0 : tensor<8x1024xf32> -> tensor<1024xf32>
  // CHECK: ag.sum %{{.*}} {ag.kernel_config = #ag.two_pass<chunk = 512, parts = 9>} : tensor<4100xf32> -> tensor<f32>
  %kept = ag.sum %b {ag.kernel_config = #ag.two_pass<chunk = 512, parts = 9>} : tensor<4100xf32> -> tensor<f32>
  ag.return %sa, %mb, %xc, %sd, %kept : tensor<f32>, tensor<f32>, tensor<f32>, tensor<1024xf32>, tensor<f32>
}

// The sum of squares of a gradient: one reduction region, configured as a
// whole; the ops inside it are not kernels.
// REGION-LABEL: ag.forward @norm
// REGION: ag.dispatch_region reduction {{.*}} attributes {ag.kernel_config = #ag.two_pass<chunk = 256, parts = 32>}
// REGION: ag.sum %{{.*}} : tensor<8192xf32> -> tensor<f32>
ag.forward @norm(%g: tensor<8192xf32> {ag.name = "g"}) -> (tensor<f32> {ag.name = "n"}) {
  %sq = ag.square %g : tensor<8192xf32>
  %s = ag.sum %sq : tensor<8192xf32> -> tensor<f32>
  %n = ag.sqrt %s : tensor<f32>
  ag.return %n : tensor<f32>
}
