"""A headless Chromium driven through the Chrome DevTools protocol, for the site's browser test.

Debian's chromium (scripts/install-system-deps.sh) is started with ``--remote-debugging-port=0``: it picks a free
port on 127.0.0.1 and writes it to ``DevToolsActivePort`` in its profile folder. The protocol is JSON over a
WebSocket; the venv has no WebSocket client, so this module speaks the few parts of RFC 6455 the protocol needs
(the opening handshake, masked text frames out, text frames in, fragmented or not, ping/pong and close).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import struct
import subprocess
import time
import urllib.request
from pathlib import Path

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]


class WebSocket:
    """A client WebSocket over a plain TCP socket (ws://127.0.0.1 only)."""

    def __init__(self, url: str, timeout: float = 30):
        assert url.startswith("ws://127.0.0.1:"), url
        host_port, _, path = url[len("ws://") :].partition("/")
        host, port = host_port.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the browser closed the connection during the handshake")
            head += chunk
        status, _, self.buffer = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n", 1)[0]:
            raise ConnectionError(status.decode(errors="replace"))

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the browser closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _send(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        header = bytes([0x80 | opcode])
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def send(self, text: str) -> None:
        self._send(0x1, text.encode())

    def recv(self) -> str:
        message = b""
        while True:
            b0, b1 = self._read(2)
            fin, opcode, n = b0 & 0x80, b0 & 0x0F, b1 & 0x7F
            if n == 126:
                (n,) = struct.unpack("!H", self._read(2))
            elif n == 127:
                (n,) = struct.unpack("!Q", self._read(8))
            mask = self._read(4) if b1 & 0x80 else None
            payload = self._read(n)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            if opcode == 0x9:
                self._send(0xA, payload)
                continue
            if opcode in (0x0, 0x1, 0x2):
                message += payload
                if fin:
                    return message.decode()

    def close(self) -> None:
        try:
            self._send(0x8, b"")
        finally:
            self.sock.close()


class Page:
    """One page of a headless Chromium: navigate, evaluate, and every console error and uncaught exception seen."""

    def __init__(self, profile: Path):
        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=30) as r:
            targets = json.load(r)
        ws = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        self.ws = WebSocket(ws)
        self.next_id = 0
        self.errors: list[str] = []
        self.requests: list[str] = []  # every URL the page asked for
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def _event(self, msg: dict) -> None:
        method, params = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(
                "console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"])
            )
        elif method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            self.errors.append(
                "exception: " + (d.get("exception", {}).get("description") or d.get("text", ""))
            )
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            e = params["entry"]
            self.errors.append(f"log: {e.get('text')} {e.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            self.requests.append(params["request"]["url"])

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        me = self.next_id
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == me:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    def wait_event(self, method: str, timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            self._event(msg)
            if msg.get("method") == method:
                return msg
        raise TimeoutError(method)

    def goto(self, url: str) -> None:
        self.call("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def js(self, expression: str):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(expression)

    def stop(self) -> None:
        ws = getattr(self, "ws", None)
        if ws is not None:
            with contextlib.suppress(OSError):
                ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
