"""The project's books live in the repository (issue #42): the rule book, the engine's command-line
contract and the architecture are here, and stay identical to the team's shared copies.

The shared copies (``../shared/`` beside the checkout) are where the team edits a book first; when
they are present, a book here that differs is a failure that says which one to copy. Without them
(a clone on its own) the books here are the only ones, and the test checks only that they exist
and that the README points at each."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"

# The repository's book -> its name among the shared copies.
BOOKS = {
    "apps/engine/RULES.md": "RULES.md",
    "apps/engine/ENGINE_CLI.md": "ENGINE_CLI.md",
    "apps/ARCHITECTURE.md": "ARCHITECTURE.md",
    "apps/STYLE.md": "STYLE.md",
    "apps/UI.md": "UI.md",
}


@pytest.mark.parametrize("book", sorted(BOOKS))
def test_book_is_in_the_repository_and_the_readme_points_at_it(book):
    assert (ROOT / book).is_file(), f"{book} is missing"
    assert f"`{book}`" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("book", sorted(BOOKS))
def test_book_is_identical_to_the_shared_copy(book):
    shared = SHARED / BOOKS[book]
    if not shared.is_file():
        pytest.skip(f"no shared copy at {shared}")
    assert (ROOT / book).read_bytes() == shared.read_bytes(), (
        f"{book} differs from {shared}: copy the shared one (cp {shared} {book}) and read what changed"
    )


def test_the_seeds_the_rule_book_cites_are_here():
    seeds = sorted(p.name for p in (ROOT / "apps/engine/seeds").glob("*.txt"))
    assert seeds, "apps/engine/seeds/ holds the Chinese originals RULES.md cites"
    if (SHARED / "seeds").is_dir():
        assert seeds == sorted(p.name for p in (SHARED / "seeds").glob("*.txt"))
        for name in seeds:
            assert (ROOT / "apps/engine/seeds" / name).read_bytes() == (SHARED / "seeds" / name).read_bytes()
