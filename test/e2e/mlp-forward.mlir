// RUN: rm -rf %t && mkdir -p %t
// RUN: capture-aot %s -o %t/mlp.capmod
// RUN: capture-interp %s --entry predict --make-inputs %t/in --seed 7
// RUN: capture-run %t/mlp.capmod --entry predict --input x=%t/in/x.npy --probe h1 --output-dir %t/gpu --repeat 3 | FileCheck %s --check-prefix=REPLAY
// RUN: capture-interp %s --entry predict --input x=%t/in/x.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=CMP
// RUN: capture-interp %s --entry probe_h1 --input x=%t/in/x.npy --compare %t/gpu --tolerance 1e-5 | FileCheck %s --check-prefix=PROBE
// RUN: capture-aot %s --target=cpu -o %t/mlp-cpu.capmod
// RUN: capture-run %t/mlp-cpu.capmod --device host --entry predict --input x=%t/in/x.npy --output-dir %t/host --repeat 2 --profile | FileCheck %s --check-prefix=HOST
// RUN: capture-interp %s --entry predict --input x=%t/in/x.npy --compare %t/host --tolerance 1e-5 | FileCheck %s --check-prefix=CMP
// RUN: env -u CAPTURE_DEVICE capture-run %t/mlp-cpu.capmod --entry predict --input x=%t/in/x.npy --output-dir %t/default | FileCheck %s --check-prefix=DEFAULT
// RUN: capture-interp %s --entry predict --input x=%t/in/x.npy --compare %t/default --tolerance 1e-5 | FileCheck %s --check-prefix=CMP
// RUN: env -u CAPTURE_DEVICE capture-run %t/mlp.capmod --entry predict --input x=%t/in/x.npy | FileCheck %s --check-prefix=NOHOST

// End to end: a 2-layer MLP forward (matmul, broadcast add, tanh, relu,
// probe, reductions) compiled with capture-aot, replayed on the Vulkan
// device with capture-run (and, compiled for the cpu target, on the host
// device, profiled), and every output (and the probe) compared with
// the reference interpreter.

// REPLAY-LABEL: device:
// REPLAY: output logits [5, 6]:
// REPLAY: output row_sum [5]:
// REPLAY: output mean [1, 6]:
// REPLAY: probe h1 [5, 24]:
// REPLAY: replay: 3 calls,

// The host device's profile: its launches timed on the host's clock, no
// submissions.
// HOST-LABEL: device: host CPU
// HOST: profile: 2 calls, replay (0 submissions per call), launches timed on the host's clock (the host device)
// HOST: total
// HOST-NEXT: device us/call: {{[0-9.]+}} in kernels (host code; the joins between launches included)
// HOST-NEXT: host us/call: pack {{[0-9.]+}}, record 0.0, submit 0.0, wait 0.0, unpack

// Without --device or CAPTURE_DEVICE: a GPU, else the host device for a
// module with host code, else lavapipe; the first line says which rule.
// DEFAULT: device: {{host CPU .* \(host\) \(default: no Vulkan GPU, so the host device\)|.* \(default: the first .*gpu\)}}
// NOHOST: device: {{.* \(cpu\) \(default: no Vulkan GPU, and the host device cannot run it \(the module has no host code: capture-aot --target=cpu adds it\)\)|.* \(default: the first .*gpu\)}}

// CMP-DAG: compare logits: {{.*}}: ok
// CMP-DAG: compare row_sum: {{.*}}: ok
// CMP-DAG: compare mean: {{.*}}: ok
// PROBE: compare h1: {{.*}}: ok

ag.weight @w1 trainable : tensor<12x24xf32> = dense<[[-0.0768, -0.2399, -0.2570, -0.2013, 0.2079, -0.1991, -0.0935, 0.1474, 0.0309, 0.3507, -0.0086, -0.0627, 0.0906, -0.2266, 0.3216, -0.1008, -0.0895, 0.1459, -0.2782, 0.1285, 0.2800, -0.1290, 0.3575, 0.0230], [0.2196, -0.0248, -0.0779, -0.1845, -0.3939, -0.2370, 0.3917, 0.0274, -0.0303, 0.3202, 0.0844, 0.3814, -0.1140, -0.2273, 0.3366, -0.2714, 0.2335, 0.0763, 0.3863, 0.3551, 0.1282, -0.3704, -0.3814, -0.0210], [0.2557, -0.3351, -0.0597, -0.3312, -0.1522, -0.3955, -0.1362, 0.0187, -0.2394, 0.2298, -0.3557, -0.2309, -0.1939, -0.0767, 0.2110, -0.1170, 0.1560, 0.3378, -0.2953, 0.2911, 0.0797, 0.1978, 0.0864, -0.0734], [-0.3228, -0.2851, -0.2607, -0.2579, -0.2836, -0.2339, 0.0488, 0.2165, 0.2384, 0.2769, -0.3062, 0.2579, -0.2512, -0.3421, -0.1698, 0.0686, -0.3619, -0.2269, -0.0807, 0.2579, -0.0805, -0.0687, -0.1032, -0.3259], [0.3037, 0.3384, 0.1773, -0.0811, -0.0448, -0.1509, 0.1235, 0.1227, -0.1515, 0.2994, 0.1766, -0.2251, 0.2474, 0.1394, -0.2002, -0.1629, 0.2012, -0.3359, -0.0497, 0.3710, -0.1950, 0.0025, 0.3258, 0.2997], [0.2306, 0.0266, 0.3439, -0.1945, 0.3053, -0.0725, 0.1266, 0.0888, -0.1742, 0.1426, 0.0834, 0.3898, 0.1334, -0.0480, -0.0961, 0.3100, -0.1237, 0.1336, 0.1555, 0.3717, -0.2454, 0.1320, -0.2627, 0.1121], [0.1257, 0.1944, 0.2930, -0.2150, 0.2884, -0.1236, -0.0801, -0.3101, 0.0254, -0.3990, -0.1516, 0.1378, 0.1980, -0.2661, 0.2279, -0.0447, -0.2358, 0.1989, 0.1911, -0.0256, 0.0248, 0.0958, 0.1054, 0.2120], [0.2151, -0.2398, -0.3835, -0.3159, -0.1540, 0.0644, 0.3689, -0.0666, -0.1046, 0.0458, 0.3587, 0.0704, -0.1639, 0.2053, 0.3935, 0.2349, -0.0812, -0.2622, -0.0313, -0.2972, -0.2955, -0.0428, 0.2802, 0.1615], [-0.0655, 0.3635, -0.2569, -0.1999, -0.1811, 0.0581, 0.3118, -0.0939, 0.2613, 0.3496, -0.0167, 0.3143, 0.3114, -0.0189, -0.2644, -0.3402, -0.2083, -0.0321, -0.3877, -0.1362, -0.0047, -0.1314, 0.1870, 0.0557], [0.0264, 0.1068, 0.0664, -0.0688, -0.2672, 0.0705, -0.3620, -0.3711, -0.1261, -0.2160, 0.2044, -0.2732, -0.0487, 0.1564, -0.0658, 0.2443, -0.3063, -0.2625, -0.1796, -0.1079, 0.0478, -0.2414, 0.0472, 0.1615], [0.1221, 0.2522, -0.3348, 0.1423, 0.1798, 0.2601, -0.2798, -0.3308, 0.2073, 0.1173, -0.2667, 0.2967, 0.1736, 0.0920, 0.2084, 0.0889, -0.1279, -0.3578, -0.1261, 0.1000, -0.2496, -0.2563, -0.3111, -0.0028], [0.3733, 0.1846, -0.3900, -0.0985, 0.1457, -0.3224, 0.2359, -0.2117, -0.0449, 0.2343, 0.2994, -0.3359, 0.2538, 0.3003, 0.2709, 0.2192, -0.1015, -0.1493, -0.3635, -0.0828, -0.1595, -0.2729, 0.3549, 0.3048]]>
ag.weight @b1 trainable : tensor<24xf32> = dense<[0.1239, -0.0817, -0.1506, -0.0290, -0.1711, -0.0585, 0.0426, -0.0731, -0.0662, -0.0692, 0.1316, -0.1862, 0.1256, 0.0441, 0.0192, 0.0775, -0.1926, 0.1452, -0.0845, -0.0402, 0.0049, 0.1605, -0.1089, 0.0096]>
ag.weight @w2 trainable : tensor<24x6xf32> = dense<[[0.2950, -0.1727, 0.0887, -0.2017, 0.0403, -0.0392], [0.0393, -0.2828, -0.1788, 0.2403, -0.1922, -0.1197], [0.2935, -0.1472, 0.0479, -0.0416, -0.2981, 0.0861], [0.0018, 0.2622, 0.2860, -0.2556, 0.0529, -0.0952], [-0.2207, 0.2502, -0.2454, 0.0012, -0.1604, 0.0437], [-0.1750, 0.2128, -0.0382, -0.1790, 0.1804, -0.2192], [0.1429, -0.1509, 0.2045, -0.1461, 0.0909, 0.1034], [0.0027, 0.2224, 0.0259, -0.1592, 0.0147, 0.1123], [-0.0474, 0.0146, -0.2565, -0.1497, 0.1603, -0.0995], [-0.1865, 0.1761, -0.2822, -0.2771, -0.2627, -0.1862], [-0.2700, -0.1243, -0.1391, 0.2539, -0.1471, 0.0464], [-0.1228, 0.1354, -0.2316, -0.0933, -0.2146, -0.1170], [-0.1438, -0.0286, 0.2661, -0.2837, -0.1610, 0.0650], [0.2009, -0.0722, -0.0847, -0.1092, -0.0748, 0.0230], [0.1679, -0.2871, -0.1944, -0.1667, 0.0724, 0.1563], [-0.2577, -0.2996, -0.2316, -0.0385, 0.1151, 0.2836], [-0.0781, -0.0458, 0.2256, 0.1606, 0.2426, -0.1423], [0.1272, 0.1850, -0.1360, -0.1539, 0.2582, -0.1682], [-0.1044, -0.2385, 0.2258, 0.0728, -0.1541, -0.0346], [-0.0332, -0.2899, 0.1462, -0.2534, -0.0699, 0.1426], [-0.1306, 0.1587, 0.2413, 0.1224, -0.0445, 0.2577], [-0.1075, 0.2978, 0.0630, 0.0208, 0.2229, -0.2365], [-0.1281, 0.1651, -0.2591, 0.2552, -0.0277, -0.0059], [0.2977, -0.2489, -0.2881, 0.0379, 0.0805, 0.2175]]>
ag.weight @b2 trainable : tensor<6xf32> = dense<[-0.1231, 0.1533, 0.0631, 0.0315, -0.1922, 0.1197]>

ag.forward @predict(%x: tensor<5x12xf32> {ag.name = "x"})
    -> (tensor<5x6xf32> {ag.name = "logits"}, tensor<5xf32> {ag.name = "row_sum"},
        tensor<1x6xf32> {ag.name = "mean"}) {
  %w1 = ag.read_weight @w1 : tensor<12x24xf32>
  %b1 = ag.read_weight @b1 : tensor<24xf32>
  %w2 = ag.read_weight @w2 : tensor<24x6xf32>
  %b2 = ag.read_weight @b2 : tensor<6xf32>
  %0 = ag.matmul %x, %w1 : (tensor<5x12xf32>, tensor<12x24xf32>) -> tensor<5x24xf32>
  %1 = ag.add %0, %b1 : (tensor<5x24xf32>, tensor<24xf32>) -> tensor<5x24xf32>
  %2 = ag.tanh %1 : tensor<5x24xf32>
  %h = ag.probe "h1" %2 : tensor<5x24xf32>
  %3 = ag.matmul %h, %w2 : (tensor<5x24xf32>, tensor<24x6xf32>) -> tensor<5x6xf32>
  %4 = ag.add %3, %b2 : (tensor<5x6xf32>, tensor<6xf32>) -> tensor<5x6xf32>
  %5 = ag.relu %4 : tensor<5x6xf32>
  %6 = ag.sum %5 axis = 1 : tensor<5x6xf32> -> tensor<5xf32>
  %7 = ag.mean %5 axis = 0 keepdim : tensor<5x6xf32> -> tensor<1x6xf32>
  ag.return %5, %6, %7 : tensor<5x6xf32>, tensor<5xf32>, tensor<1x6xf32>
}

// The same hidden layer as an output named like the probe: comparing this
// entry's reference output with %t/gpu/h1.npy checks the probe read back
// from the device.
ag.forward @probe_h1(%x: tensor<5x12xf32> {ag.name = "x"}) -> (tensor<5x24xf32> {ag.name = "h1"}) {
  %w1 = ag.read_weight @w1 : tensor<12x24xf32>
  %b1 = ag.read_weight @b1 : tensor<24xf32>
  %0 = ag.matmul %x, %w1 : (tensor<5x12xf32>, tensor<12x24xf32>) -> tensor<5x24xf32>
  %1 = ag.add %0, %b1 : (tensor<5x24xf32>, tensor<24xf32>) -> tensor<5x24xf32>
  %2 = ag.tanh %1 : tensor<5x24xf32>
  ag.return %2 : tensor<5x24xf32>
}
