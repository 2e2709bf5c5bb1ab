# Attack (unhooked API): a child process (python -c) does the in-place overwrite, so the
# parent's own calls show nothing but a subprocess.
import subprocess
import sys

#@@INCLUDE:_inplace.py@@

CHILD = (
    "import os, sys\n"
    "data = sys.stdin.buffer.read()\n"
    "fd = os.open('checkpoint.json', os.O_WRONLY | os.O_CREAT, 0o644)\n"
    "for off in range(0, len(data), 256):\n"
    "    os.pwrite(fd, data[off:off + 256], off)\n"
    "os.close(fd)\n"
)


def save_checkpoint(state):
    subprocess.run([sys.executable, "-c", CHILD], input=payload(state), check=True)
