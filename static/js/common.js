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
// "j" / "k" step through the findings of an incident page or the rows of the incident list
// (Enter or "o" opens the row). Never while typing in a field.
document.addEventListener("keydown", function (event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
  if (event.key === "?") {
    const help = document.getElementById("shortcuts");
    if (help && typeof help.showModal === "function") {
      event.preventDefault();
      if (help.open) help.close(); else help.showModal();
    }
    return;
  }
  if (event.key === "/") {
    const box = document.querySelector("[data-search]") || document.getElementById("topbar-search");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
    return;
  }
  const rows = Array.from(document.querySelectorAll("table[data-keynav] tbody tr"));
  if (event.key === "Enter" || event.key === "o") {
    // Only from the row the keys chose (a focused link or button keeps its own Enter).
    if (target && target !== document.body && target.tagName !== "TR") return;
    const row = rows.find(function (r) { return r.classList.contains("current"); });
    const link = row && row.querySelector("a[href]");
    if (link) { event.preventDefault(); window.location.assign(link.href); }
    return;
  }
  if (event.key !== "j" && event.key !== "k") return;
  // The incident list: j / k move along its rows (Enter opens one); an incident page: its findings.
  const findings = rows.length ? rows : Array.from(document.querySelectorAll("article.finding"));
  if (!findings.length) return;
  event.preventDefault();
  let index = findings.findIndex(function (f) { return f.classList.contains("current"); });
  index = index < 0 ? 0 : Math.max(0, Math.min(findings.length - 1, index + (event.key === "j" ? 1 : -1)));
  findings.forEach(function (f) { f.classList.remove("current"); });
  const current = findings[index];
  current.classList.add("current");
  if (!current.hasAttribute("tabindex")) { current.setAttribute("tabindex", "-1"); }
  current.focus({ preventScroll: true });
  current.scrollIntoView({ block: "nearest" });
});

// The "Share…" button at the top of an incident jumps to the share form, ready to choose.
document.addEventListener("click", function (event) {
  const button = event.target.closest("#share-top");
  if (!button) return;
  const select = document.querySelector("#share-form select");
  if (select) { window.setTimeout(function () { select.focus(); }, 0); }
});


// Times: every <time class="when" datetime="ISO"> is shown in the viewer's zone, a setting kept
// in this browser (the top bar's select; default: the browser's own zone), with UTC in its
// tooltip; data-relative ones say "3 h ago" (lists) and give the full time on hover.
const ZONE_KEY = "nccl-triage.timezone";

function viewerZone() {
  let zone = "";
  try { zone = window.localStorage.getItem(ZONE_KEY) || ""; } catch (e) { zone = ""; }
  return zone || undefined; // undefined: the browser's zone
}

function relativeTime(date, now) {
  const seconds = Math.round((now - date) / 1000);
  const ago = seconds >= 0;
  const s = Math.abs(seconds);
  let text;
  if (s < 45) text = "just now";
  else if (s < 3600) text = Math.round(s / 60) + " min";
  else if (s < 86400) text = Math.round(s / 3600) + " h";
  else if (s < 86400 * 45) text = Math.round(s / 86400) + " d";
  else text = Math.round(s / (86400 * 30)) + " mo";
  if (text === "just now") return text;
  return ago ? text + " ago" : "in " + text;
}

function renderTimes(root) {
  const zone = viewerZone();
  let format;
  try {
    format = new Intl.DateTimeFormat("en-GB", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" });
  } catch (e) {
    format = new Intl.DateTimeFormat("en-GB", { year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" });
  }
  const now = Date.now();
  (root || document).querySelectorAll("time.when[datetime]").forEach(function (el) {
    const date = new Date(el.getAttribute("datetime"));
    if (isNaN(date.getTime())) return;
    const utc = date.toISOString().replace("T", " ").slice(0, 19) + " UTC";
    // "2026-12-04 15:39 CET": unambiguous in every locale (no 12/01 vs 01/12).
    const parts = {};
    format.formatToParts(date).forEach(function (p) { parts[p.type] = p.value; });
    const local = parts.year + "-" + parts.month + "-" + parts.day + " " + parts.hour + ":" + parts.minute +
      (parts.timeZoneName ? " " + parts.timeZoneName : "");
    if (el.dataset.relative) {
      el.textContent = relativeTime(date.getTime(), now);
      el.title = local + " · " + utc;
    } else {
      el.textContent = local;
      el.title = utc;
    }
  });
}

function setupZoneSelect() {
  const select = document.getElementById("tz-select");
  if (!select) return;
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  select.options[0].textContent = "browser zone" + (browserZone ? " (" + browserZone + ")" : "");
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  zones.forEach(function (zone) {
    if (zone === "UTC") return;
    const option = document.createElement("option");
    option.value = zone;
    option.textContent = zone;
    select.appendChild(option);
  });
  select.value = viewerZone() || "";
  select.addEventListener("change", function () {
    try {
      if (select.value) window.localStorage.setItem(ZONE_KEY, select.value);
      else window.localStorage.removeItem(ZONE_KEY);
    } catch (e) { /* private mode: this page only */ }
    renderTimes(document);
  });
}

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", function () { setupZoneSelect(); renderTimes(document); });
} else {
  setupZoneSelect();
  renderTimes(document);
}
