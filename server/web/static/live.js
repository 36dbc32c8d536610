/* unoduo live pages: follow the page's server-sent events and swap its regions in place.
 *
 * The element with data-live (the <body>, or <main>) names the page's event stream
 * ("/live/t/ID"); data-live-version, the version the page was loaded at, is sent as ?last= so an
 * unchanged page is sent nothing. Each "version" event carries {version, html: {id: outer HTML}}:
 * every element whose id is named is replaced by the new one (a region the page has no place
 * for reloads the page, at most once a minute). The browser reconnects by itself after a
 * restart (the stream's retry:, with Last-Event-ID); a refusal (429, 503) or a stream that
 * cannot be opened is tried again here, later and later (at most a minute apart).
 *
 * Everything here is an addition: without this script every page is complete, only not live.
 * (The wall screen's turning between pairings and standings is wall.js's; the regions swapped
 * here sit inside its views, so a swap keeps the view shown.)
 */
(function () {
  "use strict";

  var root = document.querySelector("[data-live]");
  var status = null;

  function showStatus(state, text) {
    if (!status) {
      status = document.createElement("p");
      status.className = "live-status";
      status.setAttribute("role", "status");
      status.setAttribute("aria-live", "polite");
      var main = document.querySelector("main") || document.body;
      main.insertBefore(status, main.firstChild);
    }
    status.setAttribute("data-state", state);
    status.textContent = text;
  }

  if (!root || !window.EventSource) return;

  /* ---- swapping regions ---- */
  function scrolled(element) {
    var kept = {};
    element.querySelectorAll("[id]").forEach(function (inner) {
      if (inner.scrollLeft || inner.scrollTop) kept[inner.id] = [inner.scrollLeft, inner.scrollTop];
    });
    return kept;
  }

  function swap(id, html) {
    var old = document.getElementById(id);
    if (!old) return false;
    var template = document.createElement("template");
    template.innerHTML = html;
    var fresh = template.content.getElementById(id);
    if (!fresh) return true; /* not a region we know how to place: leave the old one */
    var kept = scrolled(old);
    old.replaceWith(fresh);
    Object.keys(kept).forEach(function (innerId) {
      var inner = document.getElementById(innerId);
      if (inner) {
        inner.scrollLeft = kept[innerId][0];
        inner.scrollTop = kept[innerId][1];
      }
    });
    return true;
  }

  /* A region the page has no place for: reload, at most once a minute (a page drawn without it
     even after a reload keeps the regions it has, rather than reloading at every version). */
  function reloadOnce() {
    var key = "unoduo-live-reload:" + window.location.pathname + window.location.search;
    try {
      var last = Number(window.sessionStorage.getItem(key) || 0);
      if (Date.now() - last < 60000) return false;
      window.sessionStorage.setItem(key, String(Date.now()));
    } catch (e) {
      /* no storage (private mode): reload all the same */
    }
    return true;
  }

  /* ---- the stream ---- */
  var url = root.getAttribute("data-live");
  var version = root.getAttribute("data-live-version");
  var source = null;
  var backoff = 5000;

  function address() {
    if (version === null || version === "") return url;
    return url + (url.indexOf("?") < 0 ? "?" : "&") + "last=" + encodeURIComponent(version);
  }

  function connect() {
    source = new EventSource(address());
    source.onopen = function () {
      backoff = 5000;
      showStatus("live", "Live");
    };
    source.addEventListener("version", function (event) {
      var data;
      try {
        data = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      version = String(data.version);
      var missing = false;
      Object.keys(data.html || {}).forEach(function (id) {
        if (!swap(id, data.html[id])) missing = true;
      });
      if (missing && reloadOnce()) {
        source.close();
        window.location.reload();
        return;
      }
      showStatus("live", "Live");
    });
    source.onerror = function () {
      if (source.readyState === EventSource.CLOSED) {
        /* refused (429, 503, 404) or not an event stream: the browser gives up; we try later */
        showStatus("off", "Not live: trying again shortly");
        window.setTimeout(connect, backoff);
        backoff = Math.min(backoff * 2, 60000);
      } else {
        showStatus("reconnecting", "Reconnecting…");
      }
    };
  }

  connect();
})();
