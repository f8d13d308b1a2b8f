//===- capture.h - C API of the Capture Vulkan runtime ------------*- C -*-===//
//
// A C99 interface over capture::rt (runtime/include/capture/rt), for C
// programs and for other languages through their FFI. See docs/c-api.md.
//
// Conventions:
// - Every function that can fail returns a capture_status: NULL on success,
//   else an error object the caller owns and frees with capture_status_free.
//   capture_status_code tells errors apart, capture_status_message says what
//   was expected and what was found. Ignoring a status leaks it.
// - Handles (capture_device, capture_device_list, capture_module) are opaque;
//   create functions write a new handle to an out-parameter (left untouched
//   on error) and the caller destroys it with the matching _destroy function,
//   which accepts NULL.
// - A NULL handle, a NULL pointer argument (except where documented) or an
//   unknown name is an error status, never a crash. A destroyed or otherwise
//   invalid non-NULL handle cannot be detected.
// - Strings and shapes returned through info structs belong to the object
//   they describe and stay valid until it is destroyed.
// - Sizes are in bytes; element data is little-endian, C (row-major) order.
// - No global state: every object is independent. A module is not
//   thread-safe (one call at a time per module); modules sharing a device may
//   be used from different threads.
// - No C++ exception crosses this API; an allocation failure inside a call
//   returns a CAPTURE_STATUS_OUT_OF_MEMORY status.
//
//===----------------------------------------------------------------------===//

#ifndef CAPTURE_CAPTURE_H
#define CAPTURE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

// Exported from the shared build (CAPTURE_RT_C_SHARED), which hides the
// runtime's C++ symbols.
#if defined(__GNUC__)
#define CAPTURE_API __attribute__((visibility("default")))
#else
#define CAPTURE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

//===--- Status -----------------------------------------------------------===//

/// What kind of error a status is; CAPTURE_STATUS_OK only for NULL.
typedef enum capture_code {
  /// Success (the NULL status).
  CAPTURE_STATUS_OK = 0,
  /// Any other failure: loading, a Vulkan call, a device-side read.
  CAPTURE_STATUS_ERROR = 1,
  /// A NULL handle or pointer, an index out of range, a buffer of the wrong
  /// size, a wrong dtype or shape, a value the runtime refuses.
  CAPTURE_STATUS_INVALID_ARGUMENT = 2,
  /// An unknown entry, input, output, weight or probe name.
  CAPTURE_STATUS_NOT_FOUND = 3,
  /// A training step whose gradient norm was not finite: the AdamW update was
  /// not applied (weights, moments and the step counter are unchanged), no
  /// output was written, and the next step works normally.
  CAPTURE_STATUS_UPDATE_REFUSED = 4,
  /// An allocation failed inside the call, or device memory ran out (or
  /// the device's memory limit would be passed): the message says which.
  CAPTURE_STATUS_OUT_OF_MEMORY = 5
} capture_code;

/// An error, owned by the caller; NULL means success.
typedef struct capture_status_s *capture_status;

/// The kind of `status`: CAPTURE_STATUS_OK for NULL.
CAPTURE_API capture_code capture_status_code(capture_status status);

/// The message of `status`: the function, then what was expected and what
/// was found ("out of memory" for CAPTURE_STATUS_OUT_OF_MEMORY); "" for
/// NULL. Valid until the status is freed.
CAPTURE_API const char *capture_status_message(capture_status status);

/// Frees `status`; NULL is a no-op.
CAPTURE_API void capture_status_free(capture_status status);

//===--- Shared types -----------------------------------------------------===//

/// Element types (capture_tensor_info::dtype, capture_tensor_view::dtype).
typedef enum capture_dtype {
  CAPTURE_DTYPE_F32 = 0, ///< 32-bit IEEE float
  CAPTURE_DTYPE_I32 = 1  ///< 32-bit signed integer
} capture_dtype;

/// Kinds of entries (capture_module_entry_kind).
typedef enum capture_entry_kind {
  CAPTURE_ENTRY_FORWARD = 0, ///< inputs -> outputs
  CAPTURE_ENTRY_TRAIN = 1    ///< one training step: loss, then AdamW
} capture_entry_kind;

/// Bits of capture_tensor_info::flags.
enum {
  /// An input of a training entry that the runtime fills (hyperparameters,
  /// clip limit): capture_module_run refuses it.
  CAPTURE_TENSOR_FILLED_BY_RUNTIME = 1,
  /// A weight that training updates.
  CAPTURE_TENSOR_TRAINABLE = 2
};

/// The description of an input, output, probe or weight. Pointers belong to
/// the module and stay valid until it is destroyed.
typedef struct capture_tensor_info {
  /// Name, as written in the module file.
  const char *name;
  /// A capture_dtype.
  int32_t dtype;
  /// Number of dimensions; 0 for a scalar.
  int32_t rank;
  /// `rank` dimensions, outermost first (may be NULL when rank is 0).
  const int64_t *shape;
  /// Bytes of data: product(shape) * 4.
  size_t byte_size;
  /// CAPTURE_TENSOR_* bits.
  uint32_t flags;
} capture_tensor_info;

/// A caller-owned tensor passed to capture_module_run or
/// capture_module_set_param. Every field is checked against the module's
/// description: name, dtype, rank, shape (may be NULL when rank is 0) and
/// byte_size (which must equal the described size). Inputs are only read
/// through `data`; outputs are written to it.
typedef struct capture_tensor_view {
  const char *name;     ///< input, output or weight name
  int32_t dtype;        ///< a capture_dtype
  int32_t rank;         ///< number of dimensions; 0 for a scalar
  const int64_t *shape; ///< `rank` dimensions, outermost first
  void *data;           ///< `byte_size` bytes, owned by the caller
  size_t byte_size;     ///< product(shape) * 4
} capture_tensor_view;

/// AdamW hyperparameters, named as torch.optim.AdamW names them.
typedef struct capture_adamw {
  float lr;           ///< learning rate, finite and >= 0
  float beta1;        ///< first moment decay, in [0, 1)
  float beta2;        ///< second moment decay, in [0, 1)
  float eps;          ///< added to the denominator, > 0
  float weight_decay; ///< weight decay, >= 0, in the entry's compiled mode
} capture_adamw;

/// The optimizer state of a training entry (capture_module_train_state).
typedef struct capture_train_state {
  /// Updates applied so far (t); the next step is step t + 1.
  uint64_t step;
  /// Steps refused since load because the gradient norm was not finite.
  uint64_t refused_steps;
  /// The hyperparameters the next step uses.
  capture_adamw adamw;
  /// 1 when the entry clips gradients, else 0.
  int32_t clips;
  /// The clip limit the next step uses; 0 when `clips` is 0.
  float max_grad_norm;
  /// Number of f32 values in each AdamW moment (capture_module_read_moments
  /// wants moment_count * 4 bytes per moment).
  size_t moment_count;
} capture_train_state;

//===--- Devices ----------------------------------------------------------===//

/// Device types (capture_device_info::type).
typedef enum capture_device_type {
  CAPTURE_DEVICE_CPU = 0, ///< e.g. lavapipe
  CAPTURE_DEVICE_DISCRETE_GPU = 1,
  CAPTURE_DEVICE_INTEGRATED_GPU = 2,
  CAPTURE_DEVICE_VIRTUAL_GPU = 3,
  CAPTURE_DEVICE_OTHER = 4,
  CAPTURE_DEVICE_HOST = 5 ///< the host device (selector "host"): no Vulkan
} capture_device_type;

/// A physical device. Strings belong to the list or device it came from.
typedef struct capture_device_info {
  /// Index in Vulkan enumeration order (what a numeric selector means).
  uint32_t index;
  /// Device name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
  const char *name;
  /// A capture_device_type.
  int32_t type;
  /// "cpu", "discrete-gpu", "integrated-gpu", "virtual-gpu" or "other".
  const char *type_name;
  /// Supported Vulkan version (VK_MAKE_API_VERSION packing).
  uint32_t api_version;
  /// 1 when it has a compute queue (else no module can run on it).
  int32_t has_compute;
} capture_device_info;

/// The physical devices the Vulkan loader saw, captured once.
typedef struct capture_device_list_s capture_device_list;

/// A Vulkan instance, logical device and compute queue.
typedef struct capture_device_s capture_device;

/// Enumerates the physical devices into a new list (`*out_list`). Errors:
/// no Vulkan driver (the message says how to install lavapipe).
CAPTURE_API capture_status
capture_device_list_create(capture_device_list **out_list);

/// Number of devices in `list`.
CAPTURE_API capture_status
capture_device_list_count(const capture_device_list *list, size_t *out_count);

/// Device `index` of `list`; an index >= the count is
/// CAPTURE_STATUS_INVALID_ARGUMENT. Strings live as long as `list`.
CAPTURE_API capture_status capture_device_list_info(
    const capture_device_list *list, size_t index, capture_device_info *out);

/// Destroys `list`; NULL is a no-op.
CAPTURE_API void capture_device_list_destroy(capture_device_list *list);

/// Creates a device. `selector` is an index, "cpu" / "lavapipe" /
/// "llvmpipe", "gpu", "vulkan" (a GPU, else lavapipe), "host" (native
/// code, no Vulkan) or a case-insensitive substring of the device name;
/// NULL or "" picks the first discrete GPU, else integrated, virtual, else
/// the host device (which runs modules compiled with capture-aot
/// --target=cpu and refuses others, naming "vulkan");
/// capture_device_choice says which rule chose. The library reads no
/// environment variable here (see capture_device_create_from_environment).
/// Errors: no matching device (the message lists every device seen), no
/// Vulkan driver for a Vulkan selector.
CAPTURE_API capture_status capture_device_create(const char *selector,
                                                 capture_device **out_device);

/// Creates a device as the tools do: the selector from env CAPTURE_DEVICE
/// (else the default choice), and the validation layer when env
/// CAPTURE_VALIDATION is "1", "true", "on" or "yes". Errors as
/// capture_device_create (a bad CAPTURE_DEVICE is named as such).
CAPTURE_API capture_status
capture_device_create_from_environment(capture_device **out_device);

/// Values of capture_device_options::cpu_threads besides a count >= 0.
enum {
  /// Capture's default: 0, every dispatch on the submitting thread.
  CAPTURE_CPU_THREADS_UNSET = -2,
  /// llvmpipe's own default: its pool, one thread per core.
  CAPTURE_CPU_THREADS_POOL = -1
};

/// Values of capture_device_options::wait_policy (rt::WaitPolicy).
enum {
  /// Polls near the end of each step on lavapipe without its pool when the
  /// process may use 2 CPUs or more; else blocks. The default.
  CAPTURE_WAIT_AUTO = 0,
  /// Blocks in vkWaitForFences until the driver wakes the thread.
  CAPTURE_WAIT_BLOCK = 1,
  /// Sleeps until shortly before the end recent steps predict, then polls
  /// for a bounded time, then blocks.
  CAPTURE_WAIT_SPIN = 2
};

/// How capture_device_create_with_options creates a device. Fill it with
/// capture_device_options_init first: it sets struct_size, by which the
/// library tells this layout from later, longer ones.
typedef struct capture_device_options {
  /// sizeof(capture_device_options), as capture_device_options_init sets.
  size_t struct_size;
  /// As capture_device_create's selector; NULL or "": the default choice.
  const char *selector;
  /// Threads of llvmpipe (lavapipe, the CPU device): a count >= 0 (0: every
  /// dispatch on the submitting thread, fastest for steps of many small
  /// dispatches), CAPTURE_CPU_THREADS_POOL or CAPTURE_CPU_THREADS_UNSET (0).
  /// Env LP_NUM_THREADS, when set, always wins; other devices ignore it.
  /// capture_advise_cpu_threads_file chooses it for a module.
  int32_t cpu_threads;
  /// 1: VK_LAYER_KHRONOS_validation with synchronization validation, each
  /// message printed to stderr; 0: off.
  int32_t validation;
  /// Most bytes of device memory the runtime's buffers may hold on this
  /// device at once; 0: no limit but the driver's.
  uint64_t memory_limit;
  /// How the calling thread waits for each submission: CAPTURE_WAIT_AUTO,
  /// CAPTURE_WAIT_BLOCK or CAPTURE_WAIT_SPIN. Added after memory_limit: a
  /// struct_size that ends before it (a caller built against the older
  /// header) means CAPTURE_WAIT_AUTO.
  int32_t wait_policy;
} capture_device_options;

/// Sets every field of `options` to its default: struct_size, NULL
/// selector, CAPTURE_CPU_THREADS_UNSET, no validation, no memory limit,
/// CAPTURE_WAIT_AUTO.
/// NULL is a no-op.
CAPTURE_API void capture_device_options_init(capture_device_options *options);

/// Creates a device as `options` say. Errors: options NULL or not made by
/// capture_device_options_init (struct_size), a cpu_threads below
/// CAPTURE_CPU_THREADS_UNSET, a validation other than 0 or 1, a wait_policy
/// other than the three CAPTURE_WAIT_ values, then those of
/// capture_device_create.
CAPTURE_API capture_status capture_device_create_with_options(
    const capture_device_options *options, capture_device **out_device);

/// llvmpipe's threads as `device` was created with them: the count, or
/// CAPTURE_CPU_THREADS_POOL for the driver's default, into *out_threads, and
/// where it came from into *out_description (e.g. "0 (Capture default)",
/// "4 (LP_NUM_THREADS from the environment)"; valid as long as `device`).
/// Either out-parameter may be NULL.
CAPTURE_API capture_status
capture_device_cpu_threads(const capture_device *device, int32_t *out_threads,
                           const char **out_description);

/// How `device` waits for its submissions: CAPTURE_WAIT_BLOCK or
/// CAPTURE_WAIT_SPIN (never AUTO: what it chose) into *out_policy, and why
/// into *out_description (e.g. "spin (auto: llvmpipe runs without its pool
/// and this process may use 4 CPUs)"; valid as long as `device`). Either
/// out-parameter may be NULL.
CAPTURE_API capture_status capture_device_wait(const capture_device *device,
                                               int32_t *out_policy,
                                               const char **out_description);

/// llvmpipe's threads for the module file at `path`, from the compiler's
/// work estimates: CAPTURE_CPU_THREADS_POOL when the entry with the most
/// work averages 1M multiply-add equivalents or more per dispatch, else 0,
/// into *out_threads, for capture_device_options::cpu_threads. The reason
/// ("entry 'train': 5.6M work per dispatch >= 1.0M: llvmpipe's pool") goes
/// into `reason`: at most reason_size bytes with the terminating NUL,
/// truncated to fit (`reason` may be NULL when reason_size is 0). Errors:
/// an unreadable file, one that does not verify.
CAPTURE_API capture_status capture_advise_cpu_threads_file(const char *path,
                                                           int32_t *out_threads,
                                                           char *reason,
                                                           size_t reason_size);

/// As capture_advise_cpu_threads_file, for a module file held in memory
/// (`size` bytes at `data`).
CAPTURE_API capture_status capture_advise_cpu_threads_bytes(
    const void *data, size_t size, int32_t *out_threads, char *reason,
    size_t reason_size);

/// The physical device `device` runs on; strings live as long as `device`.
CAPTURE_API capture_status capture_device_get_info(const capture_device *device,
                                                   capture_device_info *out);

/// Why `device` was chosen, into *out_choice (valid as long as `device`):
/// "selector 'vulkan'", "CAPTURE_DEVICE 'host'", "default: no Vulkan GPU,
/// so the host device", ...
CAPTURE_API capture_status capture_device_choice(const capture_device *device,
                                                 const char **out_choice);

/// Releases `device`; NULL is a no-op. Modules loaded on it keep the Vulkan
/// device alive until they are destroyed too.
CAPTURE_API void capture_device_destroy(capture_device *device);

//===--- Modules ----------------------------------------------------------===//

/// A loaded .capmod module: pipelines, buffers, recorded entries.
typedef struct capture_module_s capture_module;

/// Reads, verifies and loads the module file at `path` on `device`.
/// Errors: unreadable file, a file that does not verify (the message names
/// the bad field), a device that cannot run it, a failing Vulkan call.
CAPTURE_API capture_status capture_module_load_file(
    capture_device *device, const char *path, capture_module **out_module);

/// Verifies and loads a module file held in memory (`size` bytes at
/// `data`, copied: the caller may free them on return). Errors as
/// capture_module_load_file.
CAPTURE_API capture_status
capture_module_load_bytes(capture_device *device, const void *data, size_t size,
                          capture_module **out_module);

/// Destroys `module` and every Vulkan object it created; NULL is a no-op.
CAPTURE_API void capture_module_destroy(capture_module *module);

/// Number of entries of `module`.
CAPTURE_API capture_status
capture_module_entry_count(const capture_module *module, size_t *out_count);

/// Name of entry `index` (file order); valid as long as `module`.
CAPTURE_API capture_status capture_module_entry_name(
    const capture_module *module, size_t index, const char **out_name);

/// The capture_entry_kind of entry `entry`.
CAPTURE_API capture_status capture_module_entry_kind(
    const capture_module *module, const char *entry, int32_t *out_kind);

/// Number of inputs of entry `entry`, including the inputs a training entry's
/// runtime fills (flag CAPTURE_TENSOR_FILLED_BY_RUNTIME).
CAPTURE_API capture_status capture_module_input_count(
    const capture_module *module, const char *entry, size_t *out_count);

/// Input `index` of entry `entry`, in declaration order.
CAPTURE_API capture_status
capture_module_input_info(const capture_module *module, const char *entry,
                          size_t index, capture_tensor_info *out);

/// Number of outputs of entry `entry` (a training entry's loss first) that a
/// run can return. The status an index check writes (an output of the
/// packed layout, e.g. "index_check.0") is not among them: the runtime reads
/// it, and an index out of range is the run's error.
CAPTURE_API capture_status capture_module_output_count(
    const capture_module *module, const char *entry, size_t *out_count);

/// Output `index` of entry `entry`, in declaration order.
CAPTURE_API capture_status
capture_module_output_info(const capture_module *module, const char *entry,
                           size_t index, capture_tensor_info *out);

/// Number of probes (intermediates readable after a replay) of `entry`.
CAPTURE_API capture_status capture_module_probe_count(
    const capture_module *module, const char *entry, size_t *out_count);

/// Probe `index` of entry `entry`.
CAPTURE_API capture_status
capture_module_probe_info(const capture_module *module, const char *entry,
                          size_t index, capture_tensor_info *out);

/// Number of weights of `module`.
CAPTURE_API capture_status
capture_module_weight_count(const capture_module *module, size_t *out_count);

/// Weight `index` of `module`; flags has CAPTURE_TENSOR_TRAINABLE when
/// training updates it.
CAPTURE_API capture_status capture_module_weight_info(
    const capture_module *module, size_t index, capture_tensor_info *out);

/// Replays entry `entry` as one queue submission.
///
/// `inputs` (n_inputs views) must give every input of the entry exactly once,
/// except the ones flagged CAPTURE_TENSOR_FILLED_BY_RUNTIME, which must not
/// be given. `outputs` (n_outputs views, any subset of the entry's outputs,
/// each at most once) receive copies of those outputs; the rest are dropped.
/// Either array may be NULL when its count is 0. Every view is checked before
/// anything runs (name, dtype, rank, shape, byte_size, non-NULL data when
/// byte_size > 0); a mismatch is CAPTURE_STATUS_INVALID_ARGUMENT naming the
/// tensor, the expected and the given value, an unknown name
/// CAPTURE_STATUS_NOT_FOUND. Output buffers are written only on success.
///
/// For a training entry, one step (the outputs are forward values from before
/// the update). A non-finite gradient norm returns
/// CAPTURE_STATUS_UPDATE_REFUSED: the update was not applied, nothing was
/// written to the outputs, the next call works normally.
CAPTURE_API capture_status
capture_module_run(capture_module *module, const char *entry,
                   const capture_tensor_view *inputs, size_t n_inputs,
                   const capture_tensor_view *outputs, size_t n_outputs);

/// As capture_module_run, also copying the probes named by `probes`
/// (n_probes views, each a probe of the entry at most once) out of the same
/// queue submission. An entry without probes is
/// CAPTURE_STATUS_INVALID_ARGUMENT (the message says how to add one), an
/// unknown probe CAPTURE_STATUS_NOT_FOUND listing the entry's probes. With
/// n_probes = 0 it is capture_module_run: nothing extra is copied or
/// allocated (the probe staging buffer is made on the first request).
CAPTURE_API capture_status capture_module_run_with_probes(
    capture_module *module, const char *entry,
    const capture_tensor_view *inputs, size_t n_inputs,
    const capture_tensor_view *outputs, size_t n_outputs,
    const capture_tensor_view *probes, size_t n_probes);

/// Bytes of inputs the last run of `module` copied to the device: inputs
/// equal to what an entry's previous successful run sent are not sent again.
CAPTURE_API capture_status capture_module_last_upload_bytes(
    const capture_module *module, uint64_t *out_bytes);

/// Replaces the weights named by `params` (n_params views) in one upload.
/// Every view is checked first, so on error nothing changed: an unknown
/// name is CAPTURE_STATUS_NOT_FOUND, a repeated one, a wrong dtype, shape or
/// byte_size CAPTURE_STATUS_INVALID_ARGUMENT naming the weight. With
/// `partial` = 0 every weight of the module must be given (a missing one is
/// INVALID_ARGUMENT naming it); with 1 only the given ones change.
CAPTURE_API capture_status capture_module_set_params(
    capture_module *module, const capture_tensor_view *params, size_t n_params,
    int32_t partial);

/// Copies the current values of the weights named by `params` (n_params
/// views, any subset, each at most once; checked as capture_module_run's
/// outputs) from one read-back of every weight.
CAPTURE_API capture_status capture_module_get_params(
    capture_module *module, const capture_tensor_view *params, size_t n_params);

/// Replaces the value of the weight named `value->name`; dtype, shape and
/// byte_size must match its capture_tensor_info. One upload submit.
CAPTURE_API capture_status capture_module_set_param(
    capture_module *module, const capture_tensor_view *value);

/// Copies the current value of weight `name` into `data` (`byte_size` must
/// equal the weight's byte_size). One read-back submit.
CAPTURE_API capture_status capture_module_get_param(capture_module *module,
                                                    const char *name,
                                                    void *data,
                                                    size_t byte_size);

/// Copies probe `probe` of entry `entry`, as the last replay left it, into
/// `data` (`byte_size` must equal the probe's byte_size). CAPTURE_STATUS_ERROR
/// when the last replay was of another entry (which may have overwritten it),
/// failed, or there was none.
CAPTURE_API capture_status capture_module_read_probe(capture_module *module,
                                                     const char *entry,
                                                     const char *probe,
                                                     void *data,
                                                     size_t byte_size);

/// Number of entry command buffers recorded since load (one per entry; stays
/// constant while replaying and changing hyperparameters).
CAPTURE_API capture_status
capture_module_record_count(const capture_module *module, uint64_t *out_count);

//===--- Training (entries of kind CAPTURE_ENTRY_TRAIN) -------------------===//
// On a forward entry each of these is CAPTURE_STATUS_INVALID_ARGUMENT. The
// setters only change what the next steps write into their inputs: the
// recorded command buffer is never re-recorded.

/// Sets the learning rate of the next steps of `entry`; finite and >= 0.
CAPTURE_API capture_status capture_module_set_learning_rate(
    capture_module *module, const char *entry, float lr);

/// Sets the learning rate of param group `group` (0: the first, as
/// capture_module_set_learning_rate) of the next steps of `entry`; finite and
/// >= 0. CAPTURE_STATUS_INVALID_ARGUMENT, naming the groups there are, for a
/// group the entry does not have.
CAPTURE_API capture_status capture_module_set_group_learning_rate(
    capture_module *module, const char *entry, size_t group, float lr);

/// Sets the gradient clipping limit of the next steps of `entry`; finite and
/// > 0. An error for an entry compiled without clipping.
CAPTURE_API capture_status capture_module_set_max_grad_norm(
    capture_module *module, const char *entry, float max_grad_norm);

/// Sets every AdamW hyperparameter of `entry`, with the loader's rules (see
/// capture_adamw). The weight-decay mode (decoupled, or Adam's L2 term) is
/// compiled into the entry and stays. Nothing changes on error.
CAPTURE_API capture_status capture_module_set_adamw(capture_module *module,
                                                    const char *entry,
                                                    const capture_adamw *adamw);

/// Sets the step counter t of `entry` (the next step uses the bias
/// corrections of step t + 1), e.g. to resume from weights restored with
/// capture_module_set_param and moments restored with
/// capture_module_write_moments.
CAPTURE_API capture_status capture_module_set_train_step(capture_module *module,
                                                         const char *entry,
                                                         uint64_t step);

/// The step counter, refused steps and hyperparameters of `entry`.
CAPTURE_API capture_status capture_module_train_state(
    const capture_module *module, const char *entry, capture_train_state *out);

/// Reads both AdamW moments of `entry` back from the device, bit for bit, as
/// f32 arrays of capture_train_state::moment_count values: element i belongs
/// to the i-th f32 of the entry's flat parameter range. `m` (torch's exp_avg)
/// and `v` (exp_avg_sq) must each hold `byte_size` = moment_count * 4 bytes.
CAPTURE_API capture_status capture_module_read_moments(capture_module *module,
                                                       const char *entry,
                                                       void *m, void *v,
                                                       size_t byte_size);

/// Writes both AdamW moments of `entry`, laid out as
/// capture_module_read_moments returns them (`byte_size` = moment_count * 4
/// bytes each); with capture_module_set_train_step and the weights, a saved
/// optimizer state resumes bit for bit. Nothing changes on error.
CAPTURE_API capture_status capture_module_write_moments(capture_module *module,
                                                        const char *entry,
                                                        const void *m,
                                                        const void *v,
                                                        size_t byte_size);

/// Copies the flat gradients (before clipping) of the last step of `entry` into
/// `data` (byte_size = capture_train_state::moment_count * 4), bit for bit;
/// element i belongs to the i-th f32 of the entry's parameter range, as for
/// the moments. CAPTURE_STATUS_ERROR when the module does not describe its
/// gradient range or the entry has not stepped since load.
CAPTURE_API capture_status capture_module_read_gradients(capture_module *module,
                                                         const char *entry,
                                                         void *data,
                                                         size_t byte_size);

/// Restarts the optimizer of `entry` without reloading: both moments are
/// zeroed on the device and the step counter becomes 0; weights,
/// hyperparameters and the refused-step count are kept.
CAPTURE_API capture_status
capture_module_reset_optimizer(capture_module *module, const char *entry);

//===--- Deferred runs ----------------------------------------------------===//
// A run checked and its inputs packed now, submitted later together with
// the device's other deferred runs in ONE queue submission (several modules
// stepping over shared weights, SAC's critics and actor, cost one
// submission and one wait): when a result is taken, before any other
// submission on the device (which takes the waiting runs along, ahead of
// its own work), before a read or change of the state they change, at a
// second deferred run of the same module, or at
// capture_device_submit_deferred. Runs happen in the order deferred. On the
// host device a deferred run runs at once (nothing to save by waiting).
// Not thread-safe: defer and take from one thread per device.

/// One deferred run of an entry.
typedef struct capture_deferred_s capture_deferred;

/// Defers a run of entry `entry`: `inputs` as capture_module_run's (checked
/// now: a bad view is this call's error and nothing is deferred); no
/// outputs now, capture_deferred_take writes them. *out_run receives the
/// handle (NULL on error), released with capture_deferred_release.
CAPTURE_API capture_status
capture_module_run_deferred(capture_module *module, const char *entry,
                            const capture_tensor_view *inputs, size_t n_inputs,
                            capture_deferred **out_run);

/// Writes the outputs of `run` (any subset, as capture_module_run's),
/// submitting the device's deferred runs first when they still wait. What
/// the submission found is this call's status: a refused step is
/// CAPTURE_STATUS_UPDATE_REFUSED (its state unchanged, no output written;
/// the runs deferred after it still ran). A result is taken once: a second
/// take is CAPTURE_STATUS_INVALID_ARGUMENT. A bad output view is an error
/// that keeps the result for another take.
CAPTURE_API capture_status
capture_deferred_take(capture_deferred *run, const capture_tensor_view *outputs,
                      size_t n_outputs);

/// 1 when the run's submission has completed (take will not submit), else
/// 0 (also for NULL and a taken run).
CAPTURE_API int capture_deferred_done(const capture_deferred *run);

/// Releases `run`, dropping a result not taken (the run itself still
/// happens); NULL is a no-op.
CAPTURE_API void capture_deferred_release(capture_deferred *run);

/// Submits the runs deferred on `device` in one submission and waits; each
/// result then waits for its take. Its error is also every such run's.
CAPTURE_API capture_status
capture_device_submit_deferred(capture_device *device);

/// Runs deferred on `device` and not submitted yet.
CAPTURE_API capture_status
capture_device_deferred_count(const capture_device *device, size_t *out_count);

//===--- Shared weights ---------------------------------------------------===//

/// As capture_module_load_bytes, but the new module uses the Weights buffer
/// of `share_weights_with` (on the same device) instead of its own: a
/// training step of one is seen by the other with no copy. Every weight of
/// the new module must exist there by name with the same dtype, shape and
/// offset, else CAPTURE_STATUS_ERROR naming the weight and both shapes. The
/// memory is freed with the last module using it; its current values win
/// over the new module's initial ones.
CAPTURE_API capture_status capture_module_load_bytes_shared(
    capture_device *device, const void *data, size_t size,
    const capture_module *share_weights_with, capture_module **out_module);

/// As capture_module_load_bytes_shared, from the file at `path`.
CAPTURE_API capture_status capture_module_load_file_shared(
    capture_device *device, const char *path,
    const capture_module *share_weights_with, capture_module **out_module);

//===--- Training-step handles --------------------------------------------===//
// The training calls on one training entry, opened once, for code that holds
// "the training step" rather than a module and an entry name (the C form of
// rt::TrainStep). Each is its capture_module_* counterpart on the handle's
// entry; errors name the capture_train_step_* function.

/// A training entry of a loaded module. It shares ownership of the module,
/// which may be destroyed first.
typedef struct capture_train_step_s capture_train_step;

/// Opens training entry `entry` of `module`. An unknown entry is
/// CAPTURE_STATUS_NOT_FOUND listing the entries, a forward entry
/// CAPTURE_STATUS_INVALID_ARGUMENT.
CAPTURE_API capture_status capture_train_step_open(capture_module *module,
                                                   const char *entry,
                                                   capture_train_step **out);

/// Releases `step`; NULL is a no-op.
CAPTURE_API void capture_train_step_close(capture_train_step *step);

/// One step (capture_module_run): every input but the runtime-filled ones,
/// any subset of the outputs. A refused step is CAPTURE_STATUS_UPDATE_REFUSED
/// and writes no output.
CAPTURE_API capture_status capture_train_step_run(
    capture_train_step *step, const capture_tensor_view *inputs,
    size_t n_inputs, const capture_tensor_view *outputs, size_t n_outputs);

/// capture_module_set_learning_rate on the step.
CAPTURE_API capture_status
capture_train_step_set_learning_rate(capture_train_step *step, float lr);

/// capture_module_set_max_grad_norm on the step.
CAPTURE_API capture_status capture_train_step_set_max_grad_norm(
    capture_train_step *step, float max_grad_norm);

/// capture_module_set_adamw on the step.
CAPTURE_API capture_status capture_train_step_set_adamw(
    capture_train_step *step, const capture_adamw *adamw);

/// capture_module_train_state on the step.
CAPTURE_API capture_status capture_train_step_state(
    const capture_train_step *step, capture_train_state *out);

/// capture_module_read_moments on the step.
CAPTURE_API capture_status capture_train_step_read_moments(
    capture_train_step *step, void *m, void *v, size_t byte_size);

/// Restores a saved optimizer state: both moments (as
/// capture_train_step_read_moments returns them) and the step counter `t`.
/// With the weights (capture_module_set_params), a run resumes bit for bit.
/// The moments are checked before anything changes.
CAPTURE_API capture_status capture_train_step_restore_optimizer(
    capture_train_step *step, const void *m, const void *v, size_t byte_size,
    uint64_t t);

/// capture_module_read_gradients on the step.
CAPTURE_API capture_status capture_train_step_read_gradients(
    capture_train_step *step, void *data, size_t byte_size);

/// capture_module_reset_optimizer on the step.
CAPTURE_API capture_status
capture_train_step_reset_optimizer(capture_train_step *step);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // CAPTURE_CAPTURE_H
