// The console's own script: small helpers pages opt into with data-*
// attributes (no inline script: the Content-Security-Policy forbids it).
"use strict";
(function () {
  // data-confirm="…" on a form asks before submitting.
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { e.preventDefault(); }
  }, true);
})();
