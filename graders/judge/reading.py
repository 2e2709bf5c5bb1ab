"""What a resume would read in a checkpoint file, and how to show it in a message: parsing as
json.loads would, where a resume would fail on it, the canonical form of a complete state, a file's
tail, the page's disk view."""

from __future__ import annotations

import codecs
import functools
import json

from .protocol import result_text

BOM = codecs.BOM_UTF8
BOM_NOTE = ("o arquivo começa com a marca BOM do UTF-8 (encoding=\"utf-8-sig\"), que json.loads recusa: "
            "grave com encoding=\"utf-8\"")


def parse(content: bytes | None):
    """The JSON document in `content`, or raise ValueError (what a resume's json.loads would hit: a
    UTF-8 BOM too, since the lesson's resume reads the file with encoding="utf-8")."""
    if content is None:
        raise ValueError("ausente")
    try:
        return json.loads(content.decode("utf-8"))
    except RecursionError:
        raise ValueError("aninhado demais") from None


def load_failure(content: bytes) -> str:
    """Where a resume that reads the file as UTF-8 text and hands the text to json.loads (the lesson's
    `open(..., encoding="utf-8")` and `json.load(f)`) would fail on `content`, named where it arises;
    "" if it would load. json.loads on a str never raises UnicodeDecodeError: reading the bytes does."""
    if not content:
        return "o texto lido seria vazio, e json.loads lançaria JSONDecodeError"
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        try:
            # Decodes unless the only fault is a character cut at the end of the file.
            codecs.getincrementaldecoder("utf-8")().decode(content, final=False)
            why = "o arquivo termina no meio de um caractere de vários bytes"
        except UnicodeDecodeError:
            why = "o arquivo tem bytes que não são UTF-8"
        return (f"a leitura do arquivo como texto UTF-8 lançaria UnicodeDecodeError ({why}), "
                "antes mesmo de chegar a json.loads")
    try:
        json.loads(text)
    except RecursionError:
        return "json.loads lançaria RecursionError (aninhamento fundo demais)"
    except ValueError:
        if content.startswith(BOM):
            return f"json.loads lançaria JSONDecodeError: {BOM_NOTE}"
        return "json.loads lançaria JSONDecodeError"
    return ""


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


CACHED_UP_TO = 64 << 10  # a checkpoint is a few KB; the cache keeps its keys alive, 4096 of them


def complete_key(content: bytes | None) -> str | None:
    """The canonical form of a complete checkpoint; None when it would not load."""
    if content is not None and len(content) > CACHED_UP_TO:
        return _complete_key(content)  # 4096 cuts of a 4 MB file would pin 16 GB in the cache
    return _cached_key(content)


def _complete_key(content: bytes | None) -> str | None:
    try:
        return canonical(parse(content))
    except (ValueError, UnicodeDecodeError):
        return None


_cached_key = functools.lru_cache(maxsize=4096)(_complete_key)


def left_on_disk(content: bytes) -> str:
    """`ficou com N bytes, terminando em “…”`: the end of a file says where a write was cut."""
    if not content:
        return "ficou vazio (0 bytes)"
    size = plural(len(content), 'byte', 'bytes')
    # Zero bytes at the end: a file grown (truncate, a mapping) before its data arrived.
    body = content.rstrip(b"\0")
    zeros = len(content) - len(body)
    if not body:
        return f"ficou com {size}, todos zero (\\0)"
    text = body.decode("utf-8", "replace").replace("\n", " ")
    tail = text[-60:] if len(text) > 60 else text
    if zeros:
        return f"ficou com {size}: “…{tail}” e depois {plural(zeros, 'byte zero', 'bytes zero')} (\\0)"
    return f"ficou com {size}, terminando em “…{tail}”"


def disk_view(crash: str, path: str, content: bytes | None) -> dict:
    """The page's disk view of one crash: what the file held, if it existed."""
    view = {"crash": crash, "path": path, "exists": content is not None}
    if content is not None:
        view["bytes"] = len(content)
        view["content"] = content[:4000].decode("utf-8", "replace")
    return view


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def asks_for(state: dict, tool_use_id: str) -> bool:
    """Whether an assistant message of `state` holds the tool_use block `tool_use_id`."""
    messages = state.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_use_id for b in m["content"])
        for m in messages
    )


def replies_in(state) -> int:
    """How many assistant messages (the model's replies) `state` holds."""
    messages = state.get("messages") if isinstance(state, dict) else None
    if not isinstance(messages, list):
        return 0
    return sum(1 for m in messages if isinstance(m, dict) and m.get("role") == "assistant")


def _result_blocks(state: dict) -> list:
    messages = state.get("messages")
    if not isinstance(messages, list):
        return []
    return [b for m in messages if isinstance(m, dict) and isinstance(m.get("content"), list)
            for b in m["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]


def result_ids(state: dict) -> list:
    """The tool_use_id of every tool_result block in `state`'s messages."""
    return [b.get("tool_use_id") for b in _result_blocks(state)]


def results_of(state: dict, tool_use_id: str) -> list:
    """The content of every tool_result block for `tool_use_id` in `state`'s messages."""
    return [b.get("content") for b in _result_blocks(state) if b.get("tool_use_id") == tool_use_id]


def has_result(state: dict, tool_use_id: str, text: str | None = None) -> bool:
    """Whether `state` holds the tool_result of `tool_use_id`; with `text`, one that carries that output (a
    string, or the API's text blocks): a placeholder filled in by a later save is not the result yet."""
    return any(text is None or result_text(content) == text for content in results_of(state, tool_use_id))
