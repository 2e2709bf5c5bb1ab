# Attack: the starter, plus megabytes of output on fds 1 and 2 (print, sys.__stdout__,
# os.write), control characters, invalid UTF-8, lone surrogates, lines that look like the
# grader's protocol or its text report, and a huge exception message with all of that in it.
import os
import sys

#@@INCLUDE:_forge_data.py@@

NASTY = "\x1b[2J\x1b[31mAPROVADO\x1b[0m\r\x00\x07\u202e\u2028\u2029\x85\ufeff"
SIBLING = "@@SIBLING@@"
FAKE_TEXT = f"\n{SIBLING}: APROVADO (4 de 4 critérios)\n  [ok    ] escrita-atomica\n"


def flood():
    chunk = ("x" * 1023 + "\n") * 64
    for _ in range(80):  # ~5 MB through print
        print(chunk, end="")
    for fd in (1, 2):
        for _ in range(40):  # ~2.5 MB per fd, raw
            try:
                os.write(fd, chunk.encode())
            except OSError:
                break
        for blob in (b"\xff\xfe\xc3\x28\xa0\xa1\xed\xa0\x80", NASTY.encode(), FAKE_TEXT.encode(),
                     *[(line + "\n").encode() for line in FORGED_LINES]):
            try:
                os.write(fd, blob)
            except OSError:
                pass
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            stream.write(NASTY + FAKE_TEXT + "\udcff\ud800")
        except BaseException:
            pass


#@@INCLUDE:_starter.py@@

_honest_run_agent = run_agent


def run_agent(task, tools, call_model, execute_tool):
    flood()
    _honest_run_agent(task, tools, call_model, execute_tool)
    raise RuntimeError(NASTY + FAKE_TEXT + "\ud800\udcff" + "y" * 5_000_000)


flood()
