// The wall screen (/t/{id}/wall): shows the pairings and the standings in turn, every
// data-cycle-seconds. Without this script, a <noscript> meta refresh alternates ?view= instead.
(function () {
  "use strict";
  var views = document.querySelector(".wall-views");
  if (!views) return;
  var seconds = Number(views.getAttribute("data-cycle-seconds")) || 20;
  var body = document.body;
  setInterval(function () {
    var pairings = body.classList.contains("view-pairings");
    body.classList.toggle("view-pairings", !pairings);
    body.classList.toggle("view-standings", pairings);
  }, seconds * 1000);
})();
