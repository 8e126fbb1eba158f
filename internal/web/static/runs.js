// The runs area's script. The run page's live updates are the htmx SSE
// extension's (sse-connect, sse-swap): this only keeps the streamed output
// scrolled to its end as tokens arrive.
"use strict";
(function () {
  document.addEventListener("htmx:sseMessage", function (e) {
    var out = document.getElementById("live-output");
    if (out && e.detail && e.detail.type === "token") { out.scrollTop = out.scrollHeight; }
  });
})();
