"""``python -m groundcheck ARGS`` runs the installed command."""

import os
import subprocess
import sys

from . import command


def main() -> int:
    exe = os.fspath(command())
    if os.name == "nt":
        return subprocess.call([exe, *sys.argv[1:]])
    os.execv(exe, [exe, *sys.argv[1:]])
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
