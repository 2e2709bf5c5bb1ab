# Attack: grab memory (up to 3 GB, in 100 MB steps). If the memory limit (--memory 512)
# did not stop it, behave like the reference solution: a pass then shows the limit is not
# enforced. Otherwise run the starter.
_hog = []
try:
    for _ in range(30):
        _hog.append(bytearray(100 * 1024 * 1024))
        _hog[-1][::4096] = b"x" * len(range(0, 100 * 1024 * 1024, 4096))
    GOT_IT = True
except MemoryError:
    GOT_IT = False
_hog.clear()

if GOT_IT:
    #@@INCLUDE:_solution.py@@
    pass
else:
    #@@INCLUDE:_starter.py@@
    pass
