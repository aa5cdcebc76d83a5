"""The fast paths of the decomposition bootstrap (blocks of replicates, shared y·p, tables of logarithms, flat
gathers, in-place arithmetic, intervals of all columns at once) give the same numbers to the last bit as the
plain arithmetic written out here with temporaries, as issue 14 first computed them; and the block size
changes nothing in the table `brecha decompose` writes."""
import importlib

import numpy as np
import pandas as pd
import pytest

from brecha.cli.main import main
from brecha.inequality import decompose as D
from brecha.inequality.bootstrap import period_rng

T = importlib.import_module("brecha.inequality.decompose_table")
C = importlib.import_module("brecha.inequality.ci_decompose")


def _plain_gini_sums(y, w, code):
    """The Gini sums with temporaries, a second sort of the rates and ``take_along_axis``."""
    p = w / w.sum()
    order = np.argsort(y, axis=-1)
    ps_all = p[order]
    py_all = ps_all * np.sort(y, axis=-1)
    mu = py_all.sum(axis=-1)
    total = np.sum(py_all * (2.0 * np.cumsum(ps_all, axis=-1) - ps_all - 1.0), axis=-1) / mu
    by_group = np.argsort(code.astype(np.int8)[order], axis=-1, kind="stable")
    ps = np.take_along_axis(ps_all, by_group, axis=-1)
    py = np.take_along_axis(py_all, by_group, axis=-1)
    running = np.cumsum(ps, axis=-1)
    starts = np.concatenate([[0], np.cumsum(np.bincount(code))[:-1]])
    big_p = np.add.reduceat(p[np.argsort(code, kind="stable")], starts)
    start = running[:, starts] - ps[:, starts]
    mass = np.add.reduceat(py, starts, axis=-1)
    pair = np.add.reduceat(py * (2.0 * running - ps), starts, axis=-1) - (2.0 * start + big_p) * mass
    return total, pair, mass, mu


def _plain_ge_sum(y, w, code, alpha):
    """Σ_g p f(y) with temporaries (units put in group order first)."""
    order = np.argsort(code, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(code))[:-1]])
    p = (w / np.sum(w))[order]
    y = y[:, order]
    log = np.log(np.where(y > 0, y, 1.0))
    with np.errstate(divide="ignore"):
        if alpha == 1.0:
            term = p * y * log
        elif alpha == 0.0:
            term = p * np.where(y > 0, log, -np.inf)
        else:
            term = p * (y * y if alpha == 2.0 else y ** alpha)
    return np.add.reduceat(term, starts, axis=-1), np.add.reduceat(y * p, starts, axis=-1)


def _bits(a):
    return np.ascontiguousarray(np.asarray(a, dtype=float)).view(np.uint64)


def _same_bits_as_plain(name, pieces, y, births, code):
    """The blocks' sums of measure ``name`` stacked: bit for bit the plain sums over all of ``y``; returned."""
    stacked = tuple(np.concatenate(k) for k in zip(*pieces))
    if name == "gini":
        plain = _plain_gini_sums(y, births, code)
    else:
        plain = _plain_ge_sum(y, births, code, D.parse_alpha(name))
    for fast, slow in zip(stacked, plain):
        np.testing.assert_array_equal(_bits(fast), _bits(slow))
    return stacked


@pytest.fixture
def replicates():
    """Poisson counts on units of very different sizes (many zeros and tied rates), three groups."""
    rng = np.random.default_rng(11)
    births = np.concatenate([rng.integers(5, 60, 120), rng.integers(500, 3000, 60), [50, 100, 200, 400] * 5])
    counts = rng.poisson(births * 0.012, size=(37, len(births)))
    code = np.sort(rng.integers(0, 3, len(births)))
    code[:3] = 0, 1, 2
    code = np.sort(code)
    return counts, births.astype(float), code


@pytest.mark.parametrize("shuffle", [False, True])  # units already in group order, and not
def test_blocks_give_the_plain_sums_and_decomposition_bit_for_bit(replicates, shuffle):
    counts, births, code = replicates
    if shuffle:
        code = np.random.default_rng(3).permutation(code)
    y = counts * (1.0 / births)
    grp = D.Groups(code)
    assert grp.identity is not shuffle
    shares = births / np.sum(births)
    names = ["gini", "theil", "mld", "ge2", "ge0.5", "ge-1"]
    blocks = {name: [] for name in names}
    for start in range(0, len(y), 8):
        cache = {}
        for name in names:
            blocks[name].append(D.replicate_sums(name, y[start:start + 8], shares, grp, cache))
    for name in names:
        stacked = _same_bits_as_plain(name, blocks[name], y, births, code)
        whole = D.decompose_measure(name, y, births, code)
        from_blocks = D.from_sums(name, stacked, grp.sums(shares))
        for key, value in whole.items():
            np.testing.assert_array_equal(_bits(from_blocks[key]), _bits(value))
    assert np.isnan(D.decompose_measure("mld", y, births, code)["total"]).any()  # zero rates: undefined


def _with_logs(replicates, shuffle_seed):
    """The replicates (their group codes permuted with ``shuffle_seed``, if given), their groups, birth
    shares, 1/births and table of logarithms."""
    counts, births, code = replicates
    if shuffle_seed is not None:
        code = np.random.default_rng(shuffle_seed).permutation(code)
    per_birth = 1.0 / births
    return (counts, births, code, D.Groups(code), births / np.sum(births), per_birth,
            D.CountLogs(per_birth, counts.max(axis=0)))


@pytest.mark.parametrize("shuffle", [False, True])
def test_table_of_logarithms_gives_the_same_sums(replicates, shuffle):
    counts, births, code, grp, shares, per_birth, logs = _with_logs(replicates, 4 if shuffle else None)
    assert logs.log.size == int((counts.max(axis=0) + 1).sum())
    for start in range(0, len(counts), 10):
        block = counts[start:start + 10]
        y = block * per_birth
        with_table, plain = {}, {}
        logs.fill(block, grp, with_table)
        for name in ("theil", "mld"):
            fast = D.replicate_sums(name, y, shares, grp, with_table)[0]
            slow = _plain_ge_sum(y, births, code, D.parse_alpha(name))[0]
            np.testing.assert_array_equal(_bits(fast), _bits(slow))
            np.testing.assert_array_equal(_bits(D.replicate_sums(name, y, shares, grp, plain)[0]), _bits(slow))


def test_intervals_of_all_columns_equal_column_by_column():
    rng = np.random.default_rng(5)
    m = rng.gamma(2.0, 0.01, size=(400, 7))
    m[:, 1] = np.round(m[:, 1], 3)  # ties
    m[3, 4] = np.nan  # a replicate without a value: that column falls back
    m[:, 6] = np.inf
    got = T._intervals(m, 0.025)
    for j in range(m.shape[1]):
        want = T._interval(m[:, j], 0.025)
        np.testing.assert_array_equal(np.array(got[j]), np.array(want))
    assert np.isnan(got[6]).all() and np.isfinite(got[4]).all()


def test_replicates_in_blocks_are_one_draw_of_every_row():
    rng_events = np.random.default_rng(6)
    events = rng_events.poisson(3.0, 50).astype(float)
    births = rng_events.integers(100, 900, 50).astype(float)
    x = np.column_stack([rng_events.normal(size=50), rng_events.gamma(2.0, 1.0, 50)])
    order = rng_events.normal(size=50)
    decomposition = C.Decomposition(x, births, order)
    blocks = C.replicate_decompositions(period_rng(9, "2010"), events, births, decomposition, 101,
                                        block_cells=7 * 50)
    rates = period_rng(9, "2010").poisson(events, size=(101, 50)) * (1000.0 / births)
    whole = C.decompose_arrays(rates, x, births, order)
    for key in C.PER_REPLICATE + ("mean", "concentration_index"):
        np.testing.assert_allclose(blocks[key], whole[key], rtol=1e-13, atol=1e-15)
    # one replicate, written out with the covariance formula (module docstring)
    p = births / births.sum()
    y = rates[17]
    mu = y @ p
    r = C.fractional_rank(births, order) - 0.5
    assert blocks["total"][17] == pytest.approx(2 * np.sum(p * (y - mu) * r) / mu, rel=1e-12)


@pytest.mark.parametrize("command", ["groups", "determinants"])
def test_threads_do_not_change_the_table_written(tmp_path, monkeypatch, command):
    """Periods computed in 1 or 3 threads (BRECHA_JOBS) write the same bytes."""
    rng = np.random.default_rng(12)
    n = 60
    births = rng.integers(20, 4000, n)
    frame = pd.concat([pd.DataFrame({"unit": [f"U{i:03d}" for i in range(n)], "year": year, "births": births,
                                     "deaths": rng.poisson(births * 0.01), "zone": np.repeat([1, 2, 3], n // 3),
                                     "poverty": rng.uniform(5, 40, n), "schooling": rng.uniform(8, 13, n)})
                       for year in (2009, 2010, 2011, 2012)])
    panel = tmp_path / "panel.csv"
    frame.to_csv(panel, index=False)
    args = (["--by", "zone"] if command == "groups" else
            ["--rank-by", "poverty", "--determinants", "poverty,schooling"])
    written = []
    for jobs in ("1", "3"):
        monkeypatch.setenv("BRECHA_JOBS", jobs)
        out = tmp_path / f"d{jobs}.csv"
        assert main(["--lang", "en", "decompose", str(panel), *args, "--bootstrap", "200", "--seed", "4",
                     "--change", "2009,2012", "-o", str(out)]) == 0
        written.append(out.read_bytes())
    assert written[0] == written[1]
    assert pd.read_csv(tmp_path / "d3.csv")["lower"].notna().sum() >= 4


def test_block_size_does_not_change_the_table_written(tmp_path, monkeypatch):
    rng = np.random.default_rng(8)
    n = 90
    births = rng.integers(20, 4000, n)
    frame = pd.concat([pd.DataFrame({"unit": [f"U{i:03d}" for i in range(n)], "year": year, "births": births,
                                     "deaths": rng.poisson(births * 0.01), "zone": np.repeat([1, 2, 3], n // 3)})
                       for year in (2010, 2011)])
    panel = tmp_path / "panel.csv"
    frame.to_csv(panel, index=False)
    written = []
    for cells in (1 << 20, 5 * n, n):  # every replicate at once, blocks of 5 replicates, one at a time
        monkeypatch.setattr(T, "CHUNK_CELLS", cells)
        out = tmp_path / f"d{cells}.csv"
        assert main(["--lang", "en", "decompose", str(panel), "--by", "zone", "--measures", "theil,mld,ge2,gini",
                     "--bootstrap", "200", "--seed", "3", "--change", "2010,2011", "-o", str(out)]) == 0
        written.append(out.read_bytes())
    assert written[0] == written[1] == written[2]
    table = pd.read_csv(tmp_path / f"d{n}.csv")
    assert table["lower"].notna().sum() > 20  # intervals were computed (theil, ge2, gini, the groups)


@pytest.mark.parametrize("shuffle", [False, True])
def test_blocks_in_one_workspace_give_the_plain_sums_bit_for_bit(replicates, shuffle):
    """The scratch arrays reused from block to block (blocks of 8, then the 5 left: a smaller last block)
    change no bit of any measure's sums, with the table of logarithms too, and nothing returned is a view
    of a scratch array (the stacked sums stay right after later blocks overwrite them)."""
    counts, births, code, grp, shares, per_birth, logs = _with_logs(replicates, 5 if shuffle else None)
    work = D.Workspace()
    names = ["gini", "theil", "mld", "ge2", "ge0.5"]
    blocks = {name: [] for name in names}
    for start in range(0, len(counts), 8):
        block = counts[start:start + 8]
        y = np.multiply(block, per_birth, out=work.array("rates", block.shape))
        cache = {"work": work}
        logs.fill(block, grp, cache)
        for name in names:
            blocks[name].append(D.replicate_sums(name, y, shares, grp, cache))
    y_all = counts * per_birth
    for name in names:
        _same_bits_as_plain(name, blocks[name], y_all, births, code)


def test_workspace_reuses_its_arrays():
    work = D.Workspace()
    a = work.array("x", (8, 5))
    b = work.array("x", (3, 5))
    assert b.base is a.base or np.shares_memory(a, b)  # the same memory, its first rows
    assert b.shape == (3, 5) and b.flags["C_CONTIGUOUS"]
    c = work.array("x", (9, 5))  # bigger: a new array
    assert c.shape == (9, 5) and not np.shares_memory(a, c)
    assert work.array("x", (2, 4)).shape == (2, 4)  # another width: a new array
