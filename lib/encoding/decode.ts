import { isUtf8 } from "node:buffer";
import { detectCharset, type DetectedCharset } from "./charset.js";
import { decodeWindows1252 } from "./windows-1252.js";

/**
 * Turns fetched bytes into text.
 *
 * The encoding is the one `detectCharset` finds (BOM, then Content-Type,
 * then XML declaration, then HTML meta), with corrections learnt from real
 * feeds:
 *
 * - a declared legacy encoding (anything but UTF-8/16) is ignored when the
 *   bytes are valid UTF-8 and contain non-ASCII: servers and CMSs often
 *   label UTF-8 as ISO-8859-1, while legacy text is almost never valid
 *   UTF-8 by accident;
 * - a UTF-16 label on bytes that are not UTF-16 (no BOM, no NUL pattern) is
 *   ignored, since the document was transcoded after it was written;
 * - with no declaration at all, bytes that are not valid UTF-8 are read as
 *   windows-1252, the WHATWG fallback for undeclared legacy text. An
 *   explicit UTF-8 declaration is respected: invalid bytes become U+FFFD.
 *
 * Unknown labels fall back to UTF-8. This never throws. A leading BOM is
 * removed.
 */
export function decodeText(bytes: Uint8Array, contentType?: string | null): string {
  const detected = detectCharset(bytes, contentType);
  const body = bytes.subarray(detected?.skip ?? 0);
  const encoding = chooseEncoding(detected, body);
  const text = encoding === "windows-1252" ? decodeWindows1252(body) : new TextDecoder(encoding).decode(body);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The canonical WHATWG name for `label`, or "utf-8" when it is unknown. */
export function resolveEncoding(label: string): string {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return "utf-8";
  }
}

function chooseEncoding(detected: DetectedCharset | null, body: Uint8Array): string {
  if (!detected) return isUtf8(body) ? "utf-8" : "windows-1252";
  const declared = resolveEncoding(detected.label);
  if (detected.source === "bom" || detected.source === "utf16-pattern") return declared;
  if (declared.startsWith("utf-16")) return "utf-8";
  if (declared !== "utf-8" && hasNonAscii(body) && isUtf8(body)) return "utf-8";
  return declared;
}

function hasNonAscii(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte > 0x7f) return true;
  return false;
}
