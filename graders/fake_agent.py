"""The scripted conversation that `run_agent` is graded against (served by graders.trace.agent_server).

The model asks for two tools in a row, then ends (the lesson's "uma tarefa que chama
ferramentas duas vezes seguidas"). Responses are plain dicts shaped like the Messages API.
"""

from __future__ import annotations

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
