// Fleet charts: the data sits in <script type="application/json"> next to each chart (no inline
// script under the CSP); "stacked" draws causes by day, "points" draws incidents over time.
"use strict";
(function () {
  const DAY_MS = 86400000;

  // The x range with room around the data: a whole day each side for daily bars, else 5% of
  // the span (at least an hour), so one day or one incident is not an axis a millisecond wide.
  function paddedRange(traces, stacked) {
    let lo = Infinity, hi = -Infinity;
    traces.forEach(function (t) {
      t.x.forEach(function (x) {
        const ms = new Date(x).getTime();
        if (!isNaN(ms)) { lo = Math.min(lo, ms); hi = Math.max(hi, ms); }
      });
    });
    if (!isFinite(lo)) return undefined;
    const pad = stacked ? DAY_MS : Math.max(3600000, (hi - lo) * 0.05);
    return [new Date(lo - pad).toISOString(), new Date(hi + pad).toISOString()];
  }

  function draw(el) {
    const source = document.getElementById(el.dataset.source);
    if (!source || typeof window.Plotly === "undefined") return;
    const data = JSON.parse(source.textContent);
    let traces;
    let yTop = 0;
    const stacked = el.dataset.kind === "stacked";
    if (stacked) {
      // Stacked by cause, one point a day at noon; the axis is padded (paddedRange) so a single
      // day or a single incident is a point on a readable axis, not an axis a millisecond wide.
      traces = data.series.map(function (s) {
        return { type: "scatter", mode: "lines+markers", stackgroup: "causes", name: s.cause,
                 x: data.days.map(function (d) { return d + "T12:00:00"; }), y: s.counts,
                 hovertemplate: "%{x|%Y-%m-%d}: %{y} " + s.cause + "<extra></extra>" };
      });
      let top = 0;
      data.days.forEach(function (_, i) {
        top = Math.max(top, data.series.reduce(function (sum, s) { return sum + (s.counts[i] || 0); }, 0));
      });
      yTop = top;
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
    const layout = { margin: { l: stacked ? 40 : 150, r: 20, t: 10, b: 40 }, height: 260, showlegend: stacked,
                     barmode: "stack", xaxis: { type: "date", range: paddedRange(traces, stacked) },
                     yaxis: stacked ? { range: [0, Math.max(1, yTop) * 1.15], dtick: yTop <= 8 ? 1 : undefined,
                                        tickformat: "d", title: { text: "incidents" } } : {} };
    if (window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches) {
      layout.paper_bgcolor = layout.plot_bgcolor = "#171e26";
      layout.font = { color: "#e3e8ee" };
      layout.xaxis.gridcolor = "#2a3540";
      layout.yaxis.gridcolor = "#2a3540";
    }
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
