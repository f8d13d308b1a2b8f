# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "CAPTURE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.capture_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The runtime tests pick lavapipe unless told otherwise, and must see the
# environment's Vulkan settings.
for var in ["VK_ICD_FILENAMES", "VK_DRIVER_FILES", "CAPTURE_DEVICE",
            "CAPTURE_VALIDATION", "LP_NUM_THREADS", "XDG_RUNTIME_DIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

tool_dirs = [config.capture_tools_dir, config.capture_run_dir,
             config.llvm_tools_dir]
tools = [
    "capture-opt",
    "capture-aot",
    "capture-interp",
    "capture-run",
    ToolSubst("spirv-val", config.spirv_val),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# PyTorch (Debian's python3-torch, for the python running lit) is the peer
# for training-step numerics.
import subprocess
import sys
if subprocess.run([sys.executable, "-c", "import torch, numpy"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")

# The project's own PyTorch peer of the PPO workload (bench/ppo_torch.py).
ppo_torch = os.path.join(os.path.dirname(config.test_source_root), "bench",
                         "ppo_torch.py")
if os.path.exists(ppo_torch):
    config.available_features.add("ppo-peer")
    config.substitutions.append(("%{ppo_torch}", os.path.abspath(ppo_torch)))
