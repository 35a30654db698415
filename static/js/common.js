// Copy buttons: any <button class="copy" data-copy="..."> copies its text.
"use strict";
document.addEventListener("click", function (event) {
  const button = event.target.closest("button.copy");
  if (!button) return;
  const text = button.dataset.copy || "";
  const done = function () {
    button.textContent = "copied";
    setTimeout(function () { button.textContent = "copy"; }, 1500);
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
  } else {
    fallbackCopy(text);
    done();
  }
});

// Plain-HTTP pages (an intranet dashboard) have no navigator.clipboard.
function fallbackCopy(text) {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  try { document.execCommand("copy"); } finally { document.body.removeChild(area); }
}

// Keyboard: "/" focuses the page's search (the log finder, the list filter, else the top bar's);
// "j" / "k" step through the findings of an incident page. Never while typing in a field.
document.addEventListener("keydown", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  if (event.key === "/") {
    const box = document.querySelector("[data-search]") || document.getElementById("topbar-search");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
    return;
  }
  if (event.key !== "j" && event.key !== "k") return;
  const findings = Array.from(document.querySelectorAll("article.finding"));
  if (!findings.length) return;
  event.preventDefault();
  let index = findings.findIndex(function (f) { return f.classList.contains("current"); });
  index = index < 0 ? 0 : Math.max(0, Math.min(findings.length - 1, index + (event.key === "j" ? 1 : -1)));
  findings.forEach(function (f) { f.classList.remove("current"); });
  const current = findings[index];
  current.classList.add("current");
  current.focus({ preventScroll: true });
  current.scrollIntoView({ block: "center" });
});

// The "Share…" button at the top of an incident jumps to the share form, ready to choose.
document.addEventListener("click", function (event) {
  const button = event.target.closest("#share-top");
  if (!button) return;
  const select = document.querySelector("#share-form select");
  if (select) { window.setTimeout(function () { select.focus(); }, 0); }
});
