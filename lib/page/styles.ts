import { createHash } from "node:crypto";

/**
 * The blogroll's own look, for the fragment's markup wherever it sits: every
 * rule inside :where() (a site's own rules win over them), every value a
 * custom property the site may set.
 */
export const BLOGROLL_CSS = `
:where(.blogroll){--blogroll-gap:.5em;--blogroll-icon-size:1.25em;--blogroll-tile-background:rgb(128 128 128/.2)}
:where(.blogroll) :where(.blogroll__list){list-style:none;margin:0 0 var(--blogroll-gap);padding:0}
:where(.blogroll) :where(.blogroll__heading){font-size:var(--blogroll-heading-size,1.15em);margin:calc(var(--blogroll-gap)*2) 0 var(--blogroll-gap)}
:where(.blogroll) :where(.blogroll__blog){display:flex;flex-wrap:wrap;align-items:baseline;gap:0 .5em;margin:0 0 var(--blogroll-gap);overflow-wrap:anywhere}
:where(.blogroll) :where(.blogroll__icon){flex:none;align-self:center;width:var(--blogroll-icon-size);height:var(--blogroll-icon-size);object-fit:cover;border-radius:.2em}
:where(.blogroll) :where(.blogroll__icon--letter){display:inline-grid;place-items:center;font-weight:bold;line-height:1;background:var(--blogroll-tile-background)}
:where(.blogroll) :where(.blogroll__name){font-weight:600;max-width:calc(100% - var(--blogroll-icon-size) - .5em)}
:where(.blogroll) :where(.blogroll__feed,.blogroll__fediverse,.blogroll__latest,.blogroll__note,.blogroll__recent){font-size:.875em}
:where(.blogroll) :where(.blogroll__feed,.blogroll__fediverse,.blogroll__date,.blogroll__note){color:var(--blogroll-muted,inherit)}
:where(.blogroll) :where(.blogroll__latest){min-width:0}
:where(.blogroll) :where(.blogroll__note){flex-basis:100%;margin:0}
:where(.blogroll) :where(.blogroll__recent){flex-basis:100%;margin:.2em 0 0;padding:0 0 0 calc(var(--blogroll-icon-size) + .5em)}
:where(.blogroll) :where(.blogroll__item){margin:0 0 .2em}
`;

/** The page around it: readable width, light and dark colours from custom properties. */
export const PAGE_CSS = `
:root{color-scheme:light dark;--blogroll-background:#fff;--blogroll-text:#1b1b1b;--blogroll-muted:#545454;--blogroll-link:#0b57d0;--blogroll-visited:#6b2fa3;--blogroll-font:system-ui,sans-serif;--blogroll-width:44rem}
@media (prefers-color-scheme:dark){:root{--blogroll-background:#161616;--blogroll-text:#ececec;--blogroll-muted:#b4b4b4;--blogroll-link:#8cb4ff;--blogroll-visited:#d0a6ff}}
body{margin:0 auto;max-width:var(--blogroll-width);padding:1rem;background:var(--blogroll-background);color:var(--blogroll-text);font-family:var(--blogroll-font);line-height:1.5}
a{color:var(--blogroll-link)}a:visited{color:var(--blogroll-visited)}
h1{font-size:1.6em;margin:.5em 0}
.page__intro{margin:0 0 .5em}
.page__feeds{display:flex;flex-wrap:wrap;gap:.25em 1em;list-style:none;margin:0 0 1.5em;padding:0;font-size:.9em}
${BLOGROLL_CSS}`;

/** A Content-Security-Policy source for the page's one inline style sheet. */
export const PAGE_CSS_HASH = `'sha256-${createHash("sha256").update(PAGE_CSS).digest("base64")}'`;
