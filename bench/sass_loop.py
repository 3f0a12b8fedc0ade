#!/usr/bin/env python3
"""The decode kernels' main loop, read off a bundle's SASS without a GPU.

ncu (bench/sass_tally.py) counts what ran; this estimates it from the listing
alone, so that a template change can be compared before any device time is
spent. Per decode kernel it finds the main loop (the shortest backward
branch whose body holds >= 16 mma), and walks its common path once: the
online softmax's rescale skipped (the branch right after VOTE.ANY taken),
short blocks of selects skipped, the page-table reload skipped (a short
block holding LDG), every other conditional branch falling through (lane
0's ring refill is issued, divergence and retry branches are not taken).
It prints the static size of the loop, the instructions the walk issued per
iteration (two 16-token steps on the ring path) and their opcodes.

  cuobjdump -sass out/kernels.cubin > k3v4.sass
  python3 bench/sass_loop.py k3v4.sass
  python3 bench/sass_loop.py out/kernels.cubin   # runs cuobjdump itself

This machine's CUDA toolkit has no cuobjdump; the one in PyPI's
nvidia-cuda-cuobjdump wheel runs here (`pip download --no-deps
nvidia-cuda-cuobjdump`, unzip, nvidia/cu13/bin/cuobjdump). An estimate,
not a measurement: it compares versions of one kernel; ncu says what ran.
"""
import argparse
import collections
import re
import subprocess
import sys

INSTR = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
BRANCH = re.compile(r"(@!?U?P\d+ )?BRA(\.\S+)? (?:\S+ )?0x([0-9a-f]+)$")
SKIPPABLE = re.compile(
    r"(@!?P\d )?(SEL|FSEL|ISETP|IMAD|MOV|BSYNC|NOP|SHF|VIADD|IADD3)\b")


def functions(text):
    """{name: [(address, instruction)]} of a cuobjdump -sass listing."""
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function : (\S+)", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSTR.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2).strip()))
    return funcs


def opcode(ins):
    words = ins.split()
    return (words[1] if words[0].startswith("@") else words[0]).split(".")[0]


def main_loop(ins, min_mma):
    """(head, back-edge) addresses of the shortest loop with >= min_mma mma."""
    best = None
    for addr, s in ins:
        m = BRANCH.match(s)
        if not m:
            continue
        head = int(m.group(3), 16)
        if head >= addr or (best and addr - head >= best[1] - best[0]):
            continue
        mma = sum(1 for a, t in ins if head <= a <= addr and "MMA" in t)
        if mma >= min_mma:
            best = (head, addr)
    return best


def common_path(ins, loop):
    """Opcode counts of one walk of the loop along its common path."""
    index = {a: i for i, (a, _) in enumerate(ins)}
    i, ops = index[loop[0]], collections.Counter()
    while True:
        addr, s = ins[i]
        ops[opcode(s)] += 1
        if addr == loop[1]:
            return ops
        m = BRANCH.match(s)
        take = False
        if m and not m.group(2):  # no .DIV / .U.ANY
            target = int(m.group(3), 16)
            if addr < target <= loop[1]:
                block = [t for _, t in ins[i + 1:index[target]]]
                take = (not m.group(1)  # unconditional
                        or "VOTE.ANY" in ins[i - 1][1]  # rescale skipped
                        or all(SKIPPABLE.match(t) for t in block)
                        or (len(block) < 30 and any("LDG" in t for t in block)))
        i = index[target] if take else i + 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("listing", help="cuobjdump -sass output, or a .cubin")
    ap.add_argument("--kernels", default=r"tq_decode_p\d+_bf16",
                    help="regex of the kernels to read (default: %(default)s)")
    ap.add_argument("--min-mma", type=int, default=16,
                    help="mma a loop body must hold to be the main loop")
    ap.add_argument("--top", type=int, default=16, help="opcodes to print")
    args = ap.parse_args()
    if args.listing.endswith(".cubin"):
        try:
            text = subprocess.run(["cuobjdump", "-sass", args.listing],
                                  check=True, capture_output=True,
                                  text=True).stdout
        except FileNotFoundError:
            sys.exit("cuobjdump is not on PATH (the module docstring says "
                     f"where to get one); or pass its -sass output, not "
                     f"{args.listing}")
    else:
        text = open(args.listing).read()
    found = False
    for name, ins in sorted(functions(text).items()):
        if not re.fullmatch(args.kernels, name):
            continue
        loop = main_loop(ins, args.min_mma)
        if not loop:
            print(f"{name}: no loop with {args.min_mma} mma")
            continue
        found = True
        ops = common_path(ins, loop)
        static = sum(1 for a, _ in ins if loop[0] <= a <= loop[1])
        top = " ".join(f"{k}:{v}" for k, v in ops.most_common(args.top))
        print(f"{name}: loop {loop[0]:#x}-{loop[1]:#x}, {static} static, "
              f"~{sum(ops.values())} issued per iteration; {top}")
    if not found:
        sys.exit(f"no kernel matching {args.kernels} has a main loop")


if __name__ == "__main__":
    main()
