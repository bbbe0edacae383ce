#!/usr/bin/env python3
"""fpmode-check.py ELF... -- find CONFIG writes that depend on registers this
function never wrote (the epiphany-elf-gcc FP_MODE_CALLER mode-switching bug,
see ../README.md, "The CONFIG restore bug").

GCC's Epiphany back end switches CONFIG (FPU rounding, integer/float
arithmetic mode) around instructions that need another mode and restores the
caller's mode before calls and returns:

    gid
    movfs S,config
    eor   S,S,X        ; X = the caller's CONFIG, saved by `movfs X,config`
    and   S,S,M        ; M = 0xfff1fffe
    eor   S,S,X
    movts config,S
    gie

GCC 12.2 can place such a restore on a path where the save of X (or the load
of the mask M) never ran, so CONFIG picks up whatever the caller left in that
register, or place the save where CONFIG was already switched.  This tool
disassembles each function with epiphany-elf-objdump, builds its control-flow
graph (switch jump tables read from the ELF's data; calls resolved to their
callee where the address is a constant) and runs a forward data-flow
analysis that tags every register with where its value may come from:

    ENTRY    the value the register had when the function was entered
    CLOBBER  garbage left by a call (a caller-saved register after jalr/bl;
             the libgcc division "sfuncs" clobber only their short lists)
    SAVED    `movfs X,config` while CONFIG still held the caller's value
    STALE    `movfs X,config` after CONFIG may have been switched
    OTHER    anything else computed in the function (constants, loads, ...)

At every `movts config,S` it looks at the registers that the instructions
computing S (since the matching `movfs S,config`) read -- X and M above --
and reports every one that may hold ENTRY, CLOBBER or STALE, with a path on
which the register is not written (from the entry, or from the clobbering
call) or the stale save.  Exit status 1 if anything was reported.

Options:
  --objdump PROG   the disassembler (default epiphany-elf-objdump)
  --quiet          only the findings and a summary line per ELF that has any
"""

import re
import struct
import subprocess
import sys
from collections import deque

ALIASES = {"sb": 9, "sl": 10, "fp": 11, "ip": 12, "sp": 13, "lr": 14}
CALLER_SAVED = set(range(0, 4)) | {12, 14} | set(range(16, 32)) | set(range(44, 64))
CONDS = {
    "eq", "ne", "gtu", "gteu", "lteu", "ltu", "gt", "gte", "lt", "lte",
    "beq", "bne", "blt", "blte", "",
}
ENTRY, CLOBBER, SAVED, OTHER = "ENTRY", "CLOBBER", "SAVED", "OTHER"
# A `movfs X,config` executed when CONFIG may already have been switched
# away from the caller's value: X is then no save of the caller's mode.
STALE = "STALE"
# The tags of CONFIG itself are kept under this index: ENTRY while it still
# holds the caller's value (also after a restore from a clean save),
# MODIFIED after any other write.
CONFIG, MODIFIED = 64, "MODIFIED"

# GCC calls these libgcc routines as "sfuncs" that clobber only the
# registers listed in epiphany.md (the divsi3/udivsi3/modsi3/umodsi3,
# recipsf2 and cmpsf_* patterns), so values live across them in other
# caller-saved registers are legitimate.
_DIV = {0, 1, 12, 14, 16, 17, 18, 19, 20}
SFUNC_CLOBBERS = {
    "divsi3": _DIV,
    "fast_recipsf2": _DIV,
    "udivsi3": {0, 1, 12, 14, 16, 17, 18},
    "modsi3": {0, 1, 2, 12, 14, 16, 17, 18, 19},
    "umodsi3": {0, 1, 2, 12, 14, 16, 17},
    "eqsf2": {12, 14},
    "gtesf2": {12, 14},
    "ordsf2": {12, 14, 16},
    "uneqsf2": {12, 14, 16},
}

REG_RE = re.compile(r"\b(r(\d+)|sb|sl|fp|ip|sp|lr)\b")
LINE_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(\S+)\s*(.*)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")


def reg_of(tok):
    tok = tok.strip()
    if tok in ALIASES:
        return ALIASES[tok]
    m = re.fullmatch(r"r(\d+)", tok)
    return int(m.group(1)) if m else None


def regs_in(text):
    out = []
    for m in REG_RE.finditer(text):
        out.append(ALIASES[m.group(1)] if m.group(1) in ALIASES else int(m.group(2)))
    return out


class Insn:
    __slots__ = ("addr", "size", "mn", "ops", "writes", "cond_writes", "reads",
                 "kind", "target", "text", "restore_src")

    def __init__(self, addr, size, mn, ops):
        self.addr, self.size, self.mn, self.ops = addr, size, mn, ops
        self.text = f"{mn} {ops}".strip()
        self.writes = []       # registers always written
        self.cond_writes = []  # registers maybe written (movCOND)
        self.reads = []
        self.kind = "seq"      # seq, branch, cbranch, call, icall, ijump, ret, stop
        self.target = None
        self.restore_src = None  # for `movts config`: X of eor/and/eor X
        self._classify()

    def _classify(self):
        mn, ops = self.mn, self.ops
        parts = split_ops(ops)
        if mn in ("rts", "rti"):
            self.kind = "ret"
            return
        if mn in ("jr", "jalr"):
            r = reg_of(parts[0])
            self.reads = [r]
            if mn == "jalr":
                self.kind = "icall"
            elif r == 14:
                self.kind = "ret"
            else:
                self.kind = "ijump"
            return
        if mn == "bl":
            self.kind = "call"
            self.target = int(parts[0].split()[0], 16)
            return
        if mn.startswith("b") and mn[1:] in CONDS | {"b" + c for c in CONDS} and parts \
                and re.fullmatch(r"[0-9a-f]+( <.*>)?", parts[0]):
            self.target = int(parts[0].split()[0], 16)
            self.kind = "branch" if mn == "b" else "cbranch"
            return
        if mn in ("nop", "gid", "gie", "idle", "wand", "sync", "break", "mbkpt", "unimpl"):
            if mn == "idle":
                self.kind = "seq"
            return
        if mn == "trap":
            # libgloss system calls return in r0 (and errno in r3).
            self.writes = [0, 3]
            return
        if mn == "movts":
            self.reads = regs_in(parts[1])
            return
        if mn == "movfs":
            self.writes = [reg_of(parts[0])]
            return
        if mn.startswith("str"):
            self.reads = regs_in(ops)
            if "]," in ops:  # post-modify writes the base register back
                self.writes = [regs_in(ops.split("[", 1)[1])[0]]
            return
        if mn.startswith("ldr"):
            rd = reg_of(parts[0])
            self.writes = [rd, rd + 1] if mn == "ldrd" else [rd]
            mem = ops.split("[", 1)[1]
            self.reads = regs_in(mem)
            if "]," in ops:
                self.writes.append(regs_in(mem)[0])
            return
        if mn.startswith("mov") and mn not in ("mov", "movt"):
            # movCOND rd,rn: written only if the condition holds.
            self.cond_writes = [reg_of(parts[0])]
            self.reads = regs_in(",".join(parts[1:]))
            return
        if mn == "movt":
            # Writes the high half only: the low half keeps the old value.
            rd = reg_of(parts[0])
            self.cond_writes = [rd]
            self.reads = [rd]
            return
        # Everything else: first operand written, the rest read.
        if parts:
            rd = reg_of(parts[0])
            if rd is not None:
                self.writes = [rd]
            self.reads = regs_in(",".join(parts[1:]))
            if mn in ("fmadd", "fmsub", "imadd", "imsub") and rd is not None:
                self.reads.append(rd)


def split_ops(ops):
    out, depth, cur = [], 0, ""
    for ch in ops:
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class ElfImage:
    """The allocated PROGBITS sections of an ELF32 file, by address."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        self.sections = []
        if data[:4] != b"\x7fELF" or data[4] != 1:
            return
        shoff, = struct.unpack_from("<I", data, 0x20)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x2e)
        for i in range(shnum):
            (_, stype, flags, addr, off, size) = struct.unpack_from(
                "<IIIIII", data, shoff + i * shentsize)
            if stype == 1 and flags & 2:  # PROGBITS, ALLOC
                self.sections.append((addr, data[off:off + size]))

    def all_words(self):
        """Every aligned word of the allocated data (computed once)."""
        if not hasattr(self, "_words"):
            self._words = set()
            for _, blob in self.sections:
                self._words.update(w for (w,) in struct.iter_unpack("<I", blob[:len(blob) & ~3]))
        return self._words

    def word(self, addr):
        for base, blob in self.sections:
            if base <= addr and addr + 4 <= base + len(blob):
                return struct.unpack_from("<I", blob, addr - base)[0]
        return None


def functions(objdump, path):
    out = subprocess.run([objdump, "-d", path], check=True, capture_output=True,
                         text=True).stdout
    funcs, cur = [], None
    for line in out.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = (m.group(2), [])
            funcs.append(cur)
            continue
        m = LINE_RE.match(line)
        if m and cur is not None:
            raw = m.group(2).replace(" ", "")
            cur[1].append(Insn(int(m.group(1), 16), len(raw) // 2, m.group(3), m.group(4)))
    return [f for f in funcs if f[1]]


def leaders(insns, index_of):
    """Indices that start a basic block (branch targets, after transfers)."""
    out = {0}
    for i, ins in enumerate(insns):
        if ins.target in index_of:
            out.add(index_of[ins.target])
        if ins.kind != "seq" and i + 1 < len(insns):
            out.add(i + 1)
    return out


def const_def(insns, lead, i, reg):
    """The constant `reg` holds before insns[i], if the same basic block
    loads it with mov (and movt); else None."""
    hi = None
    j = i - 1
    while j >= 0:
        ins = insns[j]
        if reg in ins.writes or reg in ins.cond_writes:
            parts = split_ops(ins.ops)
            imm = parts[1] if len(parts) == 2 and reg_of(parts[1]) is None else None
            if ins.mn == "movt" and imm is not None and hi is None:
                hi = int(imm, 0) & 0xffff
            elif ins.mn == "mov" and imm is not None:
                lo = int(imm, 0) & 0xffff
                return lo | (hi << 16 if hi is not None else 0)
            else:
                return None
        if j in lead:
            return None
        j -= 1
    return None


def table_jump_targets(insns, index_of, lead, i, image, state_in):
    """Successors of `jr rX` at insns[i] when rX was loaded from a jump
    table `ldr rX,[rT,rI]` with rT a constant; None if it is not one."""
    rx = insns[i].reads[0]
    j = i - 1
    while j >= 0 and rx not in insns[j].writes:
        if j in lead:
            return None
        j -= 1
    ins = insns[j] if j >= 0 else None
    if ins is None or not ins.mn.startswith("ldr"):
        return None
    if ins.mn != "ldr" or "]," in ins.ops:
        return "unknown table"
    mem = regs_in(ins.ops.split("[", 1)[1])
    if len(mem) != 2:
        return "unknown table"
    base = const_def(insns, lead, j, mem[0])
    if base is None and state_in is not None and state_in[j] is not None:
        base = state_in[j][1][mem[0]]  # loaded outside the block
    if not isinstance(base, int):
        return "unknown table"
    targets = []
    while True:
        w = image.word(base + 4 * len(targets))
        if w not in index_of:
            break
        targets.append(index_of[w])
    return sorted(set(targets)) or None


NAC = "not a constant"


def build_cfg(insns, image, state_in):
    index_of = {ins.addr: i for i, ins in enumerate(insns)}
    lead = leaders(insns, index_of)
    succ, unresolved = [], []
    for i, ins in enumerate(insns):
        nxt = [i + 1] if i + 1 < len(insns) else []
        if ins.kind == "branch":
            s = [index_of[ins.target]] if ins.target in index_of else []  # tail call
        elif ins.kind == "cbranch":
            s = nxt + ([index_of[ins.target]] if ins.target in index_of else [])
        elif ins.kind == "ret":
            s = []
        elif ins.kind == "ijump":
            s = table_jump_targets(insns, index_of, lead, i, image, state_in)
            if s is None:  # an indirect tail call
                s = []
            elif s == "unknown table":
                # A jump through a table we cannot locate: assume it may go
                # to any instruction whose address is stored anywhere in
                # the data (a superset of the table).
                s = sorted(index_of[w] for w in image.all_words() if w in index_of)
                unresolved.append(ins.addr)
        else:
            s = nxt
        succ.append(s)
    return succ, unresolved


def call_clobbers(ins, consts, symbols):
    """The registers a call clobbers: an sfunc's short list (when the
    callee is known) or every caller-saved register."""
    target = ins.target if ins.kind == "call" else consts[ins.reads[0]]
    return SFUNC_CLOBBERS.get(symbols.get(target), CALLER_SAVED)


def transfer(ins, state, symbols):
    """state = (tags, consts): per register, the set of origins of its
    value and its constant value (None: unknown yet, NAC: not constant)."""
    tags, consts = dict(state[0]), dict(state[1])
    parts = split_ops(ins.ops)
    src = reg_of(parts[1]) if len(parts) == 2 else None
    imm = int(parts[1], 0) & 0xffff if len(parts) == 2 and src is None and \
        re.fullmatch(r"-?(0x[0-9a-f]+|\d+)", parts[1]) else None
    for r in ins.writes:
        tags[r] = frozenset([OTHER])
        consts[r] = NAC
    for r in ins.cond_writes:
        if ins.mn == "movt":
            tags[r] = tags[r] | {OTHER}
            old = consts[r]
            consts[r] = (old & 0xffff) | (imm << 16) if isinstance(old, int) and imm is not None \
                else NAC
        elif src is not None:
            tags[r] = tags[r] | tags[src]
            consts[r] = NAC
        else:
            tags[r] = tags[r] | {OTHER}
            consts[r] = NAC
    if ins.mn == "movfs" and parts[-1] == "config":
        cfg = state[0][CONFIG]
        tags[ins.writes[0]] = frozenset(([SAVED] if ENTRY in cfg else []) +
                                        ([STALE] if MODIFIED in cfg else []))
    elif ins.mn == "movts" and parts[0] == "config":
        x = ins.restore_src
        clean = x is not None and state[0][x] == frozenset([SAVED])
        tags[CONFIG] = frozenset([ENTRY if clean else MODIFIED])
    elif ins.mn == "mov" and src is not None:
        tags[ins.writes[0]] = state[0][src]
        consts[ins.writes[0]] = state[1][src]
    elif ins.mn == "mov" and imm is not None:
        consts[ins.writes[0]] = imm
    if ins.kind in ("call", "icall"):
        for r in call_clobbers(ins, state[1], symbols):
            tags[r] = frozenset([CLOBBER])
            consts[r] = NAC
        tags[0] = frozenset([OTHER])  # the result
    return tags, consts


def join(a, b):
    tags = {r: a[0][r] | b[0][r] for r in a[0]}
    consts = {}
    for r in a[1]:
        x, y = a[1][r], b[1][r]
        consts[r] = x if x == y else NAC
    return tags, consts


def config_write_sequences(insns):
    """For every `movts config,S`: S and the indices of the instructions
    since the `movfs S,config` that starts its sequence (or of the movts
    alone when there is none close before it)."""
    out = {}
    for i, ins in enumerate(insns):
        if ins.mn != "movts" or not ins.ops.startswith("config"):
            continue
        scratch = regs_in(split_ops(ins.ops)[1])[0]
        j = i - 1
        while j >= 0 and i - j <= 8 and not (insns[j].mn == "movfs" and
                                             insns[j].writes == [scratch]):
            j -= 1
        out[i] = (scratch, list(range(j + 1, i)) if j >= 0 and i - j <= 8 else [i])
    return out


def stale_saves(insns, succ, state_in, target, reg):
    """The `movfs reg,config` instructions that reach insns[target] while
    CONFIG may already have been switched."""
    preds = {}
    for i, ss in enumerate(succ):
        for j in ss:
            preds.setdefault(j, []).append(i)
    seen, q, out = {target}, deque([target]), []
    while q:
        j = q.popleft()
        for i in preds.get(j, []):
            if i in seen:
                continue
            seen.add(i)
            ins = insns[i]
            if reg in ins.writes:
                if ins.mn == "movfs" and state_in[i] is not None \
                        and MODIFIED in state_in[i][0][CONFIG]:
                    out.append(f"saved by {ins.addr:08x} `{ins.text}` after CONFIG was switched")
                continue
            q.append(i)
    return out


def analyse(insns, image, symbols):
    seqs = config_write_sequences(insns)
    for i, (scratch, seq) in seqs.items():
        eors = [insns[k] for k in seq if insns[k].mn == "eor"]
        if len(eors) == 2 and eors[0].reads == eors[1].reads:
            insns[i].restore_src = [r for r in eors[0].reads if r != scratch][0]
    # Jump tables whose base register is loaded outside the jump's block
    # are resolved with the constants of a first pass, then the data flow
    # runs again on the completed graph.
    state_in = None
    while True:
        succ, unresolved = build_cfg(insns, image, state_in)
        if state_in is not None and unresolved == last_unresolved:
            break
        last_unresolved = unresolved
        state_in = [None] * len(insns)
        state_in[0] = ({r: frozenset([ENTRY]) for r in range(65)},
                       {r: NAC for r in range(65)})
        work = deque([0])
        while work:
            i = work.popleft()
            out = transfer(insns[i], state_in[i], symbols)
            for j in succ[i]:
                new = out if state_in[j] is None else join(state_in[j], out)
                if new != state_in[j]:
                    state_in[j] = new
                    work.append(j)
        if not unresolved:
            break
    clobbers = {i: call_clobbers(ins, state_in[i][1], symbols)
                for i, ins in enumerate(insns)
                if ins.kind in ("call", "icall") and state_in[i] is not None}
    findings = []
    for i, (scratch, seq) in seqs.items():
        ins = insns[i]
        if state_in[i] is None:
            continue
        for k in seq:
            # Only what computes the new CONFIG value counts (not, e.g., the
            # spill of a register around a STATUS save inside the sequence).
            if k != i and scratch not in insns[k].writes:
                continue
            for r in insns[k].reads:
                if r == scratch and k != i:
                    continue
                if any(f[0] is ins and f[2] == r for f in findings):
                    continue
                for tag in sorted(state_in[k][0][r] & {ENTRY, CLOBBER, STALE}, reverse=True):
                    if tag == STALE:
                        path = stale_saves(insns, succ, state_in, k, r)
                    else:
                        path = witness(insns, succ, clobbers, k, r, tag)
                    findings.append((ins, insns[k], r, tag, path))
    return findings, unresolved


def witness(insns, succ, clobbers, target, reg, tag):
    """The branch decisions along a path to insns[target] on which `reg` is
    never written: from the entry (tag ENTRY) or from a call that clobbers
    it (tag CLOBBER).  None if there is no such path."""
    def blocked(i):
        return reg in insns[i].writes or reg in clobbers.get(i, ())

    if tag == ENTRY:
        starts = [0]
    else:
        starts = [i for i in sorted(clobbers) if reg in clobbers[i]]
    prev = {i: None for i in starts}
    q = deque(starts)
    while q:
        i = q.popleft()
        if i == target:
            break
        if blocked(i) and i not in starts:
            continue
        for j in succ[i]:
            if j not in prev:
                prev[j] = i
                q.append(j)
    if target not in prev:
        return None
    path, i = [], target
    while i is not None:
        path.append(i)
        i = prev[i]
    path.reverse()
    steps = [] if tag == ENTRY else [f"call at {insns[path[0]].addr:08x}"]
    for a, b in zip(path, path[1:]):
        ins = insns[a]
        if ins.kind == "ijump":
            steps.append(f"{ins.addr:08x} jr to {insns[b].addr:08x}")
        elif ins.kind == "cbranch":
            taken = insns[b].addr != ins.addr + ins.size
            steps.append(f"{ins.addr:08x} {ins.mn} {'taken' if taken else 'not taken'}")
    return steps


def main(argv):
    objdump, quiet, files = "epiphany-elf-objdump", False, []
    it = iter(argv)
    for a in it:
        if a == "--objdump":
            objdump = next(it)
        elif a == "--quiet":
            quiet = True
        else:
            files.append(a)
    if not files:
        print(__doc__.strip().split("\n\n")[0], file=sys.stderr)
        return 2
    status, total_bad = 0, 0
    for path in files:
        image = ElfImage(path)
        funcs = functions(objdump, path)
        symbols = {insns[0].addr: name.lstrip("_") for name, insns in funcs}
        nwrites, bad_funcs, unresolved = 0, [], []
        for name, insns in funcs:
            nwrites += sum(1 for x in insns if x.mn == "movts" and x.ops.startswith("config"))
            findings, unres = analyse(insns, image, symbols)
            unresolved += [f"{name}@{a:08x}" for a in unres]
            if findings:
                bad_funcs.append(name)
                status = 1
            for movts, user, reg, tag, steps in findings:
                what = {ENTRY: "the caller's value", CLOBBER: "garbage from a call",
                        STALE: "a CONFIG value saved after it was switched"}[tag]
                print(f"{path}: {name}: CONFIG write at {movts.addr:08x} reads r{reg} "
                      f"({user.addr:08x} `{user.text}`), which may still hold {what}")
                if steps is not None and not quiet:
                    if tag == STALE:
                        print("    " + "; ".join(steps))
                    else:
                        print(f"    path on which r{reg} is not written: "
                              + ("; ".join(steps) if steps else "straight line"))
        total_bad += len(bad_funcs)
        if quiet and not bad_funcs:
            continue
        print(f"{path}: {len(funcs)} functions, {nwrites} CONFIG writes, "
              f"{len(bad_funcs)} functions with unsafe CONFIG writes"
              + (f" ({', '.join(bad_funcs)})" if bad_funcs else "")
              + (f"; jump tables not located (all code addresses in the data taken as "
                 f"targets): {', '.join(unresolved)}" if unresolved and not quiet else ""))
    print(f"fpmode-check: {len(files)} ELF files, {total_bad} functions with unsafe CONFIG writes")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
