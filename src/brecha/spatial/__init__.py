"""Spatial analyses of unit rates: neighbours, Moran's I, LISA and Gi*, BYM2 smoothing.

- :mod:`brecha.spatial.neighbours`: queen/rook contiguity from the embedded polygons, k nearest seats; the
  rule for islands and units without polygons.
- :mod:`brecha.spatial.links`: who neighbours whom (lists and sparse matrices; libpysal's ``W`` as brecha uses it).
- :mod:`brecha.spatial.autocorrelation`: :func:`spatial_autocorrelation` (global and local tables), computed by
  :mod:`brecha.spatial.moran` (esda's statistics and permutations, without importing esda).
- :mod:`brecha.spatial.bym2`: BYM2 smoothed rates (Riebler et al. 2016) by a nested Laplace approximation.

Neither libpysal nor esda is imported (their packages import scikit-learn, requests and shapely: 2.5-3.5 s of
CPU); they are the references of tests/spatial. scipy is imported inside the functions.
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
