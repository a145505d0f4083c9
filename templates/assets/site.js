// Progressive enhancement only: the pages are complete without this file.
// It turns the language sections into tabs and adds copy buttons to code.
(function () {
  "use strict";

  function setupTabs(container, index) {
    var panels = Array.prototype.filter.call(container.children, function (el) {
      return el.classList.contains("tab-panel");
    });
    if (panels.length < 2) return;
    var list = document.createElement("div");
    list.className = "tablist";
    list.setAttribute("role", "tablist");
    list.setAttribute("aria-label", "Language");
    var buttons = panels.map(function (panel, i) {
      var heading = panel.querySelector("h3");
      var button = document.createElement("button");
      button.type = "button";
      button.id = "tabs" + index + "-" + panel.getAttribute("data-lang");
      button.setAttribute("role", "tab");
      button.setAttribute("aria-controls", panel.id);
      button.textContent = heading ? heading.textContent : panel.getAttribute("data-lang");
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", button.id);
      panel.setAttribute("tabindex", "0");
      button.addEventListener("click", function () { select(i, true); });
      button.addEventListener("keydown", function (e) {
        var next = null;
        if (e.key === "ArrowRight") next = (i + 1) % panels.length;
        if (e.key === "ArrowLeft") next = (i - 1 + panels.length) % panels.length;
        if (e.key === "Home") next = 0;
        if (e.key === "End") next = panels.length - 1;
        if (next !== null) { e.preventDefault(); select(next, true); }
      });
      list.appendChild(button);
      return button;
    });
    function select(n, focus) {
      buttons.forEach(function (b, i) {
        var on = i === n;
        b.setAttribute("aria-selected", on ? "true" : "false");
        b.tabIndex = on ? 0 : -1;
        panels[i].hidden = !on;
      });
      if (focus) buttons[n].focus();
    }
    container.insertBefore(list, panels[0]);
    container.classList.add("enhanced");
    select(0, false);
  }

  // copyText tries the Clipboard API, then the older execCommand route
  // (which works where the API is missing or not permitted).
  function copyText(text) {
    function legacy() {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      return ok ? Promise.resolve() : Promise.reject(new Error("copy failed"));
    }
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(legacy);
    }
    return legacy();
  }

  function setupCopy(block) {
    var pre = block.querySelector("pre");
    if (!pre) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy";
    button.textContent = "Copy";
    button.setAttribute("aria-label", "Copy code to clipboard");
    button.addEventListener("click", function () {
      copyText(pre.textContent).then(function () {
        button.textContent = "Copied";
        button.setAttribute("data-state", "copied");
      }, function () {
        button.textContent = "Press Ctrl+C";
        button.setAttribute("data-state", "failed");
        var range = document.createRange();
        range.selectNodeContents(pre);
        var sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
      });
      setTimeout(function () { button.textContent = "Copy"; }, 2000);
    });
    block.appendChild(button);
  }

  document.querySelectorAll("[data-tabs]").forEach(setupTabs);
  document.querySelectorAll(".code").forEach(setupCopy);
})();
