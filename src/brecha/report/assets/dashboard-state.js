/* brecha dashboard, part 1 of 3: the data of the chosen state, colours, the map and the table.
   The page runs dashboard-state.js, dashboard-charts.js and dashboard.js as one script, in that order, inside
   one function (brecha.report.dashboard.SCRIPTS): they share its names. */
  const D = JSON.parse(document.getElementById("brecha-data").textContent);
  const NS = "http://www.w3.org/2000/svg";
  const LANGS = ["es", "en", "pt"];
  const S = {lang: D.lang, year: "pooled", outcome: D.outcomes[0], measure: "rate", region: "", unit: null,
             sortCol: "value", sortDir: -1, search: "", ineq: null, cov: D.determinants.covariates[0] || null,
             tab: "explore"};
  const U = D.units;
  const unitIndex = {};
  U.code.forEach(function (c, i) { unitIndex[c] = i; });

  // ----------------------------------------------------------------------------- words and numbers
  function T(key, fields) {
    const entry = D.labels[key];
    let text = entry ? entry[LANGS.indexOf(S.lang)] : key;
    if (fields) Object.keys(fields).forEach(function (k) { text = text.split("{" + k + "}").join(fields[k]); });
    return text;
  }
  // Python's f"{v:,.{d}f}": the exact binary value rounded, exact ties to even (toFixed breaks ties upwards)
  function fixed(v, d) {
    let s = v.toFixed(d);
    const exact = Math.abs(v).toPrecision(100);
    const dot = exact.indexOf(".");
    if (dot >= 0 && exact.indexOf("e") < 0 && /^50*$/.test(exact.slice(dot + 1 + d))) {
      const kept = exact.slice(0, dot + 1 + d).replace(/\.$/, "");
      if (+kept[kept.length - 1] % 2 === 0) s = (v < 0 ? "-" : "") + kept;
    }
    return s;
  }
  function fmt(v, d) {
    if (v === null || v === undefined || !isFinite(v)) return "–";
    const s = fixed(v, d === undefined ? 1 : d);
    const neg = s[0] === "-";
    const parts = (neg ? s.slice(1) : s).split(".");
    const thousands = S.lang === "en" ? "," : ".";
    const decimal = S.lang === "en" ? "." : ",";
    const whole = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, thousands);
    return (neg ? "-" : "") + whole + (parts.length > 1 ? decimal + parts[1] : "");
  }
  function fmtP(p) { return p === null ? "–" : p < 0.001 ? "<" + fmt(0.001, 3) : fmt(p, 3); }
  function outcomeName(o) { return T(o); }
  function yearLabel(y) { return y === "pooled" ? D.period : String(y); }
  function el(tag, attrs, parent, text) {
    const node = tag.indexOf("svg:") === 0 ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }
  function fold(s) { return String(s).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase(); }

  // ----------------------------------------------------------------------------- data of the state
  function O() { return D.data[S.outcome] || {}; }
  function pick(table, wantYear) {  // rows of a table for the chosen year (or the pooled period)
    const out = {};
    if (!table) return out;
    for (let i = 0; i < table.est.length; i++) {
      if (wantYear !== undefined && table.y && table.y[i] !== wantYear) continue;
      out[table.u[i]] = {est: table.est[i], lo: table.lo ? table.lo[i] : null, hi: table.hi ? table.hi[i] : null,
                         ev: table.ev ? table.ev[i] : null, bi: table.bi ? table.bi[i] : null,
                         trend: table.trend ? table.trend[i] : null};
    }
    return out;
  }
  function nationalRow() {
    const o = O();
    if (S.year === "pooled") {
      const t = o.national_pooled;
      return t ? {est: t.est[0], lo: t.lo[0], hi: t.hi[0]} : null;
    }
    const t = o.national;
    if (!t) return null;
    const i = t.y.indexOf(S.year);
    return i < 0 ? null : {est: t.est[i], lo: t.lo[i], hi: t.hi[i]};
  }
  function measureAvailable(m) {
    const o = O();
    return {rate: !!(o.units_year || o.units_pooled), smoothed: !!o.smoothed, trend: !!o.trends,
            rr: !!(o.rr_year || o.rr_pooled)}[m];
  }
  function measureValues() {  // unit index -> {est, lo, hi, ev, bi, trend}
    const o = O();
    const pooled = S.year === "pooled";
    if (S.measure === "rate") return pooled ? pick(o.units_pooled) : pick(o.units_year, S.year);
    if (S.measure === "rr") return pooled ? pick(o.rr_pooled) : pick(o.rr_year, S.year);
    if (S.measure === "smoothed") return pick(o.smoothed);
    if (S.measure === "trend") return pick(o.trends);
    return {};
  }
  function inRegion(i) { return !S.region || U.region[i] === S.region; }
  function digits() { return S.measure === "rr" ? 2 : 1; }

  // ----------------------------------------------------------------------------- colours
  function classes(values) {  // quantile breaks of the shown values, 5 classes (as the report's maps)
    const v = values.filter(function (x) { return x !== null && isFinite(x); }).sort(function (a, b) { return a - b; });
    if (!v.length) return [];
    const q = function (p) { const h = (v.length - 1) * p, lo = Math.floor(h); return v[lo] + (h - lo) * ((v[lo + 1] === undefined ? v[lo] : v[lo + 1]) - v[lo]); };
    const edges = [];
    [0, 0.2, 0.4, 0.6, 0.8, 1].forEach(function (p) {
      const e = +fixed(q(p), digits());
      if (!edges.length || e > edges[edges.length - 1]) edges.push(e);
    });
    if (edges.length < 2) edges.push(edges[0] + Math.pow(10, -digits()));
    return edges;
  }
  function ramp(n) {
    const all = D.colours.sequential;
    const out = [];
    for (let i = 0; i < n; i++) out.push(all[Math.round(n === 1 ? 0 : i * (all.length - 1) / (n - 1))]);
    return out;
  }
  function colourer(values) {
    if (S.measure === "trend") {
      return {colour: function (r) { return r && r.trend ? (D.colours.trend[r.trend] || D.colours.missing) : D.colours.missing; },
              legend: D.trend_codes.map(function (k) { return [D.colours.trend[k], T("t_" + k)]; })};
    }
    const edges = classes(Object.keys(values).map(function (k) { return values[k].est; }));
    const cols = ramp(Math.max(edges.length - 1, 1));
    return {colour: function (r) {
      if (!r || r.est === null || !edges.length) return D.colours.missing;
      let i = 0;
      while (i < edges.length - 2 && r.est >= edges[i + 1]) i++;
      return cols[i];
    }, legend: cols.map(function (c, i) { return [c, fmt(edges[i], digits()) + " – " + fmt(edges[i + 1], digits())]; })};
  }

  // ----------------------------------------------------------------------------- map
  const map = {svg: document.getElementById("map"), shapes: {}, box: null};
  function buildMap() {
    const g = D.map;
    const holder = document.getElementById("map-box");
    if (!g) {
      document.getElementById("map-note").setAttribute("data-l", "map_none");
      holder.hidden = true;
      document.querySelector("[data-view=map][data-export=png]").hidden = true;
      return;
    }
    map.box = g.box.slice();
    map.svg.setAttribute("viewBox", g.box.join(" "));
    const layer = el("svg:g", {}, map.svg);
    if (g.kind === "polygons" || g.kind === "tiles") {
      Object.keys(g.paths).forEach(function (code) {
        const p = el("svg:path", {d: g.paths[code], "data-unit": code, "vector-effect": "non-scaling-stroke"}, layer);
        map.shapes[unitIndex[code]] = p;
      });
    } else {
      const o = D.data[D.outcomes[0]];
      const births = pick(o.units_pooled);
      let most = 1;
      Object.keys(births).forEach(function (k) { most = Math.max(most, births[k].bi || 0); });
      const big = (g.box[2] + g.box[3]) / 60;
      const order = Object.keys(g.xy).sort(function (a, b) {
        return ((births[unitIndex[b]] || {}).bi || 0) - ((births[unitIndex[a]] || {}).bi || 0); });
      order.forEach(function (code) {
        const b = (births[unitIndex[code]] || {}).bi || 0;
        const c = el("svg:circle", {cx: g.xy[code][0], cy: g.xy[code][1], r: Math.max(big * Math.sqrt(b / most), big / 15),
                                    "data-unit": code, "vector-effect": "non-scaling-stroke"}, layer);
        map.shapes[unitIndex[code]] = c;
      });
    }
    (g.tiles || []).forEach(function (t) {  // the province (state) of each tile of the schematic grid
      el("svg:text", {x: t[0], y: t[1], class: "tile", "font-size": 90}, map.svg, t[2]);
    });
    layer.addEventListener("click", function (e) {
      const code = e.target.getAttribute("data-unit");
      if (code) select(unitIndex[code]);
    });
    layer.addEventListener("mousemove", function (e) {
      const code = e.target.getAttribute("data-unit");
      const tip = document.getElementById("tip");
      if (!code) { tip.hidden = true; return; }
      const i = unitIndex[code], r = map.values[i];
      tip.hidden = false;
      tip.textContent = U.name[i] + ": " + (S.measure === "trend" ? (r && r.trend ? T("t_" + r.trend) : T("missing"))
                                                                 : (r ? fmt(r.est, digits()) : T("missing")));
      tip.style.left = (e.clientX + 12) + "px";
      tip.style.top = (e.clientY + 12) + "px";
    });
    layer.addEventListener("mouseleave", function () { document.getElementById("tip").hidden = true; });
    zoomable(map.svg, function () { return map.box; });
  }
  function zoomable(svg, home) {
    let drag = null;
    function vb() { return svg.getAttribute("viewBox").split(" ").map(Number); }
    svg.addEventListener("wheel", function (e) {
      e.preventDefault();
      const b = vb(), r = svg.getBoundingClientRect();
      const f = e.deltaY > 0 ? 1.25 : 0.8;
      const mx = b[0] + (e.clientX - r.left) / r.width * b[2], my = b[1] + (e.clientY - r.top) / r.height * b[3];
      svg.setAttribute("viewBox", [mx - (mx - b[0]) * f, my - (my - b[1]) * f, b[2] * f, b[3] * f].join(" "));
    }, {passive: false});
    svg.addEventListener("mousedown", function (e) { drag = [e.clientX, e.clientY, vb()]; });
    window.addEventListener("mouseup", function () { drag = null; });
    svg.addEventListener("mousemove", function (e) {
      if (!drag || !(e.buttons & 1)) return;
      const r = svg.getBoundingClientRect(), b = drag[2];
      const k = Math.max(b[2] / r.width, b[3] / r.height);
      svg.setAttribute("viewBox", [b[0] - (e.clientX - drag[0]) * k, b[1] - (e.clientY - drag[1]) * k, b[2], b[3]].join(" "));
    });
    svg.addEventListener("dblclick", function () { svg.setAttribute("viewBox", home().join(" ")); });
  }
  function regionBox() {
    if (!D.map || !S.region) return D.map ? D.map.box : null;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    Object.keys(map.shapes).forEach(function (i) {
      if (U.region[i] !== S.region) return;
      const b = map.shapes[i].getBBox();
      x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.width); y1 = Math.max(y1, b.y + b.height);
    });
    if (!isFinite(x0)) return D.map.box;
    const pad = Math.max(x1 - x0, y1 - y0) * 0.05 + 1;
    return [x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad];
  }
  function drawMap() {
    map.values = measureValues();
    if (!D.map) return;
    const c = colourer(map.values);
    Object.keys(map.shapes).forEach(function (i) {
      const s = map.shapes[i];
      s.setAttribute("fill", c.colour(map.values[i]));
      s.setAttribute("class", (+i === S.unit ? "sel " : "") + (inRegion(+i) ? "" : "out"));
    });
    if (S.unit !== null && map.shapes[S.unit]) map.shapes[S.unit].parentNode.appendChild(map.shapes[S.unit]);
    const legend = document.getElementById("legend");
    legend.textContent = "";
    c.legend.concat([[D.colours.missing, T("missing")]]).forEach(function (item) {
      const li = el("li", {}, legend);
      el("span", {class: "swatch", style: "background:" + item[0]}, li);
      el("span", {}, li, item[1]);
    });
    const notes = [];
    if (D.map.kind === "seats") notes.push(T("map_seats"));
    if (D.map.kind === "tiles") notes.push(T("map_tiles"));
    if (D.map.offshore.length) notes.push(T("map_offshore", {names: D.map.offshore.map(function (c) { return U.name[unitIndex[c]]; }).join(", ")}));
    if (D.map.missing.length) {
      const names = D.map.missing.slice(0, 20).map(function (c) { return U.name[unitIndex[c]]; });
      notes.push(T("map_missing", {names: names.join(", ") + (D.map.missing.length > 20 ? " (+" + fmt(D.map.missing.length - 20, 0) + ")" : "")}));
    }
    if (S.measure === "smoothed" || S.measure === "trend") notes.push(T("period_only"));
    notes.push(T("map_help"));
    document.getElementById("map-caption").textContent = notes.join(" ");
  }

  // ----------------------------------------------------------------------------- table
  const COLS = ["unit", "name", "region", "value", "lower", "upper", "events", "births"];
  function tableRows() {
    const v = map.values || measureValues();
    const q = fold(S.search.trim());
    const rows = [];
    U.code.forEach(function (code, i) {
      if (!inRegion(i)) return;
      if (q && fold(U.name[i]).indexOf(q) < 0 && code.indexOf(q) < 0) return;
      const r = v[i] || {};
      const value = S.measure === "trend" ? (r.trend ? T("t_" + r.trend) : null) : r.est;
      rows.push({i: i, unit: code, name: U.name[i], region: D.regions.name[D.regions.code.indexOf(U.region[i])] || U.region[i],
                 value: value === undefined ? null : value, lower: r.lo === undefined ? null : r.lo,
                 upper: r.hi === undefined ? null : r.hi, events: r.ev === undefined ? null : r.ev,
                 births: r.bi === undefined ? null : r.bi});
    });
    const col = S.sortCol, dir = S.sortDir;
    rows.sort(function (a, b) {
      const x = a[col], y = b[col];
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (typeof x === "number" ? x - y : String(x).localeCompare(String(y))) * dir;
    });
    return rows;
  }
  function colLabel(c) {
    if (c === "value") return S.measure === "trend" ? T("c_class") : T("m_" + S.measure);
    if (c === "lower" || c === "upper") return T("c_" + c) + (S.measure === "trend" ? " (APC %)" : "");
    return T("c_" + c);
  }
  function drawTable() {
    const table = document.getElementById("units-table");
    table.textContent = "";
    const head = el("tr", {}, el("thead", {}, table));
    COLS.forEach(function (c) {
      const th = el("th", {"data-col": c, tabindex: "0", "aria-sort": S.sortCol === c ? (S.sortDir > 0 ? "ascending" : "descending") : "none"},
                    head, colLabel(c) + (S.sortCol === c ? (S.sortDir > 0 ? " ▲" : " ▼") : ""));
      th.addEventListener("keydown", function (e) { if (e.key === "Enter") th.click(); });
      th.addEventListener("click", function () {
        S.sortDir = S.sortCol === c ? -S.sortDir : (c === "name" || c === "unit" || c === "region" ? 1 : -1);
        S.sortCol = c;
        drawTable();
      });
    });
    const rows = tableRows();
    const body = el("tbody", {}, table);
    const limit = 250;
    const shown = rows.slice(0, limit);
    if (S.unit !== null && shown.every(function (r) { return r.i !== S.unit; })) {
      const chosen = rows.filter(function (r) { return r.i === S.unit; });
      if (chosen.length) shown.unshift(chosen[0]);
    }
    shown.forEach(function (r) {
      const tr = el("tr", {"data-unit": r.unit, class: r.i === S.unit ? "sel" : "", tabindex: "0"}, body);
      COLS.forEach(function (c) {
        const v = r[c];
        let text = v;
        if (typeof v === "number") text = c === "events" || c === "births" ? fmt(v, 0) : fmt(v, S.measure === "rr" && c !== "value" ? 2 : digits());
        if (v === null) text = "–";
        el("td", {class: typeof v === "number" ? "num" : ""}, tr, text);
      });
    });
    document.getElementById("rows-shown").textContent = T("rows_shown", {n: fmt(shown.length, 0), total: fmt(rows.length, 0)});
  }

