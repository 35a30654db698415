// Log viewer: wrap long lines (remembered per browser) and highlight what was searched for.
"use strict";
(function () {
  const log = document.getElementById("log");
  const wrap = document.getElementById("wrap-toggle");
  if (wrap && log) {
    wrap.checked = window.localStorage.getItem("triage.log.wrap") === "1";
    log.classList.toggle("wrap", wrap.checked);
    wrap.addEventListener("change", function () {
      log.classList.toggle("wrap", wrap.checked);
      window.localStorage.setItem("triage.log.wrap", wrap.checked ? "1" : "0");
    });
  }
  const needle = log ? (log.dataset.find || "").toLowerCase() : "";
  if (!needle) return;
  // Text nodes only (never innerHTML): the line text is untrusted.
  log.querySelectorAll("td.tx").forEach(function (cell) {
    const node = cell.firstChild;
    if (!node || node.nodeType !== Node.TEXT_NODE) return;
    const text = node.nodeValue;
    const at = text.toLowerCase().indexOf(needle);
    if (at < 0) return;
    cell.parentElement.classList.add("hit");
    const mark = document.createElement("mark");
    const rest = node.splitText(at);
    rest.splitText(needle.length);
    mark.textContent = rest.nodeValue;
    cell.replaceChild(mark, rest);
  });
})();
