"""evolving_server.py in its silent mode: the tool changes, no list_changed is sent."""

import os
import runpy

os.environ["GC_SILENT"] = "1"
runpy.run_path(os.path.join(os.path.dirname(__file__), "evolving_server.py"), run_name="__main__")
