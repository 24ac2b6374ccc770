// Live sync progress on the dashboard: polls the status endpoint while a run goes on
// (only when the page says one is running or was just started). Indiekit allows each
// client 250 requests per 15 minutes across all plugin routes, so the poll backs off
// (4 s, growing to 30 s: about 35 requests in 15 minutes however long the run), stops
// when the run ends, and stops early when the host's RateLimit-Remaining runs low.
// A file, not an inline script, so it runs under a strict Content-Security-Policy.
(() => {
  const line = document.getElementById("blogroll-progress");
  if (!line || line.dataset.poll !== "true") return;
  const url = line.dataset.statusUrl;
  const FIRST_DELAY = 4000;
  const MAX_DELAY = 30000;
  const KEEP_FOR_OTHER_PAGES = 50;
  const lastSyncAtLoad = line.dataset.lastSync || null;
  let sawRunning = !line.hidden;
  let idlePolls = 0;
  let delay = FIRST_DELAY;

  function show(text) {
    line.textContent = text;
    line.hidden = false;
  }

  async function poll() {
    try {
      const response = await fetch(url, {
        cache: "no-store",
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      });
      const remaining = Number.parseInt(response.headers.get("RateLimit-Remaining") ?? "", 10);
      if (response.status === 429 || remaining < KEEP_FOR_OTHER_PAGES) return; // leave the owner's budget to the admin pages
      if (!response.ok) return;
      const status = await response.json();
      if (status.isRunning) {
        sawRunning = true;
        const progress = status.progress;
        show(
          progress && progress.total > 0
            ? line.dataset.progressText
                .replace("{done}", String(progress.done))
                .replace("{total}", String(progress.total))
            : line.dataset.runningText,
        );
      } else if (sawRunning || (status.lastSync || null) !== lastSyncAtLoad) {
        show(line.dataset.finishedText);
        // admin.js brings the figures, latest items and errors on the page up to date.
        if (typeof document.dispatchEvent === "function") document.dispatchEvent(new CustomEvent("blogroll:changed"));
        return; // finished: stop polling
      } else if (++idlePolls >= 3) {
        return; // nothing started after all
      }
    } catch {
      // Offline or server restarting: try again at the next tick.
    }
    setTimeout(poll, delay);
    delay = Math.min(MAX_DELAY, Math.round(delay * 1.5));
  }

  poll();
})();
