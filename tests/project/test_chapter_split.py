"""Issue 27, item 5 ("shorter chapters where they sprawl"): chapter 09 (94 cells, about 80 minutes by
``tools/chapter_minutes.py``) is split where its topics part: 09, forward mode and Jacobians, and 09b,
costs, Hessians, ``vmap`` and ``linearize``; each takes under 45 minutes by the same estimate, the
exercise ids 9.1-9.3 still work, and nothing points at the old file.
"""
import importlib.util
import json
import re
import subprocess
from pathlib import Path

from minims.testing.exercises import exercises

ROOT = Path(__file__).resolve().parents[2]
OLD = "09_forward_mode_jacobians_vmap"
PARTS = {"09_forward_mode_and_jacobians.ipynb": {"9.1"}, "09b_hessians_vmap_and_linearize.ipynb": {"9.2", "9.3"}}


def minutes_tool():
    spec = importlib.util.spec_from_file_location("chapter_minutes", ROOT / "tools" / "chapter_minutes.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_part_of_chapter_09_takes_under_45_minutes():
    """Item 5: both parts are under 45 minutes by the README's estimate (prose, code, output,
    exercises; see tools/chapter_minutes.py)."""
    tool = minutes_tool()
    for name in PARTS:
        assert tool.chapter_minutes(ROOT / "chapters" / name) < 45, name


def test_the_exercises_stay_where_their_sections_are():
    """Item 5: exercise 9.1 (a jvp rule) stays with forward mode; 9.2 (Hessian-vector products) and 9.3
    (per-example gradients) go with their sections to 09b; their ids do not change."""
    for name, ids in PARTS.items():
        cells = json.loads((ROOT / "chapters" / name).read_text(encoding="utf-8"))["cells"]
        checked = {m for c in cells if c["cell_type"] == "code"
                   for m in re.findall(r'^check\("([\d.]+)"', "".join(c["source"]), re.M)}
        assert checked == ids, name
    assert {"9.1", "9.2", "9.3"} <= set(exercises())


def test_nothing_points_at_the_old_chapter_09():
    """Item 5: README, docs, chapters, tools and tests name the two new files, not the old one."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        path = ROOT / name
        if path.suffix in (".md", ".py", ".ipynb", ".sh", ".toml", ".cfg") and path.is_file() \
                and path.name != Path(__file__).name:
            assert OLD not in path.read_text(encoding="utf-8", errors="replace"), name
