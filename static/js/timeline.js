// Rank timeline: fetches the Plotly figure JSON built by triage/timeline/figure.py and draws it.
//
// Markup (written by the incident page):
//   <div id="rank-timeline" data-figure-url="..." data-log-url-template="...SOURCE...LINE..."
//        data-trace-url="..."></div>
// No inline scripts: this file is loaded with <script src> so a strict CSP (script-src 'self') holds.
// When drawn it sets window.__timelineDrawn = true, window.__timelineDrawnAt = performance.now()
// and dispatches a "timeline:drawn" event on the element (it bubbles to document).
(function () {
  "use strict";

  var el = document.getElementById("rank-timeline");
  if (!el || typeof window.Plotly === "undefined") {
    if (el) { showError(el, "The timeline cannot be drawn: plotly.js did not load."); }
    return;
  }

  function showError(target, message) {
    var p = document.createElement("p");
    p.className = "timeline-error";
    p.textContent = message;
    target.replaceChildren(p);
  }

  // The figure lists each row's label once (layout.meta.labels); marker traces flagged
  // meta.rowhover get their per-point hover text here, so the JSON does not repeat it per event.
  function fillRowHover(fig) {
    var labels = (fig.layout && fig.layout.meta && fig.layout.meta.labels) || [];
    (fig.data || []).forEach(function (trace) {
      if (!trace.meta || !trace.meta.rowhover || !Array.isArray(trace.y)) { return; }
      trace.hovertext = trace.y.map(function (row) { return labels[row] || ""; });
    });
  }

  // SOURCE and LINE are replaced in one pass, so a source named "LINE.log" stays intact.
  function logUrl(template, source, line) {
    return template.replace(/SOURCE|LINE/g, function (token) {
      return token === "SOURCE" ? encodeURIComponent(source) : String(line);
    });
  }

  // An event point carries its own line (a number: the row's own source; or [source, line]);
  // any other point in a rank's row opens that rank's last line.
  function lineRef(meta, point) {
    var cd = point.customdata;
    var row = Math.round(point.y);
    var rowRef = (meta.rows || [])[row];
    if (typeof cd === "number" && rowRef) { return [meta.sources[rowRef[0]], cd]; }
    if (Array.isArray(cd) && cd.length === 2) { return [meta.sources[cd[0]], cd[1]]; }
    if (rowRef) { return [meta.sources[rowRef[0]], rowRef[1]]; }
    return null;
  }

  // Without WebGL (old browsers, some remote desktops) scattergl draws nothing; SVG scatter is
  // slower at 1,000+ ranks but still shows the story.
  function webglAvailable() {
    try {
      var canvas = document.createElement("canvas");
      return Boolean(canvas.getContext("webgl") || canvas.getContext("experimental-webgl"));
    } catch (e) {
      return false;
    }
  }

  function withoutWebgl(fig) {
    (fig.data || []).forEach(function (trace) {
      if (trace.type === "scattergl") { trace.type = "scatter"; }
    });
  }

  // Dark pages get a dark figure: the same data, the colours of the page's dark scheme.
  function darken(fig) {
    var layout = fig.layout || {};
    layout.paper_bgcolor = "#171e26";
    layout.plot_bgcolor = "#171e26";
    layout.font = Object.assign({}, layout.font || {}, { color: "#e3e8ee" });
    ["xaxis", "xaxis2", "xaxis3"].forEach(function (name) {
      if (layout[name]) { layout[name].gridcolor = "#2a3540"; }
    });
    (layout.shapes || []).forEach(function (shape) {
      if (shape.fillcolor === "#f3f5f8") { shape.fillcolor = "#1d2630"; }
      // The first-failure row and line: the dark scheme's red, bright enough to find.
      if (shape.line && shape.line.color === "#C00000") { shape.line.color = "#ff8a80"; }
      if (shape.fillcolor === "rgba(192,0,0,0.10)") { shape.fillcolor = "rgba(255,138,128,0.16)"; }
    });
    (layout.annotations || []).forEach(function (a) {
      if (a.bgcolor) { a.bgcolor = "rgba(23,30,38,0.92)"; }
      if (a.font && a.font.color === "#C00000") { a.font.color = "#ff8a80"; }
    });
    if (layout.legend) { layout.legend.bgcolor = "rgba(0,0,0,0)"; }
    // Black markers (the first-error star and its outline) vanish on a dark plot: draw them
    // in a light colour with a contrasting edge; dark grey ones get lighter.
    var light = { "#000000": "#ffd54f", "#555555": "#b8c2cc" };
    (fig.data || []).forEach(function (trace) {
      var marker = trace.marker;
      if (!marker) { return; }
      if (typeof marker.color === "string" && light[marker.color]) { marker.color = light[marker.color]; }
      if (marker.line && typeof marker.line.color === "string" && light[marker.line.color]) {
        marker.line.color = marker.line.color === "#000000" ? "#ffffff" : light[marker.line.color];
      }
    });
    fig.layout = layout;
  }

  function addTraceLink(url) {
    var a = document.createElement("a");
    a.href = url;
    a.className = "timeline-trace-link";
    a.setAttribute("download", "");
    a.textContent = "Download as Perfetto / Chrome trace (JSON)";
    el.insertAdjacentElement("afterend", a);
  }

  function announce() {
    window.__timelineDrawn = true;
    window.__timelineDrawnAt = performance.now();
    el.dispatchEvent(new CustomEvent("timeline:drawn", { bubbles: true }));
  }

  fetch(el.dataset.figureUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (response) {
      if (!response.ok) { throw new Error("HTTP " + response.status); }
      return response.json();
    })
    .then(function (fig) {
      fillRowHover(fig);
      if (!webglAvailable()) { withoutWebgl(fig); }
      var meta = (fig.layout && fig.layout.meta) || {};
      if (window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches) { darken(fig); }
      var config = {
        responsive: true,
        displaylogo: false,
        // "Share chart..." sends the data to a website (plotly.js 4 shows it by default): it cannot
        // work offline and would leak the logs if it did.
        showSendToCloud: false,
        showEditInChartStudio: false,
        modeBarButtonsToRemove: ["select2d", "lasso2d", "sendChartToCloud", "sendDataToCloud", "editInChartStudio"],
        toImageButtonOptions: { filename: "rank-timeline" },
      };
      return window.Plotly.newPlot(el, fig.data, fig.layout, config).then(function (gd) {
        // newPlot resolves right after its first "plotly_afterplot"; later redraws (zoom,
        // resize) announce again so tests can wait on any of them.
        gd.on("plotly_afterplot", announce);
        gd.on("plotly_click", function (event) {
          var template = el.dataset.logUrlTemplate;
          var point = event && event.points && event.points[0];
          var ref = point && template ? lineRef(meta, point) : null;
          if (ref && ref[0]) { window.location.assign(logUrl(template, ref[0], ref[1])); }
        });
        if (el.dataset.traceUrl) { addTraceLink(el.dataset.traceUrl); }
        announce();
      });
    })
    .catch(function (error) {
      showError(el, "The timeline could not be loaded (" + error.message + ").");
      throw error;
    });
})();
