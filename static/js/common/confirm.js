// Ask before destructive POSTs: <form data-confirm="message"> is submitted only when confirmed.
document.addEventListener("submit", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
    event.preventDefault();
  }
});

// Copy buttons: <button data-copy="text">.
document.addEventListener("click", async (event) => {
  const button = event.target.closest("[data-copy]");
  if (!button) return;
  try {
    await navigator.clipboard.writeText(button.dataset.copy);
    button.dataset.copied = "1";
    setTimeout(() => delete button.dataset.copied, 1500);
  } catch {
    window.prompt("", button.dataset.copy);
  }
});
