"""No test module imports another test module: what tests share lives in a module that is not a test
module (tests/e2e/browser.py, tests/e2e/seeds.py, tests/tables/helpers.py, ...). Every .py file under
tests/ is read with ast, the helpers too (a helper importing a test module would bring it in all the
same), and every import statement in it counts, those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, dotted name) of every module the file imports; for ``from package import name`` also
    ``package.name`` when that is a module file (``from tests.e2e import test_table_play``)."""
    package = module_name(path).rsplit(".", 1)[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the file's package, one level up per extra dot
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            found.append((node.lineno, base))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                if (ROOT / Path(*candidate.split("."))).with_suffix(".py").is_file():
                    found.append((node.lineno, candidate))
    return found


def test_no_test_module_imports_another_test_module():
    offences = [f"{path.relative_to(ROOT)}:{line}: imports {name}"
                for path in sorted(TESTS.rglob("*.py"))
                for line, name in imported_modules(path)
                if name.rsplit(".", 1)[-1].startswith("test_")]
    assert not offences, "move the shared helper into a module that is not a test module:\n" + "\n".join(offences)
