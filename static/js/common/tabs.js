// Tab bars (.tabs) that scroll sideways say so: data-more-left / data-more-right show a fade and
// an arrow at that edge (static/css/base.css), and the current tab is scrolled into view.
for (const tabs of document.querySelectorAll(".tabs")) {
  const mark = () => {
    const max = tabs.scrollWidth - tabs.clientWidth;
    tabs.toggleAttribute("data-more-left", max > 1 && tabs.scrollLeft > 1);
    tabs.toggleAttribute("data-more-right", max > 1 && tabs.scrollLeft < max - 1);
  };
  const current = tabs.querySelector("[aria-current='page']");
  const centre = () => {
    if (!current || tabs.scrollWidth <= tabs.clientWidth) return;
    const bar = tabs.getBoundingClientRect();
    const tab = current.getBoundingClientRect();
    tabs.scrollLeft += tab.left - bar.left - (bar.width - tab.width) / 2;
    mark();
  };
  centre();
  document.fonts.ready.then(centre);  // the tabs' widths change once the web fonts are in
  mark();
  tabs.addEventListener("scroll", mark, { passive: true });
  new ResizeObserver(mark).observe(tabs);
}
