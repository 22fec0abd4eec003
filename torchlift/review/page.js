// Links the lines of each conversion to the original lines they came from, through the change
// log: hovering a line highlights every line of its changes on both sides; clicking pins them.
(function () {
  "use strict";
  var pinned = null;

  function elementsFor(file, indices) {
    var found = [];
    indices.forEach(function (i) {
      document.querySelectorAll('[data-file="' + file + '"] [data-changes~="' + i + '"]').forEach(function (el) {
        found.push(el);
      });
    });
    return found;
  }

  // A code line lists its changes narrowest first and stands for the most specific one;
  // a row of the change table stands for its own change.
  function changesOf(el) {
    var raw = el.getAttribute("data-changes");
    return raw ? raw.split(" ").slice(0, 1) : [];
  }

  function mark(file, indices, cls) {
    elementsFor(file, indices).forEach(function (el) {
      el.classList.add(cls);
      var fold = el.closest(".folded");
      if (fold && cls === "pinned") { unfold(fold); }
    });
  }

  function clear(cls) {
    document.querySelectorAll("." + cls).forEach(function (el) { el.classList.remove(cls); });
  }

  function unfold(block) {
    block.classList.remove("folded");
    var button = block.previousElementSibling;
    if (button && button.classList.contains("fold")) { button.remove(); }
  }

  function fileOf(el) {
    var section = el.closest("[data-file]");
    return section ? section.getAttribute("data-file") : null;
  }

  document.addEventListener("mouseover", function (event) {
    var el = event.target.closest("[data-changes]");
    clear("hl");
    if (el) { mark(fileOf(el), changesOf(el), "hl"); }
  });

  document.addEventListener("click", function (event) {
    var fold = event.target.closest("button.fold");
    if (fold) { unfold(fold.nextElementSibling); return; }
    var el = event.target.closest("[data-changes]");
    clear("pinned");
    if (!el) { pinned = null; return; }
    var key = fileOf(el) + ":" + changesOf(el).join(" ");
    if (pinned === key) { pinned = null; return; }
    pinned = key;
    mark(fileOf(el), changesOf(el), "pinned");
    if (el.tagName === "TR") {  // a change row: bring both sides into view
      var targets = elementsFor(fileOf(el), changesOf(el)).filter(function (t) { return t.tagName !== "TR"; });
      if (targets.length) { targets[0].scrollIntoView({ block: "center" }); }
    }
  });
})();
