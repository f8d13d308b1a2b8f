/* example.c - The Capture C API end to end: a forward replay, training steps.
 *
 * Usage: capture-rt-c-example FORWARD.capmod TRAIN.capmod, with the runtime
 * tests' modules test.capmod and train.capmod (see runtime/test/test_util.h
 * and train_module.h). Exits 0 when every result is the expected one.
 */

#include "capture/capture.h"

#include <math.h>
#include <stdio.h>

/* Prints and frees `status` when it is an error; returns 1 then, else 0. */
static int failed(capture_status status, const char *what) {
  if (!status)
    return 0;
  fprintf(stderr, "%s: %s\n", what, capture_status_message(status));
  capture_status_free(status);
  return 1;
}

/* Lists the entries of `module` with their inputs and outputs. */
static int describe(const capture_module *module) {
  size_t entries, i, j, k;
  if (failed(capture_module_entry_count(module, &entries), "entry_count"))
    return 1;
  for (i = 0; i < entries; ++i) {
    const char *entry;
    size_t inputs, outputs;
    capture_tensor_info info;
    if (failed(capture_module_entry_name(module, i, &entry), "entry_name") ||
        failed(capture_module_input_count(module, entry, &inputs), "inputs") ||
        failed(capture_module_output_count(module, entry, &outputs), "outputs"))
      return 1;
    printf("entry %s:", entry);
    for (j = 0; j < inputs + outputs; ++j) {
      capture_status s =
          j < inputs
              ? capture_module_input_info(module, entry, j, &info)
              : capture_module_output_info(module, entry, j - inputs, &info);
      if (failed(s, "info"))
        return 1;
      printf(" %s %s[", j < inputs ? "in" : "out", info.name);
      for (k = 0; k < (size_t)info.rank; ++k)
        printf(k ? ",%lld" : "%lld", (long long)info.shape[k]);
      printf("]%s",
             info.flags & CAPTURE_TENSOR_FILLED_BY_RUNTIME ? "(rt)" : "");
    }
    printf("\n");
  }
  return 0;
}

/* Entry "predict" of test.capmod: y = (x + w) * b, with weight w [2, 4]. */
static int forward(capture_device *device, const char *path) {
  static const int64_t shape[2] = {2, 4};
  float x[8], b[8], w[8], y[8];
  capture_module *module = NULL;
  int i, errors = 0;
  if (failed(capture_module_load_file(device, path, &module), path))
    return 1;
  for (i = 0; i < 8; ++i) {
    x[i] = (float)(i + 1);
    b[i] = 2.0f;
  }
  {
    capture_tensor_view inputs[2] = {
        {"x", CAPTURE_DTYPE_F32, 2, shape, x, sizeof x},
        {"b", CAPTURE_DTYPE_F32, 2, shape, b, sizeof b}};
    /* Only the outputs asked for are copied out; z is dropped. */
    capture_tensor_view output = {"y", CAPTURE_DTYPE_F32, 2, shape,
                                  y,   sizeof y};
    if (describe(module) ||
        failed(capture_module_run(module, "predict", inputs, 2, &output, 1),
               "run predict") ||
        failed(capture_module_get_param(module, "w", w, sizeof w),
               "get_param w")) {
      capture_module_destroy(module);
      return 1;
    }
  }
  printf("y:");
  for (i = 0; i < 8; ++i) {
    printf(" %g", y[i]);
    errors += y[i] != (x[i] + w[i]) * b[i];
  }
  printf("\n");
  capture_module_destroy(module);
  return errors != 0;
}

/* 0.5 * sum((params - x)^2), the training module's loss, from its weights
 * w1 [2, 3] and w2 [4] (flat parameters 0..5 and 8..11). */
static int expected_loss(capture_module *module, const float *x, double *loss) {
  float w1[6], w2[4];
  int i;
  if (failed(capture_module_get_param(module, "w1", w1, sizeof w1), "w1") ||
      failed(capture_module_get_param(module, "w2", w2, sizeof w2), "w2"))
    return 1;
  *loss = 0;
  for (i = 0; i < 6; ++i)
    *loss += 0.5 * (w1[i] - x[i]) * (w1[i] - x[i]);
  for (i = 0; i < 4; ++i)
    *loss += 0.5 * (w2[i] - x[8 + i]) * (w2[i] - x[8 + i]);
  return 0;
}

/* One step of entry "train" on `x`, into `loss` and `grad_norm`. */
static capture_status train_step(capture_module *module, float *x, float *loss,
                                 float *grad_norm) {
  static const int64_t shape[1] = {16};
  /* adamw and max_grad_norm are filled by the runtime: not given. */
  capture_tensor_view input = {"x", CAPTURE_DTYPE_F32, 1, shape,
                               x,   16 * sizeof(float)};
  capture_tensor_view outputs[2] = {
      {"loss", CAPTURE_DTYPE_F32, 0, NULL, loss, sizeof *loss},
      {"grad_norm", CAPTURE_DTYPE_F32, 0, NULL, grad_norm, sizeof *grad_norm}};
  return capture_module_run(module, "train", &input, 1, outputs, 2);
}

static int train(capture_device *device, const char *path) {
  float x[16] = {0.1f, 0.2f,  0.3f, -0.4f, 0.5f, -0.6f, 0, 0,
                 0.7f, -0.8f, 0.9f, 1.1f,  0,    0,     0, 0};
  capture_module *module = NULL;
  capture_train_state state;
  capture_status status;
  float loss, grad_norm;
  double expected;
  int step, errors = 1;
  if (failed(capture_module_load_file(device, path, &module), path))
    return 1;
  if (describe(module))
    goto done;
  for (step = 1; step <= 3; ++step) {
    /* A new learning rate for the last step: no re-recording, no reload. */
    if (step == 3 &&
        failed(capture_module_set_learning_rate(module, "train", 0.01f),
               "set_learning_rate"))
      goto done;
    if (expected_loss(module, x, &expected) ||
        failed(train_step(module, x, &loss, &grad_norm), "train step"))
      goto done;
    printf("step %d: loss=%.6g grad_norm=%.6g\n", step, loss, grad_norm);
    if (fabs(loss - expected) > 1e-5 * expected) {
      fprintf(stderr, "loss %.9g, expected %.9g\n", loss, expected);
      goto done;
    }
  }

  /* A NaN makes the gradient norm NaN: the update is refused (weights,
   * moments and t stay), which the status code tells apart from errors. */
  x[3] = NAN;
  status = train_step(module, x, &loss, &grad_norm);
  if (capture_status_code(status) != CAPTURE_STATUS_UPDATE_REFUSED) {
    fprintf(stderr, "expected a refused step, got: %s\n",
            status ? capture_status_message(status) : "success");
    capture_status_free(status);
    goto done;
  }
  printf("refused: %s\n", capture_status_message(status));
  capture_status_free(status);

  if (failed(capture_module_train_state(module, "train", &state), "state"))
    goto done;
  printf("t=%llu refused=%llu lr=%g\n", (unsigned long long)state.step,
         (unsigned long long)state.refused_steps, state.adamw.lr);
  errors =
      state.step != 3 || state.refused_steps != 1 || state.adamw.lr != 0.01f;
done:
  capture_module_destroy(module);
  return errors;
}

int main(int argc, char **argv) {
  capture_device *device = NULL;
  capture_device_info info;
  const char *choice = NULL;
  int errors;
  if (argc != 3) {
    fprintf(stderr, "usage: %s FORWARD.capmod TRAIN.capmod\n", argv[0]);
    return 2;
  }
  /* As the tools choose: env CAPTURE_DEVICE, else the first GPU, else the
     host device (modules compiled with capture-aot --target=cpu; "vulkan"
     picks lavapipe for others); capture_device_create(NULL, ...) reads no
     environment. */
  if (failed(capture_device_create_from_environment(&device), "device") ||
      failed(capture_device_get_info(device, &info), "device info") ||
      failed(capture_device_choice(device, &choice), "device choice")) {
    capture_device_destroy(device);
    return 1;
  }
  printf("device: %s (%s) (%s)\n", info.name, info.type_name, choice);
  errors = forward(device, argv[1]);
  errors += train(device, argv[2]);
  capture_device_destroy(device);
  printf("%s\n", errors ? "FAILED" : "ok");
  return errors != 0;
}
