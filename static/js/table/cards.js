// Cards: "s1".."s10" are 小字 一…十, "b1".."b10" are 大字 壹…拾; 二七十 / 贰柒拾 are red.
// The hand arrangement helpers below are pure functions (no DOM): they take and return arrays.
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

/** A card as Chinese players say it, whatever the page's language: 小八, 大拾 (the spoken calls of
 * speech.js use it: their voice is a Chinese one). */
export function zhCardName(name) {
  const c = parseCard(name);
  return `${c.big ? "大" : "小"}${c.glyph}`;
}

/** What a player calls a card (its hover title): 小八, 大拾 on a Chinese page; "small 8", "big 10"
 * (RULES.md §12's words) on an English one. Never the notation "s8" (issue #46). */
export function cardName(name) {
  const c = parseCard(name);
  const zh = (document.documentElement.lang || "zh").toLowerCase().startsWith("zh");
  if (zh) return zhCardName(name);
  return `${c.big ? "big" : "small"} ${c.rank}`;
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
  el.title = cardName(name);
  return el;
}

const byRank = (a, b) => parseCard(a).rank - parseCard(b).rank || a.localeCompare(b);

function countsOf(cards) {
  const counts = new Map();
  for (const c of cards) counts.set(c, (counts.get(c) || 0) + 1);
  return counts;
}

/** The 坎 in ``cards`` (3 or 4 of one card): ``{kan: [[...]], rest: [...]}``. */
export function splitKan(cards) {
  const counts = countsOf(cards);
  const kan = [];
  const rest = [];
  for (const [card, n] of counts) {
    if (n >= 3) kan.push(Array(n).fill(card));
    else for (let i = 0; i < n; i++) rest.push(card);
  }
  kan.sort((a, b) => byRank(a[0], b[0]));
  return { kan, rest: rest.sort(byRank) };
}

/** Whether ``col`` is (part of) something that goes together: same rank (pair, 绞), a straight
 * sentence of one case, or 二七十 of one case. */
export function fits(col) {
  if (col.length <= 1) return true;
  const p = col.map(parseCard);
  if (p.every((c) => c.rank === p[0].rank)) return col.length <= 3;
  if (col.length > 3 || !p.every((c) => c.big === p[0].big)) return false;
  const ranks = p.map((c) => c.rank).sort((a, b) => a - b);
  if (new Set(ranks).size !== ranks.length) return false;
  if (ranks.every((r) => RED_RANKS.has(r))) return true;
  return ranks[ranks.length - 1] - ranks[0] <= 2;
}

/**
 * A greedy column suggestion for cards that are not 坎: sentences (二七十 first, then straights),
 * 绞 (一一壹), pairs, same-rank 一壹, two-card sentence starts, and the leftover singles in columns
 * of up to three, in rank order. Returns an array of columns (arrays of card names).
 */
export function suggestColumns(cards) {
  const counts = countsOf(cards);
  const cols = [];
  const take = (names) => {
    const need = countsOf(names);
    for (const [c, n] of need) if ((counts.get(c) || 0) < n) return false;
    for (const [c, n] of need) counts.set(c, counts.get(c) - n);
    cols.push(names.slice());
    return true;
  };
  const cases = ["s", "b"];
  for (const k of cases) while (take([`${k}2`, `${k}7`, `${k}10`]));
  for (const k of cases) for (let r = 1; r <= 8; r++) while (take([`${k}${r}`, `${k}${r + 1}`, `${k}${r + 2}`]));
  for (let r = 1; r <= 10; r++) {
    while (take([`s${r}`, `s${r}`, `b${r}`]));
    while (take([`b${r}`, `b${r}`, `s${r}`]));
  }
  for (const k of cases) for (let r = 1; r <= 10; r++) while (take([`${k}${r}`, `${k}${r}`]));
  for (let r = 1; r <= 10; r++) while (take([`s${r}`, `b${r}`]));
  for (const k of cases) {
    for (let r = 1; r <= 9; r++) while (take([`${k}${r}`, `${k}${r + 1}`]));
    for (let r = 1; r <= 8; r++) while (take([`${k}${r}`, `${k}${r + 2}`]));
    while (take([`${k}2`, `${k}7`]) || take([`${k}7`, `${k}10`]) || take([`${k}2`, `${k}10`]));
  }
  const singles = [];
  for (const [c, n] of counts) for (let i = 0; i < n; i++) singles.push(c);
  singles.sort(byRank);
  for (let i = 0; i < singles.length; i += 3) cols.push(singles.slice(i, i + 3));
  return cols.map((c) => c.sort(byRank));
}

/** Where a new card goes in ``cols`` (unlocked columns, changed in place): a short column it fits, else a new one. */
export function placeCard(cols, card) {
  const home = cols.find((c) => c.length < 3 && fits([...c, card]));
  if (home) home.push(card);
  else cols.push([card]);
  return cols;
}

/**
 * The hand in columns: each 坎 one locked column, the rest as in ``saved`` (the player's own
 * arrangement: unlocked columns as arrays of names) where those cards are still in the hand, cards
 * gone removed, new cards placed where they fit; with no ``saved``, the suggestion.
 * Returns ``[{cards, locked}]``.
 */
export function arrangeHand(cards, saved = null) {
  const { kan, rest } = splitKan(cards);
  let cols;
  if (Array.isArray(saved) && saved.length) {
    const left = countsOf(rest);
    cols = [];
    for (const col of saved) {
      if (!Array.isArray(col)) continue;
      const kept = col.filter((c) => {
        if ((left.get(c) || 0) < 1) return false;
        left.set(c, left.get(c) - 1);
        return true;
      });
      if (kept.length) cols.push(kept);
    }
    const extra = [];
    for (const [c, n] of left) for (let i = 0; i < n; i++) extra.push(c);
    extra.sort(byRank).forEach((c) => placeCard(cols, c));
  } else {
    cols = suggestColumns(rest);
  }
  return [...kan.map((k) => ({ cards: k, locked: true })), ...cols.map((c) => ({ cards: c, locked: false }))];
}

/** Move one card (column ``from``, position ``at``) to column ``to`` (an index, or -1 for a new
 * column at the end). ``cols`` are unlocked columns; returns a new array, empty columns dropped. */
export function moveCard(cols, from, at, to) {
  const next = cols.map((c) => c.slice());
  if (!next[from] || at < 0 || at >= next[from].length || from === to) return next;
  const [card] = next[from].splice(at, 1);
  if (to >= 0 && next[to]) next[to].push(card);
  else next.push([card]);
  return next.filter((c) => c.length);
}
