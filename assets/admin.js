// The admin pages' small behaviours. A file, not inline, so it runs under a strict
// Content-Security-Policy; every page works without it.
// - A blog picture that fails to load gives way to the blog's letter tile.
// - A form that reads from the web (finding feeds, reading an OPML) says so while it waits.
// - Parts of a page marked data-blogroll-region are brought up to date from the page's own
//   address while something on it is still being fetched (data-blogroll-pending: blogs just
//   added), and once when a sync ends (progress.js sends "blogroll:changed"); so are the
//   page's heading and the fields of a form marked data-blogroll-live-form that the owner
//   has not touched.
// - A page that comes back from a form puts the keyboard where the owner goes on: on the
//   error summary when the form has errors, else on what the form found (data-blogroll-focus).
// - A table wider than the screen scrolls in its wrapper; the wrapper is then a labelled region
//   that takes the keyboard focus, so its right-hand columns can be reached with the arrow keys.
(() => {
  function labelScrollingTables() {
    for (const wrap of document.querySelectorAll(".blogroll-table-wrap")) {
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        const caption = wrap.querySelector("caption");
        if (caption) wrap.setAttribute("aria-label", caption.textContent.trim());
      } else if (wrap.getAttribute("tabindex") === "0" && wrap !== document.activeElement) {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    }
  }
  labelScrollingTables();
  window.addEventListener("resize", labelScrollingTables);

  const summary = document.querySelector(".error-summary");
  const found = document.querySelector("[data-blogroll-focus] input:checked, [data-blogroll-focus] input");
  const next = summary || found;
  // Indiekit's own error summary focuses itself; never take the focus from where the owner put it.
  if (next && (document.activeElement === document.body || document.activeElement === null)) {
    if (next === summary && !summary.hasAttribute("tabindex")) summary.setAttribute("tabindex", "-1");
    next.focus();
  }

  function letterTile(image) {
    const tile = document.createElement("span");
    tile.className = "blogroll-icon blogroll-icon--letter";
    tile.setAttribute("aria-hidden", "true");
    tile.textContent = image.dataset.letter || "?";
    image.replaceWith(tile);
  }
  function fixBrokenIcons(root) {
    for (const image of root.querySelectorAll("img.blogroll-icon")) {
      if (image.complete && image.naturalWidth === 0) letterTile(image);
    }
  }
  document.addEventListener(
    "error",
    (event) => {
      const target = event.target;
      if (target instanceof HTMLImageElement && target.classList.contains("blogroll-icon")) letterTile(target);
    },
    true,
  );
  fixBrokenIcons(document);

  for (const form of document.querySelectorAll("form[data-blogroll-busy]")) {
    let sent = false;
    form.addEventListener("submit", (event) => {
      if (sent) {
        event.preventDefault(); // one request at a time
        return;
      }
      sent = true;
      form.setAttribute("aria-busy", "true");
      const status = form.querySelector(".blogroll-busy");
      const submitter = event.submitter;
      if (status) status.textContent = (submitter && submitter.dataset.busy) || form.dataset.blogrollBusy;
    });
    // Back from the browser's page cache: ready again.
    window.addEventListener("pageshow", () => {
      sent = false;
      form.removeAttribute("aria-busy");
      const status = form.querySelector(".blogroll-busy");
      if (status) status.textContent = "";
    });
  }

  const FIRST_DELAY = 2000;
  const MAX_DELAY = 15000;
  const GIVE_UP_AFTER = 5 * 60_000;
  let refreshing = false;

  /** Replaces each region with its fresh copy; true while something is still pending. */
  async function refresh() {
    const response = await fetch(window.location.href, {
      cache: "no-store",
      credentials: "same-origin",
      headers: { Accept: "text/html" },
    });
    if (!response.ok || response.redirected) return false;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const region of document.querySelectorAll("[data-blogroll-region][id]")) {
      const next = fresh.getElementById(region.id);
      // Never pull something from under the owner's focus.
      if (next && !region.contains(document.activeElement)) region.replaceWith(document.importNode(next, true));
    }
    const heading = document.querySelector("main h1");
    const freshHeading = fresh.querySelector("main h1");
    if (heading && freshHeading && heading.textContent !== freshHeading.textContent) {
      // Its children, not its text: Indiekit's heading holds the parent page's link too.
      heading.replaceChildren(...[...freshHeading.childNodes].map((node) => document.importNode(node, true)));
      document.title = fresh.title;
    }
    for (const form of document.querySelectorAll("form[data-blogroll-live-form][id]")) {
      const next = fresh.getElementById(form.id);
      if (next) refreshUntouchedFields(form, next);
    }
    fixBrokenIcons(document);
    labelScrollingTables();
    return fresh.querySelector("[data-blogroll-pending]") !== null;
  }

  /**
   * Each field still showing what the form was loaded with (its shown_<name> field) takes
   * the fresh page's value, and its shown_ field with it; a field the owner changed, or is
   * in, is left alone, so saving sends the owner's changes and nothing else.
   */
  function refreshUntouchedFields(form, fresh) {
    for (const shown of form.querySelectorAll('input[type="hidden"][name^="shown_"]')) {
      const name = shown.name.slice("shown_".length);
      const field = form.elements.namedItem(name);
      const freshField = fresh.querySelector(`[name="${name}"]`);
      const freshShown = fresh.querySelector(`[name="${shown.name}"]`);
      if (!(field instanceof HTMLElement) || !freshField || !freshShown || field === document.activeElement) continue;
      if (field instanceof HTMLInputElement && field.type === "checkbox") {
        if (field.checked !== (shown.value === "true")) continue;
        field.checked = freshField.hasAttribute("checked");
      } else if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) {
        if (field.value !== shown.value) continue;
        field.value =
          freshField instanceof HTMLTextAreaElement ? freshField.value : freshField.getAttribute("value") || "";
      } else continue;
      shown.value = freshShown.getAttribute("value") || "";
    }
  }

  async function watch() {
    if (refreshing) return;
    refreshing = true;
    const started = Date.now();
    let delay = FIRST_DELAY;
    try {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, delay));
        if (!(await refresh()) || Date.now() - started > GIVE_UP_AFTER) break;
        delay = Math.min(MAX_DELAY, Math.round(delay * 1.5));
      }
    } catch {
      // Offline or signed out: the page stays as it is.
    } finally {
      refreshing = false;
    }
  }

  if (document.querySelector("[data-blogroll-pending]")) void watch();
  document.addEventListener("blogroll:changed", () => {
    if (!refreshing)
      void refresh()
        .then((pending) => pending && watch())
        .catch(() => undefined);
  });
})();
