// Live sync progress on the dashboard: polls the status endpoint while a run goes on
// (only when the page says one is running or was just started; Indiekit rate-limits
// plugin routes, so the interval stays long and polling stops when the run ends).
// A file, not an inline script, so it runs under a strict Content-Security-Policy.
(() => {
  const line = document.getElementById("blogroll-progress");
  if (!line || line.dataset.poll !== "true") return;
  const url = line.dataset.statusUrl;
  const INTERVAL = 4000;
  const lastSyncAtLoad = line.dataset.lastSync || null;
  let sawRunning = !line.hidden;
  let idlePolls = 0;

  function show(text) {
    line.textContent = text;
    line.hidden = false;
  }

  async function poll() {
    try {
      const response = await fetch(url, { cache: "no-store", credentials: "same-origin", headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const status = await response.json();
      if (status.isRunning) {
        sawRunning = true;
        const progress = status.progress;
        show(progress && progress.total > 0
          ? line.dataset.progressText.replace("{done}", String(progress.done)).replace("{total}", String(progress.total))
          : line.dataset.runningText);
      } else if (sawRunning || (status.lastSync || null) !== lastSyncAtLoad) {
        show(line.dataset.finishedText);
        return; // finished: stop polling
      } else if (++idlePolls >= 3) {
        return; // nothing started after all
      }
    } catch {
      // Offline or server restarting: try again at the next tick.
    }
    setTimeout(poll, INTERVAL);
  }

  poll();
})();
