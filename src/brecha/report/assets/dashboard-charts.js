/* brecha dashboard, part 2 of 3: the charts (plain SVG) of the Explore, Compare and Determinants views. */
  // ----------------------------------------------------------------------------- charts (SVG)
  function ticks(lo, hi, n) {
    if (!(hi > lo)) { hi = lo + 1; }
    const step0 = (hi - lo) / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 2.5, 5, 10].map(function (m) { return m * mag; }).filter(function (s) { return s >= step0; })[0];
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return {values: out, digits: Math.max(0, -Math.floor(Math.log10(step) + 1e-9))};
  }
  function frame(svg, xs, ys, opts) {
    svg.textContent = "";
    const W = 640, H = opts.height || 300, m = {l: 58, r: 12, t: 12, b: 38};
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    let x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    let y0 = Math.min.apply(null, ys), y1 = Math.max.apply(null, ys);
    if (opts.zero) { y0 = Math.min(0, y0); }
    if (x0 === x1) { x0 -= 1; x1 += 1; }
    if (y0 === y1) { y0 -= 1; y1 += 1; }
    const padY = (y1 - y0) * 0.05; y0 -= opts.zero && y0 === 0 ? 0 : padY; y1 += padY;
    const logx = opts.logx && x0 > 0;
    const tx = function (v) { return logx ? Math.log10(v) : v; };
    const X = function (v) { return m.l + (tx(v) - tx(x0)) / ((tx(x1) - tx(x0)) || 1) * (W - m.l - m.r); };
    const Y = function (v) { return H - m.b - (v - y0) / (y1 - y0) * (H - m.t - m.b); };
    const axes = el("svg:g", {class: "axes"}, svg);
    const yt = ticks(y0, y1, 5);
    yt.values.forEach(function (v) {
      el("svg:line", {x1: m.l, x2: W - m.r, y1: Y(v), y2: Y(v), class: "gl"}, axes);
      el("svg:text", {x: m.l - 6, y: Y(v) + 4, "text-anchor": "end"}, axes, fmt(v, yt.digits));
    });
    let xv;
    if (opts.years) { xv = xs.filter(function (v, i, a) { return a.indexOf(v) === i; }).sort(); if (xv.length > 10) xv = xv.filter(function (v, i) { return i % Math.ceil(xv.length / 10) === 0; }); }
    else if (logx) { xv = []; for (let p = Math.ceil(Math.log10(x0)); p <= Math.log10(x1); p++) xv.push(Math.pow(10, p)); }
    else xv = ticks(x0, x1, 6).values;
    const xd = opts.years ? 0 : ticks(x0, x1, 6).digits;
    xv.forEach(function (v) {
      el("svg:text", {x: X(v), y: H - m.b + 16, "text-anchor": "middle"}, axes, opts.years ? String(v) : fmt(v, logx ? 0 : xd));
    });
    el("svg:line", {x1: m.l, x2: W - m.r, y1: H - m.b, y2: H - m.b, class: "axis"}, axes);
    if (opts.xlabel) el("svg:text", {x: (W + m.l) / 2, y: H - 4, "text-anchor": "middle", class: "label"}, axes, opts.xlabel);
    if (opts.ylabel) el("svg:text", {x: 12, y: (H - m.b + m.t) / 2, "text-anchor": "middle", class: "label",
                                      transform: "rotate(-90 12 " + (H - m.b + m.t) / 2 + ")"}, axes, opts.ylabel);
    return {X: X, Y: Y, W: W, H: H, m: m};
  }
  function lineChart(svg, series, opts) {
    const xs = [], ys = [];
    series.forEach(function (s) { s.pts.forEach(function (p) {
      if (p.y === null) return; xs.push(p.x); ys.push(p.y); if (p.lo !== null) ys.push(p.lo); if (p.hi !== null) ys.push(p.hi); }); });
    if (!xs.length) { svg.textContent = ""; el("svg:text", {x: 20, y: 40}, svg, T("unavailable")); svg.setAttribute("viewBox", "0 0 640 80"); return; }
    const f = frame(svg, xs, ys, Object.assign({years: true}, opts));
    series.forEach(function (s) {
      const pts = s.pts.filter(function (p) { return p.y !== null; });
      const band = pts.filter(function (p) { return p.lo !== null && p.hi !== null; });
      if (band.length > 1) {
        const d = band.map(function (p, i) { return (i ? "L" : "M") + f.X(p.x) + " " + f.Y(p.hi); }).join("") +
                  band.slice().reverse().map(function (p) { return "L" + f.X(p.x) + " " + f.Y(p.lo); }).join("") + "Z";
        el("svg:path", {d: d, fill: s.colour, "fill-opacity": 0.15, stroke: "none"}, svg);
      }
      if (pts.length > 1) el("svg:path", {d: pts.map(function (p, i) { return (i ? "L" : "M") + f.X(p.x) + " " + f.Y(p.y); }).join(""),
                                          fill: "none", stroke: s.colour, "stroke-width": 2}, svg);
      pts.forEach(function (p) { el("svg:circle", {cx: f.X(p.x), cy: f.Y(p.y), r: 2.5, fill: s.colour}, svg); });
    });
    if (opts.hline !== undefined) el("svg:line", {x1: f.m.l, x2: f.W - f.m.r, y1: f.Y(opts.hline), y2: f.Y(opts.hline), class: "ref"}, svg);
    const key = el("svg:g", {class: "key"}, svg);
    series.forEach(function (s, k) {
      el("svg:rect", {x: f.m.l + 10 + k * 190, y: 4, width: 10, height: 10, fill: s.colour}, key);
      el("svg:text", {x: f.m.l + 24 + k * 190, y: 13}, key, s.label.length > 28 ? s.label.slice(0, 27) + "…" : s.label);
    });
  }
  function seriesOf(table, filter) {
    const pts = [];
    if (!table) return pts;
    for (let i = 0; i < table.est.length; i++) if (filter(i)) pts.push({x: table.y[i], y: table.est[i], lo: table.lo[i], hi: table.hi[i]});
    return pts.sort(function (a, b) { return a.x - b.x; });
  }
  function drawSeries() {
    const svg = document.getElementById("series"), o = O(), series = [];
    if (S.unit !== null && o.units_year) {
      series.push({label: U.name[S.unit], colour: D.colours.accent, pts: seriesOf(o.units_year, function (i) { return o.units_year.u[i] === S.unit; })});
      const reg = U.region[S.unit];
      series.push({label: D.regions.name[D.regions.code.indexOf(reg)] || reg, colour: D.colours.blue,
                   pts: seriesOf(o.regions, function (i) { return o.regions.u[i] === reg; })});
    }
    series.push({label: T("country"), colour: "#444", pts: seriesOf(o.national, function () { return true; })});
    lineChart(svg, series, {ylabel: T("per_1000")});
    document.getElementById("series-hint").textContent = S.unit === null ? T("series_hint") : "";
    views.series = {header: [T("c_series"), T("c_year"), T("c_value"), T("c_lower"), T("c_upper")],
                    rows: [].concat.apply([], series.map(function (s) { return s.pts.map(function (p) { return [s.label, p.x, p.y, p.lo, p.hi]; }); }))};
  }
  function drawInequality() {
    const ineq = D.compare.inequality, svg = document.getElementById("inequality");
    const t = ineq[S.ineq];
    const pts = t ? seriesOf(t, function () { return true; }) : [];
    const rel = S.ineq === "rii" || S.ineq === "fifths";
    lineChart(svg, [{label: T("q_" + S.ineq), colour: D.colours.accent, pts: pts}], {hline: rel ? 1 : 0});
    const notes = [];
    if (t && t.rank_by) notes.push(T("ordered_by", {cov: covLabel(t.rank_by)}));
    if (S.ineq === "fifths") notes.push(T("no_ci"));
    document.getElementById("inequality-note").textContent = notes.join("; ");
    views.inequality = {header: [T("c_measure"), T("c_year"), T("c_value"), T("c_lower"), T("c_upper")],
                        rows: pts.map(function (p) { return [S.ineq, p.x, p.y, p.lo, p.hi]; })};
  }
  function drawFunnel() {
    const f0 = D.compare.funnel, svg = document.getElementById("funnel");
    if (!f0) { svg.textContent = ""; el("svg:text", {x: 20, y: 40}, svg, T("unavailable")); svg.setAttribute("viewBox", "0 0 640 80"); return; }
    const idx = f0.bi.map(function (b, i) { return i; }).filter(function (i) { return f0.bi[i] > 0 && f0.est[i] !== null; })
      .sort(function (a, b) { return f0.bi[a] - f0.bi[b]; });
    const xs = idx.map(function (i) { return f0.bi[i]; });
    const ys = idx.map(function (i) { return f0.est[i]; }).concat(idx.map(function (i) { return f0.upper_998[i]; }).filter(function (v) { return v !== null; }));
    const f = frame(svg, xs, ys, {logx: true, zero: true, xlabel: T("funnel_x"), ylabel: T("per_1000"), height: 320});
    [["lower_95", "l95"], ["upper_95", "l95"], ["lower_998", "l998"], ["upper_998", "l998"]].forEach(function (k) {
      const pts = idx.filter(function (i) { return f0[k[0]][i] !== null; });
      el("svg:path", {d: pts.map(function (i, j) { return (j ? "L" : "M") + f.X(f0.bi[i]) + " " + f.Y(f0[k[0]][i]); }).join(""), class: k[1], fill: "none"}, svg);
    });
    el("svg:line", {x1: f.m.l, x2: f.W - f.m.r, y1: f.Y(f0.target), y2: f.Y(f0.target), class: "ref"}, svg);
    const dots = el("svg:g", {}, svg);
    idx.forEach(function (i) {
      const u = f0.u[i];
      const flagged = f0.flag[i] && f0.flag[i] !== "within";
      el("svg:circle", {cx: f.X(f0.bi[i]), cy: f.Y(f0.est[i]), r: u === S.unit ? 5 : 3, "data-unit": U.code[u],
                        fill: u === S.unit ? D.colours.accent : flagged ? D.colours.blue : "#999", "fill-opacity": 0.8,
                        class: u === S.unit ? "sel" : ""}, dots);
    });
    dots.addEventListener("click", function (e) { const c = e.target.getAttribute("data-unit"); if (c) select(unitIndex[c]); });
    views.funnel = {header: [T("c_unit"), T("c_name"), T("c_births"), T("c_y"), "lower_95", "upper_95", "lower_998", "upper_998", "flag"],
                    rows: idx.map(function (i) { return [U.code[f0.u[i]], U.name[f0.u[i]], f0.bi[i], f0.est[i], f0.lower_95[i], f0.upper_95[i], f0.lower_998[i], f0.upper_998[i], f0.flag[i]]; })};
  }
  function drawClasses() {
    const c = D.compare.trend_classes, svg = document.getElementById("classes");
    svg.textContent = "";
    if (!c) { el("svg:text", {x: 20, y: 40}, svg, T("unavailable")); svg.setAttribute("viewBox", "0 0 640 80"); return; }
    const most = Math.max.apply(null, c.n.concat([1]));
    svg.setAttribute("viewBox", "0 0 640 " + (c.code.length * 28 + 10));
    c.code.forEach(function (k, i) {
      el("svg:text", {x: 300, y: 22 + i * 28, "text-anchor": "end"}, svg, T("t_" + k));
      el("svg:rect", {x: 308, y: 8 + i * 28, height: 18, width: Math.max(1, 280 * c.n[i] / most), fill: D.colours.trend[k] || D.colours.missing, stroke: "#888"}, svg);
      el("svg:text", {x: 314 + 280 * c.n[i] / most, y: 22 + i * 28}, svg, fmt(c.n[i], 0));
    });
    views.classes = {header: [T("c_class"), T("c_n")], rows: c.code.map(function (k, i) { return [T("t_" + k), c.n[i]]; })};
  }
  function drawRegions() {
    const o = O(), svg = document.getElementById("regions");
    document.getElementById("regions-title").textContent = T("regions", {year: yearLabel(S.year)});
    svg.textContent = "";
    const t = o.regions;
    const rows = [];
    if (t) for (let i = 0; i < t.est.length; i++) {
      if (S.year !== "pooled" && t.y[i] !== S.year) continue;
      if (S.year === "pooled") continue;
      rows.push({code: t.u[i], est: t.est[i], lo: t.lo[i], hi: t.hi[i]});
    }
    if (S.year === "pooled" && o.units_pooled) { /* the report has no pooled regional table: say so */ }
    if (!rows.length) { el("svg:text", {x: 20, y: 40}, svg, T("unavailable")); svg.setAttribute("viewBox", "0 0 640 80"); views.regions = {header: [], rows: []}; return; }
    rows.sort(function (a, b) { return (b.est === null ? -1 : b.est) - (a.est === null ? -1 : a.est); });
    const H = rows.length * 20 + 40, W = 640, l = 210, r = 20;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    const vals = [].concat.apply([], rows.map(function (x) { return [x.lo, x.hi, x.est]; })).filter(function (v) { return v !== null; });
    const x0 = Math.min(0, Math.min.apply(null, vals)), x1 = Math.max.apply(null, vals) * 1.05;
    const X = function (v) { return l + (v - x0) / (x1 - x0) * (W - l - r); };
    const tk = ticks(x0, x1, 6);
    tk.values.forEach(function (v) { el("svg:line", {x1: X(v), x2: X(v), y1: 5, y2: H - 25, class: "gl"}, svg);
                                     el("svg:text", {x: X(v), y: H - 10, "text-anchor": "middle"}, svg, fmt(v, tk.digits)); });
    const nat = nationalRow();
    if (nat && nat.est !== null) el("svg:line", {x1: X(nat.est), x2: X(nat.est), y1: 5, y2: H - 25, class: "ref"}, svg);
    rows.forEach(function (row, k) {
      const y = 18 + k * 20, chosen = row.code === S.region;
      const name = D.regions.name[D.regions.code.indexOf(row.code)] || row.code;
      el("svg:text", {x: l - 8, y: y + 4, "text-anchor": "end", class: chosen ? "strong" : ""}, svg, name.length > 30 ? name.slice(0, 29) + "…" : name);
      if (row.lo !== null && row.hi !== null) el("svg:line", {x1: X(row.lo), x2: X(row.hi), y1: y, y2: y, stroke: chosen ? D.colours.accent : "#555"}, svg);
      if (row.est !== null) el("svg:circle", {cx: X(row.est), cy: y, r: 4, fill: chosen ? D.colours.accent : D.colours.blue}, svg);
    });
    views.regions = {header: [T("c_region"), T("c_year"), T("c_value"), T("c_lower"), T("c_upper")],
                     rows: rows.map(function (x) { return [D.regions.name[D.regions.code.indexOf(x.code)] || x.code, S.year, x.est, x.lo, x.hi]; })};
  }
  function covLabel(c) { const e = D.covariate_labels[c]; return e ? e[LANGS.indexOf(S.lang)] : c; }
  function drawScatter() {
    const svg = document.getElementById("scatter"), det = D.determinants, note = document.getElementById("scatter-note");
    svg.textContent = "";
    note.textContent = "";
    views.scatter = {header: [], rows: []};
    if (!S.cov) { note.textContent = T("no_covariate"); svg.setAttribute("viewBox", "0 0 640 20"); return; }
    const first = D.data[D.outcomes[0]];
    const pooled = S.year === "pooled";
    const vals = det.values[S.cov];
    const rates = pooled ? pick(first.units_pooled) : pick(first.units_year, S.year);
    const pts = [];
    if (pooled && vals.pooled) vals.pooled.u.forEach(function (u, k) { const r = rates[u]; if (r && r.est !== null && vals.pooled.x[k] !== null && inRegion(u)) pts.push([u, vals.pooled.x[k], r.est]); });
    if (!pooled) vals.u.forEach(function (u, k) { if (vals.y[k] !== S.year) return; const r = rates[u]; if (r && r.est !== null && vals.x[k] !== null && inRegion(u)) pts.push([u, vals.x[k], r.est]); });
    if (!pts.length) { note.textContent = T("no_cov_year", {year: yearLabel(S.year)}); svg.setAttribute("viewBox", "0 0 640 20"); return; }
    const f = frame(svg, pts.map(function (p) { return p[1]; }), pts.map(function (p) { return p[2]; }), {xlabel: covLabel(S.cov), ylabel: T("per_1000"), height: 320});
    const dots = el("svg:g", {}, svg);
    pts.forEach(function (p) {
      el("svg:circle", {cx: f.X(p[1]), cy: f.Y(p[2]), r: p[0] === S.unit ? 5 : 2.5, "data-unit": U.code[p[0]],
                        fill: p[0] === S.unit ? D.colours.accent : D.colours.blue, "fill-opacity": 0.6, class: p[0] === S.unit ? "sel" : ""}, dots);
    });
    dots.addEventListener("click", function (e) { const c = e.target.getAttribute("data-unit"); if (c) select(unitIndex[c]); });
    const line = (det.fits[S.cov] || {})[pooled ? "pooled" : String(S.year)];
    if (line) {
      const xs = pts.map(function (p) { return p[1]; }), a = Math.min.apply(null, xs), b = Math.max.apply(null, xs);
      el("svg:line", {x1: f.X(a), x2: f.X(b), y1: f.Y(line[0] + line[1] * a), y2: f.Y(line[0] + line[1] * b), class: "fit"}, svg);
      note.textContent = T("fit_line", {a: fmt(line[0], 2), b: fmt(line[1], 3), n: fmt(line[2], 0)}).replace("+ -", "− ");
    }
    views.scatter = {header: [T("c_unit"), T("c_name"), covLabel(S.cov), T("c_y")],
                     rows: pts.map(function (p) { return [U.code[p[0]], U.name[p[0]], p[1], p[2]]; })};
  }
  function drawModels() {
    const m = D.determinants.models, table = document.getElementById("models-table");
    table.textContent = "";
    document.getElementById("models-note").textContent = m ? "" : T("no_models");
    if (!m) return;
    const head = el("tr", {}, el("thead", {}, table));
    ["c_model", "c_term", "c_estimate", "c_lower", "c_upper", "c_p"].forEach(function (k) { el("th", {}, head, T(k)); });
    const body = el("tbody", {}, table);
    const rows = [];
    m.model.forEach(function (model, i) {
      const tr = el("tr", {}, body);
      const name = D.labels["model_" + model] ? T("model_" + model) : model;
      const term = m.term[i] === "intercept" ? T("intercept") : covLabel(m.term[i]);
      [name, term].forEach(function (x) { el("td", {}, tr, x); });
      [m.est[i], m.lo[i], m.hi[i]].forEach(function (x) { el("td", {class: "num"}, tr, fmt(x, 3)); });
      el("td", {class: "num"}, tr, fmtP(m.p[i]));
      rows.push([model, m.term[i], m.est[i], m.lo[i], m.hi[i], m.p[i]]);
    });
    views.models = {header: ["model", "term", "estimate", "lower", "upper", "p_value"], rows: rows};
  }

