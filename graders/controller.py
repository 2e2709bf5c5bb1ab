"""Controller: the trusted side of one run. Answers the executor's reports, serves the scripted
model and tools, decides the crash, and records what it saw (never trusting what it is told).

The same controller serves an executor in another process (CLI, over a socket) and one in
the same interpreter (browser): `handle(message) -> answer`, where `KILL` means "this
process dies now" (the CLI kills it; in the browser the executor raises SimulatedCrash).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .fake_agent import MAX_MODEL_CALLS, script

MAX_OPS = 2000
MAX_DATA = 16 * 1024 * 1024  # bytes written in one run
MAX_TEXT = 4096
OP_KINDS = {"open", "write", "close", "fsync", "replace", "rename", "remove", "truncate", "mkdir", "rmdir", "tool"}
GO = {"a": "go"}
KILL = {"a": "die"}
# Parsed once and only read: answers share it, so whoever hands an answer to student code copies
# it first (the CLI's socket does by serializing; graders.runs.LocalRunner by a JSON copy).
_SCRIPT = script()


@dataclass(frozen=True)
class CrashPlan:
    op_index: int
    # None: the process dies just before the operation; K: a write torn after K bytes.
    torn_at: int | None = None


@dataclass
class Op:
    index: int
    kind: str
    path: str
    target: str = ""
    data: bytes = b""
    offset: int = 0
    length: int = 0
    trunc: bool = False
    create: bool = False
    still_open: bool = False
    input: object = None
    model_calls: int = 0  # model responses served before this operation
    failed: bool = False  # the OS refused it (no such file...): it changed nothing

    @property
    def size(self) -> int:
        return len(self.data)

    def same_step(self, other: "Op") -> bool:
        """Do two runs agree on this step? Names may differ (a pid in a tmp name), not the kind of step."""
        if self.kind != other.kind:
            return False
        return self.kind != "tool" or self.path == other.path


@dataclass
class RunLog:
    plan: CrashPlan | None
    ops: list[Op] = field(default_factory=list)
    model_calls: list[dict] = field(default_factory=list)  # {"messages", "tools"}, as received
    tool_calls: list[tuple[str, object]] = field(default_factory=list)
    tokens_emitted: int = 0
    end: dict | None = None  # the executor's own account of how it ended (untrusted)
    # How the run stopped, as the controller saw it: "" (ended by itself), "crash" (killed at
    # the plan), "runaway", "protocol" (garbled reports), "lost" (died unasked), "timeout".
    stopped: str = ""
    torn: bool = False
    disk: dict = field(default_factory=dict)  # graders.disk.read_tree after the run
    pauses: list[dict] = field(default_factory=list)  # nivel-1: the disk after each call returned

    @property
    def finished(self) -> bool:
        """The script's last answer (end_turn) had been served."""
        return len(self.model_calls) >= len(_SCRIPT["responses"])


class ProtocolError(Exception):
    pass


def _text(value, name: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ProtocolError(f"campo {name} inválido")
    return value


def _int(value, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << 40:
        raise ProtocolError(f"campo {name} inválido")
    return value


class RunController:
    """One run: `handle` each report in order; read `log` afterwards."""

    def __init__(self, plan: CrashPlan | None = None, read_disk=None):
        self.log = RunLog(plan)
        self.script = _SCRIPT
        self.read_disk = read_disk
        self.data_total = 0

    def handle(self, message) -> dict:
        try:
            return self._handle(message)
        except ProtocolError:
            self.log.stopped = self.log.stopped or "protocol"
            return KILL

    def _handle(self, message) -> dict:
        if not isinstance(message, dict):
            raise ProtocolError("mensagem")
        kind = message.get("t")
        if kind == "op":
            return self._op(message)
        if kind == "model":
            return self._model(message)
        if kind == "returned":
            if self.read_disk is not None:
                self.log.pauses.append(self.read_disk())
            return GO
        if kind == "failed":
            if self.log.ops:
                self.log.ops[-1].failed = True
            return GO
        if kind == "end":
            self.log.end = message
            return GO
        raise ProtocolError("tipo")

    def _op(self, message: dict) -> dict:
        log = self.log
        kind = message.get("kind")
        if kind == "torn":
            log.stopped = "crash"
            return KILL
        if kind not in OP_KINDS:
            raise ProtocolError("operação")
        op = Op(len(log.ops) + 1, kind, _text(message.get("path", ""), "path"), model_calls=len(log.model_calls))
        if op.index > MAX_OPS:
            log.stopped = "runaway"
            return KILL
        if kind == "write":
            data = message.get("data")
            if not isinstance(data, str):
                raise ProtocolError("data")
            try:
                op.data = data.encode("latin-1")
            except UnicodeEncodeError:
                raise ProtocolError("data") from None
            op.offset = _int(message.get("offset"), "offset")
            self.data_total += len(op.data)
            if self.data_total > MAX_DATA:
                log.stopped = "runaway"
                return KILL
        elif kind in ("replace", "rename"):
            op.target = _text(message.get("target", ""), "target")
            op.still_open = message.get("still_open") is True
        elif kind == "truncate":
            op.length = _int(message.get("length"), "length")
        elif kind == "open":
            op.trunc, op.create = message.get("trunc") is True, message.get("create") is True
        elif kind == "tool":
            op.input = message.get("input")
        log.ops.append(op)
        plan = log.plan
        if plan is not None and plan.op_index == op.index:
            if plan.torn_at is not None and kind == "write":
                log.torn = True
                return {"a": "tear", "n": plan.torn_at}
            log.stopped = "crash"
            return KILL
        if kind == "tool":
            return self._tool(op)
        return GO

    def _tool(self, op: Op) -> dict:
        log = self.log
        if len(log.tool_calls) >= MAX_MODEL_CALLS:
            log.stopped = "runaway"
            return KILL
        log.tool_calls.append((op.path, op.input))  # op.input is the report's own JSON copy
        results = self.script["tool_results"]
        if op.path not in results:
            return {"a": "go", "error": f"ferramenta desconhecida: {op.path!r}"}
        return {"a": "go", "result": results[op.path]}

    def _model(self, message: dict) -> dict:
        log = self.log
        if len(log.model_calls) >= MAX_MODEL_CALLS:
            log.stopped = "runaway"
            return {"a": "runaway"}
        log.model_calls.append({"messages": message.get("messages"), "tools": message.get("tools")})
        responses = self.script["responses"]
        response = responses[min(len(log.model_calls), len(responses)) - 1]
        log.tokens_emitted += response["usage"]["output_tokens"]
        return {"a": "go", "response": response}
