"""The scripted fake model and tools that `run_agent` is graded against.

The model asks for two tools in a row, then ends (the lesson's "uma tarefa que chama
ferramentas duas vezes seguidas"). Responses are plain dicts shaped like the Messages API.
"""

from __future__ import annotations

import copy
import json


TASK = (
    "Classificar os tickets de suporte do último trimestre por tipo de problema "
    "e consolidá-los em uma única tabela"
)

_TOOLS = [
    {
        "name": "buscar_tickets",
        "description": "Busca os tickets de suporte de um trimestre.",
        "input_schema": {"type": "object", "properties": {"trimestre": {"type": "string"}}},
    },
    {
        "name": "gravar_tabela",
        "description": "Grava a tabela consolidada em um arquivo CSV.",
        "input_schema": {"type": "object", "properties": {"arquivo": {"type": "string"}}},
    },
]

_TOOL_USES = [
    {"type": "tool_use", "id": "toolu_01A", "name": "buscar_tickets", "input": {"trimestre": "2026-T3"}},
    {
        "type": "tool_use",
        "id": "toolu_02B",
        "name": "gravar_tabela",
        "input": {"arquivo": "tickets_por_tipo.csv", "colunas": ["tipo", "quantidade"]},
    },
]

_TOOL_RESULTS = {
    "buscar_tickets": "412 tickets encontrados: 180 de login, 131 de cobrança, 101 de lentidão.",
    "gravar_tabela": "Tabela gravada em tickets_por_tipo.csv (3 linhas).",
}

_RESPONSES = [
    {
        "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "Vou buscar os tickets do trimestre."}, _TOOL_USES[0]],
        "usage": {"input_tokens": 310, "output_tokens": 57},
    },
    {
        "stop_reason": "tool_use",
        "content": [{"type": "text", "text": "Agora gravo a tabela consolidada."}, _TOOL_USES[1]],
        "usage": {"input_tokens": 402, "output_tokens": 64},
    },
    {
        "stop_reason": "end_turn",
        "content": [{"type": "text", "text": "Pronto: 412 tickets classificados em 3 tipos."}],
        "usage": {"input_tokens": 489, "output_tokens": 21},
    },
]

# Kept as text, which nothing can edit in place: every user of the script gets its own copy.
_SCRIPT_JSON = json.dumps(
    {"tools": _TOOLS, "tool_uses": _TOOL_USES, "tool_results": _TOOL_RESULTS, "responses": _RESPONSES}
)
del _TOOLS, _TOOL_USES, _TOOL_RESULTS, _RESPONSES

MAX_MODEL_CALLS = 20


def script() -> dict:
    """A fresh copy of the conversation script: tools, tool_uses, tool_results, responses."""
    return json.loads(_SCRIPT_JSON)


class AgentLoopRunaway(BaseException):
    """run_agent kept calling the model or the tools long after the script ended."""


class FakeAgentWorld:
    """One scripted conversation; records what the student's loop sent and ran."""

    def __init__(self, tracer=None, on_model_call=None):
        self.tracer = tracer
        self.script = script()
        self.on_model_call = on_model_call
        self.model_calls: list[dict] = []  # {"messages": deep copy, "tools": ...}
        self.tool_calls: list[tuple[str, object]] = []
        self.tokens_emitted = 0

    def _alive(self):
        if self.tracer is not None:
            self.tracer.check_alive()

    def call_model(self, *args, tools=None, messages=None, **kwargs):
        self._alive()
        if args or messages is None:
            raise TypeError("call_model deve ser chamado como call_model(tools=..., messages=...)")
        if len(self.model_calls) >= MAX_MODEL_CALLS:
            raise AgentLoopRunaway()
        self.model_calls.append({"messages": copy.deepcopy(messages), "tools": tools})
        if self.on_model_call is not None:
            self.on_model_call(len(self.model_calls))
        responses = self.script["responses"]
        response = copy.deepcopy(responses[min(len(self.model_calls), len(responses)) - 1])
        self.tokens_emitted += response["usage"]["output_tokens"]
        return response

    def execute_tool(self, name, input):
        self._alive()
        if len(self.tool_calls) >= MAX_MODEL_CALLS:
            raise AgentLoopRunaway()
        self.tool_calls.append((name, copy.deepcopy(input)))
        if self.tracer is not None:
            # The tool runs between save points A and B: a crash can land inside it.
            self.tracer.step("tool", name, tool_call=len(self.tool_calls))
        if name not in self.script["tool_results"]:
            raise KeyError(f"ferramenta desconhecida: {name!r}")
        return self.script["tool_results"][name]

