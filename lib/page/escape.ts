/** Text and attribute values for HTML: the five characters that could end or open markup, as references. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
