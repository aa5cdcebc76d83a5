"""Binary spatial links between units: who neighbours whom, as lists and as a sparse matrix (issue 19).

This is the part of libpysal's ``W`` that brecha uses, kept here so that neither the weights nor the
statistics built on them (:mod:`brecha.spatial.moran`) import libpysal. libpysal's package imports
scikit-learn, scipy.stats, requests and shapely when it loads (about 1,280 modules, 2.5-3.5 s of CPU on the
development machine), for a computation that takes 0.05 s on Chile's communes.

The attribute names are libpysal's (``id_order``, ``neighbors``, ``cardinalities``, ``islands``, ``n``), so a
libpysal ``W`` can be given wherever brecha takes weights (:meth:`Links.of`): its links are read, its weight
values are not (brecha's statistics use binary links, row-standardised where the method says so).
"""
from __future__ import annotations

import numpy as np


class Links:
    """Who neighbours whom among ``id_order`` (``neighbors``: unit -> its neighbours, in the given order).

    Links to units outside ``id_order`` are dropped; a unit may list another without being listed by it
    (k nearest neighbours), and :meth:`symmetric` makes such links mutual. Links are not changed once made
    (:meth:`subset` makes new ones), so their matrix is built once.
    """

    def __init__(self, neighbors: dict, id_order):
        self.id_order = list(id_order)
        present = set(self.id_order)
        self.neighbors = {u: list(dict.fromkeys(v for v in neighbors.get(u, ()) if v in present and v != u))
                          for u in self.id_order}
        self._matrix = None  # built once (the statistics of a period ask for it three or four times)

    @classmethod
    def of(cls, weights) -> "Links":
        """``weights`` as Links: Links themselves, or anything with libpysal's ``neighbors`` and ``id_order``."""
        if isinstance(weights, cls):
            return weights
        return cls({str(u): [str(v) for v in vs] for u, vs in weights.neighbors.items()},
                   [str(u) for u in weights.id_order])

    def to_libpysal(self):
        """These links as a libpysal ``W`` (binary), for PySAL's other tools; needs libpysal installed
        (``pip install libpysal``; brecha itself does not import it)."""
        import libpysal

        return libpysal.weights.W({u: list(v) for u, v in self.neighbors.items()}, id_order=list(self.id_order),
                                  silence_warnings=True)

    @property
    def n(self) -> int:
        return len(self.id_order)

    @property
    def cardinalities(self) -> dict:
        """Unit -> how many neighbours it lists."""
        return {u: len(v) for u, v in self.neighbors.items()}

    @property
    def islands(self) -> list:
        """The units that list no neighbour."""
        return [u for u in self.id_order if not self.neighbors[u]]

    def subset(self, ids) -> "Links":
        """The links among ``ids`` only, in the order of ``ids`` (libpysal's ``w_subset``)."""
        return Links(self.neighbors, ids)

    def matrix(self):
        """The 0/1 links as a scipy.sparse CSR matrix, rows and columns in ``id_order`` (row i lists i's
        neighbours; not symmetric when the links are not). A copy: the caller may change it."""
        if self._matrix is None:
            import scipy.sparse as sp

            index = {u: k for k, u in enumerate(self.id_order)}
            rows = np.repeat(np.arange(self.n), [len(self.neighbors[u]) for u in self.id_order])
            cols = np.fromiter((index[v] for u in self.id_order for v in self.neighbors[u]), dtype=np.int64,
                               count=len(rows))
            self._matrix = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(self.n, self.n))
        return self._matrix.copy()

    def row_standardised(self):
        """Each row of :meth:`matrix` divided by its count of neighbours (w_ij = 1/c_i): the weights of
        Moran's I and LISA. A unit without neighbours keeps a row of zeros."""
        import scipy.sparse as sp

        m = self.matrix()
        counts = np.diff(m.indptr)
        m.data = np.repeat(1.0 / np.maximum(counts, 1), counts)
        return sp.csr_matrix(m)

    def symmetric(self):
        """Symmetric 0/1 adjacency (CSR, ``id_order``): i ~ j when either lists the other; no self-links."""
        a = self.matrix()
        a = ((a + a.T) > 0).astype(float)
        a.setdiag(0)
        a.eliminate_zeros()
        return a.tocsr()
