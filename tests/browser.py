"""A real headless Chromium for the tests that need a browser: one-shot runs (``--dump-dom``,
``--screenshot``) and a live page driven over the DevTools protocol. ``.ci/run`` installs
Chromium; without it these tests skip, except in CI, where they fail."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is missing (.ci/run installs it)")
    pytest.skip("chromium is not installed")


def run_browser(tmp: Path, *args: str, size: str = "1200,900"
                ) -> subprocess.CompletedProcess[str]:
    """One browser run to its end (``--dump-dom URL``, ``--screenshot=FILE URL``)."""
    cmd = [chromium(), *FLAGS, f"--user-data-dir={tmp / 'profile'}", f"--window-size={size}",
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


class LivePage:
    """A page left open in a headless Chromium; :meth:`evaluate` runs JavaScript in it (the
    DevTools protocol over a WebSocket, with aiohttp's client)."""

    def __init__(self, tmp: Path, url: str) -> None:
        profile = tmp / "live-profile"
        self._process = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            assert time.monotonic() < deadline, "Chromium did not open its DevTools port"
            time.sleep(0.1)
        self._port = int(port_file.read_text().split()[0])
        self._url = url
        self._loop = asyncio.new_event_loop()
        self._ids = 0

    def evaluate(self, expression: str) -> Any:
        return self._loop.run_until_complete(self._evaluate(expression))

    async def _evaluate(self, expression: str) -> Any:
        import aiohttp

        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{self._port}/json/list") as listing:
                targets = await listing.json(content_type=None)
            (page,) = [t for t in targets if t["type"] == "page" and t["url"] == self._url]
            async with session.ws_connect(page["webSocketDebuggerUrl"]) as ws:
                self._ids += 1
                await ws.send_str(json.dumps({
                    "id": self._ids, "method": "Runtime.evaluate",
                    "params": {"expression": expression, "returnByValue": True}}))
                async for message in ws:
                    answer = json.loads(message.data)
                    if answer.get("id") == self._ids:
                        return answer["result"]["result"].get("value")
        raise AssertionError("no answer from the page")

    def wait_for(self, expression: str, timeout: float = 30) -> Any:
        """The first truthy value of ``expression``, polled."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            assert time.monotonic() < deadline, f"never true in the page: {expression}"
            time.sleep(0.1)

    def close(self) -> None:
        self._process.kill()
        self._process.wait(10)
        self._loop.close()
