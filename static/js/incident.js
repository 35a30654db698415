// The incident page refreshes itself while the diagnosis runs: it polls the status and
// reloads once the status or the revision (a new bundle) changes to something settled.
"use strict";
(function () {
  const badge = document.getElementById("incident-status");
  // No status URL on a shared (logged-out) page: it shows what the link was opened on.
  if (!badge || !badge.dataset.statusUrl) return;
  const initial = badge.dataset.status;
  const revision = badge.dataset.revision;
  if (initial === "ready" || initial === "failed") return;
  let delay = 1000;
  function poll() {
    fetch(badge.dataset.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (data && (data.status !== initial || String(data.revision) !== revision)) {
          badge.textContent = data.status;
          badge.className = "status status-" + data.status;
          if (data.status === "ready" || data.status === "failed") {
            window.location.reload();
            return;
          }
        }
        delay = Math.min(delay * 1.5, 10000);
        setTimeout(poll, delay);
      })
      .catch(function () { setTimeout(poll, 10000); });
  }
  setTimeout(poll, delay);
})();
