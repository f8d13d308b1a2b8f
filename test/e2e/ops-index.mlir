// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/m.capmod
// RUN: capture-interp %s --entry loss --make-inputs %t/in --seed 21 | FileCheck %s --check-prefix=INPUTS
// RUN: capture-run %t/m.capmod --entry loss --input logits=%t/in/logits.npy --input labels=%t/in/labels.npy --input ids=%t/in/ids.npy --input tab=%t/in/tab.npy --output-dir %t/gpu | FileCheck %s --check-prefix=REPLAY
// RUN: capture-interp %s --entry loss --input logits=%t/in/logits.npy --input labels=%t/in/labels.npy --input ids=%t/in/ids.npy --input tab=%t/in/tab.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP

// Out-of-range labels and row indices: the interpreter reports them as
// errors; the device's kernels clamp them (never reading out of bounds)
// and a device status (ag-insert-index-checks) makes the runtime refuse
// the replay, naming the op, its input, the first bad position and value.
// RUN: %python -c "import struct, sys; v = [int(a) for a in sys.argv[2:]]; h = \"{'descr': '<i4', 'fortran_order': False, 'shape': (%%d,), }\" %% len(v); h += ' ' * ((64 - (11 + len(h)) %% 64) %% 64) + '\n'; open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<%%di' %% len(v), *v))" %t/bad_labels.npy -5 100
// RUN: %python -c "import struct, sys; v = [int(a) for a in sys.argv[2:]]; h = \"{'descr': '<i4', 'fortran_order': False, 'shape': (%%d,), }\" %% len(v); h += ' ' * ((64 - (11 + len(h)) %% 64) %% 64) + '\n'; open(sys.argv[1], 'wb').write(b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<%%di' %% len(v), *v))" %t/bad_ids.npy -5 100 1 3
// RUN: not capture-run %t/m.capmod --entry clamped --input labels=%t/bad_labels.npy --input ids=%t/bad_ids.npy 2>&1 | FileCheck %s --check-prefix=CLAMP
// RUN: %python %S/../Inputs/write_npy.py %t/good_labels.npy i32 "2" 0,2
// RUN: not capture-run %t/m.capmod --entry clamped --input labels=%t/good_labels.npy --input ids=%t/bad_ids.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: %python %S/../Inputs/write_npy.py %t/good_ids.npy i32 "4" 0,3,1,3
// RUN: capture-run %t/m.capmod --entry clamped --input labels=%t/good_labels.npy --input ids=%t/good_ids.npy | FileCheck %s --check-prefix=GOOD
// RUN: not capture-interp %s --entry clamped --input labels=%t/bad_labels.npy --input ids=%t/bad_ids.npy 2>&1 | FileCheck %s --check-prefix=INTERP

// End to end with i32 inputs: ag.cross_entropy (labels drawn in [0, C) by
// --make-inputs), also on logits scaled to +-100 where exp overflows
// without the row max, and ag.get_rows from a weight and from an input
// table, its rows feeding a matmul.

// INPUTS: wrote input labels [16] (i32 in [0, 10))
// INPUTS: wrote input ids [12] (i32 in [0, 20))

// REPLAY-LABEL: device:
// REPLAY-NOT: {{nan|inf}}
// REPLAY: replay:

// CMP-DAG: compare ce: {{.*}}: ok
// CMP-DAG: compare ce_big: {{.*}}: ok
// CMP-DAG: compare rows_w: {{.*}}: ok
// CMP-DAG: compare rows_in: {{.*}}: ok
// CMP-DAG: compare proj: {{.*}}: ok
// CMP-NOT: FAIL

// CLAMP: capture-run: error: entry 'clamped': ag.cross_entropy at {{.*}}ops-index.mlir:[[#@LINE+33]]:8: input 'labels' has -5 at position 0, expected an index in [0, 3); no outputs are returned
// ROWS: capture-run: error: entry 'clamped': ag.get_rows at {{.*}}ops-index.mlir:[[#@LINE+33]]:8: input 'ids' has -5 at position 0, expected an index in [0, 4); no outputs are returned
// With both rows of logits [1, 2, 3], log-sum-exp is 3.40761, the losses
// of labels 0 and 2 are 2.40761 and 0.40761, their mean 1.40761.
// GOOD: output ce []: 1.40761{{$}}
// GOOD: output rows [4, 2]: 0 1 6 7 2 3 6 7{{$}}
// INTERP: error: {{.*}}out of range

ag.weight @emb : tensor<20x8xf32> = dense<[[0.61, -0.42, 0.13, 0.97, -0.25, 0.48, -0.77, 0.05], [0.33, 0.81, -0.66, -0.14, 0.29, -0.93, 0.57, 0.18], [-0.71, 0.26, 0.44, -0.38, 0.92, 0.07, -0.19, -0.55], [0.15, -0.87, 0.68, 0.21, -0.46, 0.73, 0.39, -0.02], [-0.28, 0.59, -0.11, 0.84, 0.36, -0.64, -0.07, 0.95], [0.77, 0.03, -0.52, -0.89, 0.11, 0.42, 0.66, -0.31], [-0.09, -0.35, 0.91, 0.47, -0.72, -0.16, 0.24, 0.58], [0.52, 0.69, 0.27, -0.61, -0.05, 0.88, -0.43, 0.12], [-0.94, 0.17, -0.29, 0.06, 0.63, 0.35, 0.79, -0.68], [0.41, -0.58, 0.74, 0.32, 0.19, -0.83, -0.26, 0.47], [0.08, 0.45, -0.97, 0.55, -0.34, 0.21, 0.62, -0.13], [-0.47, -0.12, 0.36, -0.76, 0.85, 0.58, -0.01, 0.29], [0.64, 0.94, 0.02, 0.18, -0.57, -0.39, 0.14, 0.86], [-0.18, 0.28, 0.83, -0.44, -0.92, 0.67, 0.51, -0.36], [0.26, -0.69, -0.37, 0.99, 0.43, -0.08, -0.62, 0.71], [0.89, 0.11, 0.58, -0.23, 0.04, -0.51, 0.37, -0.84], [-0.53, 0.72, -0.16, 0.31, 0.66, 0.25, -0.88, 0.09], [0.37, -0.21, 0.49, -0.67, -0.13, 0.96, 0.03, 0.54], [-0.62, 0.38, 0.07, 0.76, -0.29, -0.45, 0.81, -0.17], [0.12, -0.96, -0.24, 0.39, 0.58, 0.16, -0.33, 0.63]]>

ag.forward @loss(%logits: tensor<16x10xf32> {ag.name = "logits"}, %labels: tensor<16xi32> {ag.name = "labels"},
                 %ids: tensor<12xi32> {ag.name = "ids"}, %tab: tensor<20x5xf32> {ag.name = "tab"})
    -> (tensor<f32> {ag.name = "ce"}, tensor<f32> {ag.name = "ce_big"},
        tensor<12x8xf32> {ag.name = "rows_w"}, tensor<12x5xf32> {ag.name = "rows_in"},
        tensor<12x12xf32> {ag.name = "proj"}) {
  %k = ag.constant dense<100.0> : tensor<1xf32>
  %emb = ag.read_weight @emb : tensor<20x8xf32>
  %0 = ag.cross_entropy %logits, %labels : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  %big = ag.mul %logits, %k : (tensor<16x10xf32>, tensor<1xf32>) -> tensor<16x10xf32>
  %1 = ag.cross_entropy %big, %labels : (tensor<16x10xf32>, tensor<16xi32>) -> tensor<f32>
  %2 = ag.get_rows %emb, %ids : (tensor<20x8xf32>, tensor<12xi32>) -> tensor<12x8xf32>
  %3 = ag.get_rows %tab, %ids : (tensor<20x5xf32>, tensor<12xi32>) -> tensor<12x5xf32>
  %4 = ag.matmul %2, %2 {transpose_b} : (tensor<12x8xf32>, tensor<12x8xf32>) -> tensor<12x12xf32>
  ag.return %0, %1, %2, %3, %4 : tensor<f32>, tensor<f32>, tensor<12x8xf32>, tensor<12x5xf32>, tensor<12x12xf32>
}

ag.weight @small : tensor<4x2xf32> = dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]>
ag.weight @fixed_logits : tensor<2x3xf32> = dense<[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]>

ag.forward @clamped(%labels: tensor<2xi32> {ag.name = "labels"}, %ids: tensor<4xi32> {ag.name = "ids"})
    -> (tensor<f32> {ag.name = "ce"}, tensor<4x2xf32> {ag.name = "rows"}) {
  %l = ag.read_weight @fixed_logits : tensor<2x3xf32>
  %t = ag.read_weight @small : tensor<4x2xf32>
  %0 = ag.cross_entropy %l, %labels : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<f32>
  %1 = ag.get_rows %t, %ids : (tensor<4x2xf32>, tensor<4xi32>) -> tensor<4x2xf32>
  ag.return %0, %1 : tensor<f32>, tensor<4x2xf32>
}
