// The report's behaviour: tabs, paging, and marking a link's counterpart.
// Without script every view is shown in full, one after another.
(function () {
  "use strict";
  var doc = document;
  doc.body.classList.add("views-js");
  var views = Array.prototype.slice.call(doc.querySelectorAll(".view"));
  var tabs = Array.prototype.slice.call(doc.querySelectorAll("#tabs a"));

  function showPage(view, page) {
    var rows = view.querySelectorAll("tr[data-page]");
    for (var i = 0; i < rows.length; i++) {
      rows[i].style.display = rows[i].getAttribute("data-page") === String(page) ? "" : "none";
    }
    var buttons = view.querySelectorAll(".pager button");
    for (var j = 0; j < buttons.length; j++) {
      buttons[j].classList.toggle("active", buttons[j].getAttribute("data-page") === String(page));
    }
  }

  // A pager for every view with more than one page of rows.
  views.forEach(function (view) {
    var pager = view.querySelector(".pager");
    if (!pager) return;
    var rows = view.querySelectorAll("tr[data-page]");
    var last = rows.length ? Number(rows[rows.length - 1].getAttribute("data-page")) : 0;
    if (last > 0) {
      for (var p = 0; p <= last; p++) {
        var b = doc.createElement("button");
        b.type = "button";
        b.textContent = String(p + 1);
        b.setAttribute("data-page", String(p));
        b.addEventListener("click", function (e) { showPage(view, e.target.getAttribute("data-page")); });
        pager.appendChild(b);
      }
      pager.insertBefore(doc.createTextNode("Page "), pager.firstChild);
    }
    showPage(view, 0);
  });

  // Tabs follow the address: #pair-3 shows pair 3, #pair-3-p2 its passage 2.
  function route() {
    var hash = decodeURIComponent(location.hash.slice(1)) || "overview";
    var target = doc.getElementById(hash);
    var view = target && (target.classList.contains("view") ? target : target.closest(".view"));
    if (!view) view = views[0];
    views.forEach(function (v) { v.classList.toggle("shown", v === view); });
    tabs.forEach(function (t) { t.classList.toggle("active", t.getAttribute("data-view") === view.id); });
    if (target && target !== view && target.hasAttribute("data-page")) {
      showPage(view, target.getAttribute("data-page"));
      target.scrollIntoView({ block: "center" });
    } else {
      window.scrollTo(0, 0);
    }
  }
  window.addEventListener("hashchange", route);
  route();

  // Clicking a sentence marks it and its counterpart (the other side of the
  // row); clicking again unmarks.
  doc.addEventListener("click", function (e) {
    var cell = e.target.closest("td");
    var row = cell && cell.closest("tr.link, tr.unit");
    if (!row) return;
    var was = row.classList.contains("hl");
    var marked = doc.querySelectorAll("tr.hl");
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove("hl");
    if (!was) row.classList.add("hl");
  });
})();

// Sortable tables: click a heading to sort by it, again to reverse.
(function () {
  "use strict";
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.querySelectorAll("thead th");
    Array.prototype.forEach.call(heads, function (th, col) {
      th.style.cursor = "pointer";
      th.addEventListener("click", function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var num = th.getAttribute("data-type") === "num";
        var dir = th.getAttribute("data-dir") === "desc" ? 1 : -1;
        rows.sort(function (x, y) {
          var a = x.cells[col], b = y.cells[col];
          var va = a.getAttribute("data-sort") || a.textContent, vb = b.getAttribute("data-sort") || b.textContent;
          var c = num ? Number(va) - Number(vb) : va.localeCompare(vb);
          return dir * c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("data-dir"); });
        th.setAttribute("data-dir", dir === -1 ? "desc" : "asc");
      });
    });
  });
})();
