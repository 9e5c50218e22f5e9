"""Runs a notebook headless on the kotlin-llm kernel (nbclient, errors allowed) and prints every cell's outputs.

    python scripts/run_notebook.py notebooks/tour.ipynb [--output executed.ipynb]
"""

from __future__ import annotations

import argparse
import sys

import nbformat
from nbclient import NotebookClient


def render_output(output: dict) -> str:
    kind = output["output_type"]
    if kind == "stream":
        return output["text"].rstrip("\n") if output["name"] == "stdout" else f"[stderr] {output['text'].rstrip()}"
    if kind in ("execute_result", "display_data"):
        data = output["data"]
        text = data.get("text/plain", "")
        # a rich output's other types (HTML, an image) cannot show here: their names say that it has them
        kinds = sorted(data, key=lambda kind: kind == "text/plain")  # the text, shown, named last
        return f"Out: [{', '.join(kinds)}] {text}" if len(kinds) > 1 else f"Out: {text}"
    if kind == "error":
        return "\n".join(output["traceback"])
    return f"[{kind}]"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook")
    parser.add_argument("--output", help="also write the executed notebook here")
    parser.add_argument("--kernel", default="kotlin-llm")
    args = parser.parse_args()
    notebook = nbformat.read(args.notebook, as_version=4)
    NotebookClient(notebook, kernel_name=args.kernel, allow_errors=True, timeout=600, startup_timeout=180).execute()
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        print(f"In [{cell.execution_count}]:")
        print("    " + cell.source.replace("\n", "\n    "))
        for output in cell.outputs:
            print(render_output(output))
        print()
    if args.output:
        nbformat.write(notebook, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
