"""Firefox and WebKitGTK as the core-path test drives them: Debian's `firefox-esr` over WebDriver BiDi
(a WebSocket, no geckodriver) and WebKitGTK's MiniBrowser through `WebKitWebDriver` under a virtual
display. Both offer the same three calls: open a page, reload it, run an async function in it."""

from __future__ import annotations

import itertools
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

FIREFOX = os.environ.get("FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
XVFB_RUN = shutil.which("xvfb-run") or "/usr/bin/xvfb-run"
# Start-up and every page script are given this long: a loaded 2-core machine is slow, not stuck.
START_TIMEOUT_S = 120
SCRIPT_TIMEOUT_S = 420

# Firefox without its own background traffic (this machine reaches no other host), and with
# downloads saved where the test looks, without asking.
FIREFOX_PREFS = {
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "extensions.update.enabled": False,
    "app.update.disabledForTesting": True,
    "services.settings.server": "http://127.0.0.1:9/",
    "browser.download.folderList": 2,
    "browser.download.useDownloadDir": True,
    "browser.download.always_ask_before_handling_new_types": False,
    "browser.download.manager.showWhenStarting": False,
}


def minibrowser() -> str:
    """WebKitGTK's MiniBrowser (libwebkit2gtk-4.1-0 installs it outside PATH)."""
    found = sorted(Path("/usr/lib").glob("*/webkit2gtk-4.1/MiniBrowser"))
    return str(found[0]) if found else ""


def missing_engine(name: str) -> str:
    """Why `name` cannot run here ("" when it can): `make engines` installs what is missing."""
    if name == "firefox":
        return "" if Path(FIREFOX).is_file() else f"Firefox não encontrado em {FIREFOX} (pacote firefox-esr)"
    if name == "webkit":
        if not Path(WEBKIT_DRIVER).is_file():
            return f"WebKitWebDriver não encontrado em {WEBKIT_DRIVER} (pacote webkit2gtk-driver)"
        if not minibrowser():
            return "MiniBrowser não encontrado em /usr/lib/*/webkit2gtk-4.1/ (pacote libwebkit2gtk-4.1-0)"
        if not Path(XVFB_RUN).is_file():
            return "xvfb-run não encontrado (pacote xvfb)"
        return ""
    return f"motor desconhecido: {name}"


# A page function runs as `async (...args) => value`; its value comes back through JSON.
def _wrapped(function: str) -> str:
    return f"async (argsJson) => JSON.stringify(await ({function})(...JSON.parse(argsJson)) ?? null)"


class Firefox:
    """firefox-esr, headless, driven over WebDriver BiDi."""

    name = "firefox"

    def __init__(self, profile: Path, downloads: Path):
        import websocket

        profile.mkdir(parents=True, exist_ok=True)
        downloads.mkdir(parents=True, exist_ok=True)
        prefs = {**FIREFOX_PREFS, "browser.download.dir": str(downloads)}
        (profile / "user.js").write_text(
            "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items()), encoding="utf-8")
        self.downloads = downloads
        self.process = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", str(profile), "--remote-debugging-port", "0",
             "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
            env={**os.environ, "MOZ_CRASHREPORTER_DISABLE": "1"},
        )
        address = self._address()
        self.version = ""
        self.ws = websocket.create_connection(f"{address}/session", timeout=SCRIPT_TIMEOUT_S + 30,
                                              suppress_origin=True)
        self.ids = itertools.count(1)
        session = self.send("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})
        self.version = f"Firefox {session['capabilities'].get('browserVersion', '?')}"
        tree = self.send("browsingContext.getTree", {})
        self.context = tree["contexts"][0]["context"]

    def _address(self) -> str:
        lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=lambda: [lines.put(line) for line in self.process.stderr], daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        seen = []
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=1)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            seen.append(line)
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found:
                return found.group(1)
        self.close()
        raise RuntimeError("o Firefox não abriu o WebDriver BiDi:\n" + "".join(seen[-20:]))

    def send(self, method: str, params: dict) -> dict:
        command_id = next(self.ids)
        self.ws.send(json.dumps({"id": command_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") != command_id:
                continue  # events: none subscribed, but be safe
            if message.get("type") == "error":
                raise RuntimeError(f"{method}: {message.get('error')}: {message.get('message')}")
            return message["result"]

    def goto(self, url: str) -> None:
        self.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"})

    def reload(self) -> None:
        self.send("browsingContext.reload", {"context": self.context, "wait": "complete"})

    def call(self, function: str, *args):
        result = self.send("script.callFunction", {
            "functionDeclaration": _wrapped(function), "awaitPromise": True,
            "target": {"context": self.context},
            "arguments": [{"type": "string", "value": json.dumps(args)}],
        })
        if result.get("type") == "exception":
            details = result.get("exceptionDetails", {})
            raise RuntimeError(f"erro na página: {details.get('text')}")
        return json.loads(result["result"]["value"])

    def close(self) -> None:
        try:
            if getattr(self, "ws", None):
                try:
                    self.send("browser.close", {})
                except Exception:
                    pass
                self.ws.close()
        finally:
            _end(self.process)


class WebKit:
    """WebKitGTK's MiniBrowser through WebKitWebDriver (selenium), on a virtual display of its own."""

    name = "webkit"

    def __init__(self):
        from selenium import webdriver
        from selenium.webdriver.remote.client_config import ClientConfig
        from selenium.webdriver.remote.remote_connection import RemoteConnection
        from selenium.webdriver.webkitgtk.options import Options

        port = _free_port()
        # xvfb-run gives the driver (and the MiniBrowser it starts) a display of their own.
        self.process = subprocess.Popen(
            [XVFB_RUN, "-a", "-s", "-screen 0 1280x900x24", WEBKIT_DRIVER, f"--port={port}", "--host=127.0.0.1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        _wait_port(port, self.process)
        options = Options()
        options.binary_location = minibrowser()
        options.add_argument("--automation")  # without it the session never starts
        try:
            config = ClientConfig(remote_server_addr=f"http://127.0.0.1:{port}", timeout=SCRIPT_TIMEOUT_S + 30)
            self.driver = webdriver.Remote(command_executor=RemoteConnection(client_config=config), options=options)
        except Exception:
            _end(self.process)
            raise
        self.driver.set_script_timeout(SCRIPT_TIMEOUT_S)
        self.driver.set_page_load_timeout(SCRIPT_TIMEOUT_S)
        caps = self.driver.capabilities
        self.version = f"WebKitGTK {caps.get('browserVersion', '?')}"

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def call(self, function: str, *args):
        script = ("const done = arguments[arguments.length - 1];"
                  f" ({_wrapped(function)})(arguments[0]).then(done, (e) => done(JSON.stringify({{__error: String(e)}})));")
        value = json.loads(self.driver.execute_async_script(script, json.dumps(args)))
        if isinstance(value, dict) and "__error" in value:
            raise RuntimeError(f"erro na página: {value['__error']}")
        return value

    def close(self) -> None:
        try:
            self.driver.quit()
        except Exception:
            pass
        finally:
            _end(self.process)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"WebKitWebDriver terminou ao iniciar (código {process.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    _end(process)
    raise RuntimeError("WebKitWebDriver não abriu sua porta")


def _end(process: subprocess.Popen) -> None:
    """The browser and everything it started (its own session): nothing is left running."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait(timeout=10)
    else:
        try:
            os.killpg(process.pid, signal.SIGKILL)  # children it left behind
        except ProcessLookupError:
            pass
