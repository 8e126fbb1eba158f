// The knowledge area's script: uploads by drag and drop (or the file
// picker) with a progress bar each. Each file is sent by itself as the
// request body with XMLHttpRequest, whose upload events give the
// progress (fetch has none); the console streams it through to the API.
// The contents list's live status is htmx's (hx-trigger="every 2s").
"use strict";
(function () {
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRF-Token"]; } catch (e) { return ""; }
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text) { e.textContent = text; }
    return e;
  }

  function size(n) {
    if (n < 1024) { return n + " B"; }
    var u = ["KiB", "MiB", "GiB"], i = -1;
    do { n /= 1024; i++; } while (n >= 1024 && i < u.length - 1);
    return n.toFixed(1) + " " + u[i];
  }

  // upload sends one file and resolves when the console has answered.
  function upload(zone, file) {
    var list = zone.querySelector(".uploads");
    var li = el("li", "uploading"), bar = el("progress"), result = el("span", "result", "waiting…");
    bar.max = 100; bar.value = 0;
    li.appendChild(el("span", "name", file.name + " (" + size(file.size) + ")"));
    li.appendChild(bar);
    li.appendChild(result);
    list.appendChild(li);
    var max = +zone.getAttribute("data-max-bytes");
    if (max && file.size > max) {
      li.className = "failed";
      result.textContent = "Not sent: larger than the 200 MiB the API accepts.";
      return Promise.resolve(false);
    }
    return new Promise(function (resolve) {
      var xhr = new XMLHttpRequest();
      xhr.open("POST", zone.getAttribute("data-upload-url"));
      xhr.setRequestHeader("X-CSRF-Token", csrf());
      xhr.setRequestHeader("X-File-Name", encodeURIComponent(file.name));
      xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) {
          bar.value = Math.round(e.loaded * 100 / e.total);
          result.textContent = "sending… " + bar.value + "%";
        }
      });
      xhr.upload.addEventListener("load", function () { bar.value = 100; result.textContent = "sent; the API is storing it…"; });
      xhr.addEventListener("load", function () {
        var a = {};
        try { a = JSON.parse(xhr.responseText); } catch (e) { a = { error: "The console answered " + xhr.status + "." }; }
        if (xhr.status >= 200 && xhr.status < 300) {
          li.className = "done";
          result.textContent = a.status === "duplicate" ? "already in this source: " : "uploaded, being indexed: ";
          if (a.url) {
            var link = el("a", "", "open");
            link.href = a.url;
            result.appendChild(link);
          }
          resolve(true);
        } else {
          li.className = "failed";
          result.textContent = a.error || ("Refused (" + xhr.status + ").");
          resolve(false);
        }
      });
      xhr.addEventListener("error", function () {
        li.className = "failed";
        result.textContent = "The upload was interrupted.";
        resolve(false);
      });
      xhr.send(file);
    });
  }

  // send uploads the files one after the other, then refreshes the
  // contents list (which then follows their indexing) or the page.
  function send(zone, files) {
    var chain = Promise.resolve(), ok = false;
    Array.prototype.forEach.call(files, function (f) {
      chain = chain.then(function () { return upload(zone, f).then(function (done) { ok = ok || done; }); });
    });
    chain.then(function () { refresh(zone, ok); });
  }

  function refresh(zone, ok) {
    if (!ok) { return; }
    if (zone.getAttribute("data-reload") === "true") { window.location.reload(); return; }
    var target = document.querySelector(zone.getAttribute("data-refresh") || "#contents");
    var url = zone.getAttribute("data-upload-url").replace(/\/upload$/, "/contents");
    if (target && window.htmx) { window.htmx.ajax("GET", url, { target: target, swap: "outerHTML" }); }
  }

  document.addEventListener("change", function (e) {
    var zone = e.target.closest && e.target.closest(".dropzone");
    if (zone && e.target.files && e.target.files.length) { send(zone, e.target.files); e.target.value = ""; }
  });
  ["dragenter", "dragover"].forEach(function (ev) {
    document.addEventListener(ev, function (e) {
      var zone = e.target.closest && e.target.closest(".dropzone");
      if (zone) { e.preventDefault(); zone.classList.add("over"); }
    });
  });
  document.addEventListener("dragleave", function (e) {
    var zone = e.target.closest && e.target.closest(".dropzone");
    if (zone) { zone.classList.remove("over"); }
  });
  document.addEventListener("drop", function (e) {
    var zone = e.target.closest && e.target.closest(".dropzone");
    if (!zone) { return; }
    e.preventDefault();
    zone.classList.remove("over");
    if (e.dataTransfer && e.dataTransfer.files.length) { send(zone, e.dataTransfer.files); }
  });
})();
