# Attack: a (bounded) fork bomb: up to 200 children, each turned into a sleeper whose argv[0]
# carries the test's marker, then give up at load. The grading must neither hang nor leave
# any of them behind.
import os

MARKER = "@@MARKER@@"
SLEEP = "/bin/sleep" if os.path.exists("/bin/sleep") else "/usr/bin/sleep"
started = 0
for _ in range(200):
    try:
        pid = os.fork()
    except BaseException:
        break
    if pid == 0:
        try:
            os.execv(SLEEP, [f"{MARKER}-bomb", "60"])
        finally:
            os._exit(0)
    started += 1
raise RuntimeError(f"fork bomb started {started} children")
