"""brecha: how unequal infant mortality is between the districts of a country, how the gap moves, and why.

Start with ``brecha.datasets.chile()`` (a validated :class:`~brecha.panel.Panel` of real data) and the
analyses in ``brecha.rates``, ``brecha.disparity``, ``brecha.inequality``, ``brecha.trends`` and
``brecha.models``.
"""
__version__ = "0.1.0"

from .panel import Panel  # noqa: E402,F401
from .datasets import read_panel  # noqa: E402,F401  (a panel file, or "example:chile")
