"""brecha: how unequal infant mortality is between the districts of a country, how the gap moves, and why.

Start with ``brecha.datasets.chile()`` (a validated :class:`~brecha.panel.Panel` of real data) and the
analyses in ``brecha.rates``, ``brecha.disparity``, ``brecha.inequality``, ``brecha.trends`` and
``brecha.models``.

``brecha.Panel`` and ``brecha.read_panel`` are loaded on first use (PEP 562 module ``__getattr__``), so that
importing ``brecha`` (and ``brecha --help``, ``--version``, an argument error) never imports pandas or numpy.
"""
__version__ = "0.1.0"

# name -> the module that defines it; loaded on first access
_LAZY = {"Panel": "brecha.panel", "read_panel": "brecha.datasets"}  # read_panel: a file, or "example:chile"

__all__ = ["Panel", "read_panel", "__version__"]


def __getattr__(name):
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later accesses skip this function
        return value
    if not name.startswith("_"):  # `import brecha; brecha.datasets.chile()`: the submodule, imported on first use
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module 'brecha' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
