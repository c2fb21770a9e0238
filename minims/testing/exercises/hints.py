"""Help in two steps: a hint first, the worked answer only when asked for.

The first "not solved yet" shows the exercise's hint, which says what to look at, not what to write.
``hint("10.1")`` shows it again; ``hint("10.1", answer=True)`` shows a worked answer: the
exercise's explanation (:attr:`Exercise.worked`, when it has one) and the model solution's code, read
from the repository's ``chapters/solutions/chNN.py`` (the object the module's ``SOLUTIONS`` dict names
for the exercise, or :attr:`Exercise.solution`).  The file is read, never imported: showing an
answer runs nothing.
"""
from __future__ import annotations

import ast
from pathlib import Path

__all__ = ["SOLUTIONS_DIR", "ask_for_more", "hint_text", "solution_source", "worked_text"]

#: chapters/solutions of the checkout minims is imported from (absent in an installed wheel)
SOLUTIONS_DIR = Path(__file__).resolve().parents[3] / "chapters" / "solutions"


def _solutions_file(ex) -> Path:
    return SOLUTIONS_DIR / f"ch{int(ex.id.split('.')[0]):02d}.py"


def _solution_name(tree: ast.Module, ex) -> str | None:
    """The name ``SOLUTIONS = {"1.1": Softplus, ...}`` gives the exercise (or ``ex.solution``)."""
    if ex.solution:
        return ex.solution
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SOLUTIONS" for t in node.targets)
                and isinstance(node.value, ast.Dict)):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and key.value == ex.id and isinstance(value, ast.Name):
                    return value.id
    return None


def solution_source(ex) -> tuple[str, str] | None:
    """(the file, relative to the repository, and the code of the model solution), or None."""
    path = _solutions_file(ex)
    if not path.is_file():
        return None
    text = path.read_text()
    tree = ast.parse(text)
    name = _solution_name(tree, ex)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == name:
            return f"chapters/solutions/{path.name}", ast.get_source_segment(text, node)
    return None


def ask_for_more(ex) -> str:
    """The line that says how to get more help."""
    return f'  Still stuck? hint("{ex.id}", answer=True) shows a worked answer.'


def hint_text(ex) -> str:
    """What ``hint(id)`` prints: the hint, then how to get the worked answer."""
    return f"Exercise {ex.id} ({ex.title}): a hint.\n  Hint: {ex.hint}\n{ask_for_more(ex)}"


def worked_text(ex) -> tuple[str, str]:
    """(the prose of the worked answer, the code to show under it, unwrapped)."""
    head = f"Exercise {ex.id} ({ex.title}): a worked answer."
    if ex.worked:
        head += f"\n  {ex.worked}"
    found = solution_source(ex)
    where = f"chapters/solutions/ch{int(ex.id.split('.')[0]):02d}.py"
    if found is None:
        return head + f"\n  The model solution is in {where} of minims' repository.", ""
    path, code = found
    code = "\n".join("    " + line if line else "" for line in code.splitlines())
    return head + f"\n  The model solution, from {path}:", code
