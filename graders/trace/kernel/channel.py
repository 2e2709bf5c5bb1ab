"""What the runner sends the supervisor: its output (kept, and cut off by a flood limit) and the
JSON-lines channel on fd 3, whose requests are answered by the AgentServer."""

from __future__ import annotations

import json

from .errors import Stop

OUTPUT_KEEP = 20_000          # characters of output kept in the trace
FLOOD_LIMIT = 1_000_000       # bytes of output attempted before the run is stopped
MAX_LINE = 8 << 20            # one request on the model channel
MAX_OUTBOX = 64 << 20


class Channel:
    """Supervisor mixin: the writes to the output pipe and to the channel socket end here."""

    def _output(self, data: bytes):
        self.output_attempted += len(data)
        if len(self.output) < OUTPUT_KEEP * 4:
            self.output += data[:OUTPUT_KEEP * 4 - len(self.output)]
        if self.output_attempted > self.flood_limit:
            raise Stop("flood", {"output": self.flood_limit})

    def _channel(self, data: bytes):
        self.inbox += data
        while b"\n" in self.inbox:
            line, self.inbox = self.inbox.split(b"\n", 1)
            try:
                request = json.loads(line)
                if not isinstance(request, dict):
                    raise ValueError
                kind = request.get("t")
                if kind == "hello":
                    reply = self.setup
                    self.code_started = True  # from here on, the student's code may run
                elif kind == "end":
                    self.report = _clean_report(request)
                    self.end_seen = True
                    continue
                else:
                    reply = self.agent.handle(request)
            except (ValueError, RecursionError, TypeError):
                raise Stop("protocol") from None
            if self.agent.runaway:
                raise Stop("runaway", {"model_calls": self.agent.model_calls, "tool_calls": self.agent.tool_calls})
            self.outbox += (json.dumps(reply, ensure_ascii=False) + "\n").encode("utf-8")
            if len(self.outbox) > MAX_OUTBOX:
                raise Stop("protocol")
        if len(self.inbox) > MAX_LINE:
            raise Stop("protocol")


def _clean_report(raw: dict) -> dict:
    out = {}
    for key in ("kind", "phase", "exc_type", "exc_text", "lineno", "frames", "syntax"):
        if key in raw:
            out[key] = raw[key]
    text = json.dumps(out)
    return out if len(text) < 100_000 else {"kind": str(out.get("kind"))[:20]}

