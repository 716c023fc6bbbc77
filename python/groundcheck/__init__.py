"""groundcheck in Python: every groundcheck SQL function, and a project's tables and views,
registered into datafusion-python's own ``SessionContext`` through datafusion-ffi, so a
notebook queries ``labels`` like any table and gets Arrow back (pyarrow, pandas, polars).

    import datafusion, groundcheck
    ctx = datafusion.SessionContext()
    groundcheck.views(ctx, data="datasets/demo")
    ctx.sql("SELECT * FROM labels").to_pandas()

The ``groundcheck`` command is installed beside it (``groundcheck.command()`` finds it).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import warnings
from pathlib import Path

import datafusion

from . import _native

__version__: str = _native.__version__

#: The DataFusion major version groundcheck is built on; datafusion-python's must equal it.
ENGINE_MAJOR: int = _native.ffi_major()


def _check_engine(installed: str) -> None:
    # Functions and tables cross between two builds of DataFusion through its FFI, whose
    # structs change with each major version: a mismatch would crash, not fail cleanly.
    major = int(installed.split(".")[0])
    if major != ENGINE_MAJOR:
        raise ImportError(
            f"groundcheck {__version__} is built on DataFusion {ENGINE_MAJOR} and needs "
            f"datafusion-python {ENGINE_MAJOR}.x, but datafusion {installed} is installed "
            f"(pip install 'datafusion>={ENGINE_MAJOR},<{ENGINE_MAJOR + 1}')"
        )


_check_engine(datafusion.__version__)


def functions() -> list:
    """Every SQL function groundcheck's queries call (its own and
    datafusion-functions-json's), each an object datafusion-python registers."""
    return _native.functions()


def register(ctx: datafusion.SessionContext) -> list[str]:
    """Registers every groundcheck SQL function into ``ctx``; returns their names."""
    names = []
    for f in _native.functions():
        ctx.register_udf(datafusion.ScalarUDF.from_pycapsule(f))
        names.append(f.name)
    return names


def views(
    ctx: datafusion.SessionContext,
    data: str | os.PathLike,
    tables: dict[str, str | os.PathLike] | None = None,
) -> list[str]:
    """Registers a project's tables and every ``queries/*.sql`` view into ``ctx``.

    ``data`` is a project folder as ``groundcheck --data`` takes it; ``tables`` maps a
    table's name to a file, folder or glob of its own (``--table NAME=PATH``). Tables and
    views already in ``ctx`` under the same names are replaced. The functions are
    registered too, and the session options the views are written for are set on ``ctx``
    (they are named in ``groundcheck.options()``). Returns the views' names, in the order
    they were registered. A project that cannot be read raises ``ValueError`` with the
    reason; a line that does not fit its table raises when a query reads it, naming the
    file, line and field.
    """
    for place in [data, *(tables or {}).values()]:
        if "://" in os.fspath(place):
            raise ValueError(
                f"{os.fspath(place)}: groundcheck.views reads local folders and files (the "
                "notebook's DataFusion has no object store of groundcheck's); copy it locally, "
                "or query it with the groundcheck command"
            )
    register(ctx)
    for key, value in _native.options():
        ctx.sql(f"SET {key} = '{value}'")
    overrides = [(name, os.fspath(path)) for name, path in (tables or {}).items()]
    found, notes = _native.tables(os.fspath(data), overrides)
    for table in found:
        _replace(ctx, table.name)
        ctx.register_table(table.name, table)
    for note in notes:
        warnings.warn(note, stacklevel=2)
    names = []
    for name, sql in _native.views():
        _replace(ctx, name)
        ctx.register_view(name, ctx.sql(sql))
        names.append(name)
    return names


def options() -> list[tuple[str, str]]:
    """The DataFusion session options groundcheck's views are written for."""
    return _native.options()


def _replace(ctx: datafusion.SessionContext, name: str) -> None:
    if ctx.table_exist(name):
        ctx.deregister_table(name)


def command() -> Path:
    """The ``groundcheck`` command installed with this package."""
    exe = "groundcheck" + (".exe" if os.name == "nt" else "")
    places = [sysconfig.get_path("scripts")]
    user = sysconfig.get_preferred_scheme("user")
    places.append(sysconfig.get_path("scripts", scheme=user))
    places.append(str(Path(sys.executable).parent))
    for place in places:
        candidate = Path(place) / exe
        if candidate.is_file():
            return candidate
    found = shutil.which(exe)
    if found:
        return Path(found)
    raise FileNotFoundError(
        f"the groundcheck command is not installed beside this package (looked in {', '.join(places)})"
    )


__all__ = [
    "ENGINE_MAJOR",
    "__version__",
    "command",
    "functions",
    "options",
    "register",
    "views",
]
