#!/usr/bin/env bash
# Exact resume: 4 steps straight through, against 2 steps, then 2 more
# from the state --dump-state wrote after step 2 (--load-state): the last
# two steps print the same losses and gradient norms, and the final
# weights, both moments and t are bitwise the same files. --params-dir
# reads back what --save-params wrote.
#   usage: CAPTURE_RUN OUT ARGS...   (run in the directory of the module)
set -euo pipefail
run="$1" out="$2"
shift 2
rm -rf "$out" && mkdir -p "$out"
"$run" "$@" --steps 4 --dump-state "$out/a" > "$out/a.txt"
"$run" "$@" --steps 2 --dump-state "$out/b" > /dev/null
"$run" "$@" --steps 2 --load-state "$out/b/step-2" --dump-state "$out/c" \
  --save-params "$out/saved" > "$out/c.txt"
# Steps 3 and 4 of the straight run are steps 1 and 2 of the resumed one.
grep -E '^step [34]:' "$out/a.txt" | sed 's/^step [0-9]*://' > "$out/a-tail.txt"
grep -E '^step [12]:' "$out/c.txt" | sed 's/^step [0-9]*://' > "$out/c-tail.txt"
if [ ! -s "$out/a-tail.txt" ] || ! diff "$out/a-tail.txt" "$out/c-tail.txt"; then
  echo "check_resume: the resumed steps differ (< straight, > resumed)" >&2
  exit 1
fi
for file in "$out"/a/step-4/*; do
  if ! cmp "$file" "$out/c/step-2/$(basename "$file")"; then
    echo "check_resume: $(basename "$file") after the resumed run differs" >&2
    exit 1
  fi
done
# --params-dir: the saved weights give the same next step as the state.
"$run" "$@" --steps 1 --params-dir "$out/saved" > "$out/d.txt"
# A damaged state is refused before anything changes, naming the file.
cp -r "$out/b/step-2" "$out/bad"
echo "2x" > "$out/bad/t.txt"
if "$run" "$@" --steps 1 --load-state "$out/bad" 2> "$out/bad.txt" > /dev/null ||
   ! grep -q "t.txt' must hold the step counter as one whole number, got '2x'" "$out/bad.txt"; then
  echo "check_resume: a bad t.txt was not refused as expected:" >&2
  cat "$out/bad.txt" >&2
  exit 1
fi
# Moments of another shape (here a weight's file in their place) are
# refused before the weights are replaced.
cp -r "$out/b/step-2" "$out/other"
cp "$out/b/step-2/w2.npy" "$out/other/adam.m.npy"
if "$run" "$@" --steps 1 --load-state "$out/other" 2> "$out/other.txt" > /dev/null ||
   ! grep -q "the moments are \[4\] (f32), expected \[[0-9]*\] (f32) (entry '[a-z]*'): a state of another module?" "$out/other.txt"; then
  echo "check_resume: moments of another module were not refused as expected:" >&2
  cat "$out/other.txt" >&2
  exit 1
fi
echo "resumed run bitwise equal to the uninterrupted one: $(ls "$out/a/step-4" | tr '\n' ' ')"
