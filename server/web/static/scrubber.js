/* The replay scrubber's slider (server/web/templates/match.html). Without this script the
   replay moves by its links and its form (?at=SEQ); with it a range input shows, and moving it
   fetches the page at that event and swaps the #replay section in place (the address follows,
   so a reload or a shared link shows the same step). */
(function () {
  "use strict";
  var pending = null;

  function bind() {
    var section = document.getElementById("replay");
    if (!section) return;
    var range = section.querySelector("#replay-range");
    var number = section.querySelector("#replay-at");
    if (!range || !number) return;
    range.hidden = false;
    range.addEventListener("input", function () { number.value = range.value; });
    range.addEventListener("change", function () { show(range.value); });
  }

  function show(seq) {
    var url = new URL(window.location.href);
    url.searchParams.set("at", seq);
    url.hash = "replay";
    if (pending) pending.abort();
    pending = new AbortController();
    fetch(url.toString(), { signal: pending.signal, headers: { accept: "text/html" } })
      .then(function (answer) { return answer.ok ? answer.text() : Promise.reject(answer.status); })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("replay");
        var now = document.getElementById("replay");
        if (!fresh || !now) return;
        now.replaceWith(fresh);
        history.replaceState(null, "", url.toString());
        bind();
        var slider = document.getElementById("replay-range");
        if (slider) slider.focus();
      })
      .catch(function () { window.location.href = url.toString(); });
  }

  bind();
})();
