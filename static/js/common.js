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
