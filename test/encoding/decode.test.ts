import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { decodeText, resolveEncoding } from "../../lib/encoding/decode.js";
import { detectCharset, charsetFromContentType } from "../../lib/encoding/charset.js";

const MINIFLUX = "/work/shared/corpora/miniflux";
const FEEDPARSER = "/work/shared/corpora/node-feedparser";
const read = (path: string) => new Uint8Array(readFileSync(path));

describe("decodeText on the Miniflux encoding corpus", () => {
  const cases: Array<[file: string, contentType: string | null, expected: string[]]> = [
    ["encoding__iso-8859-1.xml", null, ["<title>Café</title>", "Présentation"]],
    ["encoding__iso-8859-1.html", null, ["Frédéric", "Café"]],
    // The meta is past the 1024-byte prescan: undeclared, invalid UTF-8 → windows-1252.
    ["encoding__iso-8859-1-meta-after-1024.html", null, ["Frédéric", "Café"]],
    ["encoding__utf8-meta-after-1024.html", null, ["Frédéric", "Café"]],
    ["encoding__utf8.html", null, ["<title>Café</title>"]],
    ["encoding__utf8.xml", null, ["테스트 피드", "Café"]],
    [
      "encoding__koi8r.xml",
      null,
      ["Пример RSS ленты", "Первая новость", "Привет мир! Ёжик, чай, Москва, Санкт-Петербург."],
    ],
    ["xml__koi8r.xml", null, ["Тестовая лента в кодировке KOI8-R", "Проверка специальных символов"]],
    ["encoding__windows-1252.xml", null, ["Euro €"]],
    // Wrong prologs: the bytes are valid UTF-8, the declaration lies.
    ["encoding__windows-1252-incorrect-prolog.xml", null, ["Euro €"]],
    ["encoding__utf8-incorrect-prolog.xml", null, ["테스트 피드", "Café"]],
    // Unknown label falls back to UTF-8.
    ["encoding__invalid-prolog.xml", null, ["테스트 피드", "Café"]],
    ["xml__iso88591.xml", null, ["Anaïs", "Jürgen"]],
    ["parser__encoding_WINDOWS-1251.xml", "text/xml", ["Цитата #17703"]],
    [
      "parser__no_encoding_ISO-8859-1.xml",
      "application/xml; charset=ISO-8859-1",
      ["La criminalité liée surtout à... l'ennui ?"],
    ],
    // Same file without the header: undeclared and not UTF-8 → windows-1252.
    ["parser__no_encoding_ISO-8859-1.xml", null, ["La criminalité liée surtout à... l'ennui ?"]],
    [
      "parser__encoding_ISO-8859-1.xml",
      "application/rss+xml; charset=ISO-8859-1",
      ["Projekt Jedi: Microsoft will weiter mit US-Militär zusammenarbeiten"],
    ],
    ["parser__rdf_UTF8.xml", "application/rss+xml", ["Mega-Deal: IBM übernimmt Red Hat"]],
  ];
  for (const [file, contentType, expected] of cases) {
    it(`${file}${contentType ? ` with ${contentType}` : ""}`, () => {
      const text = decodeText(read(`${MINIFLUX}/${file}`), contentType);
      for (const needle of expected) assert.ok(text.includes(needle), `expected ${JSON.stringify(needle)}`);
      assert.ok(!text.includes("\uFFFD"), "no replacement characters");
    });
  }

  it("keeps an explicit UTF-8 declaration and replaces the invalid bytes", () => {
    const text = decodeText(read(`${MINIFLUX}/xml__iso88591_utf8_mismatch.xml`));
    assert.ok(text.includes("<to>Ana\uFFFDs</to>"));
    assert.ok(text.includes("<from>J\uFFFDrgen</from>"));
  });
});

describe("decodeText on node-feedparser's iconv.xml (windows-1251)", () => {
  it("decodes the Cyrillic titles", () => {
    const text = decodeText(read(`${FEEDPARSER}/iconv.xml`));
    assert.ok(text.includes("<title>Новости Оренбурга и области / Раздел Новости</title>"));
    assert.ok(!text.includes("\uFFFD"));
  });
});

describe("charset detection order", () => {
  const utf8 = (s: string) => new TextEncoder().encode(s);

  it("prefers the Content-Type charset over the XML declaration", () => {
    const bytes = Uint8Array.from([...utf8('<?xml version="1.0" encoding="utf-8"?><t>'), 0xe9, ...utf8("</t>")]);
    assert.equal(decodeText(bytes, "text/xml; charset=iso-8859-1"), '<?xml version="1.0" encoding="utf-8"?><t>é</t>');
    assert.equal(detectCharset(bytes, "text/xml; charset=iso-8859-1")?.source, "content-type");
  });

  it("lets a BOM win over every label and removes it", () => {
    const bytes = Uint8Array.from([0xef, 0xbb, 0xbf, ...utf8("<rss>Café</rss>")]);
    assert.equal(decodeText(bytes, "text/xml; charset=windows-1251"), "<rss>Café</rss>");
  });

  it("decodes UTF-16 with a BOM (LE and BE) and without one", () => {
    const text = '<?xml version="1.0" encoding="utf-16"?><rss>Grüße</rss>';
    const le = new Uint8Array(text.length * 2);
    const be = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      le[2 * i] = code & 0xff;
      le[2 * i + 1] = code >> 8;
      be[2 * i] = code >> 8;
      be[2 * i + 1] = code & 0xff;
    }
    assert.equal(decodeText(Uint8Array.from([0xff, 0xfe, ...le])), text);
    assert.equal(decodeText(Uint8Array.from([0xfe, 0xff, ...be])), text);
    assert.equal(decodeText(le), text);
    assert.equal(decodeText(be), text);
  });

  it("ignores a UTF-16 label on single-byte text", () => {
    assert.equal(
      decodeText(utf8('<?xml version="1.0" encoding="UTF-16"?><rss>ü</rss>')),
      '<?xml version="1.0" encoding="UTF-16"?><rss>ü</rss>',
    );
  });

  it("reads http-equiv meta declarations", () => {
    const bytes = Uint8Array.from([
      ...utf8('<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head><p>'),
      0xcf,
      0xf0,
      0xe8,
      0xe2,
      0xe5,
      0xf2,
      ...utf8("</p>"),
    ]);
    assert.ok(decodeText(bytes).includes("<p>Привет</p>"));
  });

  it("decodes Shift_JIS declared in the XML prolog", () => {
    const bytes = Uint8Array.from([
      ...utf8('<?xml version="1.0" encoding="Shift_JIS"?><t>'),
      0x82,
      0xa0,
      ...utf8("</t>"),
    ]);
    assert.ok(decodeText(bytes).includes("<t>あ</t>"));
  });

  it("never throws on garbage and replaces invalid UTF-8", () => {
    assert.equal(decodeText(Uint8Array.from([0x41, 0xc0, 0xaf, 0x42]), "text/plain; charset=utf-8"), "A\uFFFD\uFFFDB");
    assert.equal(decodeText(new Uint8Array()), "");
  });

  it("parses Content-Type charset parameters", () => {
    assert.equal(charsetFromContentType('application/rss+xml; charset="ISO-8859-1"'), "ISO-8859-1");
    assert.equal(charsetFromContentType("text/xml;charset=utf-8;foo=bar"), "utf-8");
    assert.equal(charsetFromContentType("text/xml"), null);
    assert.equal(charsetFromContentType(null), null);
  });

  it("maps unknown labels to UTF-8", () => {
    assert.equal(resolveEncoding("no-such-charset"), "utf-8");
    assert.equal(resolveEncoding("latin1"), "windows-1252");
    assert.equal(resolveEncoding("KOI8-R"), "koi8-r");
  });
});
