// The wall screen (/t/{id}/wall): shows the pairings and the standings in turn, every
// data-cycle-seconds. Standings taller than the screen are shown a screenful of rows at a time
// ("Standings, 13-24 of 40"), each screenful for one turn, before the pairings come back.
// Without this script, a <noscript> meta refresh alternates ?view= instead (the whole table).
(function () {
  "use strict";
  var views = document.querySelector(".wall-views");
  if (!views) return;
  var seconds = Number(views.getAttribute("data-cycle-seconds")) || 20;
  var body = document.body;
  var screenful = 0; // which screenful of the standings is shown
  var screenfuls = 1;

  function standingRows() {
    return Array.prototype.slice.call(document.querySelectorAll("#standings tbody tr"));
  }

  function note(text) {
    var table = document.querySelector("#standings table");
    if (!table) return;
    var p = document.getElementById("wall-rows");
    if (!p) {
      p = document.createElement("p");
      p.id = "wall-rows";
      p.className = "wall-rows";
      table.parentNode.insertBefore(p, table);
    }
    p.textContent = text;
    p.hidden = !text;
  }

  // Show screenful ``screenful`` of the standings' rows (all of them when they fit).
  function paginate() {
    var rows = standingRows();
    rows.forEach(function (row) { row.hidden = false; });
    if (!rows.length || !body.classList.contains("view-standings")) {
      screenfuls = 1;
      note("");
      return;
    }
    var top = rows[0].getBoundingClientRect().top;
    var height = rows[0].getBoundingClientRect().height || 1;
    var per = Math.max(3, Math.floor((window.innerHeight - top - height) / height));
    screenfuls = Math.ceil(rows.length / per);
    if (screenful >= screenfuls) screenful = 0;
    if (screenfuls === 1) {
      note("");
      return;
    }
    var first = screenful * per;
    rows.forEach(function (row, i) { row.hidden = i < first || i >= first + per; });
    note("Standings " + (first + 1) + "–" + Math.min(rows.length, first + per) + " of " + rows.length);
  }

  // A live update replaces #standings: page the new rows the same way.
  new MutationObserver(function (changes) {
    var replaced = changes.some(function (c) {
      return Array.prototype.some.call(c.addedNodes, function (n) { return n.id === "standings"; });
    });
    if (replaced) paginate();
  }).observe(views, { childList: true, subtree: true });

  paginate();
  setInterval(function () {
    if (body.classList.contains("view-standings") && screenful + 1 < screenfuls) {
      screenful += 1;
      paginate();
      return;
    }
    var pairings = body.classList.contains("view-pairings");
    body.classList.toggle("view-pairings", !pairings);
    body.classList.toggle("view-standings", pairings);
    screenful = 0;
    paginate();
  }, seconds * 1000);
})();
