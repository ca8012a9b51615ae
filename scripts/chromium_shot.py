#!/usr/bin/env python3
"""Screenshots a page in headless Chromium once it has settled, over the DevTools protocol.

    chromium_shot.py CHROMIUM URL OUT.png [WAIT_WHILE_TEXT]

Chromium's own --screenshot fires at the load event, before a page that renders on a worker
(Model Explorer's "Processing graph…") has drawn, and --virtual-time-budget never ends on such a
page. This starts Chromium with a debugging port, waits until the page's text no longer holds
WAIT_WHILE_TEXT (and has some text), waits a little more for drawing, and captures. Standard
library only: a minimal WebSocket client (text frames, masked as a client must).
"""

import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Socket:
    """One WebSocket connection to a DevTools target."""

    def __init__(self, url):
        rest = url.split("://", 1)[1]
        host, path = rest.split("/", 1)
        name, port = host.split(":")
        self.sock = socket.create_connection((name, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET /{path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        reply = b""
        while b"\r\n\r\n" not in reply:
            reply += self.sock.recv(1)
        if b" 101 " not in reply.split(b"\r\n", 1)[0]:
            raise RuntimeError(f"no WebSocket: {reply[:80]!r}")
        self.next_id = 0

    def _exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise RuntimeError("the connection closed")
            data += chunk
        return data

    def _send(self, text):
        payload = text.encode()
        head = bytearray([0x81])
        n = len(payload)
        if n < 126:
            head.append(0x80 | n)
        elif n < 1 << 16:
            head.append(0x80 | 126)
            head += n.to_bytes(2, "big")
        else:
            head.append(0x80 | 127)
            head += n.to_bytes(8, "big")
        mask = os.urandom(4)
        head += mask
        self.sock.sendall(bytes(head) + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def _receive(self):
        message = b""
        while True:
            first, second = self._exact(2)
            n = second & 0x7F
            if n == 126:
                n = int.from_bytes(self._exact(2), "big")
            elif n == 127:
                n = int.from_bytes(self._exact(8), "big")
            message += self._exact(n)
            if first & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            answer = self._receive()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    chromium, url, out = sys.argv[1:4]
    wait_while = sys.argv[4] if len(sys.argv) > 4 else ""
    port = free_port()
    profile = tempfile.mkdtemp(prefix="chromium-shot-")
    browser = subprocess.Popen(
        [
            chromium, "--headless", "--no-sandbox", "--hide-scrollbars",
            "--enable-unsafe-swiftshader", f"--remote-debugging-port={port}",
            f"--user-data-dir={profile}", "--window-size=1600,1000", "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        targets = None
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json") as r:
                    targets = [t for t in json.load(r) if t.get("type") == "page"]
                if targets:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        if not targets:
            sys.exit("Chromium gave no page to drive")
        page = Socket(targets[0]["webSocketDebuggerUrl"])
        page.call("Page.navigate", url=url)
        deadline = time.time() + 90
        while time.time() < deadline:
            text = page.call(
                "Runtime.evaluate", expression="document.body ? document.body.innerText : ''"
            )["result"].get("value", "")
            if text and (not wait_while or wait_while not in text):
                break
            time.sleep(0.5)
        else:
            sys.exit(f"the page still says {wait_while!r} after 90 s")
        time.sleep(3)
        shot = page.call("Page.captureScreenshot", format="png")
        with open(out, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        text = page.call("Runtime.evaluate", expression="document.body.innerText")["result"]
        print(text.get("value", ""))
    finally:
        browser.terminate()
        browser.wait(timeout=10)


if __name__ == "__main__":
    main()
