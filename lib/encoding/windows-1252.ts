/**
 * windows-1252 decoding. Node 20's `TextDecoder("windows-1252")` decodes
 * bytes 0x80-0x9F as C1 control characters (ISO-8859-1 behaviour) instead of
 * the WHATWG mapping (0x80 is "€", 0x93 is "“"), and WHATWG maps every
 * ISO-8859-1 label to windows-1252, so this covers both.
 */

/** Code points for bytes 0x80-0x9F; the five undefined bytes keep their value. */
const HIGH_CONTROL_MAP = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d, 0x017d,
  0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d,
  0x017e, 0x0178,
];

/** Decodes windows-1252 bytes; every byte maps to one character. */
export function decodeWindows1252(bytes: Uint8Array): string {
  const chunks: string[] = [];
  const CHUNK = 8192;
  for (let start = 0; start < bytes.length; start += CHUNK) {
    const slice = bytes.subarray(start, start + CHUNK);
    const codes = new Array<number>(slice.length);
    for (let i = 0; i < slice.length; i++) {
      const byte = slice[i];
      codes[i] = byte >= 0x80 && byte <= 0x9f ? HIGH_CONTROL_MAP[byte - 0x80] : byte;
    }
    chunks.push(String.fromCharCode(...codes));
  }
  return chunks.join("");
}
