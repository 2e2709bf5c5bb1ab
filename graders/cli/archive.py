"""`--zip`: the .py and .json inside a student's .zip, read in memory and never extracted (so no path
in it can reach the disk), within limits on size, count and compression ratio (no zip bomb)."""

from __future__ import annotations

import os
import posixpath
import zipfile

from ..submission import MAX_BYTES

MAX_ZIP_BYTES = 32 << 20    # the .zip itself
MAX_MEMBERS = 500           # entries listed in it
MAX_TOTAL = 32 << 20        # bytes read out of it, all members together
MAX_RATIO = 100             # uncompressed / compressed, for a member above MAX_BYTES // 16
SUFFIXES = (".py", ".json")


def members(path: str) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """([(name inside, bytes)] of the files to grade, [(name inside, reason)] of the others).
    Raises OSError or zipfile.BadZipFile (with a Portuguese message) for a .zip that cannot be read."""
    if os.path.getsize(path) > MAX_ZIP_BYTES:
        raise OSError(f"o .zip passa de {MAX_ZIP_BYTES >> 20} MB")
    found, skipped, total = [], [], 0
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise OSError(f"o .zip tem mais de {MAX_MEMBERS} entradas")
        for info in infos:
            name = info.filename
            if info.is_dir():
                continue
            parts = name.replace("\\", "/").split("/")
            if name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0] or "\0" in name:
                skipped.append((name, "caminho suspeito dentro do .zip (não lido)"))
                continue
            clean = posixpath.normpath("/".join(parts))
            base = parts[-1]
            if any(p.startswith(".") for p in parts) or parts[0] == "__MACOSX" or "__pycache__" in parts:
                skipped.append((clean, "oculto (o nome começa com .) ou lixo do sistema"))
            elif base.lower().endswith(".zip"):
                skipped.append((clean, "compactado dentro do .zip — extraia antes"))
            elif not base.lower().endswith(SUFFIXES):
                skipped.append((clean, "não é .py nem .json"))
            elif info.flag_bits & 0x1:
                skipped.append((clean, "protegido por senha"))
            elif info.file_size > MAX_BYTES or (info.file_size > MAX_BYTES // 16
                                                and info.file_size > MAX_RATIO * max(info.compress_size, 1)):
                skipped.append((clean, "grande demais (ou compactado demais) para ser uma entrega"))
            elif total + info.file_size > MAX_TOTAL:
                skipped.append((clean, f"o .zip passa de {MAX_TOTAL >> 20} MB descompactado"))
            else:
                with archive.open(info) as member:
                    data = member.read(MAX_BYTES + 1)  # the header's size may lie: cap what is read
                if len(data) > MAX_BYTES:
                    skipped.append((clean, "grande demais para ser uma entrega"))
                    continue
                total += len(data)
                found.append((clean, data))
    return found, skipped
