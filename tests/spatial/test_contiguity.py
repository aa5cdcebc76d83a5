"""The numpy contiguity (brecha.spatial.contiguity) gives libpysal's Queen and Rook neighbours exactly: on
the Chilean communes and on made-up polygons with holes, multipolygons, shared corners and shared edges."""
import warnings

import numpy as np
import pytest

libpysal = pytest.importorskip("libpysal")
shapely_geometry = pytest.importorskip("shapely.geometry")

from brecha.spatial.contiguity import contiguity_neighbours  # noqa: E402


def _libpysal(geometries, ids, kind):
    builder = libpysal.weights.Queen if kind == "queen" else libpysal.weights.Rook
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = builder.from_iterable([shapely_geometry.shape(g) for g in geometries], ids=ids, silence_warnings=True)
    return {u: sorted(map(str, w.neighbors[u])) for u in ids}


def _ours(geometries, ids, kind):
    return {u: sorted(v) for u, v in contiguity_neighbours(geometries, ids, kind).items()}


def _square(x, y, size=1.0):
    return [[x, y], [x + size, y], [x + size, y + size], [x, y + size], [x, y]]


def _made_up():
    """A 3 x 3 grid of unit squares (corners and edges shared), a square with a hole holding another unit,
    a two-part unit touching the grid by one corner, a unit whose edge is split in two by an extra vertex
    (rook: not a shared segment), a far island and a square at 0.0 / -0.0."""
    geoms = {}
    for i in range(3):
        for j in range(3):
            geoms[f"g{i}{j}"] = {"type": "Polygon", "coordinates": [_square(i, j)]}
    geoms["ring"] = {"type": "Polygon", "coordinates": [_square(10, 10, 4), _square(11, 11, 2)[::-1]]}
    geoms["core"] = {"type": "Polygon", "coordinates": [_square(11, 11, 2)]}
    geoms["two_parts"] = {"type": "MultiPolygon", "coordinates": [[_square(3, 3)], [_square(20, 20)]]}
    geoms["split"] = {"type": "Polygon", "coordinates": [[[0, -1], [1.5, -1], [3, -1], [3, 0], [2, 0], [1, 0],
                                                          [0, 0], [0, -1]]]}
    geoms["island"] = {"type": "Polygon", "coordinates": [_square(50, 50)]}
    geoms["minus_zero"] = {"type": "Polygon", "coordinates": [[[-1, -0.0], [-0.0, -0.0], [-0.0, 1], [-1, 1],
                                                               [-1, -0.0]]]}
    return list(geoms.values()), list(geoms)


@pytest.mark.parametrize("kind", ["queen", "rook"])
def test_made_up_polygons_have_libpysals_neighbours(kind):
    geometries, ids = _made_up()
    ours, theirs = _ours(geometries, ids, kind), _libpysal(geometries, ids, kind)
    assert ours == theirs
    # the rule itself, checked by hand on a few units
    assert ours["island"] == []
    assert ("g00" in ours["g11"]) is (kind == "queen")  # a corner only
    assert "g01" in ours["g11"]  # an edge
    assert ours["core"] == ["ring"] and ours["ring"] == ["core"]  # the hole's ring is a boundary
    assert ("g22" in ours["two_parts"]) is (kind == "queen")
    assert "minus_zero" in ours["g00"]  # 0.0 and -0.0 are the same point


@pytest.mark.parametrize("kind", ["queen", "rook"])
def test_chilean_communes_have_libpysals_neighbours(kind):
    from brecha import datasets

    panel = datasets.chile()
    features = [f for f in panel.registry.polygons()["features"] if f.get("geometry")]
    ids = [str(f["properties"]["unit"]) for f in features]
    geometries = [f["geometry"] for f in features]
    ours, theirs = _ours(geometries, ids, kind), _libpysal(geometries, ids, kind)
    assert ours == theirs
    assert sum(len(v) for v in ours.values()) > 1500  # 345 communes, about 5 neighbours each


def test_other_geometries_are_refused_naming_the_unit():
    from brecha.errors import InputError
    from brecha.spatial.neighbours import _contiguity

    point = {"type": "Point", "coordinates": [0, 0]}
    assert contiguity_neighbours([point], ["a"], "queen") is None
    square = {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]]}
    geo = {"features": [{"properties": {"unit": "a"}, "geometry": square},
                        {"properties": {"unit": "b"}, "geometry": point}]}
    with pytest.raises(InputError) as caught:
        _contiguity(geo, ["a", "b"], "rook")
    text = str(caught.value) + str(caught.value.hint)
    assert "b" in text and "Point" in text and "knn" in text


def test_neighbours_uses_it_and_keeps_the_weights():
    from brecha import datasets
    from brecha.spatial.neighbours import neighbours

    panel = datasets.chile()
    nb = neighbours(panel, "queen")
    assert nb.isolated == {"12202": "no_polygon", "05104": "island", "05201": "island", "10206": "island",
                           "11203": "island"}
    a = nb.adjacency()
    assert a.shape == (341, 341) and np.allclose((a - a.T).toarray(), 0)
    assert int(a.sum()) == 1694
