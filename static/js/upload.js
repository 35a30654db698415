// Upload page: drag-and-drop or file picker, a real progress bar (XHR upload events), the
// per-file limit checked before sending, then on to the incident page.
// Without JavaScript the form still posts normally and the server redirects.
"use strict";
(function () {
  const form = document.getElementById("upload-form");
  if (!form) return;
  const input = document.getElementById("id_files");
  const zone = document.getElementById("dropzone");
  const chosen = document.getElementById("chosen");
  const bar = document.getElementById("upload-progress");
  const barText = document.getElementById("upload-progress-text");
  const errorBox = document.getElementById("upload-error");
  const submit = document.getElementById("upload-submit");
  const cancel = document.getElementById("upload-cancel");
  const limit = Number(form.dataset.limitBytes);
  let files = [];
  let sending = null;  // the XHR in flight: "Cancel upload" aborts it and nothing is stored

  function human(bytes) {
    const units = ["B", "KiB", "MiB", "GiB"];
    let i = 0;
    while (bytes >= 1024 && i < units.length - 1) { bytes /= 1024; i++; }
    return bytes.toFixed(i ? 1 : 0) + " " + units[i];
  }
  function showError(text) {
    errorBox.textContent = text;
    errorBox.hidden = !text;
  }
  function setFiles(list) {
    files = Array.from(list);
    chosen.replaceChildren();
    files.forEach(function (f) {
      const li = document.createElement("li");
      li.textContent = f.name + " (" + human(f.size) + ")";
      if (f.size > limit) li.className = "bad";
      chosen.appendChild(li);
    });
    const big = files.filter(function (f) { return f.size > limit; });
    showError(big.length ? big.map(function (f) { return f.name; }).join(", ") +
      ": larger than the " + form.dataset.limitMb + " MiB limit per file" : "");
  }

  input.addEventListener("change", function () { setFiles(input.files); });
  // Files picked (or restored by the browser) while this deferred script was still loading
  // fired their change event before the listener existed.
  if (input.files && input.files.length) setFiles(input.files);
  ["dragenter", "dragover"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("over"); });
  });
  ["dragleave", "drop"].forEach(function (name) {
    zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.remove("over"); });
  });
  zone.addEventListener("drop", function (e) {
    if (e.dataTransfer && e.dataTransfer.files.length) {
      input.files = e.dataTransfer.files;  // keeps the no-JS path and the form in step
      setFiles(e.dataTransfer.files);
    }
  });

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    if (!files.length) { showError("Choose at least one file."); return; }
    if (files.some(function (f) { return f.size > limit; })) return;
    const data = new FormData(form);
    data.delete("files");
    files.forEach(function (f) { data.append("files", f, f.name); });
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action || window.location.href);
    xhr.setRequestHeader("Accept", "application/json");
    xhr.upload.addEventListener("progress", function (ev) {
      if (!ev.lengthComputable) return;
      const pct = Math.round((ev.loaded / ev.total) * 100);
      bar.value = pct;
      barText.textContent = human(ev.loaded) + " of " + human(ev.total) + " (" + pct + "%)";
    });
    xhr.upload.addEventListener("load", function () {
      cancel.hidden = true;  // every byte is on the server now: too late to take it back
      barText.textContent = "Uploaded; storing and queueing the diagnosis…";
    });
    const finished = function () { sending = null; cancel.hidden = true; };
    xhr.addEventListener("abort", function () {
      finished();
      submit.disabled = false;
      bar.hidden = true;
      barText.textContent = "";
      showError("Upload cancelled: nothing was stored. Choose files again or upload the same ones.");
    });
    xhr.addEventListener("load", function () {
      finished();
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (err) { body = null; }
      if (xhr.status >= 200 && xhr.status < 300 && body && body.url) {
        window.location.assign(body.url);
        return;
      }
      submit.disabled = false;
      bar.hidden = true;
      let message = "Upload failed (HTTP " + xhr.status + ").";
      if (body && typeof body.error === "string") message = body.error;
      else if (body && body.error) message = Object.values(body.error).flat().map(function (x) { return x.message; }).join(" ");
      showError(message);
    });
    xhr.addEventListener("error", function () {
      finished();
      submit.disabled = false;
      showError("The upload was interrupted (network error or the server refused it).");
    });
    showError("");
    submit.disabled = true;
    bar.hidden = false;
    bar.value = 0;
    sending = xhr;
    cancel.hidden = false;
    xhr.send(data);
  });
  cancel.addEventListener("click", function () { if (sending) sending.abort(); });
})();
