#!/usr/bin/python3
"""Writes the PPO training step of examples/ppo_train.mlir (batch 64) at
another batch size: every tensor whose leading dimension is the batch gets
the new size; weights (ag.weight, ag.read_weight, the weight operand of
each matmul and the bias operand of each bias add) keep their shapes. The
example stays the one source of the model; batch 64 reproduces it byte for
byte (checked by the lit test test/bench/ppo-model.mlir).

usage: ppo_model.py --batch B [-o FILE]
"""
import argparse
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_BATCH = 64
TENSOR = re.compile(r"tensor<([0-9x]*)xf32>")


def rebatch_type(text, batch):
    """tensor<64x...> -> tensor<Bx...> for every tensor type in `text`."""
    def one(m):
        dims = m.group(1).split("x")
        if dims[0] == str(SOURCE_BATCH):
            dims[0] = str(batch)
        return "tensor<%sxf32>" % "x".join(dims)
    return TENSOR.sub(one, text)


def rebatch_line(line, batch):
    if re.search(r"\bag\.(weight|read_weight)\b", line):
        return line
    m = re.match(r"(.*\bag\.(matmul|add) (%\w+), (%\w+)[^:]*: \()(tensor<[^>]*>), "
                 r"(tensor<[^>]*>)(\) -> )(tensor<[^>]*>)(.*)$", line)
    if m and (m.group(2) == "matmul" or re.match(r"%\w+_mm\d", m.group(3))):
        # The second operand is a weight (matmul) or a bias (bias add).
        return (m.group(1) + rebatch_type(m.group(5), batch) + ", " +
                m.group(6) + m.group(7) + rebatch_type(m.group(8), batch) +
                m.group(9))
    return rebatch_type(line, batch)


def model(batch):
    with open(os.path.join(root, "examples", "ppo_train.mlir")) as f:
        lines = f.read().split("\n")
    return "\n".join(rebatch_line(l, batch) for l in lines)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("-o", "--output")
    a = p.parse_args()
    if a.batch < 1:
        sys.exit("ppo_model.py: --batch must be >= 1, got %d" % a.batch)
    text = model(a.batch)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
