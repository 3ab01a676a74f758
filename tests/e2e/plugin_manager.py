"""Installing the plugin the way Claude Code users do, for the end-to-end install test.

Owns: a marketplace source made from this working tree (`scratch_source`: a git repository,
what a user clones), serving it over git's smart HTTP protocol (`GitHttpServer`: `claude plugin
marketplace add https://…` clones it the way it clones a GitHub repository, so the plugin is
copied into `~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/`), `claude plugin …`
in a temporary HOME (`PluginCli`), and what the plugin leaves running or lying around
(`plugin_processes`, `leftovers`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from harness import COPY_IGNORE, REPO

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "e2e",
    "GIT_AUTHOR_EMAIL": "e2e@localhost",
    "GIT_COMMITTER_NAME": "e2e",
    "GIT_COMMITTER_EMAIL": "e2e@localhost",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY, "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}
    proc = subprocess.run(["git", *args], cwd=str(cwd), env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {proc.stderr}")
    return proc.stdout


def scratch_source(dest: Path) -> Path:
    """This working tree (without caches, venvs and VCS data) as a fresh git repository with
    one commit: a clone of the plugin's repository as a user has it."""
    shutil.copytree(REPO, dest, ignore=COPY_IGNORE, symlinks=True)
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "the plugin as tested")
    return dest


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


class GitHttpServer:
    """Git's smart HTTP protocol on 127.0.0.1 (git http-backend as CGI), serving the bare
    repositories under `root` read-only: http://127.0.0.1:PORT/<name>.git."""

    def __init__(self, root: Path) -> None:
        self.root = root
        handler = self._handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> "GitHttpServer":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def publish(self, repo: Path, name: str) -> str:
        """Push `repo`'s main branch into the bare repository `name`.git; its URL."""
        bare = self.root / f"{name}.git"
        if not bare.exists():
            git(self.root, "init", "-q", "--bare", "-b", "main", str(bare))
        git(repo, "push", "-q", "--force", str(bare), "HEAD:refs/heads/main")
        return f"{self.base_url}/{name}.git"

    def _handler(self):
        root = str(self.root)

        class Handler(BaseHTTPRequestHandler):
            def _cgi(self) -> None:
                path, _, query = self.path.partition("?")
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                env = {
                    "GIT_PROJECT_ROOT": root,
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "REQUEST_METHOD": self.command,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    "REMOTE_ADDR": "127.0.0.1",
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                }
                if self.headers.get("Git-Protocol"):
                    env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
                if self.headers.get("Content-Encoding"):
                    env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
                out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=120).stdout
                head, _, rest = out.partition(b"\r\n\r\n")
                status, headers = 200, []
                for line in head.split(b"\r\n"):
                    key, _, value = line.decode("latin-1").partition(":")
                    if key.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif key:
                        headers.append((key, value.strip()))
                self.send_response(status)
                for key, value in headers:
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(rest)))
                self.end_headers()
                self.wfile.write(rest)

            do_GET = do_POST = _cgi

            def log_message(self, *args) -> None:
                pass

        return Handler


class PluginCli:
    """`claude plugin …` as a user runs it, in a temporary HOME."""

    def __init__(self, claude_bin: Path, env: "dict[str, str]") -> None:
        self.claude_bin = claude_bin
        self.env = env

    def run(self, *args: str, check: bool = True, timeout: float = 180) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [str(self.claude_bin), "plugin", *args],
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=timeout,
            cwd=self.env["HOME"],
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"claude plugin {' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
            )
        return proc

    def installed(self) -> "list[dict]":
        return json.loads(self.run("list", "--json").stdout)


def read_proc(pid: int, name: str) -> bytes:
    """/proc/PID/NAME, or b"" when the process is gone (or not ours to read)."""
    try:
        with open(f"/proc/{pid}/{name}", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def plugin_processes(markers: "list[Path]") -> "list[tuple[int, list[str]]]":
    """(pid, argv) of every process whose command line or environment names one of `markers`
    (the temporary HOME, the plugin's source): what the plugin left running."""
    needles = [str(m).encode() for m in markers]
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        cmdline = read_proc(int(entry), "cmdline")
        if not cmdline:
            continue  # a kernel thread, or gone
        environ = read_proc(int(entry), "environ")
        if any(n in cmdline or n in environ for n in needles):
            found.append((int(entry), [a.decode("utf-8", "replace") for a in cmdline.split(b"\0") if a]))
    return found


def leftovers(roots: "list[Path]", allowed: "list[Path]", word: str = "deliberation") -> "list[str]":
    """Every path under `roots` whose name mentions `word`, outside the `allowed` folders."""
    out = []
    for root in roots:
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            if any(here == a or a in here.parents for a in allowed):
                dirs[:] = []
                continue
            for name in dirs + files:
                path = here / name
                if word in name and not any(path == a or a in path.parents for a in allowed):
                    out.append(str(path))
    return out
