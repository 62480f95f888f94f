// DOM helpers the pages' modules share.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** The value a template handed over with ``json_script`` under this id. */
export const jsonScript = (id) => JSON.parse($(id).textContent);

/**
 * A new element with a class name and children: a string or number becomes text, a node is
 * appended as it is, and "", null, undefined and false add nothing.
 */
export function h(tag, cls = "", ...children) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  for (const c of children) {
    if (c !== "" && c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c));
  }
  return el;
}
