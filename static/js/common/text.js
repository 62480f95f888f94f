// Text helpers for the strings the server translates and hands to the pages as JSON.

/**
 * A translated string with its ``%(name)s`` slots filled, the placeholders of Django's gettext
 * strings (a slot with no value becomes empty): ``fmt("Bot %(n)s", { n: 2 })`` is "Bot 2".
 */
export function fmt(s, vars) {
  return s.replace(/%\((\w+)\)s/g, (_, k) => String(vars[k] ?? ""));
}
