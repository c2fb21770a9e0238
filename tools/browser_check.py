"""Real-browser check of the chapters: JupyterLab on a loopback port, each chapter opened in headless
Chromium (driven by Playwright), Run All Cells, the last code cell must print a line starting with
`CHAPTER OK`, and a screenshot of the executed notebook is saved per chapter.

Usage: python tools/browser_check.py [--out DIR] [--marker TEXT] [--timeout S] [NOTEBOOK.ipynb ...]
    NOTEBOOK  default: chapters/*.ipynb (all must be in one folder)
    --out     folder for the screenshots (NN_topic.png; NN_topic.FAILED.png on failure);
              default: <temp dir>/minims-browser-check
    --timeout seconds allowed for one chapter's Run All (default 300)
`make browser-check` runs it with the project's venv (after installing the `browser` extra).

Needs Debian's chromium (`apt-get install -y chromium`; Playwright's own browser download is not used)
and the Python package playwright (`pip install -e ".[browser]" -c constraints.txt`).

How (each point is a pitfall met while building it):
* One JupyterLab server for all chapters, on a fresh free 127.0.0.1 port with `port_retries=0` (never
  reach another server), a random token, private JUPYTER_CONFIG/DATA/RUNTIME dirs, --allow-root as root.
* It serves a temp copy of the chapters' folder with every output cleared: Run All dirties the notebook and
  JupyterLab autosaves, so the repo's files must never be served, and a stored output must never satisfy
  the check before the browser has run anything.
* User settings in the private config dir: no "Jupyter news" toast over the notebook, no autosave,
  windowingMode "none" so every cell is in the DOM (the default renders off-screen cells lazily), and
  no scrolling past the end (it would leave the screenshot of a long chapter mostly blank).
* Each chapter opens in its own named workspace (nothing else restored) in its own tab. Run All is clicked
  only once the status bar says "(ipykernel) | Idle": the toolbar's indicator says idle before any kernel
  exists, and a Run All clicked then is dropped silently. The menu command is `runmenu:run-all`.
* Success: every code cell has a number and the last one printed the marker. Cells tagged
  `raises-exception` may show an error (Run All goes past them); an untagged error stops Run All, which is
  reported at once (kernel idle, cells left unnumbered) with the error text, not as a timeout.
* After each chapter its kernel is shut down (DELETE /api/sessions/ID); at the end the server gets
  POST /api/shutdown, and its process (then any leftover child process, by pid) is waited for,
  terminated or killed. Nothing is found or killed by name.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
                  "--no-first-run", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--disable-breakpad", "--disable-crash-reporter"]
SHOT_WIDTH, SHOT_MIN_HEIGHT, SHOT_MAX_HEIGHT = 1280, 1000, 2400
USER_SETTINGS = {  # JUPYTER_CONFIG_DIR/lab/user-settings/<plugin>.jupyterlab-settings
    "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none", "scrollPastEnd": False},
    "@jupyterlab/docmanager-extension/plugin": {"autosave": False},
}
T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {msg}", flush=True)


class CheckFailed(Exception):
    pass


# --------------------------------------------------------------------------------------------- server
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid: int) -> set[int]:
    """All descendants of pid (kernels run in sessions of their own, but they are the server's children)."""
    kids: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kids.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for kid in kids.get(todo.pop(), []):
            if kid not in found:
                found.add(kid)
                todo.append(kid)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class Lab:
    """A JupyterLab server serving `root`, stopped (by its pid) in `stop()`."""

    def __init__(self, root: Path, work: Path):
        self.root, self.work, self.proc = root, work, None
        self.token = secrets.token_hex(16)
        cfg = work / "config"
        for plugin, values in USER_SETTINGS.items():
            path = cfg / "lab/user-settings" / f"{plugin}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        self.env = dict(os.environ, JUPYTER_CONFIG_DIR=str(cfg), JUPYTER_DATA_DIR=str(work / "data"),
                        JUPYTER_RUNTIME_DIR=str(work / "runtime"), JUPYTER_PATH="",
                        IPYTHONDIR=str(work / "ipython"), PYDEVD_DISABLE_FILE_VALIDATION="1")
        self.env.setdefault("OPENBLAS_NUM_THREADS", "1")
        self.env.pop("PYTHONPATH", None)
        self.log_path = work / "lab.log"

    def start(self, tries: int = 3) -> None:
        for attempt in range(1, tries + 1):
            self.port = free_port()
            self.base = f"http://127.0.0.1:{self.port}"
            cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
                   "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                   f"--ServerApp.root_dir={self.root}"]
            if os.geteuid() == 0:
                cmd.append("--allow-root")
            with open(self.log_path, "w") as out:
                self.proc = subprocess.Popen(cmd, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    self.api("GET", "/api/status", timeout=1)
                    log(f"jupyter lab up on {self.base} (pid {self.proc.pid})")
                    return
                except OSError:
                    time.sleep(0.2)
            tail = self.log_path.read_text()[-2000:]
            self.stop()
            log(f"jupyter lab did not come up (attempt {attempt}/{tries}); log tail:\n{tail}")
        raise CheckFailed("jupyter lab did not start; see the log above")

    def api(self, method: str, path: str, timeout: float = 10):
        req = urllib.request.Request(self.base + path, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    def shutdown_kernels_of(self, name: str) -> None:
        try:
            for s in self.api("GET", "/api/sessions"):
                if s.get("path") == name:
                    self.api("DELETE", f"/api/sessions/{s['id']}", timeout=30)
        except OSError as e:
            log(f"could not shut down the kernel of {name}: {e}")

    def stop(self) -> None:
        if self.proc is None:
            return
        pid = self.proc.pid
        kids = children(pid)
        if self.proc.poll() is None:
            try:
                self.api("POST", "/api/shutdown", timeout=5)
            except OSError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                log(f"jupyter lab (pid {pid}) still running 20 s after /api/shutdown: SIGTERM")
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
        for sig in (signal.SIGTERM, signal.SIGKILL):
            left = [k for k in kids if alive(k)]
            if not left:
                break
            log(f"left over after the server: pids {left}: {sig.name}")
            for k in left:
                try:
                    os.kill(k, sig)
                except ProcessLookupError:
                    pass
            time.sleep(2)
        log(f"jupyter lab stopped (pid {pid}, exit {self.proc.returncode})")
        self.proc = None


# ------------------------------------------------------------------------------------------- browser
STATE_JS = r"""(marker) => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)') || document;
  const cells = [...panel.querySelectorAll('.jp-Notebook .jp-Cell.jp-CodeCell')];
  const prompts = cells.map(c => { const p = c.querySelector('.jp-InputArea-prompt');
                                   return p ? p.innerText.trim() : ''; });
  const outText = c => [...c.querySelectorAll('.jp-OutputArea-output')].map(o => o.innerText).join('\n');
  const errors = [];
  cells.forEach((c, i) => { const e = c.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]');
                            if (e && /Traceback|Error/.test(e.innerText)) errors.push([i, e.innerText.slice(-1500)]); });
  const status = [...document.querySelectorAll('.jp-StatusBar-TextItem')].map(e => e.innerText.trim())
                   .find(t => t.includes(' | ')) || '';
  const last = cells.length ? outText(cells[cells.length - 1]) : '';
  return {n: cells.length, prompts, errors, status,
          marker: last.split('\n').map(l => l.trim()).filter(l => l.startsWith(marker))};
}"""
NUMBERED = re.compile(r"^\[\d+\]:$")


def screenshot(page, path: Path) -> None:
    """The executed notebook down to its last cell: the whole of it if it fits in SHOT_MAX_HEIGHT pixels,
    else its end. JupyterLab scrolls inside its own panel, so `full_page=True` shows no more than the
    window: instead the file browser is folded away and the window made as tall as the notebook (capped)."""
    tab = page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current")
    if tab.count():
        tab.first.click()
    height = page.evaluate("""() => { const s = document.querySelector(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer'); return s ? s.scrollHeight : 0; }""")
    page.set_viewport_size({"width": SHOT_WIDTH,
                            "height": int(max(SHOT_MIN_HEIGHT, min(height + 120, SHOT_MAX_HEIGHT)))})
    page.wait_for_timeout(500)
    page.evaluate("""() => { const c = [...document.querySelectorAll(
        '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell')].pop(); if (c) c.scrollIntoView({block: 'end'}); }""")
    page.wait_for_timeout(500)  # layout after the resize, images (matplotlib PNGs) decoded
    page.screenshot(path=str(path))


def check_notebook(context, lab: Lab, index: int, name: str, n_code: int, marker: str,
                   timeout: float, shots: Path) -> str:
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    try:
        # a named workspace of its own: nothing from an earlier chapter is restored into this tab
        page.goto(f"{lab.base}/lab/workspaces/check{index}/tree/{name}?token={lab.token}")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
        page.locator(".jp-StatusBar-TextItem",
                     has_text=re.compile(r"\(ipykernel\) \| Idle")).wait_for(timeout=120_000)
        state = page.evaluate(STATE_JS, marker)
        if state["n"] != n_code:
            raise CheckFailed(f"the page shows {state['n']} code cells, the notebook has {n_code}")
        log(f"{name}: kernel idle, {n_code} code cells; Run > Run All Cells")
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()

        t_run, started, bad_polls = time.monotonic(), False, 0
        while True:
            time.sleep(0.5)
            state = page.evaluate(STATE_JS, marker)
            prompts = state["prompts"]
            busy = any(p == "[*]:" for p in prompts)
            done = all(NUMBERED.match(p) for p in prompts)
            started = started or busy or any(NUMBERED.match(p) for p in prompts)
            if done and state["marker"]:
                break
            elapsed = time.monotonic() - t_run
            if not started and elapsed > 20:
                raise CheckFailed("Run All did not start any cell within 20 s")
            # Kernel idle and nothing queued, yet cells left unrun (an untagged error stopped Run All) or no
            # marker: a failure. Four polls in a row (2 s), so a status flicker between cells is not taken for it.
            idle = state["status"].endswith("| Idle")
            bad_polls = bad_polls + 1 if (started and idle and not busy) else 0
            if bad_polls >= 4:
                first = next((i for i, p in enumerate(prompts) if not NUMBERED.match(p)), None)
                err = [e for e in state["errors"] if first is None or e[0] < first]
                where = (f"stopped before code cell {first + 1} of {len(prompts)}" if first is not None
                         else f"ran every cell, but the last code cell printed no line starting with {marker!r}")
                detail = f"; the last error shown (code cell {err[-1][0] + 1}):\n{err[-1][1]}" if err else ""
                raise CheckFailed(f"Run All {where}{detail}")
            if elapsed > timeout:
                unrun = sum(not NUMBERED.match(p) for p in prompts)
                raise CheckFailed(f"timed out after {timeout:.0f} s with {unrun} of {len(prompts)} code cells "
                                  f"not finished (status bar: {state['status']!r})")
        line = state["marker"][-1]
        shot = shots / f"{Path(name).stem}.png"
        screenshot(page, shot)
        return f"{line}  [{time.monotonic() - t_run:.1f} s after Run All; screenshot {shot}]"
    except Exception:
        try:
            shot = shots / f"{Path(name).stem}.FAILED.png"
            screenshot(page, shot)
            log(f"{name}: failure screenshot {shot}")
        except Exception:
            pass
        if page_errors:
            log(f"{name}: JavaScript errors on the page: {page_errors[:3]}")
        raise
    finally:
        lab.shutdown_kernels_of(name)
        page.close()


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("notebooks", nargs="*", type=Path)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "minims-browser-check")
    ap.add_argument("--marker", default="CHAPTER OK")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("BROWSER_CHECK_TIMEOUT", 300)))
    args = ap.parse_args(argv)

    notebooks = [p.resolve() for p in args.notebooks] or sorted((ROOT / "chapters").glob("*.ipynb"))
    if not notebooks:
        print("browser-check: no chapters/*.ipynb: nothing to check")
        return 0
    folders = {p.parent for p in notebooks}
    if len(folders) != 1:
        sys.exit(f"browser-check: the notebooks must be in one folder, got {sorted(map(str, folders))}")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        sys.exit("browser-check: FAIL: no chromium; install Debian's: apt-get install -y chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit('browser-check: FAIL: no playwright; pip install -e ".[browser]" -c constraints.txt '
                 "(never `playwright install`: we drive /usr/bin/chromium)")

    shots = args.out.resolve()
    shots.mkdir(parents=True, exist_ok=True)
    for p in notebooks:  # this run's names only: never delete anything else in a folder given with --out
        for old in (shots / f"{p.stem}.png", shots / f"{p.stem}.FAILED.png"):
            old.unlink(missing_ok=True)
    work = Path(tempfile.mkdtemp(prefix="browser-check-"))
    root = work / "root"
    # the chapters' folder (data files a chapter may read included), then cleared copies of the notebooks
    shutil.copytree(folders.pop(), root, ignore=shutil.ignore_patterns(".*", "*.ipynb", "__pycache__"))
    counts = {}
    for p in notebooks:
        nb = json.loads(p.read_text())
        for cell in nb["cells"]:
            if cell["cell_type"] == "code":
                cell["outputs"], cell["execution_count"] = [], None
        (root / p.name).write_text(json.dumps(nb, indent=1))
        counts[p.name] = sum(c["cell_type"] == "code" for c in nb["cells"])

    signal.signal(signal.SIGTERM, lambda *_: sys.exit("browser-check: terminated"))
    lab = Lab(root, work)
    results: dict[str, str] = {}
    failures: dict[str, str] = {}
    try:
        lab.start()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_FLAGS)
            log(f"chromium {browser.version} (headless, {chromium})")
            context = browser.new_context(viewport={"width": SHOT_WIDTH, "height": SHOT_MIN_HEIGHT})
            try:
                for i, p in enumerate(notebooks, 1):
                    t = time.perf_counter()
                    try:
                        results[p.name] = check_notebook(context, lab, i, p.name, counts[p.name], args.marker,
                                                         args.timeout, shots)
                        log(f"ok   {p.name} ({time.perf_counter() - t:.1f} s): {results[p.name]}")
                    except Exception as e:  # CheckFailed, or Playwright's TimeoutError / Error
                        failures[p.name] = f"{type(e).__name__}: {e}"
                        log(f"FAIL {p.name} ({time.perf_counter() - t:.1f} s): {failures[p.name]}")
            finally:
                context.close()
                browser.close()
    except Exception as e:  # the server or the browser could not be started
        failures["(set-up)"] = f"{type(e).__name__}: {e}"
        log(f"FAIL set-up: {failures['(set-up)']}")
    finally:
        lab.stop()
        if failures:
            log(f"server log and served copies kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    print(f"browser-check: {len(results)} passed, {len(failures)} failed")
    print(f"browser-check: screenshots in {shots}")
    if failures:
        for name, why in failures.items():
            print(f"browser-check: FAIL {name}: {why.splitlines()[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
