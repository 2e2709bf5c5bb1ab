"""Advice from the power-loss model ("falta de energia"): the first state a power loss could break
where a killed process would have been fine, worded to say which fsync is missing."""

from __future__ import annotations

import posixpath

from .reading import complete_key, left_on_disk


def check_power(judge, failed: set = frozenset()):
    """The first thing a power loss could break, as (criterion, advice), or None. Only where a killed
    process would have been fine: what already fails is not repeated as advice."""
    found = None
    for point in judge.points:
        state = point.state
        if not state.power or complete_key(state.content) is None and state.content is not None:
            continue
        for view, content in (("durable", state.durable), ("kept", state.kept)):
            if "escrita-atomica" not in failed and content is not None and complete_key(content) is None:
                message = _unreadable(judge, point, content)
                judge.power_outcomes.setdefault(point.n, message)
                if found is None:
                    judge.cited.add(point.n)
                    found = ("escrita-atomica", message)
                continue
            if "ponto-a" in failed or judge.point_failure(point, state.content):
                continue
            problem = judge.point_failure(point, content, power=" (numa falta de energia)")
            if problem:
                message = problem + " " + _why(state)
                judge.power_outcomes.setdefault(point.n, message)
                if found is None:
                    judge.cited.add(point.n)
                    found = ("ponto-a", message)
    return found

def _unreadable(judge, point, content: bytes) -> str:
    label = judge.label(point)
    renamed = _renamed_into_place(judge, point.state.first)
    why = ("a renomeação pode chegar ao disco antes dos dados do arquivo temporário. Antes de renomear, chame "
           "f.flush() e os.fsync(f.fileno()) no temporário" if renamed else
           "o que não foi sincronizado com os.fsync pode se perder. Chame f.flush() e os.fsync(f.fileno()) "
           "antes de considerar a gravação feita")
    return f"Numa falta de energia ({label}), o {judge.shown} poderia ficar {left_on_disk(content)[6:]}: {why}."

def _renamed_into_place(judge, index: int) -> bool:
    """Did the judged file's current node arrive by a rename (a temporary moved into place)?"""
    for ev in reversed(judge.trace.events[: index + 1]):
        if ev.ok and ev.kind == "rename" and posixpath.basename(ev.path2) == judge.parts[-1]:
            return True
        if ev.ok and ev.kind == "open" and ev.created and ev.name == judge.parts[-1]:
            return False
    return False

def _why(state) -> str:
    if state.durable != state.content and state.kept == state.content:
        return ("A renomeação (ou a criação do arquivo) só fica garantida no disco depois de um os.fsync no "
                "diretório: abra-o com os.open(diretorio, os.O_RDONLY) e chame os.fsync nele depois da renomeação "
                "(em POSIX; no Windows isso não existe).")
    return ("Os dados só ficam garantidos no disco depois de os.fsync no arquivo, e a renomeação depois de "
            "os.fsync no diretório.")
