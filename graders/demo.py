"""The lesson's "mate o processo" demo: two writers, each killed at random moments by the graders' own
crash machinery, and how many times each left a checkpoint.json a resume could not read."""

from __future__ import annotations

import random

from .controller import CrashPlan
from .nivel2 import complete_key, describe_op
from .nivel1 import sample_states
from .runs import LocalRunner

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
}
SHOWN_BYTES = 240


def run(kills: int = 30, seed: int | None = None) -> dict:
    """{"writers": [{"id", "name", "code", "kills", "unreadable", "absent", "example"}]}; `example` is
    one torn file, its last bytes from offset `start` (None when no kill tore one)."""
    rng = random.Random(seed)
    states = sample_states() * 2  # four saves in a row: A, B, A, B
    job = {"function": "save_checkpoint", "states": states, "missing": "save_checkpoint"}
    writers = []
    for writer_id, (name, code) in WRITERS.items():
        runner = LocalRunner(code, f"{writer_id}.py", job)
        try:
            reference = runner.run(None)
            writes = [op for op in reference.ops if op.kind == "write" and op.size > 1]
            unreadable = absent = 0
            example = None
            for _ in range(kills):
                # A random moment: just before some step, or inside some write (as a power cut would).
                if writes and rng.random() < 0.5:
                    op = rng.choice(writes)
                    plan = CrashPlan(op.index, rng.randrange(1, op.size))
                else:
                    plan = CrashPlan(rng.randrange(1, len(reference.ops) + 1))
                log = runner.run(plan)
                content = log.disk.get("trabalho/checkpoint.json")
                if content is None:
                    absent += 1
                elif complete_key(content) is None:  # what a resume's json.loads would choke on
                    unreadable += 1
                    if example is None or (not example["bytes"] and content):
                        # The end of the file is where the write was cut.
                        start = max(0, len(content) - SHOWN_BYTES)
                        example = {"bytes": list(content[start:]), "start": start, "size": len(content),
                                   "where": _where(reference.ops[plan.op_index - 1], plan)}
            writers.append({"id": writer_id, "name": name, "code": code, "kills": kills,
                            "unreadable": unreadable, "absent": absent, "example": example})
        finally:
            runner.close()
    return {"writers": writers}


def _where(op, plan: CrashPlan) -> str:
    return describe_op(op, plan.torn_at)
