"""Evaluates feedparser's `Expect:` expressions against this project's parse results.

Reads from stdin the JSON list written by bench/feedparser-suite.ts: for each
case its file and either `parsed` (parseFeed's output) or `error`. The output
is mapped onto the keys feedparser's expressions use; a key with no
counterpart here raises NotApplicable and the case is left out of the rate.

The product keeps plain-text titles and summaries and sanitised HTML content
with its own allow-list, so text and HTML values compare by what a reader
sees: the literal value, or the expected markup's text, and for HTML also
every absolute link or image address the expected markup holds.
"""

import builtins
import datetime
import html
import json
import re
import sys
import time
import urllib.parse
from html.parser import HTMLParser

VERBOSE = "--verbose" in sys.argv
DESC_RE = re.compile(r"Description:\s*(.*?)\s*Expect:\s*(.*)\s*-->")
SKIP_RE = re.compile(r"SkipUnless:\s*(.*?)\n")


class NotApplicable(Exception):
    pass


# Cases whose expectation the product departs from by design, each with why. They are counted apart
# (printed with --verbose) rather than in the rate, whatever the product gives for them.
BY_DESIGN = [
    (re.compile(r"(^|/)cdf/|/cdf_"), "CDF, Microsoft's 1997 Channel Definition Format, is not read"),
    (re.compile(r"_crazy\.xml$"), "feedparser keeps script text and comments; the sanitiser drops scripts with their text, and comments"),
    (re.compile(r"namespace/.*(mathml|svg)"), "MathML and SVG are dropped whole by the sanitiser"),
]


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.urls = []

    def handle_data(self, data):
        self.parts.append(data)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value and re.match(r"https?:", value):
                self.urls.append(value)


def collapse(text):
    return re.sub(r"\s+", " ", text).strip()


def read_markup(value):
    parser = _Text()
    parser.feed(value)
    parser.close()
    return collapse("".join(parser.parts)), parser.urls


class Text(str):
    """A plain-text field: equal to the expected value as written, or to its text when it is markup."""

    def __eq__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        mine = collapse(str(self))
        return mine == collapse(other) or mine == read_markup(other)[0]

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = str.__hash__


class Person(Text):
    """An author: the product keeps the name, so "name (email)" and "email (name)" expect just the name."""

    def __eq__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        if Text.__eq__(self, other):
            return True
        match = re.fullmatch(r"\s*(.+?)\s*\((.+?)\)\s*", other)
        return bool(match) and collapse(str(self)) in (match.group(1), match.group(2))

    __hash__ = str.__hash__


class Html(str):
    """An HTML field (content, or summary with content behind it): same text and the same absolute URLs."""

    def __new__(cls, content, summary):
        value = str.__new__(cls, content or "")
        value.summary = summary or ""
        return value

    def __eq__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        text, urls = read_markup(other)
        mine_text, mine_urls = read_markup(str(self))
        summary = collapse(self.summary)
        same_text = text == mine_text or collapse(other) == mine_text or text == summary or (summary.endswith("…") and text.startswith(summary[:-1].rstrip()))
        mine_keys = {url_key(url) for url in mine_urls}
        return same_text and all(url_key(url) in mine_keys for url in urls)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = str.__hash__


def url_key(value):
    """A URL as compared: scheme and host case and percent-encoding do not matter."""
    # A plain str: urlsplit caches by argument, and comparing a Url key there would call Url.__eq__ again.
    parts = urllib.parse.urlsplit(urllib.parse.unquote(str(value)))
    return parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()).geturl()


class Url(str):
    def __eq__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        return url_key(str(self)) == url_key(other)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = str.__hash__


class Node(dict):
    """A feedparser-like dict whose keys without a counterpart here are not applicable."""

    def __init__(self, known, values):
        super().__init__({k: v for k, v in values.items() if v is not None})
        self.known = set(known)

    def __getitem__(self, key):
        if key not in self.known:
            raise NotApplicable(key)
        return super().__getitem__(key)

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key)

    def __contains__(self, key):
        if key not in self.known:
            raise NotApplicable(key)
        return super().__contains__(key)

    def get(self, key, default=None):
        if key not in self.known:
            raise NotApplicable(key)
        return super().get(key, default)

    def __eq__(self, other):
        if isinstance(other, dict):
            raise NotApplicable("whole dict")
        return NotImplemented

    __hash__ = None


def detail(value):
    return Node(["value"], {"value": value}) if value is not None else None


def date_tuple(value):
    if not value:
        return None
    parsed = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return time.gmtime(parsed.timestamp())


def feed_node(feed):
    # A text field with nothing left (markup only) is missing here: it reads as "".
    title = Text(feed.get("title") or "")
    description = Text(feed.get("description") or "")
    photo = feed.get("photo")
    author = Person(feed["author"]) if feed.get("author") else None
    values = {
        "title": title, "title_detail": detail(title),
        "subtitle": description, "subtitle_detail": detail(description),
        "tagline": description, "tagline_detail": detail(description),
        "description": description, "description_detail": detail(description),
        "link": Url(feed["siteUrl"]) if feed.get("siteUrl") else None,
        "image": Node(["href", "url"], {"href": Url(photo), "url": Url(photo)}) if photo else None,
        "logo": Url(photo) if photo else None, "icon": Url(photo) if photo else None,
        "author": author, "author_detail": Node(["name"], {"name": author}) if author else None,
        "language": feed.get("language"),
    }
    return Node(values.keys(), values)


def entry_node(item):
    title = Text(item.get("title") or "")
    content = item.get("content")
    summary = item.get("summary")
    # An empty HTML value is a missing one here (nothing left after sanitising): both read as "".
    described = Html(content, summary)
    author = Person(item["author"]) if item.get("author") else None
    uid = item.get("uid")
    uid = uid if uid and not uid.startswith("sha256:") else None
    published = date_tuple(item.get("published"))
    categories = item.get("categories") or []
    photo = Url(item["photo"]) if item.get("photo") else None
    values = {
        "title": title, "title_detail": detail(title),
        "link": Url(item["url"]) if item.get("url") else None,
        "id": uid, "guid": uid,
        "summary": described, "description": described, "summary_detail": detail(described),
        "content": [Node(["value"], {"value": described})],
        "published_parsed": published, "updated_parsed": published, "created_parsed": published,
        "issued_parsed": published, "modified_parsed": published, "date_parsed": published,
        "author": author, "author_detail": Node(["name"], {"name": author}) if author else None,
        "tags": [Node(["term"], {"term": Text(term)}) for term in categories] or None,
        "category": Text(categories[0]) if categories else None,
        "image": Node(["href"], {"href": photo}) if photo else None,
        "media_thumbnail": [Node(["url"], {"url": photo})] if photo else None,
    }
    return Node(values.keys(), values)


class Names(dict):
    """Expression variables: bozo, feed, entries; builtins; anything else is not applicable."""

    def __missing__(self, key):
        if key == "datetime":
            return datetime
        if hasattr(builtins, key):
            raise KeyError(key)
        raise NotApplicable(key)


def read_case_text(path):
    with open(path, "rb") as handle:
        data = handle.read()
    for bom, codec in ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be")):
        if data.startswith(bom):
            return data[len(bom):].decode(codec, errors="ignore")
    for probe, codec in ((b"\x00\x3c\x00\x3f", "utf-16-be"), (b"\x3c\x00\x3f\x00", "utf-16-le")):
        if data.startswith(probe):
            return data.decode(codec, errors="ignore")
    return data.decode("utf-8", errors="ignore")


def main():
    cases = json.load(sys.stdin)
    passed, failed, not_applicable, by_design = [], [], [], []
    for case in cases:
        text = read_case_text(case["file"])
        if SKIP_RE.search(text):
            not_applicable.append((case["name"], "SkipUnless"))
            continue
        match = DESC_RE.search(text)
        if not match:
            not_applicable.append((case["name"], "no Expect"))
            continue
        description, expression = match.group(1), match.group(2).strip()
        design = next((why for pattern, why in BY_DESIGN if pattern.search(case["name"])), None)
        if design:
            by_design.append((case["name"], design))
            continue
        parsed = case.get("parsed")
        names = Names(
            bozo=parsed is None,
            feed=feed_node(parsed["feed"]) if parsed else Node([], {}),
            entries=[entry_node(item) for item in parsed["items"]] if parsed else [],
        )
        try:
            ok = bool(eval(expression, {"__builtins__": builtins}, names))
        except NotApplicable as reason:
            not_applicable.append((case["name"], f"needs {reason}"))
            continue
        except Exception as error:  # a missing key or entry is a failure like any other
            ok = False
            case.setdefault("error", f"{type(error).__name__}: {error}")
        (passed if ok else failed).append(case["name"])
        if not ok and VERBOSE:
            print(f"FAIL {case['name']}: {description}\n     {expression}")
            if case.get("error"):
                print(f"     error: {case['error']}")
            elif parsed:
                print(f"     ours: feed={json.dumps(parsed['feed'], ensure_ascii=False)[:400]}")
                for item in parsed["items"][:2]:
                    print(f"           item={json.dumps(item, ensure_ascii=False)[:600]}")
    applicable = len(passed) + len(failed)
    rate = 100 * len(passed) / applicable if applicable else 0
    print(f"feedparser suite: {len(passed)} of {applicable} applicable cases pass ({rate:.1f} %); "
          f"{len(not_applicable)} not applicable, {len(by_design)} different by design, {len(cases)} read")
    reasons = {}
    for name, why in by_design:
        reasons.setdefault(why, []).append(name)
    for why, names in reasons.items():
        print(f"  by design ({len(names)}): {why}" + ("".join(f"\n    {name}" for name in names) if VERBOSE else ""))
    folders = {}
    for name in passed:
        folders.setdefault(name.split("/")[1], [0, 0])[0] += 1
    for name in failed:
        folders.setdefault(name.split("/")[1], [0, 0])[1] += 1
    for folder, (ok, bad) in sorted(folders.items()):
        print(f"  {folder:16} {ok:4} pass {bad:4} fail")


main()
