"""Copy MindSpore's tutorial code blocks and a selection of its unit tests into the repository (issue 25).

Usage: python tools/extract_mindspore_sources.py DOCS_GIT_DIR TESTS_GIT_DIR

DOCS_GIT_DIR / TESTS_GIT_DIR are bare git directories of github.com/mindspore-ai/docs and
github.com/mindspore-ai/mindspore_test (e.g. the mirrors the session's ``fetch`` tool brings).
Nothing here runs at test time: it writes, once, the data the runners read
(tools/run_mindspore_pages.py, tools/run_mindspore_tests.py):

* ``tools/mindspore_pages/<page>.json``: the Python code blocks of each tutorial page, in order, with
  the repository, branch, commit and path they come from. Only the code is kept, not the prose.
* ``tools/mindspore_tests/suite/tests/...``: the selected test files, byte for byte at their original
  paths, plus the helper modules they import from MindSpore's ``tests`` package (found by following
  their ``tests.*`` and relative imports) and the ``__init__.py`` files that make those packages;
  ``REPLACED`` names the one support file stored as a stand-in, and why.

Both are MindSpore's code (Apache-2.0, Huawei Technologies Co., Ltd), kept as test data only;
tools/mindspore_pages/NOTICE.md and tools/mindspore_tests/NOTICE.md say so.

The page selection: the 18 pages issue 25 names. The beginner, compile and custom_program pages come
from the docs' master branch (``tutorials/source_en``); pages the master branch no longer has come
from the newest release branch that has them: the advanced-autodiff, optimizer, loss, per-sample
gradient, vmap and tensor-and-parameter pages from r2.5.0 (``docs/mindspore/source_en/model_train``,
where 2.5 moved ``tutorials/source_en/advanced``), Jacobians/Hessians from r2.3.1 and control flow
from r2.1 (``tutorials/experts``).
"""
import ast
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES_DIR = ROOT / "tools" / "mindspore_pages"
SUITE_DIR = ROOT / "tools" / "mindspore_tests" / "suite"

# page id -> (branch, path); the id is the file name under tools/mindspore_pages/
PAGES = {
    "beginner_quick_start": ("master", "tutorials/source_en/beginner/quick_start.md"),
    "beginner_tensor": ("master", "tutorials/source_en/beginner/tensor.md"),
    "beginner_model": ("master", "tutorials/source_en/beginner/model.md"),
    "beginner_autograd": ("master", "tutorials/source_en/beginner/autograd.md"),
    "beginner_train": ("master", "tutorials/source_en/beginner/train.md"),
    "beginner_save_load": ("master", "tutorials/source_en/beginner/save_load.md"),
    "beginner_static_graph": ("master", "tutorials/source_en/beginner/accelerate_with_static_graph.md"),
    "compile_static_graph": ("master", "tutorials/source_en/compile/static_graph.md"),
    "compile_statements": ("master", "tutorials/source_en/compile/statements.md"),
    "custom_hook_program": ("master", "tutorials/source_en/custom_program/hook_program.md"),
    "advanced_derivation": ("r2.5.0", "docs/mindspore/source_en/model_train/train_process/derivation.md"),
    "advanced_optimizer": ("r2.5.0", "docs/mindspore/source_en/model_train/custom_program/optimizer.md"),
    "advanced_loss": ("r2.5.0", "docs/mindspore/source_en/model_train/custom_program/loss.md"),
    "tensor_and_parameter": ("r2.5.0",
                             "docs/mindspore/source_en/model_train/model_building/tensor_and_parameter.md"),
    "func_per_sample_gradients": (
        "r2.5.0", "docs/mindspore/source_en/model_train/train_process/optimize/per_sample_gradients.md"),
    "func_vmap": ("r2.5.0", "docs/mindspore/source_en/model_train/train_process/optimize/vmap.ipynb"),
    "func_jacobians_hessians": ("r2.3.1", "tutorials/experts/source_en/func_programming/Jacobians_Hessians.md"),
    "experts_control_flow": ("r2.1", "tutorials/experts/source_en/network/control_flow.md"),
}

# MindSpore's tests on autodiff, hooks, Cell/Parameter, checkpoints and vmap that run on CPU (files
# whose tests all need Ascend or GPU, e.g. pynative_mode/grad/test_hook.py, are left out)
TEST_FILES = [
    "tests/ut/python/nn/gradient/test_grad_pynative.py",
    "tests/ut/python/nn/gradient/test_grad_graph.py",
    "tests/ut/python/nn/gradient/test_jvp_pynative.py",
    "tests/ut/python/nn/gradient/test_vjp_pynative.py",
    "tests/ut/python/nn/gradient/test_function_jvp_pynative.py",
    "tests/ut/python/nn/gradient/test_function_vjp_pynative.py",
    "tests/ut/python/pynative_mode/grad/test_auto_grad.py",
    "tests/ut/python/pynative_mode/ops/test_grad.py",
    "tests/ut/python/pynative_mode/test_stop_gradient.py",
    "tests/ut/python/pynative_mode/test_insert_grad_of.py",
    "tests/ut/python/pynative_mode/test_user_define_bprop_check.py",
    "tests/ut/python/pynative_mode/nn/test_cell.py",
    "tests/ut/python/pynative_mode/nn/test_parameter_operation.py",
    "tests/ut/python/nn/test_cell.py",
    "tests/ut/python/nn/test_parameter.py",
    "tests/ut/python/parameter_feature/test_parameter.py",
    "tests/ut/python/utils/test_serialize.py",
    "tests/ut/python/vmap/test_vmap.py",
    "tests/st/pynative/hook/test_tensor_hook.py",
    "tests/st/pynative/hook/test_pynative_hook.py",
    "tests/st/pynative/hook/test_hook_function.py",
    "tests/st/pynative/grad/test_common_grad.py",
    "tests/st/compiler/gradient/test_taylor_differentiation.py",
    "tests/st/compiler/gradient/test_jvp.py",
    "tests/st/compiler/gradient/test_vjp.py",
    "tests/st/compiler/gradient/test_jacfwd.py",
    "tests/st/compiler/gradient/test_jacrev.py",
    "tests/st/parameter/test_parameter.py",
    "tests/st/vmap/test_vmap_pynative.py",
    "tests/st/compiler/gradient/test_grad_pynative.py",
    "tests/st/compiler/gradient/test_function_jvp.py",
    "tests/st/compiler/gradient/test_function_vjp.py",
    "tests/st/pynative/hook/test_pynative_backward_hook.py",
    "tests/st/pynative/hook/test_pynative_forward_hook.py",
    "tests/st/pynative/hook/test_pynative_hook_grad.py",
    "tests/st/pynative/grad/test_auto_grad.py",
    "tests/st/pynative/grad/test_pynative_high_grad.py",
    "tests/ut/python/optimizer/test_auto_grad.py",
    "tests/ut/python/pynative_mode/nn/test_checkparameter.py",
    # issue 26: custom operators, mixed precision and loss scaling, clipping
    "tests/st/graph_kernel/custom/test_custom_pyfunc.py",
    "tests/st/ops/test_ops_clip_func.py",
    "tests/st/train/test_amp_overflow.py",
    "tests/st/mix_precision/test_mix_precision.py",
]

# Support files stored with other content than MindSpore's, each with the reason (manifest.json
# lists them under "replaced"). tests/ut/python/__init__.py only runs `from ...vm_impl import vm`,
# which registers Python implementations of primitives for MindSpore's internal debug VM through
# private modules (mindspore._c_expression, ops.vm_impl_registry, ops.operations._grad_ops); no
# selected test uses it, and no user program imports it.
REPLACED = {
    "tests/ut/python/__init__.py": (
        '"""Stand-in written by minims\' tools/extract_mindspore_sources.py: MindSpore\'s file only runs\n'
        '``from ...vm_impl import vm`` (its internal debug VM\'s primitive registry, private modules), which\n'
        'none of the stored tests uses."""\n'),
}

LICENCE = ("Apache-2.0; Copyright Huawei Technologies Co., Ltd; MindSpore's code, stored only as test "
           "data for minims (see NOTICE.md)")
FENCE = re.compile(r"^(?P<indent>[ \t]*)```[ \t]*(?P<lang>[\w+-]*)[ \t]*$")


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True,
                          capture_output=True, text=True).stdout


def markdown_blocks(text):
    """(first line number, code) of each ```python fence, dedented by the fence's own indentation."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m or not m["lang"]:
            i += 1
            continue
        indent, lang, start, body = m["indent"], m["lang"].lower(), i + 1, []
        i += 1
        while i < len(lines) and not re.match(r"^[ \t]*```[ \t]*$", lines[i]):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1
        if lang in ("python", "py"):
            blocks.append((start + 1, "\n".join(body).rstrip() + "\n"))
    return blocks


def notebook_blocks(text):
    """(cell number, code) of each non-empty code cell of a notebook."""
    cells = json.loads(text)["cells"]
    return [(n, "".join(c["source"]).rstrip() + "\n") for n, c in enumerate(cells)
            if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def extract_pages(docs_git):
    PAGES_DIR.mkdir(parents=True, exist_ok=True)
    for page, (branch, path) in PAGES.items():
        commit = git(docs_git, "log", "-1", "--format=%H", branch, "--", path).strip()
        text = git(docs_git, "show", f"{commit}:{path}")
        found = notebook_blocks(text) if path.endswith(".ipynb") else markdown_blocks(text)
        title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), page)
        if path.endswith(".ipynb"):
            title = next((ln.lstrip("# ").strip() for c in json.loads(text)["cells"] if c["cell_type"] == "markdown"
                          for ln in "".join(c["source"]).splitlines() if ln.startswith("# ")), page)
        record = {
            "page": page, "title": title,
            "source": {"repo": "mindspore-ai/docs", "branch": branch, "commit": commit, "path": path,
                       "url": f"https://github.com/mindspore-ai/docs/blob/{commit}/{path}"},
            "licence": LICENCE,
            "where": "cell" if path.endswith(".ipynb") else "line",
            "blocks": [{"block": k, "at": at, "code": code} for k, (at, code) in enumerate(found)],
        }
        (PAGES_DIR / f"{page}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        print(f"{page}: {len(found)} blocks ({branch} {commit[:10]} {path})")


def imported_test_modules(path, source):
    """Repository-relative paths of the modules of MindSpore's ``tests`` package a test file imports."""
    found = set()
    package = Path(path).parent
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.parent
                base = ".".join(up.parts + ((base,) if base else ()))
            names = [base] + [f"{base}.{a.name}" for a in node.names]
        for name in names:
            if name.split(".")[0] == "tests":
                found.add(name)
    return found


def copy_tests(tests_git):
    commit = git(tests_git, "rev-parse", "HEAD").strip()
    listing = set(git(tests_git, "ls-tree", "-r", "--name-only", commit, "tests").split())
    todo, done = list(TEST_FILES), set()
    while todo:
        path = todo.pop()
        if path in done:
            continue
        done.add(path)
        source = REPLACED.get(path) or git(tests_git, "show", f"{commit}:{path}")
        target = SUITE_DIR / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source)
        parts = Path(path).parts
        for k in range(1, len(parts)):  # the packages on the way, so that `tests.x.y` imports resolve
            init = "/".join(parts[:k] + ("__init__.py",))
            if init in listing:
                todo.append(init)
        for module in imported_test_modules(path, source):
            stem = module.replace(".", "/")
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if candidate in listing:
                    todo.append(candidate)
    for conftest in ("tests/ut/python/conftest.py",):
        (SUITE_DIR / conftest).write_text(git(tests_git, "show", f"{commit}:{conftest}"))
        done.add(conftest)
    manifest = {"repo": "mindspore-ai/mindspore_test", "commit": commit, "licence": LICENCE,
                "test_files": TEST_FILES, "support_files": sorted(done - set(TEST_FILES)),
                "replaced": {path: "a stand-in; see REPLACED in tools/extract_mindspore_sources.py"
                             for path in REPLACED}}
    (SUITE_DIR.parent / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"{len(TEST_FILES)} test files, {len(done) - len(TEST_FILES)} support files (commit {commit[:10]})")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    extract_pages(Path(sys.argv[1]))
    copy_tests(Path(sys.argv[2]))
