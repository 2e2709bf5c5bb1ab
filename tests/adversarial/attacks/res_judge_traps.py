# Attack: leave checkpoint.json (and files beside it) as traps for a judge that reads the
# folder from outside after the process died: a FIFO (open blocks), a symlink to /dev/zero
# (endless read), to /dev/stdin, a symlink loop, a directory, 20 000 files, nesting 400 deep.
import os

KIND = "@@KIND@@"


def plant():
    name = "checkpoint.json"
    try:
        if os.path.isdir(name) and not os.path.islink(name):
            return
        if os.path.lexists(name):
            os.unlink(name)
        if KIND == "fifo":
            os.mkfifo(name)
        elif KIND == "devzero":
            os.symlink("/dev/zero", name)
        elif KIND == "stdin":
            os.symlink("/proc/self/fd/0", name)
        elif KIND == "loop":
            os.symlink(name, name)
        elif KIND == "directory":
            os.mkdir(name)
        elif KIND == "many":
            os.makedirs("muitos", exist_ok=True)
            for i in range(20000):
                with open(f"muitos/{i}.json", "w") as f:
                    f.write("{}")
            os.symlink("/dev/zero", name)
        elif KIND == "deep":
            path = "/".join(["p"] * 400)
            os.makedirs(path, exist_ok=True)
            os.mkfifo(os.path.join(path, name))
            os.mkfifo(name)
    except OSError:
        pass


def run_agent(task, tools, call_model, execute_tool):
    plant()
    messages = [{"role": "user", "content": task}]
    response = call_model(tools=tools, messages=messages)
    turns = 0
    while response["stop_reason"] == "tool_use":
        block = next(b for b in response["content"] if b["type"] == "tool_use")
        messages.append({"role": "assistant", "content": response["content"]})
        plant()
        result = execute_tool(block["name"], block["input"])
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": block["id"], "content": result}]})
        turns += 1
        plant()
        response = call_model(tools=tools, messages=messages)
    return {"version": 1, "task": task, "turns": turns, "tokensUsed": 0, "messages": messages, "pendingToolUse": None}


plant()
