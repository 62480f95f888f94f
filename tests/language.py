"""What a page says, as a player reads it: the visible text of an HTML page (``VisibleText``) and
what is wrong with it for its language (``problems``): English words on a zh-hans page, raw keys,
``{``/``[`` values, ISO timestamps, bare ids, an ASCII colon after Chinese. The language walk
(tests/config/test_language_walk.py) and the pages' own tests use them."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# ASCII words a zh-hans page may show: file formats, units and names of things that have no
# Chinese name (the 回放码's letters are a code, not a word; they are in an <input>'s attribute).
ALLOWED = {"CSV", "JSON", "IP", "EN"}
# Words inside user-chosen names of this test's data (none: every name here is Chinese).

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]")
RAW_KEY = re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b")
ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
# An ASCII colon right after Chinese ("胡牌:"): a Chinese page writes "胡牌：" (issue #46).
ASCII_COLON = re.compile(r"[\u4e00-\u9fff）」》]:")
BARE_ID = re.compile(r"\b(?:member|user|table|hand|match|dispute|transaction)\s*#?\d+\b", re.I)


class VisibleText(HTMLParser):
    """The text a reader sees (no script, style, template or technical disclosure; no attributes),
    and the page's links."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool]] = []  # (tag, hidden)
        self.parts: list[str] = []
        self.links: list[str] = []

    def _hidden(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag in VOID:
            return
        classes = (attrs.get("class") or "").split()
        # A textarea's text is its value (what the user typed), as an input's value attribute is.
        hidden = (self._hidden() or tag in ("script", "style", "template", "textarea")
                  or (tag == "details" and "tech" in classes))
        self.stack.append((tag, hidden))

    def handle_startendtag(self, tag, attrs):
        if tag == "a" and dict(attrs).get("href"):
            self.links.append(dict(attrs)["href"])

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        if not self._hidden():
            self.parts.append(data)

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", " ".join(self.parts))


URL = re.compile(r"https?://\S+")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")
# Chinese an English page may show besides the data's own names and words: the rule terms of
# RULES.md §12 (given with their English names) and the language switch.
RULE_TERMS = {"上分", "下分", "下家", "吃", "碰", "胡", "胡息", "名堂", "荒庄", "定局积分", "打立出局", "淘汰赛", "中文"}


def problems(text: str, *, chinese: bool, names: tuple[str, ...] = (), data_words: frozenset = frozenset()) -> list[str]:
    """What is wrong with a page's visible text; links (an invite's, to copy) and ``names`` (the
    users' own login names, shown on their profile) are the users' data, not the site's words."""
    text = URL.sub(" ", text)
    for name in names:
        text = text.replace(name, " ")
    found = []
    if chinese:
        found += [f"English word {w!r}" for w in WORD.findall(text) if w not in ALLOWED]
        found += [f"bare id {m!r}" for m in BARE_ID.findall(text)]
        found += [f"ASCII colon {m!r}" for m in ASCII_COLON.findall(text)]
        # One word for the owner role: the club pages' 群主.
        found += ["圈主 (the owner is 群主)"] if "圈主" in text else []
    found += [f"raw key {k!r}" for k in RAW_KEY.findall(text)]
    found += [f"ISO time {t!r}" for t in ISO.findall(text)]
    if not chinese:
        found += [f"Chinese {w!r}" for w in CJK.findall(text) if w not in RULE_TERMS and w not in data_words]
    for ch in "{[":
        if ch in text:
            at = text.index(ch)
            found.append(f"{ch!r} value near {text[max(0, at - 30):at + 30]!r}")
    return found
