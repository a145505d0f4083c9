// Progressive enhancement only: the pages are complete without this file.
// It turns the language sections into tabs, adds copy buttons to code,
// shows the search box (hidden in the HTML, so a page without JavaScript
// has no broken control) and folds the contents list on a phone.
(function () {
  "use strict";

  // The reader's language is remembered across pages (localStorage, on
  // this machine only; nothing is sent anywhere). Storage may be refused
  // (a private window, a file:// page in some browsers): then each page
  // opens on its first tab, as without JavaScript.
  var langKey = "retryspec-lang";
  function savedLang() {
    try { return window.localStorage.getItem(langKey); } catch (e) { return null; }
  }
  function saveLang(lang) {
    try { window.localStorage.setItem(langKey, lang); } catch (e) { /* not remembered */ }
  }
  var tabGroups = [];

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
      var label = heading ? heading.cloneNode(true) : null;
      if (label) label.querySelectorAll(".anchor").forEach(function (a) { a.remove(); });
      button.textContent = label ? label.textContent.trim() : panel.getAttribute("data-lang");
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", button.id);
      panel.setAttribute("tabindex", "0");
      button.addEventListener("click", function () { choose(i); });
      button.addEventListener("keydown", function (e) {
        var next = null;
        if (e.key === "ArrowRight") next = (i + 1) % panels.length;
        if (e.key === "ArrowLeft") next = (i - 1 + panels.length) % panels.length;
        if (e.key === "Home") next = 0;
        if (e.key === "End") next = panels.length - 1;
        if (next !== null) { e.preventDefault(); choose(next); }
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
    // choose is the reader's pick: remembered, and shown in every group
    // of the page that has the language.
    function choose(n) {
      var lang = panels[n].getAttribute("data-lang");
      saveLang(lang);
      tabGroups.forEach(function (g) { if (g !== group) g.show(lang); });
      select(n, true);
    }
    var group = {
      show: function (lang) {
        for (var i = 0; i < panels.length; i++) {
          if (panels[i].getAttribute("data-lang") === lang) { select(i, false); return true; }
        }
        return false;
      }
    };
    tabGroups.push(group);
    container.insertBefore(list, panels[0]);
    container.classList.add("enhanced");
    var lang = savedLang();
    if (!lang || !group.show(lang)) select(0, false);
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

  // Search over the index built with the site (assets/search-index.js),
  // loaded on first use; every result names its page and section.
  function setupSearch(box) {
    var root = box.getAttribute("data-root") || "";
    var input = box.querySelector("input");
    var list = box.querySelector(".search-results");
    var status = box.querySelector("#search-status");
    var loading = false;
    var pending = null;
    // A query typed while the index is still loading runs once it has
    // loaded (the last caller's wish wins), not never.
    function load(then) {
      if (window.retryspecSearchIndex) { then(); return; }
      pending = then;
      if (loading) return;
      loading = true;
      var s = document.createElement("script");
      s.src = root + "assets/search-index.js";
      s.onload = function () { if (pending) pending(); };
      document.head.appendChild(s);
    }
    function excerpt(text, word) {
      var i = text.toLowerCase().indexOf(word);
      if (i < 0) return text.slice(0, 110) + (text.length > 110 ? "…" : "");
      var start = Math.max(0, i - 40);
      return (start > 0 ? "…" : "") + text.slice(start, start + 120) + (start + 120 < text.length ? "…" : "");
    }
    function run() {
      var q = input.value.trim().toLowerCase();
      list.textContent = "";
      if (!q) { list.hidden = true; status.textContent = ""; return; }
      var words = q.split(/\s+/);
      var hits = [];
      window.retryspecSearchIndex.forEach(function (page) {
        page.s.forEach(function (sec) {
          var head = (page.t + " " + sec[1]).toLowerCase();
          var body = sec[2].toLowerCase();
          var score = 0;
          for (var i = 0; i < words.length; i++) {
            if (head.indexOf(words[i]) >= 0) score += 3;
            else if (body.indexOf(words[i]) >= 0) score += 1;
            else return;
          }
          hits.push({page: page, sec: sec, score: score});
        });
      });
      // Integrator pages first; the maintainers' rule pages after them.
      hits.sort(function (a, b) { return ((a.page.m || 0) - (b.page.m || 0)) || (b.score - a.score); });
      hits.slice(0, 8).forEach(function (h) {
        var li = document.createElement("li");
        var a = document.createElement("a");
        a.href = root + h.page.u + (h.sec[0] ? "#" + h.sec[0] : "");
        var where = document.createElement("span");
        where.className = "where";
        where.textContent = h.sec[0] ? h.page.t + " › " + h.sec[1] : h.page.t;
        var ex = document.createElement("span");
        ex.className = "excerpt";
        ex.textContent = excerpt(h.sec[2], words[0]);
        a.appendChild(where);
        a.appendChild(ex);
        li.appendChild(a);
        list.appendChild(li);
      });
      if (!hits.length) {
        var none = document.createElement("li");
        none.className = "none";
        none.textContent = "No results for “" + input.value.trim() + "”";
        list.appendChild(none);
      }
      list.hidden = false;
      status.textContent = hits.length ? hits.length + " results" : "No results";
    }
    input.addEventListener("focus", function () { load(function () { if (input.value.trim()) run(); }); });
    input.addEventListener("input", function () { load(run); });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Escape") { input.value = ""; run(); }
      if (e.key === "ArrowDown") { var first = list.querySelector("a"); if (first) { e.preventDefault(); first.focus(); } }
    });
    list.addEventListener("keydown", function (e) {
      var links = Array.prototype.slice.call(list.querySelectorAll("a"));
      var i = links.indexOf(document.activeElement);
      if (e.key === "ArrowDown" && i < links.length - 1) { e.preventDefault(); links[i + 1].focus(); }
      if (e.key === "ArrowUp") { e.preventDefault(); (i > 0 ? links[i - 1] : input).focus(); }
      if (e.key === "Escape") { input.focus(); input.value = ""; run(); }
    });
    document.addEventListener("click", function (e) {
      if (!box.contains(e.target)) list.hidden = true;
    });
    box.hidden = false;
  }

  document.querySelectorAll("[data-tabs]").forEach(setupTabs);
  document.querySelectorAll(".code").forEach(setupCopy);
  document.querySelectorAll("[data-search]").forEach(setupSearch);
  // On a phone the contents list starts folded: the page comes first.
  if (window.matchMedia("(max-width: 800px)").matches) {
    document.querySelectorAll("details.toc").forEach(function (d) { d.open = false; });
  }
})();
