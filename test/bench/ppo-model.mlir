// RUN: %python %S/../../bench/ppo_model.py --batch 64 | diff - %S/../../examples/ppo_train.mlir
// RUN: %python %S/../../bench/ppo_model.py --batch 1024 | capture-opt | FileCheck %s
// RUN: not %python %S/../../bench/ppo_model.py --batch 0 2>&1 | FileCheck %s --check-prefix=BAD

// The benchmark's PPO step at other batch sizes comes from the example
// itself: batch 64 reproduces it byte for byte; at 1024 every batch-sized
// tensor changes and every weight keeps its shape (and the result verifies).

// CHECK: ag.weight @actor.0.weight trainable : tensor<64x64xf32>
// CHECK: ag.weight @actor.0.bias trainable : tensor<64xf32>
// CHECK: ag.weight @critic.4.weight trainable : tensor<1x64xf32>
// CHECK: ag.train_step @train(%{{.*}}: tensor<1024x64xf32> {ag.name = "obs"}, %{{.*}}: tensor<1024x8xf32> {ag.name = "act"}, %{{.*}}: tensor<1024xf32> {ag.name = "adv"}
// CHECK: ag.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<1024x64xf32>, tensor<64x64xf32>) -> tensor<1024x64xf32>
// CHECK: ag.add %{{.*}}, %{{.*}} : (tensor<1024x64xf32>, tensor<64xf32>) -> tensor<1024x64xf32>

// BAD: --batch must be >= 1, got 0
