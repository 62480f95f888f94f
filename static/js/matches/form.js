// Match form: show only the settings of the chosen format and prize kind.
// <fieldset data-when="format:fixed knockout"> is shown while the select named "format" has one of
// the listed values; fields stay in the form (the server ignores settings of other formats).

function update(form) {
  form.querySelectorAll("[data-when]").forEach((box) => {
    const [name, values] = box.dataset.when.split(":");
    const input = form.elements[name];
    const value = input && (input.value ?? "");
    box.hidden = !values.split(" ").includes(value);
  });
}

document.querySelectorAll("form.match-form").forEach((form) => {
  form.addEventListener("change", () => update(form));
  update(form);
});
