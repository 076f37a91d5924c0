// The "All versions" view: hide and show a version, move its column left or
// right. Rows and their cells never change, only which columns show where.
(function () {
  "use strict";
  var view = document.getElementById("collation");
  var table = view && view.querySelector("table.collate");
  if (!table) return;
  var controls = view.querySelector(".wit-controls");
  var heads = table.querySelectorAll("thead th[data-wit]");
  var order = [];
  for (var i = 0; i < heads.length; i++) order.push(heads[i].getAttribute("data-wit"));

  function each(wit, f) {
    var cells = view.querySelectorAll('[data-wit="' + wit + '"]');
    for (var k = 0; k < cells.length; k++) f(cells[k]);
  }

  // Put every row's cells (and the controls) in the current order.
  function place() {
    var rows = table.querySelectorAll("tr");
    for (var r = 0; r < rows.length; r++) {
      var by = {};
      var kids = rows[r].children;
      for (var c = 0; c < kids.length; c++) {
        var w = kids[c].getAttribute("data-wit");
        if (w !== null) by[w] = kids[c];
      }
      for (var o = 0; o < order.length; o++) if (by[order[o]]) rows[r].appendChild(by[order[o]]);
    }
    for (var p = 0; p < order.length; p++) {
      var ctl = controls.querySelector('.wit-control[data-wit="' + order[p] + '"]');
      if (ctl) controls.appendChild(ctl);
    }
  }

  view.addEventListener("change", function (e) {
    var box = e.target;
    if (!box.matches || !box.matches('.wit-controls input[type="checkbox"]')) return;
    var wit = box.getAttribute("data-wit");
    var shown = box.checked;
    table.querySelectorAll("[data-wit]").forEach(function (cell) {
      if (cell.getAttribute("data-wit") === wit) cell.classList.toggle("wit-hidden", !shown);
    });
    each(wit, function (el) { if (el.classList.contains("wit-control")) el.classList.toggle("off", !shown); });
    emptyRows();
  });

  // A row with nothing but gaps in the versions shown is left out (a cell
  // spanning down from above counts as text).
  function emptyRows() {
    var shown = [];
    var boxes = controls.querySelectorAll('input[type="checkbox"]');
    for (var b = 0; b < boxes.length; b++) if (boxes[b].checked) shown.push(boxes[b].getAttribute("data-wit"));
    var rows = table.tBodies[0].rows;
    for (var r = 0; r < rows.length; r++) {
      var text = false;
      for (var k = 0; k < shown.length && !text; k++) {
        var td = rows[r].querySelector('td[data-wit="' + shown[k] + '"]');
        text = !td || td.classList.contains("text");
      }
      rows[r].classList.toggle("all-gaps", !text);
    }
  }

  view.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest(".wit-controls button.move");
    if (!button) return;
    var wit = button.getAttribute("data-wit");
    var at = order.indexOf(wit);
    var to = at + Number(button.getAttribute("data-step"));
    if (at < 0 || to < 0 || to >= order.length) return;
    order.splice(at, 1);
    order.splice(to, 0, wit);
    place();
  });
})();
