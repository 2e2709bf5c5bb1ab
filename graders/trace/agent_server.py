"""The fake model and tools of the exercise, served by the trusted side of a run (the CLI's
supervisor, or the browser's grader): each request and reply becomes a point in the trace."""

from __future__ import annotations

import json

from ..fake_agent import MAX_MODEL_CALLS, script
from .ops import Event

# Parsed once and only read: every reply handed to student code is a fresh JSON copy.
_SCRIPT_TEXT = json.dumps(script())
_SCRIPT = json.loads(_SCRIPT_TEXT)
# Bound at import: in the browser this server runs inside the student's interpreter, during the run,
# where the code may have rebound json.loads or json.dumps.
_encode = json.JSONEncoder().encode
_decode = json.JSONDecoder().decode


class AgentServer:
    """`handle(request) -> reply` for the runner's requests; `record(event)` keeps their order
    among the file-system events (the caller's trace list, or the browser tap's)."""

    def __init__(self, record):
        self.record = record
        self.model_calls = 0
        self.tool_calls = 0
        self.returned = 0
        self.runaway = False

    def handle(self, request) -> dict | None:
        """None for requests that get no reply ("end"); raises ValueError on a malformed one."""
        if not isinstance(request, dict):
            raise ValueError("pedido")
        kind = request.get("t")
        if kind == "model":
            return self._model(request)
        if kind == "tool":
            return self._tool(request)
        if kind == "returned":
            self.returned += 1
            self.record(Event("returned", call=self.returned))
            return {}
        raise ValueError("pedido")

    def _model(self, request: dict) -> dict:
        if self.model_calls >= MAX_MODEL_CALLS:
            self.runaway = True
            return {"runaway": True}
        self.model_calls += 1
        self.record(Event("model", call=self.model_calls,
                          payload={"messages": request.get("messages"), "tools": request.get("tools")}))
        responses = _SCRIPT["responses"]
        response = responses[min(self.model_calls, len(responses)) - 1]
        return {"response": _decode(_encode(response))}

    def _tool(self, request: dict) -> dict:
        if self.tool_calls >= MAX_MODEL_CALLS:
            self.runaway = True
            return {"runaway": True}
        self.tool_calls += 1
        name = request.get("name")
        name = name[:200] if isinstance(name, str) else repr(name)[:200]
        self.record(Event("tool", call=self.tool_calls, payload={"name": name, "input": request.get("input")}))
        results = _SCRIPT["tool_results"]
        if name not in results:
            return {"error": f"ferramenta desconhecida: {name!r}"}
        return {"result": results[name]}
