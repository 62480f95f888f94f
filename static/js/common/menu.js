// The site menu (templates/base.html): on a phone the links and the 回放码 box fold behind the
// menu button; on wider screens they stay in the bar. Without this script the menu simply wraps.
// A classic script right after the header (not a deferred module), so the menu is folded before
// the page is first painted: no flash of the open menu, no jump of the page below it.
{
  const bar = document.querySelector(".topbar");
  const toggle = bar && bar.querySelector(".menu-toggle");
  const menu = toggle && document.getElementById(toggle.getAttribute("aria-controls"));
  if (menu) {
    const set = (open) => {
      toggle.setAttribute("aria-expanded", String(open));
      bar.toggleAttribute("data-menu-open", open);
    };
    bar.classList.add("has-menu");
    toggle.hidden = false;
    toggle.addEventListener("click", () => set(toggle.getAttribute("aria-expanded") !== "true"));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && bar.hasAttribute("data-menu-open")) {
        set(false);
        toggle.focus();
      }
    });
    document.addEventListener("click", (event) => {
      if (bar.hasAttribute("data-menu-open") && !bar.contains(event.target)) set(false);
    });
  }
}
