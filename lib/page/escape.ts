/** Text and attribute values for HTML: the five characters that could end or open markup, as references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Only absolute http(s) addresses become links or images: a feed's `javascript:` URL stays text. */
export function httpUrl(value: string | null | undefined): string | null {
  if (!value || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}
