/**
 * Finds which character encoding a byte stream declares. Detection order
 * (first hit wins):
 *
 *   1. a byte-order mark (UTF-8, UTF-16LE, UTF-16BE): bytes cannot lie about
 *      themselves, so a BOM beats every label (the WHATWG rule);
 *   2. the `charset` parameter of the HTTP Content-Type;
 *   3. the XML declaration (`<?xml ... encoding="..."?>`);
 *   4. an HTML `<meta charset>` or `<meta http-equiv="Content-Type">` in the
 *      first 1024 bytes;
 *   5. UTF-16 without a BOM, recognised by `<?` spelled with NUL bytes.
 *
 * The label is returned as found; mapping it to a decoder (and falling back
 * when it is unknown or wrong) is `decodeText`'s job.
 */

/** Where the chosen encoding label came from. */
export type CharsetSource = "bom" | "content-type" | "xml-declaration" | "html-meta" | "utf16-pattern";

export interface DetectedCharset {
  label: string;
  source: CharsetSource;
  /** Bytes to skip before decoding (the BOM). */
  skip: number;
}

/** How many leading bytes are searched for declarations. */
const PRESCAN_BYTES = 1024;

/** The encoding a BOM at the start of `bytes` announces, if any. */
export function detectBom(bytes: Uint8Array): DetectedCharset | null {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { label: "utf-8", source: "bom", skip: 3 };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { label: "utf-16le", source: "bom", skip: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { label: "utf-16be", source: "bom", skip: 2 };
  return null;
}

/** The `charset` parameter of a Content-Type header value, or null. */
export function charsetFromContentType(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  const label = (match?.[1] ?? match?.[2] ?? "").trim();
  return label || null;
}

/** The `encoding` pseudo-attribute of a leading XML declaration, or null. */
export function charsetFromXmlDeclaration(head: string): string | null {
  const match = /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([^"']*)["']/.exec(head);
  const label = match?.[1]?.trim();
  return label || null;
}

/** The charset an HTML `<meta>` element declares, or null. */
export function charsetFromHtmlMeta(head: string): string | null {
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([^"'\s/>;]+)/i.exec(tag);
    if (direct) return direct[1];
  }
  return null;
}

/**
 * Reads the declared encoding of `bytes`; see the module comment for the
 * order. Returns null when nothing is declared.
 */
export function detectCharset(bytes: Uint8Array, contentType?: string | null): DetectedCharset | null {
  const bom = detectBom(bytes);
  if (bom) return bom;

  const fromHeader = charsetFromContentType(contentType);
  if (fromHeader) return { label: fromHeader, source: "content-type", skip: 0 };

  // Declarations are ASCII in every ASCII-compatible encoding, so reading
  // the prefix as Latin-1 is enough to find them.
  const head = latin1(bytes.subarray(0, PRESCAN_BYTES));
  const fromXml = charsetFromXmlDeclaration(head);
  if (fromXml) return { label: fromXml, source: "xml-declaration", skip: 0 };

  const fromMeta = charsetFromHtmlMeta(head);
  if (fromMeta) return { label: fromMeta, source: "html-meta", skip: 0 };

  // XML spec appendix F: "<?" as UTF-16 code units without a BOM.
  if (bytes[0] === 0x3c && bytes[1] === 0x00 && bytes[2] === 0x3f && bytes[3] === 0x00) {
    return { label: "utf-16le", source: "utf16-pattern", skip: 0 };
  }
  if (bytes[0] === 0x00 && bytes[1] === 0x3c && bytes[2] === 0x00 && bytes[3] === 0x3f) {
    return { label: "utf-16be", source: "utf16-pattern", skip: 0 };
  }
  return null;
}

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
}
