// The browser's file-system tap: wraps Pyodide's Emscripten FS (below Python) so that every call a
// run makes under its roots becomes an event of graders/trace/ops.py, whichever Python API made it
// (open, io.FileIO, os.write/pwrite, dir_fd, pathlib...). Works in the page's module worker and in Node.
//
//   const tap = installFsTap(pyodide.FS);
//   tap.start([{role: "work", path: "/home/pyodide/projeto"}, {role: "tmp", path: "/tmp"},
//              {role: "home", path: "/home/pyodide"}]);
//   ... run ...; tap.mark(ref) keeps a model/tool call in order among the file events
//   tap.stop(); tap.take() -> {roots, events, final, over}   (tap.json(): the same as JSON, bytes as latin-1)
//
// Errno values are Emscripten's numbers (Python's errno module inside Pyodide names them).

const O_WRONLY = 1, O_RDWR = 2, O_CREAT = 64, O_TRUNC = 512, O_DSYNC = 4096;
const WRITE_FLAGS = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC;
// FS.open also takes fopen-style strings (only from JavaScript callers).
const STRING_FLAGS = { r: 0, "r+": O_RDWR, w: 577, "w+": 578, a: 1089, "a+": 1090 };
const EBUSY = 10, ENOSPC = 51, EXDEV = 75;

export function installFsTap(FS) {
  const real = {};
  let roots = []; // [{role, path, node: FSNode}]
  let events = [];
  let ids = new Map(); // FSNode -> this run's number for it (Emscripten never reuses a node object)
  let active = false;
  let depth = 0; // FS calls made by a wrapped FS call (open's truncate, mkdir's mknod) are not events
  let limits = { events: Infinity, data: Infinity };
  let written = 0; // bytes of write events so far
  let over = null; // the limit a run went past ("events" | "data"): it gets ENOSPC from then on

  function push(event) {
    if (event.data) written += event.data.length;
    if (over || events.length >= limits.events || written > limits.data) {
      over ??= events.length >= limits.events ? "events" : "data";
      throw new FS.ErrnoError(ENOSPC);
    }
    events.push(event);
  }

  const id = (node) => {
    if (!node) return 0;
    let n = ids.get(node);
    if (n === undefined) ids.set(node, (n = ids.size + 1));
    return n;
  };

  /** The root holding `node` (a root holds itself), or null. */
  function rootOf(node) {
    for (let n = node; n; n = n.parent) {
      for (const root of roots) if (root.node === n) return root;
      if (n.parent === n) return null;
    }
    return null;
  }

  /** The outermost root holding `node`: roots inside another share its file system (work in home). */
  function fileSystemOf(node) {
    let found = null;
    for (let n = node; n; n = n.parent) {
      for (const root of roots) if (root.node === n) found = root;
      if (n.parent === n) break;
    }
    return found;
  }

  const isRoot = (node) => roots.some((root) => root.node === node);

  // The roots are mount points in the CLI: they cannot be removed or moved.
  function refuseRoot(kind, node, path) {
    push({ kind, ok: false, errno: EBUSY, node: id(node), path });
    throw new FS.ErrnoError(EBUSY);
  }

  const basename = (path) => path.replace(/\/+$/, "").split("/").pop();

  /** {dir, name} of a path's last entry, or null when its folder does not exist. */
  function entry(path) {
    try {
      return { dir: FS.lookupPath(path, { parent: true }).node, name: basename(path) };
    } catch {
      return null;
    }
  }

  function child(dir, name) {
    try {
      return FS.lookupNode(dir, name);
    } catch {
      return null;
    }
  }

  /** A call that failed on a path: an event when the path is under a root (it changed nothing). */
  function failed(kind, path, error, kind2) {
    const at = typeof path === "string" ? entry(path) : null;
    if (at && rootOf(at.dir)) push({ kind, ok: false, errno: error.errno, dir: id(at.dir), name: at.name, path, kind2 });
  }

  /** FS[name] = a wrapper that sees calls made while a run is recorded; other calls go straight through. */
  function wrap(name, tapped) {
    if (!FS[name]) return;
    const original = (real[name] = FS[name]);
    FS[name] = function (...args) {
      if (!active || depth) return original.apply(FS, args);
      depth++;
      try {
        return tapped((...a) => original.apply(FS, a), ...args);
      } finally {
        depth--;
      }
    };
  }

  // FS calls throw FS.ErrnoError; anything else (a bug) is not the run's doing and is not recorded.
  const isErrno = (error) => error?.name === "ErrnoError";

  wrap("open", (open, path, flags, mode) => {
    const bits = typeof flags === "string" ? STRING_FLAGS[flags] ?? O_RDWR : flags;
    const nextBefore = FS.nextInode;
    let stream;
    try {
      stream = open(path, flags, mode);
    } catch (error) {
      if (bits & WRITE_FLAGS && isErrno(error)) failed("open", path, error);
      throw error;
    }
    const node = stream.node;
    if (rootOf(node)) {
      tapFsync(stream);
      if (bits & WRITE_FLAGS) {
        const created = node.id >= nextBefore; // node ids only grow: a new one was made by this open
        push({
          kind: "open", node: id(node), dir: id(node.parent), name: node.name, path: stream.path,
          created, trunc: Boolean(bits & O_TRUNC) && !created && FS.isFile(node.mode),
          kind2: FS.isDir(node.mode) ? "dir" : "file",
        });
      }
    }
    return stream;
  });

  // os.fsync reaches the stream's stream_ops (there is no FS.fsync); MEMFS may define none at all.
  function tapFsync(stream) {
    const ops = stream.stream_ops;
    stream.stream_ops = Object.create(ops, {
      fsync: {
        value(s) {
          if (active && rootOf(s.node)) push({ kind: "fsync", node: id(s.node), path: s.path });
          return ops.fsync?.(s);
        },
      },
    });
  }

  wrap("write", (write, stream, buffer, offset, length, position, canOwn) => {
    const watched = rootOf(stream.node);
    let n;
    try {
      n = write(stream, buffer, offset, length, position, canOwn);
    } catch (error) {
      if (watched && isErrno(error)) {
        push({ kind: "write", ok: false, errno: error.errno, node: id(stream.node), path: stream.path });
      }
      throw error;
    }
    if (watched && n > 0) {
      push({
        kind: "write", node: id(stream.node), path: stream.path,
        // Without a position FS.write moved the stream (to the end first for O_APPEND).
        offset: position === undefined ? stream.position - n : position,
        data: copyBytes(buffer, offset, n),
        sync: Boolean(stream.flags & O_DSYNC),
      });
    }
    return n;
  });

  function truncated(node, length, path) {
    if (rootOf(node)) push({ kind: "truncate", node: id(node), length, path });
  }

  wrap("truncate", (truncate, path, length) => {
    try {
      truncate(path, length);
    } catch (error) {
      if (isErrno(error)) failed("truncate", path, error);
      throw error;
    }
    const node = typeof path === "string" ? FS.lookupPath(path, { follow: true }).node : path;
    truncated(node, length, typeof path === "string" ? path : FS.getPath(node));
  });

  wrap("ftruncate", (ftruncate, fd, length) => {
    const stream = FS.getStream(fd);
    try {
      ftruncate(fd, length);
    } catch (error) {
      if (stream && isErrno(error) && rootOf(stream.node)) {
        push({ kind: "truncate", ok: false, errno: error.errno, node: id(stream.node), path: stream.path });
      }
      throw error;
    }
    truncated(stream.node, length, stream.path);
  });

  wrap("rename", (rename, oldPath, newPath) => {
    const from = entry(oldPath), to = entry(newPath);
    const node = from && child(from.dir, from.name);
    if (node && isRoot(node)) refuseRoot("rename", node, oldPath);
    const fromRoot = from && rootOf(from.dir), toRoot = to && rootOf(to.dir);
    if (!fromRoot && !toRoot) return rename(oldPath, newPath);
    const replaced = to && child(to.dir, to.name);
    const event = {
      kind: "rename", node: id(node), dir: from ? id(from.dir) : 0, name: from?.name ?? basename(oldPath),
      dir2: to ? id(to.dir) : 0, name2: to?.name ?? basename(newPath), path: oldPath, path2: newPath,
    };
    try {
      // /tmp is a file system of its own in the CLI (a tmpfs), as is the home holding the work folder:
      // moving between them fails there.
      if (from && to && node && fileSystemOf(from.dir) !== fileSystemOf(to.dir)) throw new FS.ErrnoError(EXDEV);
      rename(oldPath, newPath);
    } catch (error) {
      if (isErrno(error)) push({ ...event, ok: false, errno: error.errno });
      throw error;
    }
    event.replaced = replaced && replaced !== node ? id(replaced) : 0;
    push(event);
  });

  /** An absolute path for the event, as the kernel tap gives: Emscripten's rmdir() passes on the
   *  path as the program named it (relative to the cwd), where its *at calls resolve it first. */
  function absolute(path, at) {
    if (path.startsWith("/")) return path;
    if (!at) return `${FS.cwd().replace(/\/$/, "")}/${path}`;
    const dir = FS.getPath(at.dir);
    return dir === "/" ? `/${at.name}` : `${dir}/${at.name}`;
  }

  function removal(kind) {
    return (remove, path) => {
      const at = entry(path);
      const full = absolute(path, at);
      const node = at && child(at.dir, at.name);
      if (node && isRoot(node)) refuseRoot(kind, node, full);
      if (!at || !rootOf(at.dir)) return remove(path);
      try {
        remove(path);
      } catch (error) {
        if (isErrno(error)) failed(kind, full, error);
        throw error;
      }
      push({ kind, node: id(node), dir: id(at.dir), name: at.name, path: full });
    };
  }
  wrap("unlink", removal("unlink"));
  wrap("rmdir", removal("rmdir"));

  function creation(kind, kind2) {
    return (create, ...args) => {
      const path = args[kind === "symlink" ? 1 : 0];
      let node;
      try {
        node = create(...args);
      } catch (error) {
        if (isErrno(error)) failed(kind, path, error, kind2);
        throw error;
      }
      if (rootOf(node.parent)) {
        const event = { kind, node: id(node), dir: id(node.parent), name: node.name, path, kind2 };
        if (kind === "symlink") event.target = args[0];
        push(event);
      }
      return node;
    };
  }
  wrap("mkdir", creation("mkdir", "dir"));
  wrap("symlink", creation("symlink", "symlink"));
  // Emscripten has no hard links (no linkat): os.link does not exist in Pyodide.

  // Emscripten's shared mappings are copies: the file changes only when msync or munmap writes the
  // whole mapped range back through FS.msync (straight into the file system, never through FS.write).
  // That write-back is the write the run made, at the moment it reaches the file.
  wrap("msync", (msync, stream, buffer, offset, length, mmapFlags) => {
    const watched = rootOf(stream.node);
    let n;
    try {
      n = msync(stream, buffer, offset, length, mmapFlags);
    } catch (error) {
      if (watched && isErrno(error)) {
        push({ kind: "write", ok: false, errno: error.errno, node: id(stream.node), path: stream.path });
      }
      throw error;
    }
    if (watched && length > 0 && stream.stream_ops.msync) {
      push({ kind: "write", node: id(stream.node), path: stream.path, offset, data: copyBytes(buffer, 0, length),
             sync: false });
    }
    return n;
  });

  /** Every node under `dir` (depth first, a folder before its contents): visit(node, dirNode, name, path). */
  function walk(dir, path, visit) {
    for (const name of Object.keys(dir.contents ?? {}).sort()) {
      const node = dir.contents[name];
      const full = `${path}/${name}`;
      visit(node, dir, name, full);
      if (FS.isDir(node.mode)) walk(node, full, visit);
    }
  }

  const contents = (node) => (node.contents ? copyBytes(node.contents, 0, node.usedBytes) : new Uint8Array());

  function described(node, dir, name) {
    const e = { node: id(node), dir: id(dir), name };
    if (FS.isDir(node.mode)) e.kind = "dir";
    else if (FS.isLink(node.mode)) Object.assign(e, { kind: "symlink", target: node.link });
    else Object.assign(e, { kind: "file", data: contents(node) });
    return e;
  }

  const tap = {
    /** Begin a run: `roots` [{role, path}] (or their JSON) must exist; node numbers start afresh.
     * Past `maxEvents` events or `maxBytes` bytes written, calls under the roots fail with ENOSPC. */
    start(rootList, maxEvents = Infinity, maxBytes = Infinity) {
      if (typeof rootList === "string") rootList = JSON.parse(rootList);
      ids = new Map();
      events = [];
      limits = { events: maxEvents, data: maxBytes };
      written = 0;
      over = null;
      roots = rootList.map(({ role, path }) => ({ role, path, node: FS.lookupPath(path, { follow: true }).node }));
      for (const root of roots) {
        id(root.node);
        root.entries = [];
        walk(root.node, root.path, (node, dir, name) => root.entries.push(described(node, dir, name)));
      }
      active = true;
    },

    /** A point in the stream that is not a file-system call (a model or tool call): {kind: "mark", ref}. */
    mark(ref) {
      if (active) events.push({ kind: "mark", ref }); // bounded by the agent server, never refused
    },

    /** fdatasync and sync never reach JavaScript in Emscripten: the Python side reports them here. */
    datasync(fd) {
      const stream = FS.getStream(fd);
      if (active && stream && rootOf(stream.node)) {
        events.push({ kind: "fsync", node: id(stream.node), flags: 1, path: stream.path });
      }
    },
    sync() {
      if (active) events.push({ kind: "sync" });
    },

    stop() {
      active = false;
    },

    /** The run's roots, events, every non-folder under the roots now ({path: bytes | null}) and the limit
     * it went past (null: none); then forgets them. */
    take() {
      const final = {};
      for (const root of roots) {
        walk(root.node, root.path, (node, _dir, _name, path) => {
          if (!FS.isDir(node.mode)) final[path] = FS.isFile(node.mode) ? contents(node) : null;
        });
      }
      const out = {
        roots: roots.map(({ role, node, path, entries }) => ({ role, node: id(node), path, entries })),
        events,
        final,
        over,
      };
      roots = [];
      events = [];
      ids = new Map();
      return out;
    },

    /** take() as JSON, bytes as latin-1 text (one string crosses into Python). */
    json() {
      return JSON.stringify(tap.take(), (_key, value) => (value instanceof Uint8Array ? latin1(value) : value));
    },

    uninstall() {
      active = false;
      Object.assign(FS, real);
    },
  };
  return tap;
}

function copyBytes(buffer, offset, length) {
  if (ArrayBuffer.isView(buffer)) return new Uint8Array(buffer.buffer, buffer.byteOffset + offset, length).slice();
  return Uint8Array.from(buffer.slice(offset, offset + length), (b) => b & 255);
}

function latin1(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  return text;
}
