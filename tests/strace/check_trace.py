#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check an strace log (strace -f -y -o FILE) of zram-recompd against its file allowlist.

Usage: check_trace.py TRACE --root DIR [--state DIR] [--metrics FILE] [--read PATH]...
                      [--root-read SUBDIR]... [--writes FILE] [--dict DIR]

Rules (paths are made absolute from the dirfd/cwd decoration -y prints, then normalized):
  * an open (open, openat, openat2, creat) for writing (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC,
    O_APPEND), or a call that changes a name or a mode (mkdir, rename, unlink, link, symlink,
    chmod, chown, truncate, utimes, mknod and their *at forms), may name only
      ROOT/sys/block/zramN/{recomp_algorithm,algorithm_params,recompress,idle,compact,
        backing_dev,compressed_writeback,writeback_limit_enable,writeback_limit,
        writeback_batch_size,writeback},
      ROOT/proc/pressure/{cpu,memory} (PSI triggers),
      the state directory or a file directly in it,
      the metrics file, or a temp file "<metrics file>.tmpXXXXXX" beside it,
      with --dict DIR (zstd-dictionary's memory-backed directory) a file directly in DIR,
      ROOT/run/zram-recompd and ROOT/run/zram-recompd/lock (mkdir) and the device locks in it
      (ROOT/run/zram-recompd/lock/zramN or adopt, src/kernel/devlock.c);
    a successful such open must also have resolved (the fd's path) inside ROOT, the state
    directory or the metrics directory;
  * write/pwrite64/writev/fchmod/fchown/ftruncate may target only a file opened for writing as
    allowed above, stdout, stderr, a pipe, a socket or an anonymous inode (eventfd);
  * any other open must name a path inside ROOT or on the explicit list below, or a --read PATH
    (the configuration file; a directory there covers what is inside it). With --root-read
    SUBDIR (repeatable) only ROOT/SUBDIR counts as inside ROOT for reads: on the real root
    "/" (the VM tier), --root-read sys --root-read proc ... keeps "nothing outside" meaningful.
A failed attempt counts like a successful one. Prints one line per violation; exit 1 if any.
--writes FILE gets the files opened for writing or changed (successfully), one per line,
ROOT-relative as "root:PATH", else "state:NAME", "metrics:NAME", "dict:NAME", "lock:NAME"
(temp suffixes as XXXXXX; the lock directories "lock:." and "lock:.."). Every open of a
path under --dict DIR must carry O_CLOEXEC, every one of ROOT/run/zram-recompd or under
ROOT/run/zram-recompd/lock O_CLOEXEC and O_NOFOLLOW (O_PATH: a Landlock rule's base).
"""
import os
import re
import sys

# Opened outside the root by the dynamic loader and the C library, and nothing else.
OUTSIDE_READ_EXACT = {
    "/etc/ld.so.cache",
    "/etc/ld.so.preload",
    "/etc/localtime",
    "/usr/lib/locale/locale-archive",
    # libsystemd's sd-event seeds its timer coalescing from the boot id (daemon only).
    "/proc/sys/kernel/random/boot_id",
}
OUTSIDE_READ_RE = [
    # Shared libraries from the loader's search path (ldd build/zram-recompd).
    re.compile(r"^/(usr/)?lib(32|64|x32)?/([a-z0-9_]+-linux-gnu[a-z0-9_]*/)?lib[^/]+\.so(\.[0-9]+)*$"),
    re.compile(r"^/(usr/)?lib(32|64)?/([a-z0-9_]+-linux-gnu[a-z0-9_]*/)?(glibc-hwcaps|tls)/.*\.so(\.[0-9]+)*$"),
    # Without /etc/ld.so.cache (the VM's initramfs) the loader also tries the legacy
    # platform subdirectories (x86_64/, x86_64/x86_64/, haswell/ ...).
    re.compile(r"^/(usr/)?lib(32|64)?/([a-z0-9_]+-linux-gnu[a-z0-9_]*/)?((x86_64|i686|haswell|xeon_phi|avx512_1|tls)/)+lib[^/]+\.so(\.[0-9]+)*$"),
    # Message catalogs and charset converters (strerror() in a non-C locale).
    re.compile(r"^/usr/(share|lib)/locale/"),
    re.compile(r"^/usr/lib/([a-z0-9_]+-linux-gnu/)?gconv/"),
]

ATTRS = ("recomp_algorithm", "algorithm_params", "recompress", "idle", "compact",
         "backing_dev", "compressed_writeback", "writeback_limit_enable", "writeback_limit",
         "writeback_batch_size", "writeback")

OPEN_CALLS = {"open": (False, 1), "creat": (False, 1), "openat": (True, 1), "openat2": (True, 1)}
# name -> list of (has_dirfd, index of the path among the path arguments to check)
CHANGE_CALLS = {
    "mkdir": False, "mkdirat": True, "rename": False, "renameat": True, "renameat2": True,
    "unlink": False, "unlinkat": True, "rmdir": False, "link": False, "linkat": True,
    "symlink": False, "symlinkat": True, "chmod": False, "fchmodat": True, "chown": False,
    "lchown": False, "fchownat": True, "truncate": False, "utimes": False, "utime": False,
    "utimensat": True, "futimesat": True, "mknod": False, "mknodat": True,
}
FD_WRITE_CALLS = {"write", "pwrite64", "writev", "pwritev", "pwritev2", "fchmod", "fchown",
                  "ftruncate", "fallocate"}

LINE_RE = re.compile(r"^(\d+)\s+(.*)$")
CALL_RE = re.compile(r"^([a-z0-9_]+)\((.*)\)\s+=\s+(.*)$")
STR_RE = re.compile(r'"((?:[^"\\]|\\.)*)"')
FD_RE = re.compile(r"(AT_FDCWD|-?\d+)<([^>]*)>")
RET_FD_RE = re.compile(r"^(\d+)<([^>]*)>")
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")


def unescape(s):
    return bytes(s, "utf-8").decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")


def tokens(args):
    """Path-ish tokens in order: ('fd', path) for a decorated descriptor, ('str', text)."""
    out = []
    pos = 0
    while pos < len(args):
        m_s = STR_RE.search(args, pos)
        m_f = FD_RE.search(args, pos)
        if not m_s and not m_f:
            break
        if m_s and (not m_f or m_s.start() < m_f.start()):
            out.append(("str", unescape(m_s.group(1))))
            pos = m_s.end()
        else:
            out.append(("fd", m_f.group(2)))
            pos = m_f.end()
    return out


def join(base, path):
    if path.startswith("/"):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(base or "/", path))


def paths_of(toks, has_dirfd):
    """Absolute paths named by string arguments; a dirfd decoration is the base of the next."""
    res = []
    base = None
    for kind, val in toks:
        if kind == "fd":
            base = val
        else:
            res.append(join(base if has_dirfd else os.getcwd(), val))
            base = None
    return res


class Checker:
    def __init__(self, root, state, metrics, reads, root_reads=(), dictdir=None):
        self.root = os.path.realpath(root)
        # The prefix of ROOT-relative paths: "" for "/" (the real root), not "/".
        self.rootp = "" if self.root == "/" else self.root
        self.root_reads = [self.rootp + "/" + d.strip("/") for d in root_reads]
        self.state = os.path.realpath(state) if state else None
        self.metrics = os.path.realpath(metrics) if metrics else None
        self.reads = [os.path.realpath(p) for p in reads]
        self.dict = os.path.realpath(dictdir) if dictdir else None
        self.bad = []
        self.writes = set()
        # Resolved paths of the allowed files opened for writing (sys/block/zramN is a link).
        self.wfiles = set()
        zr = re.escape(self.rootp) + r"/sys/block/zram[0-9]+/(" + "|".join(ATTRS) + r")$"
        self.attr_re = re.compile(zr)
        self.psi_re = re.compile(re.escape(self.rootp) + r"/proc/pressure/(cpu|memory)$")
        # the device locks (devlock.c): fixed names beneath the root, read through run/
        self.lock = self.rootp + "/run/zram-recompd/lock"
        self.lock_re = re.compile(re.escape(self.lock) + r"/(zram[0-9]+|adopt)$")

    def under(self, path, d):
        if d == "/":
            return path.startswith("/")
        return d is not None and (path == d or path.startswith(d + "/"))

    def in_root_reads(self, path):
        # The root itself (opened O_PATH as the base of every lookup) is always fine.
        if not self.root_reads or path == self.root:
            return self.under(path, self.root)
        return any(self.under(path, d) for d in self.root_reads)

    def label(self, path):
        """The --writes name of an allowed write target, or None if not allowed."""
        if self.attr_re.match(path) or self.psi_re.match(path):
            return "root:" + path[len(self.rootp) + 1:]
        if self.state and (path == self.state or os.path.dirname(path) == self.state):
            name = os.path.basename(path) if path != self.state else "."
            return "state:" + re.sub(r"\.tmp[A-Za-z0-9]{6}$", ".tmpXXXXXX", name)
        if self.dict and os.path.dirname(path) == self.dict:
            return "dict:" + os.path.basename(path)
        if path in (self.lock, os.path.dirname(self.lock)):
            return "lock:" + ("." if path == self.lock else "..")
        if self.lock_re.match(path):
            return "lock:" + os.path.basename(path)
        if self.metrics:
            if path == self.metrics:
                return "metrics:" + os.path.basename(path)
            if re.fullmatch(re.escape(self.metrics) + r"\.tmp[A-Za-z0-9]{6}", path):
                return "metrics:" + os.path.basename(path)[:-6] + "XXXXXX"
        return None

    def resolved_ok(self, path):
        return (self.in_root_reads(path) or self.under(path, self.state) or
                self.under(path, self.lock) or
                self.under(path, self.dict) or
                (self.metrics is not None and self.under(path, os.path.dirname(self.metrics))))

    def read_ok(self, path):
        if self.in_root_reads(path) or path in OUTSIDE_READ_EXACT:
            return True
        if any(r.match(path) for r in OUTSIDE_READ_RE):
            return True
        if self.under(path, self.state) or self.under(path, self.dict):
            return True
        if path in (self.rootp + "/run", os.path.dirname(self.lock)) or self.under(path, self.lock):
            return True
        if self.metrics and self.under(path, os.path.dirname(self.metrics)):
            return True
        return any(path == p or path.startswith(p + "/") or path == p + ".d" or
                   path.startswith(p + ".d/") for p in self.reads)

    def fd_write_ok(self, fd, fdpath):
        # stdout and stderr are inherited, whatever the caller made them.
        if fd in ("1", "2") or os.path.normpath(fdpath) in self.wfiles:
            return True
        if re.match(r"^(pipe|socket|anon_inode):", fdpath) or fdpath == "/dev/null":
            return True
        return self.label(os.path.normpath(fdpath)) is not None

    def check(self, call, args, ret, line):
        failed = ret.startswith("-1")
        if call in OPEN_CALLS:
            has_dirfd, _ = OPEN_CALLS[call]
            toks = tokens(args)
            paths = paths_of(toks, has_dirfd)
            if not paths:
                return
            path = paths[0]
            # openat2's flags are inside its struct: still within args.
            writing = any(f in args for f in WRITE_FLAGS)
            m = RET_FD_RE.match(ret)
            if self.under(path, self.dict) and "O_CLOEXEC" not in args:
                self.bad.append("open without O_CLOEXEC: " + line)
            # O_PATH: the sandbox's rule on the lock directory (devlock_dir_open checked it
            # just before, without following a link); it reads and writes nothing itself
            if ((self.under(path, self.lock) or path == os.path.dirname(self.lock)) and
                    not ("O_CLOEXEC" in args and ("O_NOFOLLOW" in args or "O_PATH" in args))):
                self.bad.append("lock open without O_NOFOLLOW|O_CLOEXEC: " + line)
            if writing:
                lab = self.label(path)
                if lab is None:
                    self.bad.append("write-open outside the allowlist: " + line)
                elif m and not self.resolved_ok(os.path.normpath(m.group(2))):
                    self.bad.append("write-open resolved outside: " + line)
                elif not failed:
                    self.writes.add(lab)
                    if m:
                        self.wfiles.add(os.path.normpath(m.group(2)))
            else:
                if not self.read_ok(path):
                    self.bad.append("open outside the root: " + line)
                elif m and not self.read_ok(os.path.normpath(m.group(2))):
                    self.bad.append("open resolved outside the root: " + line)
        elif call in CHANGE_CALLS:
            toks = tokens(args)
            if call in ("symlink", "symlinkat"):
                toks = toks[1:]  # the link's target text is not a path touched
            labs = [self.label(p) for p in paths_of(toks, CHANGE_CALLS[call])]
            if None in labs:
                self.bad.append(call + " outside the allowlist: " + line)
            elif not failed:
                self.writes.update(labs)
        elif call in FD_WRITE_CALLS:
            m = FD_RE.match(args)
            if not m:
                self.bad.append("undecorated fd (run strace with -y): " + line)
            elif not self.fd_write_ok(m.group(1), m.group(2)):
                self.bad.append(call + " to a file outside the allowlist: " + line)


def main(argv):
    trace = argv[1]
    opts = {"--root": None, "--state": None, "--metrics": None, "--writes": None, "--dict": None}
    reads = []
    root_reads = []
    i = 2
    while i < len(argv):
        if argv[i] == "--read":
            reads.append(argv[i + 1])
        elif argv[i] == "--root-read":
            root_reads.append(argv[i + 1])
        elif argv[i] in opts:
            opts[argv[i]] = argv[i + 1]
        else:
            print("check_trace: unknown argument " + argv[i])
            return 2
        i += 2
    if not opts["--root"]:
        print("check_trace: --root is required")
        return 2
    c = Checker(opts["--root"], opts["--state"], opts["--metrics"], reads, root_reads,
                opts["--dict"])
    pending = {}
    ncalls = 0
    with open(trace, encoding="utf-8", errors="replace") as f:
        for raw in f:
            raw = raw.rstrip("\n")
            m = LINE_RE.match(raw)
            if not m:
                continue
            pid, rest = m.group(1), m.group(2)
            if rest.startswith("+++") or rest.startswith("---"):
                continue
            if rest.endswith("<unfinished ...>"):
                pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
                continue
            rm = re.match(r"^<\.\.\. [a-z0-9_]+ resumed>\s?(.*)$", rest)
            if rm:
                rest = pending.pop(pid, "") + rm.group(1)
            cm = CALL_RE.match(rest)
            if not cm:
                continue
            ncalls += 1
            c.check(cm.group(1), cm.group(2), cm.group(3), raw)
    if ncalls == 0:
        print("check_trace: no system call in " + trace)
        return 1
    if opts["--writes"]:
        with open(opts["--writes"], "w", encoding="utf-8") as w:
            for lab in sorted(c.writes):
                w.write(lab + "\n")
    for b in c.bad:
        print(b[:400])
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
