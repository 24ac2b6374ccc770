import type { Page } from "playwright-core";

/**
 * Measurements of what an owner sees, taken in Chromium inside the real
 * Indiekit: boxes of our admin's elements beside those of a first-party page
 * (the host's share form), so "looks like Indiekit" is a number.
 */

export interface FormLook {
  /** Widths of the text inputs (px). */
  inputWidths: number[];
  /** Gaps from the bottom of each input to the top of the next field's label (px). */
  fieldGaps: number[];
}

/** Inputs' widths, and the gap from each input to the next field below it. */
export function measureForm(page: Page): Promise<FormLook> {
  return page.evaluate(() => {
    const inputs = [
      ...document.querySelectorAll<HTMLElement>(
        "main input.input:not([type=hidden]):not([type=file]), main textarea.textarea",
      ),
    ].filter((input) => input.offsetParent !== null);
    const labels = [...document.querySelectorAll<HTMLElement>("main .label, main .fieldset__legend")].filter(
      (label) => label.offsetParent !== null,
    );
    const fieldGaps: number[] = [];
    for (const input of inputs) {
      const bottom = input.getBoundingClientRect().bottom;
      const next = labels
        .map((label) => label.getBoundingClientRect().top)
        .filter((top) => top > bottom)
        .sort((a, b) => a - b)[0];
      if (next !== undefined) fieldGaps.push(Math.round(next - bottom));
    }
    return { inputWidths: inputs.map((input) => Math.round(input.getBoundingClientRect().width)), fieldGaps };
  });
}

/** The vertical gap between the bottom of one element and the top of the next (px). */
export function gapBetween(page: Page, upper: string, lower: string): Promise<number> {
  return page.evaluate(
    ([a, b]) =>
      Math.round(
        document.querySelector(b)!.getBoundingClientRect().top -
          document.querySelector(a)!.getBoundingClientRect().bottom,
      ),
    [upper, lower],
  );
}

export interface FilterLook {
  /** Per select: room left for the chosen option's text once padding and the arrow's place are taken (px; negative = covered). */
  textRoom: number[];
  /** Bottom of the Filter button minus the bottom of the fields (px). */
  buttonOffset: number;
}

/** The blogs filter: is each select's text clear of its arrow, and is the button level with the fields? */
export function measureFilters(page: Page): Promise<FilterLook> {
  return page.evaluate(() => {
    const canvas = document.createElement("canvas").getContext("2d")!;
    const textRoom = [...document.querySelectorAll<HTMLSelectElement>(".blogroll-filters select")].map((select) => {
      const style = getComputedStyle(select);
      canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const text = select.selectedOptions[0]?.textContent ?? "";
      const inner = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      return Math.round(inner - canvas.measureText(text).width);
    });
    const button = document.querySelector(".blogroll-filters button")!.getBoundingClientRect();
    const field = document.querySelector(".blogroll-filters select")!.getBoundingClientRect();
    return { textRoom, buttonOffset: Math.round(button.bottom - field.bottom) };
  });
}

/** Table captions a sighted owner can see (text and width), which should be none. */
export function visibleCaptions(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("caption")]
      .filter((caption) => caption.getBoundingClientRect().width > 1 && caption.getBoundingClientRect().height > 1)
      .map((caption) => caption.textContent!.trim()),
  );
}

/** The text each column header of the first table shows on screen ("" for a header whose text is for screen readers only). */
export function visibleHeaders(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("table thead tr:first-child > *")].map((cell) => {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      const shown: string[] = [];
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        // The text's element, not the text's own extent: a visually hidden element is a 1 px box its text overflows unseen.
        const box = node.parentElement!.getBoundingClientRect();
        if (box.width > 1 && box.height > 1 && node.textContent!.trim()) shown.push(node.textContent!.trim());
      }
      return shown.join(" ");
    }),
  );
}

export interface NavigationLook {
  /** A link that is not the current one: colour, underline colour, padding. */
  link: { color: string; decoration: string; padding: string };
  /** The current item: its bar (box-shadow) and its link's colour. */
  current: { bar: string; color: string };
}

/** How a navigation component draws its links and its current item (the host's header, or our sections). */
export function measureNavigation(page: Page, navigation: string): Promise<NavigationLook> {
  return page.evaluate((selector) => {
    const items = [...document.querySelectorAll<HTMLElement>(`${selector} .navigation__list-item`)];
    const current = items.find((item) => item.querySelector("a[aria-current='true'], a[aria-current='page']"))!;
    const other = items.find((item) => item !== current) ?? current;
    const link = getComputedStyle(other.querySelector("a")!);
    return {
      link: { color: link.color, decoration: link.textDecorationColor, padding: link.padding },
      current: { bar: getComputedStyle(current).boxShadow, color: getComputedStyle(current.querySelector("a")!).color },
    };
  }, navigation);
}

/** Font size and weight of the first element matching `selector`, and of the host's `--font-<name>` for comparison. */
export function fontOf(page: Page, selector: string, hostFont: string): Promise<{ ours: string; host: string }> {
  return page.evaluate(
    ([target, font]) => {
      const probe = document.createElement("span");
      probe.style.font = `var(--font-${font})`;
      document.body.append(probe);
      const host = getComputedStyle(probe);
      const ours = getComputedStyle(document.querySelector(target)!);
      const result = { ours: `${ours.fontWeight} ${ours.fontSize}`, host: `${host.fontWeight} ${host.fontSize}` };
      probe.remove();
      return result;
    },
    [selector, hostFont],
  );
}
