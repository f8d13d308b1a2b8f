// RUN: capture-opt %s -ag-autodiff -canonicalize -ag-pack-params -ag-insert-clip-scale -ag-split-update -canonicalize -cse -ag-pack-io -ag-plan-buffers -ag-lower-to-gpu -canonicalize | FileCheck %s

// A lowered training step:
// - the pack's weights lead the weights buffer as one flat array (element
//   offsets x 4 bytes); the frozen weight follows;
// - an optimizer buffer holds the flat gradients and both moments;
// - each gradient is computed straight into its slot of the flat array
//   (the embedding's by scatter_add_rows at 0, @w's by a matmul at 256);
// - the output copy of @w (a value from before the update) precedes the
//   AdamW kernel, which comes last and binds the clipped gradients, the
//   norm (in the output buffer), the hyperparameter input, the flat
//   parameters and both moments;
// - the entry records what the runtime needs in `ag.train`.

// CHECK-DAG: memref.global "private" @__ag_weights : memref<528xi8>
// CHECK-DAG: memref.global "private" @__ag_optimizer : memref<1328xi8>
// CHECK-DAG: ag.weight @emb trainable : tensor<5x3xf32> = {{.*}} {ag.place = #ag.place<weights, 0>}
// CHECK-DAG: ag.weight @w trainable : tensor<3x4xf32> = {{.*}} {ag.place = #ag.place<weights, 256>}
// CHECK-DAG: ag.weight @scale : tensor<4xf32> = {{.*}} {ag.place = #ag.place<weights, 512>}
// CHECK-DAG: ag.param_pack @train.params weights([@emb, @w]) offsets([0, 64]) size(76) {ag.grads_place = #ag.place<optimizer, 0>, ag.moment1_place = #ag.place<optimizer, 512>, ag.moment2_place = #ag.place<optimizer, 1024>, ag.place = #ag.place<weights, 0>}

// CHECK-LABEL: func.func @train
// CHECK-SAME: ag.entry = "train"
// CHECK-SAME: ag.input_layout = [#ag.segment<"ids", [2], i32, offset = 0>, #ag.segment<"labels", [2], i32, offset = 256>, #ag.segment<"max_grad_norm", [], f32, offset = 512>, #ag.segment<"adamw", [7], f32, offset = 768>]
// CHECK-SAME: ag.output_layout = [#ag.segment<"loss", [], f32, offset = 0>, #ag.segment<"w_before", [3, 4], f32, offset = 256>, #ag.segment<"grad_norm", [], f32, offset = 512>]
// CHECK-SAME: ag.train = #ag.train<pack = @train.params, adamw = #ag.adamw<lr = 1.000000e-02, beta1 = 9.000000e-01, beta2 = 0.99899999999999999, eps = 1.000000e-08, weight_decay = 1.000000e-02>, max_grad_norm = 5.000000e-01 : f32, max_grad_norm_input = "max_grad_norm", hyper_input = "adamw", grad_norm_output = "grad_norm">
// CHECK: %[[GW:.*]] = ag.binding <optimizer, 256> : memref<3xvector<4xf32>>
// CHECK: gpu.launch_func @matmul_{{[0-9]+}}::@matmul_{{[0-9]+}} {{.*}} args(%{{.*}} : memref<2x3xf32>, %{{.*}} : memref<2xvector<4xf32>>, %[[GW]] : memref<3xvector<4xf32>>)
// CHECK: %[[GE:.*]] = ag.binding <optimizer, 0> : memref<5x3xf32>
// CHECK: gpu.launch_func @scatter_add_rows_{{[0-9]+}}::{{.*}} args(%{{.*}} : memref<2x3xf32>, %{{.*}} : memref<2xi32>, %[[GE]] : memref<5x3xf32>)
// The norm reads the flat gradients where they were computed.
// CHECK: %[[G:.*]] = ag.binding <optimizer, 0> : memref<76xf32>
// CHECK-NEXT: %[[G2:.*]] = ag.binding <optimizer, 0> : memref<76xf32>
// CHECK: gpu.launch_func @mul_{{[0-9]+}}::{{.*}} args(%[[G]] : memref<76xf32>, %[[G2]] : memref<76xf32>
// CHECK: %[[WSRC:.*]] = ag.binding <weights, 256> : memref<3x4xf32>
// CHECK: %[[WOUT:.*]] = ag.binding <output, 256> : memref<3x4xf32>
// CHECK: gpu.launch_func @copy_{{[0-9]+}}::{{.*}} args(%[[WSRC]] : memref<3x4xf32>, %[[WOUT]] : memref<3x4xf32>)
// AdamW reads the clipped gradients, the parameters and both moments as
// vec4 elements (76 floats: 19 vectors) and writes the same three ranges,
// one vec4 per store.
// CHECK: %[[CLIPPED:.*]] = ag.binding <{{.*}}> : memref<19xvector<4xf32>>
// CHECK: %[[NORM:.*]] = ag.binding <output, 512> : memref<f32>
// CHECK: %[[HYPER:.*]] = ag.binding <input, 768> : memref<7xf32>
// CHECK: %[[PIN:.*]] = ag.binding <weights, 0> : memref<19xvector<4xf32>>
// CHECK: %[[MIN:.*]] = ag.binding <optimizer, 512> : memref<19xvector<4xf32>>
// CHECK: %[[VIN:.*]] = ag.binding <optimizer, 1024> : memref<19xvector<4xf32>>
// CHECK: %[[P:.*]] = ag.binding <weights, 0> : memref<19xvector<4xf32>>
// CHECK: %[[M:.*]] = ag.binding <optimizer, 512> : memref<19xvector<4xf32>>
// CHECK: %[[V:.*]] = ag.binding <optimizer, 1024> : memref<19xvector<4xf32>>
// CHECK: gpu.launch_func @adamw_{{[0-9]+}}::@adamw_{{[0-9]+}} {{.*}} args(%[[CLIPPED]] : memref<19xvector<4xf32>>, %[[NORM]] : memref<f32>, %[[HYPER]] : memref<7xf32>, %[[PIN]] : memref<19xvector<4xf32>>, %[[MIN]] : memref<19xvector<4xf32>>, %[[VIN]] : memref<19xvector<4xf32>>, %[[P]] : memref<19xvector<4xf32>>, %[[M]] : memref<19xvector<4xf32>>, %[[V]] : memref<19xvector<4xf32>>)
// CHECK-NEXT: return

// The AdamW kernel says which arguments it writes (the writer's hazard
// check and the runtime's barriers depend on it).
// CHECK: gpu.func @adamw_{{[0-9]+}}(%{{.*}}: memref<19xvector<4xf32>>, %{{.*}}: memref<f32>, %{{.*}}: memref<7xf32>, %{{.*}}: memref<19xvector<4xf32>>, %{{.*}}: memref<19xvector<4xf32>>, %{{.*}}: memref<19xvector<4xf32>>, %[[WP:.*]]: memref<19xvector<4xf32>>, %[[WM:.*]]: memref<19xvector<4xf32>>, %[[WV:.*]]: memref<19xvector<4xf32>>) kernel attributes {ag.binding_shapes = {{.*}}, ag.writes = array<i32: 6, 7, 8>
// Each vector of the pack: one vec4 store of each array.
// CHECK: %[[NP:.*]] = vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: memref.store %[[NP]], %[[WP]][%[[VI:.*]]] : memref<19xvector<4xf32>>
// CHECK-NEXT: vector.from_elements
// CHECK-NEXT: memref.store %{{.*}}, %[[WM]][%[[VI]]] : memref<19xvector<4xf32>>
// CHECK-NEXT: vector.from_elements
// CHECK-NEXT: memref.store %{{.*}}, %[[WV]][%[[VI]]] : memref<19xvector<4xf32>>

ag.weight @emb trainable : tensor<5x3xf32> = dense<[[0.1, 0.2, 0.3], [0.4, -0.5, 0.6], [-0.7, 0.8, 0.9], [1.0, -1.1, 1.2], [0.5, 0.5, -0.5]]>
ag.weight @w trainable : tensor<3x4xf32> = dense<0.25>
ag.weight @scale : tensor<4xf32> = dense<[1.0, 2.0, 0.5, 1.5]>
ag.train_step @train(%ids: tensor<2xi32> {ag.name = "ids"}, %labels: tensor<2xi32> {ag.name = "labels"})
    -> (tensor<f32> {ag.name = "loss"}, tensor<3x4xf32> {ag.name = "w_before"})
    attributes {optimizer = #ag.adamw<lr = 1.0e-2, beta1 = 0.9, beta2 = 0.999, eps = 1.0e-8, weight_decay = 0.01>, max_grad_norm = 0.5 : f32} {
  %e = ag.read_weight @emb : tensor<5x3xf32>
  %w = ag.read_weight @w : tensor<3x4xf32>
  %s = ag.read_weight @scale : tensor<4xf32>
  %x = ag.get_rows %e, %ids : (tensor<5x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %h = ag.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %r = ag.relu %h : tensor<2x4xf32>
  %z = ag.mul %r, %s : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %l = ag.cross_entropy %z, %labels : (tensor<2x4xf32>, tensor<2xi32>) -> tensor<f32>
  ag.return %l, %w : tensor<f32>, tensor<3x4xf32>
}
