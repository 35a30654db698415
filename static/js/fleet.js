// Fleet charts: the data sits in <script type="application/json"> next to each chart (no inline
// script under the CSP); "stacked" draws causes by day, "points" draws incidents over time.
"use strict";
(function () {
  function draw(el) {
    const source = document.getElementById(el.dataset.source);
    if (!source || typeof window.Plotly === "undefined") return;
    const data = JSON.parse(source.textContent);
    let traces;
    if (el.dataset.kind === "stacked") {
      traces = data.series.map(function (s) {
        return { type: "scatter", mode: "lines+markers", stackgroup: "causes", name: s.cause, x: data.days, y: s.counts };
      });
    } else {
      traces = data.series.map(function (s) {
        return { type: "scatter", mode: "markers", name: s.cause, x: s.x, y: s.x.map(function () { return s.cause; }),
                 text: s.text, customdata: s.id, hoverinfo: "x+text", marker: { size: 11 } };
      });
    }
    if (!traces.length) {
      el.classList.add("empty");
      el.textContent = "Nothing to draw yet.";
      return;
    }
    const layout = { margin: { l: 150, r: 20, t: 10, b: 40 }, height: 260, showlegend: el.dataset.kind === "stacked",
                     xaxis: { type: "date" } };
    window.Plotly.newPlot(el, traces, layout, { displaylogo: false, responsive: true }).then(function (gd) {
      el.dataset.drawn = String(traces.length);
      gd.on("plotly_click", function (ev) {
        const id = ev.points && ev.points[0] && ev.points[0].customdata;
        if (id) window.location.href = "/incidents/" + encodeURIComponent(id) + "/";
      });
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".fleet-chart").forEach(draw);
  });
})();
