"""The GitHub Action's install steps (action.yml): visguard from the Action's own checkout, never from an index.

``plan``     writes ``venv`` (the virtualenv the Action installs into, ``~/.cache/visguard-action/...``) and ``key``
             (the cache key of that virtualenv: the runner's OS and architecture, the Python, the Action's ref, the
             extras and a digest of the files pip would install) to ``$GITHUB_OUTPUT``; ``actions/cache`` restores
             the virtualenv under that key before ``install`` and saves it after the job.
``install``  writes ``python`` (the interpreter the lint step runs) to ``$GITHUB_OUTPUT``, and installs only when
             needed: the job's Python already importing visguard of the checkout's version with the extras asked
             (a self-hosted runner that has it; this repository's tests, which run the Action with the project's
             virtualenv first on PATH) is used as it is; a virtualenv restored from the cache with it is used as
             it is (a warm cache: nothing installed); otherwise the virtualenv is made and
             ``pip install ACTION_PATH[extras]`` run (pip's own cache lives inside it, so it is cached too).

Runs on the standard library alone (visguard is not installed yet): ``python3 -P scripts/action_install.py plan``.
The Action's path comes from ``GITHUB_ACTION_PATH``, its ref from ``VISGUARD_ACTION_REF`` (``github.action_ref``),
the extras from ``INPUT_EXTRAS``.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import subprocess
import sys
import tomllib
import venv

# what pip installs from the checkout (pyproject.toml's package-dir), hashed into the cache key
PACKAGE_DIRS = ("common", "engine", "linter", "constructs", "cdk_app", "audit")
_SKIP = ("__pycache__", "node_modules", "cdk.out")


def action_path(env: dict) -> str:
    return os.path.abspath(env.get("GITHUB_ACTION_PATH") or os.path.join(os.path.dirname(__file__), ".."))


def version(root: str) -> str:
    with open(os.path.join(root, "pyproject.toml"), "rb") as fh:
        return tomllib.load(fh)["project"]["version"]


def extras(env: dict) -> list[str]:
    raw = env.get("INPUT_EXTRAS", "")
    names = sorted({x.strip() for x in re.split(r"[\s,]+", raw) if x.strip()})
    bad = [x for x in names if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", x)]
    if bad:
        raise SystemExit(f"::error title=visguard action::extras: {bad[0]!r} is not an extra's name")
    return names


def digest(root: str) -> str:
    """The SHA-256 of pyproject.toml and every file under the package folders, by relative path (a moving ref,
    ``@main``, gets a new virtualenv when what it installs changed)."""
    h = hashlib.sha256()
    files = [os.path.join(root, "pyproject.toml")]
    for top in PACKAGE_DIRS:
        for folder, dirs, names in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if d not in _SKIP and not d.startswith("."))
            files += [os.path.join(folder, n) for n in sorted(names) if not n.endswith((".pyc", ".pyo"))]
    for path in files:
        h.update(os.path.relpath(path, root).encode() + b"\0")
        with open(path, "rb") as fh:
            h.update(hashlib.sha256(fh.read()).digest())
    return h.hexdigest()[:16]


def plan(env: dict) -> dict[str, str]:
    root = action_path(env)
    ver = version(root)
    py = f"{sys.version_info.major}.{sys.version_info.minor}"
    ref = re.sub(r"[^A-Za-z0-9._-]", "_", env.get("VISGUARD_ACTION_REF", "") or "local")
    extra = "+".join(extras(env)) or "base"
    tag = f"{ver}-py{py}-{extra}-{digest(root)}"
    home = env.get("VISGUARD_ACTION_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "visguard-action"
    )
    return {
        "venv": os.path.join(home, tag),
        "key": f"visguard-action-{platform.system()}-{platform.machine()}-{ref}-{tag}",
        "version": ver,
    }


_CHECK = (
    "import importlib.metadata as m, re, sys\n"
    "want, extras = sys.argv[1], sys.argv[2:]\n"
    "try:\n"
    "    if m.version('visguard') != want:\n"
    "        sys.exit(1)\n"
    "    for req in m.requires('visguard') or []:\n"
    "        name, _, marker = req.partition(';')\n"
    "        hit = re.search(r'extra\\s*==\\s*[\"\\']([^\"\\']+)', marker)\n"
    "        if hit and hit.group(1) in extras:\n"
    "            m.version(re.match(r'[A-Za-z0-9._-]+', name.strip()).group(0))\n"
    "    import visguard.linter.action\n"
    "except Exception:\n"
    "    sys.exit(1)\n"
)


def has_visguard(python: str, want: str, extra: list[str]) -> bool:
    """``python`` imports visguard ``want`` (and the Action's entry), with every package of ``extra`` installed."""
    if not os.path.exists(python):
        return False
    return subprocess.run([python, "-P", "-c", _CHECK, want, *extra], capture_output=True).returncode == 0


def install(env: dict, log=print) -> dict[str, str]:
    root, made = action_path(env), plan(env)
    want, extra = made["version"], extras(env)
    if has_visguard(sys.executable, want, extra):
        log(f"visguard {want} is installed for {sys.executable}: nothing to install")
        return {"python": sys.executable, "installed": "false"}
    python = os.path.join(made["venv"], "Scripts" if os.name == "nt" else "bin", "python")
    if has_visguard(python, want, extra):
        log(f"visguard {want} restored from the cache ({made['venv']}): nothing to install")
        return {"python": python, "installed": "false"}
    venv.create(made["venv"], with_pip=True, clear=True)
    target = root + (f"[{','.join(extra)}]" if extra else "")
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", target]
    log("$ " + " ".join(pip))
    done = subprocess.run(pip, env={**env, "PIP_CACHE_DIR": os.path.join(made["venv"], "pip-cache")})
    if done.returncode != 0:
        raise SystemExit(f"::error title=visguard action::pip could not install visguard from {root}")
    return {"python": python, "installed": "true"}


def main(argv: list[str], env: dict | None = None) -> int:
    env = dict(os.environ if env is None else env)
    if argv not in (["plan"], ["install"]):
        print("usage: action_install.py plan|install", file=sys.stderr)
        return 1
    values = plan(env) if argv == ["plan"] else install(env)
    out = env.get("GITHUB_OUTPUT")
    text = "".join(f"{k}={v}\n" for k, v in values.items())
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
