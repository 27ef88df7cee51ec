// Runs in every document of a rendered page before its own scripts: it
// removes what a page must not use in the renderer (popups, dialogs, service
// workers, WebRTC) and reports when the page is quiet (no DOM change and no
// short timer pending), for the renderer's wait.
(() => {
  if (window.__surfsenseProbe) return;
  let last = performance.now();
  const live = new Set();
  const setT = window.setTimeout, clearT = window.clearTimeout;
  // A timer of up to 5 s is work the page is about to do (a delayed fetch,
  // a render after a tick): the page is not quiet while one is pending.
  window.setTimeout = function (fn, delay, ...args) {
    const d = Number(delay) || 0;
    if (typeof fn !== "function" || d > 5000) return setT.call(this, fn, delay, ...args);
    let id;
    const run = function () {
      live.delete(id);
      last = performance.now();
      return fn.apply(this, args);
    };
    id = setT.call(this, run, delay);
    live.add(id);
    return id;
  };
  window.clearTimeout = function (id) {
    live.delete(id);
    return clearT.call(this, id);
  };
  const none = () => null;
  try { window.open = none; } catch (e) {}
  try { window.alert = () => undefined; window.confirm = () => false; window.prompt = none; window.print = () => undefined; } catch (e) {}
  try { Object.defineProperty(Navigator.prototype, "serviceWorker", { get: () => undefined, configurable: false }); } catch (e) {}
  for (const k of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCSessionDescription", "RTCIceCandidate"]) {
    try { Object.defineProperty(window, k, { value: undefined, writable: false, configurable: false }); } catch (e) {}
  }
  const watch = () => {
    try {
      new MutationObserver(() => { last = performance.now(); })
        .observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    } catch (e) {}
  };
  watch();
  Object.defineProperty(window, "__surfsenseProbe", {
    value: () => ({ ready: document.readyState, timers: live.size, idle_ms: performance.now() - last }),
    writable: false, configurable: false, enumerable: false,
  });
})();
