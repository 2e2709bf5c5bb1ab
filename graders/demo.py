"""The lesson's "mate o processo" demo: three versions of save_checkpoint, each run once and traced,
then "killed" at random moments by replaying the trace (graders.replay): how often each left a
checkpoint.json a resume could not read, with the process killed and with a power loss."""

from __future__ import annotations

import random

from .judge.nivel1 import sample_states
from .judge.reading import complete_key, plural
from .replay.folder import Folder, write_into
from .trace.ops import FILE_CALLS

WRITERS = {
    "no-lugar": (
        "Sobrescrever no lugar",
        "import json\n\n\ndef save_checkpoint(state):\n"
        "    with open(\"checkpoint.json\", \"w\", encoding=\"utf-8\") as f:\n"
        "        json.dump(state, f, ensure_ascii=False, indent=2)\n",
    ),
    "atomico": (
        "Temporário + os.replace",
        "import json\nimport os\n\n\ndef save_checkpoint(state):\n"
        "    with open(\"checkpoint.json.tmp\", \"w\", encoding=\"utf-8\") as f:\n"
        "        json.dump(state, f, ensure_ascii=False, indent=2)\n"
        "    os.replace(\"checkpoint.json.tmp\", \"checkpoint.json\")\n",
    ),
    "duravel": (
        "Temporário + os.fsync + os.replace + os.fsync do diretório",
        "import json\nimport os\n\n\ndef save_checkpoint(state):\n"
        "    with open(\"checkpoint.json.tmp\", \"w\", encoding=\"utf-8\") as f:\n"
        "        json.dump(state, f, ensure_ascii=False, indent=2)\n"
        "        f.flush()\n"
        "        os.fsync(f.fileno())\n"
        "    os.replace(\"checkpoint.json.tmp\", \"checkpoint.json\")\n"
        "    diretorio = os.open(\".\", os.O_RDONLY)\n"
        "    try:\n"
        "        os.fsync(diretorio)\n"
        "    finally:\n"
        "        os.close(diretorio)\n",
    ),
}
SHOWN_BYTES = 240
PATH = ["checkpoint.json"]


def _kill(trace, index: int, cut: int | None):
    """checkpoint.json after a kill just after event `index` (or inside it, after `cut` bytes of a write):
    as the killed process leaves it, and as a power loss could (the worse of the model's two views;
    None for a cut write, which the demo counts as a killed process only)."""
    folder = Folder(trace.roots)
    for ev in trace.events[:index]:
        folder.apply(ev)
    ev = trace.events[index]
    if cut is None:
        folder.apply(ev)
    elif ev.node in folder.nodes:
        write_into(folder.nodes[ev.node].data, ev.offset, ev.data[:cut])
    root = trace.root("work").node
    killed = folder.content(folder.lookup(root, PATH))
    if cut is not None:
        return killed, None
    views = [folder.content(folder.lookup(root, PATH, durable=True), durable=True),
             folder.content(folder.lookup(root, PATH), durable=True)]
    unreadable = [v for v in views if v is not None and complete_key(v) is None]
    return killed, (unreadable[0] if unreadable else None if None in views else views[1])


def run(kills: int = 30, seed: int | None = None, run_code=None) -> dict:
    """{"writers": [{"id", "name", "code", "kills", "unreadable", "absent", "power": {"kills", "unreadable",
    "absent"}, "example"}]}; `example` is one torn file, its last bytes from offset `start`."""
    from .grading import default_run

    rng = random.Random(seed)
    job = {"function": "save_checkpoint", "states": sample_states() * 2, "missing": "save_checkpoint"}
    writers = []
    for writer_id, (name, code) in WRITERS.items():
        trace = (run_code or default_run())(code, f"{writer_id}.py", job)
        fs = [i for i, ev in enumerate(trace.events) if ev.ok and ev.kind in FILE_CALLS]
        writes = [i for i in fs if trace.events[i].kind == "write" and len(trace.events[i].data) > 1]
        counts = {"unreadable": 0, "absent": 0}
        power = {"kills": 0, "unreadable": 0, "absent": 0}
        example = None
        for _ in range(kills):
            # A random moment: just after some call, or in the middle of some write.
            if writes and rng.random() < 0.5:
                index = rng.choice(writes)
                moment = (index, rng.randrange(1, len(trace.events[index].data)))
            else:
                moment = (rng.choice(fs) if fs else 0, None)
            killed, lost = _kill(trace, *moment)
            if killed is None:
                counts["absent"] += 1
            elif complete_key(killed) is None:
                counts["unreadable"] += 1
                if example is None or (not example["size"] and killed):
                    start = max(0, len(killed) - SHOWN_BYTES)
                    example = {"bytes": list(killed[start:]), "start": start, "size": len(killed),
                               "where": _where(trace.events[moment[0]], moment[1])}
            if moment[1] is None:
                power["kills"] += 1
                if lost is None:
                    power["absent"] += 1
                elif complete_key(lost) is None:
                    power["unreadable"] += 1
        writers.append({"id": writer_id, "name": name, "code": code, "kills": kills, **counts,
                        "power": power, "example": example})
    return {"writers": writers}


def _where(ev, cut) -> str:
    name = ev.path.rsplit("/", 1)[-1] or "?"
    if cut is not None:
        return (f"no meio da escrita de {plural(len(ev.data), 'byte', 'bytes')} em {name}, "
                f"depois de {plural(cut, 'byte', 'bytes')}")
    return "logo depois " + {
        "open": f"da abertura de {name}", "write": f"da escrita em {name}", "rename": f"da renomeação de {name}",
        "fsync": f"do os.fsync de {name}", "truncate": f"do truncamento de {name}",
    }.get(ev.kind, f"da operação {ev.kind} em {name}")
