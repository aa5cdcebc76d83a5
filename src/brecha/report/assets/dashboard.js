/* brecha dashboard, part 3 of 3: exports, controls, the first drawing. Draws the report's own tables
   (embedded as JSON in #brecha-data) and computes no result: plain SVG, no library, nothing fetched.
   window.brechaDashboard exposes the state for scripted checks. */
  // ----------------------------------------------------------------------------- export
  const views = {};
  function csvText(name) {
    if (name === "map" || name === "table") {
      const rows = tableRows();
      return toCsv(["unit", "name", "region", "value", "lower", "upper", "events", "births"],
                   rows.map(function (r) { return COLS.map(function (c) { return r[c]; }); }));
    }
    const v = views[name] || {header: [], rows: []};
    return toCsv(v.header, v.rows);
  }
  function toCsv(header, rows) {
    const cell = function (x) { if (x === null || x === undefined) return ""; const s = String(x); return /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s; };
    return [header].concat(rows).map(function (r) { return r.map(cell).join(","); }).join("\n") + "\n";
  }
  function download(name, href) {
    const a = el("a", {href: href, download: name}, document.body);
    a.click();
    a.remove();
  }
  function exportView(name, kind) {
    const stem = "brecha-" + name + "-" + S.outcome + "-" + yearLabel(S.year);
    if (kind === "csv") {
      const url = URL.createObjectURL(new Blob(["\ufeff" + csvText(name)], {type: "text/csv;charset=utf-8"}));
      download(stem + ".csv", url);
      setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
      return;
    }
    const svg = document.getElementById(name === "table" ? "map" : name);
    const clone = svg.cloneNode(true);
    clone.setAttribute("xmlns", NS);
    const style = el("svg:style", {}, null, document.getElementById("chart-style").textContent);
    clone.insertBefore(style, clone.firstChild);
    const r = svg.getBoundingClientRect();
    const w = Math.max(320, Math.round(r.width * 2)), h = Math.max(200, Math.round(r.height * 2));
    clone.setAttribute("width", w);
    clone.setAttribute("height", h);
    const img = new Image();
    img.onload = function () {
      const c = document.createElement("canvas");
      c.width = w; c.height = h;
      const ctx = c.getContext("2d");
      ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, w, h);
      ctx.drawImage(img, 0, 0, w, h);
      download(stem + ".png", c.toDataURL("image/png"));
    };
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(clone));
  }

  // ----------------------------------------------------------------------------- controls
  function option(select, value, text, chosen) {
    const o = el("option", {value: value}, select, text);
    if (chosen) o.selected = true;
    return o;
  }
  function fillControls() {
    const year = document.querySelector("select[name=year]");
    year.textContent = "";
    option(year, "pooled", D.period, S.year === "pooled");
    D.years.slice().reverse().forEach(function (y) { option(year, y, String(y), S.year === y); });
    const outcome = document.querySelector("select[name=outcome]");
    outcome.textContent = "";
    D.outcomes.forEach(function (o) { option(outcome, o, outcomeName(o), S.outcome === o); });
    const measure = document.querySelector("select[name=measure]");
    measure.textContent = "";
    ["rate", "smoothed", "trend", "rr"].forEach(function (m) {
      const o = option(measure, m, T("m_" + m) + (measureAvailable(m) ? "" : " (" + T("not_for_outcome") + ")"), S.measure === m);
      o.disabled = !measureAvailable(m);
    });
    const region = document.querySelector("select[name=region]");
    region.textContent = "";
    option(region, "", T("all_regions"), !S.region);
    D.regions.code.forEach(function (c, i) { option(region, c, D.regions.name[i], S.region === c); });
    const ineq = document.querySelector("select[name=inequality]");
    ineq.textContent = "";
    Object.keys(D.compare.inequality).forEach(function (k) { option(ineq, k, T("q_" + k), S.ineq === k); });
    const cov = document.querySelector("select[name=covariate]");
    cov.textContent = "";
    D.determinants.covariates.forEach(function (c) { option(cov, c, covLabel(c), S.cov === c); });
  }
  function drawHeader() {
    const n = nationalRow();
    document.querySelector("[data-testid=national-rate]").textContent = n ? fmt(n.est, 1) : "–";
    document.getElementById("national-ci").textContent = n && n.lo !== null ? T("ci") + " " + fmt(n.lo, 1) + "–" + fmt(n.hi, 1) : "";
    document.getElementById("national-what").textContent = outcomeName(S.outcome) + ", " + yearLabel(S.year) + ", " + T("per_1000");
    document.querySelector("[data-testid=selected-unit]").textContent =
      S.unit === null ? T("none_selected") : U.name[S.unit] + " (" + U.code[S.unit] + ")";
    document.getElementById("first-outcome").textContent = D.outcomes.length > 1 ? T("first_outcome_only", {outcome: outcomeName(D.outcomes[0])}) : "";
  }
  function labels() {
    document.documentElement.lang = S.lang;
    document.querySelectorAll("[data-l]").forEach(function (node) { node.textContent = T(node.getAttribute("data-l")); });
    document.querySelectorAll("[data-l-aria]").forEach(function (node) { node.setAttribute("aria-label", T(node.getAttribute("data-l-aria"))); });
    document.querySelector("input[name=search]").placeholder = T("search");
    document.getElementById("source").textContent = T("source", {version: D.version});
  }
  function draw() {
    if (!measureAvailable(S.measure)) S.measure = "rate";
    labels();
    fillControls();
    drawHeader();
    drawMap();
    drawTable();
    drawSeries();
    drawTab();
  }
  function drawTab() {  // the views of a hidden tab are drawn when it is shown (a faster first paint)
    if (S.tab === "compare") { drawInequality(); drawFunnel(); drawClasses(); drawRegions(); }
    if (S.tab === "determinants") { drawScatter(); drawModels(); }
  }
  function select(i) {
    S.unit = i === undefined ? null : i;
    drawHeader(); drawMap(); drawTable(); drawSeries();
    if (S.tab === "compare") drawFunnel();
    if (S.tab === "determinants") drawScatter();
  }
  function on(name, handler) { document.querySelector("[name=" + name + "]").addEventListener("change", function (e) { handler(e.target.value); draw(); }); }
  on("year", function (v) { S.year = v === "pooled" ? "pooled" : +v; });
  on("outcome", function (v) { S.outcome = v; });
  on("measure", function (v) { S.measure = v; });
  on("region", function (v) {
    S.region = v;
    if (S.unit !== null && !inRegion(S.unit)) S.unit = null;
    const b = regionBox();
    if (b) map.svg.setAttribute("viewBox", b.join(" "));
  });
  on("lang", function (v) { S.lang = v; });
  on("inequality", function (v) { S.ineq = v; });
  on("covariate", function (v) { S.cov = v; });
  document.querySelector("input[name=search]").addEventListener("input", function (e) { S.search = e.target.value; drawTable(); });
  document.getElementById("units-table").addEventListener("keydown", function (e) {  // Enter on a row selects it
    const tr = e.target.closest("tbody tr");
    if (tr && e.key === "Enter") select(unitIndex[tr.getAttribute("data-unit")]);
  });
  document.getElementById("units-table").addEventListener("click", function (e) {
    const tr = e.target.closest("tbody tr");
    if (tr) select(unitIndex[tr.getAttribute("data-unit")]);
  });
  document.querySelectorAll("[data-export]").forEach(function (b) {
    b.addEventListener("click", function () { exportView(b.getAttribute("data-view"), b.getAttribute("data-export")); });
  });
  document.querySelectorAll("nav [data-tab]").forEach(function (b) {
    b.addEventListener("click", function () {
      document.querySelectorAll("nav [data-tab]").forEach(function (x) { x.setAttribute("aria-selected", x === b ? "true" : "false"); });
      document.querySelectorAll("main > section").forEach(function (s) { s.hidden = s.id !== b.getAttribute("data-tab"); });
      S.tab = b.getAttribute("data-tab");
      drawTab();
    });
  });
  S.ineq = Object.keys(D.compare.inequality)[0] || null;
  const modelled = (D.determinants.models || {term: []}).term.filter(function (t) { return D.determinants.covariates.indexOf(t) >= 0; });
  if (modelled.length) S.cov = modelled[0];  // the covariate the study's models use first
  if (D.years.length) S.year = D.years[D.years.length - 1];
  document.querySelector("select[name=lang]").value = S.lang;
  buildMap();
  draw();
  performance.mark("brecha-drawn");  // the page is complete: benchmarks/bench_dashboard.py reads this mark
  window.brechaDashboard = {state: S, data: D, csv: csvText, select: function (code) { select(unitIndex[code]); }, fmt: fmt};
