"""The supervisor of one run: its nodes and events, the roots it fences mutations to, and the
dispatch of each seccomp notification to the handler of its call (the handler families are mixins)."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import stat
import struct

from ..agent_server import AgentServer
from ..disk import read_tree
from ..ops import MAX_DATA, MAX_EVENTS, Event, Root
from .channel import FLOOD_LIMIT
from .channel import Channel
from .durability import Durability
from .groups import Groups
from .errors import Refused, Stop, errno_name
from .linux import RESOLVE_BENEATH, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, OpenHow, libc
from .copies import Copies
from .mappings import Mappings
from .metadata import Metadata
from .names import Names
from .opens import Opens
from .reads import Reads, open_calls
from .refusals import Checks
from .sockets import Sockets
from .seccomp import FLAG_CONTINUE, NOTIF, NOTIF_ID_VALID, NOTIF_SEND, NR_OPENAT2, RESP, handled_calls, syscall_nr
from .target import Task, TargetAccess
from .looks import QUERIES, Looks
from .lookthread import Direct
from .writes import Writes

MAX_FINAL = 4 << 20


class Supervisor(TargetAccess, Channel, Opens, Reads, Looks, Writes, Copies, Names, Durability, Mappings,
                 Metadata, Checks, Sockets, Groups):
    """One run's listener. Each notified call goes to the method `_on_<call>` of one of the mixins;
    it returns the value to answer, "continue" (the kernel runs the call itself: only where the
    decision read no target memory, since the kernel reads pointer arguments again; a handler that
    read any is refused instead), "pending" (answered later), or None (already answered), or raises
    Refused / Stop. In reduced mode the calls that only look at a path are performed, once the
    student's code has started, by the fenced look thread (`looker`, looks.py)."""

    def __init__(self, roots, *, reduced: bool, source: str, filename: str, job: dict, caps: dict | None = None):
        self.reduced = reduced
        # The grader's own limits for this run (the CLI's --max-ops, --max-escrita, --max-saida).
        caps = caps or {}
        self.max_events = _cap(caps.get("events"), MAX_EVENTS)
        self.max_data = _cap(caps.get("data"), MAX_DATA)
        self.flood_limit = _cap(caps.get("output"), FLOOD_LIMIT)
        self.events: list[Event] = []
        self.data_bytes = 0
        self.nodes: dict[tuple, int] = {}
        self.next_node = 0
        self.roots = []  # (role, path, fd, dev)
        for role, path in roots:
            path = os.path.realpath(path)
            fd = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
            st = os.fstat(fd)
            self.roots.append((role, path, fd, st.st_dev))
        self.root_devs = {r[3] for r in self.roots}
        # The roots themselves, by inode: a run may neither move nor remove nor replace one (names.py).
        self.root_keys = {(os.fstat(r[2]).st_dev, os.fstat(r[2]).st_ino) for r in self.roots}
        # Reduced mode: the run's temp folder answers for /tmp (target.resolve); the names by which the
        # roots themselves are reached are never mapped.
        self.tmp_root = next((r for r in self.roots if r[0] == "tmp"), None)
        self.tmp_private = None
        if reduced and self.tmp_root is not None and self.tmp_root[1] != "/tmp":
            self.tmp_private = self.tmp_root[1].strip("/").split("/")
        self.tmp_tails = [r[1].strip("/").split("/")[1:] for r in self.roots if r[1].startswith("/tmp/")]
        # Reduced mode: the run's own folder answers for /dev/shm the same way.
        shm_root = next((r for r in self.roots if r[0] == "shm"), None)
        self.shm_private = None
        if reduced and shm_root is not None and shm_root[1] != "/dev/shm":
            self.shm_private = shm_root[1].strip("/").split("/")
        # The run's own folders may lie in the machine's /dev/shm (a tmpfs is faster): by their real
        # names (and the folders on the way to them) they are not the run's /dev/shm.
        self.shm_tails = [r[1].strip("/").split("/")[2:] for r in self.roots if r[1].startswith("/dev/shm/")]
        self.root_names = tuple(r[1].encode("utf-8", "surrogateescape") for r in self.roots)
        self.tmp_hit = False
        self.setup = {"source": source, "filename": filename, "job": job}
        self.agent = AgentServer(self._record)
        self.output = bytearray()
        self.output_attempted = 0
        self.report: dict = {}
        self.inbox = b""
        self.outbox = b""
        self.pidfds: dict[int, int] = {}
        self.handlers = {nr: getattr(self, "_on_" + name, None) for nr, name in handled_calls().items()}
        self.mapped: dict = {}  # node -> [our duplicate, last known contents] (Mappings)
        self.in_flight: dict = {}  # tid -> node of an mmap we let through and that tid has not returned from
        # Read-only shared mappings of files opened for writing (Mappings): (major, minor, inode) -> (node,
        # our duplicate); an mprotect adding PROT_WRITE makes them writable mappings.
        self.maywrite: dict = {}
        self.risky: dict = {}  # tid -> (kind, tgid, keys, call number) of a mapping call it may still be in
        self.protected: dict = {}  # tid -> (start, end) of its last mprotect adding PROT_WRITE
        self.unsure = False  # a shared mmap was let through while other threads ran
        # Nodes opened O_TMPFILE without O_EXCL: the only files with no name left that can get one again.
        self.linkable: set = set()
        self.bound_names: set = set()  # abstract socket names this run bound (Sockets)
        self.outlived = False  # a process of the run was still alive at the time limit, the runner gone
        self.nr_mmap, self.nr_mremap = syscall_nr("mmap"), syscall_nr("mremap")
        self.nr_mprotect, self.nr_pkey_mprotect = syscall_nr("mprotect"), syscall_nr("pkey_mprotect")
        self.nr_vfork, self.nr_clone = syscall_nr("vfork"), syscall_nr("clone")  # memory shared across vfork
        self.pending: list = []  # writes to full pipes of multi-threaded processes: (id, dup, data)
        self.pipe_key = None
        self.chan_key = None
        self.child_pgid = 0
        self.vgroups: dict = {}  # reduced mode: pid -> (start time, pgid, sid) the run believes in (Groups)
        self.self_pid = os.getpid()
        self.self_pgid = os.getpgid(0)
        self.warm = None  # the warm interpreter that forked the run (zygote.py), once it has
        self.listener = -1
        self.end_seen = False
        self.read_target = False  # set when the call being handled read the target's memory
        self.code_started = False  # the runner asked for the student's code (Channel, "hello")
        self.probes: dict[str, int] = {}  # grader signs the run opened for reading (Reads)
        self.open_calls = open_calls()
        self.look_calls = {nr for nr, name in handled_calls().items() if name in QUERIES}
        # Where look-only calls are performed (looks.py): run_traced gives a reduced-mode run its
        # fenced thread; a supervisor driven on its own (unit tests) performs them in place.
        self.looker = Direct()

    @property
    def spared(self) -> frozenset:
        """The warm interpreter's pid and group, as long as it lives: not the run's, never its target."""
        return self.warm.spared() if self.warm is not None else frozenset()

    # nodes and events

    def node_of(self, st, fresh=False) -> int:
        key = (st.st_dev, st.st_ino)
        if fresh or key not in self.nodes:
            self.next_node += 1
            self.nodes[key] = self.next_node
        return self.nodes[key]

    def _record(self, event: Event):
        self.events.append(event)
        if self.mapped:
            self.follow_mapped(event)
        if len(self.events) > self.max_events:
            raise Stop("runaway", {"events": self.max_events})

    def roots_out(self) -> list[Root]:
        out = []
        for role, path, fd, _dev in self.roots:
            node = self.node_of(os.fstat(fd))
            out.append(Root(role, node, path, self._entries(path, node)))
        return out

    def _entries(self, path, node) -> list:
        entries, pending = [], [(path, node, 0)]
        others = {r[1] for r in self.roots if r[1] != path}
        while pending and len(entries) < 500:
            folder, dnode, depth = pending.pop()
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                full = os.path.join(folder, name)
                try:
                    st = os.lstat(full)
                except OSError:
                    continue
                entry = {"node": self.node_of(st), "dir": dnode, "name": name}
                if stat.S_ISDIR(st.st_mode):
                    entry["kind"] = "dir"
                    if full not in others and depth < 12:
                        pending.append((full, entry["node"], depth + 1))
                elif stat.S_ISLNK(st.st_mode):
                    entry.update(kind="symlink", target=os.readlink(full))
                else:
                    entry["kind"] = "file"
                    try:
                        with open(full, "rb") as f:
                            entry["data"] = f.read(MAX_FINAL)
                    except OSError:
                        entry["data"] = b""
                entries.append(entry)
        return entries

    def final(self) -> dict:
        out = {}
        paths = sorted((r[1] for r in self.roots), key=len, reverse=True)
        for path in paths:
            inner = [p for p in paths if p != path and p.startswith(path + "/")]
            for rel, data in read_tree(path).items():
                full = os.path.join(path, rel)
                if any(full == p or full.startswith(p + "/") for p in inner):
                    continue
                out[full] = data
        return out

    # talking to the kernel

    def respond(self, nid, value=0, error=0, flags=0):
        try:
            fcntl.ioctl(self.listener, NOTIF_SEND, RESP.pack(nid, value, -error if error else 0, flags))
        except OSError as exc:
            if exc.errno != errno.ENOENT:  # the caller died meanwhile: nothing to answer
                raise

    def valid(self, nid) -> bool:
        try:
            fcntl.ioctl(self.listener, NOTIF_ID_VALID, struct.pack("<Q", nid))
            return True
        except OSError:
            return False

    # dispatch ------------------------------------------------------------------------------------

    def handle(self, raw: bytes):
        nid, tid, _flags, nr, _arch, _ip, *args = NOTIF.unpack(raw)
        if self.in_flight:
            self.in_flight.pop(tid, None)  # a new call from that thread: its mmap has returned
        if self.risky:
            self.risky.pop(tid, None)
        if nr in self.open_calls and self.let_read_through(nid, tid, nr, args):
            return  # read-only: let through on its flags (reads.py); nothing on disk changes
        if nr in self.look_calls and not self.code_started:
            # A path looked at by the interpreter's own start: no student code yet, nothing read.
            self.respond(nid, flags=FLAG_CONTINUE)
            return
        handler = self.handlers.get(nr)
        if self.mapped:
            self.capture_mapped()  # stores through shared mappings come before this call
        self.read_target = False
        try:
            task = Task(tid)
            if handler is None:
                raise Refused(errno.ENOSYS)
            result = handler(nid, task, args)
            if result == "continue" and self.read_target:
                # Never let the kernel read again what we decided on (seccomp_unotify(2)).
                name = handled_calls().get(nr, str(nr))
                raise Refused(errno.EACCES, name, f"{name}: o corretor leu os argumentos desta chamada na memória "
                                                  "do programa e não deixa o kernel lê-los de novo")
            if result is not None:  # handlers that answered themselves (ADDFD) return None
                if result == "continue":
                    self.respond(nid, flags=FLAG_CONTINUE)
                elif result == "pending":
                    pass
                else:
                    self.respond(nid, value=result)
        except Refused as exc:
            if exc.call:
                self._record(Event("refused", ok=False, errno=errno_name(exc.number),
                                   payload={"call": exc.call, "message": exc.message}))
            self.respond(nid, error=exc.number)

    def read_mem(self, tid, address, size) -> bytes:
        """Every read of the target's memory marks the call: it may no longer be continued."""
        self.read_target = True
        return TargetAccess.read_mem(self, tid, address, size)

    # the roots ---------------------------------------------------------------------------------

    def root_for(self, parent: str):
        best = None
        for root in self.roots:
            path = root[1]
            if parent == path or parent.startswith(path.rstrip("/") + "/"):
                if best is None or len(path) > len(best[1]):
                    best = root
        return best

    def fd_in_roots(self, fd: int) -> bool:
        """Whether the file of our descriptor lies in a root, by its current name: a descriptor names
        no path we fenced, and a file outside the roots may share their file system (the instructor's
        own files, in reduced mode), or even hold a node here (an fsync of it is recorded)."""
        name = os.readlink(f"/proc/self/fd/{fd}").removesuffix(" (deleted)")
        return (os.fstat(fd).st_dev in self.root_devs and name.startswith("/")
                and self.root_for(os.path.dirname(name)) is not None)

    def open_parent(self, parent: str):
        """(fd, is_root_fd) for a directory inside a root, opened beneath it with no symlinks, so a
        concurrent swap of a folder for a link cannot take us out of the root."""
        root = self.root_for(parent)
        if root is None:
            return None
        rel = os.path.relpath(parent, root[1])
        if rel == ".":
            return root[2], True
        how = OpenHow(os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC, 0,
                      RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)
        raw = rel.encode("utf-8", "surrogateescape")
        fd = libc.syscall(NR_OPENAT2, root[2], raw, ctypes.byref(how), ctypes.sizeof(how))
        if fd < 0:
            raise Refused(ctypes.get_errno())
        return fd, False

    def outside(self, task: Task, call: str, what: str):
        """A mutation outside the roots: refused in both modes. Letting the kernel run it
        (SECCOMP_USER_NOTIF_FLAG_CONTINUE) would make it read the path again from memory that
        another task may share and change after we looked (seccomp_unotify(2))."""
        raise Refused(errno.EACCES, call, f"{what} fora das pastas de trabalho do exercício: "
                                          "o corretor não pode acompanhar essa mudança")


def _cap(value, default: int) -> int:
    """A positive integer limit from the run command, or the default."""
    return value if type(value) is int and value > 0 else default
