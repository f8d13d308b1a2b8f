#!/usr/bin/env python3
"""Writes fuzz/corpus/mlir/: the compiler fuzzer's seeds, cut from the lit
tests and examples that start at the ag level (one file per `// -----`
section, comments dropped, at most 6 KiB each). Rerun it after adding such
tests; the result is checked in so that a fuzz run needs nothing else.

  usage: fuzz/make_corpus.py
"""
import glob
import hashlib
import os
import re

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = os.path.join(root, "fuzz", "corpus", "mlir")
# Inputs a user would hand to capture-aot: the ag dialect, valid or not.
# (test/Conversion starts below the guard, so its files would only reach
# the guard's first error.)
sources = ["test/Dialect/Ag", "test/Transforms", "test/Target", "test/e2e",
           "test/Reference", "test/bench", "examples"]
limit = 6 * 1024

os.makedirs(out, exist_ok=True)
for old in glob.glob(os.path.join(out, "*.mlir")):
    os.remove(old)
seen = set()
for folder in sources:
    for path in sorted(glob.glob(os.path.join(root, folder, "**", "*.mlir"),
                                 recursive=True)):
        text = open(path).read()
        for i, part in enumerate(re.split(r"^// -----.*$", text, flags=re.M)):
            lines = [l for l in part.splitlines()
                     if not l.lstrip().startswith("//")]
            body = "\n".join(lines).strip() + "\n"
            if len(body) < 16 or len(body) > limit:
                continue
            digest = hashlib.sha1(body.encode()).hexdigest()[:10]
            if digest in seen:
                continue
            seen.add(digest)
            # test/Dialect/Ag/ops.mlir, section 2 -> Dialect.Ag.ops-2.mlir
            rel = os.path.splitext(os.path.relpath(path, root))[0]
            name = rel.removeprefix("test" + os.sep).replace(os.sep, ".")
            with open(os.path.join(out, f"{name}-{i}.mlir"), "w") as f:
                f.write(body)
print(f"fuzz/make_corpus.py: {len(seen)} seeds in fuzz/corpus/mlir")

# A libFuzzer dictionary: the dialect's op and attribute spellings, so that
# mutations splice whole tokens instead of breaking the parse.
tokens = set()
for td in glob.glob(os.path.join(root, "include", "capture", "**", "*.td"),
                    recursive=True):
    text = open(td).read()
    # Ops defined through Ag_Op or one of its classes (Ag_UnaryOp<"exp",
    # ...>, Ag_ExactBinaryOp<"add", ...>, Ag_ReductionOp<"sum", ...>).
    tokens.update("ag." + m for m in re.findall(
        r'^def Ag_\w+Op\s*:\s*Ag_\w*Op<"(\w+)"', text, flags=re.M))
    tokens.update(re.findall(r'let mnemonic = "(\w+)"', text))
for path in glob.glob(os.path.join(out, "*.mlir")):
    text = open(path).read()
    tokens.update(re.findall(r"#ag\.\w+<", text))
    tokens.update(re.findall(r"\b(?:ag\.)?[a-z_]+ = ", text))
    tokens.update(re.findall(
        r"tensor<[0-9x]*(?:[fi](?:1|8|16|32|64)|bf16|index|complex<f32>)>",
        text))
tokens.update(["dense<", "-> (", ") -> ", " : ", "ag.name = ", "trainable",
               "constant", "transpose_a", "transpose_b", "{", "}", "%", "@"])
# Element types, those ag holds and those it refuses (every verifier must
# name them, never crash on one: an index tensor once did), so that a
# mutation swaps a tensor's element type whole.
tokens.update(["f32", "i32", "i8", "index", "i64", "i1", "f16", "bf16", "f64",
               "complex<f32>", "complex<"])
with open(os.path.join(root, "fuzz", "mlir.dict"), "w") as f:
    f.write("# libFuzzer dictionary for capture-mlir-fuzzer "
            "(fuzz/make_corpus.py)\n")
    for token in sorted(tokens):
        f.write('"%s"\n' % token.replace("\\", "\\\\").replace('"', '\\"'))
print(f"fuzz/make_corpus.py: {len(tokens)} tokens in fuzz/mlir.dict")
