"""The engine must stay pure: no web, database or UI library, no server or client code."""

from __future__ import annotations

import ast
from pathlib import Path

import engine

FORBIDDEN = {"fastapi", "sqlmodel", "sqlalchemy", "textual", "server", "tui_client", "httpx",
             "requests", "uvicorn", "alembic", "psycopg", "starlette", "typer", "rich", "cli"}
ENGINE_DIR = Path(engine.__file__).parent


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_engine_imports_no_web_database_or_ui_library() -> None:
    files = sorted(ENGINE_DIR.rglob("*.py"))
    assert len(files) > 5
    offenders = {str(f.relative_to(ENGINE_DIR)): sorted(imported_roots(f) & FORBIDDEN) for f in files}
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}


def test_the_purity_check_would_catch_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from fastapi import FastAPI\nimport sqlmodel.main\n")
    assert imported_roots(bad) & FORBIDDEN == {"fastapi", "sqlmodel"}
