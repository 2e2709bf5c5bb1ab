/* Test helper for the race harness (tests/trace/test_race_harness.py): ways for a second task to
   rewrite a call's argument while the supervisor decides on it. Built by the test with gcc and
   loaded by the submission with ctypes. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Rewrites addr with a, then b, until *stop: a tight loop, no call the filter sees. */
long flip_loop(char *addr, const char *a, const char *b, int len, volatile int *stop) {
    long n = 0;
    while (!*stop) {
        memcpy(addr, a, len);
        __sync_synchronize();
        memcpy(addr, b, len);
        __sync_synchronize();
        n++;
    }
    return n;
}

struct flip { char *addr; const char *a; const char *b; int len; volatile int *stop; };
static struct flip shared_flip;

static int clone_entry(void *arg) {
    struct flip *f = arg;
    flip_loop(f->addr, f->a, f->b, f->len, f->stop);
    return 0;
}

/* A task sharing our memory that is not a thread: clone(CLONE_VM) without CLONE_THREAD. */
long clone_vm_flipper(char *addr, const char *a, const char *b, int len, volatile int *stop) {
    size_t size = 1 << 16;
    char *stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -errno;
    shared_flip = (struct flip){addr, a, b, len, stop};
    int pid = clone(clone_entry, stack + size, CLONE_VM | SIGCHLD, &shared_flip);
    return pid < 0 ? -errno : pid;
}

/* The call n times; a descriptor it returns is closed. Returns how many succeeded. */
long repeat_call(long nr, long a0, long a1, long a2, long a3, long a4, int n, int returns_fd) {
    long ok = 0;
    for (int i = 0; i < n; i++) {
        long rc = syscall(nr, a0, a1, a2, a3, a4);
        if (rc >= 0) {
            ok++;
            if (returns_fd) close((int)rc);
        }
    }
    return ok;
}

/* The same from a vfork child: one thread in its own process, our memory under it. */
long vfork_repeat(long nr, long a0, long a1, long a2, long a3, long a4, int n, int returns_fd) {
    pid_t pid = vfork();
    if (pid == 0) {
        repeat_call(nr, a0, a1, a2, a3, a4, n, returns_fd);
        _exit(0);
    }
    if (pid < 0) return -errno;
    int status;
    waitpid(pid, &status, 0);
    return 0;
}
