// RUN: capture-opt %s -split-input-file -verify-diagnostics

// An ag.binding's range: whole-byte elements in the identity layout, at a
// multiple of the plan's alignment, inside its buffer where its size is
// known (the entry's arguments, the plan's buffers).

func.func @layout(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  // expected-error @+1 {{'ag.binding' op binds 'memref<4x4xf32, strided<[8, 1]>>', expected a memref with the identity layout}}
  %x = ag.binding <input, 0> : memref<4x4xf32, strided<[8, 1]>>
  return
}

// -----

func.func @element(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  // expected-error @+1 {{'ag.binding' op binds elements of 'i1', expected whole-byte integers or floats or 1-D vectors of them}}
  %x = ag.binding <input, 0> : memref<4xi1>
  return
}

// -----

func.func @huge(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  // expected-error @+1 {{'ag.binding' op binds 'memref<4611686018427387904x4611686018427387904xf32>', more than 2^62 bytes}}
  %x = ag.binding <scratch, 0> : memref<4611686018427387904x4611686018427387904xf32>
  return
}

// -----

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 512, optimizer = 0, constants = 0>} {
  func.func @unaligned(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    // expected-error @+1 {{'ag.binding' op binds scratch at byte 128, expected a multiple of the buffer plan's alignment 256}}
    %x = ag.binding <scratch, 128> : memref<4xf32>
    return
  }
}

// -----

func.func @past_input(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  // expected-error @+1 {{'ag.binding' op binds 1024 bytes at byte 256 of input, which has only 1024 bytes}}
  %x = ag.binding <input, 256> : memref<256xf32>
  return
}

// -----

module attributes {ag.buffer_plan = #ag.buffer_plan<alignment = 256, weights = 512, optimizer = 0, constants = 0>} {
  func.func @past_weights(%in: memref<1024xi8>, %out: memref<1024xi8>) {
    // expected-error @+1 {{'ag.binding' op binds 16 bytes at byte 512 of weights, which has only 512 bytes}}
    %x = ag.binding <weights, 512> : memref<4xf32>
    return
  }
}

// -----

func.func @negative(%in: memref<1024xi8>, %out: memref<1024xi8>) {
  // expected-error @+1 {{place offset must be >= 0, got -256}}
  %x = ag.binding <input, -256> : memref<4xf32>
  return
}
