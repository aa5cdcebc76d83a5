"""Who neighbours whom: spatial links from the embedded polygons or from the units' seats.

Kinds (``--neighbours``)
    ``queen``  units whose polygons share at least one boundary point (libpysal's ``Queen`` rule, computed by
               :mod:`brecha.spatial.contiguity`);
    ``rook``   units whose polygons share a boundary segment (libpysal's ``Rook`` rule, the same module);
    ``knn:K``  each unit's K nearest units by great-circle distance between seats (``lat, lon`` of
               ``panel.units``; the K nearest of the points' 3-D unit vectors by scipy's ``cKDTree``, as
               libpysal's ``KNN`` finds them: chord distance orders pairs as the great-circle distance does).
               K-nearest links are not symmetric; BYM2 makes them symmetric (i ~ j when either is among the
               other's K nearest).
The links are :class:`brecha.spatial.links.Links`; libpysal is not imported. Contiguity needs polygons: a
registry whose geometry for a unit is anything else (a point, a line) is refused with the unit named.

The rule for units without neighbours (never a silent drop; each is listed in the result's ``isolated``
with its reason, and the commands report them):
    ``no_polygon``  the unit has no polygon (Chile's Antártica, 12202);
    ``no_seat``     (``knn``) the unit has no seat location;
    ``island``      no other unit of the analysis touches it (Isla de Pascua 05201, Juan Fernández 05104,
                    Puqueldón 10206 and Guaitecas 11203 with queen or rook contiguity);
    ``no_births``   (autocorrelation only) the unit has no births in the period, so no rate.
Moran's I, LISA and Gi* are computed on the units that have neighbours and a rate; the others get no
statistic and the cluster class of their reason. They are not linked to a "nearest" unit: Isla de Pascua's
nearest commune is 3,500 km away and sharing its risk would be invented. In BYM2 (:mod:`brecha.spatial.bym2`)
such units keep their data and get only the unstructured effect (Freni-Sterrantino et al. 2018). With
``--region`` the polygons are those of the region: links across its border are not used.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..i18n import Catalog
from .links import Links

MSG = Catalog({
    "bad_kind": ("vecindad '{kind}' desconocida", "unknown neighbours '{kind}'"),
    "bad_kind_hint": ("use queen, rook o knn:K (K vecinos más cercanos, p. ej. knn:5)",
                      "use queen, rook or knn:K (K nearest neighbours, e.g. knn:5)"),
    "no_polygons": ("el país {country} no tiene polígonos incluidos en brecha, así que no hay vecindad {kind}",
                    "country {country} has no polygons shipped with brecha, so there is no {kind} contiguity"),
    "no_polygons_hint": ("use --neighbours knn:5 (vecinos por la ubicación de la cabecera, columnas lat y lon "
                         "de las unidades)",
                         "use --neighbours knn:5 (neighbours by the units' seats, columns lat and lon)"),
    "no_geography": ("las unidades de {country} no tienen polígonos ni ubicación de cabecera (lat, lon): no se "
                     "puede saber qué unidades son vecinas",
                     "the units of {country} have neither polygons nor seat locations (lat, lon): which units "
                     "neighbour which cannot be known"),
    "no_geography_hint": ("agregue al panel columnas lat y lon por unidad (cabecera, grados decimales) o use los "
                          "códigos de un registro con polígonos (comunas de Chile)",
                          "add lat and lon columns per unit to the panel (seat, decimal degrees) or use the codes "
                          "of a registry with polygons (Chilean communes)"),
    "not_polygons": ("la geometría de la unidad {unit} es {kind}, no un polígono: la vecindad {name} necesita "
                     "polígonos", "the geometry of unit {unit} is a {kind}, not a polygon: {name} contiguity needs "
                     "polygons"),
    "not_polygons_hint": ("use --neighbours knn:K (K vecinos más cercanos por la ubicación de las cabeceras)",
                          "use --neighbours knn:K (K nearest neighbours by the seats' locations)"),
    "few_seats": ("knn:{k} necesita al menos {need} unidades con ubicación; hay {have}",
                  "knn:{k} needs at least {need} units with a location; there are {have}"),
})

REASONS = ("no_polygon", "no_seat", "island", "no_births")


@dataclass
class Neighbours:
    """Spatial links over ``units`` (:class:`~brecha.spatial.links.Links`; a libpysal ``W`` given here is read
    as its links) and the units left without neighbours.

    ``w`` covers only the units that have at least one neighbour; ``isolated`` maps every other unit of the
    analysis to its reason (``no_polygon``, ``island``, ``no_births``); ``kind`` is ``queen``, ``rook`` or
    ``knn:K``.
    """
    w: object
    kind: str
    isolated: dict = field(default_factory=dict)

    def __post_init__(self):
        self.w = Links.of(self.w)  # a libpysal W given by the caller: its links

    @property
    def units(self) -> list[str]:
        return [str(u) for u in self.w.id_order]

    def restrict(self, keep) -> "Neighbours":
        """The weights among ``keep`` only; units dropped here become ``no_births``, units left without a
        neighbour by that become ``island``. Repeated until every unit left has a neighbour: with one-way
        links (k nearest) a unit whose only neighbour was an island becomes one in turn."""
        keep = set(map(str, keep))
        ids = [u for u in self.units if u in keep]
        isolated = dict(self.isolated)
        isolated.update({u: "no_births" for u in self.units if u not in keep})
        w = self.w.subset(ids)
        while w.islands:
            islands = set(map(str, w.islands))
            isolated.update({u: "island" for u in islands})
            ids = [u for u in ids if u not in islands]
            w = w.subset(ids)
        return Neighbours(w, self.kind, isolated)

    def components(self) -> np.ndarray:
        """Connected-component label of each unit of ``w`` (in ``units`` order), links made symmetric."""
        from scipy.sparse.csgraph import connected_components

        a = self.adjacency()
        return connected_components(a, directed=False)[1]

    def adjacency(self):
        """Symmetric 0/1 adjacency (scipy.sparse CSR) in ``units`` order (i ~ j when either lists the other)."""
        return self.w.symmetric()


def as_neighbours(panel, given) -> Neighbours:
    """``given`` as a :class:`Neighbours`: itself; a libpysal ``W`` or :class:`Links` (its links, kind
    ``custom``); or a kind (``queen``, ``rook``, ``knn:K``) built from the panel's geography."""
    if isinstance(given, Neighbours):
        return given
    if hasattr(given, "neighbors") and hasattr(given, "id_order"):
        return Neighbours(given, "custom")
    return neighbours(panel, given)


def parse_kind(kind: str) -> tuple[str, int]:
    """'queen' -> ('queen', 0); 'knn:5' -> ('knn', 5); anything else an InputError naming the option."""
    text = str(kind).strip().lower()
    if text in ("queen", "rook"):
        return text, 0
    if text.startswith("knn"):
        _, _, k = text.partition(":")
        if k.strip().isdigit() and int(k) >= 1:
            return "knn", int(k)
    raise InputError(MSG("bad_kind", kind=kind), hint=MSG("bad_kind_hint"), argument="neighbours")


def neighbours(panel, kind: str = "queen") -> Neighbours:
    """Spatial weights between the panel's units (module docstring: kinds and the rule for isolated units).

    Polygons come from the panel's registry (``panel.registry.polygons()``; Chile's communes); seats from
    ``panel.units`` columns ``lat, lon``. A country with neither is an InputError that says what to add.
    """
    name, k = parse_kind(kind)
    units = [str(u) for u in panel.unit_codes]
    country = getattr(panel, "country", None) or "-"
    if name == "knn":
        return _knn(panel, units, k, country)
    registry = getattr(panel, "registry", None)
    geo = registry.polygons() if registry is not None and hasattr(registry, "polygons") else None
    if not geo:
        if _seats(panel, units)[1].any():
            raise InputError(MSG("no_polygons", country=country, kind=name), hint=MSG("no_polygons_hint"),
                             argument="neighbours")
        raise InputError(MSG("no_geography", country=country), hint=MSG("no_geography_hint"),
                         argument="neighbours")
    return _contiguity(geo, units, name)


def _contiguity(geo: dict, units: list[str], name: str) -> Neighbours:
    """Queen/rook links of the units' polygons: the shared vertices found in numpy
    (:mod:`brecha.spatial.contiguity`, libpysal's rule); an InputError naming the first unit whose geometry
    is not a (multi)polygon."""
    from .contiguity import contiguity_neighbours

    wanted = set(units)
    geometries = {}
    for feature in geo.get("features", []):
        code = str((feature.get("properties") or {}).get("unit", "")).strip()
        if code in wanted and feature.get("geometry"):
            geometries[code] = feature["geometry"]
    ids = [u for u in units if u in geometries]
    isolated = {u: "no_polygon" for u in units if u not in geometries}
    linked = contiguity_neighbours([geometries[u] for u in ids], ids, name) if ids else {}
    if linked is None:
        unit = next(u for u in ids if geometries[u].get("type") not in ("Polygon", "MultiPolygon"))
        raise InputError(MSG("not_polygons", unit=unit, kind=geometries[unit].get("type"), name=name),
                         hint=MSG("not_polygons_hint"), argument="neighbours")
    w = Links(linked, ids)
    return Neighbours(w, name, isolated).restrict(ids) if ids else Neighbours(w, name, isolated)


def _seats(panel, units):
    table = getattr(panel, "units", None)
    if table is None or not {"lat", "lon"} <= set(table.columns):
        return np.zeros((len(units), 2)), np.zeros(len(units), dtype=bool)
    t = table.drop_duplicates("unit").assign(unit=lambda x: x["unit"].astype(str)).set_index("unit")
    lat = t["lat"].reindex(units).astype(float).to_numpy()
    lon = t["lon"].reindex(units).astype(float).to_numpy()
    ok = np.isfinite(lat) & np.isfinite(lon)
    return np.column_stack([lat, lon]), ok


def _knn(panel, units, k, country) -> Neighbours:
    """Each seat's k nearest other seats (scipy ``cKDTree`` on 3-D unit vectors), as libpysal's ``KNN``:
    the k + 1 nearest are asked for and the unit itself is dropped, or the farthest when the unit is not
    among them (duplicated seats)."""
    from scipy.spatial import cKDTree

    seats, ok = _seats(panel, units)
    if not ok.any():
        raise InputError(MSG("no_geography", country=country), hint=MSG("no_geography_hint"),
                         argument="neighbours")
    if ok.sum() < k + 1:
        raise InputError(MSG("few_seats", k=k, need=k + 1, have=int(ok.sum())), argument="neighbours")
    lat, lon = np.deg2rad(seats[ok, 0]), np.deg2rad(seats[ok, 1])
    xyz = np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])
    ids = [u for u, good in zip(units, ok) if good]
    _, found = cKDTree(xyz).query(xyz, k=k + 1)
    others = found != np.arange(len(xyz))[:, None]
    others[others.sum(axis=1) == k + 1, -1] = False
    nearest = found[others].reshape(len(xyz), k)
    w = Links({u: [ids[j] for j in row] for u, row in zip(ids, nearest.tolist())}, ids)
    return Neighbours(w, f"knn:{k}", {u: "no_seat" for u, good in zip(units, ok) if not good})
