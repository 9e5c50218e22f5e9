#!/usr/bin/env bash
# Generates the Kubernetes kernelspec of the kotlin-llm kernel image with gateway_provisioners' own tool
# (`jupyter k8s-spec install`), into OUT/kotlin_llm_k8s.
#
#   deploy/make-kernelspec.sh --out OUT [--prefix PREFIX] [--image-name IMAGE] [other k8s-spec options]
#
# PREFIX (default /usr/local) is where the gateway's image keeps it: PREFIX/share/jupyter/kernels/kotlin_llm_k8s.
# The tool writes into a staging directory standing for /, and the paths in kernel.json are those under PREFIX.
# Needs `jupyter k8s-spec` on PATH (pip install 'gateway_provisioners[k8s]==0.5.0').
set -euo pipefail

out=""
prefix=/usr/local
image="${GP_IMAGE_NAME:-kotlin-llm-kernel:0.1.0}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --image-name) image="$2"; shift 2 ;;
    *) extra+=("$1"); shift ;;
  esac
done

if [ -z "$out" ]; then
  echo "usage: deploy/make-kernelspec.sh --out OUT [--prefix PREFIX] [--image-name IMAGE] [k8s-spec options]" >&2
  exit 2
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
# --language Python: the tool knows Python, R and Scala only; a Python kernelspec makes the provisioner set
# KERNEL_LANGUAGE=python, so the image's bootstrap-kernel.sh runs its Python launcher slot, which holds ours.
# The kernel class stays the tool's default: the tool accepts only subclasses of IPythonKernel, and our launcher
# runs KotlinKernel whatever the class.
# --launch-timeout 120: a node's first pull of the image (a JDK and the compiler) takes longer than the default 30 s.
jupyter k8s-spec install \
  --prefix "$stage$prefix" \
  --kernel-name kotlin_llm_k8s \
  --display-name "Kotlin (LLM) on Kubernetes" \
  --language Python \
  --image-name "$image" \
  --launch-timeout 120 \
  ${extra[@]+"${extra[@]}"}

generated="$stage$prefix/share/jupyter/kernels/kotlin_llm_k8s"
rm -rf "$out/kotlin_llm_k8s"
mkdir -p "$out"
cp -r "$generated" "$out/kotlin_llm_k8s"
# the staging directory stands for /: kernel.json names the paths the kernelspec will have under PREFIX
sed -i "s#$stage##g" "$out/kotlin_llm_k8s/kernel.json"
# the tool marks every kernelspec as having a debugger; ours has none (JupyterLab would offer one that fails)
python - "$out/kotlin_llm_k8s/kernel.json" <<'PY'
import json, sys
path = sys.argv[1]
with open(path, encoding="utf-8") as file:
    spec = json.load(file)
spec["metadata"]["debugger"] = False
with open(path, "w", encoding="utf-8") as file:
    json.dump(spec, file, indent=2)
    file.write("\n")
PY
echo "kernelspec kotlin_llm_k8s in $out/kotlin_llm_k8s (for $prefix/share/jupyter/kernels/kotlin_llm_k8s)"
