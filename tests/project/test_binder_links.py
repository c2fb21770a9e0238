"""Issue 27, item 4 ("launching"): the Binder badges come from one place, and the browser check
installs its browser.

* ``[project.urls] Repository`` in pyproject.toml is the repository's address; every mybinder.org
  link of the README, CONTRIBUTING.md, docs/, chapters/README.md and the chapters is written from it
  (``tools/binder_links.py``), the README's opening chapter 01 and each chapter's opening itself;
* setting another address and rewriting changes every badge (nothing else holds the address);
* ``make browser-check`` installs Debian's Chromium when missing, with the same script as ``.ci/run``;
* the time of ``make binder-check`` quoted in CONTRIBUTING.md is a measured one (no "about").
"""
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "chapters").glob("*.ipynb"))
BINDER = re.compile(r"https://mybinder\.org/v2/gh/([^/\s)]+/[^/\s)]+)/[^\s)]*")


def binder_links():
    spec = importlib.util.spec_from_file_location("binder_links", ROOT / "tools" / "binder_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def every_text():
    """(where, text) of every page and chapter cell that may hold a Binder link."""
    for page in [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "chapters" / "README.md",
                 *sorted((ROOT / "docs").glob("*.md"))]:
        yield page.name, page.read_text(encoding="utf-8")
    for path in CHAPTERS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            yield path.name, "".join(cell["source"])


def test_every_binder_link_uses_the_repository_of_pyproject():
    """Item 4: the badges pointed at a placeholder repository written into each link.  Now every
    link names the repository of pyproject.toml's ``[project.urls] Repository``."""
    repo = binder_links().repository()
    links = [(where, found) for where, text in every_text() for found in BINDER.findall(text)]
    assert len(links) >= len(CHAPTERS) + 1
    assert all(found == repo for _, found in links), [l for l in links if l[1] != repo]


def test_the_readme_and_each_chapter_have_their_badge():
    """Item 4: the README's badge opens chapter 01; each chapter's first cell has a badge opening that
    chapter; the files are as ``tools/binder_links.py --write`` writes them."""
    tool = binder_links()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert tool.readme_badge() in "\n".join(readme.splitlines()[:10])
    for path in CHAPTERS:
        first = "".join(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"])
        assert tool.badge(path.name) in first, path.name
    assert tool.stale() == []


def test_setting_the_repository_rewrites_every_badge(tmp_path):
    """Item 4: the address is the one thing to set: a copy of the project with another Repository
    URL, rewritten, has every badge pointing there and none at the old address."""
    copy = tmp_path / "project"
    for name in ("README.md", "pyproject.toml"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, copy / name)
    shutil.copytree(ROOT / "chapters", copy / "chapters", ignore=shutil.ignore_patterns("solutions", "*.py"))
    pyproject = copy / "pyproject.toml"
    old = binder_links().repository()
    pyproject.write_text(pyproject.read_text().replace(f"github.com/{old}", "github.com/someone/fork"))
    tool = binder_links()
    tool.ROOT = copy
    assert tool.repository(pyproject) == "someone/fork"
    tool.repository = lambda pyproject=pyproject: "someone/fork"
    assert len(tool.stale(write=True)) == len(CHAPTERS) + 1
    texts = [(copy / "README.md").read_text()] + [p.read_text() for p in (copy / "chapters").glob("*.ipynb")]
    assert all("mybinder.org/v2/gh/someone/fork/HEAD" in t and f"gh/{old}/" not in t for t in texts)


def test_browser_check_installs_chromium_as_ci_does():
    """Item 4: ``make browser-check`` stopped with "no chromium" where ``.ci/run`` installed it.  Both
    now run tools/install_chromium.sh (apt-get install chromium when /usr/bin/chromium is missing)."""
    makefile = (ROOT / "Makefile").read_text()
    recipe = makefile.split("\nbrowser-check:", 1)[1].split("\n\n", 1)[0]
    assert "bash tools/install_chromium.sh" in recipe.splitlines()[1]          # before the check runs
    # .ci/run's step "chromium" (started in the background there, while the tests run)
    assert '"chromium" bash tools/install_chromium.sh' in (ROOT / ".ci" / "run").read_text()
    script = ROOT / "tools" / "install_chromium.sh"
    assert "apt-get install -y -q chromium" in script.read_text()
    subprocess.run(["bash", "-n", str(script)], check=True)


def test_the_binder_check_time_is_measured():
    """Item 4: the README said "about two minutes" where ``make binder-check`` took 234 s; the time now
    quoted is a measured one, with the machine it was measured on."""
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    assert "about two minutes" not in text
    assert re.search(r"`make binder-check`.*?measured: \d+ s", text, re.S)
