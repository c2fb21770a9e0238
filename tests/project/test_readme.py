"""Issue 27, item 1 ("a README for learners"): the README starts a learner at chapter 01, and the
maintainers' material lives in CONTRIBUTING.md and docs/, where its tools and tests find it.

* the README's first 60 lines link chapter 01 as the place to start and link every chapter;
* its table gives each chapter the minutes ``tools/chapter_minutes.py`` estimates;
* its set-up commands (``make lab``, ``make test``) exist, and ``.ci/run`` runs the same ``make test``;
* the accuracy and benchmark tables sit, with their markers, in docs/accuracy.md and docs/benchmarks.md,
  which ``python -m minims.testing.accuracy --write`` and ``benchmarks/readme_table.py`` write;
* every relative link of the README, CONTRIBUTING.md, docs/ and chapters/README.md points at a file.
"""
import importlib.util
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_first_60_lines_start_at_chapter_01_and_link_every_chapter():
    """Item 1: the chapter list used to start at line 435 of 467, after the maintainers' material."""
    head = "\n".join(README.splitlines()[:60])
    start = head.split("## Start here", 1)[1].split("\n## ", 1)[0]
    assert "(chapters/01_how_autodiff_works.ipynb)" in start and "chapter 01" in start
    linked = set(re.findall(r"\]\(chapters/([^)]+\.ipynb)\)", head))
    assert linked == {path.name for path in CHAPTERS}
    for words in ("Python", "NumPy", "calculus", "make lab", "make test", "Binder"):
        assert words in head, words


def test_the_minutes_are_those_the_estimate_gives():
    """Item 1: each chapter's minutes in the README are ``tools/chapter_minutes.py``'s estimate (its
    docstring says how it counts), so that they follow the chapters when they change."""
    minutes = tool("chapter_minutes")
    rows = dict(re.findall(r"^\| \S+ \| \[[^\]]+\]\(chapters/([^)]+\.ipynb)\) \| .* \| (\d+) \|$", README, re.M))
    assert set(rows) == {path.name for path in CHAPTERS}
    for path in CHAPTERS:
        assert int(rows[path.name]) == minutes.chapter_minutes(path), path.name


def test_the_set_up_commands_are_true():
    """Item 1: the README's two commands are Makefile targets, and CI runs the same ``make test``."""
    assert "`make lab`" in README and "`make test`" in README
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^lab: ", makefile, re.M) and re.search(r"^test: ", makefile, re.M)
    assert 'step "make test" bash -o pipefail -c "make test' in (ROOT / ".ci" / "run").read_text()


def test_the_generated_tables_moved_to_docs_with_their_markers():
    """Item 1: the 150-line accuracy table and the benchmark table left the README for docs/, each with
    the markers its tool writes between, and the tools write there."""
    from minims.testing.accuracy import report
    accuracy = (ROOT / "docs" / "accuracy.md").read_text(encoding="utf-8")
    benchmarks = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks import readme_table
    finally:
        sys.path.remove(str(ROOT))
    assert report.BEGIN in accuracy and report.END in accuracy
    assert readme_table.START in benchmarks and readme_table.END in benchmarks
    for marker in (report.BEGIN, report.END, readme_table.START, readme_table.END):
        assert marker not in README
    assert readme_table.DOC == ROOT / "docs" / "benchmarks.md"
    main = (ROOT / "minims" / "testing" / "accuracy" / "__main__.py").read_text()
    assert 'default=ROOT / "docs" / "accuracy.md"' in main


def test_every_relative_link_points_at_a_file():
    """Item 1: moving sections to docs/ must not leave links that lead nowhere."""
    pages = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "chapters" / "README.md",
             *sorted((ROOT / "docs").glob("*.md"))]
    for page in pages:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            assert (page.parent / target.split("#")[0]).exists(), f"{page.name}: {target}"
