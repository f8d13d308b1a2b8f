"""The capture-run flags that feed a step what a workload's data folder
holds (what examples/ppo_init.py and bench/mlp_init.py write): each
input.NAME.npy as --input NAME, every other KIND.NAME.npy (init.NAME.npy)
as --param NAME."""
import os


def data_args(data):
    args = []
    for f in sorted(os.listdir(data)):
        kind, name = f.split(".", 1)
        args += ["--input" if kind == "input" else "--param",
                 "%s=%s" % (name[:-len(".npy")], os.path.join(data, f))]
    return args
