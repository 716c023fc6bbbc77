// Sorting and filtering of the case table; the panels open by their #anchor (CSS :target),
// so the page reads without this script too.
(function () {
  var table = document.getElementById("cases");
  if (!table) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  function key(row, col, type) {
    var v = row.cells[col].getAttribute("data-v");
    if (v === null) v = row.cells[col].textContent;
    if (type === "num") { var n = parseFloat(v); return isNaN(n) ? -Infinity : n; }
    return v.toLowerCase();
  }
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    if (!th.hasAttribute("data-sort")) return;
    th.tabIndex = 0;
    function sort() {
      var type = th.getAttribute("data-sort");
      var asc = th.getAttribute("aria-sort") !== "ascending";
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (o) { o.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", asc ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = key(a, col, type), y = key(b, col, type);
        return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
      });
      rows.forEach(function (r) { body.appendChild(r); });
    }
    th.addEventListener("click", sort);
    th.addEventListener("keydown", function (e) { if (e.key === "Enter") sort(); });
  });
  var text = document.getElementById("filter-text");
  var server = document.getElementById("filter-server");
  var cls = document.getElementById("filter-class");
  var flag = document.getElementById("filter-flag");
  var count = document.getElementById("filter-count");
  function apply() {
    var q = text.value.toLowerCase(), shown = 0;
    rows.forEach(function (r) {
      var ok = (!q || r.getAttribute("data-case").toLowerCase().indexOf(q) >= 0)
        && (!server.value || r.getAttribute("data-server") === server.value)
        && (!cls.value || r.getAttribute("data-class") === cls.value)
        && (!flag.value || r.getAttribute("data-flags").split(" ").indexOf(flag.value) >= 0);
      r.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + " of " + rows.length + " shown";
  }
  [text, server, cls, flag].forEach(function (el) { el.addEventListener("input", apply); });
  apply();
})();
