#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The deepest chain of BPF stack frames of every program in BPF objects,
from their instructions: where the kernel gives a program no private stack
(every kernel before 6.13; uprobes on 6.18 too), the verifier refuses a
program whose chain of calls (bpf-to-bpf, and bpf_loop() callbacks) needs
more than 512 bytes of stack, each frame rounded up to 32 bytes.

A frame's size here is the deepest r10 offset its code touches: what clang
laid out, an upper bound of what the verifier counts (it sees only the
code left after dead branches are cut).  So a program within the limit
here is within it on every kernel.

  scripts/bpf-stack.py [--limit 512] OBJ.bpf.o...
prints each program's deepest chain and exits 1 if one is over the limit.
"""
import re
import subprocess
import sys

FRAME_ROUND = 32


def disassemble(obj):
    return subprocess.run(['llvm-objdump', '-d', '-r', obj], capture_output=True,
                          text=True, check=True).stdout


def parse(obj):
    """Functions: name -> {section, start (insn), depth, calls: set of (section, insn)}."""
    funcs, starts = {}, {}
    cur = sec = last = None
    func_re = re.compile(r'^([0-9a-f]+) <([^>]+)>:')
    insn_re = re.compile(r'^\s*(\d+):\s+((?:[0-9a-f]{2}\s)+)\s*(.*)$')
    rel_re = re.compile(r'^\s*[0-9a-f]+:\s+(R_BPF_\S+)\s+(\S+)')
    for line in disassemble(obj).splitlines():
        if line.startswith('Disassembly of section '):
            sec = line.split()[-1].rstrip(':')
            continue
        m = func_re.match(line)
        if m:
            if m.group(2).startswith('LBB'):
                continue
            cur = m.group(2)
            start = int(m.group(1), 16) // 8
            funcs[cur] = {'section': sec, 'start': start, 'depth': 0, 'calls': set()}
            starts.setdefault(sec, []).append((start, cur))
            continue
        m = insn_re.match(line)
        if m and cur:
            idx, raw, text = int(m.group(1)), m.group(2).split(), m.group(3)
            last = (idx, raw, text)
            for off in re.findall(r'r10 - (\d+)', text):
                funcs[cur]['depth'] = max(funcs[cur]['depth'], int(off))
            # A bpf-to-bpf call in the same section: opcode 0x85, src_reg 1 (BPF_PSEUDO_CALL).
            cm = re.match(r'call (-?\d+)$', text)
            if raw[0] == '85' and int(raw[1], 16) >> 4 == 1 and cm:
                funcs[cur]['calls'].add((sec, idx + 1 + int(cm.group(1))))
            continue
        m = rel_re.match(line)
        if m and cur and last:
            kind, target = m.groups()
            idx, raw, text = last
            cm = re.match(r'call (-?\d+)$', text)
            im = re.match(r'r\d+ = (-?\d+) ll$', text)
            if kind == 'R_BPF_64_32' and cm:
                # A call relocated against a symbol: a global function, or a
                # section (static functions): the immediate + 1 is the insn.
                funcs[cur]['calls'].discard((sec, idx + 1 + int(cm.group(1))))
                if target in funcs and not target.startswith('.'):
                    funcs[cur]['calls'].add(('sym', target))
                else:
                    funcs[cur]['calls'].add((target, int(cm.group(1)) + 1))
            elif kind == 'R_BPF_64_64' and im and target.startswith('.text'):
                # A function's address (a bpf_loop() callback): it is called too.
                funcs[cur]['calls'].add((target, int(im.group(1)) // 8))
    return funcs, starts


def resolve(funcs, starts, call):
    sec, where = call
    if sec == 'sym':
        return where
    best = None
    for start, name in sorted(starts.get(sec, [])):
        if start <= where:
            best = name
    return best


def deepest(funcs, starts, name, seen=()):
    f = funcs[name]
    own = (max(f['depth'], 1) + FRAME_ROUND - 1) // FRAME_ROUND * FRAME_ROUND
    best, path = 0, []
    for call in f['calls']:
        callee = resolve(funcs, starts, call)
        if not callee or callee in seen or callee == name:
            continue
        depth, p = deepest(funcs, starts, callee, seen + (name,))
        if depth > best:
            best, path = depth, p
    return own + best, [(name, own)] + path


def main(argv):
    limit = 512
    if len(argv) > 2 and argv[1] == '--limit':
        limit = int(argv[2])
        argv = argv[2:]
    over = 0
    for obj in argv[1:]:
        funcs, starts = parse(obj)
        for name, f in sorted(funcs.items()):
            if f['section'].startswith('.text'):
                continue
            depth, path = deepest(funcs, starts, name)
            chain = ' -> '.join(f'{n} {d}' for n, d in path)
            flag = ' OVER' if depth > limit else ''
            print(f'{depth:5d}{flag} {obj.split("/")[-1]}:{name}: {chain}')
            over += depth > limit
    if over:
        print(f'bpf-stack: {over} programs need more than {limit} bytes of stack', file=sys.stderr)
    return 1 if over else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
