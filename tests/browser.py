"""A headless Chromium driven over the DevTools protocol (aiohttp's websocket client), for
the viewer tests: open a page, press keys, read text, collect console errors, take
screenshots.  ``chromium`` comes from the distribution (.ci/run installs it)."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import aiohttp

KEY_CODES = {
    "ArrowRight": 39,
    "ArrowLeft": 37,
    "ArrowUp": 38,
    "ArrowDown": 40,
    "Home": 36,
    "End": 35,
    "PageUp": 33,
    "PageDown": 34,
}


def chromium() -> str | None:
    return (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )


class Page:
    """One browser tab; every call is a DevTools command (see ``Browser``)."""

    def __init__(self, ws):
        self.ws = ws
        self.next_id = 0
        self.errors: list[str] = []

    def _event(self, msg: dict) -> None:
        m, p = msg.get("method"), msg.get("params", {})
        if m == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.errors.append(
                "exception: " + str(d.get("exception", {}).get("description") or d.get("text"))
            )
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            self.errors.append(
                "console.error: "
                + " ".join(str(a.get("value", a.get("description"))) for a in p.get("args", []))
            )
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            self.errors.append("log: " + p["entry"].get("text", ""))

    async def send(self, method: str, **params):
        self.next_id += 1
        mid = self.next_id
        await self.ws.send_str(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads((await self.ws.receive(timeout=60)).data)
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self._event(msg)

    async def eval(self, expr: str):
        r = await self.send("Runtime.evaluate", expression=expr, returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    async def open(
        self,
        url: str,
        ready: str = "document.body && document.body.dataset.ready === '1'",
        timeout: float = 60,
    ) -> None:
        await self.send("Page.navigate", url=url)
        t = time.monotonic()
        while not await self.eval(f"!!({ready})"):
            if time.monotonic() - t > timeout:
                raise TimeoutError(f"{url}: not ready after {timeout} s; errors: {self.errors}")
            await asyncio.sleep(0.1)

    async def key(self, key: str) -> None:
        code = KEY_CODES.get(key, ord(key.upper()) if len(key) == 1 else 0)
        extra = {"text": key} if len(key) == 1 else {}
        await self.send(
            "Input.dispatchKeyEvent",
            type="keyDown",
            key=key,
            code=key if len(key) > 1 else f"Key{key.upper()}",
            windowsVirtualKeyCode=code,
            **extra,
        )
        await self.send("Input.dispatchKeyEvent", type="keyUp", key=key, windowsVirtualKeyCode=code)

    async def text(self, selector: str) -> str:
        return await self.eval(f"document.querySelector({json.dumps(selector)}).textContent")

    async def screenshot(self, path: str | Path) -> None:
        r = await self.send("Page.captureScreenshot", format="png")
        Path(path).write_bytes(base64.b64decode(r["data"]))


class Browser:
    """``async with Browser() as page:`` a headless Chromium with one tab."""

    def __init__(self, width: int = 1300, height: int = 1000):
        self.size = (width, height)

    async def __aenter__(self) -> Page:
        exe = chromium()
        if exe is None:
            raise RuntimeError("chromium is not installed")
        # Chromium's helper processes (zygote, renderer, crashpad) may still write into the profile
        # for a moment after the browser exits, so it runs in its own process group, the whole group
        # is stopped at the end, and the profile is removed after it (with retries, never failing
        # a test).
        self.tmp = tempfile.TemporaryDirectory(
            prefix="dynasty-chromium-", ignore_cleanup_errors=True
        )
        self.proc = subprocess.Popen(
            [
                exe,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--remote-debugging-port=0",
                f"--user-data-dir={self.tmp.name}",
                f"--window-size={self.size[0]},{self.size[1]}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        port = None
        t = time.monotonic()
        while port is None and time.monotonic() - t < 60:
            line = self.proc.stderr.readline()
            m = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
            if m:
                port = int(m.group(1))
            elif not line and self.proc.poll() is not None:
                break
        if port is None:
            _stop_group(self.proc)
            raise RuntimeError("chromium did not start its DevTools endpoint")
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()  # keep the pipe drained
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as r:
            targets = await r.json(content_type=None)
        url = next(t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page")
        self.ws = await self.session.ws_connect(url, max_msg_size=0)
        page = Page(self.ws)
        for domain in ("Page", "Runtime", "Log"):
            await page.send(f"{domain}.enable")
        await page.send(
            "Emulation.setDeviceMetricsOverride",
            width=self.size[0],
            height=self.size[1],
            deviceScaleFactor=1,
            mobile=False,
        )
        return page

    async def __aexit__(self, *exc) -> None:
        try:
            await self.ws.close()
            await self.session.close()
        finally:
            _stop_group(self.proc)
            for _ in range(20):
                shutil.rmtree(self.tmp.name, ignore_errors=True)
                if not Path(self.tmp.name).exists():
                    break
                time.sleep(0.1)
            self.tmp.cleanup()


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop the browser and every process it started (they share its process group)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            continue
        # the browser is gone; give its helpers a moment to follow it
        t = time.monotonic()
        while time.monotonic() - t < wait:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
