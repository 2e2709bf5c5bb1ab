"""What a valid `checkpoint.json` of the lesson's protocol looks like, checked field by field."""

from __future__ import annotations

import json

FIELDS = ("version", "task", "turns", "tokensUsed", "messages", "pendingToolUse")
PENDING_KEYS = {"id", "name", "input"}


def brief(value, limit: int = 90) -> str:
    """A short JSON rendering of a value for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def tool_results_in(messages) -> int:
    count = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            count += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return count


def result_text(content) -> str | None:
    """A tool_result's content as text: the string itself, or the API's list of text blocks joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and content and all(
            isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str) for b in content):
        return "".join(b["text"] for b in content)
    return None


def last_tool_use(messages) -> dict | None:
    """The tool_use block of the last message, when that message is the assistant's."""
    if not messages or not isinstance(messages[-1], dict) or messages[-1].get("role") != "assistant":
        return None
    content = messages[-1].get("content")
    if not isinstance(content, list):
        return None
    return next((b for b in content if isinstance(b, dict) and b.get("type") == "tool_use"), None)


def problems(state, *, task: str, conversation: list, tokens_allowed: set[int]) -> list[str]:
    """Everything wrong with one saved state (empty list: it is a valid checkpoint).

    `conversation` is the longest `messages` the model was sent in this run: a saved
    `messages` must be a prefix of it (or it plus the model's final answer).
    `tokens_allowed`: the accumulated output_tokens at that moment (with or without the first answer).
    """
    if not isinstance(state, dict):
        return [f"o checkpoint não é um objeto JSON, e sim {brief(state)}"]
    found = []
    missing = [f for f in FIELDS if f not in state]
    extra = [k for k in state if k not in FIELDS]
    if missing:
        found.append("faltam os campos " + ", ".join(f"`{f}`" for f in missing))
    if extra:
        found.append("sobram campos que não são do protocolo: " + ", ".join(f"`{k}`" for k in extra))
    if "version" in state and not (_is_int(state["version"]) and state["version"] == 1):
        found.append(f"`version` deveria ser 1, mas é {brief(state['version'])}")
    if "task" in state and state["task"] != task:
        found.append(f"`task` deveria ser a tarefa recebida ({brief(task, 50)}), mas é {brief(state['task'])}")
    messages = state.get("messages")
    if "messages" in state:
        if not isinstance(messages, list) or not messages:
            found.append(f"`messages` deveria ser a lista de mensagens enviada ao modelo, mas é {brief(messages)}")
            messages = None
        elif not _is_prefix(messages, conversation):
            found.append(
                "`messages` não é a conversa que o modelo recebeu: "
                f"{len(messages)} {'mensagem' if len(messages) == 1 else 'mensagens'}, a última {brief(messages[-1], 70)}"
            )
            messages = None
    if "turns" in state:
        turns = state["turns"]
        if not _is_int(turns):
            found.append(f"`turns` deveria ser um inteiro, mas é {brief(turns)}")
        elif messages is not None and turns != tool_results_in(messages):
            done = tool_results_in(messages)
            found.append(
                f"`turns` é {turns}, mas `messages` registra {done} "
                + ("ferramenta concluída" if done == 1 else "ferramentas concluídas")
            )
    if "tokensUsed" in state:
        tokens = state["tokensUsed"]
        if not _is_int(tokens):
            found.append(f"`tokensUsed` deveria ser um inteiro, mas é {brief(tokens)}")
        elif tokens not in tokens_allowed:
            found.append(
                # Only the full sum is named: a count that skips the first answer is tolerated (the seed's
                # loop sums inside the while), never advised.
                f"`tokensUsed` é {tokens}, mas a soma de usage.output_tokens de todas as respostas recebidas até "
                f"ali, a primeira inclusive, é {max(tokens_allowed)}"
            )
    if "pendingToolUse" in state:
        pending = state["pendingToolUse"]
        if pending is not None:
            if not isinstance(pending, dict) or set(pending) != PENDING_KEYS:
                found.append(
                    f"`pendingToolUse` deveria ser null ou {{id, name, input}}, mas é {brief(pending)}"
                )
            elif messages is not None:
                block = last_tool_use(messages)
                expected = {k: block[k] for k in PENDING_KEYS if k in block} if block else None
                if pending != expected:
                    found.append(
                        f"`pendingToolUse` é {brief(pending)}, mas não corresponde à ferramenta pedida "
                        "na última mensagem do assistente"
                    )
    return found


def _is_prefix(messages: list, conversation: list) -> bool:
    if len(messages) <= len(conversation):
        return messages == conversation[: len(messages)]
    # Saved after appending the model's final answer: one assistant message more.
    extra = messages[len(conversation):]
    return (
        messages[: len(conversation)] == conversation
        and len(extra) == 1
        and isinstance(extra[0], dict)
        and extra[0].get("role") == "assistant"
    )
