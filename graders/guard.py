"""Helpers around student code on the trusted side: compile it (syntax errors in Portuguese), cap its
output, and, in the browser, where it shares Pyodide's interpreter with the graders, put back what it
rebinds in `json`, `os`, `builtins` or the graders after each run.
"""

from __future__ import annotations

import io
import linecache
import sys
import types

OUTPUT_LIMIT = 20_000
# Past this many characters printed in one run, the run stops: a flood, not a slow loop.
FLOOD_LIMIT = 1_000_000


class OutputFlood(BaseException):
    """The code printed far more than anyone could read (and would only slow the run down)."""
WATCHED_MODULES = (
    "builtins", "os", "posix", "io", "_io", "json", "json.decoder", "json.encoder", "json.scanner",
    "sys", "copy", "tempfile", "shutil", "pathlib", "posixpath", "traceback", "types", "tomllib",
)
# Attributes that change on their own while code runs.
_VOLATILE = frozenset({
    "_", "__warningregistry__", "last_type", "last_value", "last_traceback", "last_exc",
    "stdout", "stderr", "stdin", "tempdir", "_name_sequence",
})


class CodeError(Exception):
    """The submission cannot even be loaded (syntax error, missing function...)."""


class BoundedOutput(io.TextIOBase):
    """Collects what the student prints, up to a limit, so huge output costs nothing."""

    def __init__(self, limit: int = OUTPUT_LIMIT):
        self.parts: list[str] = []
        self.size = 0
        self.limit = limit
        self.truncated = False
        self.attempted = 0  # characters the code tried to print, kept or not

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.attempted += len(text)
        if self.attempted > FLOOD_LIMIT:
            self.truncated = True
            raise OutputFlood()
        room = self.limit - self.size
        if room > 0:
            self.parts.append(text[:room])
            self.size += min(len(text), room)
        if len(text) > room:
            self.truncated = True
        return len(text)

    def getvalue(self) -> str:
        return "".join(self.parts) + ("\n… [saída cortada]" if self.truncated else "")


# CPython's syntax messages, said in Portuguese (the rest keep Python's words, quoted as code).
_SYNTAX_MESSAGES = [
    (r"^expected '(.+)'$", "faltou `{0}`"),
    (r"^invalid syntax\. Perhaps you forgot a comma\?$", "sintaxe inválida: faltou uma vírgula?"),
    (r"^invalid syntax$", "sintaxe inválida"),
    (r"^unexpected indent$", "indentação inesperada"),
    (r"^unindent does not match any outer indentation level$", "a indentação não bate com nenhum nível anterior"),
    (r"^expected an indented block after '(\w+)' statement on line (\d+)$", "faltou um bloco indentado depois do `{0}` da linha {1}"),
    (r"^expected an indented block after function definition on line (\d+)$", "faltou um bloco indentado depois da definição da função, na linha {0}"),
    (r"^expected an indented block after class definition on line (\d+)$", "faltou um bloco indentado depois da definição da classe, na linha {0}"),
    (r"^expected an indented block after (.+) on line (\d+)$", "faltou um bloco indentado depois da linha {1}"),
    (r"^expected an indented block$", "faltou um bloco indentado"),
    (r"^unterminated string literal \(detected at line (\d+)\)$", "texto entre aspas sem fechar (linha {0})"),
    (r"^unterminated triple-quoted string literal \(detected at line (\d+)\)$", "texto entre aspas triplas sem fechar (linha {0})"),
    (r"^'(.)' was never closed$", "`{0}` aberto e nunca fechado"),
    (r"^unmatched '(.)'$", "`{0}` fechado sem ter sido aberto"),
    (r"^closing parenthesis '(.)' does not match opening parenthesis '(.)'(.*)$", "`{0}` não fecha o `{1}` aberto antes"),
    (r"^invalid character '(.+)' \((U\+[0-9A-F]+)\)$", "caractere inválido `{0}` ({1})"),
    (r"^unexpected EOF while parsing$", "o código acabou no meio de uma instrução"),
    (r"^'return' outside function$", "`return` fora de uma função"),
    (r"^inconsistent use of tabs and spaces in indentation$", "mistura de tabulações e espaços na indentação"),
]


def _syntax_message(message: str) -> str:
    import re

    for pattern, portuguese in _SYNTAX_MESSAGES:
        match = re.match(pattern, message)
        if match:
            return portuguese.format(*match.groups())
    return f"o Python diz: `{message}`"


def compile_student(source: str, filename: str, action: str = "verifique"):
    """Compile the student's code; a CodeError says what is wrong and to fix it and `action` again
    ("verifique" for Verificar, "execute" for Executar)."""
    # Tracebacks quote the student's lines, as they would for a file on disk.
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    try:
        return compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line = (exc.text or "").strip()
        where = f"linha {exc.lineno}" + (f", coluna {exc.offset}" if exc.offset else "")
        detail = f": `{line}`" if line else ""
        raise CodeError(f"Erro de sintaxe na {where} ({_syntax_message(exc.msg or '')}){detail}. Corrija e {action} de novo.") from None
    except (ValueError, TypeError) as exc:  # e.g. NUL bytes in the source
        raise CodeError(f"O código não pôde ser compilado: {exc}.") from None


# --- tamper detection ---------------------------------------------------------------------


def _watched_namespaces():
    for name in WATCHED_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            yield name, vars(module)
    for name, module in list(sys.modules.items()):
        if name == "graders" or name.startswith("graders."):
            yield name, vars(module)
            for attr, value in list(vars(module).items()):
                if isinstance(value, type) and getattr(value, "__module__", "") == name:
                    yield f"{name}.{attr}", value.__dict__
    import json
    import pathlib

    for cls in (json.JSONDecoder, json.JSONEncoder, pathlib.PurePath, pathlib.Path):
        yield f"{cls.__module__}.{cls.__qualname__}", cls.__dict__


def snapshot() -> dict:
    """The watched namespaces as they are now; taken while nothing of ours is patched."""
    snap = {ns_name: (namespace, dict(namespace)) for ns_name, namespace in _watched_namespaces()}
    snap["<sys.modules>"] = (None, {k: sys.modules.get(k) for k in WATCHED_MODULES})
    return snap


def restore(snap: dict):
    for ns_name, (namespace, before) in snap.items():
        if namespace is None:
            for key, module in before.items():
                if module is not None:
                    sys.modules[key] = module
            continue
        if isinstance(namespace, types.MappingProxyType):
            cls = _class_for(ns_name)
            if cls is None:
                continue
            for key in [k for k in namespace if k not in before and k not in _VOLATILE]:
                try:
                    delattr(cls, key)
                except (AttributeError, TypeError):
                    pass
            for key, value in before.items():
                if namespace.get(key, MISSING) is not value:
                    try:
                        setattr(cls, key, value)
                    except (AttributeError, TypeError):
                        pass
            continue
        for key in [k for k in namespace if k not in before and k not in _VOLATILE]:
            del namespace[key]
        namespace.update(before)


def _class_for(qualified: str):
    module_name, _, attr = qualified.rpartition(".")
    module = sys.modules.get(module_name)
    return getattr(module, attr, None) if module is not None else None


MISSING = object()


