// Cards: "s1".."s10" are 小字 一…十, "b1".."b10" are 大字 壹…拾; 二七十 / 贰柒拾 are red.
const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";
const RED_RANKS = new Set([2, 7, 10]);

export function parseCard(name) {
  const big = name[0] === "b";
  const rank = Number(name.slice(1));
  return { big, rank, red: RED_RANKS.has(rank), glyph: (big ? BIG : SMALL)[rank - 1] };
}

export function cardText(name) {
  return name ? parseCard(name).glyph : "";
}

/** A card tile; ``name`` null draws a face-down card. */
export function cardEl(name, { size = "", extra = "" } = {}) {
  const el = document.createElement("span");
  el.className = `card ${size} ${extra}`.trim();
  if (!name) {
    el.classList.add("back");
    el.setAttribute("aria-label", "?");
    return el;
  }
  const c = parseCard(name);
  el.classList.add(c.big ? "big" : "small", c.red ? "red" : "black");
  el.dataset.card = name;
  el.textContent = c.glyph;
  el.title = name;
  return el;
}

/** Arrange hand cards into columns: each 坎 (three of a kind) locked, the rest by rank. */
export function handColumns(cards) {
  const counts = new Map();
  for (const c of cards) counts.set(c, (counts.get(c) || 0) + 1);
  const columns = [];
  const rest = [];
  for (const [card, n] of counts) {
    if (n >= 3) columns.push({ cards: Array(n).fill(card), locked: true });
    else for (let i = 0; i < n; i++) rest.push(card);
  }
  const byRank = new Map();
  for (const c of rest) {
    const r = parseCard(c).rank;
    if (!byRank.has(r)) byRank.set(r, []);
    byRank.get(r).push(c);
  }
  const order = (a, b) => a.localeCompare(b, "en", { numeric: true });
  [...byRank.keys()].sort((a, b) => a - b).forEach((r) => columns.push({ cards: byRank.get(r).sort(order), locked: false }));
  columns.sort((a, b) => (a.locked === b.locked ? parseCard(a.cards[0]).rank - parseCard(b.cards[0]).rank : a.locked ? -1 : 1));
  return columns;
}
