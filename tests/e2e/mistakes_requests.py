"""Mistake cases of implausible data and requests (class 7 of issue 11): years, counts, groups, bootstrap,
references, covariates, options out of range, studies with errors. See :mod:`mistakes` for the runner."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

import mistake_data as md
from mistake_harness import Case
from mistakes_inputs import INGEST, _edited, _study_text, _text, _totals, _write


# ------------------------------------------------------------------------------------------ class 7: requests
def _set(row: int, col: str, value):
    """Base panel with the cell of file row ``row`` (header = 1) in ``col`` set to ``value``."""
    def edit(df):
        df = df.astype({col: object})
        df.loc[row - 2, col] = value
        return df
    return edit


def request_cases() -> list[Case]:
    b, d = _totals()
    good = _write("panel.csv")
    one_unit = _write("uno.csv", lambda: md.base().query("unit == '09101'"))
    one_year = _write("anio.csv", lambda: md.base().query("year == 2014"))

    def e(cid, title, argv, mentions, setup=good, **kw):
        return Case(cid, 7, title, [argv], "error", setup, mentions=mentions, **kw)

    def w(cid, title, argv, mentions, setup=good, **kw):
        return Case(cid, 7, title, [argv], "warn", setup, mentions=mentions, also_error=True, **kw)

    P = "panel.csv"
    study_bad = _study_text(data='panel = "panel.csv"').replace('period = "2010-2014"', 'period = "2010-20015"')
    study_bad = study_bad.replace("[analyses.rates]", '[covariates]\nnames = ["povrty"]\n[analyses.ratez]\n'
                                  '[analyses.inequality]\ngroups = 1000\n')
    cases = [
        # years in the data
        e("data-year-20015", "year 20015 in row 57", [*INGEST, P, "-o", "p.csv"], ("20015", "57"),
          _edited(P, _set(57, "year", 20015))),
        e("data-year-20015-panel", "year 20015 through `panel`", ["panel", P], ("20015", "57"),
          _edited(P, _set(57, "year", 20015))),
        e("data-year-1899", "year 1899", ["panel", P], ("1899",), _edited(P, _set(57, "year", 1899))),
        e("data-year-2099", "year 2099 (after next year)", ["panel", P], ("2099",), _edited(P, _set(57, "year", 2099))),
        e("data-year-two-digits", "year '14' in row 57", ["panel", P], ("57",), _edited(P, _set(57, "year", 14))),
        Case("data-year-float", 7, "years written 2010.0", [["panel", P, "-o", "s.csv"]], "ok",
             _edited(P, lambda df: df.assign(year=df["year"].astype(float))), check=md.summary_totals("s.csv", b, d),
             outputs=("s.csv",)),
        # counts
        e("data-negative-births", "births -3 in row 57", ["panel", P], ("57", "-3"), _edited(P, _set(57, "births", -3))),
        e("data-negative-deaths-ingest", "deaths -1 in row 83", [*INGEST, P, "-o", "p.csv"], ("83",),
          _edited(P, _set(83, "deaths", -1))),
        e("data-rates-not-counts", "deaths column holding rates per 1,000 (7.83)", ["panel", P], ("deaths",),
          _edited(P, lambda df: df.assign(deaths=(df["deaths"] / df["births"] * 1000).round(2)))),
        e("data-text-in-count", "births 's/i' in row 57", ["panel", P], ("57", "s/i"), _edited(P, _set(57, "births", "s/i"))),
        w("data-deaths-above-births", "deaths > births in row 57", ["panel", P], ("09",),
          _edited(P, _set(57, "deaths", 5000))),
        w("data-zero-births", "0 births in row 57", ["panel", P], ("0",), _edited(P, _set(57, "births", 0))),
        w("data-neonatal-above-infant", "neonatal + post-neonatal > infant",
          ["panel", P], ("neonatal",), _edited(P, lambda df: df.assign(deaths_neonatal=df["deaths"],
                                                                        deaths_postneonatal=df["deaths"] + 1))),
        e("data-duplicated-row", "row 57 repeated exactly", ["panel", P], ("57",),
          _edited(P, lambda df: pd.concat([df.iloc[:56], df.iloc[[55]], df.iloc[56:]], ignore_index=True))),
        e("data-duplicated-unit-year", "two different rows for one commune-year", [*INGEST, P, "-o", "p.csv"],
          ("58",), _edited(P, lambda df: df.assign(year=df["year"].where(df.index != 56, df.loc[55, "year"])))),
        e("data-missing-deaths-column", "no deaths column", ["panel", P], ("deaths",),
          _write(P, lambda: md.base().drop(columns="deaths"))),
        e("data-missing-year-column", "no year column (long table)", [*INGEST, P, "-o", "p.csv"], (P,),
          _write(P, lambda: md.base().drop(columns="year"))),
        # years asked for
        e("req-years-outside-panel", "--years 2030 on a 2010-2014 panel", ["rates", P, "--years", "2030"], ("2030",)),
        w("req-years-partly-outside", "--years 2012-2016 on a 2010-2014 panel", ["rates", P, "--years", "2012-2016"],
          ("2016",)),
        e("req-years-20015", "--years 20015", ["rates", P, "--years", "20015"], ("20015",)),
        e("req-years-backwards", "--years 2014-2010", ["rates", P, "--years", "2014-2010"], ("2014-2010",)),
        e("req-years-1850", "--years 1850-2012 (before 1900)", ["rates", P, "--years", "1850-2012"], ("1850",)),
        # groups, bootstrap, references
        w("req-groups-1000", "--groups 1000 on 32 communes", ["inequality", P, "--rank-by", "poverty", "--groups", "1000"],
          ("1000",)),
        w("req-groups-33", "--groups 33 on 32 communes", ["inequality", P, "--rank-by", "poverty", "--groups", "33"],
          ("33",)),
        e("req-groups-0", "--groups 0", ["inequality", P, "--rank-by", "poverty", "--groups", "0"], ("--groups",)),
        e("req-groups-1", "--groups 1", ["inequality", P, "--rank-by", "poverty", "--groups", "1"], ("--groups",)),
        e("req-groups-negative", "--groups -3", ["inequality", P, "--rank-by", "poverty", "--groups", "-3"],
          ("--groups",)),
        w("req-bootstrap-1", "--bootstrap 1", ["inequality", P, "--bootstrap", "1"], ("--bootstrap",)),
        w("req-bootstrap-10", "--bootstrap 10", ["inequality", P, "--bootstrap", "10"], ("--bootstrap",)),
        e("req-bootstrap-negative", "--bootstrap -5", ["inequality", P, "--bootstrap", "-5"], ("--bootstrap",)),
        e("req-bootstrap-text", "--bootstrap mil", ["inequality", P, "--bootstrap", "mil"], ("--bootstrap",)),
        e("req-best-negative", "--reference best:-5", ["disparity", P, "--reference", "best:-5"], ("best:-5",)),
        e("req-best-text", "--reference best:mucho", ["disparity", P, "--reference", "best:mucho"], ("best:mucho",)),
        e("req-best-huge", "--reference best:100000000 (no commune has so many births)",
          ["disparity", P, "--reference", "best:100000000"], ("100000000",)),
        e("req-reference-unknown-code", "--reference 99999", ["disparity", P, "--reference", "99999"], ("99999",)),
        e("req-reference-other-region", "--reference 13101 (not in this panel)", ["disparity", P, "--reference", "13101"],
          ("13101",)),
        e("req-quintile-misspelt", "--reference lowest-quintile:povrty", ["disparity", P, "--reference",
          "lowest-quintile:povrty"], ("povrty", "poverty")),
        e("req-quintile-empty", "--reference lowest-quintile:", ["disparity", P, "--reference", "lowest-quintile:"],
          ("lowest-quintile",)),
        e("req-units-unknown", "--units 99999", ["disparity", P, "--reference", "best", "--units", "99999"], ("99999",)),
        e("req-inequality-one-unit", "inequality on a single commune", ["inequality", "uno.csv"], ("09101",),
          one_unit),
        e("req-inequality-one-unit-region", "inequality on --region with one commune in it",
          ["inequality", "mixed.csv", "--region", "13"], ("13",),
          _write("mixed.csv", lambda: pd.concat([md.base(), md.chile_counts().query("unit == '13101' and "
                                                                                     "year >= 2010 and year <= 2014")]))),
        # "refused or flagged" (issue point 7): a trend or a fixed-effects model on one year is said to be impossible
        w("req-trends-one-year", "trends on a one-year panel", ["trends", "anio.csv"], ("3",), one_year),
        w("req-models-one-year", "models (fe) on a one-year panel", ["models", "anio.csv", "--covariates", "poverty",
          "--models", "fe"], ("not estimated",), one_year),
        # covariates
        e("req-covariate-unknown", "--covariates foo", ["models", P, "--covariates", "foo"], ("foo",)),
        e("req-covariate-misspelt", "--covariates povrety", ["models", P, "--covariates", "povrety"],
          ("povrety", "poverty")),
        e("req-rank-by-misspelt", "--rank-by povrty", ["inequality", P, "--rank-by", "povrty"], ("povrty", "poverty")),
        e("req-covariate-no-country", "--covariates poverty on a panel with no country",
          ["models", "x.csv", "--covariates", "poverty"], ("poverty",),
          _write("x.csv", lambda: md.base().assign(unit=lambda df: "A" + df["unit"]))),
        Case("req-own-column-wins", 7, "--covariates spending on a panel with its own 'spending' column",
             [["models", "s.csv", "--covariates", "spending", "-o", "m.csv"]], "ok",
             _write("s.csv", lambda: md.base().assign(spending=lambda df: df["births"] % 97 + 0.5)),
             check=_term_present("m.csv", "spending"), outputs=("m.*",)),
        # options out of range
        e("req-conf-level-95", "--conf-level 95 (a percent)", ["rates", P, "--conf-level", "95"], ("--conf-level",)),
        e("req-conf-level-0", "--conf-level 0", ["rates", P, "--conf-level", "0"], ("--conf-level",)),
        e("req-outcome-typo", "--outcome infantile", ["rates", P, "--outcome", "infantile"], ("infantile",)),
        e("req-outcome-missing", "--outcome neonatal on a panel without it", ["rates", P, "--outcome", "neonatal"],
          ("neonatal",)),
        e("req-models-unknown", "--models fe,xx", ["models", P, "--covariates", "poverty", "--models", "fe,xx"],
          ("xx",)),
        e("req-se-typo", "--se robustt", ["models", P, "--covariates", "poverty", "--se", "robustt"], ("robustt",)),
        e("req-min-years-1", "trends --min-years 1", ["trends", P, "--min-years", "1"], ("--min-years",)),
        e("req-alpha-5", "trends --alpha 5", ["trends", P, "--alpha", "5"], ("--alpha",)),
        e("req-max-zero-share-2", "trends --max-zero-share 2", ["trends", P, "--max-zero-share", "2"],
          ("--max-zero-share",)),
        e("req-permutations-0", "trends joinpoint --permutations 0", ["trends", P, "--method", "joinpoint",
          "--selection", "permutation", "--permutations", "0"], ("--permutations",)),
        e("req-aapc-outside", "--aapc-years 2030-2040", ["trends", P, "--method", "joinpoint", "--aapc-years",
          "2030-2040"], ("2030",)),
        e("req-funnel-target-negative", "funnel --target -3", ["funnel", P, "--target", "-3"], ("--target",)),
        e("req-region-unknown", "--region 99", ["rates", P, "--region", "99"], ("99",)),
        e("req-region-not-in-panel", "--region 13 on an Araucanía panel", ["rates", P, "--region", "13"], ("13",)),
        Case("req-region-name-no-accent", 7, "--region Araucania (name without accent)",
             [["rates", P, "--region", "Araucania", "-o", "r.csv"]], "ok", good, check=md.output_rows("r.csv", 160),
             outputs=("r.csv",), why="silent: region names deserve the tolerance unit names get"),
        e("req-smooth-region-prior-no-regions", "smooth --prior region on a panel without regions",
          ["smooth", "x.csv", "--prior", "region"], ("region",),
          _write("x.csv", lambda: md.base().assign(unit=lambda df: "A" + df["unit"]))),
        e("req-output-extension-before-work", "ingest table -o p.txt: refused before reading", [*INGEST, P, "-o", "p.txt"],
          ("p.txt",), check=md.stdout_lacks("Panel:")),
        e("req-output-extension-before-models", "models -o m.docx: refused before fitting",
          ["models", P, "--covariates", "poverty", "-o", "m.docx"], ("m.docx",), check=md.stdout_lacks("pooled")),
        # studies
        e("study-empty", "an empty study file", ["report", "study.toml", "-o", "r"], ("study.toml",),
          _text("study.toml", "")),
        e("study-comments-only", "a study of comments only", ["report", "study.toml", "-o", "r"], ("study.toml",),
          _text("study.toml", "# my study\n# to do\n")),
        e("study-several-errors", "period 2010-20015, covariate 'povrty', analysis 'ratez', groups 1000: all in "
          "one run", ["report", "study.toml", "-o", "r"], ("20015", "povrty", "ratez", "1000"),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", study_bad))),
        e("study-unknown-covariate", "[covariates] names = ['foo']", ["report", "study.toml", "-o", "r"], ("foo",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text(
              covariates='[covariates]\nnames = ["foo"]\n')))),
        e("study-misspelt-covariate", "[covariates] names = ['povrety']", ["report", "study.toml", "-o", "r"],
          ("povrety", "poverty"), lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text(
              covariates='[covariates]\nnames = ["povrety"]\n')))),
        e("study-rank-by-misspelt", "inequality rank_by = 'povrty'", ["report", "study.toml", "-o", "r"], ("povrty",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text(
              more='[analyses.inequality]\nrank_by = "povrty"\n')))),
        e("study-period-outside", "period 1980-1990 on a 2010-2014 panel", ["report", "study.toml", "-o", "r"],
          ("1980",), lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text().replace(
              "2010-2014", "1980-1990")))),
        e("study-region-99", "[units] region = '99'", ["report", "study.toml", "-o", "r"], ("99",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text().replace(
              "all = true", 'region = "99"')))),
        e("study-reference-unknown", "[reference] codes = ['99999']", ["report", "study.toml", "-o", "r"], ("99999",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text().replace(
              'rule = "best"', 'codes = ["99999"]')))),
        e("study-groups-1000", "inequality groups = 1000 on 32 communes", ["report", "study.toml", "-o", "r"],
          ("1000",), lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text(
              more='[analyses.inequality]\ngroups = 1000\n')))),
        e("study-bootstrap-1", "inequality bootstrap = 1", ["report", "study.toml", "-o", "r"], ("bootstrap",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text(
              more='[analyses.inequality]\nbootstrap = 1\n')))),
        e("study-unknown-top-field", "'titel' instead of 'title'", ["report", "study.toml", "-o", "r"], ("titel",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text().replace(
              "title =", "titel =")))),
        e("study-best-negative", "reference min_births = -5", ["report", "study.toml", "-o", "r"], ("min_births",),
          lambda f: (md.write(f, P, md.base()), md.text_file(f, "study.toml", _study_text().replace(
              'rule = "best"', 'rule = "best"\nmin_births = -5')))),
    ]
    return cases


def _term_present(out: str, term: str):
    def check(folder, run):
        d = md.read_any(Path(folder) / out)
        text = d.astype(str).to_string()
        if term not in text:
            return f"{out} has no term {term!r}"
        if "health_spending_pc" in text:
            return f"{out} used the alias health_spending_pc instead of the panel's own {term!r}"
        return None
    return check
