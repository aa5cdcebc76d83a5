"""Calling the analysis modules: import them if present, pass only the options their functions take, and
turn "module missing" into a reason the report can show."""
from __future__ import annotations

import importlib
import inspect
import os

from ..errors import BrechaError
from .labels import L


class Unavailable(Exception):
    """An analysis that cannot be shown; the message is the reason."""


def _strict() -> bool:
    return os.environ.get("BRECHA_REPORT_STRICT", "") not in ("", "0")


def _module(name: str, lang: str):
    """Import a brecha analysis module, or raise Unavailable if it is not there."""
    try:
        return importlib.import_module(f"brecha.{name}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("brecha"):
            raise Unavailable(L("module_missing", lang, module=f"brecha.{name}")) from None
        raise


def _function(module_name: str, func: str, lang: str):
    mod = _module(module_name, lang)
    fn = getattr(mod, func, None)
    if fn is None:
        raise Unavailable(L("module_missing", lang, module=f"brecha.{module_name}.{func}"))
    return fn


def _call(fn, *args, **kwargs):
    """Call with the keyword arguments the function accepts (APIs of sibling modules may differ slightly)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn(*args, **kwargs)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return fn(*args, **kwargs)
    return fn(*args, **{k: v for k, v in kwargs.items() if k in params})


def environment_failure(exc: BaseException) -> bool:
    """An error of the machine, not of one analysis: a full disk or quota, a read-only or failing device.
    It stops the whole report (the earlier report stays as it was) instead of dropping a section or a figure,
    since every later file would meet it too and a report silently missing parts is worse than none."""
    import errno

    from ..outputs import _errno

    return isinstance(exc, OSError) and _errno(exc) in (errno.ENOSPC, getattr(errno, "EDQUOT", -1), errno.EROFS,
                                                        errno.EIO)


def _reason(exc: BaseException, lang: str) -> str:
    if isinstance(exc, Unavailable):
        return str(exc)
    if isinstance(exc, BrechaError):
        return str(exc)
    return L("failed", lang, error=f"{type(exc).__name__}: {exc}")
