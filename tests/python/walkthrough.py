"""docs/python.md's cells, executed as a real notebook.

The ```python blocks of docs/python.md become the cells of a notebook that nbclient runs
on a fresh ipykernel from the repository's root, so the walk-through cannot drift from
what the package does. Each cell must run without an error, and the outputs must show
the demo's point: the same pass rate, not the same grounding.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    text = (ROOT / "docs" / "python.md").read_text()
    cells = re.findall(r"```python\n(.*?)```", text, re.S)
    if len(cells) != 5:
        sys.exit(f"docs/python.md has {len(cells)} python cells; the walk-through has five")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c.strip()) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    out = []
    for i, cell in enumerate(nb.cells, 1):
        texts = []
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                texts.append(o["text"])
            elif "data" in o:
                texts.append(o["data"].get("text/plain", ""))
        out.append("\n".join(texts))
        print(f"--- cell {i}\n{out[-1]}")
    expect = [
        (1, r"views, among them \['labels', 'report'\]|views, among them \['report', 'labels'\]"),
        (2, r"generic-warehouse\s+40\s+36"),
        (2, r"task-specific\s+40\s+36"),
        (3, r"generic-warehouse\s+36\s+25\s+11"),
        (3, r"task-specific\s+36\s+36\s+0"),
        (4, r"failure_class"),
        (5, r"customers\.id"),
        (5, r"same_rows.*\n.*\bmatch\b"),
    ]
    bad = [(i, p) for i, p in expect if not re.search(p, out[i - 1])]
    for i, p in bad:
        print(f"FAIL cell {i} does not show /{p}/")
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else None
    if path:
        nbformat.write(nb, path)
    print("walkthrough: " + ("the five cells ran and show the demo's point" if not bad else f"{len(bad)} problem(s)"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
