#!/usr/bin/env bash
# On the development machine: builds the Rust bench and stages what bench/run.sh needs
# on the GPU machine into bundle/ (git-ignored): bundle/vecadd_launch and
# bundle/COMMIT. The numpy wheel goes to .whl/ (see bench/results/README.md).
# Then, through the device tool: command `bash bench/run.sh`, carry ["bundle", ".whl"].
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
exe="$(cargo bench --no-run --bench vecadd_launch --message-format=json |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "vecadd_launch" and m.get("executable"):
        print(m["executable"])')"
[ -n "$exe" ] || { echo "no vecadd_launch executable built" >&2; exit 1; }
mkdir -p bundle
cp "$exe" bundle/vecadd_launch
commit="$(git rev-parse HEAD)"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then commit="$commit (uncommitted changes)"; fi
echo "$commit" >bundle/COMMIT
if ! compgen -G ".whl/numpy-*.whl" >/dev/null; then
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 \
    --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .whl numpy==2.3.5
fi
ls -la bundle/vecadd_launch .whl/numpy-*.whl
echo "commit: $commit"
