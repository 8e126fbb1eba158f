// The console's own script: small helpers pages opt into with data-*
// attributes (no inline script: the Content-Security-Policy forbids it).
"use strict";
(function () {
  // data-confirm="…" on a form asks before submitting.
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute && e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) { e.preventDefault(); }
  }, true);

  // The definition editor: a problem with data-line/data-column puts the
  // caret there; the caret's line and column are shown beside Save.
  function editor() { return document.querySelector("textarea[data-editor]"); }

  // offsetOf turns a 1-based line and column (in code points) into a
  // UTF-16 offset of the textarea's value.
  function offsetOf(text, line, column) {
    var off = 0;
    for (var l = 1; l < line; l++) {
      var nl = text.indexOf("\n", off);
      if (nl < 0) { return text.length; }
      off = nl + 1;
    }
    for (var c = 1; c < column && off < text.length && text[off] !== "\n"; c++) {
      var code = text.charCodeAt(off);
      off += (code >= 0xd800 && code <= 0xdbff) ? 2 : 1;
    }
    return off;
  }

  function goTo(li) {
    var ed = editor();
    if (!ed) { return; }
    var off = offsetOf(ed.value, +li.getAttribute("data-line"), +li.getAttribute("data-column"));
    ed.focus();
    ed.setSelectionRange(off, off);
    // Scroll the line into view: lines are evenly tall in a monospace textarea.
    var lh = parseFloat(getComputedStyle(ed).lineHeight) || 18;
    ed.scrollTop = Math.max(0, (+li.getAttribute("data-line") - 4) * lh);
    showCaret();
  }

  function showCaret() {
    var ed = editor(), out = document.getElementById("caret");
    if (!ed || !out) { return; }
    var before = ed.value.slice(0, ed.selectionStart).split("\n");
    out.textContent = "line " + before.length + ", column " + (Array.from(before[before.length - 1]).length + 1);
  }

  document.addEventListener("click", function (e) {
    var li = e.target.closest && e.target.closest(".problems li[data-line]");
    if (li) { goTo(li); }
  });
  document.addEventListener("keydown", function (e) {
    var li = e.target.closest && e.target.closest(".problems li[data-line]");
    if (li && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); goTo(li); }
  });
  ["keyup", "click", "select"].forEach(function (ev) {
    document.addEventListener(ev, function (e) { if (e.target === editor()) { showCaret(); } });
  });
})();
