"""The Binder badges, written from the one place that says where the repository lives.

Usage: python tools/binder_links.py [--write]
    without --write: print what is out of date (exit 1 if anything is)
    --write:         rewrite the badges

The repository's address is ``[project.urls] Repository`` in ``pyproject.toml`` (a GitHub URL):
**the one thing to set when the repository is published** (then run this with ``--write``). From it
come the badge at the top of the README (between its ``binder-badge`` markers, opening chapter 01)
and the badge under each chapter's title (opening that chapter); ``tools/make_mistakes_chapter.py``
puts chapter 08's there too.  ``tests/project/test_binder_links.py`` checks that every mybinder.org link in
the repository agrees with the address.
"""
from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path
from urllib.parse import quote

import nbformat

ROOT = Path(__file__).resolve().parent.parent
BADGE_IMAGE = "https://mybinder.org/badge_logo.svg"
BEGIN = "<!-- binder-badge: start (tools/binder_links.py writes this line from pyproject.toml's Repository URL) -->"
END = "<!-- binder-badge: end -->"
#: a badge line in a chapter's first cell
BADGE_LINE = re.compile(r"^\[!\[[^\]]*\]\(" + re.escape(BADGE_IMAGE) + r"\)\]\([^)]*\)$", re.M)


def repository(pyproject: Path = ROOT / "pyproject.toml") -> str:
    """'owner/name' from pyproject.toml's ``[project.urls] Repository`` (a github.com URL)."""
    url = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["urls"]["Repository"]
    found = re.fullmatch(r"https://github\.com/([^/\s]+/[^/\s]+?)(?:\.git)?/?", url)
    if not found:
        raise SystemExit(f"pyproject.toml: [project.urls] Repository = {url!r} is not https://github.com/OWNER/NAME")
    return found.group(1)


def launch_url(chapter: str, repo: str | None = None) -> str:
    """The mybinder.org URL that opens ``chapter`` (e.g. '01_how_autodiff_works.ipynb') in JupyterLab."""
    repo = repository() if repo is None else repo
    return f"https://mybinder.org/v2/gh/{repo}/HEAD?labpath={quote('chapters/' + chapter, safe='')}"


def badge(chapter: str, text: str = "Open this chapter on Binder", repo: str | None = None) -> str:
    return f"[![{text}]({BADGE_IMAGE})]({launch_url(chapter, repo)})"


def readme_badge(repo: str | None = None) -> str:
    return badge("01_how_autodiff_works.ipynb", "Launch the chapters on Binder", repo)


def with_badge(source: str, chapter: str, repo: str | None = None) -> str:
    """A chapter's first markdown cell with its badge as the line after the title (replaced if there)."""
    line = badge(chapter, repo=repo)
    if BADGE_LINE.search(source):
        return BADGE_LINE.sub(lambda _: line, source, count=1)
    title, _, rest = source.partition("\n")
    return f"{title}\n\n{line}\n{rest}" if rest else f"{title}\n\n{line}"


def _readme_text(text: str, repo: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{readme_badge(repo)}\n{END}{tail}"


def stale(write: bool = False) -> list[str]:
    """The files whose badges do not match the repository (rewritten when ``write``)."""
    repo = repository()
    found = []
    readme = ROOT / "README.md"
    text = readme.read_text(encoding="utf-8")
    if _readme_text(text, repo) != text:
        found.append("README.md")
        if write:
            readme.write_text(_readme_text(text, repo), encoding="utf-8")
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        first = nb.cells[0]
        new = with_badge(first.source, path.name, repo)
        if new != first.source:
            found.append(str(path.relative_to(ROOT)))
            if write:
                first.source = new
                nbformat.write(nb, path)
    return found


def main(argv: list[str]) -> int:
    write = "--write" in argv
    found = stale(write)
    if write:
        print(f"Binder badges for {repository()}: " + (f"rewrote {', '.join(found)}" if found else "all up to date"))
        return 0
    if found:
        print(f"out of date (run python tools/binder_links.py --write): {', '.join(found)}")
        return 1
    print(f"Binder badges for {repository()}: all up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
