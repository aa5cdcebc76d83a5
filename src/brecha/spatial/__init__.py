"""Spatial analyses of unit rates: neighbours (libpysal), Moran's I, LISA and Gi* (esda), BYM2 smoothing.

- :mod:`brecha.spatial.neighbours`: queen/rook contiguity from the embedded polygons, k nearest seats; the
  rule for islands and units without polygons.
- :mod:`brecha.spatial.autocorrelation`: :func:`spatial_autocorrelation` (global and local tables).
- :mod:`brecha.spatial.bym2`: BYM2 smoothed rates (Riebler et al. 2016) by a nested Laplace approximation.

The heavy libraries (libpysal, esda, shapely) are imported inside the functions.
"""
from __future__ import annotations


def spatial_autocorrelation(*args, **kwargs):
    from .autocorrelation import spatial_autocorrelation as run

    return run(*args, **kwargs)


def neighbours(*args, **kwargs):
    from .neighbours import neighbours as run

    return run(*args, **kwargs)


def bym2(*args, **kwargs):
    from .bym2 import bym2 as run

    return run(*args, **kwargs)
